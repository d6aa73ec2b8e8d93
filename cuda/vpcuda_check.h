// Internal to cuda/: return the CUDA error code of a failing call from the enclosing int function.
#pragma once
#include <cuda_runtime.h>

#define VP_CHECK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) return (int)e_; \
  } while (0)
