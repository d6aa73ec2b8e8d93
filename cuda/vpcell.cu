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
#include <cstring>

struct VPCudaCellLaplace_s {
  int     dim, k, c0[3], cells[3], nblocks;
  int    *node;   // a forest's cell-node table (device; NULL on a box): cells[0] cells, (k+1)^dim entries each
  double *celldiag; // a forest's element matrix diagonal (device, (k+1)^dim)
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

// Where a cell's nodes lie, for the cell functions below: in(a, b, z) is the position in x of the cell's node (a, b, z)
// (x fastest; -1: not stored, reads zero) and out(a, b, z) its position in y (-1: not written). Box: a rank's box of
// interior nodes (full-grid node f has interior index f - 1; boundary nodes are not stored), y only on the owned box.
struct VPBoxCellAddr {
  const VPCudaBox &xb, &yb;
  int              c[3];
  bool             three; // 3D (in 2D the third index is 0 and not checked)
  template <int K>
  __device__ inline long in(int a, int b, int z) const
  {
    const int f0 = c[0] * K + a, f1 = c[1] * K + b, f2 = three ? c[2] * K + z : 1;
    return (f0 > 0 && f0 <= xb.n[0] && f1 > 0 && f1 <= xb.n[1] && f2 > 0 && (!three || f2 <= xb.n[2])) ? (long)VPBoxIndex(xb, f0 - 1, f1 - 1, f2 - 1) : -1;
  }
  template <int K>
  __device__ inline long out(int a, int b, int z) const
  {
    const int f0 = c[0] * K + a, f1 = c[1] * K + b, f2 = three ? c[2] * K + z : 1;
    return (in<K>(a, b, z) >= 0 && VPInBox(yb, 0, f0 - 1) && VPInBox(yb, 1, f1 - 1) && (!three || VPInBox(yb, 2, f2 - 1))) ? (long)VPBoxIndex(yb, f0 - 1, f1 - 1, f2 - 1) : -1;
  }
};

// A forest's cell (src/dm/brickforest.c): its nodes' local-vector positions from the cell-node table, x and y both local
struct VPTableCellAddr {
  const int *node; // the cell's (K+1)^dim entries, -1 on the Dirichlet boundary
  template <int K>
  __device__ inline long in(int a, int b, int z) const
  {
    return node ? node[a + (K + 1) * (b + (K + 1) * z)] : -1;
  }
  template <int K>
  __device__ inline long out(int a, int b, int z) const
  {
    return in<K>(a, b, z);
  }
};

// y += A_K x on one cell (3D); mk: M[3][N*N] then K[3][N*N]; ad says where its nodes lie in x and y
template <typename T, int K, typename Addr>
__device__ void VPCell3D(const T *__restrict__ mk, const Addr &ad, bool active, int lt, const double *__restrict__ x, double *y, T *mem)
{
  constexpr int N = K + 1, NN = N * N;
  const T      *M = mk, *Kd = mk + 3 * NN;
  const int     a = lt % N, b = lt / N;
  T            *u = mem, *XM = mem + N * NN, *XK = mem + 2 * N * NN;

#pragma unroll
  for (int z = 0; z < N; z++) {
    const long i           = active ? ad.template in<K>(a, b, z) : -1;
    u[a + N * (b + N * z)] = i >= 0 ? (T)x[i] : (T)0;
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
      const long o = active ? ad.template out<K>(a, b, z) : -1;
      T          v = 0;
#pragma unroll
      for (int j = 0; j < N; j++) v += M[2 * NN + z * N + j] * t1[j] + Kd[2 * NN + z * N + j] * t3[j];
      if (o >= 0) atomicAdd(&y[o], (double)v);
    }
  }
  __syncthreads(); // the next cell of this block overwrites u, XM, XK
}

// y += A_K x on one cell (2D): thread a owns the y line x = a
template <typename T, int K, typename Addr>
__device__ void VPCell2D(const T *__restrict__ mk, const Addr &ad, bool active, int a, const double *__restrict__ x, double *y, T *u)
{
  constexpr int N = K + 1, NN = N * N;
  const T      *M = mk, *Kd = mk + 3 * NN;
  T             Ma[N], Ka[N], xm[N], xk[N];

#pragma unroll
  for (int yy = 0; yy < N; yy++) {
    const long i  = active ? ad.template in<K>(a, yy, 0) : -1;
    u[a + N * yy] = i >= 0 ? (T)x[i] : (T)0;
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
    const long o = active ? ad.template out<K>(a, yy, 0) : -1;
    T          v = 0;
#pragma unroll
    for (int j = 0; j < N; j++) v += M[NN + yy * N + j] * xk[j] + Kd[NN + yy * N + j] * xm[j]; // M_y K_x + K_y M_x
    if (o >= 0) atomicAdd(&y[o], (double)v);
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
    const VPBoxCellAddr ad = {xb, yb, {first_cell.x + (int)(id % cells.x), first_cell.y + (int)((id / cells.x) % cells.y), first_cell.z + (int)(id / ((size_t)cells.x * cells.y))}, DIM == 3};
    if constexpr (DIM == 3) VPCell3D<T, K>(mk, ad, active, lt, x, y, mem + pc * CT::WORDS);
    else VPCell2D<T, K>(mk, ad, active, lt, x, y, mem + pc * CT::WORDS);
  }
}

// the same on a forest's cells: cell id's nodes from the table, x and y local vectors
template <typename T, int K, int DIM>
__global__ void __launch_bounds__(VPCellTile<K, DIM>::BLOCK) VPCellTableKernel(const T *__restrict__ mk, int ncells, const int *__restrict__ node, const double *__restrict__ x, double *y)
{
  using CT = VPCellTile<K, DIM>;
  constexpr int NV = DIM == 3 ? (K + 1) * (K + 1) * (K + 1) : (K + 1) * (K + 1);
  __shared__ T  mem[CT::CELLS * CT::WORDS];
  const int     pc = threadIdx.x / CT::THREADS, lt = threadIdx.x % CT::THREADS;
  for (size_t first = (size_t)blockIdx.x * CT::CELLS; first < (size_t)ncells; first += (size_t)gridDim.x * CT::CELLS) {
    const size_t          id     = first + pc;
    const bool            active = id < (size_t)ncells;
    const VPTableCellAddr ad     = {active ? node + id * NV : nullptr};
    if constexpr (DIM == 3) VPCell3D<T, K>(mk, ad, active, lt, x, y, mem + pc * CT::WORDS);
    else VPCell2D<T, K>(mk, ad, active, lt, x, y, mem + pc * CT::WORDS);
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
  if (op->node) {
    VPCellTableKernel<T, K, DIM><<<blocks, CT::BLOCK>>>(mk, op->cells[0], op->node, x, y);
    VP_CHECK(cudaGetLastError());
    return 0;
  }
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

// a forest's operator: ncells cells whose nodes lie at node[] (host, (k+1)^dim per cell) in local vectors of nlocal entries
extern "C" int VPCudaCellLaplaceCreateTable(int dim, int k, int ncells, const int *node, size_t nlocal, const double *const M[3], const double *const K[3], VPCudaCellLaplace *out)
{
  const int c0[3] = {0, 0, 0}, cells[3] = {ncells, 1, 1}, N = k + 1, nv = dim == 3 ? N * N * N : N * N;
  VPCudaBox box;
  double    diag[729];
  int       err;
  memset(&box, 0, sizeof(box));
  box.m[0] = box.m[1] = box.m[2] = 1;
  if ((err = VPCudaCellLaplaceCreate(dim, k, c0, cells, &box, &box, M, K, out))) return err;
  (*out)->cells[0] = ncells;
  (*out)->cells[1] = (*out)->cells[2] = 1;
  (*out)->npts     = nlocal;
  for (int i = 0; i < nv; i++) {
    const int ii[3] = {i % N, (i / N) % N, i / (N * N)};
    double    sum   = 0;
    for (int d = 0; d < dim; d++) {
      double p = 1;
      for (int e = 0; e < dim; e++) p *= (e == d ? K[e] : M[e])[ii[e] * N + ii[e]];
      sum += p;
    }
    diag[i] = sum;
  }
  VP_CHECK(cudaMalloc(&(*out)->node, (size_t)(ncells > 0 ? ncells : 1) * nv * sizeof(int)));
  VP_CHECK(cudaMemcpy((*out)->node, node, (size_t)ncells * nv * sizeof(int), cudaMemcpyHostToDevice));
  VP_CHECK(cudaMalloc(&(*out)->celldiag, nv * sizeof(double)));
  VP_CHECK(cudaMemcpy((*out)->celldiag, diag, nv * sizeof(double), cudaMemcpyHostToDevice));
  return 0;
}

__global__ void VPCellTableDiagonal(int ncells, int nv, const int *__restrict__ node, const double *__restrict__ celldiag, double *y)
{
  for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < (size_t)ncells * nv; p += (size_t)gridDim.x * blockDim.x) {
    const int i = node[p];
    if (i >= 0) atomicAdd(&y[i], celldiag[p % nv]);
  }
}

// a forest operator's diagonal in a local vector (the sum of its cells' element diagonals)
extern "C" int VPCudaCellLaplaceDiagonal(VPCudaCellLaplace op, double *y)
{
  const int N = op->k + 1, nv = op->dim == 3 ? N * N * N : N * N;
  if (!op->node) return (int)cudaErrorInvalidValue;
  if (op->npts) VP_CHECK(cudaMemsetAsync(y, 0, op->npts * sizeof(double)));
  if (op->cells[0]) {
    VPCellTableDiagonal<<<op->nblocks, 256>>>(op->cells[0], nv, op->node, op->celldiag, y);
    VP_CHECK(cudaGetLastError());
  }
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
  VP_CHECK(cudaFree((*op)->node));
  VP_CHECK(cudaFree((*op)->celldiag));
  VP_CHECK(cudaFree((*op)->mk_d));
  VP_CHECK(cudaFree((*op)->mk_f));
  delete *op;
  *op = nullptr;
  return 0;
}
