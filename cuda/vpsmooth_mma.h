// Internal to cuda/: the vertex-patch smoothing step of double precision on the FP64 tensor cores (vpsmooth_mma.cu),
// for the operators of the shared-memory kernel (VPCudaSmootherSharedSupported: the patch closure is the patch).
#pragma once
#include "vpatch_cuda.h"
#include <cstddef>

// 0 when the current device runs FP64 MMA (compute capability 8.0 or newer), else cudaErrorNotSupported
int VPMmaSupported(void);
// raises the dynamic shared-memory limit of the kernel of (dim, k); bytes: per block
int VPMmaPrepare(int dim, int k, size_t *bytes);
// the patches [start, end) of the processing order, one step (see VPCudaSmootherColor / Additive); double only
int VPMmaLaunch(int dim, int k, const VPCudaPatchOp_d *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks);
