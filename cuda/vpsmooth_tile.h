// Internal to cuda/: the shared-memory ("tile") variant of the vertex-patch smoothing kernel (vpsmooth_tile.cu),
// used by vpsmooth.cu for operators whose patch closure is the patch itself (one ghost cell: laplace).
#pragma once
#include "vpatch_cuda.h"
#include "vpsmooth_pair.h"
#include <cstddef>

// the x-direction kinds of the residual's terms get one shared array each; slot[kind] is its index or -1
struct VPTileLayout {
  int dim, k, nkx, slot[VPC_KINDS];
  int stride[2]; // shared words per patch, double and float
  int pairable;  // 3D laplace, k >= 2: vpsmooth_pair.cu's kernel runs the steps of a precision whose pl.lines is 1 or 2
  VPPairLayout pl;
};

// for operators with VPCudaSmootherSharedSupported()
void VPTileLayoutCreate(const VPCudaPatchOp_d *op, int k, VPTileLayout *layout);
// lines per thread where pairable (see VPCudaSmootherSetLines): 0 the one-line kernel of this file, 1 or 2 that of
// vpsmooth_pair.cu, -1 by degree and precision
void VPTileSetLines(VPTileLayout *layout, int lines);
// raises the dynamic shared-memory limit of the kernels this layout uses (where vpsmooth_pair.cu's kernel does not fit
// the device, the generic one runs instead); bytes per block of each precision of the generic kernel
int VPTilePrepare(VPTileLayout *layout, size_t *bytes_d, size_t *bytes_f);
// the patches [start, end) of the processing order, one step (see VPCudaSmootherColor / Additive)
int VPTileLaunch(const VPTileLayout *layout, int single, const void *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks);
// the same kernel on a forest's patches [start, end) (their cells in patchcell, 2^dim each; their nodes' positions in the
// local vectors in node, (k+1)^dim per cell; the interiors of one call's patches disjoint: plain updates)
int VPTileLaunchTable(const VPTileLayout *layout, int single, const void *op, const int *patchcell, const int *node, int start, int end, const double *b, const double *x, double *target, double omega, int maxblocks);
