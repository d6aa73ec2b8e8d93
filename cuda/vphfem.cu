// The dense steps of PCHFEM (method M1 of [RTRZ21]) on the GPU: assembly and inversion of the Schur complement Pi and
// of one macro cell's block C_1 (cuSOLVER), and the products with their inverses in double, single (optionally TF32),
// half or bfloat16 (cuBLAS; tensor cores with float accumulation for the 16-bit formats). The right-hand sides are the
// columns of column-major double arrays in the set order [C; E; I] with leading dimension ld (see vpatch_cuda.h).
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

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

struct VPCudaHFEM_s {
  int                nC, nE, nb, ncell, prec, tf32;
  cublasHandle_t     blas;
  cusolverDnHandle_t solver;
  double            *LC, *B;        // Cholesky factor of the macro-grid block (nC x nC, lower), B (nC x nE)
  void              *Cinv, *Piinv;  // the two inverses in the storage precision, divided by sC, sPi
  double             sC, sPi;       // their scales (the largest entry for half and bfloat16, else 1)
  void              *pack;          // right-hand sides packed and converted for one product
  void              *out;           // its result (double for double, else float)
  float             *colscale;      // the scale of each packed column (half, bfloat16)
  size_t             packcap, outcap, colcap;
  int               *info;
};

static size_t StorageSize(int prec)
{
  return prec == VPC_HFEM_DOUBLE ? sizeof(double) : (prec == VPC_HFEM_SINGLE ? sizeof(float) : sizeof(__half));
}

static int Grow(void **p, size_t *cap, size_t bytes)
{
  if (bytes <= *cap) return 0;
  VP_CHECK(cudaFree(*p));
  *p = NULL;
  VP_CHECK(cudaMalloc(p, bytes));
  *cap = bytes;
  return 0;
}

static unsigned Blocks(size_t n)
{
  size_t b = (n + 255) / 256;
  return (unsigned)(b < 65535 * 4 ? (b ? b : 1) : 65535 * 4);
}

template <typename T>
__device__ T FromDouble(double v);
template <>
__device__ double FromDouble<double>(double v)
{
  return v;
}
template <>
__device__ float FromDouble<float>(double v)
{
  return (float)v;
}
template <>
__device__ __half FromDouble<__half>(double v)
{
  return __float2half_rn((float)v);
}
template <>
__device__ __nv_bfloat16 FromDouble<__nv_bfloat16>(double v)
{
  return __float2bfloat16_rn((float)v);
}

// y = x / s in the storage type
template <typename T>
__global__ void VPConvert(size_t n, const double *__restrict__ x, double s, T *__restrict__ y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = FromDouble<T>(x[i] / s);
}

// packed column c = g * per + q of X lives at X + g * ldx + q * rows; scaled (16-bit formats) and converted
template <typename T, bool SCALE>
__global__ void VPPack(int rows, int per, int ncols, const double *__restrict__ X, size_t ldx, T *__restrict__ P, float *__restrict__ scale)
{
  __shared__ double red[256];
  for (int c = blockIdx.x; c < ncols; c += gridDim.x) {
    const double *x = X + (size_t)(c / per) * ldx + (size_t)(c % per) * rows;
    double        s = 1.0;
    if (SCALE) {
      double m = 0.0;
      for (int r = threadIdx.x; r < rows; r += blockDim.x) m = fmax(m, fabs(x[r]));
      red[threadIdx.x] = m;
      __syncthreads();
      for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + w]);
        __syncthreads();
      }
      s = red[0] > 0.0 ? red[0] : 1.0;
      __syncthreads();
      if (threadIdx.x == 0) scale[c] = (float)s;
    }
    for (int r = threadIdx.x; r < rows; r += blockDim.x) P[(size_t)c * rows + r] = FromDouble<T>(x[r] / s);
  }
}

// Y (same column map as the packing) = s * scale[c] * O
template <typename TO, bool SCALE>
__global__ void VPUnpack(int rows, int per, int ncols, const TO *__restrict__ O, const float *__restrict__ scale, double s, double *__restrict__ Y, size_t ldy)
{
  const size_t total = (size_t)rows * ncols;
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < total; p += (size_t)gridDim.x * blockDim.x) {
    const int    r = (int)(p % rows), c = (int)(p / rows);
    const double f = SCALE ? s * (double)scale[c] : s;
    Y[(size_t)(c / per) * ldy + (size_t)(c % per) * rows + r] = f * (double)O[p];
  }
}

// Lambda -= G_type for every macro cell at its E nodes (cellE < 0: no such node); cells share edges, hence atomics
__global__ void VPCellsSubtract(int ncell, int nr, const int *__restrict__ cellE, const int *__restrict__ celltype, const double *__restrict__ G, int nE, double *__restrict__ L)
{
  for (int c = blockIdx.x; c < ncell; c += gridDim.x) {
    const int    *e = cellE + (size_t)c * nr;
    const double *g = G + (size_t)celltype[c] * nr * nr;
    for (int p = threadIdx.x; p < nr * nr; p += blockDim.x) {
      const int a = e[p % nr], b = e[p / nr];
      if (a >= 0 && b >= 0) atomicAdd(&L[a + (size_t)b * nE], -g[p]);
    }
  }
}

__global__ void VPAddCOO(size_t nnz, const int *__restrict__ ei, const int *__restrict__ ej, const double *__restrict__ ev, int n, double *__restrict__ L)
{
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < nnz; p += (size_t)gridDim.x * blockDim.x) atomicAdd(&L[ei[p] + (size_t)ej[p] * n], ev[p]);
}

extern "C" int VPCudaHFEMCreate(int nC, int nE, int nb, int ncell, int prec, int tf32, const double *LC, const double *B, VPCudaHFEM *hp)
{
  VPCudaHFEM h = new VPCudaHFEM_s();
  *hp          = h;
  h->nC = nC, h->nE = nE, h->nb = nb, h->ncell = ncell, h->prec = prec, h->tf32 = tf32;
  h->sC = h->sPi = 1.0;
  VP_CUBLAS(cublasCreate(&h->blas));
  VP_CUSOLVER(cusolverDnCreate(&h->solver));
  VP_CHECK(cudaMalloc(&h->info, sizeof(int)));
  if (nC) {
    VP_CHECK(cudaMalloc(&h->LC, sizeof(double) * nC * nC));
    VP_CHECK(cudaMemcpy(h->LC, LC, sizeof(double) * nC * nC, cudaMemcpyHostToDevice));
    if (nE) {
      const double one = 1.0;
      VP_CHECK(cudaMalloc(&h->B, sizeof(double) * nC * nE));
      VP_CHECK(cudaMemcpy(h->B, B, sizeof(double) * nC * nE, cudaMemcpyHostToDevice));
      VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nC, nE, &one, h->LC, nC, h->B, nC));
    }
  }
  return 0;
}

// the extreme eigenvalues' ratio of the symmetric matrix a (lower triangle; a copy is taken); the 64-bit API, as n^2
// passes 2^31 for the Schur complements of fine grids
static int Condition(VPCudaHFEM h, int n, const double *a, double *kappa)
{
  cusolverDnParams_t params;
  double            *c, *w, wlo, whi;
  void              *dwork, *hwork = NULL;
  size_t             wd, wh;
  int                info;
  VP_CHECK(cudaMalloc(&c, sizeof(double) * n * (size_t)n));
  VP_CHECK(cudaMemcpy(c, a, sizeof(double) * n * (size_t)n, cudaMemcpyDeviceToDevice));
  VP_CHECK(cudaMalloc(&w, sizeof(double) * n));
  VP_CUSOLVER(cusolverDnCreateParams(&params));
  VP_CUSOLVER(cusolverDnXsyevd_bufferSize(h->solver, params, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, c, n, CUDA_R_64F, w, CUDA_R_64F, &wd, &wh));
  VP_CHECK(cudaMalloc(&dwork, wd ? wd : 1));
  if (wh) hwork = malloc(wh);
  VP_CUSOLVER(cusolverDnXsyevd(h->solver, params, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, c, n, CUDA_R_64F, w, CUDA_R_64F, dwork, wd, hwork, wh, h->info));
  VP_CHECK(cudaMemcpy(&info, h->info, sizeof(int), cudaMemcpyDeviceToHost));
  VP_CHECK(cudaMemcpy(&wlo, w, sizeof(double), cudaMemcpyDeviceToHost));
  VP_CHECK(cudaMemcpy(&whi, w + n - 1, sizeof(double), cudaMemcpyDeviceToHost));
  free(hwork);
  VP_CHECK(cudaFree(dwork));
  VP_CHECK(cudaFree(w));
  VP_CHECK(cudaFree(c));
  VP_CUSOLVER(cusolverDnDestroyParams(params));
  if (info) return VPC_ERR_NOT_SPD;
  *kappa = whi / wlo;
  return 0;
}

// a (n x n, double) stored in the precision as a / s (s: the largest entry for the 16-bit formats, else 1); a is
// freed unless the storage is double (then it is the store)
static int Store(VPCudaHFEM h, int n, double *a, void **store, double *s)
{
  const size_t nn = (size_t)n * n;
  *s              = 1.0;
  if (h->prec == VPC_HFEM_DOUBLE) {
    *store = a;
    return 0;
  }
  if (h->prec == VPC_HFEM_HALF || h->prec == VPC_HFEM_BFLOAT16) {
    int64_t idx = 0;
    double  amax;
    VP_CUBLAS(cublasIdamax_64(h->blas, (int64_t)nn, a, 1, &idx));
    VP_CHECK(cudaMemcpy(&amax, a + (idx - 1), sizeof(double), cudaMemcpyDeviceToHost));
    *s = fabs(amax) > 0 ? fabs(amax) : 1.0;
  }
  VP_CHECK(cudaMalloc(store, StorageSize(h->prec) * nn));
  if (h->prec == VPC_HFEM_SINGLE) VPConvert<float><<<Blocks(nn), 256>>>(nn, a, *s, (float *)*store);
  else if (h->prec == VPC_HFEM_HALF) VPConvert<__half><<<Blocks(nn), 256>>>(nn, a, *s, (__half *)*store);
  else VPConvert<__nv_bfloat16><<<Blocks(nn), 256>>>(nn, a, *s, (__nv_bfloat16 *)*store);
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaFree(a));
  return 0;
}

__global__ void VPSetDiagonal(int n, double v, double *a)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)n; i += (size_t)gridDim.x * blockDim.x) a[i + i * (size_t)n] = v;
}

// *inv (new, n x n) = the inverse of a (symmetric positive definite, lower triangle; a is freed): a Cholesky
// factorization and the identity's columns solved with it, by the 64-bit API (potri's 32-bit workspace does not reach
// the n^2 > 2^31 of the Schur complements of fine grids)
static int Invert(VPCudaHFEM h, int n, double *a, double **inv)
{
  cusolverDnParams_t params;
  void              *dwork, *hwork = NULL;
  size_t             wd, wh;
  int                info;
  VP_CUSOLVER(cusolverDnCreateParams(&params));
  VP_CUSOLVER(cusolverDnXpotrf_bufferSize(h->solver, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a, n, CUDA_R_64F, &wd, &wh));
  VP_CHECK(cudaMalloc(&dwork, wd ? wd : 1));
  if (wh) hwork = malloc(wh);
  VP_CUSOLVER(cusolverDnXpotrf(h->solver, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a, n, CUDA_R_64F, dwork, wd, hwork, wh, h->info));
  VP_CHECK(cudaMemcpy(&info, h->info, sizeof(int), cudaMemcpyDeviceToHost));
  free(hwork);
  VP_CHECK(cudaFree(dwork));
  if (info) return VPC_ERR_NOT_SPD;
  VP_CHECK(cudaMalloc(inv, sizeof(double) * n * (size_t)n));
  VP_CHECK(cudaMemset(*inv, 0, sizeof(double) * n * (size_t)n));
  VPSetDiagonal<<<Blocks(n), 256>>>(n, 1.0, *inv);
  VP_CHECK(cudaGetLastError());
  VP_CUSOLVER(cusolverDnXpotrs(h->solver, params, CUBLAS_FILL_MODE_LOWER, n, n, CUDA_R_64F, a, n, CUDA_R_64F, *inv, n, h->info));
  VP_CHECK(cudaMemcpy(&info, h->info, sizeof(int), cudaMemcpyDeviceToHost));
  VP_CUSOLVER(cusolverDnDestroyParams(params));
  VP_CHECK(cudaFree(a));
  if (info) return VPC_ERR_NOT_SPD;
  return 0;
}

extern "C" int VPCudaHFEMSetCinv(VPCudaHFEM h, const double *Cinv)
{
  const size_t nn = (size_t)h->nb * h->nb;
  double      *a;
  if (!h->nb) return 0;
  VP_CHECK(cudaMalloc(&a, sizeof(double) * nn));
  VP_CHECK(cudaMemcpy(a, Cinv, sizeof(double) * nn, cudaMemcpyHostToDevice));
  return Store(h, h->nb, a, &h->Cinv, &h->sC);
}

extern "C" int VPCudaHFEMSetPi(VPCudaHFEM h, size_t nnz, const int *ei, const int *ej, const double *ev, int ntype, int nr, const double *G, const int *cellE, const int *celltype, double *kappa)
{
  const int    nE = h->nE, nC = h->nC;
  const size_t nn = (size_t)nE * nE;
  double      *L, *dev, *dG;
  int         *dei, *dej, *dcellE, *dtype;
  if (!nE) return 0;
  VP_CHECK(cudaMalloc(&L, sizeof(double) * nn));
  VP_CHECK(cudaMemset(L, 0, sizeof(double) * nn));
  // the prehandled E-E block (sparse), then Lambda = E - sum_cells D_k C_1^-1 D_k^T (eq. 13)
  VP_CHECK(cudaMalloc(&dei, sizeof(int) * (nnz + 1)));
  VP_CHECK(cudaMalloc(&dej, sizeof(int) * (nnz + 1)));
  VP_CHECK(cudaMalloc(&dev, sizeof(double) * (nnz + 1)));
  VP_CHECK(cudaMemcpy(dei, ei, sizeof(int) * nnz, cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(dej, ej, sizeof(int) * nnz, cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(dev, ev, sizeof(double) * nnz, cudaMemcpyHostToDevice));
  VPAddCOO<<<Blocks(nnz), 256>>>(nnz, dei, dej, dev, nE, L);
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaFree(dei));
  VP_CHECK(cudaFree(dej));
  VP_CHECK(cudaFree(dev));
  if (nr && h->ncell) {
    VP_CHECK(cudaMalloc(&dG, sizeof(double) * (size_t)ntype * nr * nr));
    VP_CHECK(cudaMalloc(&dcellE, sizeof(int) * (size_t)h->ncell * nr));
    VP_CHECK(cudaMalloc(&dtype, sizeof(int) * (size_t)h->ncell));
    VP_CHECK(cudaMemcpy(dG, G, sizeof(double) * (size_t)ntype * nr * nr, cudaMemcpyHostToDevice));
    VP_CHECK(cudaMemcpy(dcellE, cellE, sizeof(int) * (size_t)h->ncell * nr, cudaMemcpyHostToDevice));
    VP_CHECK(cudaMemcpy(dtype, celltype, sizeof(int) * (size_t)h->ncell, cudaMemcpyHostToDevice));
    VPCellsSubtract<<<h->ncell < 65535 ? h->ncell : 65535, 256>>>(h->ncell, nr, dcellE, dtype, dG, nE, L);
    VP_CHECK(cudaGetLastError());
    VP_CHECK(cudaFree(dG));
    VP_CHECK(cudaFree(dcellE));
    VP_CHECK(cudaFree(dtype));
  }
  // Pi = Lambda - B^T B (eq. 14), lower triangle
  if (nC) {
    const double mone = -1.0, one = 1.0;
    VP_CUBLAS(cublasDsyrk(h->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, nE, nC, &mone, h->B, nC, &one, L, nE));
  }
  if (kappa) {
    int err = Condition(h, nE, L, kappa);
    if (err) return err;
  }
  {
    double *inv;
    int     err = Invert(h, nE, L, &inv);
    if (err) return err;
    return Store(h, nE, inv, &h->Piinv, &h->sPi);
  }
}

// Y (column map of the packing: rows x (per * groups) at X + g ldx + q rows) = M X, M (rows x rows) in the precision
static int ApplyInverse(VPCudaHFEM h, const void *M, double sM, int rows, int per, int groups, const double *X, size_t ldx, double *Y, size_t ldy)
{
  const int    ncols  = per * groups;
  const size_t nvals  = (size_t)rows * ncols;
  const int    pb     = ncols < 65535 ? ncols : 65535;
  int          err;
  if (!rows || !ncols) return 0;
  if ((err = Grow(&h->pack, &h->packcap, StorageSize(h->prec) * nvals))) return err;
  if ((err = Grow(&h->out, &h->outcap, (h->prec == VPC_HFEM_DOUBLE ? sizeof(double) : sizeof(float)) * nvals))) return err;
  if ((err = Grow((void **)&h->colscale, &h->colcap, sizeof(float) * ncols))) return err;
  switch (h->prec) {
  case VPC_HFEM_DOUBLE: {
    const double one = 1.0, zero = 0.0;
    VPPack<double, false><<<pb, 256>>>(rows, per, ncols, X, ldx, (double *)h->pack, h->colscale);
    VP_CHECK(cudaGetLastError());
    VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, rows, ncols, rows, &one, (const double *)M, rows, (const double *)h->pack, rows, &zero, (double *)h->out, rows));
    VPUnpack<double, false><<<Blocks(nvals), 256>>>(rows, per, ncols, (const double *)h->out, h->colscale, sM, Y, ldy);
    break;
  }
  case VPC_HFEM_SINGLE: {
    const float one = 1.0f, zero = 0.0f;
    VPPack<float, false><<<pb, 256>>>(rows, per, ncols, X, ldx, (float *)h->pack, h->colscale);
    VP_CHECK(cudaGetLastError());
    VP_CUBLAS(cublasGemmEx(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, rows, ncols, rows, &one, M, CUDA_R_32F, rows, h->pack, CUDA_R_32F, rows, &zero, h->out, CUDA_R_32F, rows, h->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    VPUnpack<float, false><<<Blocks(nvals), 256>>>(rows, per, ncols, (const float *)h->out, h->colscale, sM, Y, ldy);
    break;
  }
  default: {
    const float          one = 1.0f, zero = 0.0f;
    const cudaDataType_t t   = h->prec == VPC_HFEM_HALF ? CUDA_R_16F : CUDA_R_16BF;
    if (h->prec == VPC_HFEM_HALF) VPPack<__half, true><<<pb, 256>>>(rows, per, ncols, X, ldx, (__half *)h->pack, h->colscale);
    else VPPack<__nv_bfloat16, true><<<pb, 256>>>(rows, per, ncols, X, ldx, (__nv_bfloat16 *)h->pack, h->colscale);
    VP_CHECK(cudaGetLastError());
    VP_CUBLAS(cublasGemmEx(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, rows, ncols, rows, &one, M, t, rows, h->pack, t, rows, &zero, h->out, CUDA_R_32F, rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    VPUnpack<float, true><<<Blocks(nvals), 256>>>(rows, per, ncols, (const float *)h->out, h->colscale, sM, Y, ldy);
  }
  }
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaHFEMForward(VPCudaHFEM h, int n, double *Z, double *Y, int ld)
{
  const int    nC = h->nC, nE = h->nE;
  const double one = 1.0, mone = -1.0;
  int          err;
  if (nC) VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nC, n, &one, h->LC, nC, Z, ld));
  if ((err = ApplyInverse(h, h->Cinv, h->sC, h->nb, h->ncell, n, Z + nC + nE, ld, Y + nC + nE, ld))) return err;
  if (nC && nE) VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_T, CUBLAS_OP_N, nE, n, nC, &mone, h->B, nC, Z, ld, &one, Z + nC, ld));
  return 0;
}

extern "C" int VPCudaHFEMMiddle(VPCudaHFEM h, int n, double *Z, double *Y, const double *W, int ld)
{
  const int    nC = h->nC, nE = h->nE;
  const double one = 1.0, mone = -1.0;
  int          err;
  if (!nE) return 0;
  VP_CUBLAS(cublasDgeam(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, nE, n, &one, Z + nC, ld, &mone, W + nC, ld, Z + nC, ld));
  if ((err = ApplyInverse(h, h->Piinv, h->sPi, nE, 1, n, Z + nC, ld, Y + nC, ld))) return err;
  if (nC) VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, nC, n, nE, &mone, h->B, nC, Y + nC, ld, &one, Z, ld));
  return 0;
}

extern "C" int VPCudaHFEMBackward(VPCudaHFEM h, int n, double *Z, double *Y, const double *W, int ld)
{
  const int    nC = h->nC, nE = h->nE, nI = h->nb * h->ncell;
  const double one = 1.0, mone = -1.0;
  int          err;
  if (nE) {
    VP_CUBLAS(cublasDgeam(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, nI, n, &one, Z + nC + nE, ld, &mone, W + nC + nE, ld, Z + nC + nE, ld));
    if ((err = ApplyInverse(h, h->Cinv, h->sC, h->nb, h->ncell, n, Z + nC + nE, ld, Y + nC + nE, ld))) return err;
  }
  if (nC) {
    VP_CUBLAS(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, nC, n, &one, h->LC, nC, Z, ld));
    VP_CHECK(cudaMemcpy2D(Y, sizeof(double) * ld, Z, sizeof(double) * ld, sizeof(double) * nC, n, cudaMemcpyDeviceToDevice));
  }
  return 0;
}

extern "C" int VPCudaHFEMDestroy(VPCudaHFEM *hp)
{
  VPCudaHFEM h = *hp;
  if (!h) return 0;
  *hp = NULL;
  VP_CHECK(cudaFree(h->LC));
  VP_CHECK(cudaFree(h->B));
  VP_CHECK(cudaFree(h->Cinv));
  VP_CHECK(cudaFree(h->Piinv));
  VP_CHECK(cudaFree(h->pack));
  VP_CHECK(cudaFree(h->out));
  VP_CHECK(cudaFree(h->colscale));
  VP_CHECK(cudaFree(h->info));
  VP_CUBLAS(cublasDestroy(h->blas));
  VP_CUSOLVER(cusolverDnDestroy(h->solver));
  delete h;
  return 0;
}
