// The GPU kernels of a forest brick (src/dm/brickforest.c) besides its operator (vpcell.cu): the vertex-patch smoothing
// step and the grid transfer. Cells and patches are read through explicit tables, not box arithmetic: a cell's (k+1)^dim
// nodes at node[cell * nv + i] (local-vector positions, -1 on the Dirichlet boundary), a patch's 2^dim cells at
// patchcell[patch * 2^dim + b] (b: the cell's offset bits around the vertex, x lowest). Every patch of a forest takes the
// interior position class of the patch operator (its cells are congruent and all in the domain). One thread block per
// patch or per cell, the block-wide contractions of vpcontract.h; the CPU code of src/pc/vertexpatch/vpforest.c and
// src/dm/brickforesttransfer.c is the reference.
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include "vpcontract.h"
#include "vpfdm.h"
#include "vpsmooth_tile.h"
#include <cuda_runtime.h>

struct VPCudaForestSmoother_s {
  VPCudaPatchOp_d *op_d;
  VPCudaPatchOp_f *op_f;
  int              dim, k, nv, npatches, nblocks;
  int             *patchcell, *node; // device tables
  char            *scratch;       // NULL: the arrays fit in shared memory
  size_t           block_scratch; // bytes per block
  int              nsm;
  int              tile;          // the shared-memory kernels of the box with table addressing (laplace): vpsmooth_tile.cu's one-line
                                  // kernel or (3D, k >= 2) vpsmooth_pair.cu's, through the cell-node table
  VPTileLayout     layout;
};

// local-vector position of closure node (c0, c1, c2) of patch p (closure coordinates 0..2k per direction)
__device__ inline int VPForestClosureNode(const int *patchcell, const int *node, int dim, int k, int nv, int p, int c0, int c1, int c2)
{
  const int N = k + 1, b0 = c0 > k, b1 = c1 > k, b2 = dim == 3 && c2 > k;
  const int cell = patchcell[p * (1 << dim) + (b0 | (b1 << 1) | (b2 << 2))];
  return node[(size_t)cell * nv + (c0 - b0 * k) + N * ((c1 - b1 * k) + N * (c2 - b2 * k))];
}

// one patch: residual (local: of x and b on the closure; x NULL: b holds the residual), FDM solve, target[interior] += omega delta
template <typename T, typename Op>
__device__ void VPForestPatch(const Op *op, const int *patchcell, const int *node, int k, int nv, int p, const double *b, const double *x, double *target, double omega, T *w)
{
  const int dim = op->dim, ne = op->ne, ni = op->ni, nz = dim == 3 ? ne : 1, niz = dim == 3 ? ni : 1;
  const int nc = ne * ne * nz, nint = ni * ni * niz, nx = ni * ne * nz;
  const int cls = 1;
  T        *xbar = w, *r = xbar + nc, *X[3] = {r + nint, r + nint + nx, r + nint + 2 * nx}, *XY = r + nint + 3 * nx, *Z = XY + ni * ni * ne, *a = Z + nint, *bb = a + nint;

  if (x)
    for (int q = threadIdx.x; q < nc; q += blockDim.x) {
      const int i = VPForestClosureNode(patchcell, node, dim, k, nv, p, q % ne, (q / ne) % ne, q / (ne * ne));
      xbar[q]     = i >= 0 ? (T)x[i] : (T)0;
    }
  for (int q = threadIdx.x; q < nint; q += blockDim.x) r[q] = (T)b[VPForestClosureNode(patchcell, node, dim, k, nv, p, 1 + q % ni, 1 + (q / ni) % ni, dim == 3 ? 1 + q / (ni * ni) : 0)];
  __syncthreads();
  if (x) {
    bool done[3] = {false, false, false};
    for (int t = 0; t < op->nterms; t++) {
      const int ka = op->kind[t][0], kb = op->kind[t][1], kc = op->kind[t][2];
      int       ext[3] = {ne, ne, nz};
      if (!done[ka]) {
        VPContract<T>(0, ext, ni, op->coloff[ka], op->ncols[ka], op->R[ka][0][cls], xbar, X[ka]);
        done[ka] = true;
      }
      ext[0] = ni;
      if (dim == 2) VPContract<T>(1, ext, ni, op->coloff[kb], op->ncols[kb], op->R[kb][1][cls], X[ka], Z);
      else {
        VPContract<T>(1, ext, ni, op->coloff[kb], op->ncols[kb], op->R[kb][1][cls], X[ka], XY);
        ext[1] = ni;
        VPContract<T>(2, ext, ni, op->coloff[kc], op->ncols[kc], op->R[kc][2][cls], XY, Z);
      }
      for (int q = threadIdx.x; q < nint; q += blockDim.x) r[q] -= (T)op->coef[t] * Z[q];
      __syncthreads();
    }
  }
  {
    const int clss[3] = {cls, cls, cls};
    VPFDMSolve<T, Op>(op, clss, r, a, bb, Z);
  }
  // the interiors of one color's patches are disjoint: plain updates
  for (int q = threadIdx.x; q < nint; q += blockDim.x) target[VPForestClosureNode(patchcell, node, dim, k, nv, p, 1 + q % ni, 1 + (q / ni) % ni, dim == 3 ? 1 + q / (ni * ni) : 0)] += omega * (double)Z[q];
  __syncthreads();
}

// the patch's arrays in shared memory where they fit (scratch NULL: dynamic shared memory of block_scratch bytes), else
// in the block's slice of a global scratch
template <typename T, typename Op>
__global__ void VPForestSmoothKernel(const Op *op, const int *patchcell, const int *node, int k, int nv, int start, int end, const double *b, const double *x, double *target, double omega, char *scratch, size_t block_scratch)
{
  extern __shared__ double shared_w[];
  T *w = scratch ? (T *)(scratch + blockIdx.x * block_scratch) : (T *)shared_w;
  for (int p = start + blockIdx.x; p < end; p += gridDim.x) VPForestPatch<T, Op>(op, patchcell, node, k, nv, p, b, x, target, omega, w);
}

extern "C" int VPCudaForestSmootherCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, int k, int npatches, const int *patchcell, int ncells, const int *node, int shared, int lines, VPCudaForestSmoother *out)
{
  VPCudaForestSmoother sm = new VPCudaForestSmoother_s();
  const int            ne = op_d->ne, ni = op_d->ni, dim = op_d->dim, nz = dim == 3 ? ne : 1, niz = dim == 3 ? ni : 1, N = k + 1;
  const size_t         words = (size_t)ne * ne * nz + 3 * (size_t)ni * ne * nz + (size_t)ni * ni * ne + 6 * (size_t)ni * ni * niz;
  int                  dev, nsm;

  sm->dim      = dim;
  sm->k        = k;
  sm->nv       = dim == 3 ? N * N * N : N * N;
  sm->npatches = npatches;
  VP_CHECK(cudaGetDevice(&dev));
  VP_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  sm->nsm           = nsm;
  sm->nblocks       = 8 * nsm;
  sm->block_scratch = ((words * sizeof(double) + 255) / 256) * 256;
  {
    /* shared memory per block where the double arrays fit in the device's opt-in limit: then several blocks an SM */
    int optin = 0;
    VP_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (sm->block_scratch <= (size_t)optin / 2) {
      VP_CHECK(cudaFuncSetAttribute((const void *)VPForestSmoothKernel<double, VPCudaPatchOp_d>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm->block_scratch));
      VP_CHECK(cudaFuncSetAttribute((const void *)VPForestSmoothKernel<float, VPCudaPatchOp_f>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm->block_scratch));
      sm->nblocks = 32 * nsm;
    }
  }
  VP_CHECK(cudaMalloc(&sm->op_d, sizeof(VPCudaPatchOp_d)));
  VP_CHECK(cudaMalloc(&sm->op_f, sizeof(VPCudaPatchOp_f)));
  VP_CHECK(cudaMemcpy(sm->op_d, op_d, sizeof(VPCudaPatchOp_d), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(sm->op_f, op_f, sizeof(VPCudaPatchOp_f), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&sm->patchcell, ((size_t)npatches * (1 << dim) + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(sm->patchcell, patchcell, (size_t)npatches * (1 << dim) * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&sm->node, ((size_t)ncells * sm->nv + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(sm->node, node, (size_t)ncells * sm->nv * sizeof(int), cudaMemcpyHostToDevice));
  {
    int optin = 0;
    VP_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (sm->block_scratch > (size_t)optin / 2) VP_CHECK(cudaMalloc(&sm->scratch, sm->block_scratch * sm->nblocks));
  }
  if (shared && VPCudaSmootherSharedSupported(op_d, 1, k)) {
    size_t bd, bf;
    VPTileLayoutCreate(op_d, k, &sm->layout);
    VPTileSetLines(&sm->layout, lines);
    sm->tile = VPTilePrepare(&sm->layout, &bd, &bf) == 0;
  }
  *out = sm;
  return 0;
}

// patches [start, end) of the processing order (one color): target[interior] += omega A_p^-1 (residual)
extern "C" int VPCudaForestSmootherStep(VPCudaForestSmoother sm, int single, int start, int end, const double *b, const double *x, double *target, double omega)
{
  const int n = end - start, blocks = n < sm->nblocks ? n : sm->nblocks;
  if (n <= 0) return 0;
  const size_t shared = sm->scratch ? 0 : sm->block_scratch;
  if (sm->tile && sm->layout.pairable && sm->layout.pl.lines[single ? 1 : 0] > 0) return VPPairLaunchTable(&sm->layout.pl, single, single ? (const void *)sm->op_f : (const void *)sm->op_d, sm->patchcell, sm->node, start, end, b, x, target, omega, 32 * sm->nsm);
  if (sm->tile) return VPTileLaunchTable(&sm->layout, single, single ? (const void *)sm->op_f : (const void *)sm->op_d, sm->patchcell, sm->node, start, end, b, x, target, omega, 32 * sm->nsm);
  if (single) VPForestSmoothKernel<float, VPCudaPatchOp_f><<<blocks, 128, shared>>>(sm->op_f, sm->patchcell, sm->node, sm->k, sm->nv, start, end, b, x, target, omega, sm->scratch, sm->block_scratch);
  else VPForestSmoothKernel<double, VPCudaPatchOp_d><<<blocks, 128, shared>>>(sm->op_d, sm->patchcell, sm->node, sm->k, sm->nv, start, end, b, x, target, omega, sm->scratch, sm->block_scratch);
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaForestSmootherKernel(VPCudaForestSmoother sm, int single)
{
  if (!sm->tile) return -1;
  return sm->layout.pairable ? sm->layout.pl.lines[single ? 1 : 0] : 0;
}

extern "C" int VPCudaForestSmootherDestroy(VPCudaForestSmoother *sm)
{
  if (!*sm) return 0;
  VP_CHECK(cudaFree((*sm)->op_d));
  VP_CHECK(cudaFree((*sm)->op_f));
  VP_CHECK(cudaFree((*sm)->patchcell));
  VP_CHECK(cudaFree((*sm)->node));
  VP_CHECK(cudaFree((*sm)->scratch));
  delete *sm;
  *sm = nullptr;
  return 0;
}

// ---- transfer ----

struct VPCudaForestTransfer_s {
  int     dim, k, dg, nv, ncells, nblocks;
  int    *node, *parentof, *child, *pnode; // device: fine cells' nodes, their parents (into pnode's rows) and child bits
  double *E;                              // E[b] (N x N, the rows of child position b) then its transposes
  // whole families (a parent's 2^dim children, consecutive cells of this rank) go at once through the (2k+1)^dim block of
  // their nodes; the other cells one by one (brickforesttransfer.c decides which)
  int     nfam, nsingle, nb;      // families, single cells, nodes of a family block
  int    *family, *single;        // device: a family's first cell; the single cells
  int    *fampos, *famfirst;      // device: per child b and node i (b nv + i), the place in the family block; 1 where (b, i) is its place's first
  double *P, *PT, *wfam;          // device: the 1D embedding (2k+1) x (k+1), its transpose, the family block's restriction weights
};

// one fine cell: in (nv values) through the child embedding (transposed: the restriction), into out; w scratch (2 nv)
__device__ void VPForestEmbed(const double *E, int dim, int N, int bits, bool transpose, const double *in, double *out, double *w)
{
  const int ext[3] = {N, N, dim == 3 ? N : 1};
  const int off    = transpose ? 2 * N * N : 0;
  VPContract<double>(0, ext, N, 0, N, E + off + (bits & 1) * N * N, in, w);
  VPContract<double>(1, ext, N, 0, N, E + off + ((bits >> 1) & 1) * N * N, w, dim == 3 ? w + N * N * N : out);
  if (dim == 3) VPContract<double>(2, ext, N, 0, N, E + off + ((bits >> 2) & 1) * N * N, w + N * N * N, out);
}

__global__ void VPForestProlongKernel(VPCudaForestTransfer_s t, const double *__restrict__ buf, double *fine)
{
  extern __shared__ double mem[];
  double                  *u = mem, *v = mem + t.nv, *w = mem + 2 * t.nv;
  const int                N = t.k + 1;
  for (int s = blockIdx.x; s < t.nsingle; s += gridDim.x) {
    const int  c  = t.single[s];
    const int *pn = t.pnode + (size_t)t.parentof[c] * t.nv, *fn = t.node + (size_t)c * t.nv;
    for (int i = threadIdx.x; i < t.nv; i += blockDim.x) u[i] = pn[i] >= 0 ? buf[pn[i]] : 0.0;
    __syncthreads();
    VPForestEmbed(t.E, t.dim, N, t.child[c], false, u, v, w);
    for (int i = threadIdx.x; i < t.nv; i += blockDim.x)
      if (fn[i] >= 0) fine[fn[i]] = v[i]; // a node shared by cells gets the same value from each
    __syncthreads();
  }
}

__global__ void VPForestRestrictKernel(VPCudaForestTransfer_s t, const double *__restrict__ fine, double *buf)
{
  extern __shared__ double mem[];
  double                  *u = mem, *v = mem + t.nv, *w = mem + 2 * t.nv;
  const int                N = t.k + 1;
  for (int s = blockIdx.x; s < t.nsingle; s += gridDim.x) {
    const int  c  = t.single[s];
    const int *pn = t.pnode + (size_t)t.parentof[c] * t.nv, *fn = t.node + (size_t)c * t.nv;
    for (int i = threadIdx.x; i < t.nv; i += blockDim.x) {
      const int i0 = i % N, i1 = (i / N) % N, i2 = i / (N * N);
      double    wt = 1.0; // CG: a fine node shared by 2^m fine cells counts 1/2^m in each (DG: a value is one cell's)
      if (!t.dg && (i0 == 0 || i0 == t.k)) wt *= 0.5;
      if (!t.dg && (i1 == 0 || i1 == t.k)) wt *= 0.5;
      if (!t.dg && t.dim == 3 && (i2 == 0 || i2 == t.k)) wt *= 0.5;
      v[i] = fn[i] >= 0 ? wt * fine[fn[i]] : 0.0;
    }
    __syncthreads();
    VPForestEmbed(t.E, t.dim, N, t.child[c], true, v, u, w);
    for (int i = threadIdx.x; i < t.nv; i += blockDim.x)
      if (pn[i] >= 0) atomicAdd(&buf[pn[i]], u[i]);
    __syncthreads();
  }
}

// one family a block: the parent's values embedded direction by direction into the family block, copied to the children
__global__ void VPForestProlongFamilyKernel(VPCudaForestTransfer_s t, const double *__restrict__ buf, double *fine)
{
  extern __shared__ double mem[];
  const int N = t.k + 1, NE = 2 * t.k + 1, nz = t.dim == 3 ? N : 1, nch = 1 << t.dim;
  double   *u = mem, *w1 = mem + t.nv, *w2 = w1 + t.nb, *blk = w2 + t.nb;
  for (int f = blockIdx.x; f < t.nfam; f += gridDim.x) {
    const int  c  = t.family[f];
    const int *pn = t.pnode + (size_t)t.parentof[c] * t.nv, *fn = t.node + (size_t)c * t.nv;
    for (int i = threadIdx.x; i < t.nv; i += blockDim.x) u[i] = pn[i] >= 0 ? buf[pn[i]] : 0.0;
    __syncthreads();
    const int e0[3] = {N, N, nz}, e1[3] = {NE, N, nz}, e2[3] = {NE, NE, nz};
    VPContract<double>(0, e0, NE, 0, N, t.P, u, w1);
    VPContract<double>(1, e1, NE, 0, N, t.P, w1, t.dim == 3 ? w2 : blk);
    if (t.dim == 3) VPContract<double>(2, e2, NE, 0, N, t.P, w2, blk);
    for (int q = threadIdx.x; q < nch * t.nv; q += blockDim.x)
      if (fn[q] >= 0) fine[fn[q]] = blk[t.fampos[q]]; // the children's rows are consecutive: fn + b nv + i
    __syncthreads();
  }
}

// one family a block: the children's values, each family node once with its weight, through the transposed embedding
__global__ void VPForestRestrictFamilyKernel(VPCudaForestTransfer_s t, const double *__restrict__ fine, double *buf)
{
  extern __shared__ double mem[];
  const int N = t.k + 1, NE = 2 * t.k + 1, nch = 1 << t.dim;
  double   *u = mem, *w1 = mem + t.nv, *w2 = w1 + t.nb, *blk = w2 + t.nb;
  for (int f = blockIdx.x; f < t.nfam; f += gridDim.x) {
    const int  c  = t.family[f];
    const int *pn = t.pnode + (size_t)t.parentof[c] * t.nv, *fn = t.node + (size_t)c * t.nv;
    for (int q = threadIdx.x; q < nch * t.nv; q += blockDim.x)
      if (t.famfirst[q]) blk[t.fampos[q]] = fn[q] >= 0 ? t.wfam[t.fampos[q]] * fine[fn[q]] : 0.0;
    __syncthreads();
    int ext[3] = {NE, NE, t.dim == 3 ? NE : 1};
    VPContract<double>(0, ext, N, 0, NE, t.PT, blk, w1);
    ext[0] = N;
    VPContract<double>(1, ext, N, 0, NE, t.PT, w1, t.dim == 3 ? w2 : u);
    ext[1] = N;
    if (t.dim == 3) VPContract<double>(2, ext, N, 0, NE, t.PT, w2, u);
    for (int i = threadIdx.x; i < t.nv; i += blockDim.x)
      if (pn[i] >= 0) atomicAdd(&buf[pn[i]], u[i]);
    __syncthreads();
  }
}

extern "C" int VPCudaForestTransferCreate(int dim, int k, int dg, int ncells, const int *node, const int *parentof, const int *child, int nparents, const int *pnode, const double *E, int nfam, const int *family, int nsingle, const int *single, const double *P, const int *fampos, const int *famfirst, const double *wfam, VPCudaForestTransfer *out)
{
  VPCudaForestTransfer t = new VPCudaForestTransfer_s();
  const int            N = k + 1;
  double               h[4 * 81];
  int                  dev, nsm;
  t->dim    = dim;
  t->k      = k;
  t->dg     = dg;
  t->nv     = dim == 3 ? N * N * N : N * N;
  t->ncells = ncells;
  VP_CHECK(cudaGetDevice(&dev));
  VP_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  t->nblocks = 16 * nsm;
  for (int b = 0; b < 2; b++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        h[b * N * N + i * N + j]             = E[b * N * N + i * N + j];
        h[2 * N * N + b * N * N + j * N + i] = E[b * N * N + i * N + j];
      }
  VP_CHECK(cudaMalloc(&t->E, 4 * N * N * sizeof(double)));
  VP_CHECK(cudaMemcpy(t->E, h, 4 * N * N * sizeof(double), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&t->node, ((size_t)ncells * t->nv + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(t->node, node, (size_t)ncells * t->nv * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&t->parentof, ((size_t)ncells + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(t->parentof, parentof, (size_t)ncells * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&t->child, ((size_t)ncells + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(t->child, child, (size_t)ncells * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&t->pnode, ((size_t)nparents * t->nv + 1) * sizeof(int)));
  VP_CHECK(cudaMemcpy(t->pnode, pnode, (size_t)nparents * t->nv * sizeof(int), cudaMemcpyHostToDevice));
  {
    const int NE = 2 * k + 1, nch = 1 << dim;
    double    pt[17 * 9];
    t->nfam    = nfam;
    t->nsingle = nsingle;
    t->nb      = dim == 3 ? NE * NE * NE : NE * NE;
    for (int i = 0; i < NE; i++)
      for (int j = 0; j < N; j++) pt[j * NE + i] = P[i * N + j];
    VP_CHECK(cudaMalloc(&t->family, ((size_t)nfam + 1) * sizeof(int)));
    VP_CHECK(cudaMemcpy(t->family, family, (size_t)nfam * sizeof(int), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMalloc(&t->single, ((size_t)nsingle + 1) * sizeof(int)));
    VP_CHECK(cudaMemcpy(t->single, single, (size_t)nsingle * sizeof(int), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMalloc(&t->fampos, (size_t)nch * t->nv * sizeof(int)));
    VP_CHECK(cudaMemcpy(t->fampos, fampos, (size_t)nch * t->nv * sizeof(int), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMalloc(&t->famfirst, (size_t)nch * t->nv * sizeof(int)));
    VP_CHECK(cudaMemcpy(t->famfirst, famfirst, (size_t)nch * t->nv * sizeof(int), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMalloc(&t->P, (size_t)NE * N * sizeof(double)));
    VP_CHECK(cudaMemcpy(t->P, P, (size_t)NE * N * sizeof(double), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMalloc(&t->PT, (size_t)NE * N * sizeof(double)));
    VP_CHECK(cudaMemcpy(t->PT, pt, (size_t)NE * N * sizeof(double), cudaMemcpyHostToDevice));
    VP_CHECK(cudaMalloc(&t->wfam, (size_t)t->nb * sizeof(double)));
    VP_CHECK(cudaMemcpy(t->wfam, wfam, (size_t)t->nb * sizeof(double), cudaMemcpyHostToDevice));
  }
  *out = t;
  return 0;
}

// fine (local vector) = the embedding of the gathered coarse values buf, cell by cell (prolong), or buf += its transpose
// applied to fine (restrict; buf zeroed by the caller)
extern "C" int VPCudaForestTransferApply(VPCudaForestTransfer t, int prolong, const double *in, double *out)
{
  if (t->nsingle > 0) {
    const int    blocks = t->nsingle < t->nblocks ? t->nsingle : t->nblocks;
    const size_t shared = 4 * (size_t)t->nv * sizeof(double);
    if (shared > 48 * 1024) VP_CHECK(cudaFuncSetAttribute(prolong ? (const void *)VPForestProlongKernel : (const void *)VPForestRestrictKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    if (prolong) VPForestProlongKernel<<<blocks, 128, shared>>>(*t, in, out);
    else VPForestRestrictKernel<<<blocks, 128, shared>>>(*t, in, out);
    VP_CHECK(cudaGetLastError());
  }
  if (t->nfam > 0) {
    const int    blocks = t->nfam < t->nblocks ? t->nfam : t->nblocks;
    const size_t shared = ((size_t)t->nv + 3 * (size_t)t->nb) * sizeof(double);
    if (shared > 48 * 1024) VP_CHECK(cudaFuncSetAttribute(prolong ? (const void *)VPForestProlongFamilyKernel : (const void *)VPForestRestrictFamilyKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    if (prolong) VPForestProlongFamilyKernel<<<blocks, 128, shared>>>(*t, in, out);
    else VPForestRestrictFamilyKernel<<<blocks, 128, shared>>>(*t, in, out);
    VP_CHECK(cudaGetLastError());
  }
  return 0;
}

extern "C" int VPCudaForestTransferDestroy(VPCudaForestTransfer *t)
{
  if (!*t) return 0;
  VP_CHECK(cudaFree((*t)->E));
  VP_CHECK(cudaFree((*t)->node));
  VP_CHECK(cudaFree((*t)->parentof));
  VP_CHECK(cudaFree((*t)->child));
  VP_CHECK(cudaFree((*t)->pnode));
  VP_CHECK(cudaFree((*t)->family));
  VP_CHECK(cudaFree((*t)->single));
  VP_CHECK(cudaFree((*t)->fampos));
  VP_CHECK(cudaFree((*t)->famfirst));
  VP_CHECK(cudaFree((*t)->P));
  VP_CHECK(cudaFree((*t)->PT));
  VP_CHECK(cudaFree((*t)->wfam));
  delete *t;
  *t = nullptr;
  return 0;
}
