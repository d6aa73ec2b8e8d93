// The GPU side of PCDENSEINVERSE (src/pc/denseinverse): the inverse of a small SPD matrix held dense on the device, made
// once with cuSOLVER (Cholesky potrf, then potri: the inverse's lower triangle) and applied as one symmetric
// matrix-vector product (cublasDsymv, which reads only that triangle). For PCMG's coarse solve on the GPU: the host's
// sparse triangular solves of a Q7 coarse grid took 68-72 ms a V-cycle on an H200 machine, the same on one and four GPUs.
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include "vpcublas_check.h"

struct VPCudaDenseInverse_s {
  int                n;
  double            *A;     // n x n, column-major; after the setup the inverse's lower triangle
  double            *x, *y; // the apply's device copies of host vectors
  cublasHandle_t     blas;
  cusolverDnHandle_t solver;
};

// A(col, row) = val for the CSR rows of the matrix (one block per row; the matrix is symmetric, so the row-major CSR
// written column by column is A itself)
__global__ void VPDenseScatter(int n, const int *__restrict__ ptr, const int *__restrict__ col, const double *__restrict__ val, double *__restrict__ A)
{
  for (int i = blockIdx.x; i < n; i += gridDim.x)
    for (int p = ptr[i] + threadIdx.x; p < ptr[i + 1]; p += blockDim.x) A[(size_t)i * n + col[p]] = val[p];
}

// the Cholesky factorization (step 0) or inversion (step 1) of A in place, with its own workspace; VPC_ERR_NOT_SPD if the
// factorization met a non-positive pivot
static int Factor(VPCudaDenseInverse d, int step)
{
  int     lwork = 0, info = 0, err = 0;
  double *work  = NULL;
  int    *dinfo = NULL;
  if (step == 0) VP_CUSOLVER(cusolverDnDpotrf_bufferSize(d->solver, CUBLAS_FILL_MODE_LOWER, d->n, d->A, d->n, &lwork));
  else VP_CUSOLVER(cusolverDnDpotri_bufferSize(d->solver, CUBLAS_FILL_MODE_LOWER, d->n, d->A, d->n, &lwork));
  VP_CHECK(cudaMalloc(&work, sizeof(double) * (size_t)(lwork > 0 ? lwork : 1)));
  if (cudaMalloc(&dinfo, sizeof(int)) != cudaSuccess) {
    cudaFree(work);
    return (int)cudaErrorMemoryAllocation;
  }
  cusolverStatus_t s = step == 0 ? cusolverDnDpotrf(d->solver, CUBLAS_FILL_MODE_LOWER, d->n, d->A, d->n, work, lwork, dinfo) : cusolverDnDpotri(d->solver, CUBLAS_FILL_MODE_LOWER, d->n, d->A, d->n, work, lwork, dinfo);
  if (s != CUSOLVER_STATUS_SUCCESS) err = VPC_ERR_CUSOLVER + (int)s;
  else if (cudaMemcpy(&info, dinfo, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) err = (int)cudaErrorUnknown;
  else if (info != 0) err = VPC_ERR_NOT_SPD;
  cudaFree(work);
  cudaFree(dinfo);
  return err;
}

extern "C" int VPCudaDenseInverseCreate(int n, const int *ptr, const int *col, const double *val, VPCudaDenseInverse *dp)
{
  VPCudaDenseInverse d    = new VPCudaDenseInverse_s();
  int               *dptr = NULL, *dcol = NULL, err;
  double            *dval = NULL;
  const int          nnz  = ptr[n];
  *dp                     = d;
  d->n                    = n;
  VP_CUBLAS(cublasCreate(&d->blas));
  VP_CUSOLVER(cusolverDnCreate(&d->solver));
  VP_CHECK(cudaMalloc(&d->A, sizeof(double) * (size_t)n * n));
  VP_CHECK(cudaMalloc(&d->x, sizeof(double) * (size_t)n));
  VP_CHECK(cudaMalloc(&d->y, sizeof(double) * (size_t)n));
  VP_CHECK(cudaMemset(d->A, 0, sizeof(double) * (size_t)n * n));
  VP_CHECK(cudaMalloc(&dptr, sizeof(int) * ((size_t)n + 1)));
  VP_CHECK(cudaMalloc(&dcol, sizeof(int) * ((size_t)nnz + 1)));
  VP_CHECK(cudaMalloc(&dval, sizeof(double) * ((size_t)nnz + 1)));
  VP_CHECK(cudaMemcpy(dptr, ptr, sizeof(int) * ((size_t)n + 1), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(dcol, col, sizeof(int) * (size_t)nnz, cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(dval, val, sizeof(double) * (size_t)nnz, cudaMemcpyHostToDevice));
  const unsigned grid = (unsigned)(n < 65535 ? n : 65535);
  if (n) VPDenseScatter<<<grid, 128>>>(n, dptr, dcol, dval, d->A);
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaFree(dptr));
  VP_CHECK(cudaFree(dcol));
  VP_CHECK(cudaFree(dval));
  if ((err = Factor(d, 0))) return err;
  return Factor(d, 1);
}

extern "C" int VPCudaDenseInverseApply(VPCudaDenseInverse d, const double *x, double *y, int on_device)
{
  const double one = 1.0, zero = 0.0;
  if (on_device) {
    VP_CUBLAS(cublasDsymv(d->blas, CUBLAS_FILL_MODE_LOWER, d->n, &one, d->A, d->n, x, 1, &zero, y, 1));
    VP_CHECK(cudaGetLastError());
    return 0;
  }
  VP_CHECK(cudaMemcpy(d->x, x, sizeof(double) * (size_t)d->n, cudaMemcpyHostToDevice));
  VP_CUBLAS(cublasDsymv(d->blas, CUBLAS_FILL_MODE_LOWER, d->n, &one, d->A, d->n, d->x, 1, &zero, d->y, 1));
  VP_CHECK(cudaMemcpy(y, d->y, sizeof(double) * (size_t)d->n, cudaMemcpyDeviceToHost));
  return 0;
}

extern "C" int VPCudaDenseInverseDestroy(VPCudaDenseInverse *dp)
{
  VPCudaDenseInverse d = *dp;
  if (!d) return 0;
  *dp = NULL;
  if (d->blas) cublasDestroy(d->blas);
  if (d->solver) cusolverDnDestroy(d->solver);
  VP_CHECK(cudaFree(d->A));
  VP_CHECK(cudaFree(d->x));
  VP_CHECK(cudaFree(d->y));
  delete d;
  return 0;
}
