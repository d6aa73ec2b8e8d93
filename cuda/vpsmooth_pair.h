// Internal to cuda/: the 3D Laplacian's vertex-patch smoothing step with two lines per thread (vpsmooth_pair.cu), used by
// vpsmooth_tile.cu in place of its one-line 3D kernel where the terms are the Laplacian's and k >= 2.
#pragma once
#include "vpatch_cuda.h"
#include <cstddef>

struct VPPairLayout {
  int k;
  int km, kk;    // the kinds of the mass and of the stiffness matrices
  int term[3];   // term[d]: the term with the stiffness matrix along d (its coefficient scales that part)
  int lines[2];  // the thread layout of the double and of the float steps: lines per thread (1 or 2), 3 (one line, the x step
                 // folded at the vertex: VPPairFoldX), 0 (the generic kernel)
};

// 1 when op is 3D with the Laplacian's three terms (stiffness along one direction, mass along the other two),
// 2 <= k <= 8, and its 1D matrices have the zeros of two cells (VPPairZero); it then fills layout. 0 otherwise.
int VPPairLayoutCreate(const VPCudaPatchOp_d *op, int k, VPPairLayout *layout);
// the thread layout of both precisions: 1 or 2 lines per thread, 3 (one line, folded x step), 0 (vpsmooth_tile.cu's
// one-line kernel runs the steps), or -1 for the defaults by degree and precision (VPPairLayoutCreate's)
void VPPairSetLines(VPPairLayout *layout, int lines);
// raises the dynamic shared-memory limit of the kernels this layout uses; bytes per block of each precision. Where the
// device allows less shared memory per block than a precision's kernel needs, that precision falls back to the generic
// kernel (lines 0).
int VPPairPrepare(VPPairLayout *layout, size_t *bytes_d, size_t *bytes_f);
// the patches [start, end) of the processing order, one step (see VPCudaSmootherColor / Additive)
int VPPairLaunch(const VPPairLayout *layout, int single, const void *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks);
// the same on a forest's patches [start, end) (3D: 8 cells each in patchcell, their nodes' local-vector positions in node,
// (k+1)^3 a cell; one call's interiors disjoint: plain updates)
int VPPairLaunchTable(const VPPairLayout *layout, int single, const void *op, const int *patchcell, const int *node, int start, int end, const double *b, const double *x, double *target, double omega, int maxblocks);
// flops of one patch's local residual as the layout lines (1, 2, 3) computes it (two z contractions instead of three,
// without the zeros of M_z and K_z; with 3 the x step without those of K_x and M_x)
double VPPairResidualFlops(int k, int lines);
