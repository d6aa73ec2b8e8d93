// Internal to cuda/: the shared-memory vertex-patch smoothing kernel of the C0 interior-penalty biharmonic in 3D
// (vpsmooth_c0ip.cu), used by vpsmooth.cu where VPC0ipSupported() holds.
#pragma once
#include "vpatch_cuda.h"
#include <cstddef>

// per kind of 1D matrix: the offset of its x-contraction array in shared memory (-1: not an x-kind; xwords in all),
// whether its columns reach past the patch cells (wide), and, for an x-kind, whether a term needs its y-arm or z-arm
// lines (only then does its array hold them); the padded matrices on the device
struct VPC0ipLayout {
  int     k, xwords, xoff[VPC_KINDS], wide[VPC_KINDS], needy[VPC_KINDS], needz[VPC_KINDS];
  int     stride[2];     // shared words per patch, double and float
  int     order, gstart; // the terms by group of threads, then by z kind (4 bits per term), and the groups' starts in it
  int     xfused;        // the x contractions of the three x-kinds together: 1 | wide kind << 1 | narrow kinds << 3, << 5; or 0
  double *R_d;
  float  *R_f;
};

// the layout and the padded matrices; cudaErrorNotSupported where the patch does not fit the device's shared memory
int VPC0ipCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, int k, VPC0ipLayout *layout);
// the patches [start, end) of the processing order, one step (see VPCudaSmootherColor / Additive)
int VPC0ipLaunch(const VPC0ipLayout *layout, int single, const void *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks);
int VPC0ipDestroy(VPC0ipLayout *layout);
