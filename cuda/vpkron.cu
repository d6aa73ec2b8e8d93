// The Kronecker-form operator on the GPU: one banded 1D contraction per direction and term, each a grid-stride
// kernel over all nodes (memory bound; the x contraction is shared by the terms with the same x kind). The first
// GPU version and the reference for the fused patch kernels; double and float from one template.
#include "vpatch_cuda.h"
#include <cublas_v2.h>
#include "vpcuda_check.h"
#include <cuda_runtime.h>

#define VP_KINDS 3

struct VPCudaKron_s {
  int     dim, n[3], bw, nterms, kind[6][3];
  double  coef[6];
  double *band_d[3][VP_KINDS]; // device copies, double
  float  *band_f[3][VP_KINDS]; // and rounded to float
  void   *work;                // VP_KINDS + 2 vectors of the largest precision
  size_t  npts;
};

// out = G (along dir) in; extents n[], stride of dir s, bandwidth bw, band rows of length 2bw+1. TI, TO: the
// precisions of in and out, T the arithmetic's (the mixed variant reads and writes double vectors, works in float)
template <typename T, typename TI, typename TO>
__global__ void VPContractBand(int dir, int n0, int n1, int n2, int bw, const T *__restrict__ band, const TI *__restrict__ in, TO *__restrict__ out)
{
  const size_t total = (size_t)n0 * n1 * n2;
  const int    nd    = dir == 0 ? n0 : (dir == 1 ? n1 : n2);
  const size_t s     = dir == 0 ? 1 : (dir == 1 ? (size_t)n0 : (size_t)n0 * n1);
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < total; p += (size_t)gridDim.x * blockDim.x) {
    const int i  = (int)((p / s) % nd);
    const int lo = i - bw < 0 ? -i : -bw, hi = i + bw >= nd ? nd - 1 - i : bw;
    const T  *row = band + (size_t)i * (2 * bw + 1) + bw;
    T         acc = 0;
    for (int o = lo; o <= hi; o++) acc += row[o] * (T)in[p + (long long)o * (long long)s];
    out[p] = (TO)acc;
  }
}

template <typename T, typename TY>
__global__ void VPAxpy(size_t n, T a, const T *__restrict__ x, TY *__restrict__ y, int first)
{
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < n; p += (size_t)gridDim.x * blockDim.x) y[p] = first ? (TY)(a * x[p]) : (TY)((T)y[p] + a * x[p]);
}

static int VPGrid(size_t n)
{
  size_t b = (n + 255) / 256;
  return (int)(b > 65536 ? 65536 : (b ? b : 1));
}

// vectors of precision TV, arithmetic and intermediates in T
template <typename T, typename TV>
static int VPKronApply(VPCudaKron op, T *const band[3][VP_KINDS], const TV *x, TV *y)
{
  T     *X[VP_KINDS], *XY, *Z;
  int    done[VP_KINDS] = {0, 0, 0};
  size_t N            = op->npts;
  int    n2           = op->dim == 3 ? op->n[2] : 1;

  for (int k = 0; k < VP_KINDS; k++) X[k] = (T *)op->work + k * N;
  XY = (T *)op->work + VP_KINDS * N;
  Z  = XY + N;
  for (int t = 0; t < op->nterms; t++) {
    const int a = op->kind[t][0];
    if (!done[a]) {
      VPContractBand<T, TV, T><<<VPGrid(N), 256>>>(0, op->n[0], op->n[1], n2, op->bw, band[0][a], x, X[a]);
      VP_CHECK(cudaGetLastError());
      done[a] = 1;
    }
    if (op->dim == 2) {
      VPContractBand<T, T, T><<<VPGrid(N), 256>>>(1, op->n[0], op->n[1], n2, op->bw, band[1][op->kind[t][1]], X[a], Z);
    } else {
      VPContractBand<T, T, T><<<VPGrid(N), 256>>>(1, op->n[0], op->n[1], n2, op->bw, band[1][op->kind[t][1]], X[a], XY);
      VP_CHECK(cudaGetLastError());
      VPContractBand<T, T, T><<<VPGrid(N), 256>>>(2, op->n[0], op->n[1], n2, op->bw, band[2][op->kind[t][2]], XY, Z);
    }
    VP_CHECK(cudaGetLastError());
    VPAxpy<T, TV><<<VPGrid(N), 256>>>(N, (T)op->coef[t], Z, y, t == 0);
    VP_CHECK(cudaGetLastError());
  }
  return 0;
}

extern "C" int VPCudaKronCreate(int dim, const int n[3], int bw, int nterms, const double coef[], const int kind[][3], const double *const band[3][3], VPCudaKron *out)
{
  VPCudaKron op = new VPCudaKron_s();
  op->dim       = dim;
  op->bw        = bw;
  op->nterms    = nterms;
  op->npts      = 1;
  for (int d = 0; d < 3; d++) {
    op->n[d] = d < dim ? n[d] : 1;
    op->npts *= op->n[d];
  }
  for (int t = 0; t < nterms; t++) {
    op->coef[t] = coef[t];
    for (int d = 0; d < 3; d++) op->kind[t][d] = kind[t][d];
  }
  for (int d = 0; d < dim; d++)
    for (int k = 0; k < VP_KINDS; k++) {
      const size_t len = (size_t)op->n[d] * (2 * bw + 1);
      if (!band[d][k]) continue;
      float *tmp = new float[len];
      for (size_t i = 0; i < len; i++) tmp[i] = (float)band[d][k][i];
      VP_CHECK(cudaMalloc(&op->band_d[d][k], len * sizeof(double)));
      VP_CHECK(cudaMalloc(&op->band_f[d][k], len * sizeof(float)));
      VP_CHECK(cudaMemcpy(op->band_d[d][k], band[d][k], len * sizeof(double), cudaMemcpyHostToDevice));
      VP_CHECK(cudaMemcpy(op->band_f[d][k], tmp, len * sizeof(float), cudaMemcpyHostToDevice));
      delete[] tmp;
    }
  VP_CHECK(cudaMalloc(&op->work, (VP_KINDS + 2) * op->npts * sizeof(double)));
  *out = op;
  return 0;
}

extern "C" int VPCudaKronApply_d(VPCudaKron op, const double *x, double *y)
{
  return VPKronApply<double, double>(op, op->band_d, x, y);
}

extern "C" int VPCudaKronApply_mixed(VPCudaKron op, const double *x, double *y)
{
  return VPKronApply<float, double>(op, op->band_f, x, y);
}

extern "C" int VPCudaKronDestroy(VPCudaKron *op)
{
  if (!*op) return 0;
  for (int d = 0; d < 3; d++)
    for (int k = 0; k < VP_KINDS; k++) {
      if ((*op)->band_d[d][k]) VP_CHECK(cudaFree((*op)->band_d[d][k]));
      if ((*op)->band_f[d][k]) VP_CHECK(cudaFree((*op)->band_f[d][k]));
    }
  VP_CHECK(cudaFree((*op)->work));
  delete *op;
  *op = nullptr;
  return 0;
}

extern "C" const char *VPCudaErrorString(int err)
{
  if (err >= VPC_ERR_LAYOUT) return "an E-I coupling of PCHFEM lies off its macro cell's boundary (set order and macro cells disagree)";
  if (err >= VPC_ERR_NOT_SPD) return "matrix not positive definite (Cholesky factorization or eigensolve failed)";
  if (err >= VPC_ERR_CUSOLVER) return "cuSOLVER call failed";
  if (err >= VPC_ERR_CUBLAS) return cublasGetStatusString((cublasStatus_t)(err - VPC_ERR_CUBLAS));
  return cudaGetErrorString((cudaError_t)err);
}

// The diagonal of a Kronecker form on a box of nodes: y[i0, i1, i2] = sum_t coef_t prod_d diag[d][kind_t,d][i_d].
struct VPKronDiagArgs {
  int           dim, m[3], nterms, kind[VPC_MAX_TERMS][3];
  double        coef[VPC_MAX_TERMS];
  const double *diag[3][VP_KINDS];
};

__global__ void VPKronDiagonalKernel(VPKronDiagArgs a, double *y)
{
  const size_t total = (size_t)a.m[0] * a.m[1] * a.m[2];
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < total; p += (size_t)gridDim.x * blockDim.x) {
    const int i[3] = {(int)(p % a.m[0]), (int)((p / a.m[0]) % a.m[1]), (int)(p / ((size_t)a.m[0] * a.m[1]))};
    double    s    = 0;
    for (int t = 0; t < a.nterms; t++) {
      double v = a.coef[t];
      for (int d = 0; d < a.dim; d++) v *= a.diag[d][a.kind[t][d]][i[d]];
      s += v;
    }
    y[p] = s;
  }
}

extern "C" int VPCudaKronDiagonal(int dim, const int m[3], int nterms, const double coef[], const int kind[][3], const double *const diag[3][3], double *y)
{
  VPKronDiagArgs a = {};
  double        *buf[3][VP_KINDS] = {{nullptr}};
  size_t         total = 1;
  int            err   = 0;

  if (nterms > VPC_MAX_TERMS || (dim != 2 && dim != 3)) return (int)cudaErrorInvalidValue;
  a.dim    = dim;
  a.nterms = nterms;
  for (int d = 0; d < 3; d++) {
    a.m[d] = d < dim ? m[d] : 1;
    total *= (size_t)a.m[d];
  }
  for (int t = 0; t < nterms; t++) {
    a.coef[t] = coef[t];
    for (int d = 0; d < 3; d++) a.kind[t][d] = kind[t][d];
  }
  if (!total) return 0;
  for (int d = 0; d < dim && !err; d++)
    for (int k = 0; k < VP_KINDS && !err; k++) {
      if (!diag[d][k]) continue;
      err = (int)cudaMalloc(&buf[d][k], (size_t)a.m[d] * sizeof(double));
      if (!err) err = (int)cudaMemcpy(buf[d][k], diag[d][k], (size_t)a.m[d] * sizeof(double), cudaMemcpyHostToDevice);
      a.diag[d][k] = buf[d][k];
    }
  if (!err) {
    VPKronDiagonalKernel<<<VPGrid(total), 256>>>(a, y);
    err = (int)cudaGetLastError();
  }
  for (int d = 0; d < 3; d++)
    for (int k = 0; k < VP_KINDS; k++)
      if (buf[d][k]) {
        const int e = (int)cudaFree(buf[d][k]);
        if (!err) err = e;
      }
  return err;
}
