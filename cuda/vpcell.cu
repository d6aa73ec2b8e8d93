// The CG Q_k Laplacian applied cell by cell with atomic updates: per cell, gather the (k+1)^d nodes, apply
// A_K = sum_d (x) (K or M per direction) by sum factorization, and add the result into y with atomicAdd (the
// nodes on cell faces receive from up to 2^d cells). The degree is a template argument. In 3D a cell has
// (k+1)^2 threads (a, b), each owning the z line of the cell in registers (z contractions are thread-local, the
// x and y contractions read the cell's values from shared memory); in 2D a cell has k+1 threads, each owning a
// y line. Several cells share a block. One read of x per cell node and one atomic per cell node: the operator
// moves about (1 + 1/k)^d x 16 bytes per DoF instead of the multi-pass Kronecker kernels' intermediates.
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include <cuda_runtime.h>

struct VPCudaCellLaplace_s {
  int     dim, k, c0[3], cells[3], nblocks;
  VPCudaBox xb, yb; // where x and y lie: the input box (ghosted) and the output box (owned nodes)
  size_t  npts;     // points of y
  double *mk_d; // M[3][N*N] then K[3][N*N]
  float  *mk_f;
};

template <int K, int DIM>
struct VPCellTile {
  static constexpr int N       = K + 1;
  static constexpr int THREADS = DIM == 3 ? N * N : N;
  static constexpr int CELLS   = 128 / THREADS > 0 ? 128 / THREADS : 1;
  static constexpr int BLOCK   = CELLS * THREADS;
  static constexpr int WORDS   = DIM == 3 ? 3 * N * N * N : N * N; // shared words per cell
};

template <typename T, int N>
__device__ inline void VPCellRow(const T *__restrict__ A, int i, T (&r)[N])
{
#pragma unroll
  for (int j = 0; j < N; j++) r[j] = A[i * N + j];
}

// whether interior index i lies in the box along d
__device__ inline bool VPInBox(const VPCudaBox &b, int d, int i)
{
  return i >= b.lo[d] && i < b.lo[d] + b.m[d];
}

// position of interior node (i0, i1, i2) in an array holding box b
__device__ inline size_t VPBoxIndex(const VPCudaBox &b, int i0, int i1, int i2)
{
  return (size_t)(i0 - b.lo[0]) + (size_t)b.m[0] * ((size_t)(i1 - b.lo[1]) + (size_t)b.m[1] * (size_t)(i2 - b.lo[2]));
}

// y += A_K x on cell c (3D); mk: M[3][N*N] then K[3][N*N]; x and y lie in the boxes xb and yb (interior indices
// f - 1 of full-grid node f; boundary nodes are not stored), y only where yb holds the node
template <typename T, int K>
__device__ void VPCell3D(const T *__restrict__ mk, const VPCudaBox &xb, const VPCudaBox &yb, const int c[3], bool active, int lt, const double *__restrict__ x, double *y, T *mem)
{
  constexpr int N = K + 1, NN = N * N;
  const T      *M = mk, *Kd = mk + 3 * NN;
  const int     a = lt % N, b = lt / N;
  const int     f0 = c[0] * K + a, f1 = c[1] * K + b, base2 = c[2] * K; // full-grid nodes; interior index f - 1
  const bool    in01 = active && f0 > 0 && f0 <= xb.n[0] && f1 > 0 && f1 <= xb.n[1];
  const bool    out01 = in01 && VPInBox(yb, 0, f0 - 1) && VPInBox(yb, 1, f1 - 1);
  T            *u = mem, *XM = mem + N * NN, *XK = mem + 2 * N * NN;

#pragma unroll
  for (int z = 0; z < N; z++) {
    const int f2  = base2 + z;
    u[a + N * (b + N * z)] = (in01 && f2 > 0 && f2 <= xb.n[2]) ? (T)x[VPBoxIndex(xb, f0 - 1, f1 - 1, f2 - 1)] : (T)0;
  }
  __syncthreads();
  {
    T Ma[N], Ka[N];
    VPCellRow<T, N>(M, a, Ma);
    VPCellRow<T, N>(Kd, a, Ka);
#pragma unroll
    for (int z = 0; z < N; z++) {
      T sm = 0, sk = 0;
#pragma unroll
      for (int j = 0; j < N; j++) {
        const T v = u[j + N * (b + N * z)];
        sm += Ma[j] * v;
        sk += Ka[j] * v;
      }
      XM[a + N * (b + N * z)] = sm;
      XK[a + N * (b + N * z)] = sk;
    }
  }
  __syncthreads();
  {
    T Mb[N], Kb[N], t1[N], t3[N];
    VPCellRow<T, N>(M + NN, b, Mb);
    VPCellRow<T, N>(Kd + NN, b, Kb);
#pragma unroll
    for (int z = 0; z < N; z++) {
      T s1 = 0, s3 = 0;
#pragma unroll
      for (int j = 0; j < N; j++) {
        const T xm = XM[a + N * (j + N * z)], xk = XK[a + N * (j + N * z)];
        s1 += Mb[j] * xk + Kb[j] * xm; // (M_y K_x + K_y M_x) u
        s3 += Mb[j] * xm;              // M_y M_x u
      }
      t1[z] = s1;
      t3[z] = s3;
    }
#pragma unroll 1 /* a rolled loop: unrolled, the compiler keeps all 2 N^2 uniform matrix entries in registers */
    for (int z = 0; z < N; z++) {
      const int f2 = base2 + z;
      T         v  = 0;
#pragma unroll
      for (int j = 0; j < N; j++) v += M[2 * NN + z * N + j] * t1[j] + Kd[2 * NN + z * N + j] * t3[j];
      if (out01 && f2 > 0 && f2 <= xb.n[2] && VPInBox(yb, 2, f2 - 1)) atomicAdd(&y[VPBoxIndex(yb, f0 - 1, f1 - 1, f2 - 1)], (double)v);
    }
  }
  __syncthreads(); // the next cell of this block overwrites u, XM, XK
}

// y += A_K x on cell c (2D): thread a owns the y line x = a
template <typename T, int K>
__device__ void VPCell2D(const T *__restrict__ mk, const VPCudaBox &xb, const VPCudaBox &yb, const int c[3], bool active, int a, const double *__restrict__ x, double *y, T *u)
{
  constexpr int N = K + 1, NN = N * N;
  const T      *M = mk, *Kd = mk + 3 * NN;
  const int     f0 = c[0] * K + a, base1 = c[1] * K;
  const bool    in0 = active && f0 > 0 && f0 <= xb.n[0];
  const bool    out0 = in0 && VPInBox(yb, 0, f0 - 1);
  T             Ma[N], Ka[N], xm[N], xk[N];

#pragma unroll
  for (int yy = 0; yy < N; yy++) {
    const int f1 = base1 + yy;
    u[a + N * yy] = (in0 && f1 > 0 && f1 <= xb.n[1]) ? (T)x[VPBoxIndex(xb, f0 - 1, f1 - 1, 0)] : (T)0;
  }
  __syncthreads();
  VPCellRow<T, N>(M, a, Ma);
  VPCellRow<T, N>(Kd, a, Ka);
#pragma unroll
  for (int yy = 0; yy < N; yy++) {
    T sm = 0, sk = 0;
#pragma unroll
    for (int j = 0; j < N; j++) {
      sm += Ma[j] * u[j + N * yy];
      sk += Ka[j] * u[j + N * yy];
    }
    xm[yy] = sm;
    xk[yy] = sk;
  }
#pragma unroll 1 /* as in 3D: keeps the y matrices out of registers */
  for (int yy = 0; yy < N; yy++) {
    const int f1 = base1 + yy;
    T         v  = 0;
#pragma unroll
    for (int j = 0; j < N; j++) v += M[NN + yy * N + j] * xk[j] + Kd[NN + yy * N + j] * xm[j]; // M_y K_x + K_y M_x
    if (out0 && f1 > 0 && f1 <= xb.n[1] && VPInBox(yb, 1, f1 - 1)) atomicAdd(&y[VPBoxIndex(yb, f0 - 1, f1 - 1, 0)], (double)v);
  }
  __syncthreads();
}

template <typename T, int K, int DIM>
__global__ void __launch_bounds__(VPCellTile<K, DIM>::BLOCK) VPCellKernel(const T *__restrict__ mk, int3 first_cell, int3 cells, VPCudaBox xb, VPCudaBox yb, const double *__restrict__ x, double *y)
{
  using CT = VPCellTile<K, DIM>;
  __shared__ T mem[CT::CELLS * CT::WORDS];
  const int    pc = threadIdx.x / CT::THREADS, lt = threadIdx.x % CT::THREADS;
  const size_t ncells = (size_t)cells.x * cells.y * cells.z;
  for (size_t first = (size_t)blockIdx.x * CT::CELLS; first < ncells; first += (size_t)gridDim.x * CT::CELLS) {
    const size_t id     = first + pc;
    const bool   active = id < ncells;
    const int    c[3]   = {first_cell.x + (int)(id % cells.x), first_cell.y + (int)((id / cells.x) % cells.y), first_cell.z + (int)(id / ((size_t)cells.x * cells.y))};
    if constexpr (DIM == 3) VPCell3D<T, K>(mk, xb, yb, c, active, lt, x, y, mem + pc * CT::WORDS);
    else VPCell2D<T, K>(mk, xb, yb, c, active, lt, x, y, mem + pc * CT::WORDS);
  }
}

template <typename T, int K, int DIM>
static int VPCellLaunch(VPCudaCellLaplace op, const T *mk, const double *x, double *y)
{
  using CT            = VPCellTile<K, DIM>;
  const size_t ncells = (size_t)op->cells[0] * op->cells[1] * op->cells[2];
  const size_t need   = (ncells + CT::CELLS - 1) / CT::CELLS;
  const int    blocks = (int)(need < (size_t)op->nblocks ? need : (size_t)op->nblocks);
  if (ncells == 0) return 0;
  VPCellKernel<T, K, DIM><<<blocks, CT::BLOCK>>>(mk, make_int3(op->c0[0], op->c0[1], op->c0[2]), make_int3(op->cells[0], op->cells[1], op->cells[2]), op->xb, op->yb, x, y);
  VP_CHECK(cudaGetLastError());
  return 0;
}

template <typename T>
static int VPCellDispatch(VPCudaCellLaplace op, const T *mk, const double *x, double *y)
{
#define VP_CELL_CASE(K) \
  case K: \
    return op->dim == 3 ? VPCellLaunch<T, K, 3>(op, mk, x, y) : VPCellLaunch<T, K, 2>(op, mk, x, y);
  switch (op->k) {
    VP_CELL_CASE(1)
    VP_CELL_CASE(2)
    VP_CELL_CASE(3)
    VP_CELL_CASE(4)
    VP_CELL_CASE(5)
    VP_CELL_CASE(6)
    VP_CELL_CASE(7)
    VP_CELL_CASE(8)
  default:
    return (int)cudaErrorInvalidValue;
  }
#undef VP_CELL_CASE
}

extern "C" int VPCudaCellLaplaceCreate(int dim, int k, const int c0[3], const int cells[3], const VPCudaBox *xbox, const VPCudaBox *ybox, const double *const M[3], const double *const K[3], VPCudaCellLaplace *out)
{
  const int      N = k + 1, NN = N * N;
  double         hd[6 * 81];
  float          hf[6 * 81];
  int            dev, nsm;
  if (k < 1 || k > 8 || (dim != 2 && dim != 3)) return (int)cudaErrorInvalidValue;
  VPCudaCellLaplace op = new VPCudaCellLaplace_s();
  op->dim              = dim;
  op->k                = k;
  op->npts             = 1;
  op->xb               = *xbox;
  op->yb               = *ybox;
  for (int d = 0; d < 3; d++) {
    op->c0[d]    = d < dim ? c0[d] : 0;
    op->cells[d] = d < dim ? cells[d] : 1;
    op->npts *= (size_t)ybox->m[d];
  }
  // direction d < dim: its matrices; a missing third direction is never read (2D reads M and K of x and y only)
  for (int d = 0; d < 3; d++)
    for (int i = 0; i < NN; i++) {
      hd[d * NN + i]          = d < dim ? M[d][i] : 0.0;
      hd[3 * NN + d * NN + i] = d < dim ? K[d][i] : 0.0;
    }
  for (int i = 0; i < 6 * NN; i++) hf[i] = (float)hd[i];
  VP_CHECK(cudaGetDevice(&dev));
  VP_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  op->nblocks = 32 * nsm;
  VP_CHECK(cudaMalloc(&op->mk_d, 6 * NN * sizeof(double)));
  VP_CHECK(cudaMalloc(&op->mk_f, 6 * NN * sizeof(float)));
  VP_CHECK(cudaMemcpy(op->mk_d, hd, 6 * NN * sizeof(double), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMemcpy(op->mk_f, hf, 6 * NN * sizeof(float), cudaMemcpyHostToDevice));
  *out = op;
  return 0;
}

extern "C" int VPCudaCellLaplaceApply(VPCudaCellLaplace op, int single, const double *x, double *y)
{
  if (op->npts) VP_CHECK(cudaMemsetAsync(y, 0, op->npts * sizeof(double)));
  return single ? VPCellDispatch<float>(op, op->mk_f, x, y) : VPCellDispatch<double>(op, op->mk_d, x, y);
}

extern "C" int VPCudaCellLaplaceDestroy(VPCudaCellLaplace *op)
{
  if (!*op) return 0;
  VP_CHECK(cudaFree((*op)->mk_d));
  VP_CHECK(cudaFree((*op)->mk_f));
  delete *op;
  *op = nullptr;
  return 0;
}
