/* C interface of the CUDA kernels of petsc-vpatch. No PETSc types: plain sizes, host arrays for setup and
   device pointers for the work. Every function returns 0 or a CUDA error code (VPCudaErrorString). */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* An operator in Kronecker form on the interior nodes of a brick (one rank), y = sum_t coef_t (x)_d G_d^{kind_t,d} x:
   per direction d, the 1D matrices of each kind restricted to the n[d] interior nodes, banded with half bandwidth
   bw and stored row-wise as band[d][kind][i*(2 bw + 1) + j - i + bw]. Vectors are the interior nodes, x fastest. */
typedef struct VPCudaKron_s *VPCudaKron;

int VPCudaKronCreate(int dim, const int n[3], int bw, int nterms, const double coef[], const int kind[][3], const double *const band[3][3], VPCudaKron *op);
int VPCudaKronApply_d(VPCudaKron op, const double *x, double *y);
int VPCudaKronApply_f(VPCudaKron op, const float *x, float *y);
int VPCudaKronDestroy(VPCudaKron *op);

const char *VPCudaErrorString(int err);

#ifdef __cplusplus
}
#endif
