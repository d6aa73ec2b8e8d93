// Internal to cuda/: the device array of the patches' vertices that the smoothing kernels read, made from the
// schedule's boxes (VPCudaPatchBox) on the device: the host keeps no per-patch array.
#pragma once
#include "vpatch_cuda.h"

// vertex: 3 ints per patch (device, box[nbox].first patches) from the nbox boxes and the sentinel of the host list box;
// with base non-NULL also base[p] = dof sum_{d < dim} (v_d - 1 - gstart[d]) gstride[d] (the DG steps' first value)
int VPPatchBoxesFill(const VPCudaPatchBox *box, int nbox, int *vertex, int dim, const int gstart[3], const int gstride[3], int dof, int *base);
