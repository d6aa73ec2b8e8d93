// Grid transfer on the GPU: the prolongation of the brick (Kronecker product of 1D embeddings) and its
// transpose, one rectangular 1D contraction per direction (rows of fixed width, see vpatch_cuda.h).
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include <cuda_runtime.h>

struct VPCudaTransfer_s {
  int     dim, nc[3], nf[3], wp, wr;
  int    *pstart[3], *rstart[3];
  double *pval[3], *rval[3];
  float  *pval_f[3], *rval_f[3]; // the same rounded to float
  double *buf[2];                // intermediates (as float in the single variant)
};

// out (extents of in with nout along dir) = rows of width w (start[i] + j) applied along dir; arithmetic in T
template <typename T, typename TI, typename TO>
__global__ void VPContractRows(int dir, int e0, int e1, int e2, int nout, int w, const int *__restrict__ start, const T *__restrict__ val, const TI *__restrict__ in, TO *__restrict__ out)
{
  const int    ein[3] = {e0, e1, e2};
  int          eout[3] = {e0, e1, e2};
  eout[dir]            = nout;
  const size_t total   = (size_t)eout[0] * eout[1] * eout[2];
  const size_t sin     = dir == 0 ? 1 : (dir == 1 ? (size_t)e0 : (size_t)e0 * e1);
  const size_t sout    = dir == 0 ? 1 : (dir == 1 ? (size_t)eout[0] : (size_t)eout[0] * eout[1]);
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < total; p += (size_t)gridDim.x * blockDim.x) {
    const int    i    = (int)((p / sout) % nout);
    const size_t base = p - (size_t)i * sout; // the other indices, laid out as in "out"; map to "in"
    size_t       lo = base % sout, hi = base / (sout * nout);
    const size_t inbase = lo + hi * sin * ein[dir];
    T            acc    = 0;
    for (int j = 0; j < w; j++) {
      const int c = start[i] + j;
      if (c >= 0 && c < ein[dir]) acc += val[(size_t)i * w + j] * (T)in[inbase + (size_t)c * sin];
    }
    out[p] = (TO)acc;
  }
}

static int VPGrid(size_t n)
{
  size_t b = (n + 255) / 256;
  return (int)(b > 65536 ? 65536 : (b ? b : 1));
}

// a device copy of a host array rounded to float
static cudaError_t VPCopyRounded(const double *h, size_t n, float **d)
{
  float      *tmp = new float[n];
  cudaError_t err;
  for (size_t i = 0; i < n; i++) tmp[i] = (float)h[i];
  err = cudaMalloc(d, n * sizeof(float));
  if (err == cudaSuccess) err = cudaMemcpy(*d, tmp, n * sizeof(float), cudaMemcpyHostToDevice);
  delete[] tmp;
  return err;
}

extern "C" int VPCudaTransferCreate(int dim, const int nc[3], const int nf[3], int wp, const int *const pstart[3], const double *const pval[3], int wr, const int *const rstart[3], const double *const rval[3], VPCudaTransfer *out)
{
  VPCudaTransfer t = new VPCudaTransfer_s();
  size_t         big = 1;
  int            e[3];
  t->dim             = dim;
  t->wp              = wp;
  t->wr              = wr;
  for (int d = 0; d < 3; d++) {
    t->nc[d] = d < dim ? nc[d] : 1;
    t->nf[d] = d < dim ? nf[d] : 1;
    if (d >= dim) continue;
    VP_CHECK(cudaMalloc(&t->pstart[d], nf[d] * sizeof(int)));
    VP_CHECK(cudaMalloc(&t->pval[d], (size_t)nf[d] * wp * sizeof(double)));
    VP_CHECK(cudaMalloc(&t->rstart[d], nc[d] * sizeof(int)));
    VP_CHECK(cudaMalloc(&t->rval[d], (size_t)nc[d] * wr * sizeof(double)));
    VP_CHECK(cudaMemcpy(t->pstart[d], pstart[d], nf[d] * sizeof(int), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMemcpy(t->pval[d], pval[d], (size_t)nf[d] * wp * sizeof(double), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMemcpy(t->rstart[d], rstart[d], nc[d] * sizeof(int), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMemcpy(t->rval[d], rval[d], (size_t)nc[d] * wr * sizeof(double), cudaMemcpyHostToDevice));
    VP_CHECK(VPCopyRounded(pval[d], (size_t)nf[d] * wp, &t->pval_f[d]));
    VP_CHECK(VPCopyRounded(rval[d], (size_t)nc[d] * wr, &t->rval_f[d]));
  }
  // the intermediates of VPTransferApply, fine in the first s directions and coarse in the others (s = 1 .. dim-1; the
  // prolongation makes them in this order, the restriction in the reverse one): the largest, about half the fine grid,
  // not the fine grid itself
  for (int d = 0; d < 3; d++) e[d] = t->nc[d];
  for (int s = 0; s < dim - 1; s++) {
    size_t n;
    e[s] = t->nf[s];
    n    = (size_t)e[0] * e[1] * e[2];
    if (n > big) big = n;
  }
  VP_CHECK(cudaMalloc(&t->buf[0], big * sizeof(double)));
  VP_CHECK(cudaMalloc(&t->buf[1], big * sizeof(double)));
  *out = t;
  return 0;
}

// direction by direction; the intermediate extents mix fine (done) and coarse (to do) directions; T: the
// arithmetic and the intermediates, the vectors are double
template <typename T>
static int VPTransferApply(VPCudaTransfer t, bool prolong, T *const pval[3], T *const rval[3], const double *x, double *y)
{
  int e[3];
  for (int d = 0; d < 3; d++) e[d] = prolong ? t->nc[d] : t->nf[d];
  for (int s = 0; s < t->dim; s++) {
    const int    d = prolong ? s : t->dim - 1 - s, nout = prolong ? t->nf[d] : t->nc[d], w = prolong ? t->wp : t->wr;
    const bool   first = s == 0, last = s == t->dim - 1;
    const int   *start = prolong ? t->pstart[d] : t->rstart[d];
    const T     *val   = prolong ? pval[d] : rval[d];
    const T     *in    = (const T *)t->buf[(s + 1) % 2];
    T           *out   = (T *)t->buf[s % 2];
    const size_t total = (size_t)nout * (d == 0 ? 1 : e[0]) * (d == 1 ? 1 : e[1]) * (d == 2 ? 1 : e[2]);
    if (first && last) VPContractRows<T, double, double><<<VPGrid(total), 256>>>(d, e[0], e[1], e[2], nout, w, start, val, x, y);
    else if (first) VPContractRows<T, double, T><<<VPGrid(total), 256>>>(d, e[0], e[1], e[2], nout, w, start, val, x, out);
    else if (last) VPContractRows<T, T, double><<<VPGrid(total), 256>>>(d, e[0], e[1], e[2], nout, w, start, val, in, y);
    else VPContractRows<T, T, T><<<VPGrid(total), 256>>>(d, e[0], e[1], e[2], nout, w, start, val, in, out);
    VP_CHECK(cudaGetLastError());
    e[d] = nout;
  }
  return 0;
}

extern "C" int VPCudaTransferProlong(VPCudaTransfer t, int single, const double *xc, double *yf)
{
  return single ? VPTransferApply<float>(t, true, t->pval_f, t->rval_f, xc, yf) : VPTransferApply<double>(t, true, t->pval, t->rval, xc, yf);
}

extern "C" int VPCudaTransferRestrict(VPCudaTransfer t, int single, const double *xf, double *yc)
{
  return single ? VPTransferApply<float>(t, false, t->pval_f, t->rval_f, xf, yc) : VPTransferApply<double>(t, false, t->pval, t->rval, xf, yc);
}

extern "C" int VPCudaTransferDestroy(VPCudaTransfer *t)
{
  if (!*t) return 0;
  for (int d = 0; d < (*t)->dim; d++) {
    VP_CHECK(cudaFree((*t)->pstart[d]));
    VP_CHECK(cudaFree((*t)->pval[d]));
    VP_CHECK(cudaFree((*t)->rstart[d]));
    VP_CHECK(cudaFree((*t)->rval[d]));
    VP_CHECK(cudaFree((*t)->pval_f[d]));
    VP_CHECK(cudaFree((*t)->rval_f[d]));
  }
  VP_CHECK(cudaFree((*t)->buf[0]));
  VP_CHECK(cudaFree((*t)->buf[1]));
  delete *t;
  *t = nullptr;
  return 0;
}
