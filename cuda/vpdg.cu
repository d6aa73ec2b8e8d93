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

// out = B applied along dir of in, or out += that, for a square (N x N, row-major) matrix along dir of an N^dim tensor:
// the operator's and the transfer's contractions, unrolled; the whole block takes part, the caller synchronizes afterwards
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

// out = B applied along dir of in (extents ext, x fastest; B is mout x ext[dir]), or out += that, with B stored
// transposed (column-major: entry (i, j) at BT[j mout + i]): along x the threads of a warp take consecutive rows i, which
// then read consecutive words of BT (row-major, they read words nin apart: shared-memory bank conflicts); the whole
// block takes part, the caller synchronizes afterwards
template <typename T, int NMAX>
__device__ void VPDGApply1DT(int dir, const int ext[3], int mout, const T *BT, const T *in, T *out, bool accumulate)
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
      if (j < nin) s += BT[j * mout + i] * in[base + j * sin[dir]];
    out[idx] = accumulate ? out[idx] + s : s;
  }
}

// ---- the operator ----

struct VPCudaDG_s {
  int       dim, n, nd, ncells;
  int       c0[3], cells[3], grid[3];
  VPCudaBox xbox;
  int      *face;   // a forest level's face table (device), NULL on a box
  double   *line_d; // [3][7][n n]: mass, diag[0..3], upper, lower = upper^T
  float    *line_f;
};

// Where a thread block reads its cell and the cell's face neighbours: offset(blk, o) is the position in x of neighbour o
// of block blk's cell (o = 0: the cell, 1 + 2d: its lower neighbour along d, 2 + 2d: its upper one), -1 where there is
// none (the boundary). The box: the owned cells [c0, c0 + cells) of a grid, x holding the cells of a box (xlo, xm).
struct VPDGBoxCells {
  int c0[3], cells[3], grid[3], xlo[3], xm[3], nd;
  __device__ long long offset(int blk, int o) const
  {
    int c[3], r = blk;
    for (int d = 0; d < 3; d++) {
      c[d] = c0[d] + r % cells[d];
      r /= cells[d];
    }
    if (o) c[(o - 1) / 2] += (o % 2) ? -1 : 1;
    if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= grid[0] || c[1] >= grid[1] || c[2] >= grid[2]) return -1;
    return ((long long)(c[0] - xlo[0]) + (long long)xm[0] * ((c[1] - xlo[1]) + (long long)xm[1] * (c[2] - xlo[2]))) * nd;
  }
};

// a forest level: block blk is the rank's cell blk, its neighbours from the face table (cells, then ghost cells, in x)
struct VPDGTableCells {
  const int *face;
  int        dim, nd;
  __device__ long long offset(int blk, int o) const
  {
    const int c = o ? face[2 * dim * blk + o - 1] : blk;
    return c < 0 ? -1 : (long long)c * nd;
  }
};

template <typename T, int N, typename Cells>
__global__ void VPDGApplyKernel(Cells cells, int dim, const T *__restrict__ line, const double *__restrict__ x, double *__restrict__ y)
{
  extern __shared__ unsigned char vpdg_smem[];
  __shared__ long long off[7];
  constexpr int        nn = N * N;
  const int            nd = dim == 3 ? nn * N : nn;
  T                   *L = (T *)vpdg_smem, *u = L + 3 * 7 * nn, *t = u + 7 * nd, *s = t + nd, *acc = s + nd;
  if (threadIdx.x < 2 * dim + 1) off[threadIdx.x] = cells.offset(blockIdx.x, threadIdx.x);
  for (int i = threadIdx.x; i < dim * 7 * nn; i += blockDim.x) L[i] = line[i];
  __syncthreads();
  // the cell and its face neighbours that exist
  for (int o = 0; o < 2 * dim + 1; o++) {
    if (off[o] < 0) continue;
    for (int i = threadIdx.x; i < nd; i += blockDim.x) u[o * nd + i] = (T)x[off[o] + i];
  }
  for (int i = threadIdx.x; i < nd; i += blockDim.x) acc[i] = 0;
  __syncthreads();
  for (int d = 0; d < dim; d++) {
    const int cls = (off[1 + 2 * d] < 0) + 2 * (off[2 + 2 * d] < 0); // the diagonal block's variant: its boundary faces
    VPDGApplyN<T, N>(d, dim, L + (d * 7 + 1 + cls) * nn, u, t, false);
    __syncthreads();
    if (off[1 + 2 * d] >= 0) {
      VPDGApplyN<T, N>(d, dim, L + (d * 7 + 6) * nn, u + (1 + 2 * d) * nd, t, true);
      __syncthreads();
    }
    if (off[2 + 2 * d] >= 0) {
      VPDGApplyN<T, N>(d, dim, L + (d * 7 + 5) * nn, u + (2 + 2 * d) * nd, t, true);
      __syncthreads();
    }
    T *cur = t, *nxt = s;
    for (int e = 0; e < dim; e++) {
      if (e == d) continue;
      VPDGApplyN<T, N>(e, dim, L + (e * 7) * nn, cur, nxt, false);
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

static int VPDGSetUpLines(VPCudaDG, int, const double *);

extern "C" int VPCudaDGCreate(int dim, int k, const int grid[3], const int c0[3], const int cells[3], const VPCudaBox *xbox, const double *line, VPCudaDG *op)
{
  VPCudaDG  g  = new VPCudaDG_s();
  const int nn = (k + 1) * (k + 1);

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
  *op     = g;
  return VPDGSetUpLines(g, k, line);
}

// the kernels' shared memory and the 1D matrices on the device (both creations)
static int VPDGSetUpLines(VPCudaDG g, int k, const double *line)
{
  const int nn = (k + 1) * (k + 1), nl = 3 * 7 * nn;
  float     lf[3 * 7 * VPDG_NN];

  for (int i = 0; i < nl; i++) lf[i] = (float)line[i];
#define VPDG_ATTR(N) \
  do { \
    VP_CHECK(cudaFuncSetAttribute(VPDGApplyKernel<double, N, VPDGBoxCells>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)((10 * g->nd + 21 * nn) * sizeof(double)))); \
    VP_CHECK(cudaFuncSetAttribute(VPDGApplyKernel<float, N, VPDGBoxCells>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)((10 * g->nd + 21 * nn) * sizeof(float)))); \
    VP_CHECK(cudaFuncSetAttribute(VPDGApplyKernel<double, N, VPDGTableCells>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)((10 * g->nd + 21 * nn) * sizeof(double)))); \
    VP_CHECK(cudaFuncSetAttribute(VPDGApplyKernel<float, N, VPDGTableCells>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)((10 * g->nd + 21 * nn) * sizeof(float)))); \
  } while (0)
  VPDG_DISPATCH(k, VPDG_ATTR)
#undef VPDG_ATTR
  VP_CHECK(cudaMalloc(&g->line_d, nl * sizeof(double)));
  VP_CHECK(cudaMalloc(&g->line_f, nl * sizeof(float)));
  VP_CHECK(cudaMemcpy(g->line_d, line, nl * sizeof(double), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(g->line_f, lf, nl * sizeof(float), cudaMemcpyHostToDevice));
  return 0;
}

extern "C" int VPCudaDGCreateForest(int dim, int k, int ncells, const int *face, const double *line, VPCudaDG *op)
{
  VPCudaDG  g  = new VPCudaDG_s();
  const int nn = (k + 1) * (k + 1);

  g->dim    = dim;
  g->n      = k + 1;
  g->nd     = dim == 3 ? nn * (k + 1) : nn;
  g->ncells = ncells;
  *op       = g;
  VP_CHECK(cudaMalloc(&g->face, (2 * (size_t)dim * ncells + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(g->face, face, 2 * (size_t)dim * ncells * sizeof(int), cudaMemcpyHostToDevice));
  return VPDGSetUpLines(g, k, line);
}

template <typename Cells>
static int VPDGLaunch(VPCudaDG g, Cells cells, int single, const double *x, double *y)
{
  const size_t words = 10 * (size_t)g->nd + 21 * (size_t)g->n * g->n;
#define VPDG_LAUNCH(N) \
  do { \
    if (single) VPDGApplyKernel<float, N, Cells><<<g->ncells, VPDGThreads(g->nd), words * sizeof(float)>>>(cells, g->dim, g->line_f, x, y); \
    else VPDGApplyKernel<double, N, Cells><<<g->ncells, VPDGThreads(g->nd), words * sizeof(double)>>>(cells, g->dim, g->line_d, x, y); \
  } while (0)
  VPDG_DISPATCH(g->n - 1, VPDG_LAUNCH)
#undef VPDG_LAUNCH
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaDGApply(VPCudaDG g, int single, const double *x, double *y)
{
  if (!g->ncells) return 0;
  if (g->face) {
    VPDGTableCells cells = {g->face, g->dim, g->nd};
    return VPDGLaunch(g, cells, single, x, y);
  }
  VPDGBoxCells cells;
  cells.nd = g->nd;
  for (int d = 0; d < 3; d++) {
    cells.c0[d]    = g->c0[d];
    cells.cells[d] = g->cells[d];
    cells.grid[d]  = g->grid[d];
    cells.xlo[d]   = g->xbox.lo[d];
    cells.xm[d]    = g->xbox.m[d];
  }
  return VPDGLaunch(g, cells, single, x, y);
}

extern "C" int VPCudaDGDestroy(VPCudaDG *op)
{
  VPCudaDG g = *op;

  if (!g) return 0;
  *op = NULL;
  VP_CHECK(cudaFree(g->face));
  VP_CHECK(cudaFree(g->line_d));
  VP_CHECK(cudaFree(g->line_f));
  delete g;
  return 0;
}

// ---- the vertex-patch steps ----

// a forest's mixed patches on the device (VPDGMixedKernel): per mixed patch its patch number, the Cholesky factor U of
// its matrix (npd x npd, column-major, A = U^T U) and the inverses of U's diagonal tiles of 32 (ceil(npd/32) blocks of
// 32 x 32, row-major)
struct VPDGMixedData {
  const int    *patch;
  const double *U, *Tinv;
};

struct VPCudaDGSmoother_s {
  int     dim, n, np, npd, npatches, grid[3], m[3][4];
  int    *vertex, *base, *rel; // device (box): 3 per patch, 1 per patch, np^d
  int    *key, *cellofs, *qcell, *qlocal; // device (forest): per patch, 2^dim per patch, np^d, np^d
  int     nmixed, *mixedpatch_h;     // forest: the mixed patches' numbers (host copy of md.patch)
  VPDGMixedData md;                  // forest: the mixed patches' data (device)
  double *data_d;              // [3][4] slots: Q (np x m), QT (m x np), lambda (m), Ares (np x np), M (np x np)
  float  *data_f;
  size_t  shm_d, shm_f;
};

struct VPDGSmoothArgs {
  int    dim, n, np, npd, start, grid[3], m[3][4], localres, atomic;
  double omega;
};

// Where a patch's values are and which classes it has. where(p, cls, h) gives the classes and a handle for index(h, q),
// the local-array position of patch value q; false: the patch is not one of this kernel's (a forest's mixed patch).
// The box: the vertex's classes from its position, the values at base + rel.
struct VPDGBoxPatches {
  const int *vertex, *base, *rel;
  int        dim, grid[3];
  __device__ bool where(int p, int cls[3], int &h) const
  {
    for (int d = 0; d < dim; d++) cls[d] = (vertex[3 * p + d] == 1) + 2 * (vertex[3 * p + d] == grid[d] - 1);
    h = base[p];
    return true;
  }
  __device__ int index(int h, int q) const { return h + rel[q]; }
};

// a forest's patches: the class triple from the key, each of its cells at its own offset
struct VPDGForestPatches {
  const int *key, *cellofs, *qcell, *qlocal;
  int        dim;
  __device__ bool where(int p, int cls[3], int &h) const
  {
    const int k = key[p];
    for (int d = 0; d < dim; d++) cls[d] = (k >> (2 * d)) & 3;
    h = p;
    return k < 64;
  }
  __device__ int index(int h, int q) const { return cellofs[(h << dim) + qcell[q]] + qlocal[q]; }
};

template <typename T, int N, typename Patches>
__global__ void VPDGPatchKernel(VPDGSmoothArgs a, Patches pat, const T *__restrict__ data, const double *ul, const double *__restrict__ bl, const double *__restrict__ rl, double *target)
{
  extern __shared__ unsigned char vpdg_smem[];
  constexpr int NP = 2 * N, np2 = NP * NP, slot = 4 * np2 + NP;
  T            *r = (T *)vpdg_smem, *t = r + a.npd, *s = t + a.npd, *u = s + a.npd, *mats = u + a.npd;
  const int     p = a.start + blockIdx.x;
  int           cls[3] = {0, 0, 0}, ext[3] = {NP, NP, a.dim == 3 ? NP : 1}, h;
  if (!pat.where(p, cls, h)) return; // the whole block: before any barrier
  // this patch's 1D data (its class in each direction) in shared memory
  // transposed (VPDGApply1DT): Q (NP x m), Q^T (m x NP), the residual's 1D matrices Ares and M (NP x NP); the
  // eigenvalues as they are
  for (int d = 0; d < a.dim; d++) {
    const int m = a.m[d][cls[d]];
    const T  *src = data + (size_t)(d * 4 + cls[d]) * VPDG_SLOT;
    for (int i = threadIdx.x; i < slot; i += blockDim.x) {
      int o = i, j = i, r, c, rows = 0, cols = 0, first = 0;
      if (i < np2) rows = NP, cols = m, first = 0;
      else if (i < 2 * np2) rows = m, cols = NP, first = np2;
      else if (i >= 2 * np2 + NP && i < 3 * np2 + NP) rows = NP, cols = NP, first = 2 * np2 + NP;
      else if (i >= 3 * np2 + NP) rows = NP, cols = NP, first = 3 * np2 + NP;
      j = i - first;
      if (rows && j < rows * cols) {
        r = j / cols;
        c = j % cols;
        o = first + c * rows + r;
      }
      mats[d * slot + o] = src[i];
    }
  }
#define VPDG_MAT(d, what) (mats + (d) * slot + (what))
  // the residual on the patch values
  if (a.localres) {
    for (int i = threadIdx.x; i < a.npd; i += blockDim.x) {
      r[i] = (T)bl[pat.index(h, i)];
      if (ul) u[i] = (T)ul[pat.index(h, i)];
    }
    __syncthreads();
    if (ul) {
      for (int d = 0; d < a.dim; d++) {
        const T *src = u;
        for (int e = 0; e < a.dim; e++) {
          T *dst = (e % 2) ? s : t;
          VPDGApply1DT<T, NP>(e, ext, NP, e == d ? VPDG_MAT(e, 2 * np2 + NP) : VPDG_MAT(e, 3 * np2 + NP), src, dst, false);
          __syncthreads();
          src = dst;
        }
        for (int i = threadIdx.x; i < a.npd; i += blockDim.x) r[i] -= src[i];
        __syncthreads();
      }
    }
  } else {
    for (int i = threadIdx.x; i < a.npd; i += blockDim.x) r[i] = (T)rl[pat.index(h, i)];
    __syncthreads();
  }
  // g = (Q^T)^(x)d r, divided by the sums of eigenvalues, then delta = Q^(x)d g
  T *cur = r, *nxt = t;
  for (int d = 0; d < a.dim; d++) {
    VPDGApply1DT<T, NP>(d, ext, a.m[d][cls[d]], VPDG_MAT(d, np2), cur, nxt, false);
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
    VPDGApply1DT<T, NP>(d, ext, NP, VPDG_MAT(d, 0), cur, nxt, false);
    __syncthreads();
    ext[d] = NP;
    T *tmp = cur;
    cur    = nxt;
    nxt    = tmp;
  }
#undef VPDG_MAT
  for (int i = threadIdx.x; i < a.npd; i += blockDim.x) {
    const double v = a.omega * (double)cur[i];
    if (a.atomic) atomicAdd(&target[pat.index(h, i)], v);
    else target[pat.index(h, i)] += v;
  }
}

// A forest's mixed patches (double), one block each, from the global residual rl (their local space is the full one):
// the Cholesky factor by blocked triangular solves (a warp applies each diagonal tile's inverse, the block updates the
// rest), delta into the target
__global__ void VPDGMixedKernel(VPDGSmoothArgs a, VPDGForestPatches pat, int i0, VPDGMixedData md, const double *__restrict__ rl, double *target)
{
  extern __shared__ double vpdg_mixed[];
  const int     i = i0 + blockIdx.x, h = md.patch[i], N = a.npd, lane = threadIdx.x % 32, ntiles = (N + 31) / 32;
  const double *U = md.U + (size_t)i * N * N, *T = md.Tinv + (size_t)i * ntiles * 1024;
  double       *y = vpdg_mixed;
  for (int q = threadIdx.x; q < N; q += blockDim.x) y[q] = rl[pat.index(h, q)];
  __syncthreads();
  // U^T z = r, then U x = z, by tiles of 32: a tile's own triangle through its inverse, the other rows updated by the
  // block; row k of U^T is column k of U
  for (int t = 0; t < ntiles; t++) {
    const int     t0 = 32 * t, t1 = t0 + 32 < N ? t0 + 32 : N;
    const double *Ti = T + 1024 * (size_t)t;
    if (threadIdx.x < 32) {
      double s = 0.0;
      for (int j = 0; j < t1 - t0; j++) s += Ti[j * 32 + lane] * y[t0 + j]; // (U_tt^-T)[lane][j] = Ti[j][lane]
      __syncwarp();
      if (t0 + lane < t1) y[t0 + lane] = s;
    }
    __syncthreads();
    for (int k = t1 + threadIdx.x; k < N; k += blockDim.x) {
      double s = 0.0;
      for (int j = t0; j < t1; j++) s += U[(size_t)k * N + j] * y[j];
      y[k] -= s;
    }
    __syncthreads();
  }
  for (int t = ntiles - 1; t >= 0; t--) {
    const int     t0 = 32 * t, t1 = t0 + 32 < N ? t0 + 32 : N;
    const double *Ti = T + 1024 * (size_t)t;
    if (threadIdx.x < 32) {
      double s = 0.0;
      for (int j = 0; j < t1 - t0; j++) s += Ti[lane * 32 + j] * y[t0 + j];
      __syncwarp();
      if (t0 + lane < t1) y[t0 + lane] = s;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < t0; k += blockDim.x) {
      double s = 0.0;
      for (int j = t0; j < t1; j++) s += U[k + (size_t)j * N] * y[j];
      y[k] -= s;
    }
    __syncthreads();
  }
  for (int q = threadIdx.x; q < N; q += blockDim.x) {
    const double v = a.omega * y[q];
    if (a.atomic) atomicAdd(&target[pat.index(h, q)], v);
    else target[pat.index(h, q)] += v;
  }
}

// what both creations share: sizes, the kernels' shared memory, the 1D data in double and float
static int VPDGSmootherSetUp(VPCudaDGSmoother g, int dim, int k, const int m[3][4], const double *data)
{
  const size_t nd = 3 * 4 * (size_t)VPDG_SLOT;
  float       *df = new float[nd];

  g->dim = dim;
  g->n   = k + 1;
  g->np  = 2 * (k + 1);
  g->npd = dim == 3 ? g->np * g->np * g->np : g->np * g->np;
  for (int d = 0; d < 3; d++)
    for (int c = 0; c < 4; c++) g->m[d][c] = m[d][c];
  for (size_t i = 0; i < nd; i++) df[i] = (float)data[i];
  g->shm_d = (4 * (size_t)g->npd + 3 * (4 * (size_t)g->np * g->np + g->np)) * sizeof(double);
  g->shm_f = (4 * (size_t)g->npd + 3 * (4 * (size_t)g->np * g->np + g->np)) * sizeof(float);
#define VPDG_ATTR(N) \
  do { \
    VP_CHECK(cudaFuncSetAttribute(VPDGPatchKernel<double, N, VPDGBoxPatches>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->shm_d)); \
    VP_CHECK(cudaFuncSetAttribute(VPDGPatchKernel<float, N, VPDGBoxPatches>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->shm_f)); \
    VP_CHECK(cudaFuncSetAttribute(VPDGPatchKernel<double, N, VPDGForestPatches>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->shm_d)); \
    VP_CHECK(cudaFuncSetAttribute(VPDGPatchKernel<float, N, VPDGForestPatches>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->shm_f)); \
  } while (0)
  VPDG_DISPATCH(k, VPDG_ATTR)
#undef VPDG_ATTR
  VP_CHECK(cudaFuncSetAttribute(VPDGMixedKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)((size_t)g->npd * sizeof(double))));
  VP_CHECK(cudaMalloc(&g->data_d, nd * sizeof(double)));
  VP_CHECK(cudaMalloc(&g->data_f, nd * sizeof(float)));
  VP_CHECK(cudaMemcpy(g->data_d, data, nd * sizeof(double), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(g->data_f, df, nd * sizeof(float), cudaMemcpyHostToDevice));
  delete[] df;
  return 0;
}

extern "C" int VPCudaDGSmootherCreate(int dim, int k, const int grid[3], const int m[3][4], const double *data, int nbox, const VPCudaPatchBox *patches, const int gstart[3], const int gstride[3], int dof, const int *rel, VPCudaDGSmoother *sm)
{
  VPCudaDGSmoother g        = new VPCudaDGSmoother_s();
  const int        npatches = patches[nbox].first;
  int              err;

  *sm         = g;
  g->npatches = npatches;
  for (int d = 0; d < 3; d++) g->grid[d] = grid[d];
  if ((err = VPDGSmootherSetUp(g, dim, k, m, data))) return err;
  VP_CHECK(cudaMalloc(&g->vertex, (3 * (size_t)npatches + 1) * sizeof(int)));
  VP_CHECK(cudaMalloc(&g->base, ((size_t)npatches + 1) * sizeof(int)));
  VP_CHECK(cudaMalloc(&g->rel, (size_t)g->npd * sizeof(int)));
  VP_CHECK((cudaError_t)VPPatchBoxesFill(patches, nbox, g->vertex, dim, gstart, gstride, dof, g->base));
  VP_CHECK(cudaMemcpy(g->rel, rel, (size_t)g->npd * sizeof(int), cudaMemcpyHostToDevice));
  return 0;
}

// n ints (or doubles) into fresh device memory
template <typename V>
static int VPDGUpload(V **dst, const V *src, size_t n)
{
  VP_CHECK(cudaMalloc(dst, (n + 1) * sizeof(V)));
  if (n) VP_CHECK(cudaMemcpy(*dst, src, n * sizeof(V), cudaMemcpyHostToDevice));
  return 0;
}

extern "C" int VPCudaDGSmootherCreateForest(int dim, int k, const int m[3][4], const double *data, int npatches, const int *key, const int *cellofs, const int *qcell, const int *qlocal, int nmixed, const int *mixedpatch, const double *U, VPCudaDGSmoother *sm)
{
  VPCudaDGSmoother g = new VPCudaDGSmoother_s();
  int              err, *dpatch;
  double          *dU, *dT, *T;

  *sm         = g;
  g->npatches = npatches;
  if ((err = VPDGSmootherSetUp(g, dim, k, m, data))) return err;
  const int    N = g->npd, ntiles = (N + 31) / 32;
  const size_t M = (size_t)N * N, tiles = 1024 * (size_t)ntiles;
  if ((err = VPDGUpload(&g->key, key, (size_t)npatches))) return err;
  if ((err = VPDGUpload(&g->cellofs, cellofs, (size_t)npatches << dim))) return err;
  if ((err = VPDGUpload(&g->qcell, qcell, (size_t)g->npd))) return err;
  if ((err = VPDGUpload(&g->qlocal, qlocal, (size_t)g->npd))) return err;
  g->nmixed       = nmixed;
  g->mixedpatch_h = new int[nmixed + 1];
  for (int i = 0; i < nmixed; i++) g->mixedpatch_h[i] = mixedpatch[i];
  // the inverses of each factor's diagonal tiles (upper triangular, at most 32 x 32; zero outside a last partial tile)
  T = new double[nmixed * tiles + 1]();
  for (int i = 0; i < nmixed; i++) {
    const double *Ui = U + i * M;
    for (int t = 0; t < ntiles; t++) {
      const int t0 = 32 * t, ts = (t0 + 32 < N ? t0 + 32 : N) - t0;
      double   *X  = T + i * tiles + 1024 * (size_t)t;
      for (int c = 0; c < ts; c++) {
        X[c * 32 + c] = 1.0 / Ui[(t0 + c) + (size_t)(t0 + c) * N];
        for (int r = c - 1; r >= 0; r--) {
          double sum = 0.0;
          for (int q = r + 1; q <= c; q++) sum += Ui[(t0 + r) + (size_t)(t0 + q) * N] * X[q * 32 + c];
          X[r * 32 + c] = -sum / Ui[(t0 + r) + (size_t)(t0 + r) * N];
        }
      }
    }
  }
  if (!(err = VPDGUpload(&dpatch, mixedpatch, (size_t)nmixed)) && !(err = VPDGUpload(&dU, U, nmixed * M))) err = VPDGUpload(&dT, (const double *)T, nmixed * tiles);
  delete[] T;
  if (err) return err;
  g->md = {dpatch, dU, dT};
  return 0;
}

template <typename Patches>
static int VPDGPatchLaunch(VPCudaDGSmoother g, const VPDGSmoothArgs &a, Patches pat, int count, int single, const double *ul, const double *bl, const double *rl, double *target)
{
#define VPDG_LAUNCH(N) \
  do { \
    if (single) VPDGPatchKernel<float, N, Patches><<<count, 256, g->shm_f>>>(a, pat, g->data_f, ul, bl, rl, target); \
    else VPDGPatchKernel<double, N, Patches><<<count, 256, g->shm_d>>>(a, pat, g->data_d, ul, bl, rl, target); \
  } while (0)
  VPDG_DISPATCH(g->n - 1, VPDG_LAUNCH)
#undef VPDG_LAUNCH
  VP_CHECK(cudaGetLastError());
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
  if (g->key) {
    // a forest: the separable patches of the range (the mixed ones return at once), then the mixed ones (numbered in
    // patch order, so those of [start, end) are consecutive); they share no value with each other within a color
    VPDGForestPatches pat = {g->key, g->cellofs, g->qcell, g->qlocal, g->dim};
    int               i0 = 0, i1, err;
    if ((err = VPDGPatchLaunch(g, a, pat, end - start, single, ul, bl, rl, target))) return err;
    while (i0 < g->nmixed && g->mixedpatch_h[i0] < start) i0++;
    for (i1 = i0; i1 < g->nmixed && g->mixedpatch_h[i1] < end; i1++);
    if (i1 > i0) {
      if (localres) return (int)cudaErrorInvalidValue; // mixed patches have the full local space: the global residual
      VPDGMixedKernel<<<i1 - i0, 256, (size_t)g->npd * sizeof(double)>>>(a, pat, i0, g->md, rl, target);
      VP_CHECK(cudaGetLastError());
    }
    return 0;
  }
  VPDGBoxPatches pat = {g->vertex, g->base, g->rel, g->dim, {g->grid[0], g->grid[1], g->grid[2]}};
  return VPDGPatchLaunch(g, a, pat, end - start, single, ul, bl, rl, target);
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
  VP_CHECK(cudaFree(g->key));
  VP_CHECK(cudaFree(g->cellofs));
  VP_CHECK(cudaFree(g->qcell));
  VP_CHECK(cudaFree(g->qlocal));
  VP_CHECK(cudaFree((void *)g->md.patch));
  VP_CHECK(cudaFree((void *)g->md.U));
  VP_CHECK(cudaFree((void *)g->md.Tinv));
  delete[] g->mixedpatch_h;
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
