// Internal to cuda/: return the library error code (VPC_ERR_CUBLAS / VPC_ERR_CUSOLVER + status) of a failing cuBLAS or
// cuSOLVER call from the enclosing int function (PCHFEM's and PCDENSEINVERSE's dense steps).
#pragma once
#include "vpatch_cuda.h"
#include <cublas_v2.h>
#include <cusolverDn.h>

#define VP_CUBLAS(call) \
  do { \
    cublasStatus_t s_ = (call); \
    if (s_ != CUBLAS_STATUS_SUCCESS) return VPC_ERR_CUBLAS + (int)s_; \
  } while (0)
#define VP_CUSOLVER(call) \
  do { \
    cusolverStatus_t s_ = (call); \
    if (s_ != CUSOLVER_STATUS_SUCCESS) return VPC_ERR_CUSOLVER + (int)s_; \
  } while (0)
