// The block-wide 1D contraction of the GPU patch and cell kernels (vpsmooth.cu, vpforest.cu).
#pragma once

// out = A (nrows x ncols) along dir on in's nodes [off, off + ncols); all threads of the block, then a barrier
template <typename T>
__device__ void VPContract(int dir, const int ext[3], int nrows, int off, int ncols, const T *A, const T *in, T *out)
{
  int inner = 1, outer = 1;
  for (int d = 0; d < dir; d++) inner *= ext[d];
  for (int d = dir + 1; d < 3; d++) outer *= ext[d];
  const int n = ext[dir], total = outer * nrows * inner;
  for (int p = threadIdx.x; p < total; p += blockDim.x) {
    const int s = p % inner, i = (p / inner) % nrows, o = p / (inner * nrows);
    const T  *src = in + (o * n + off) * inner + s;
    const T  *row = A + i * ncols;
    T         acc = 0;
    for (int j = 0; j < ncols; j++) acc += row[j] * src[j * inner];
    out[p] = acc;
  }
  __syncthreads();
}

