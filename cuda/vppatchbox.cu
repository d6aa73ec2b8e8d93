// The patches' vertices on the device from the schedule's boxes (vppatchbox.h): one thread per patch, the box by a
// binary search over the few boxes, the vertex by VPCudaPatchBoxVertex's index arithmetic.
#include "vppatchbox.h"
#include "vpcuda_check.h"

struct VPPatchBoxArgs {
  int dim, dof, gstart[3], gstride[3];
};

__global__ void VPPatchBoxesKernel(const VPCudaPatchBox *__restrict__ box, int nbox, VPPatchBoxArgs a, int *vertex, int *base)
{
  const int n = box[nbox].first;
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
    const int b = VPCudaPatchBoxOf(box, nbox, p);
    int       v[3];
    VPCudaPatchBoxVertex(&box[b], p - box[b].first, v);
    for (int d = 0; d < 3; d++) vertex[3 * p + d] = v[d];
    if (base) {
      int o = 0;
      for (int d = 0; d < a.dim; d++) o += (v[d] - 1 - a.gstart[d]) * a.gstride[d];
      base[p] = o * a.dof;
    }
  }
}

int VPPatchBoxesFill(const VPCudaPatchBox *box, int nbox, int *vertex, int dim, const int gstart[3], const int gstride[3], int dof, int *base)
{
  const int       n = box[nbox].first;
  VPCudaPatchBox *dbox;
  VPPatchBoxArgs  a = {dim, dof, {0, 0, 0}, {0, 0, 0}};

  if (n <= 0) return 0;
  for (int d = 0; d < 3 && gstart; d++) {
    a.gstart[d]  = gstart[d];
    a.gstride[d] = gstride[d];
  }
  VP_CHECK(cudaMalloc(&dbox, (size_t)(nbox + 1) * sizeof(VPCudaPatchBox)));
  VP_CHECK(cudaMemcpy(dbox, box, (size_t)(nbox + 1) * sizeof(VPCudaPatchBox), cudaMemcpyHostToDevice));
  VPPatchBoxesKernel<<<(n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096, 256>>>(dbox, nbox, a, vertex, base);
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaFree(dbox)); // stream-ordered after the kernel
  return 0;
}
