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
  int              tile;          // the shared-memory kernel of the box (vpsmooth_tile.cu) with table addressing (laplace)
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

extern "C" int VPCudaForestSmootherCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, int k, int npatches, const int *patchcell, int ncells, const int *node, int shared, VPCudaForestSmoother *out)
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
    sm->layout.pairable = 0; /* the pair kernel is box-only */
    sm->tile            = VPTilePrepare(&sm->layout, &bd, &bf) == 0;
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
  if (sm->tile) return VPTileLaunchTable(&sm->layout, single, single ? (const void *)sm->op_f : (const void *)sm->op_d, sm->patchcell, sm->node, start, end, b, x, target, omega, 32 * sm->nsm);
  if (single) VPForestSmoothKernel<float, VPCudaPatchOp_f><<<blocks, 128, shared>>>(sm->op_f, sm->patchcell, sm->node, sm->k, sm->nv, start, end, b, x, target, omega, sm->scratch, sm->block_scratch);
  else VPForestSmoothKernel<double, VPCudaPatchOp_d><<<blocks, 128, shared>>>(sm->op_d, sm->patchcell, sm->node, sm->k, sm->nv, start, end, b, x, target, omega, sm->scratch, sm->block_scratch);
  VP_CHECK(cudaGetLastError());
  return 0;
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
  for (int c = blockIdx.x; c < t.ncells; c += gridDim.x) {
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
  for (int c = blockIdx.x; c < t.ncells; c += gridDim.x) {
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

extern "C" int VPCudaForestTransferCreate(int dim, int k, int dg, int ncells, const int *node, const int *parentof, const int *child, int nparents, const int *pnode, const double *E, VPCudaForestTransfer *out)
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
  *out = t;
  return 0;
}

// fine (local vector) = the embedding of the gathered coarse values buf, cell by cell (prolong), or buf += its transpose
// applied to fine (restrict; buf zeroed by the caller)
extern "C" int VPCudaForestTransferApply(VPCudaForestTransfer t, int prolong, const double *in, double *out)
{
  const int    blocks = t->ncells < t->nblocks ? t->ncells : t->nblocks;
  const size_t shared = 4 * (size_t)t->nv * sizeof(double);
  if (t->ncells == 0) return 0;
  if (shared > 48 * 1024) VP_CHECK(cudaFuncSetAttribute(prolong ? (const void *)VPForestProlongKernel : (const void *)VPForestRestrictKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  if (prolong) VPForestProlongKernel<<<blocks, 128, shared>>>(*t, in, out);
  else VPForestRestrictKernel<<<blocks, 128, shared>>>(*t, in, out);
  VP_CHECK(cudaGetLastError());
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
  delete *t;
  *t = nullptr;
  return 0;
}
