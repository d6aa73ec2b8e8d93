// The vertex-patch smoothing step on the GPU: one thread block per patch (a grid-stride loop over the patches
// of one color), the patch's closure gathered, the local residual by rectangular sum factorization, the
// fast-diagonalization solve, and the update, all in one kernel ("fused", seed 003). The block's threads share
// every contraction; the intermediate arrays live in a per-block scratch in global memory (any operator; laplace
// uses vpsmooth_tile.cu and the 3D C0IP patches of k = 2..5 vpsmooth_c0ip.cu by default). A port of the CPU kernels in src/pc/vertexpatch/vplane_template.h,
// which stay the reference (tests/gpu_smoother.c compares them).
#include "vpatch_cuda.h"
#include "vpsmooth_tile.h"
#include "vpsmooth_mma.h"
#include "vpsmooth_c0ip.h"
#include "vppatchbox.h"
#include "vpcuda_check.h"
#include "vpcontract.h"
#include <cuda_runtime.h>

struct VPCudaSmoother_s {
  VPCudaPatchOp_d *op_d;
  VPCudaPatchOp_f *op_f;
  VPCudaBox        box; // where b, x and the target lie
  int              k, g, dim, npatches, nblocks;
  int             *vertex; // 3 per patch, device
  char            *scratch;
  size_t           block_scratch; // bytes per block
  int              kernel;        // VPC_KERNEL_*
  VPTileLayout     tile;          // VPC_KERNEL_SHARED and _MMA (its float steps): the shared arrays of the x-direction kinds
  int              c0ip;          // VPC_KERNEL_SHARED with two ghost cells: the C0IP kernel
  VPC0ipLayout     c0ip_layout;
  int              tile_blocks;   // VPC_KERNEL_SHARED and _MMA: grid size cap
  int              nsm;           // multiprocessors of the device
};

// position in the box's array of node p (x fastest) of the interior of the patch at vertex v
__device__ inline size_t VPInteriorIndex(int p, int ni, int dim, const int *v, int g, int k, const VPCudaBox &bx)
{
  const int c[3] = {p % ni, (p / ni) % ni, p / (ni * ni)}, first = (g - 1) * k + 1;
  size_t    idx = 0, stride = 1;
  for (int d = 0; d < dim; d++) {
    idx += (size_t)((v[d] - g) * k + first + c[d] - 1 - bx.lo[d]) * stride;
    stride *= (size_t)bx.m[d];
  }
  return idx;
}

// class of vertex v along a direction with N cells (as PCVertexPatchClass)
__device__ inline int VPClass(int v, int N)
{
  return v == 1 ? 0 : (v == N - 1 ? 2 : 1);
}

// One patch: residual from the closure of x and b, FDM solve, then target[interior] += omega delta (atomic for the additive step).
template <typename T, typename Op>
__device__ void VPPatch(const Op *op, const VPCudaBox &bx, int k, int g, const int *v, const double *b, const double *x, double *target, double omega, bool atomic, T *w)
{
  const int dim = op->dim, ne = op->ne, ni = op->ni, nz = dim == 3 ? ne : 1, niz = dim == 3 ? ni : 1;
  const int nc = ne * ne * nz, nint = ni * ni * niz, nx = ni * ne * nz;
  const int ilo = op->inner_lo, ihi = op->inner_hi;
  T        *xbar = w, *r = xbar + nc, *X[3] = {r + nint, r + nint + nx, r + nint + 2 * nx}, *XY = r + nint + 3 * nx, *Z = XY + ni * ni * ne, *a = Z + nint, *bb = a + nint;
  int       cls[3] = {0, 0, 0};
  for (int d = 0; d < dim; d++) cls[d] = VPClass(v[d], (bx.n[d] + 1) / k);
  // closure (cross-shaped: nodes outside the patch cells in at most one direction), boundary nodes zero
  for (int p = threadIdx.x; p < nc; p += blockDim.x) {
    const int c[3] = {p % ne, (p / ne) % ne, p / (ne * ne)};
    int       outside = 0, valid = 1;
    size_t    idx = 0, stride = 1;
    for (int d = 0; d < 3; d++) {
      if (d < dim) {
        const int f = (v[d] - g) * k + c[d]; // full-grid node; interior index f - 1
        outside += (c[d] < ilo || c[d] > ihi);
        if (f <= 0 || f >= bx.n[d] + 1) valid = 0;
        idx += (size_t)(f - 1 - bx.lo[d]) * stride;
        stride *= (size_t)bx.m[d];
      }
    }
    xbar[p] = (x && valid && outside <= 1) ? (T)x[idx] : (T)0; /* no x: the residual of zero */
  }
  // r = b on the interior
  for (int p = threadIdx.x; p < nint; p += blockDim.x) r[p] = (T)b[VPInteriorIndex(p, ni, dim, v, g, k, bx)];
  __syncthreads();
  // residual: r -= sum_t coef_t (rows of the 1D factors) xbar, the x contraction shared by terms of one x kind
  // (without x, b is already the residual: the global-residual variant)
  if (x) {
    bool done[3] = {false, false, false};
    for (int t = 0; t < op->nterms; t++) {
      const int ka = op->kind[t][0], kb = op->kind[t][1], kc = op->kind[t][2];
      int       ext[3] = {ne, ne, nz};
      if (!done[ka]) {
        VPContract<T>(0, ext, ni, op->coloff[ka], op->ncols[ka], op->R[ka][0][cls[0]], xbar, X[ka]);
        done[ka] = true;
      }
      ext[0] = ni;
      if (dim == 2) VPContract<T>(1, ext, ni, op->coloff[kb], op->ncols[kb], op->R[kb][1][cls[1]], X[ka], Z);
      else {
        VPContract<T>(1, ext, ni, op->coloff[kb], op->ncols[kb], op->R[kb][1][cls[1]], X[ka], XY);
        ext[1] = ni;
        VPContract<T>(2, ext, ni, op->coloff[kc], op->ncols[kc], op->R[kc][2][cls[2]], XY, Z);
      }
      for (int p = threadIdx.x; p < nint; p += blockDim.x) r[p] -= (T)op->coef[t] * Z[p];
      __syncthreads();
    }
  }
  // fast diagonalization: a = S^T r, divide, delta = S a
  {
    const int ext[3] = {ni, ni, niz};
    VPContract<T>(0, ext, ni, 0, ni, op->St[0][cls[0]], r, a);
    VPContract<T>(1, ext, ni, 0, ni, op->St[1][cls[1]], a, bb);
    if (dim == 3) VPContract<T>(2, ext, ni, 0, ni, op->St[2][cls[2]], bb, a);
    else {
      for (int p = threadIdx.x; p < nint; p += blockDim.x) a[p] = bb[p];
      __syncthreads();
    }
    for (int p = threadIdx.x; p < nint; p += blockDim.x) {
      const int i = p % ni, j = (p / ni) % ni, l = p / (ni * ni);
      a[p] /= op->lambda[0][cls[0]][i] + op->lambda[1][cls[1]][j] + (dim == 3 ? op->lambda[2][cls[2]][l] : (T)0);
    }
    __syncthreads();
    VPContract<T>(0, ext, ni, 0, ni, op->S[0][cls[0]], a, bb);
    if (dim == 3) {
      VPContract<T>(1, ext, ni, 0, ni, op->S[1][cls[1]], bb, a);
      VPContract<T>(2, ext, ni, 0, ni, op->S[2][cls[2]], a, Z);
    } else VPContract<T>(1, ext, ni, 0, ni, op->S[1][cls[1]], bb, Z);
  }
  // update the interior
  for (int p = threadIdx.x; p < nint; p += blockDim.x) {
    const size_t idx = VPInteriorIndex(p, ni, dim, v, g, k, bx);
    const double upd = omega * (double)Z[p];
    if (atomic) atomicAdd(&target[idx], upd);
    else target[idx] += upd;
  }
  __syncthreads();
}

// the double steps of VPC_KERNEL_MMA: one patch per warp (vpsmooth_mmawarp.cu) for the 3D Laplacian of degree 2 and 3,
// one patch per block (vpsmooth_mma.cu) otherwise
static bool VPMmaUseWarp(int dim, int k, bool pairable)
{
  return pairable && VPMmaWarpSupported(dim, k);
}

template <typename T, typename Op>
__global__ void VPSmoothKernel(const Op *op, VPCudaBox bx, int k, int g, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, char *scratch, size_t block_scratch)
{
  T *w = (T *)(scratch + blockIdx.x * block_scratch);
  for (int p = start + blockIdx.x; p < end; p += gridDim.x) VPPatch<T, Op>(op, bx, k, g, vertex + 3 * p, b, x, target, omega, atomic, w);
}

extern "C" int VPCudaSmootherCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, const VPCudaBox *box, int k, int g, int nbox, const VPCudaPatchBox *patches, int kernel, VPCudaSmoother *out)
{
  if (kernel != VPC_KERNEL_GLOBAL && kernel != VPC_KERNEL_SHARED && kernel != VPC_KERNEL_MMA) return (int)cudaErrorInvalidValue;
  if (kernel != VPC_KERNEL_GLOBAL && !VPCudaSmootherSharedSupported(op_d, g, k)) return (int)cudaErrorNotSupported;
  if (kernel == VPC_KERNEL_MMA && !VPCudaSmootherMmaSupported(op_d, g, k)) return (int)cudaErrorNotSupported;
  if (kernel == VPC_KERNEL_MMA) VP_CHECK((cudaError_t)VPMmaSupported());
  VPCudaSmoother sm = new VPCudaSmoother_s();
  const int      ne = op_d->ne, ni = op_d->ni, dim = op_d->dim, nz = dim == 3 ? ne : 1, niz = dim == 3 ? ni : 1;
  const size_t   words = (size_t)ne * ne * nz + 3 * (size_t)ni * ne * nz + (size_t)ni * ni * ne + 6 * (size_t)ni * ni * niz;
  int            dev, nsm;

  sm->kernel   = kernel;
  sm->k        = k;
  sm->g        = g;
  sm->dim      = dim;
  const int npatches = patches[nbox].first;
  sm->npatches = npatches;
  sm->box = *box;
  for (int d = dim; d < 3; d++) sm->box.n[d] = sm->box.m[d] = 1, sm->box.lo[d] = 0;
  VP_CHECK(cudaGetDevice(&dev));
  VP_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  sm->nblocks       = 8 * nsm;
  sm->nsm           = nsm;
  sm->block_scratch = ((words * sizeof(double) + 255) / 256) * 256;
  VP_CHECK(cudaMalloc(&sm->op_d, sizeof(VPCudaPatchOp_d)));
  VP_CHECK(cudaMalloc(&sm->op_f, sizeof(VPCudaPatchOp_f)));
  VP_CHECK(cudaMemcpy(sm->op_d, op_d, sizeof(VPCudaPatchOp_d), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(sm->op_f, op_f, sizeof(VPCudaPatchOp_f), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&sm->vertex, 3 * (size_t)(npatches > 0 ? npatches : 1) * sizeof(int)));
  VP_CHECK((cudaError_t)VPPatchBoxesFill(patches, nbox, sm->vertex, dim, nullptr, nullptr, 0, nullptr));
  if (kernel == VPC_KERNEL_SHARED && g == 2) {
    const int err = VPC0ipCreate(op_d, op_f, k, &sm->c0ip_layout);
    sm->c0ip      = 1;
    sm->tile_blocks = 32 * nsm;
    if (err) {
      VPCudaSmootherDestroy(&sm);
      return err;
    }
  } else if (kernel != VPC_KERNEL_GLOBAL) {
    size_t bytes_d, bytes_f;
    VPTileLayoutCreate(op_d, k, &sm->tile);
    VP_CHECK((cudaError_t)VPTilePrepare(&sm->tile, &bytes_d, &bytes_f));
    if (kernel == VPC_KERNEL_MMA) VP_CHECK((cudaError_t)(VPMmaUseWarp(dim, k, sm->tile.pairable) ? VPMmaWarpPrepare(k, &bytes_d) : VPMmaPrepare(dim, k, &bytes_d)));
    sm->tile_blocks = 32 * nsm; // enough resident blocks to fill the GPU; each loops over its share of patches
  } else VP_CHECK(cudaMalloc(&sm->scratch, sm->block_scratch * sm->nblocks));
  *out = sm;
  return 0;
}

static int VPLaunch(VPCudaSmoother sm, int start, int end, int single, double omega, const double *b, const double *x, double *target, bool atomic)
{
  if (end <= start) return 0;
  if (sm->c0ip) return VPC0ipLaunch(&sm->c0ip_layout, single, single ? (const void *)sm->op_f : (const void *)sm->op_d, &sm->box, sm->vertex, start, end, b, x, target, omega, atomic, sm->tile_blocks);
  if (sm->kernel == VPC_KERNEL_MMA && !single && VPMmaUseWarp(sm->dim, sm->k, sm->tile.pairable)) return VPMmaWarpLaunch(&sm->tile.pl, sm->op_d, &sm->box, sm->vertex, start, end, b, x, target, omega, atomic, sm->tile_blocks);
  if (sm->kernel == VPC_KERNEL_MMA && !single) return VPMmaLaunch(sm->dim, sm->k, sm->op_d, &sm->box, sm->vertex, start, end, b, x, target, omega, atomic, sm->tile_blocks);
  if (sm->kernel != VPC_KERNEL_GLOBAL) return VPTileLaunch(&sm->tile, single, single ? (const void *)sm->op_f : (const void *)sm->op_d, &sm->box, sm->vertex, start, end, b, x, target, omega, atomic, sm->tile_blocks);
  const int blocks = end - start < sm->nblocks ? end - start : sm->nblocks, threads = 128;
  if (single) VPSmoothKernel<float, VPCudaPatchOp_f><<<blocks, threads>>>(sm->op_f, sm->box, sm->k, sm->g, sm->vertex, start, end, b, x, target, omega, atomic, sm->scratch, sm->block_scratch);
  else VPSmoothKernel<double, VPCudaPatchOp_d><<<blocks, threads>>>(sm->op_d, sm->box, sm->k, sm->g, sm->vertex, start, end, b, x, target, omega, atomic, sm->scratch, sm->block_scratch);
  VP_CHECK(cudaGetLastError());
  return 0;
}

extern "C" int VPCudaSmootherColor(VPCudaSmoother sm, int start, int end, int single, double omega, const double *b, const double *x, double *target)
{
  return VPLaunch(sm, start, end, single, omega, b, x, target, false);
}

extern "C" int VPCudaSmootherColorResidual(VPCudaSmoother sm, int start, int end, int single, double omega, const double *r, double *target)
{
  return VPLaunch(sm, start, end, single, omega, r, nullptr, target, false);
}

extern "C" int VPCudaSmootherAdditive(VPCudaSmoother sm, int single, double omega, const double *b, const double *x, double *y)
{
  return VPLaunch(sm, 0, sm->npatches, single, omega, b, x, y, true);
}

extern "C" int VPCudaSmootherSetLines(VPCudaSmoother sm, int lines)
{
  size_t bytes_d, bytes_f;
  if (lines < -1 || lines > 3) return (int)cudaErrorInvalidValue;
  if (sm->c0ip || sm->kernel == VPC_KERNEL_GLOBAL || !sm->tile.pairable) return 0;
  VPTileSetLines(&sm->tile, lines);
  VP_CHECK((cudaError_t)VPTilePrepare(&sm->tile, &bytes_d, &bytes_f));
  return 0;
}

extern "C" int VPCudaSmootherSetMaxBlocks(VPCudaSmoother sm, int blocks)
{
  if (blocks < 0) return (int)cudaErrorInvalidValue;
  sm->tile_blocks = blocks ? blocks : 32 * sm->nsm;
  return 0;
}

extern "C" int VPCudaSmootherGetLines(VPCudaSmoother sm, int single)
{
  if (sm->c0ip || sm->kernel == VPC_KERNEL_GLOBAL || (sm->kernel == VPC_KERNEL_MMA && !single) || !sm->tile.pairable) return -1;
  return sm->tile.pl.lines[single ? 1 : 0];
}

extern "C" int VPCudaSmootherMmaWarp(VPCudaSmoother sm)
{
  return sm->kernel == VPC_KERNEL_MMA && VPMmaUseWarp(sm->dim, sm->k, sm->tile.pairable);
}

extern "C" double VPCudaSmootherResidualFlops(VPCudaSmoother sm, int single)
{
  const bool tile = sm->kernel == VPC_KERNEL_SHARED || (sm->kernel == VPC_KERNEL_MMA && single);
  const int  lines = sm->tile.pl.lines[single ? 1 : 0];
  return tile && !sm->c0ip && sm->tile.pairable && lines > 0 ? VPPairResidualFlops(sm->k, lines) : -1.0;
}

extern "C" int VPCudaSmootherDestroy(VPCudaSmoother *sm)
{
  if (!*sm) return 0;
  VP_CHECK(cudaFree((*sm)->op_d));
  VP_CHECK(cudaFree((*sm)->op_f));
  VP_CHECK(cudaFree((*sm)->vertex));
  if ((*sm)->scratch) VP_CHECK(cudaFree((*sm)->scratch));
  if ((*sm)->c0ip) VP_CHECK((cudaError_t)VPC0ipDestroy(&(*sm)->c0ip_layout));
  delete *sm;
  *sm = nullptr;
  return 0;
}
