// The fast-diagonalization solve of one patch on the GPU (vpforest.cu, vpforestc0ip.cu): z = S Lambda^-1 S^T r with the
// patch operator's eigenvectors and eigenvalues of position class cls[d] along each direction; a, bb scratch (ni^dim each),
// all threads of the block, r kept.
#pragma once
#include "vpcontract.h"

template <typename T, typename Op>
__device__ void VPFDMSolve(const Op *op, const int cls[3], const T *r, T *a, T *bb, T *z)
{
  const int dim = op->dim, ni = op->ni, nint = dim == 3 ? ni * ni * ni : ni * ni;
  const int ext[3] = {ni, ni, dim == 3 ? ni : 1};

  VPContract<T>(0, ext, ni, 0, ni, op->St[0][cls[0]], r, a);
  VPContract<T>(1, ext, ni, 0, ni, op->St[1][cls[1]], a, bb);
  if (dim == 3) VPContract<T>(2, ext, ni, 0, ni, op->St[2][cls[2]], bb, a);
  else {
    for (int q = threadIdx.x; q < nint; q += blockDim.x) a[q] = bb[q];
    __syncthreads();
  }
  for (int q = threadIdx.x; q < nint; q += blockDim.x) {
    const int i = q % ni, j = (q / ni) % ni, l = q / (ni * ni);
    a[q] /= op->lambda[0][cls[0]][i] + op->lambda[1][cls[1]][j] + (dim == 3 ? op->lambda[2][cls[2]][l] : (T)0);
  }
  __syncthreads();
  VPContract<T>(0, ext, ni, 0, ni, op->S[0][cls[0]], a, bb);
  if (dim == 3) {
    VPContract<T>(1, ext, ni, 0, ni, op->S[1][cls[1]], bb, a);
    VPContract<T>(2, ext, ni, 0, ni, op->S[2][cls[2]], a, z);
  } else VPContract<T>(1, ext, ni, 0, ni, op->S[1][cls[1]], bb, z);
}
