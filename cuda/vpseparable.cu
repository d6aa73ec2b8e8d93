// The load vector and the L2 error of functions given as sums of products of 1D factors (see vpatch_cuda.h), on
// the GPU. The host tabulates the 1D factors (a few thousand values); the kernels combine them per DoF or per
// quadrature point, so no function is called per point and nothing of size N crosses the bus.
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include <cuda_runtime.h>

// offset of the table of (term t, direction d) in the packed array: terms one after the other, each x, y, z
static __host__ __device__ inline size_t VPSepOffset(const int len[3], int t, int d)
{
  return (size_t)t * (len[0] + len[1] + len[2]) + (d > 0 ? len[0] : 0) + (d > 1 ? len[1] : 0);
}

// y[e] = sum_t prod_d tab(t, d)[c_d n + i_d] for entry e = (cell c, point i of the cell): cells lexicographic over
// W, n^dim points per cell (n = 1: a box of nodes)
__global__ void VPSeparableFill(int dim, int n, int W0, int W1, int W2, int nterms, const double *__restrict__ tab, double *__restrict__ y)
{
  const int    W[3]   = {W0, W1, W2};
  const int    len[3] = {W0 * n, W1 * n, dim == 3 ? W2 * n : 1};
  const int    np     = dim == 3 ? n * n * n : n * n;
  const size_t total  = (size_t)W0 * W1 * W2 * np;

  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {
    const size_t cell = e / np;
    const int    p    = (int)(e - cell * np);
    const int    c[3] = {(int)(cell % W[0]), (int)((cell / W[0]) % W[1]), (int)(cell / ((size_t)W[0] * W[1]))};
    const int    i[3] = {p % n, (p / n) % n, p / (n * n)};
    double       s    = 0.0;
    for (int t = 0; t < nterms; t++) {
      double v = 1.0;
      for (int d = 0; d < dim; d++) v *= tab[VPSepOffset(len, t, d) + (size_t)c[d] * n + i[d]];
      s += v;
    }
    y[e] = s;
  }
}

static int VPSepGrid(size_t n)
{
  size_t b = (n + 255) / 256;
  return (int)(b > 65536 ? 65536 : (b ? b : 1));
}

extern "C" int VPCudaSeparableFill(int dim, int n, const int W[3], int nterms, const double *tab, double *y)
{
  const int    len[3] = {W[0] * n, W[1] * n, dim == 3 ? W[2] * n : 1};
  const size_t ntab   = (size_t)nterms * (len[0] + len[1] + len[2]);
  const size_t total  = (size_t)W[0] * W[1] * (dim == 3 ? W[2] : 1) * (dim == 3 ? n * n * n : n * n);
  double      *dtab   = NULL;

  if (!total) return 0;
  VP_CHECK(cudaMalloc(&dtab, ntab * sizeof(double)));
  VP_CHECK(cudaMemcpy(dtab, tab, ntab * sizeof(double), cudaMemcpyHostToDevice));
  VPSeparableFill<<<VPSepGrid(total), 256>>>(dim, n, W[0], W[1], dim == 3 ? W[2] : 1, nterms, dtab, y);
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaFree(dtab)); // synchronizes: the kernel is done when this returns
  return 0;
}

// One thread per owned cell: the cell's nodal values, interpolated to the NQ^dim Gauss points by three 1D
// contractions (x first, then y and z one x point at a time, so a thread keeps NQ N^2 + N NQ values), minus the
// exact solution from the tables, squared, weighted; a warp sum, then one atomic add per warp.
template <int K>
__global__ void VPSeparableL2(VPCudaSeparableL2Data g, const double *__restrict__ u, const double *__restrict__ tab, double *__restrict__ sum)
{
  constexpr int N = K + 1, NQ = K + 2;
  const int     dim    = g.dim;
  const int     len[3] = {g.cells[0] * NQ, g.cells[1] * NQ, dim == 3 ? g.cells[2] * NQ : 1};
  const int     nz     = dim == 3 ? N : 1, nqz = dim == 3 ? NQ : 1;
  const size_t  ncells = (size_t)g.cells[0] * g.cells[1] * (dim == 3 ? g.cells[2] : 1);
  double        acc    = 0.0;

  for (size_t cell = blockIdx.x * (size_t)blockDim.x + threadIdx.x; cell < ncells; cell += (size_t)gridDim.x * blockDim.x) {
    const int c[3] = {(int)(cell % g.cells[0]), (int)((cell / g.cells[0]) % g.cells[1]), (int)(cell / ((size_t)g.cells[0] * g.cells[1]))};
    double    tx[N * N * NQ]; // [iz][iy][qx]
    double    line[N];
    for (int iz = 0; iz < nz; iz++)
      for (int iy = 0; iy < N; iy++) {
        if (g.dg) {
          const size_t base = cell * (size_t)(dim == 3 ? N * N * N : N * N) + (size_t)(iz * N + iy) * N;
          for (int ix = 0; ix < N; ix++) line[ix] = u[base + ix];
        } else {
          // node (f_x, f_y, f_z) of the full grid; boundary nodes are zero, the others sit in the box of the array
          const int    fy = (g.c0[1] + c[1]) * K + iy, fz = dim == 3 ? (g.c0[2] + c[2]) * K + iz : 1;
          const bool   in = fy > 0 && fy < K * g.gcells[1] && (dim == 2 || (fz > 0 && fz < K * g.gcells[2]));
          const size_t row = in ? ((size_t)(fz - 1 - g.lo[2]) * g.m[1] + (fy - 1 - g.lo[1])) * g.m[0] : 0;
          for (int ix = 0; ix < N; ix++) {
            const int fx = (g.c0[0] + c[0]) * K + ix;
            line[ix]     = (in && fx > 0 && fx < K * g.gcells[0]) ? u[row + (fx - 1 - g.lo[0])] : 0.0;
          }
        }
        for (int qx = 0; qx < NQ; qx++) {
          double s = 0.0;
          for (int ix = 0; ix < N; ix++) s += g.B[qx * N + ix] * line[ix];
          tx[(iz * N + iy) * NQ + qx] = s;
        }
      }
    for (int qx = 0; qx < NQ; qx++) {
      double ty[N * NQ]; // [iz][qy]
      for (int iz = 0; iz < nz; iz++)
        for (int qy = 0; qy < NQ; qy++) {
          double s = 0.0;
          for (int iy = 0; iy < N; iy++) s += g.B[qy * N + iy] * tx[(iz * N + iy) * NQ + qx];
          ty[iz * NQ + qy] = s;
        }
      for (int qz = 0; qz < nqz; qz++)
        for (int qy = 0; qy < NQ; qy++) {
          double uh = 0.0, ex = 0.0;
          if (dim == 3)
            for (int iz = 0; iz < N; iz++) uh += g.B[qz * N + iz] * ty[iz * NQ + qy];
          else uh = ty[qy];
          for (int t = 0; t < g.nterms; t++) {
            double v = tab[VPSepOffset(len, t, 0) + (size_t)c[0] * NQ + qx] * tab[VPSepOffset(len, t, 1) + (size_t)c[1] * NQ + qy];
            if (dim == 3) v *= tab[VPSepOffset(len, t, 2) + (size_t)c[2] * NQ + qz];
            ex += v;
          }
          acc += g.w[0][qx] * g.w[1][qy] * (dim == 3 ? g.w[2][qz] : 1.0) * (uh - ex) * (uh - ex);
        }
    }
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0 && acc != 0.0) atomicAdd(sum, acc);
}

extern "C" int VPCudaSeparableL2Error(const VPCudaSeparableL2Data *g, const double *u, const double *tab, double *sum)
{
  const int    len[3] = {g->cells[0] * (g->k + 2), g->cells[1] * (g->k + 2), g->dim == 3 ? g->cells[2] * (g->k + 2) : 1};
  const size_t ntab   = (size_t)g->nterms * (len[0] + len[1] + len[2]);
  const size_t ncells = (size_t)g->cells[0] * g->cells[1] * (g->dim == 3 ? g->cells[2] : 1);
  const int    grid   = (int)((ncells + 127) / 128 > 32768 ? 32768 : (ncells + 127) / 128);
  double      *dtab = NULL, *dsum = NULL;

  *sum = 0.0;
  if (!ncells) return 0;
  if (g->k < 1 || g->k > 8) return (int)cudaErrorInvalidValue;
  VP_CHECK(cudaMalloc(&dtab, ntab * sizeof(double)));
  VP_CHECK(cudaMalloc(&dsum, sizeof(double)));
  VP_CHECK(cudaMemcpy(dtab, tab, ntab * sizeof(double), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemset(dsum, 0, sizeof(double)));
  switch (g->k) {
  case 1:
    VPSeparableL2<1><<<grid, 128>>>(*g, u, dtab, dsum);
    break;
  case 2:
    VPSeparableL2<2><<<grid, 128>>>(*g, u, dtab, dsum);
    break;
  case 3:
    VPSeparableL2<3><<<grid, 128>>>(*g, u, dtab, dsum);
    break;
  case 4:
    VPSeparableL2<4><<<grid, 128>>>(*g, u, dtab, dsum);
    break;
  case 5:
    VPSeparableL2<5><<<grid, 128>>>(*g, u, dtab, dsum);
    break;
  case 6:
    VPSeparableL2<6><<<grid, 128>>>(*g, u, dtab, dsum);
    break;
  case 7:
    VPSeparableL2<7><<<grid, 128>>>(*g, u, dtab, dsum);
    break;
  default:
    VPSeparableL2<8><<<grid, 128>>>(*g, u, dtab, dsum);
    break;
  }
  VP_CHECK(cudaGetLastError());
  VP_CHECK(cudaMemcpy(sum, dsum, sizeof(double), cudaMemcpyDeviceToHost));
  VP_CHECK(cudaFree(dtab));
  VP_CHECK(cudaFree(dsum));
  return 0;
}
