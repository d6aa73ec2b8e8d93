// DG (sipg) on the GPU [CK24]: the SIPG operator cell by cell, the vertex-patch smoothing steps patch by patch and
// the grid transfer cell by cell, one thread block per cell or patch. A block keeps its cell (and the face
// neighbours) or its patch in shared memory and applies the 1D matrices direction by direction, one thread per
// output value; arithmetic in T (double, or float on the double vectors: the mixed-precision levels). Arrays hold
// cells x fastest with (k+1)^d values each (x fastest), as the host code (src/mat/sipg.c, src/pc/vertexpatch/vpdg.c).
#include "vpatch_cuda.h"
#include "vppatchbox.h"
#include "vpcuda_check.h"
#include <cuda_runtime.h>

#define VPDG_NN  81 // (k+1)^2, k <= 8
#define VPDG_NP  18 // 2 (k+1)
#define VPDG_SLOT VPC_DG_SLOT

// out = B applied along dir of in (extents ext, x fastest; B is mout x ext[dir], row-major), or out += that; the
// whole block takes part, the caller synchronizes afterwards
// a square (N x N) matrix along dir of an N^dim tensor: the operator's and the transfer's contractions, unrolled
template <typename T, int N>
__device__ void VPDGApplyN(int dir, int dim, const T *B, const T *in, T *out, bool accumulate)
{
  const int total = dim == 3 ? N * N * N : N * N, sdir = dir == 0 ? 1 : (dir == 1 ? N : N * N);
  for (int idx = threadIdx.x; idx < total; idx += blockDim.x) {
    const int i    = (idx / sdir) % N;
    const int base = idx - i * sdir;
    T         s    = 0;
#pragma unroll
    for (int j = 0; j < N; j++) s += B[i * N + j] * in[base + j * sdir];
    out[idx] = accumulate ? out[idx] + s : s;
  }
}

template <typename T, int NMAX>
__device__ void VPDGApply1D(int dir, const int ext[3], int mout, const T *B, const T *in, T *out, bool accumulate)
{
  int       oe[3] = {ext[0], ext[1], ext[2]};
  oe[dir]         = mout;
  const int total = oe[0] * oe[1] * oe[2], nin = ext[dir];
  const int sin[3] = {1, ext[0], ext[0] * ext[1]};
  for (int idx = threadIdx.x; idx < total; idx += blockDim.x) {
    int       ii[3] = {idx % oe[0], (idx / oe[0]) % oe[1], idx / (oe[0] * oe[1])};
    const int i     = ii[dir];
    ii[dir]         = 0;
    const int base  = ii[0] * sin[0] + ii[1] * sin[1] + ii[2] * sin[2];
    T         s     = 0;
#pragma unroll
    for (int j = 0; j < NMAX; j++)
      if (j < nin) s += B[i * nin + j] * in[base + j * sin[dir]];
    out[idx] = accumulate ? out[idx] + s : s;
  }
}

// ---- the operator ----

struct VPCudaDG_s {
  int       dim, n, nd, ncells;
  int       c0[3], cells[3], grid[3];
  VPCudaBox xbox;
  double   *line_d; // [3][7][n n]: mass, diag[0..3], upper, lower = upper^T
  float    *line_f;
};

struct VPDGArgs {
  int dim, n, nd, c0[3], cells[3], grid[3], xlo[3], xm[3];
};

template <typename T, int N>
__global__ void VPDGApplyKernel(VPDGArgs a, const T *__restrict__ line, const double *__restrict__ x, double *__restrict__ y)
{
  extern __shared__ unsigned char vpdg_smem[];
  constexpr int nn = N * N;
  const int     nd = a.dim == 3 ? nn * N : nn;
  T            *L = (T *)vpdg_smem, *u = L + 3 * 7 * nn, *t = u + 7 * nd, *s = t + nd, *acc = s + nd;
  int           c[3], r = blockIdx.x;
  for (int d = 0; d < 3; d++) {
    c[d] = a.c0[d] + r % a.cells[d];
    r /= a.cells[d];
  }
  for (int i = threadIdx.x; i < a.dim * 7 * nn; i += blockDim.x) L[i] = line[i];
  // the cell and its face neighbours that exist
  for (int o = 0; o < 2 * a.dim + 1; o++) {
    int cn[3] = {c[0], c[1], c[2]};
    if (o) cn[(o - 1) / 2] += (o % 2) ? -1 : 1;
    if (cn[0] < 0 || cn[1] < 0 || cn[2] < 0 || cn[0] >= a.grid[0] || cn[1] >= a.grid[1] || cn[2] >= a.grid[2]) continue;
    const size_t off = ((size_t)(cn[0] - a.xlo[0]) + (size_t)a.xm[0] * ((cn[1] - a.xlo[1]) + (size_t)a.xm[1] * (cn[2] - a.xlo[2]))) * nd;
    for (int i = threadIdx.x; i < nd; i += blockDim.x) u[o * nd + i] = (T)x[off + i];
  }
  for (int i = threadIdx.x; i < nd; i += blockDim.x) acc[i] = 0;
  __syncthreads();
  for (int d = 0; d < a.dim; d++) {
    const int cls = (c[d] == 0) + 2 * (c[d] == a.grid[d] - 1);
    VPDGApplyN<T, N>(d, a.dim, L + (d * 7 + 1 + cls) * nn, u, t, false);
    __syncthreads();
    if (c[d] > 0) {
      VPDGApplyN<T, N>(d, a.dim, L + (d * 7 + 6) * nn, u + (1 + 2 * d) * nd, t, true);
      __syncthreads();
    }
    if (c[d] < a.grid[d] - 1) {
      VPDGApplyN<T, N>(d, a.dim, L + (d * 7 + 5) * nn, u + (2 + 2 * d) * nd, t, true);
      __syncthreads();
    }
    T *cur = t, *nxt = s;
    for (int e = 0; e < a.dim; e++) {
      if (e == d) continue;
      VPDGApplyN<T, N>(e, a.dim, L + (e * 7) * nn, cur, nxt, false);
      __syncthreads();
      T *tmp = cur;
      cur    = nxt;
      nxt    = tmp;
    }
    for (int i = threadIdx.x; i < nd; i += blockDim.x) acc[i] += cur[i];
    __syncthreads();
  }
  const size_t yoff = (size_t)blockIdx.x * nd; // owned cells in order, x fastest
  for (int i = threadIdx.x; i < nd; i += blockDim.x) y[yoff + i] = (double)acc[i];
}

// one thread per value of a cell, in whole warps, at most 256
static int VPDGThreads(int nd)
{
  return nd >= 256 ? 256 : 32 * ((nd + 31) / 32);
}

// the degree as a template argument: N = k + 1
#define VPDG_DISPATCH(k, CALL) \
  switch (k) { \
  case 1: CALL(2); break; \
  case 2: CALL(3); break; \
  case 3: CALL(4); break; \
  case 4: CALL(5); break; \
  case 5: CALL(6); break; \
  case 6: CALL(7); break; \
  case 7: CALL(8); break; \
  case 8: CALL(9); break; \
  default: return (int)cudaErrorInvalidValue; \
  }

extern "C" int VPCudaDGCreate(int dim, int k, const int grid[3], const int c0[3], const int cells[3], const VPCudaBox *xbox, const double *line, VPCudaDG *op)
{
  VPCudaDG  g  = new VPCudaDG_s();
  const int nn = (k + 1) * (k + 1), nl = 3 * 7 * nn;
  float     lf[3 * 7 * VPDG_NN];

  g->dim    = dim;
  g->n      = k + 1;
  g->nd     = dim == 3 ? nn * (k + 1) : nn;
  g->ncells = 1;
  for (int d = 0; d < 3; d++) {
    g->c0[d]    = c0[d];
    g->cells[d] = cells[d];
    g->grid[d]  = grid[d];
    g->ncells *= cells[d];
  }
  g->xbox = *xbox;
  for (int i = 0; i < nl; i++) lf[i] = (float)line[i];
  *op = g;
#define VPDG_ATTR(N) \
  do { \
    VP_CHECK(cudaFuncSetAttribute(VPDGApplyKernel<double, N>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)((10 * g->nd + 21 * nn) * sizeof(double)))); \
    VP_CHECK(cudaFuncSetAttribute(VPDGApplyKernel<float, N>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)((10 * g->nd + 21 * nn) * sizeof(float)))); \
  } while (0)
  VPDG_DISPATCH(k, VPDG_ATTR)
#undef VPDG_ATTR
  VP_CHECK(cudaMalloc(&g->line_d, nl * sizeof(double)));
  VP_CHECK(cudaMalloc(&g->line_f, nl * sizeof(float)));
  VP_CHECK(cudaMemcpy(g->line_d, line, nl * sizeof(double), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(g->line_f, lf, nl * sizeof(float), cudaMemcpyHostToDevice));
  return 0;
}

extern "C" int VPCudaDGApply(VPCudaDG g, int single, const double *x, double *y)
{
  VPDGArgs a;

  if (!g->ncells) return 0;
  a.dim = g->dim;
  a.n   = g->n;
  a.nd  = g->nd;
  for (int d = 0; d < 3; d++) {
    a.c0[d]    = g->c0[d];
    a.cells[d] = g->cells[d];
    a.grid[d]  = g->grid[d];
    a.xlo[d]   = g->xbox.lo[d];
    a.xm[d]    = g->xbox.m[d];
  }
  const size_t words = 10 * (size_t)g->nd + 21 * (size_t)g->n * g->n;
#define VPDG_LAUNCH(N) \
  do { \
    if (single) VPDGApplyKernel<float, N><<<g->ncells, VPDGThreads(g->nd), words * sizeof(float)>>>(a, g->line_f, x, y); \
    else VPDGApplyKernel<double, N><<<g->ncells, VPDGThreads(g->nd), words * sizeof(double)>>>(a, g->line_d, x, y); \
  } while (0)
  VPDG_DISPATCH(g->n - 1, VPDG_LAUNCH)
#undef VPDG_LAUNCH
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaDGDestroy(VPCudaDG *op)
{
  VPCudaDG g = *op;

  if (!g) return 0;
  *op = NULL;
  VP_CHECK(cudaFree(g->line_d));
  VP_CHECK(cudaFree(g->line_f));
  delete g;
  return 0;
}

// ---- the vertex-patch steps ----

struct VPCudaDGSmoother_s {
  int     dim, n, np, npd, npatches, grid[3], m[3][4];
  int    *vertex, *base, *rel; // device: 3 per patch, 1 per patch, np^d
  double *data_d;              // [3][4] slots: Q (np x m), QT (m x np), lambda (m), Ares (np x np), M (np x np)
  float  *data_f;
  size_t  shm_d, shm_f;
};

struct VPDGSmoothArgs {
  int    dim, n, np, npd, start, grid[3], m[3][4], localres, atomic;
  double omega;
};

template <typename T, int N>
__global__ void VPDGPatchKernel(VPDGSmoothArgs a, const int *__restrict__ vertex, const int *__restrict__ base, const int *__restrict__ rel, const T *__restrict__ data, const double *ul, const double *__restrict__ bl,
                                const double *__restrict__ rl, double *target)
{
  extern __shared__ unsigned char vpdg_smem[];
  constexpr int NP = 2 * N, np2 = NP * NP, slot = 4 * np2 + NP;
  T            *r = (T *)vpdg_smem, *t = r + a.npd, *s = t + a.npd, *u = s + a.npd, *mats = u + a.npd;
  const int     p = a.start + blockIdx.x, b0 = base[p];
  int           cls[3] = {0, 0, 0}, ext[3] = {NP, NP, a.dim == 3 ? NP : 1};
  for (int d = 0; d < a.dim; d++) cls[d] = (vertex[3 * p + d] == 1) + 2 * (vertex[3 * p + d] == a.grid[d] - 1);
  // this patch's 1D data (its class in each direction) in shared memory
  for (int d = 0; d < a.dim; d++)
    for (int i = threadIdx.x; i < slot; i += blockDim.x) mats[d * slot + i] = data[(size_t)(d * 4 + cls[d]) * VPDG_SLOT + i];
#define VPDG_MAT(d, what) (mats + (d) * slot + (what))
  // the residual on the patch values
  if (a.localres) {
    for (int i = threadIdx.x; i < a.npd; i += blockDim.x) {
      r[i] = (T)bl[b0 + rel[i]];
      if (ul) u[i] = (T)ul[b0 + rel[i]];
    }
    __syncthreads();
    if (ul) {
      for (int d = 0; d < a.dim; d++) {
        const T *src = u;
        for (int e = 0; e < a.dim; e++) {
          T *dst = (e % 2) ? s : t;
          VPDGApply1D<T, NP>(e, ext, NP, e == d ? VPDG_MAT(e, 2 * np2 + NP) : VPDG_MAT(e, 3 * np2 + NP), src, dst, false);
          __syncthreads();
          src = dst;
        }
        for (int i = threadIdx.x; i < a.npd; i += blockDim.x) r[i] -= src[i];
        __syncthreads();
      }
    }
  } else {
    for (int i = threadIdx.x; i < a.npd; i += blockDim.x) r[i] = (T)rl[b0 + rel[i]];
    __syncthreads();
  }
  // g = (Q^T)^(x)d r, divided by the sums of eigenvalues, then delta = Q^(x)d g
  T *cur = r, *nxt = t;
  for (int d = 0; d < a.dim; d++) {
    VPDGApply1D<T, NP>(d, ext, a.m[d][cls[d]], VPDG_MAT(d, np2), cur, nxt, false);
    __syncthreads();
    ext[d] = a.m[d][cls[d]];
    T *tmp = cur;
    cur    = nxt;
    nxt    = tmp;
  }
  {
    const int nm = ext[0] * ext[1] * ext[2];
    for (int i = threadIdx.x; i < nm; i += blockDim.x) {
      const int ii[3] = {i % ext[0], (i / ext[0]) % ext[1], i / (ext[0] * ext[1])};
      T         lam   = 0;
      for (int d = 0; d < a.dim; d++) lam += VPDG_MAT(d, 2 * np2)[ii[d]];
      cur[i] /= lam;
    }
  }
  __syncthreads();
  for (int d = 0; d < a.dim; d++) {
    VPDGApply1D<T, NP>(d, ext, NP, VPDG_MAT(d, 0), cur, nxt, false);
    __syncthreads();
    ext[d] = NP;
    T *tmp = cur;
    cur    = nxt;
    nxt    = tmp;
  }
#undef VPDG_MAT
  for (int i = threadIdx.x; i < a.npd; i += blockDim.x) {
    const double v = a.omega * (double)cur[i];
    if (a.atomic) atomicAdd(&target[b0 + rel[i]], v);
    else target[b0 + rel[i]] += v;
  }
}

extern "C" int VPCudaDGSmootherCreate(int dim, int k, const int grid[3], const int m[3][4], const double *data, int nbox, const VPCudaPatchBox *patches, const int gstart[3], const int gstride[3], int dof, const int *rel, VPCudaDGSmoother *sm)
{
  VPCudaDGSmoother g  = new VPCudaDGSmoother_s();
  const size_t     nd = 3 * 4 * (size_t)VPDG_SLOT;
  float           *df = new float[nd];

  g->dim      = dim;
  g->n        = k + 1;
  g->np       = 2 * (k + 1);
  g->npd      = dim == 3 ? g->np * g->np * g->np : g->np * g->np;
  const int npatches = patches[nbox].first;
  g->npatches = npatches;
  for (int d = 0; d < 3; d++) {
    g->grid[d] = grid[d];
    for (int c = 0; c < 4; c++) g->m[d][c] = m[d][c];
  }
  for (size_t i = 0; i < nd; i++) df[i] = (float)data[i];
  *sm = g;
  g->shm_d = (4 * (size_t)g->npd + 3 * (4 * (size_t)g->np * g->np + g->np)) * sizeof(double);
  g->shm_f = (4 * (size_t)g->npd + 3 * (4 * (size_t)g->np * g->np + g->np)) * sizeof(float);
#define VPDG_ATTR(N) \
  do { \
    VP_CHECK(cudaFuncSetAttribute(VPDGPatchKernel<double, N>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->shm_d)); \
    VP_CHECK(cudaFuncSetAttribute(VPDGPatchKernel<float, N>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->shm_f)); \
  } while (0)
  VPDG_DISPATCH(k, VPDG_ATTR)
#undef VPDG_ATTR
  VP_CHECK(cudaMalloc(&g->data_d, nd * sizeof(double)));
  VP_CHECK(cudaMalloc(&g->data_f, nd * sizeof(float)));
  VP_CHECK(cudaMemcpy(g->data_d, data, nd * sizeof(double), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(g->data_f, df, nd * sizeof(float), cudaMemcpyHostToDevice));
  delete[] df;
  VP_CHECK(cudaMalloc(&g->vertex, (3 * (size_t)npatches + 1) * sizeof(int)));
  VP_CHECK(cudaMalloc(&g->base, ((size_t)npatches + 1) * sizeof(int)));
  VP_CHECK(cudaMalloc(&g->rel, (size_t)g->npd * sizeof(int)));
  VP_CHECK((cudaError_t)VPPatchBoxesFill(patches, nbox, g->vertex, dim, gstart, gstride, dof, g->base));
  VP_CHECK(cudaMemcpy(g->rel, rel, (size_t)g->npd * sizeof(int), cudaMemcpyHostToDevice));
  return 0;
}

extern "C" int VPCudaDGSmootherPatches(VPCudaDGSmoother g, int start, int end, int localres, int atomic, int single, double omega, const double *ul, const double *bl, const double *rl, double *target)
{
  VPDGSmoothArgs a;

  if (end <= start) return 0;
  a.dim      = g->dim;
  a.n        = g->n;
  a.np       = g->np;
  a.npd      = g->npd;
  a.start    = start;
  a.localres = localres;
  a.atomic   = atomic;
  a.omega    = omega;
  for (int d = 0; d < 3; d++) {
    a.grid[d] = g->grid[d];
    for (int c = 0; c < 4; c++) a.m[d][c] = g->m[d][c];
  }
#define VPDG_LAUNCH(N) \
  do { \
    if (single) VPDGPatchKernel<float, N><<<end - start, 256, g->shm_f>>>(a, g->vertex, g->base, g->rel, g->data_f, ul, bl, rl, target); \
    else VPDGPatchKernel<double, N><<<end - start, 256, g->shm_d>>>(a, g->vertex, g->base, g->rel, g->data_d, ul, bl, rl, target); \
  } while (0)
  VPDG_DISPATCH(g->n - 1, VPDG_LAUNCH)
#undef VPDG_LAUNCH
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaDGSmootherDestroy(VPCudaDGSmoother *sm)
{
  VPCudaDGSmoother g = *sm;

  if (!g) return 0;
  *sm = NULL;
  VP_CHECK(cudaFree(g->data_d));
  VP_CHECK(cudaFree(g->data_f));
  VP_CHECK(cudaFree(g->vertex));
  VP_CHECK(cudaFree(g->base));
  VP_CHECK(cudaFree(g->rel));
  delete g;
  return 0;
}

// ---- the grid transfer ----

struct VPCudaDGTransfer_s {
  int     dim, n, nd, ncells;
  int    *parent, *child; // per owned fine cell: its parent's position in the gathered coarse cells, child bits x, y, z
  double *mat_d;          // child[2], childT[2] (n x n each)
  float  *mat_f;
};

template <typename T, int N>
__global__ void VPDGTransferKernel(int dim, int nd, int restrict_, const int *__restrict__ parent, const int *__restrict__ child, const T *__restrict__ mat, const double *__restrict__ in, double *out)
{
  extern __shared__ unsigned char vpdg_smem[];
  constexpr int nn = N * N;
  T            *a = (T *)vpdg_smem, *b = a + nd;
  const int     f = blockIdx.x;
  const size_t src = restrict_ ? (size_t)f * nd : (size_t)parent[f] * nd, dst = restrict_ ? (size_t)parent[f] * nd : (size_t)f * nd;
  for (int i = threadIdx.x; i < nd; i += blockDim.x) a[i] = (T)in[src + i];
  __syncthreads();
  T *cur = a, *nxt = b;
  for (int d = 0; d < dim; d++) {
    const int ch = (child[f] >> d) & 1;
    VPDGApplyN<T, N>(d, dim, mat + (restrict_ ? 2 + ch : ch) * nn, cur, nxt, false);
    __syncthreads();
    T *tmp = cur;
    cur    = nxt;
    nxt    = tmp;
  }
  for (int i = threadIdx.x; i < nd; i += blockDim.x) {
    if (restrict_) atomicAdd(&out[dst + i], (double)cur[i]);
    else out[dst + i] = (double)cur[i];
  }
}

extern "C" int VPCudaDGTransferCreate(int dim, int k, int ncells, const int *parent, const int *child, const double *mat, VPCudaDGTransfer *t)
{
  VPCudaDGTransfer g  = new VPCudaDGTransfer_s();
  const int        nn = (k + 1) * (k + 1);
  float            mf[4 * VPDG_NN];

  g->dim    = dim;
  g->n      = k + 1;
  g->nd     = dim == 3 ? nn * (k + 1) : nn;
  g->ncells = ncells;
  for (int i = 0; i < 4 * nn; i++) mf[i] = (float)mat[i];
  *t = g;
  VP_CHECK(cudaMalloc(&g->mat_d, 4 * nn * sizeof(double)));
  VP_CHECK(cudaMalloc(&g->mat_f, 4 * nn * sizeof(float)));
  VP_CHECK(cudaMemcpy(g->mat_d, mat, 4 * nn * sizeof(double), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(g->mat_f, mf, 4 * nn * sizeof(float), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&g->parent, ((size_t)ncells + 1) * sizeof(int)));
  VP_CHECK(cudaMalloc(&g->child, ((size_t)ncells + 1) * sizeof(int)));
  if (ncells) {
    VP_CHECK(cudaMemcpy(g->parent, parent, (size_t)ncells * sizeof(int), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMemcpy(g->child, child, (size_t)ncells * sizeof(int), cudaMemcpyHostToDevice));
  }
  return 0;
}

// prolongation: yf (owned fine cells) from the gathered coarse cells cbox; restriction: cbox += the transpose of xf
// (cbox zeroed by the caller)
extern "C" int VPCudaDGTransferApply(VPCudaDGTransfer g, int restrict_, int single, const double *in, double *out)
{
  if (!g->ncells) return 0;
#define VPDG_LAUNCH(N) \
  do { \
    if (single) VPDGTransferKernel<float, N><<<g->ncells, VPDGThreads(g->nd), 2 * (size_t)g->nd * sizeof(float)>>>(g->dim, g->nd, restrict_, g->parent, g->child, g->mat_f, in, out); \
    else VPDGTransferKernel<double, N><<<g->ncells, VPDGThreads(g->nd), 2 * (size_t)g->nd * sizeof(double)>>>(g->dim, g->nd, restrict_, g->parent, g->child, g->mat_d, in, out); \
  } while (0)
  VPDG_DISPATCH(g->n - 1, VPDG_LAUNCH)
#undef VPDG_LAUNCH
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaDGTransferDestroy(VPCudaDGTransfer *t)
{
  VPCudaDGTransfer g = *t;

  if (!g) return 0;
  *t = NULL;
  VP_CHECK(cudaFree(g->mat_d));
  VP_CHECK(cudaFree(g->mat_f));
  VP_CHECK(cudaFree(g->parent));
  VP_CHECK(cudaFree(g->child));
  delete g;
  return 0;
}

// a host array into device memory (setup: the diagonal of the DG operator)
extern "C" int VPCudaCopyToDevice(double *dst, const double *src, size_t n)
{
  VP_CHECK(cudaMemcpy(dst, src, n * sizeof(double), cudaMemcpyHostToDevice));
  return 0;
}
