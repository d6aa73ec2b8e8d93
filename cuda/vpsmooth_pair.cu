// The vertex-patch smoothing step of the 3D Laplacian with two lines per thread (register tiling), a variant of the
// one-line kernel of vpsmooth_tile.cu for the terms c_0 K⊗M⊗M + c_1 M⊗K⊗M + c_2 M⊗M⊗K (1D matrices of the patch's
// class per direction, x first).
//
// Why: in the one-line kernel every FMA of a contraction needs one load, from shared memory (the data) or from the
// L1 cache (a matrix entry with one address per patch); Nsight Compute put the L1/shared pipe at 77 % of its peak at
// 3D k = 3 against 37 % for the issue slots (bench/results/gpu-pair-h100-2026-11-26.md). Here each thread owns two
// lines of the patch, so that every load feeds at least two FMAs:
// - the x contraction of the closure: the rows a and a + k of both kinds (stiffness, mass) in registers, each word of
//   the closure feeds four FMAs;
// - the y contraction of the residual: the z lines (a, q) and (a, q + k) share the words they read; the three
//   products M_y X_K, K_y X_M, M_y X_M are combined before the z contraction, which is then done for two terms,
//   M_z (c_0 M_y X_K + c_1 K_y X_M) + K_z (c_2 M_y X_M), as an update of the thread's residual lines per z: every
//   entry of M_z and K_z feeds the two lines;
// - the fast diagonalization: the z contractions on the thread's two lines (each matrix entry feeds two FMAs), the y
//   contractions on a "column" pair (a, q), (a, q + k) that reads the same words, the x contractions on a "row" pair
//   (a, q), (a + k, q) that reads the same words.
// A patch has k (2k + 1) threads: (h, q) with the rows h and h + k in the residual's x step (all of them), and k (2k - 1)
// of them in the other steps. Where h + k = 2k - 1 the second line does not exist: the thread computes a copy of its
// first line and stores nothing of it.
//
// Every layout skips the known zeros of the 1D matrices in the z contraction (VPPairZero: a node inside one of the
// patch's two cells does not couple with the other cell's nodes). The one-line layout has (2k - 1)(2k + 1) threads a
// patch, of which (2k - 1)^2 work in the steps after the x step; the folded one (L = 3) has (2k - 1)^2, and its x step
// (VPPairFoldX) skips the zeros on k (2k + 1) of them: at k = 3 a block holds 5 patches in 4 warps instead of 3.
//
// Shared memory per patch (x fastest): the closure xs (NE^3), X_K and X_M (NI x NE x NE each); the fast
// diagonalization's F1 and F2 (NI^3 each) reuse xs and X_K, or, in the double steps with one line (ONE), X_M and X_K,
// so that xs is free once the x step is done and the next patch's closure is copied into it by cp.async during the rest
// of this patch. The barrier after a step is the only one that separates a shared array's reads from its next writes
// (see each step), so a patch takes six barriers (seven with ONE: F1 = X_M waits for the y/z step's reads).
#include "vpsmooth_pair.h"
#include "vpcuda_check.h"
#include "vpcopyasync.h"
#include <cuda_runtime.h>
#include <cstdint>

// L lines per thread: 2, or 1 (the same code without the second lines: one (a, q) line per thread as in
// vpsmooth_tile.cu, with its terms combined and its closure gathered by rows)
// L = 3 (FOLD): one line per thread as L = 1, on (2k - 1)^2 threads a patch instead of (2k - 1)(2k + 1), and an x step
// that skips the zero entries of the 1D matrices (VPPairFoldX).
template <int K, int L> struct VPPair {
  static constexpr int  NE      = 2 * K + 1;
  static constexpr int  NI      = 2 * K - 1;
  static constexpr bool FOLD    = L == 3;
  static constexpr int  H       = L == 2 ? K : NI;                                       // the second line of a pair is h + H
  static constexpr int  THREADS = FOLD ? (NI * NI > K * NE ? NI * NI : K * NE) : H * NE; // per patch
  static constexpr int  PAIRS   = H * NI;                                                // threads of the steps on interior lines
  // per block; FOLD: the count with the fewest warps a patch (k = 2: 12 patches in 4 warps, k = 3: 5 in 4, k = 4: 5 in 8;
  // at k = 4 two patches in 4 warps were 15 % slower: bench/results/gpu-fold-h100-2026-11-26.md)
  static constexpr int PATCHES = FOLD ? (K == 2 ? 12 : (K <= 4 ? 5 : 1)) : (128 / THREADS > 0 ? 128 / THREADS : 1);
  static constexpr int BLOCK   = PATCHES * THREADS;
  static constexpr int GH      = FOLD ? THREADS / NE : H; // closure rows a pass of the gather (threads GH NE of them)
  static constexpr int XS      = NE * NE * NE;            // one closure buffer
};

// Where VPPairStage puts the patch's 1D matrices in M (words): K_x, M_x, K_y, M_y (NI x NE each); M_z, K_z; S_x^T, S_y^T,
// S_x, S_y (NI x NI each); S_z^T, S_z (rows of NIP words); the eigenvalues per direction (NI each). The z matrices'
// entries are read by every thread of the patch at one address. Where PAIRED, two of them come in one load (one
// wavefront, half the instructions): M_z and K_z interleaved, (M_z[i][z], K_z[i][z]) at 2 (z NI + i), and the rows of
// S_z^T and S_z padded to an even length. M then starts at an even word (one word more), since the patches of a block
// lie an odd number of words apart. One step, one H100: 4-9 % faster in float at k = 4..8 and 4 % in double at k = 8;
// in double at k = 2, 5, 6, 7 up to 7 % slower (at k = 5..7 with more spills), at k = 3, 4 and in float at k = 2, 3
// within 1 % (bench/results/gpu-pair-zpairs-h100-2026-11-26.md).
template <typename T, int K, int L> struct VPPairMats {
  using P                      = VPPair<K, L>;
  static constexpr bool PAIRED = sizeof(T) == 4 ? K >= 4 : K == 8;
  static constexpr int  NI = P::NI, R = P::NI * P::NE, Q = P::NI * P::NI, NIP = PAIRED ? NI + 1 : NI;
  static constexpr int  KX = 0, MX = R, KY = 2 * R, MY = 3 * R, MZ = 4 * R, KZ = 5 * R, MKZ = 4 * R;
  static constexpr int  STX = 6 * R, STY = STX + Q, SX = STY + Q, SY = SX + Q, STZ = SY + Q, SZ = STZ + NI * NIP, LAM = SZ + NI * NIP;
  static constexpr int  WORDS = LAM + 3 * NI + (PAIRED ? 1 : 0);
  static_assert(!PAIRED || (MKZ % 2 == 0 && STZ % 2 == 0 && SZ % 2 == 0 && NIP % 2 == 0), "pairs of words start at even words");
};

// Words per patch: X_K, X_M, the matrices, and the closure. The next patch's closure is copied by cp.async (no
// registers, compute capability 8.0) while this one runs: with ONE (double, one line) into the one closure buffer once
// the x step is done, 4-15 % faster than the two buffers of before at k = 3 and 5 and than the synchronous gather
// elsewhere (one H100: bench/results/gpu-pair-onebuffer-h100-2026-11-26.md); with two lines in double at k = 3 and 5
// into a second buffer. Float steps gather synchronously: they convert the double vector entries on the way, which
// cp.async cannot.
template <typename T, int K, int L, bool ONE = false> struct VPPairWords {
  static constexpr bool ASYNC = sizeof(T) == 8 && (ONE || K == 3 || K == 5);
  static constexpr int  OFFXS = 2 * VPPair<K, L>::NI * VPPair<K, L>::NE * VPPair<K, L>::NE + VPPairMats<T, K, L>::WORDS; // where the closure buffers start
  static constexpr int  value = OFFXS + (ASYNC && !ONE ? 2 : 1) * VPPair<K, L>::XS;
};

// Blocks per multiprocessor asked of the compiler (__launch_bounds__): it caps the registers, which the unrolled loops
// would otherwise spend on loads hoisted far ahead (double, k = 4, one line: 254 registers without a cap, two blocks of
// four warps). The one- and two-line values were measured; the folded layout asks for as many blocks as the shared
// memory holds (double k = 5: 4, which removes 260 bytes of spills). Spills (ptxas -v, CUDA 13.0, sm_90): none in the
// defaults (double: folded at k = 2, 3, 5, 6, 7 with 96-168 registers, one line at k = 4, 8; float: folded at k = 2, one
// line at k = 3..5, 7) but float k = 6 and 8 (one line: 20 and 32 bytes); 20-340 bytes in double with two lines at
// k = 3, 5..8; 8-96 bytes in the folded float steps at k = 3, 6, 7, 8.
template <typename T, int K, int L> struct VPPairMinBlocks {
  static constexpr int one_d = K == 2 ? 8 : (K == 3 ? 7 : (K == 4 ? 6 : (K == 5 ? 4 : (K == 6 ? 3 : (K == 7 ? 2 : 1))))), one_f = K <= 3 ? 12 : (K == 4 ? 8 : (K == 5 ? 9 : (K == 6 ? 5 : (K == 7 ? 3 : 2))));
  // FOLD: as many blocks as the shared memory of a multiprocessor holds (228 KB, of which 1 KB a block is reserved)
  static constexpr int fold_bytes = VPPair<K, 3>::PATCHES * (VPPairWords<T, K, 3, sizeof(T) == 8>::value | 1) * (int)sizeof(T) + 1024;
  static constexpr int fold_smem = 233472 / fold_bytes, fold_thr = 2048 / VPPair<K, 3>::BLOCK, fold = fold_smem < fold_thr ? fold_smem : fold_thr;
  static constexpr int value =
      L == 3 ? (sizeof(T) == 8 && K == 5 ? 4 : (fold > 0 ? fold : 1)) : (L == 1 ? (sizeof(T) == 8 ? one_d : one_f) : (sizeof(T) == 8 ? (K <= 3 ? 4 : (K <= 5 ? 3 : (K <= 7 ? 2 : 1))) : (K == 2 ? 6 : (K == 3 ? 5 : (K <= 5 ? 3 : (K == 6 ? 4 : 2))))));
};

// the kinds and terms of the layout, passed by value to the kernel
struct VPPairArgs {
  int km, kk, term[3];
};

template <typename T, int N> __device__ inline void VPPairRow(const T *__restrict__ row, T (&r)[N])
{
#pragma unroll
  for (int j = 0; j < N; j++) r[j] = row[j];
}

__device__ inline int VPPairClass(int v, int N)
{
  return v == 1 ? 0 : (v == N - 1 ? 2 : 1);
}

// dst[i] = src[i], i < N, on the patch's threads (N and the thread count known at compile time: no index arithmetic)
template <typename T, int N, int THREADS> __device__ inline void VPPairCopy(T *dst, const T *__restrict__ src, int lt)
{
#pragma unroll
  for (int i = 0; i < (N + THREADS - 1) / THREADS; i++)
    if (lt + i * THREADS < N) dst[lt + i * THREADS] = src[lt + i * THREADS];
}

// two words read as one (ld.shared.v2): the pair of a double or a float
template <typename T> struct VPPairVec2;
template <> struct VPPairVec2<double> {
  using type = double2;
};
template <> struct VPPairVec2<float> {
  using type = float2;
};

// dst[(i / NC) NO + OS (i % NC)] = src[i], i < N: a matrix of N words whose rows of NC words land NO words apart, OS
// words between two entries of a row
template <typename T, int N, int NC, int NO, int OS, int THREADS> __device__ inline void VPPairCopyStrided(T *dst, const T *__restrict__ src, int lt)
{
#pragma unroll
  for (int i = 0; i < (N + THREADS - 1) / THREADS; i++) {
    const int w = lt + i * THREADS;
    if (w < N) dst[(w / NC) * NO + OS * (w % NC)] = src[w];
  }
}

// Copies the patch's 1D matrices (its class along each direction) from the operator to shared memory M, laid out as
// VPPairMats says. Every later read of a matrix entry is then a shared-memory read: from the L1 cache they waited on
// misses (Nsight Compute, k = 3: 41 % of the stalls on global loads, L1 hit rate 74 %).
// One copy per matrix with compile-time sizes: a loop over all staged words found each word's matrix by divisions.
template <typename T, int K, int L, typename Op> __device__ inline void VPPairStage(const Op *__restrict__ op, const int cls[3], int lt, const VPPairArgs &pa, T *M)
{
  using P          = VPPair<K, L>;
  using W          = VPPairMats<T, K, L>;
  constexpr int NI = P::NI, NE = P::NE, R = W::R, Q = W::Q, TH = P::THREADS;
#pragma unroll
  for (int m = 0; m < 4; m++) VPPairCopy<T, R, TH>(M + m * R, op->R[m % 2 ? pa.km : pa.kk][m / 2][cls[m / 2]], lt);
  if constexpr (W::PAIRED) { // M_z[i][z] (row-major NI x NE) to 2 (z NI + i), K_z[i][z] to the word after it
    VPPairCopyStrided<T, R, NE, 2, 2 * NI, TH>(M + W::MKZ, op->R[pa.km][2][cls[2]], lt);
    VPPairCopyStrided<T, R, NE, 2, 2 * NI, TH>(M + W::MKZ + 1, op->R[pa.kk][2][cls[2]], lt);
  } else {
    VPPairCopy<T, R, TH>(M + W::MZ, op->R[pa.km][2][cls[2]], lt);
    VPPairCopy<T, R, TH>(M + W::KZ, op->R[pa.kk][2][cls[2]], lt);
  }
#pragma unroll
  for (int m = 0; m < 4; m++) VPPairCopy<T, Q, TH>(M + W::STX + m * Q, m < 2 ? op->St[m][cls[m]] : op->S[m - 2][cls[m - 2]], lt);
  VPPairCopyStrided<T, Q, NI, W::NIP, 1, TH>(M + W::STZ, op->St[2][cls[2]], lt);
  VPPairCopyStrided<T, Q, NI, W::NIP, 1, TH>(M + W::SZ, op->S[2][cls[2]], lt);
#pragma unroll
  for (int d = 0; d < 3; d++) VPPairCopy<T, NI, TH>(M + W::LAM + d * NI, op->lambda[d][cls[d]], lt);
}

// The closure of x at the patch of vertex v into xs (boundary nodes and an inactive patch: zeros), by cp.async
// (ASYNC, T = double) or through registers. Threads lt < GH NE take part (all of them but with FOLD): thread lt keeps
// its x index lt % NE and steps through the closure's rows GH at a time.
template <typename T, int K, int L, bool ASYNC> __device__ inline void VPPairGather(const VPCudaBox &bx, const int *v, bool active, int lt, const double *x, T *xs)
{
  using P          = VPPair<K, L>;
  constexpr int NE = P::NE, GH = P::GH;
  const size_t  s1 = (size_t)bx.m[0], s2 = (size_t)bx.m[0] * (size_t)bx.m[1];
  const int     b0 = active ? (v[0] - 1) * K : 0, b1 = active ? (v[1] - 1) * K : 0, b2 = active ? (v[2] - 1) * K : 0;
  const int     c0 = lt % NE, f0 = b0 + c0;
  const bool    ok0 = active && f0 > 0 && f0 <= bx.n[0];
  int           c1 = lt / NE, c2 = 0;
#pragma unroll
  for (int i = 0; i < (NE * NE + GH - 1) / GH; i++) {
    const int rho = lt / NE + i * GH; // c1 + NE c2
    if (lt < GH * NE && rho < NE * NE) {
      const int     f1 = b1 + c1, f2 = b2 + c2;
      const bool    in  = ok0 && f1 > 0 && f1 <= bx.n[1] && f2 > 0 && f2 <= bx.n[2];
      const double *src = in ? x + (size_t)(f0 - 1 - bx.lo[0]) + (size_t)(f1 - 1 - bx.lo[1]) * s1 + (size_t)(f2 - 1 - bx.lo[2]) * s2 : x;
      if constexpr (ASYNC) VPCopyAsync(reinterpret_cast<double *>(xs) + c0 + NE * rho, src, in);
      else xs[c0 + NE * rho] = in ? (T)*src : (T)0;
    }
    c1 += GH;
    if (c1 >= NE) {
      c1 -= NE;
      c2++;
    }
  }
  if constexpr (ASYNC) VPCopyCommit();
}

// A forest's patch (TAB): its 8 cells around the vertex (x lowest bit, from the forest's patch-cell table) and the position
// in the local vectors of closure node (c0, c1, c2) through the cell-node table node ((k+1)^3 a cell; -1: Dirichlet node)
template <int K> __device__ inline long VPPairTableNode(const int *cells, const int *node, int c0, int c1, int c2)
{
  constexpr int N = K + 1;
  const int     b0 = c0 > K, b1 = c1 > K, b2 = c2 > K;
  return node[(size_t)cells[b0 | (b1 << 1) | (b2 << 2)] * (N * N * N) + (c0 - b0 * K) + N * ((c1 - b1 * K) + N * (c2 - b2 * K))];
}

// VPPairGather's rows through the tables
template <typename T, int K, int L, bool ASYNC> __device__ inline void VPPairGatherTable(const int *cells, const int *node, bool active, int lt, const double *x, T *xs)
{
  using P          = VPPair<K, L>;
  constexpr int NE = P::NE, GH = P::GH;
  const int     c0 = lt % NE;
  int           c1 = lt / NE, c2 = 0;
#pragma unroll
  for (int i = 0; i < (NE * NE + GH - 1) / GH; i++) {
    const int rho = lt / NE + i * GH; // c1 + NE c2
    if (lt < GH * NE && rho < NE * NE) {
      const long    id  = active ? VPPairTableNode<K>(cells, node, c0, c1, c2) : -1;
      const bool    in  = id >= 0;
      const double *src = in ? x + id : x;
      if constexpr (ASYNC) VPCopyAsync(reinterpret_cast<double *>(xs) + c0 + NE * rho, src, in);
      else xs[c0 + NE * rho] = in ? (T)*src : (T)0;
    }
    c1 += GH;
    if (c1 >= NE) {
      c1 -= NE;
      c2++;
    }
  }
  if constexpr (ASYNC) VPCopyCommit();
}

// the closure of the patch at v: the box's vertex v in bx, or (TAB) the forest patch whose cells v lists
template <typename T, int K, int L, bool ASYNC, bool TAB> __device__ inline void VPPairGatherAny(const VPCudaBox &bx, const int *v, const int *node, bool active, int lt, const double *x, T *xs)
{
  if constexpr (TAB) VPPairGatherTable<T, K, L, ASYNC>(v, node, active, lt, x, xs);
  else VPPairGather<T, K, L, ASYNC>(bx, v, active, lt, x, xs);
}

// The fast diagonalization's three kinds of NI x NI contraction, F = x + NI y + NI^2 z in shared memory. The second line
// of a pair is computed even where it does not exist (the caller stores only existing ones).
// z, on the thread's two lines in registers: out_l[i] = sum_z S[i][z] in_l[z]. PAIRED: S has rows of NI + 1 words from
// an even word and is read two entries a load (the last pair's second word is padding, never used).
template <typename T, int NI, bool PAIRED> __device__ inline void VPPairZ(const T *S, const T (&in0)[NI], const T (&in1)[NI], T (&out0)[NI], T (&out1)[NI])
{
  using T2         = typename VPPairVec2<T>::type;
  constexpr int NP = (NI + 1) / 2; // pairs a padded row
#pragma unroll
  for (int i = 0; i < NI; i++) {
    T u0 = 0, u1 = 0;
    if constexpr (PAIRED) {
#pragma unroll
      for (int zz = 0; zz < NP; zz++) {
        const T2 s = reinterpret_cast<const T2 *>(S)[i * NP + zz];
        u0 += s.x * in0[2 * zz];
        u1 += s.x * in1[2 * zz];
        if (2 * zz + 1 < NI) {
          u0 += s.y * in0[2 * zz + 1];
          u1 += s.y * in1[2 * zz + 1];
        }
      }
    } else {
#pragma unroll
      for (int z = 0; z < NI; z++) {
        const T s = S[i * NI + z];
        u0 += s * in0[z];
        u1 += s * in1[z];
      }
    }
    out0[i] = u0;
    out1[i] = u1;
  }
}

// y, column pair (a, q0), (a, q1), shared to shared: out[a, q, z] = sum_j S[q][j] in[a, j, z]; both lines read the same words
template <typename T, int NI> __device__ inline void VPPairY(const T *S, int a, int q0, int q1, bool second, const T *in, T *out)
{
  T s0[NI], s1[NI];
  VPPairRow<T, NI>(S + q0 * NI, s0);
  VPPairRow<T, NI>(S + q1 * NI, s1);
#pragma unroll
  for (int z = 0; z < NI; z++) {
    T u0 = 0, u1 = 0;
#pragma unroll
    for (int j = 0; j < NI; j++) {
      const T f = in[a + NI * j + NI * NI * z];
      u0 += s0[j] * f;
      u1 += s1[j] * f;
    }
    out[a + NI * q0 + NI * NI * z] = u0;
    if (second) out[a + NI * q1 + NI * NI * z] = u1;
  }
}

// x, row pair (a0, q), (a1, q), shared to registers: u_l[z] = sum_j row_l[j] in[j, q, z]; both lines read the same words
template <typename T, int NI> __device__ inline void VPPairX(const T (&row0)[NI], const T (&row1)[NI], int q, const T *in, T (&u0)[NI], T (&u1)[NI])
{
#pragma unroll
  for (int z = 0; z < NI; z++) {
    T a0 = 0, a1 = 0;
#pragma unroll
    for (int j = 0; j < NI; j++) {
      const T f = in[j + NI * q + NI * NI * z];
      a0 += row0[j] * f;
      a1 += row1[j] * f;
    }
    u0[z] = a0;
    u1[z] = a1;
  }
}

// M_z[i][z] and K_z[i][z] (i interior, z closure) are zero unless both nodes lie in one of the patch's two cells: an
// interior node i + 1 < k of the first cell does not couple with z > k, one i + 1 > k of the second cell not with z < k.
// VPPairLayoutCreate checks that the operator's matrices have these zeros (else the generic kernel runs).
__host__ __device__ constexpr bool VPPairZero(int k, int i, int z)
{
  return (i < k - 1 && z > k) || (i > k - 1 && z < k);
}

// The x step of FOLD: X_K and X_M (NI x NE x NE) from the closure xs (NE^3), without the zero entries of K_x and M_x.
// Each interior row has k + 1 entries that may be nonzero, but the vertex row (i = k - 1) has 2k + 1, which one row
// per thread would make every warp wait for. So a row is split at the vertex into a first-cell part (columns 0..k)
// and a second-cell part (columns k..2k), 2k parts of k + 1 entries, and thread (h, q), h < k, q < NE, takes the
// first-cell part of row h and the second-cell part of row 2k - 2 - h: all threads the same k + 1 + k + 1 entries, and
// the thread h = k - 1 both parts of the vertex row (its second part without column k, counted in the first). The
// two parts share the closure word of column k. 2k(k + 1) FMAs a kind and line against (2k - 1)(2k + 1) (k = 3: 24
// against 35), on k (2k + 1) threads instead of (2k - 1)(2k + 1).
template <typename T, int K> __device__ inline void VPPairFoldX(const T *Kx, const T *Mx, const T *xs, int lt, T *XK, T *XM)
{
  constexpr int NE = 2 * K + 1, NI = 2 * K - 1;
  if (lt >= K * NE) return;
  const int  h = lt % K, q = lt / K, h2 = 2 * K - 2 - h;
  const bool vertex = h == K - 1;
  T          ka[K + 1], ma[K + 1], kb[K + 1], mb[K + 1];
#pragma unroll
  for (int j = 0; j <= K; j++) {
    ka[j] = Kx[h * NE + j];
    ma[j] = Mx[h * NE + j];
    kb[j] = Kx[h2 * NE + K + j];
    mb[j] = Mx[h2 * NE + K + j];
  }
  if (vertex) kb[0] = mb[0] = 0;
#pragma unroll
  for (int z = 0; z < NE; z++) {
    const T *w  = xs + NE * q + NE * NE * z;
    T        sa = 0, ta = 0, sb = 0, tb = 0;
#pragma unroll
    for (int j = 0; j <= 2 * K; j++) {
      const T v = w[j];
      if (j <= K) {
        sa += ka[j] * v;
        ta += ma[j] * v;
      }
      if (j >= K) {
        sb += kb[j - K] * v;
        tb += mb[j - K] * v;
      }
    }
    const int o = NI * q + NI * NE * z;
    if (vertex) {
      sa += sb;
      ta += tb;
    }
    XK[o + h] = sa;
    XM[o + h] = ta;
    if (!vertex) {
      XK[o + h2] = sb;
      XM[o + h2] = tb;
    }
  }
}

// One 3D patch. mem: this patch's shared words; lt: the thread's index in the patch; b, x, target lie in box bx.
// xs: this patch's closure buffer (ASYNC: its copy is under way); vn, an, xn: the next patch of this slot, whether it
// is active, its closure buffer; prev: the class triple whose matrices M holds (c_x + 3 c_y + 9 c_z; -1: none).
template <typename T, int K, int L, typename Op, bool ONE, bool TAB>
__device__ void VPPairPatch(const Op *__restrict__ op, const VPCudaBox &bx, const int *v, const int *node, bool active, int lt, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic, T *mem, T *xs, const int *vn, bool an, T *xn,
                            int &prev, const VPPairArgs &pa)
{
  using P           = VPPair<K, L>;
  constexpr int  NE = P::NE, NI = P::NI, H = P::H, NX = NI * NE * NE, NI2 = NI * NI;
  constexpr bool TWO   = L == 2;
  constexpr bool ASYNC = VPPairWords<T, K, L, ONE>::ASYNC;
  using T2             = typename VPPairVec2<T>::type;
  using W              = VPPairMats<T, K, L>;
  T *XK = mem, *XM = XK + NX, *F1 = ONE ? XM : xs, *F2 = XK;
  // the staged matrices (VPPairStage); PAIRED: from an even word (the patches of a block lie an odd number of words apart)
  T *const     M  = XM + NX + (W::PAIRED ? (reinterpret_cast<uintptr_t>(XM + NX) / sizeof(T)) & 1 : 0);
  const T     *Kx = M + W::KX, *Mx = M + W::MX, *Ky = M + W::KY, *My = M + W::MY, *Mz = M + W::MZ, *Kz = M + W::KZ;
  const T     *Stx = M + W::STX, *Sty = M + W::STY, *Sx = M + W::SX, *Sy = M + W::SY, *Stz = M + W::STZ, *Sz = M + W::SZ;
  const T     *lam0 = M + W::LAM, *lam1 = lam0 + NI, *lam2 = lam1 + NI;
  const T2    *MKz = reinterpret_cast<const T2 *>(M + W::MKZ); // PAIRED: (M_z[i][z], K_z[i][z]) at z NI + i
  const size_t s1 = (size_t)bx.m[0], s2 = (size_t)bx.m[0] * (size_t)bx.m[1];
  int          cls[3] = {1, 1, 1}, base[3] = {0, 0, 0};

  if (active && !TAB) // a forest's patches are all of the interior class
    for (int d = 0; d < 3; d++) {
      cls[d]  = VPPairClass(v[d], (bx.n[d] + 1) / K);
      base[d] = (v[d] - 1) * K; // full-grid node of closure index 0; interior index of closure c: base + c - 1
    }
  // column pair (a, q), (a, q + H) and row pair (a, q), (a + H, q) of the lt < PAIRS threads
  const bool pairthr = lt < P::PAIRS;
  const int  ca = lt % NI, cq = lt / NI, rh = lt % H, rq = lt / H;
  const bool csecond = TWO && pairthr && cq + H < NI, rsecond = TWO && rh + H < NI;
  const int  cq1 = csecond ? cq + H : cq, ra1 = rsecond ? rh + H : rh;

  // most patches have the class triple of the previous patch of their slot (interior ones): M holds its matrices
  if (cls[0] + 3 * cls[1] + 9 * cls[2] != prev) {
    VPPairStage<T, K, L, Op>(op, cls, lt, pa, M);
    prev = cls[0] + 3 * cls[1] + 9 * cls[2];
  }
  if (x && !ASYNC) VPPairGatherAny<T, K, L, false, TAB>(bx, v, node, active, lt, x, xs);
  // the thread's two residual lines start from b
  T r0[NI], r1[NI];
  if constexpr (TAB) {
    const bool ld = pairthr && active;
#pragma unroll
    for (int z = 0; z < NI; z++) {
      r0[z] = ld ? (T)b[VPPairTableNode<K>(v, node, ca + 1, cq + 1, z + 1)] : (T)0;
      r1[z] = TWO && ld ? (T)b[VPPairTableNode<K>(v, node, ca + 1, cq1 + 1, z + 1)] : (T)0;
    }
  } else {
    const bool   ld = pairthr && active;
    const size_t i0 = ld ? (size_t)(base[0] + ca - bx.lo[0]) + (size_t)(base[1] + cq - bx.lo[1]) * s1 + (size_t)(base[2] - bx.lo[2]) * s2 : 0;
    const size_t i1 = ld ? i0 + (size_t)(cq1 - cq) * s1 : 0;
#pragma unroll
    for (int z = 0; z < NI; z++) {
      r0[z] = ld ? (T)b[i0 + z * s2] : (T)0;
      r1[z] = TWO && ld ? (T)b[i1 + z * s2] : (T)0;
    }
  }
  if (x && ASYNC) VPCopyWait();
  __syncthreads(); // the closure is in xs, the matrices in M
  // the next patch's closure, into the buffer that the previous patch (past the barrier above) is done with
  if (!ONE && x && ASYNC && an) VPPairGatherAny<T, K, L, true, TAB>(bx, vn, node, true, lt, x, xn);

  if (x) {
    if constexpr (P::FOLD) VPPairFoldX<T, K>(Kx, Mx, xs, lt, XK, XM);
    else {
      // x step, row pairs, all threads (rq < NE): X_K and X_M at (a, rq, z) for a = rh, rh + H
      T k0[NE], m0[NE], k1[NE], m1[NE];
      VPPairRow<T, NE>(Kx + rh * NE, k0);
      VPPairRow<T, NE>(Mx + rh * NE, m0);
      if constexpr (TWO) {
        VPPairRow<T, NE>(Kx + ra1 * NE, k1);
        VPPairRow<T, NE>(Mx + ra1 * NE, m1);
      }
#pragma unroll
      for (int z = 0; z < NE; z++) {
        T sk0 = 0, sm0 = 0, sk1 = 0, sm1 = 0;
#pragma unroll
        for (int j = 0; j < NE; j++) {
          const T w = xs[j + NE * rq + NE * NE * z];
          sk0 += k0[j] * w;
          sm0 += m0[j] * w;
          if constexpr (TWO) {
            sk1 += k1[j] * w;
            sm1 += m1[j] * w;
          }
        }
        const int o = rh + NI * rq + NI * NE * z;
        XK[o]       = sk0;
        XM[o]       = sm0;
        if (rsecond) {
          XK[o + H] = sk1;
          XM[o + H] = sm1;
        }
      }
    }
    __syncthreads();                                                     // X_K, X_M complete; xs is read no more
    if (ONE && an) VPPairGatherAny<T, K, L, true, TAB>(bx, vn, node, true, lt, x, xs); // the next patch's closure, into the same buffer
    // y step and the z contraction, column pairs: r -= M_z (c_0 M_y X_K + c_1 K_y X_M) + K_z (c_2 M_y X_M)
    if (pairthr) {
      const T c0 = op->coef[pa.term[0]], c1 = op->coef[pa.term[1]], c2 = op->coef[pa.term[2]];
      T       my0[NE], ky0[NE], my1[NE], ky1[NE];
      VPPairRow<T, NE>(My + cq * NE, my0);
      VPPairRow<T, NE>(Ky + cq * NE, ky0);
      if constexpr (TWO) {
        VPPairRow<T, NE>(My + cq1 * NE, my1);
        VPPairRow<T, NE>(Ky + cq1 * NE, ky1);
      }
#pragma unroll
      for (int z = 0; z < NE; z++) {
        T a0 = 0, b0 = 0, d0 = 0, a1 = 0, b1 = 0, d1 = 0;
#pragma unroll
        for (int j = 0; j < NE; j++) {
          const T xk = XK[ca + NI * j + NI * NE * z], xm = XM[ca + NI * j + NI * NE * z];
          a0 += my0[j] * xk;
          b0 += ky0[j] * xm;
          d0 += my0[j] * xm;
          if constexpr (TWO) {
            a1 += my1[j] * xk;
            b1 += ky1[j] * xm;
            d1 += my1[j] * xm;
          }
        }
        const T w0 = c0 * a0 + c1 * b0, v0 = c2 * d0, w1 = c0 * a1 + c1 * b1, v1 = c2 * d1;
#pragma unroll
        for (int i = 0; i < NI; i++) {
          if (VPPairZero(K, i, z)) continue; // known at compile time
          T mz, kz;
          if constexpr (W::PAIRED) {
            const T2 mk = MKz[z * NI + i];
            mz          = mk.x;
            kz          = mk.y;
          } else {
            mz = Mz[i * NE + z];
            kz = Kz[i * NE + z];
          }
          r0[i] -= mz * w0 + kz * v0;
          if constexpr (TWO) r1[i] -= mz * w1 + kz * v1;
        }
      }
    }
  }

  // fast diagonalization S_x S_y S_z diag^-1 S_z^T S_y^T S_x^T r, F = x + NI y + NI^2 z
  if constexpr (ONE) __syncthreads(); // F1 is X_M: every thread is past its reads of it
  // step 1, column pairs: S_z^T on the thread's lines into F1 (xs: its reads ended at the x step's barrier; X_M: past
  // the barrier above)
  if (pairthr) {
    T u0[NI], u1[NI];
    VPPairZ<T, NI, W::PAIRED>(Stz, r0, r1, u0, u1);
#pragma unroll
    for (int i = 0; i < NI; i++) {
      F1[ca + NI * cq + NI2 * i] = u0[i];
      if (csecond) F1[ca + NI * cq1 + NI2 * i] = u1[i];
    }
  }
  __syncthreads(); // F1 complete; every thread is past its reads of X_K and X_M
  // step 2, column pairs: S_y^T into F2
  if (pairthr) VPPairY<T, NI>(Sty, ca, cq, cq1, csecond, F1, F2);
  __syncthreads();
  // step 3, row pairs (rq < NI): S_x^T, the division by the eigenvalue sums, S_z, into F1
  if (pairthr) {
    T sx0[NI], sx1[NI], w0[NI], w1[NI], u0[NI], u1[NI];
    VPPairRow<T, NI>(Stx + rh * NI, sx0);
    VPPairRow<T, NI>(Stx + ra1 * NI, sx1);
    VPPairX<T, NI>(sx0, sx1, rq, F2, w0, w1);
    const T l0 = lam0[rh] + lam1[rq], l1 = lam0[ra1] + lam1[rq];
#pragma unroll
    for (int z = 0; z < NI; z++) {
      w0[z] /= l0 + lam2[z];
      w1[z] /= l1 + lam2[z];
    }
    VPPairZ<T, NI, W::PAIRED>(Sz, w0, w1, u0, u1);
#pragma unroll
    for (int i = 0; i < NI; i++) {
      F1[rh + NI * rq + NI2 * i] = u0[i];
      if (rsecond) F1[rh + H + NI * rq + NI2 * i] = u1[i];
    }
  }
  __syncthreads();
  // step 4, column pairs: S_y into F2. The rows of step 5 are read here, before the barrier after which M may be
  // overwritten by the next patch.
  T sx0[NI], sx1[NI];
  VPPairRow<T, NI>(Sx + rh * NI, sx0);
  VPPairRow<T, NI>(Sx + ra1 * NI, sx1);
  if (pairthr) VPPairY<T, NI>(Sy, ca, cq, cq1, csecond, F1, F2);
  __syncthreads(); // F2 complete; F1 and M are read no more, so the next patch may gather into xs and stage into M without another barrier
  // step 5, row pairs: S_x, the update of the interior (a forest's: through the tables; one color's interiors are disjoint)
  if constexpr (TAB) {
    if (pairthr && active) {
      T u0[NI], u1[NI];
      VPPairX<T, NI>(sx0, sx1, rq, F2, u0, u1);
#pragma unroll
      for (int z = 0; z < NI; z++) {
        target[VPPairTableNode<K>(v, node, rh + 1, rq + 1, z + 1)] += omega * (double)u0[z];
        if (rsecond) target[VPPairTableNode<K>(v, node, rh + H + 1, rq + 1, z + 1)] += omega * (double)u1[z];
      }
    }
  } else if (pairthr && active) {
    const size_t i0 = (size_t)(base[0] + rh - bx.lo[0]) + (size_t)(base[1] + rq - bx.lo[1]) * s1 + (size_t)(base[2] - bx.lo[2]) * s2;
    T            u0[NI], u1[NI];
    double       old0[NI], old1[NI];
    // EARLY: the values to update (not atomically: no other patch of this color changes them) loaded together before
    // the contraction, one round trip instead of one per value (the compiler does not move a load of target above a
    // store to it). Nsight Compute put 14 % of the double k = 3 stall samples on these waits; the early loads are
    // 3.5-5 % faster in double at k = 5, 6, 8, but not at k = 4 and 7 (within 1 %), k = 3 (1.5 % slower) and in float
    // (up to 13 % slower: spills) (bench/results/gpu-update-loads-h100-2026-11-26.md)
    constexpr bool EARLY = sizeof(T) == 8 && (K == 5 || K == 6 || K == 8);
    if (EARLY && !atomic) {
#pragma unroll
      for (int z = 0; z < NI; z++) {
        old0[z] = target[i0 + z * s2];
        old1[z] = rsecond ? target[i0 + z * s2 + H] : 0.0;
      }
    }
    VPPairX<T, NI>(sx0, sx1, rq, F2, u0, u1);
#pragma unroll
    for (int z = 0; z < NI; z++) {
      double *dst = target + i0 + z * s2;
      if (atomic) {
        atomicAdd(dst, omega * (double)u0[z]);
        if (rsecond) atomicAdd(dst + H, omega * (double)u1[z]);
      } else {
        if constexpr (EARLY) {
          *dst = old0[z] + omega * (double)u0[z];
          if (rsecond) dst[H] = old1[z] + omega * (double)u1[z];
        } else {
          *dst += omega * (double)u0[z];
          if (rsecond) dst[H] += omega * (double)u1[z];
        }
      }
    }
  }
  // no barrier: the next patch writes xs (F1, last read in step 4; with ONE xs is being filled since the x step) and M
  // before its first barrier, X_K (F2) and X_M after it
}

// TAB: a forest's patches; vertex then holds each patch's 8 cells and node the cell-node table (bx is not read)
template <typename T, int K, int L, typename Op, bool ONE, bool TAB>
__global__ void __launch_bounds__(VPPair<K, L>::BLOCK, (VPPairMinBlocks<T, K, L>::value))
    VPPairKernel(const Op *__restrict__ op, VPCudaBox bx, const int *__restrict__ vertex, const int *__restrict__ node, int start, int end, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic, int stride, VPPairArgs pa)
{
  constexpr int PER = TAB ? 8 : 3; // ints per patch in vertex
  using P                 = VPPair<K, L>;
  constexpr bool    ASYNC = VPPairWords<T, K, L, ONE>::ASYNC;
  extern __shared__ __align__(16) unsigned char vp_pair_smem[];
  const int                                     pp = threadIdx.x / P::THREADS, lt = threadIdx.x % P::THREADS, step = gridDim.x * P::PATCHES;
  T                                            *mem = reinterpret_cast<T *>(vp_pair_smem) + pp * stride, *cur = mem + VPPairWords<T, K, L, ONE>::OFFXS, *nxt = cur + (ASYNC && !ONE ? P::XS : 0);
  int                                           prev = -1;

  if (x && ASYNC && start + (int)blockIdx.x * P::PATCHES + pp < end) VPPairGatherAny<T, K, L, true, TAB>(bx, vertex + PER * (start + blockIdx.x * P::PATCHES + pp), node, true, lt, x, cur);
  for (int first = start + blockIdx.x * P::PATCHES; first < end; first += step) {
    const int  p = first + pp, pn = p + step;
    const bool active = p < end, an = pn < end;
    VPPairPatch<T, K, L, Op, ONE, TAB>(op, bx, vertex + PER * (active ? p : start), node, active, lt, b, x, target, omega, atomic, mem, cur, vertex + PER * (an ? pn : start), an, nxt, prev, pa);
    T *t = cur; // the buffers swap
    cur  = nxt;
    nxt  = t;
  }
}

template <typename T, typename Op> struct VPPairEntry {
  void (*kernel)(const Op *, VPCudaBox, const int *, const int *, int, int, const double *, const double *, double *, double, bool, int, VPPairArgs);
  void (*table)(const Op *, VPCudaBox, const int *, const int *, int, int, const double *, const double *, double *, double, bool, int, VPPairArgs); // a forest's patches
  int block, patches, words;
};

template <typename T, typename Op, int K> static VPPairEntry<T, Op> VPPairMake(int lines)
{
  constexpr bool ONE = sizeof(T) == 8; // the one-line double steps refill their one closure buffer (VPPairWords)
  if (lines == 2) return {VPPairKernel<T, K, 2, Op, false, false>, VPPairKernel<T, K, 2, Op, false, true>, VPPair<K, 2>::BLOCK, VPPair<K, 2>::PATCHES, VPPairWords<T, K, 2>::value};
  if (lines == 3) return {VPPairKernel<T, K, 3, Op, ONE, false>, VPPairKernel<T, K, 3, Op, ONE, true>, VPPair<K, 3>::BLOCK, VPPair<K, 3>::PATCHES, VPPairWords<T, K, 3, ONE>::value};
  return {VPPairKernel<T, K, 1, Op, ONE, false>, VPPairKernel<T, K, 1, Op, ONE, true>, VPPair<K, 1>::BLOCK, VPPair<K, 1>::PATCHES, VPPairWords<T, K, 1, ONE>::value};
}

template <typename T, typename Op> static int VPPairGet(int k, int lines, VPPairEntry<T, Op> *e)
{
#define VP_PAIR_CASE(K) \
  case K: \
    *e = VPPairMake<T, Op, K>(lines); \
    return 0;
  switch (k) {
    VP_PAIR_CASE(2)
    VP_PAIR_CASE(3)
    VP_PAIR_CASE(4)
    VP_PAIR_CASE(5)
    VP_PAIR_CASE(6)
    VP_PAIR_CASE(7)
    VP_PAIR_CASE(8)
  default:
    return (int)cudaErrorInvalidValue;
  }
#undef VP_PAIR_CASE
}

int VPPairLayoutCreate(const VPCudaPatchOp_d *op, int k, VPPairLayout *layout)
{
  int used[3] = {0, 0, 0};
  if (op->dim != 3 || op->nterms != 3 || k < 2 || k > 8) return 0;
  layout->k  = k;
  layout->kk = op->kind[0][0];
  layout->km = op->kind[0][1];
  if (layout->kk == layout->km) return 0;
  for (int d = 0; d < 3; d++) layout->term[d] = -1;
  for (int t = 0; t < 3; t++) {
    int stiff = -1, nstiff = 0;
    for (int d = 0; d < 3; d++) {
      if (op->kind[t][d] == layout->kk) {
        stiff = d;
        nstiff++;
      } else if (op->kind[t][d] != layout->km) return 0;
    }
    if (nstiff != 1 || used[stiff]) return 0;
    used[stiff]         = 1;
    layout->term[stiff] = t;
  }
  // the zeros that the kernels skip (VPPairZero): else the generic kernel runs the steps
  for (int d = 0; d < 3; d++)
    for (int c = 0; c < VPC_NCLASS; c++)
      for (int i = 0; i < 2 * k - 1; i++)
        for (int j = 0; j < 2 * k + 1; j++)
          if (VPPairZero(k, i, j) && (op->R[layout->km][d][c][i * (2 * k + 1) + j] != 0 || op->R[layout->kk][d][c][i * (2 * k + 1) + j] != 0)) return 0;
  VPPairSetLines(layout, -1);
  return 1;
}

void VPPairSetLines(VPPairLayout *layout, int lines)
{
  if (lines >= 0 && lines <= 3) {
    layout->lines[0] = layout->lines[1] = lines;
    return;
  }
  // the fastest step on one H100 per degree, double and float (bench/results/gpu-fold-h100-2026-11-26.md): the folded
  // layout (3) in double at k = 2, 3, 5, 6, 7 (2-10 % faster than one line) and in float at k = 2; one line elsewhere
  // (the folded one 4-24 % slower there: fewer resident warps, or spills)
  layout->lines[0] = layout->k == 4 || layout->k == 8 ? 1 : 3;
  layout->lines[1] = layout->k == 2 ? 3 : 1;
}

// cudaErrorNotSupported where a block's shared memory exceeds what the device allows (the caller then runs the generic
// kernel, which needs less)
template <typename T, typename Op> static int VPPairPrepareT(const VPPairLayout *l, size_t *bytes)
{
  VPPairEntry<T, Op> e;
  const int          lines = l->lines[sizeof(T) == 8 ? 0 : 1];
  *bytes                   = 0;
  if (!lines) return 0; // the generic kernel runs these steps
  const int err = VPPairGet<T, Op>(l->k, lines, &e);
  if (err) return err;
  *bytes = (size_t)e.patches * (e.words | 1) * sizeof(T);
  {
    int dev, maxbytes;
    VP_CHECK(cudaGetDevice(&dev));
    VP_CHECK(cudaDeviceGetAttribute(&maxbytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (*bytes > (size_t)maxbytes) return (int)cudaErrorNotSupported;
  }
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

int VPPairPrepare(VPPairLayout *layout, size_t *bytes_d, size_t *bytes_f)
{
  int err = VPPairPrepareT<double, VPCudaPatchOp_d>(layout, bytes_d);
  if (err == (int)cudaErrorNotSupported) layout->lines[0] = 0; // the generic kernel runs these steps
  else if (err) return err;
  err = VPPairPrepareT<float, VPCudaPatchOp_f>(layout, bytes_f);
  if (err == (int)cudaErrorNotSupported) layout->lines[1] = 0;
  else if (err) return err;
  return 0;
}

// bx NULL: a forest's patches (vertex: their cells, node: the cell-node table)
template <typename T, typename Op> static int VPPairLaunchT(const VPPairLayout *l, const Op *op, const VPCudaBox *bx, const int *vertex, const int *node, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks)
{
  VPPairEntry<T, Op> e;
  const int          err = VPPairGet<T, Op>(l->k, l->lines[sizeof(T) == 8 ? 0 : 1], &e);
  const VPPairArgs   pa  = {l->km, l->kk, {l->term[0], l->term[1], l->term[2]}};
  if (err) return err;
  // words per patch, odd: the patches that share a warp start in different banks
  const int stride = e.words | 1, need = (end - start + e.patches - 1) / e.patches, blocks = need < maxblocks ? need : maxblocks;
  if (bx) e.kernel<<<blocks, e.block, (size_t)e.patches * stride * sizeof(T)>>>(op, *bx, vertex, nullptr, start, end, b, x, target, omega, atomic, stride, pa);
  else e.table<<<blocks, e.block, (size_t)e.patches * stride * sizeof(T)>>>(op, VPCudaBox{}, vertex, node, start, end, b, x, target, omega, false, stride, pa);
  VP_CHECK(cudaGetLastError());
  return 0;
}

int VPPairLaunch(const VPPairLayout *layout, int single, const void *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks)
{
  if (end <= start) return 0;
  if (single) return VPPairLaunchT<float, VPCudaPatchOp_f>(layout, (const VPCudaPatchOp_f *)op, bx, vertex, nullptr, start, end, b, x, target, omega, atomic, maxblocks);
  return VPPairLaunchT<double, VPCudaPatchOp_d>(layout, (const VPCudaPatchOp_d *)op, bx, vertex, nullptr, start, end, b, x, target, omega, atomic, maxblocks);
}

int VPPairLaunchTable(const VPPairLayout *layout, int single, const void *op, const int *patchcell, const int *node, int start, int end, const double *b, const double *x, double *target, double omega, int maxblocks)
{
  if (end <= start) return 0;
  if (single) return VPPairLaunchT<float, VPCudaPatchOp_f>(layout, (const VPCudaPatchOp_f *)op, nullptr, patchcell, node, start, end, b, x, target, omega, false, maxblocks);
  return VPPairLaunchT<double, VPCudaPatchOp_d>(layout, (const VPCudaPatchOp_d *)op, nullptr, patchcell, node, start, end, b, x, target, omega, false, maxblocks);
}

double VPPairResidualFlops(int k, int lines)
{
  const double ne = 2 * k + 1, ni = 2 * k - 1, nz = 2.0 * k * k + 2 * k - 1; // nz: entries of M_z, K_z off VPPairZero
  // x: two kinds (folded: 2k parts of k + 1 entries a row instead of 2k - 1 rows of 2k + 1); y: three products; their
  // combination (3 + 1 per line point); z: two terms, each an FMA pair per entry that is not a known zero
  const double x = lines == 3 ? 2 * (2 * (2.0 * k * (k + 1)) * ne * ne) : 2 * (2 * ni * ne * ne * ne);
  return x + 3 * (2 * ni * ni * ne * ne) + 4 * ni * ni * ne + 2 * (2 * ni * ni * nz);
}
