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

static int VPGrid(size_t n)
{
  size_t b = (n + 255) / 256;
  return (int)(b > 65536 ? 65536 : (b ? b : 1));
}

// out (extents of in with nout along dir) = rows of width w (start[i] + j) applied along dir; arithmetic in T. I: the type
// of the flat indices, 32-bit where both arrays allow (64-bit divisions per output cost more than its memory traffic).
// An output p = lo + s (i + nout hi), s the stride of dir (the same in "in", whose extents differ only along dir).
template <typename T, typename TI, typename TO, typename I>
__global__ void VPContractRows(int dir, int e0, int e1, int e2, int nout, int w, const int *__restrict__ start, const T *__restrict__ val, const TI *__restrict__ in, TO *__restrict__ out)
{
  const int ein[3] = {e0, e1, e2}, nin = ein[dir];
  const I   s      = dir == 0 ? 1 : (dir == 1 ? (I)e0 : (I)e0 * (I)e1);
  const I   total  = (I)nout * (dir == 0 ? 1 : (I)e0) * (dir == 1 ? 1 : (I)e1) * (dir == 2 ? 1 : (I)e2);
  for (I p = blockIdx.x * (I)blockDim.x + threadIdx.x; p < total; p += (I)gridDim.x * blockDim.x) {
    const I   q = s == 1 ? p : p / s, lo = p - q * s, hi = q / (I)nout;
    const int i      = (int)(q - hi * (I)nout);
    const I   inbase = lo + hi * s * (I)nin;
    const int c0 = start[i], j0 = c0 < 0 ? -c0 : 0, j1 = c0 + w > nin ? nin - c0 : w;
    T         acc = 0;
    for (int j = j0; j < j1; j++) acc += val[i * w + j] * (T)in[inbase + (I)(c0 + j) * s];
    out[p] = (TO)acc;
  }
}

// the launch: 32-bit indices where the output and the input have fewer than 2^31 entries
template <typename T, typename TI, typename TO>
static void VPContractRowsLaunch(int dir, const int e[3], int nout, int w, const int *start, const T *val, const TI *in, TO *out, size_t total)
{
  const size_t ntotal = total / (size_t)nout * (size_t)e[dir];
  if (total < ((size_t)1 << 31) && ntotal < ((size_t)1 << 31)) VPContractRows<T, TI, TO, unsigned><<<VPGrid(total), 256>>>(dir, e[0], e[1], e[2], nout, w, start, val, in, out);
  else VPContractRows<T, TI, TO, size_t><<<VPGrid(total), 256>>>(dir, e[0], e[1], e[2], nout, w, start, val, in, out);
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
    if (first && last) VPContractRowsLaunch<T, double, double>(d, e, nout, w, start, val, x, y, total);
    else if (first) VPContractRowsLaunch<T, double, T>(d, e, nout, w, start, val, x, out, total);
    else if (last) VPContractRowsLaunch<T, T, double>(d, e, nout, w, start, val, in, y, total);
    else VPContractRowsLaunch<T, T, T>(d, e, nout, w, start, val, in, out, total);
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
