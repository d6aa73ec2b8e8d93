// The vertex-patch smoothing step with the patch data in shared memory (seed 003 section 4.1, seed 002
// section 5.1), for operators whose closure is the patch's 2^d cells (one ghost cell: the CG Laplacian).
// The degree is a template argument, so every loop over a 1D extent (NE = 2k+1 closure nodes, NI = 2k-1
// interior ones) is unrolled and the per-thread lines live in registers.
//
// Work layout. A patch has NI x NE threads (a, q): a the x index, q the y index. In 3D each thread owns the
// line of the patch along z, in registers, so every contraction along z is local to the thread; in 2D each
// thread owns one point and every contraction goes through shared memory. The contractions through shared
// memory read the intermediate arrays in one of two patterns: the index that varies across consecutive
// threads is the thread's own x index (consecutive words: conflict free), or the contracted index with the
// thread's own y index as a stride of NI or NE words (both odd, so a half warp's doubles fall in distinct banks;
// equal addresses are broadcast). Writes are always x + NI*y (+ ...), consecutive across consecutive threads.
// Several patches share a block at low degree; the per-patch stride of the shared arrays is padded so that the
// patches of one warp conflict least (VPTileStride counts the conflicts of each padding on the host).
//
// Per patch: the closure of x (NE^d) and one array per x-direction kind (NI x NE^(d-1)) for the residual; the
// two fast-diagonalization buffers (NI^d) reuse them. The 1D matrices stay in the operator struct in global
// memory: in 3D each thread keeps its row of the current matrix in registers, and the z-direction matrices are
// read with the same address by all threads of a patch (L1 broadcast).
#include "vpsmooth_tile.h"
#include "vpcuda_check.h"
#include <cuda_runtime.h>

template <int K, int DIM>
struct VPTile {
  static constexpr int NE      = 2 * K + 1;
  static constexpr int NI      = 2 * K - 1;
  static constexpr int THREADS = NI * NE;                               // per patch: (a, q), a < NI, q < NE
  static constexpr int PATCHES = 128 / THREADS > 0 ? 128 / THREADS : 1; // per block
  static constexpr int BLOCK   = PATCHES * THREADS;
};

// Extra shared-memory wavefronts of one access pattern over one block: addr(t, &active) gives thread t's word
// offset. A warp's request of 8-byte words is served per half warp over 16 bank pairs, of 4-byte words per warp
// over 32 banks; a request takes as many wavefronts as the most distinct words falling in one bank.
template <typename F>
static long VPTileExtraWavefronts(int wordbytes, int block, F addr)
{
  const int group = wordbytes == 8 ? 16 : 32, banks = group;
  long      extra = 0;
  for (int t0 = 0; t0 < block; t0 += group) {
    int words[32], n = 0, most = 0;
    for (int t = t0; t < t0 + group && t < block; t++) {
      bool      active = true;
      const int w      = addr(t, &active);
      bool      seen   = false;
      if (!active) continue;
      for (int i = 0; i < n && !seen; i++) seen = words[i] == w;
      if (!seen) words[n++] = w;
    }
    for (int b = 0; b < banks; b++) {
      int c = 0;
      for (int i = 0; i < n; i++) c += ((words[i] % banks) + banks) % banks == b;
      most = c > most ? c : most;
    }
    if (most > 1) extra += most - 1;
  }
  return extra;
}

// Modelled extra shared-memory wavefronts of one block per patch step with the per-patch stride S. The patterns
// are those of VPTilePatch3D/2D (only the part of the word offset that varies across threads matters), weighted
// by how many instructions issue them.
static long VPTileConflictCost(int dim, int k, int nkx, int nterms, int wordbytes, int S)
{
  const int ne = 2 * k + 1, ni = 2 * k - 1, threads = ni * ne, patches = 128 / threads > 0 ? 128 / threads : 1, block = patches * threads;
  const int nk = nkx > 0 ? nkx : 1, lz = dim == 3 ? ne : 1, iz = dim == 3 ? ni : 1; // instructions from the z lines (3D)
  auto      pp   = [=](int t) { return (t / threads) * S; };
  auto      a    = [=](int t) { return (t % threads) % ni; };
  auto      q    = [=](int t) { return (t % threads) / ni; };
  long      cost = 0;
  cost += (long)nk * ne * lz * VPTileExtraWavefronts(wordbytes, block, [&](int t, bool *) { return pp(t) + ne * q(t); });                          // closure read, x step
  cost += (long)nk * lz * VPTileExtraWavefronts(wordbytes, block, [&](int t, bool *) { return pp(t) + a(t) + ni * q(t); });                        // x-step write
  cost += (long)nterms * ne * lz * VPTileExtraWavefronts(wordbytes, block, [&](int t, bool *act) { *act = q(t) < ni; return pp(t) + a(t); });        // y-step read
  cost += (long)3 * iz * VPTileExtraWavefronts(wordbytes, block, [&](int t, bool *act) { *act = q(t) < ni; return pp(t) + a(t) + ni * q(t); });     // FDM writes
  cost += (long)2 * ni * iz * VPTileExtraWavefronts(wordbytes, block, [&](int t, bool *act) { *act = q(t) < ni; return pp(t) + a(t); });            // FDM y reads
  cost += (long)2 * ni * iz * VPTileExtraWavefronts(wordbytes, block, [&](int t, bool *act) { *act = q(t) < ni; return pp(t) + ni * q(t); });       // FDM x reads
  cost += (long)(ne * ne * lz / threads + 1) * VPTileExtraWavefronts(wordbytes, block, [&](int t, bool *) { return pp(t) + t % threads; }); // closure write
  return cost;
}

// Words of shared memory per patch: at least what the patch needs, padded (by less than 64 words) so that the
// accesses of the patches sharing a warp conflict least in the model above.
static int VPTileStride(int dim, int k, int nkx, int nterms, int wordbytes)
{
  const int ne = 2 * k + 1, ni = 2 * k - 1, nk = nkx > 0 ? nkx : 1;
  const int w  = dim == 3 ? ne * ne * ne + nk * ni * ne * ne : ne * ne + nk * ni * ne;
  int       best = w;
  long      bestcost = -1;
  for (int S = w; S < w + 64 && bestcost != 0; S++) {
    const long cost = VPTileConflictCost(dim, k, nkx, nterms, wordbytes, S);
    if (bestcost < 0 || cost < bestcost) {
      bestcost = cost;
      best     = S;
    }
  }
  return best;
}

__device__ inline int VPTileClass(int v, int N)
{
  return v == 1 ? 0 : (v == N - 1 ? 2 : 1);
}

// out[i] = sum_j A[i * NJ + j] in[j], A in global memory with one address per patch
template <typename T, int NOUT, int NJ>
__device__ inline void VPLineApply(const T *__restrict__ A, const T (&in)[NJ], T (&out)[NOUT])
{
#pragma unroll
  for (int i = 0; i < NOUT; i++) {
    T acc = 0;
#pragma unroll
    for (int j = 0; j < NJ; j++) acc += A[i * NJ + j] * in[j];
    out[i] = acc;
  }
}

template <typename T, int N>
__device__ inline void VPLoadRow(const T *__restrict__ row, T (&r)[N])
{
#pragma unroll
  for (int j = 0; j < N; j++) r[j] = row[j];
}

// out[z] = sum_j row[j] in[j js + z zs], z < NZ: one contraction through shared memory into the thread's line,
// with the matrix row (global memory) in registers
template <typename T, int NJ, int NZ>
__device__ inline void VPLineContract(const T *__restrict__ row, const T *in, int js, int zs, T (&out)[NZ])
{
  T Ar[NJ];
  VPLoadRow<T, NJ>(row, Ar);
#pragma unroll
  for (int z = 0; z < NZ; z++) {
    T acc = 0;
#pragma unroll
    for (int j = 0; j < NJ; j++) acc += Ar[j] * in[j * js + z * zs];
    out[z] = acc;
  }
}

template <typename T, int NZ>
__device__ inline void VPLineStore(const T (&line)[NZ], T *out, int zs)
{
#pragma unroll
  for (int z = 0; z < NZ; z++) out[z * zs] = line[z];
}

// sum_j row[j] in[j js] (2D: one point per thread)
template <typename T, int NJ>
__device__ inline T VPDot(const T *__restrict__ row, const T *in, int js)
{
  T acc = 0;
#pragma unroll
  for (int j = 0; j < NJ; j++) acc += row[j] * in[j * js];
  return acc;
}

// position of interior node (i0, i1, i2) in an array holding box bx
__device__ inline size_t VPTileIndex(const VPCudaBox &bx, int i0, int i1, int i2)
{
  return (size_t)(i0 - bx.lo[0]) + (size_t)bx.m[0] * ((size_t)(i1 - bx.lo[1]) + (size_t)bx.m[1] * (size_t)(i2 - bx.lo[2]));
}

// Where a patch's nodes lie, for the patch functions below: closure(c0, c1, c2) is the position of closure node
// (c0, c1, c2) (0..NE-1 each) in x, -1 where it is not stored (reads zero); interior(a, q, z) that of interior node
// (a, q, z) (closure a + 1, q + 1, z + 1) in b and the target; cls[d] the patch's position class per direction.
// Box: the patch of vertex v in a rank's box bx of interior nodes (full-grid node f at interior index f - 1).
template <int K>
struct VPTileBoxAddr {
  const VPCudaBox &bx;
  int              base[3], cls[3];
  bool             three; // 3D; in 2D the third closure index is 0 and stands for the single layer
  __device__ VPTileBoxAddr(const VPCudaBox &b, const int *v, bool active, int dim) : bx(b), three(dim == 3)
  {
    for (int d = 0; d < 3; d++) {
      cls[d]  = 1;
      base[d] = 0;
      if (active && d < dim) {
        cls[d]  = VPTileClass(v[d], (bx.n[d] + 1) / K);
        base[d] = (v[d] - 1) * K; // full-grid node of closure index 0; interior index of closure c: base + c - 1
      }
    }
  }
  __device__ inline long closure(int c0, int c1, int c2) const
  {
    const int f0 = base[0] + c0, f1 = base[1] + c1, f2 = three ? base[2] + c2 : 1;
    return (f0 > 0 && f0 <= bx.n[0] && f1 > 0 && f1 <= bx.n[1] && f2 > 0 && f2 <= bx.n[2]) ? (long)VPTileIndex(bx, f0 - 1, f1 - 1, f2 - 1) : -1;
  }
  __device__ inline size_t interior(int a, int q, int z) const { return VPTileIndex(bx, base[0] + a, base[1] + q, base[2] + z); }
};

// A forest's patch (src/dm/brickforest.c): its 2^dim cells around the vertex (x lowest bit) and their nodes' positions in
// the local vectors from the cell-node table; every forest patch is of the interior class.
template <int K>
struct VPTileTableAddr {
  const int *cells, *node;
  int        nv, dim, cls[3];
  __device__ VPTileTableAddr(const int *c, const int *n, int d) : cells(c), node(n), nv(d == 3 ? (K + 1) * (K + 1) * (K + 1) : (K + 1) * (K + 1)), dim(d)
  {
    cls[0] = cls[1] = cls[2] = 1;
  }
  __device__ inline long closure(int c0, int c1, int c2) const
  {
    const int b0 = c0 > K, b1 = c1 > K, b2 = dim == 3 && c2 > K, cell = cells[b0 | (b1 << 1) | (b2 << 2)];
    return node[(size_t)cell * nv + (c0 - b0 * K) + (K + 1) * ((c1 - b1 * K) + (K + 1) * (c2 - b2 * K))];
  }
  __device__ inline size_t interior(int a, int q, int z) const { return (size_t)closure(a + 1, q + 1, dim == 3 ? z + 1 : 0); }
};

// One 3D patch. mem: this patch's shared words; lt: the thread's index in the patch; ad: where its nodes lie.
template <typename T, int K, typename Op, typename Addr>
__device__ void VPTilePatch3D(const Op *__restrict__ op, const Addr &ad, bool active, int lt, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic, T *mem, const int slot[VPC_KINDS])
{
  using TL         = VPTile<K, 3>;
  constexpr int NE = TL::NE, NI = TL::NI, NX = NI * NE * NE;
  const int     a = lt % NI, q = lt / NI; // q < NE
  T            *xs = mem, *Xs = mem + NE * NE * NE;
  const int     cls[3] = {ad.cls[0], ad.cls[1], ad.cls[2]};
  T             r[NI];

  // the closure of x (boundary nodes zero) and the line of b
  if (x)
    for (int p = lt; p < NE * NE * NE; p += TL::THREADS) {
      const long i = active ? ad.closure(p % NE, (p / NE) % NE, p / (NE * NE)) : -1;
      xs[p]        = i >= 0 ? (T)x[i] : (T)0;
    }
#pragma unroll
  for (int z = 0; z < NI; z++) r[z] = (active && q < NI) ? (T)b[ad.interior(a, q, z)] : (T)0;
  __syncthreads();

  if (x) {
    // X_kind = R_x^kind xs along x: thread (a, q) makes X[a, q, :]
    for (int kind = 0; kind < VPC_KINDS; kind++) {
      T line[NE];
      if (slot[kind] < 0) continue;
      VPLineContract<T, NE, NE>(op->R[kind][0][cls[0]] + a * NE, xs + NE * q, 1, NE * NE, line);
      VPLineStore<T, NE>(line, Xs + slot[kind] * NX + a + NI * q, NI * NE);
    }
    __syncthreads();
    // per term: along y into the thread's z line, then along z in registers, subtracted from r
    if (q < NI)
      for (int t = 0; t < op->nterms; t++) {
        T       Y[NE], Z[NI];
        const T c = op->coef[t];
        VPLineContract<T, NE, NE>(op->R[op->kind[t][1]][1][cls[1]] + q * NE, Xs + slot[op->kind[t][0]] * NX + a, NI, NI * NE, Y);
        VPLineApply<T, NI, NE>(op->R[op->kind[t][2]][2][cls[2]], Y, Z);
#pragma unroll
        for (int z = 0; z < NI; z++) r[z] -= c * Z[z];
      }
  }

  // fast diagonalization: S_x S_y S_z diag^-1 S_z^T S_y^T S_x^T r, z in registers, x and y through shared memory;
  // F1 and F2 (NI^3 each, x + NI y + NI^2 z) reuse xs and Xs. Each shared array is written only after the barrier
  // that follows its last reads.
  T *F1 = xs, *F2 = Xs, u[NI], w[NI];
  VPLineApply<T, NI, NI>(op->St[2][cls[2]], r, u);
  __syncthreads(); // the residual's reads of xs and Xs are done
  if (q < NI) VPLineStore<T, NI>(u, F1 + a + NI * q, NI * NI);
  __syncthreads();
  if (q < NI) {
    VPLineContract<T, NI, NI>(op->St[1][cls[1]] + q * NI, F1 + a, NI, NI * NI, w);
    VPLineStore<T, NI>(w, F2 + a + NI * q, NI * NI);
  }
  __syncthreads();
  if (q < NI) {
    const T lxy = op->lambda[0][cls[0]][a] + op->lambda[1][cls[1]][q];
    VPLineContract<T, NI, NI>(op->St[0][cls[0]] + a * NI, F2 + NI * q, 1, NI * NI, w);
#pragma unroll
    for (int z = 0; z < NI; z++) w[z] /= lxy + op->lambda[2][cls[2]][z];
    VPLineApply<T, NI, NI>(op->S[2][cls[2]], w, u);
    VPLineStore<T, NI>(u, F1 + a + NI * q, NI * NI);
  }
  __syncthreads();
  if (q < NI) {
    VPLineContract<T, NI, NI>(op->S[1][cls[1]] + q * NI, F1 + a, NI, NI * NI, w);
    VPLineStore<T, NI>(w, F2 + a + NI * q, NI * NI);
  }
  __syncthreads();
  if (active && q < NI) {
    VPLineContract<T, NI, NI>(op->S[0][cls[0]] + a * NI, F2 + NI * q, 1, NI * NI, w);
#pragma unroll
    for (int z = 0; z < NI; z++) {
      double *dst = target + ad.interior(a, q, z);
      if (atomic) atomicAdd(dst, omega * (double)w[z]);
      else *dst += omega * (double)w[z];
    }
  }
  __syncthreads(); // the next patch of this block overwrites the shared arrays
}

// One 2D patch: thread (a, q) owns the point x = a, y = q; every contraction goes through shared memory (lines in
// registers, as in 3D, would be whole rows of the patch per thread: register spills from k = 5 on).
template <typename T, int K, typename Op, typename Addr>
__device__ void VPTilePatch2D(const Op *__restrict__ op, const Addr &ad, bool active, int lt, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic, T *mem, const int slot[VPC_KINDS])
{
  using TL         = VPTile<K, 2>;
  constexpr int NE = TL::NE, NI = TL::NI, NX = NI * NE;
  const int     a = lt % NI, q = lt / NI; // q < NE
  T            *xs = mem, *Xs = mem + NE * NE, *F1 = xs, *F2 = Xs;
  const int     cls[2] = {ad.cls[0], ad.cls[1]};
  T             r = 0;

  if (x)
    for (int p = lt; p < NE * NE; p += TL::THREADS) {
      const long i = active ? ad.closure(p % NE, p / NE, 0) : -1;
      xs[p]        = i >= 0 ? (T)x[i] : (T)0;
    }
  if (active && q < NI) r = (T)b[ad.interior(a, q, 0)];
  __syncthreads();
  if (x) {
    for (int kind = 0; kind < VPC_KINDS; kind++)
      if (slot[kind] >= 0) Xs[slot[kind] * NX + a + NI * q] = VPDot<T, NE>(op->R[kind][0][cls[0]] + a * NE, xs + NE * q, 1);
    __syncthreads();
    if (q < NI)
      for (int t = 0; t < op->nterms; t++) r -= op->coef[t] * VPDot<T, NE>(op->R[op->kind[t][1]][1][cls[1]] + q * NE, Xs + slot[op->kind[t][0]] * NX + a, NI);
  }
  __syncthreads(); // the residual's reads of xs and Xs are done
  if (q < NI) F1[a + NI * q] = r;
  __syncthreads();
  if (q < NI) F2[a + NI * q] = VPDot<T, NI>(op->St[1][cls[1]] + q * NI, F1 + a, NI);
  __syncthreads();
  if (q < NI) F1[a + NI * q] = VPDot<T, NI>(op->St[0][cls[0]] + a * NI, F2 + NI * q, 1) / (op->lambda[0][cls[0]][a] + op->lambda[1][cls[1]][q]);
  __syncthreads();
  if (q < NI) F2[a + NI * q] = VPDot<T, NI>(op->S[1][cls[1]] + q * NI, F1 + a, NI);
  __syncthreads();
  if (active && q < NI) {
    const T d   = VPDot<T, NI>(op->S[0][cls[0]] + a * NI, F2 + NI * q, 1);
    double *dst = target + ad.interior(a, q, 0);
    if (atomic) atomicAdd(dst, omega * (double)d);
    else *dst += omega * (double)d;
  }
  __syncthreads(); // the next patch of this block overwrites the shared arrays
}

template <typename T, int K, int DIM, typename Op>
__global__ void __launch_bounds__(VPTile<K, DIM>::BLOCK) VPTileKernel(const Op *__restrict__ op, VPCudaBox bx, const int *__restrict__ vertex, int start, int end, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic, int stride, int s0, int s1, int s2)
{
  using TL = VPTile<K, DIM>;
  extern __shared__ __align__(16) unsigned char vp_tile_smem[];
  const int slot[VPC_KINDS] = {s0, s1, s2};
  const int pp = threadIdx.x / TL::THREADS, lt = threadIdx.x % TL::THREADS;
  T        *mem = reinterpret_cast<T *>(vp_tile_smem) + pp * stride;

  for (int first = start + blockIdx.x * TL::PATCHES; first < end; first += gridDim.x * TL::PATCHES) {
    const int  p      = first + pp;
    const bool active = p < end;
    const int *v      = vertex + 3 * (active ? p : start);
    const VPTileBoxAddr<K> ad(bx, v, active, DIM);
    if constexpr (DIM == 3) VPTilePatch3D<T, K, Op>(op, ad, active, lt, b, x, target, omega, atomic, mem, slot);
    else VPTilePatch2D<T, K, Op>(op, ad, active, lt, b, x, target, omega, atomic, mem, slot);
  }
}

// the same on a forest's patches [start, end): their cells from patchcell, their nodes from node (local vectors)
template <typename T, int K, int DIM, typename Op>
__global__ void __launch_bounds__(VPTile<K, DIM>::BLOCK) VPTileTableKernel(const Op *__restrict__ op, const int *__restrict__ patchcell, const int *__restrict__ node, int start, int end, const double *__restrict__ b, const double *x, double *target, double omega, int stride, int s0, int s1, int s2)
{
  using TL = VPTile<K, DIM>;
  extern __shared__ __align__(16) unsigned char vp_tile_smem[];
  const int slot[VPC_KINDS] = {s0, s1, s2};
  const int pp = threadIdx.x / TL::THREADS, lt = threadIdx.x % TL::THREADS;
  T        *mem = reinterpret_cast<T *>(vp_tile_smem) + pp * stride;

  for (int first = start + blockIdx.x * TL::PATCHES; first < end; first += gridDim.x * TL::PATCHES) {
    const int                p      = first + pp;
    const bool               active = p < end;
    const VPTileTableAddr<K> ad(patchcell + (size_t)(active ? p : start) * (1 << DIM), node, DIM);
    if constexpr (DIM == 3) VPTilePatch3D<T, K, Op>(op, ad, active, lt, b, x, target, omega, false, mem, slot);
    else VPTilePatch2D<T, K, Op>(op, ad, active, lt, b, x, target, omega, false, mem, slot);
  }
}

// the kernel of (T, k, dim) with its block size and patches per block
template <typename T, typename Op>
struct VPTileEntry {
  void (*kernel)(const Op *, VPCudaBox, const int *, int, int, const double *, const double *, double *, double, bool, int, int, int, int);
  void (*table)(const Op *, const int *, const int *, int, int, const double *, const double *, double *, double, int, int, int, int);
  int block, patches;
};

template <typename T, typename Op, int K, int DIM>
static VPTileEntry<T, Op> VPTileMake()
{
  return {VPTileKernel<T, K, DIM, Op>, VPTileTableKernel<T, K, DIM, Op>, VPTile<K, DIM>::BLOCK, VPTile<K, DIM>::PATCHES};
}

template <typename T, typename Op>
static int VPTileGet(int dim, int k, VPTileEntry<T, Op> *e)
{
#define VP_TILE_CASE(K) \
  case K: \
    *e = dim == 3 ? VPTileMake<T, Op, K, 3>() : VPTileMake<T, Op, K, 2>(); \
    return 0;
  switch (k) {
    VP_TILE_CASE(1)
    VP_TILE_CASE(2)
    VP_TILE_CASE(3)
    VP_TILE_CASE(4)
    VP_TILE_CASE(5)
    VP_TILE_CASE(6)
    VP_TILE_CASE(7)
    VP_TILE_CASE(8)
  default:
    return (int)cudaErrorInvalidValue;
  }
#undef VP_TILE_CASE
}

void VPTileLayoutCreate(const VPCudaPatchOp_d *op, int k, VPTileLayout *layout)
{
  layout->dim = op->dim;
  layout->k   = k;
  layout->nkx = 0;
  for (int kind = 0; kind < VPC_KINDS; kind++) layout->slot[kind] = -1;
  for (int t = 0; t < op->nterms; t++)
    if (layout->slot[op->kind[t][0]] < 0) layout->slot[op->kind[t][0]] = layout->nkx++;
  layout->stride[0] = VPTileStride(layout->dim, k, layout->nkx, op->nterms, 8);
  layout->stride[1] = VPTileStride(layout->dim, k, layout->nkx, op->nterms, 4);
  layout->pairable  = VPPairLayoutCreate(op, k, &layout->pl);
}

void VPTileSetLines(VPTileLayout *layout, int lines)
{
  if (layout->pairable) VPPairSetLines(&layout->pl, lines);
}

template <typename T, typename Op>
static int VPTilePrepareT(const VPTileLayout *l, size_t *bytes)
{
  VPTileEntry<T, Op> e;
  const int          err = VPTileGet<T, Op>(l->dim, l->k, &e);
  if (err) return err;
  *bytes = (size_t)e.patches * l->stride[sizeof(T) == 8 ? 0 : 1] * sizeof(T);
  {
    // the limit belongs to the kernel, shared by the smoothers of all levels: only ever raise it
    cudaFuncAttributes attr;
    VP_CHECK(cudaFuncGetAttributes(&attr, e.kernel));
    if ((int)*bytes > attr.maxDynamicSharedSizeBytes) VP_CHECK(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*bytes));
    VP_CHECK(cudaFuncGetAttributes(&attr, e.table));
    if ((int)*bytes > attr.maxDynamicSharedSizeBytes) VP_CHECK(cudaFuncSetAttribute(e.table, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*bytes));
  }
  return 0;
}

int VPTilePrepare(VPTileLayout *layout, size_t *bytes_d, size_t *bytes_f)
{
  if (layout->pairable) {
    const int err = VPPairPrepare(&layout->pl, bytes_d, bytes_f);
    if (err) return err;
  }
  int err = VPTilePrepareT<double, VPCudaPatchOp_d>(layout, bytes_d);
  return err ? err : VPTilePrepareT<float, VPCudaPatchOp_f>(layout, bytes_f);
}

template <typename T, typename Op>
static int VPTileLaunchT(const VPTileLayout *l, const Op *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks)
{
  VPTileEntry<T, Op> e;
  const int          stride = l->stride[sizeof(T) == 8 ? 0 : 1];
  const int          err    = VPTileGet<T, Op>(l->dim, l->k, &e);
  if (err) return err;
  const int need = (end - start + e.patches - 1) / e.patches, blocks = need < maxblocks ? need : maxblocks;
  e.kernel<<<blocks, e.block, (size_t)e.patches * stride * sizeof(T)>>>(op, *bx, vertex, start, end, b, x, target, omega, atomic, stride, l->slot[0], l->slot[1], l->slot[2]);
  VP_CHECK(cudaGetLastError());
  return 0;
}

int VPTileLaunch(const VPTileLayout *layout, int single, const void *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks)
{
  if (end <= start) return 0;
  if (layout->pairable && layout->pl.lines[single ? 1 : 0] > 0) return VPPairLaunch(&layout->pl, single, op, bx, vertex, start, end, b, x, target, omega, atomic, maxblocks);
  if (single) return VPTileLaunchT<float, VPCudaPatchOp_f>(layout, (const VPCudaPatchOp_f *)op, bx, vertex, start, end, b, x, target, omega, atomic, maxblocks);
  return VPTileLaunchT<double, VPCudaPatchOp_d>(layout, (const VPCudaPatchOp_d *)op, bx, vertex, start, end, b, x, target, omega, atomic, maxblocks);
}

template <typename T, typename Op>
static int VPTileLaunchTableT(const VPTileLayout *l, const Op *op, const int *patchcell, const int *node, int start, int end, const double *b, const double *x, double *target, double omega, int maxblocks)
{
  VPTileEntry<T, Op> e;
  const int          stride = l->stride[sizeof(T) == 8 ? 0 : 1];
  const int          err    = VPTileGet<T, Op>(l->dim, l->k, &e);
  if (err) return err;
  const int need = (end - start + e.patches - 1) / e.patches, blocks = need < maxblocks ? need : maxblocks;
  e.table<<<blocks, e.block, (size_t)e.patches * stride * sizeof(T)>>>(op, patchcell, node, start, end, b, x, target, omega, stride, l->slot[0], l->slot[1], l->slot[2]);
  VP_CHECK(cudaGetLastError());
  return 0;
}

int VPTileLaunchTable(const VPTileLayout *layout, int single, const void *op, const int *patchcell, const int *node, int start, int end, const double *b, const double *x, double *target, double omega, int maxblocks)
{
  if (end <= start) return 0;
  if (single) return VPTileLaunchTableT<float, VPCudaPatchOp_f>(layout, (const VPCudaPatchOp_f *)op, patchcell, node, start, end, b, x, target, omega, maxblocks);
  return VPTileLaunchTableT<double, VPCudaPatchOp_d>(layout, (const VPCudaPatchOp_d *)op, patchcell, node, start, end, b, x, target, omega, maxblocks);
}
