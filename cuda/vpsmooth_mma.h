// Internal to cuda/: the vertex-patch smoothing step of double precision on the FP64 tensor cores (vpsmooth_mma.cu),
// for the operators of the shared-memory kernel (VPCudaSmootherSharedSupported: the patch closure is the patch).
#pragma once
#include "vpatch_cuda.h"
#include <cstddef>

// D (8 x 8) += A (8 x 4) B (4 x 8) on the FP64 tensor cores. Lane l holds A[l/4][l%4], B[l%4][l/4], and D[l/4][2(l%4) + {0, 1}].
__device__ inline void VPDmma(double &d0, double &d1, double a, double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
#else
  __trap(); // never launched: VPMmaSupported refuses older devices
#endif
}

// 0 when the current device runs FP64 MMA (compute capability 8.0 or newer), else cudaErrorNotSupported
int VPMmaSupported(void);
// raises the dynamic shared-memory limit of the kernel of (dim, k); bytes: per block
int VPMmaPrepare(int dim, int k, size_t *bytes);
// the patches [start, end) of the processing order, one step (see VPCudaSmootherColor / Additive); double only
int VPMmaLaunch(int dim, int k, const VPCudaPatchOp_d *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks);
// the steps of the 3D Laplacian (layout: VPPairLayoutCreate's) of degree 2 and 3 with one patch per warp
// (vpsmooth_mmawarp.cu): whether (dim, k) has it, its shared memory (bytes per block of one warp), its launch (every
// update of the target is an atomic add, so atomic is not used)
int VPMmaWarpSupported(int dim, int k);
int VPMmaWarpPrepare(int k, size_t *bytes);
struct VPPairLayout;
int VPMmaWarpLaunch(const VPPairLayout *layout, const VPCudaPatchOp_d *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks);
