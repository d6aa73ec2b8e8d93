// The vertex-patch smoothing step of the C0 interior-penalty biharmonic (two ghost cells) in 3D with the patch in
// shared memory. The degree is a template argument, so every loop over a 1D extent is unrolled and the per-thread
// lines live in registers, as in the laplace kernel (vpsmooth_tile.cu), whose layout this one extends.
//
// Closure. Per direction the closure has NE = 4k+1 nodes: the NC = 2k+1 nodes of the patch cells (the centre,
// closure indices k..3k) and k nodes of the next cell on each side (the arms). The residual only needs the nodes
// that lie outside the centre in at most one direction (a cross): the other ones are not coupled to the patch
// interior. So shared memory holds the cross without its corners, as three slabs: SX (all NE x nodes, y and z in the
// centre), SY (x in the centre, y in an arm, z in the centre) and SZ (x, y in the centre, z in an arm). At k = 3 that
// is 1,225 of the 2,197 nodes of the full closure.
//
// Residual. Each kind of 1D matrix is either narrow (its columns lie in the centre: mass, stiffness) or wide (it
// reaches into the arms: the biharmonic one, through the face penalty of the normal derivative). A term only
// touches the arm of a direction whose kind is wide, and in an arm the other two directions stay in the centre.
// Per x-kind the x contraction fills one array over a cross of (y, z) lines: the centre lines (over all NE x nodes
// when the kind is wide) and, where a term of this x-kind needs them, the y- and z-arm lines (x in the centre only).
// With the biharmonic's three x-kinds (VPC0ipContractXFused) the three arrays come from one read of each closure word.
// Per term each thread (a, b) then contracts along y into its z line in registers (the y arms where the y kind is
// wide, the z arms where the z kind is), summed with the other terms of the same z kind, and the sum along z in
// registers: one z contraction per z kind (three for the six terms of the biharmonic).
//
// Threads: the x step has NI x NE items (a, q), a < NI the x index, q < NE the y closure index, one per thread (at
// k = 3 thread 0 takes a second one, so that a patch is two whole warps), the centre lines first; the y/z step uses
// groups of NI x NI threads (a, b), each starting a warp at k >= 3, and the fast diagonalization the first two groups
// (half of each line's outputs per thread). In double the closure comes by cp.async, copied during the previous patch
// once its x step is done (the fast diagonalization's arrays then live in the x-kinds' words, not in the closure's):
// 9 % faster at k = 3 than copying it at the patch's start (bench/results/gpu-c0ip-prefetch-h100-2026-11-26.md). The
// 1D matrices are zero-padded to NE columns (a table made once per smoother), so every row starts at closure index 0.
#include "vpsmooth_c0ip.h"
#include "vpcuda_check.h"
#include "vpcopyasync.h"
#include <cuda_runtime.h>

// the layout as the kernel reads it: bit masks over the kinds and one offset per kind, so that a kind known only at
// run time indexes no parameter array (which would go through local memory)
struct VPC0ipBits {
  int wide, needy, needz, off0, off1, off2, stride;
  int order, gstart; // the terms in the groups' order, 4 bits each; group g's terms are order[gstart[g] .. gstart[g + 1])
  int xfused;        // 0, or 1 | kw << 1 | kn0 << 3 | kn1 << 5: one wide x-kind kw without arm lines, two narrow ones
  __device__ int XKind(int i) const { return (xfused >> (1 + 2 * i)) & 3; }
  __device__ int Term(int i) const { return (order >> (4 * i)) & 15; }
  __device__ int GroupStart(int g) const { return (gstart >> (4 * g)) & 15; }
  __device__ int Off(int kind) const { return kind == 0 ? off0 : (kind == 1 ? off1 : off2); }
  __device__ bool Wide(int kind) const { return (wide >> kind) & 1; }
  __device__ bool NeedY(int kind) const { return (needy >> kind) & 1; }
  __device__ bool NeedZ(int kind) const { return (needz >> kind) & 1; }
};

template <int K>
struct VPC0ip {
  static constexpr int NE      = 4 * K + 1;                         // closure nodes per direction
  static constexpr int NC      = 2 * K + 1;                         // centre: the patch cells' nodes
  static constexpr int NI      = 2 * K - 1;                         // patch interior
  static constexpr int NA      = 2 * K;                             // arm nodes, both sides
  static constexpr int OFF_SY  = NE * NC * NC;                      // SX slab first
  static constexpr int OFF_SZ  = OFF_SY + NC * NA * NC;             // then SY
  static constexpr int XWORDS  = OFF_SZ + NC * NC * NA;             // then SZ
  static constexpr int OFF_XY  = NI * NC * NC;                      // per x-kind: the centre lines first
  static constexpr int OFF_XZ  = OFF_XY + NI * NA * NC;             // then the y-arm lines
  static constexpr int KWORDS  = OFF_XZ + NI * NC * NA;             // then the z-arm lines
  static constexpr int ITEMS   = NI * NE;                           // the (a, q) lines of the x step
  // threads per patch: one per item, except where that leaves one item over a whole number of warps (k = 3: 65), where
  // thread 0 also takes the last item (an arm line: a fraction of a centre line's work)
  static constexpr int THREADS = ITEMS % 32 == 1 ? ITEMS - 1 : ITEMS;
  static constexpr int PAIRS   = NI * NI;                           // the threads (a, b) of the y and z steps
  static constexpr int G       = THREADS / PAIRS;                   // groups of them, which share out the terms
  // where group g's threads start (g GSTRIDE, but see VPC0ipThreads): at a warp's start where a patch is whole warps
  // (k >= 3), so that no warp holds two groups, which run different terms and so one after the other; at k = 2 several
  // patches share a warp anyway
  static constexpr int GSTRIDE = K >= 3 ? (PAIRS + 31) / 32 * 32 : PAIRS;
  static constexpr int MAT     = NI * NE;                           // one padded 1D matrix
  static constexpr int PATCHES = K == 3 ? 2 : (192 / THREADS > 0 ? 192 / THREADS : 1); // per block
  static constexpr int BLOCK   = PATCHES * THREADS;
  // resident blocks the registers must allow (the kernel is latency bound): five at k = 3 (blocks of two 64-thread
  // patches; shared memory allows five), four at k = 2, 4 (the shared memory of the c0ip form leaves room for five;
  // five blocks' registers spill), two at k = 5 (unbounded, ptxas takes 254)
  static constexpr int MINBLOCKS = K == 3 ? 5 : (K <= 4 ? 4 : 2);
};

// The thread layout per precision and degree. Groups on warps (GSTRIDE) and the x step's centre items first (CENTRE)
// made one double step 13 % faster at k = 3 (1,598 -> 1,805 MDoF/s) and 2.5 % at k = 5, one float step 5-8 % faster at
// k = 3..5; in double at k = 4 the groups on warps lost 2.7 % (more spills), so there the groups follow each other
// (bench/results/gpu-c0ip-warps-h100-2026-11-26.md).
template <typename T, int K>
struct VPC0ipThreads {
  static constexpr int  GSTRIDE = sizeof(T) == 8 && K == 4 ? VPC0ip<K>::PAIRS : VPC0ip<K>::GSTRIDE;
  static constexpr bool CENTRE  = K >= 3;
};

// closure index of arm node i (i < k: the lower arm, else the upper one)
template <int K>
__device__ __host__ constexpr int VPC0ipArm(int i)
{
  return i < K ? i : i + 2 * K + 1;
}

__device__ inline int VPC0ipClass(int v, int N)
{
  return v == 1 ? 0 : (v == N - 1 ? 2 : 1);
}

// position of interior node (i0, i1, i2) in an array holding box bx
__device__ inline size_t VPC0ipIndex(const VPCudaBox &bx, int i0, int i1, int i2)
{
  return (size_t)(i0 - bx.lo[0]) + (size_t)bx.m[0] * ((size_t)(i1 - bx.lo[1]) + (size_t)bx.m[1] * (size_t)(i2 - bx.lo[2]));
}

// sum_j row[J0 + j] line[j * js], j < NJ; row in registers
// (two partial sums, even and odd j: half the chain of dependent FMAs)
template <typename T, int NE, int J0, int NJ>
__device__ inline T VPC0ipDot(const T (&row)[NE], const T *line, int js)
{
  T acc = 0, acc1 = 0;
#pragma unroll
  for (int j = 0; j < NJ; j++) {
    if (j & 1) acc1 += row[J0 + j] * line[j * js];
    else acc += row[J0 + j] * line[j * js];
  }
  return acc + acc1;
}

template <typename T, int N>
__device__ inline void VPC0ipLoadRow(const T *__restrict__ src, T (&row)[N])
{
#pragma unroll
  for (int j = 0; j < N; j++) row[j] = src[j];
}

// the x contraction of one x-kind by thread (a, q): its centre line or y-arm line, for every z of the cross
template <typename T, int K, bool WIDE>
__device__ inline void VPC0ipContractX(const T *__restrict__ Rrow, const T *xs, T *X, int a, int q, bool needy, bool needz)
{
  using C          = VPC0ip<K>;
  constexpr int NE = C::NE, NC = C::NC, NI = C::NI, NA = C::NA;
  T             row[NE];
  VPC0ipLoadRow<T, NE>(Rrow, row);
  if (q >= K && q <= 3 * K) {
    const int yc = q - K;
#pragma unroll
    for (int zc = 0; zc < NC; zc++) {
      const T *line = xs + NE * (yc + NC * zc);
      X[a + NI * (yc + NC * zc)] = WIDE ? VPC0ipDot<T, NE, 0, NE>(row, line, 1) : VPC0ipDot<T, NE, K, NC>(row, line + K, 1);
    }
    if (needz)
#pragma unroll
      for (int za = 0; za < NA; za++) X[C::OFF_XZ + a + NI * (yc + NC * za)] = VPC0ipDot<T, NE, K, NC>(row, xs + C::OFF_SZ + NC * (yc + NC * za), 1);
  } else if (needy) {
    const int ya = q < K ? q : q - NC;
#pragma unroll
    for (int zc = 0; zc < NC; zc++) X[C::OFF_XY + a + NI * (ya + NA * zc)] = VPC0ipDot<T, NE, K, NC>(row, xs + C::OFF_SY + NC * (ya + NA * zc), 1);
  }
}

// The x contractions of the three x-kinds of the biharmonic together (L.xfused): one wide kind kw without arm lines
// and two narrow ones. A thread (a, q) on a centre line reads each closure word of its lines once for all three kinds
// (three FMAs per word in the centre, one in the arms). A thread on an arm line does the narrow kinds' y-arm lines of
// its arm and, for the arm za = its arm index, their z-arm lines of every centre y: so the arm lines' work, which the
// centre threads did before, is spread over the threads whose own lines are shorter.
template <typename T, int K>
__device__ inline void VPC0ipContractXFused(const T *__restrict__ Rw, const T *__restrict__ Rn0, const T *__restrict__ Rn1, const T *xs, T *Xw, T *Xn0, T *Xn1, int a, int q, const VPC0ipBits &L)
{
  using C          = VPC0ip<K>;
  constexpr int NE = C::NE, NC = C::NC, NI = C::NI, NA = C::NA;
  const int     kn0 = L.XKind(1), kn1 = L.XKind(2);
  if (q >= K && q <= 3 * K) {
    const int yc = q - K;
    T         rw[NE], r0[NC], r1[NC];
    VPC0ipLoadRow<T, NE>(Rw, rw);
    VPC0ipLoadRow<T, NC>(Rn0 + K, r0);
    VPC0ipLoadRow<T, NC>(Rn1 + K, r1);
#pragma unroll
    for (int zc = 0; zc < NC; zc++) {
      const T *line = xs + NE * (yc + NC * zc);
      T        aw = 0, aw1 = 0, a0 = 0, a1 = 0;
#pragma unroll
      for (int j = 0; j < NE; j++) {
        const T v = line[j];
        if (j & 1) aw1 += rw[j] * v;
        else aw += rw[j] * v;
        if (j >= K && j <= 3 * K) {
          a0 += r0[j - K] * v;
          a1 += r1[j - K] * v;
        }
      }
      Xw[a + NI * (yc + NC * zc)]  = aw + aw1;
      Xn0[a + NI * (yc + NC * zc)] = a0;
      Xn1[a + NI * (yc + NC * zc)] = a1;
    }
  } else {
    const int ya = q < K ? q : q - NC;
#pragma unroll
    for (int n = 0; n < 2; n++) {
      const int kind = n ? kn1 : kn0;
      T        *X    = n ? Xn1 : Xn0;
      if (!L.NeedY(kind) && !L.NeedZ(kind)) continue;
      T row[NC];
      VPC0ipLoadRow<T, NC>((n ? Rn1 : Rn0) + K, row);
      if (L.NeedY(kind))
#pragma unroll
        for (int zc = 0; zc < NC; zc++) X[C::OFF_XY + a + NI * (ya + NA * zc)] = VPC0ipDot<T, NC, 0, NC>(row, xs + C::OFF_SY + NC * (ya + NA * zc), 1);
      if (L.NeedZ(kind))
#pragma unroll
        for (int yc = 0; yc < NC; yc++) X[C::OFF_XZ + a + NI * (yc + NC * ya)] = VPC0ipDot<T, NC, 0, NC>(row, xs + C::OFF_SZ + NC * (yc + NC * ya), 1);
    }
  }
}

// one term's y contraction by thread (a, b), added with its coefficient to the z line Ys (closure z indices: the
// centre, and the arms where the term's z kind is wide): Ys += coef R_y X
template <typename T, int K, bool WY, bool WZ>
__device__ inline void VPC0ipTermY(const T *__restrict__ Ryrow, const T *X, int a, T coef, T (&Ys)[4 * K + 1])
{
  using C          = VPC0ip<K>;
  constexpr int NE = C::NE, NC = C::NC, NI = C::NI, NA = C::NA;
  T             row[NE];
  VPC0ipLoadRow<T, NE>(Ryrow, row);
#pragma unroll
  for (int zc = 0; zc < NC; zc++) {
    T acc = VPC0ipDot<T, NE, K, NC>(row, X + a + NI * NC * zc, NI);
    if (WY) {
#pragma unroll
      for (int ya = 0; ya < NA; ya++) acc += row[VPC0ipArm<K>(ya)] * X[C::OFF_XY + a + NI * (ya + NA * zc)];
    }
    Ys[K + zc] += coef * acc;
  }
  if (WZ) {
#pragma unroll
    for (int za = 0; za < NA; za++) Ys[VPC0ipArm<K>(za)] += coef * VPC0ipDot<T, NE, K, NC>(row, X + C::OFF_XZ + a + NI * NC * za, NI);
  }
}

// the z contraction of the summed z line of the terms of one z kind: r -= R_z Ys; Ys is zeroed for the next kind
template <typename T, int K, bool WZ>
__device__ inline void VPC0ipTermZ(const T *__restrict__ Rz, T (&Ys)[4 * K + 1], T (&r)[2 * K - 1])
{
  constexpr int NE = VPC0ip<K>::NE, NI = VPC0ip<K>::NI;
#pragma unroll
  for (int c = 0; c < NI; c++) {
    T acc = 0, acc1 = 0;
    if (WZ) {
#pragma unroll
      for (int z = 0; z < NE; z++) {
        if (z & 1) acc1 += Rz[c * NE + z] * Ys[z];
        else acc += Rz[c * NE + z] * Ys[z];
      }
    } else {
#pragma unroll
      for (int z = K; z <= 3 * K; z++) {
        if (z & 1) acc1 += Rz[c * NE + z] * Ys[z];
        else acc += Rz[c * NE + z] * Ys[z];
      }
    }
    r[c] -= acc + acc1;
  }
#pragma unroll
  for (int z = 0; z < NE; z++) Ys[z] = 0;
}

// The fast diagonalization's 1D steps on this thread's half [i0, i0 + ni) of a line's NI outputs (ni <= H):
// along z, from the line v in registers: out[i] = sum_z A[(i0 + i) NI + z] v[z]
template <typename T, int NI, int H>
__device__ inline void VPC0ipHalfApply(const T *__restrict__ A, const T (&v)[NI], int i0, int ni, T (&out)[H])
{
#pragma unroll
  for (int i = 0; i < H; i++) {
    T acc = 0;
    if (i < ni)
#pragma unroll
      for (int z = 0; z < NI; z++) acc += A[(i0 + i) * NI + z] * v[z];
    out[i] = acc;
  }
}

// along x or y, through shared memory: out[i] = sum_j row[j] in[j js + NI^2 (i0 + i)]
template <typename T, int NI, int H>
__device__ inline void VPC0ipHalfContract(const T *__restrict__ row, const T *in, int js, int i0, int ni, T (&out)[H])
{
#pragma unroll
  for (int i = 0; i < H; i++) {
    T acc = 0;
    if (i < ni)
#pragma unroll
      for (int j = 0; j < NI; j++) acc += row[j] * in[j * js + NI * NI * (i0 + i)];
    out[i] = acc;
  }
}

// stores this thread's half of a line: F[NI^2 (i0 + i)] = out[i]
template <typename T, int NI, int H>
__device__ inline void VPC0ipHalfStore(const T (&out)[H], T *F, int i0, int ni)
{
#pragma unroll
  for (int i = 0; i < H; i++)
    if (i < ni) F[NI * NI * (i0 + i)] = out[i];
}

template <typename T, int NI>
__device__ inline void VPC0ipStore(const T (&line)[NI], T *out, int zs)
{
#pragma unroll
  for (int z = 0; z < NI; z++) out[z * zs] = line[z];
}

// NLINES lines of NX nodes along x (closure indices X0 + i) into dst[i + NX l]; map gives line l's closure indices
// (c1, c2). Consecutive threads read consecutive nodes of a line; each thread keeps its x index over the lines. In
// double the copies go by cp.async, straight to shared memory, all in flight at once (the caller waits for them); in
// float through registers, four passes' loads in flight at once. (A plain loop waited for each pass's load before the
// next: 9 % of the step at k = 5.)
template <typename T, int K, int NX, int X0, int NLINES, typename Map>
__device__ inline void VPC0ipLoadLines(T *dst, const double *x, const VPCudaBox &bx, const int base[3], bool active, int lt, Map map)
{
  constexpr int  PER = VPC0ip<K>::THREADS / NX;        // lines per pass
  constexpr int  CH  = sizeof(T) == 8 ? 1 : 4;         // passes whose loads share the registers' round trip (float)
  constexpr int  PASSES = (NLINES + PER - 1) / PER, CHUNKS = (PASSES + CH - 1) / CH;
  constexpr bool ASYNC = sizeof(T) == 8;
  const int      i = lt % NX, l0 = lt / NX, f0 = base[0] + X0 + i;
  const bool     in0 = active && f0 > 0 && f0 <= bx.n[0];
  if (l0 >= PER) return;
#pragma unroll 1
  for (int ch = 0; ch < CHUNKS; ch++) {
    T val[CH];
#pragma unroll
    for (int p = 0; p < CH; p++) {
      const int l = l0 + (ch * CH + p) * PER;
      if (l < NLINES) {
        int c1, c2;
        map(l, c1, c2);
        const int     f1 = base[1] + c1, f2 = base[2] + c2;
        const bool    in  = in0 && f1 > 0 && f1 <= bx.n[1] && f2 > 0 && f2 <= bx.n[2];
        const double *src = in ? x + VPC0ipIndex(bx, f0 - 1, f1 - 1, f2 - 1) : x;
        if constexpr (ASYNC) VPCopyAsync(reinterpret_cast<double *>(dst) + i + NX * l, src, in);
        else val[p] = in ? (T)*src : (T)0;
      }
    }
    if constexpr (!ASYNC) {
#pragma unroll
      for (int p = 0; p < CH; p++)
        if (l0 + (ch * CH + p) * PER < NLINES) dst[i + NX * (l0 + (ch * CH + p) * PER)] = val[p];
    }
  }
}

// The cross of x at the patch whose closure starts at full-grid node base (nodes outside the brick zero), slab by slab,
// x fastest, into xs; in double by cp.async, committed as one group (the caller waits for it)
template <typename T, int K>
__device__ inline void VPC0ipGather(T *xs, const double *x, const VPCudaBox &bx, const int base[3], bool active, int lt)
{
  using C = VPC0ip<K>;
  constexpr int NC = C::NC, NE = C::NE;
  VPC0ipLoadLines<T, K, NE, 0, NC * NC>(xs, x, bx, base, active, lt, [](int l, int &c1, int &c2) {
    c1 = K + l % NC;
    c2 = K + l / NC;
  });
  VPC0ipLoadLines<T, K, NC, K, C::NA * NC>(xs + C::OFF_SY, x, bx, base, active, lt, [](int l, int &c1, int &c2) {
    c1 = VPC0ipArm<K>(l % C::NA);
    c2 = K + l / C::NA;
  });
  VPC0ipLoadLines<T, K, NC, K, NC * C::NA>(xs + C::OFF_SZ, x, bx, base, active, lt, [](int l, int &c1, int &c2) {
    c1 = K + l % NC;
    c2 = VPC0ipArm<K>(l / NC);
  });
  if (sizeof(T) == 8) VPCopyCommit();
}

// One patch. mem: this patch's shared words (XWORDS for the closure, then the x-kinds' arrays at L.Off(kind)); R: the
// padded 1D matrices, R[((kind * 3 + dir) * 3 + cls) * NI * NE + row * NE + column]. (Keeping the patch's matrices in
// shared memory, as the laplace kernel does, cost blocks per multiprocessor and was slower at every k but the first
// k = 3 layout: bench/results/gpu-c0ip-h100-2026-11-26.md.)
template <typename T, int K, typename Op>
__device__ void VPC0ipPatch(const Op *__restrict__ op, const T *__restrict__ R, const VPC0ipBits &L, const VPCudaBox &bx, const int *v, bool active, int lt, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic, T *mem, const int *vn, bool an)
{
  using C           = VPC0ip<K>;
  constexpr int  NE  = C::NE, NI = C::NI, MAT = C::MAT;
  constexpr bool PRE = sizeof(T) == 8; // the next patch's closure is copied into xs during this patch (after the x step)
  const int      a = lt % NI, q = lt / NI; // q < NE (the item of thread lt)
  T            *xs = mem, *Xs = mem + C::XWORDS;
  int           cls[3] = {1, 1, 1}, base[3] = {0, 0, 0};
  T             r[NI];

  if (active)
    for (int d = 0; d < 3; d++) {
      cls[d]  = VPC0ipClass(v[d], (bx.n[d] + 1) / K);
      base[d] = (v[d] - 2) * K; // full-grid node of closure index 0; interior index of closure c: base + c - 1
    }
  // matrix (kind, dir) of this patch's class along dir
  auto Mat = [&](int kind, int dir) -> const T * { return R + ((kind * 3 + dir) * 3 + (dir == 0 ? cls[0] : (dir == 1 ? cls[1] : cls[2]))) * MAT; };

  // the cross of x: in double already under way (copied by cp.async since the previous patch's x step, or before the
  // first patch); in float gathered here. And the line of b.
  if (x && !PRE) VPC0ipGather<T, K>(xs, x, bx, base, active, lt);
#pragma unroll
  for (int z = 0; z < NI; z++) r[z] = (active && q < NI) ? (T)b[VPC0ipIndex(bx, base[0] + K + a, base[1] + K + q, base[2] + K + z)] : (T)0;
  if (PRE && x) VPCopyWait();
  __syncthreads();

  if (x) {
    // the thread's items (a, q) of the x step: lt, and lt + THREADS where that is one (k = 3, thread 0). The centre
    // lines' items come first and then the arm lines', so that fewer warps hold both kinds, which take different
    // branches one after the other.
    constexpr int NITEMS = (C::ITEMS + C::THREADS - 1) / C::THREADS, NCI = C::NC * NI;
#pragma unroll
    for (int s = 0; s < NITEMS; s++) {
      const int it = lt + s * C::THREADS, ia = it % NI, arm = (it - NCI) / NI;
      const int iq = !VPC0ipThreads<T, K>::CENTRE ? it / NI : (it < NCI ? K + it / NI : (arm < K ? arm : arm + C::NC));
      if (it >= C::ITEMS) break;
      if (L.xfused) {
        const int kw = L.XKind(0), kn0 = L.XKind(1), kn1 = L.XKind(2);
        VPC0ipContractXFused<T, K>(Mat(kw, 0) + ia * NE, Mat(kn0, 0) + ia * NE, Mat(kn1, 0) + ia * NE, xs, Xs + L.Off(kw), Xs + L.Off(kn0), Xs + L.Off(kn1), ia, iq, L);
      } else
        for (int kind = 0; kind < VPC_KINDS; kind++) {
          if (L.Off(kind) < 0) continue;
          if (L.Wide(kind)) VPC0ipContractX<T, K, true>(Mat(kind, 0) + ia * NE, xs, Xs + L.Off(kind), ia, iq, L.NeedY(kind), L.NeedZ(kind));
          else VPC0ipContractX<T, K, false>(Mat(kind, 0) + ia * NE, xs, Xs + L.Off(kind), ia, iq, L.NeedY(kind), L.NeedZ(kind));
        }
    }
    __syncthreads();
    if (PRE && an) { // xs is read no more: the next patch's closure, in flight during the rest of this patch
      int nbase[3];
      for (int d = 0; d < 3; d++) nbase[d] = (vn[d] - 2) * K;
      VPC0ipGather<T, K>(xs, x, bx, nbase, true, lt);
    }
    // the terms are shared out to G groups of NI x NI threads (a, b) (thread lt = a + NI b + NI^2 group), so that the
    // threads with q >= NI work too; a group's terms come by z kind (L.order), and the terms of one z kind share one
    // z contraction of their summed y results. Group 0's r starts from b; the groups' partial residuals are summed in
    // the first step of the fast diagonalization.
    constexpr int G   = C::G;
    const int     grp = lt / VPC0ipThreads<T, K>::GSTRIDE, tp = lt % VPC0ipThreads<T, K>::GSTRIDE, ta = tp % NI, tb = tp / NI;
    if (grp < G && tp < C::PAIRS) {
      T         Ys[NE];
      const int i1 = L.GroupStart(grp + 1);
#pragma unroll
      for (int z = 0; z < NE; z++) Ys[z] = 0;
      for (int i = L.GroupStart(grp); i < i1; i++) {
        const int t = L.Term(i), ky = op->kind[t][1], kz = op->kind[t][2];
        const T  *Ry = Mat(ky, 1) + tb * NE, *X = Xs + L.Off(op->kind[t][0]);
        const T   c = op->coef[t];
        const bool wz = L.Wide(kz);
        if (L.Wide(ky)) {
          if (wz) VPC0ipTermY<T, K, true, true>(Ry, X, ta, c, Ys);
          else VPC0ipTermY<T, K, true, false>(Ry, X, ta, c, Ys);
        } else {
          if (wz) VPC0ipTermY<T, K, false, true>(Ry, X, ta, c, Ys);
          else VPC0ipTermY<T, K, false, false>(Ry, X, ta, c, Ys);
        }
        if (i + 1 == i1 || op->kind[L.Term(i + 1)][2] != kz) {
          if (wz) VPC0ipTermZ<T, K, true>(Mat(kz, 2), Ys, r);
          else VPC0ipTermZ<T, K, false>(Mat(kz, 2), Ys, r);
        }
      }
    }
  }

  // Fast diagonalization, F = S (Lambda^-1) S^T r, on 2 NI^2 threads: thread (fa, fq, grp) computes the outputs
  // [i0, i0 + ni) of the line (fa, fq) of each 1D step (grp = 0: the first half, 1: the rest), through shared memory;
  // P: the residual's partial sums of the thread groups of the y/z step (NI^3 words each, x + NI y + NI^2 z); F1 and
  // F2 the steps' arrays: F1 in the x-kinds' arrays, P and F2 after it in double (the closure's buffer is receiving the
  // next patch), in the closure's buffer in float.
  constexpr int N3 = NI * NI * NI, N2 = NI * NI, H0 = (NI + 1) / 2;
  static_assert((C::G - 1) * VPC0ipThreads<T, K>::GSTRIDE + C::PAIRS <= C::THREADS && C::G >= 2 && (C::G + 1) * N3 <= C::XWORDS && (C::G + 2) * N3 <= C::KWORDS, "the groups, the fast diagonalization's threads and arrays fit the patch's");
  const int     grp = lt / VPC0ipThreads<T, K>::GSTRIDE, fp = lt % VPC0ipThreads<T, K>::GSTRIDE, fa = fp % NI, fq = fp / NI;
  const bool    fdm = grp < 2 && fp < C::PAIRS, ingroup = grp < C::G && fp < C::PAIRS;
  const int     i0 = grp * H0, ni = grp ? NI - H0 : H0, line = fa + NI * fq;
  T            *P = PRE ? Xs + N3 : xs, *F1 = Xs, *F2 = P + C::G * N3;
  __syncthreads(); // the residual's reads of xs and Xs are done
  if (ingroup) VPC0ipStore<T, NI>(r, P + grp * N3 + line, N2);
  __syncthreads();
  T w[H0];
  if (fdm) { // F1 = S_z^T r, r summed over the groups
    T rl[NI];
#pragma unroll
    for (int z = 0; z < NI; z++) {
      rl[z] = P[line + N2 * z];
#pragma unroll
      for (int g = 1; g < C::G; g++) rl[z] += P[g * N3 + line + N2 * z];
    }
    VPC0ipHalfApply<T, NI, H0>(op->St[2][cls[2]], rl, i0, ni, w);
    VPC0ipHalfStore<T, NI, H0>(w, F1 + line, i0, ni);
  }
  __syncthreads();
  if (fdm) { // F2 = S_y^T F1
    VPC0ipHalfContract<T, NI, H0>(op->St[1][cls[1]] + fq * NI, F1 + fa, NI, i0, ni, w);
    VPC0ipHalfStore<T, NI, H0>(w, F2 + line, i0, ni);
  }
  __syncthreads();
  if (fdm) { // F1 = Lambda^-1 S_x^T F2
    const T lxy = op->lambda[0][cls[0]][fa] + op->lambda[1][cls[1]][fq];
    VPC0ipHalfContract<T, NI, H0>(op->St[0][cls[0]] + fa * NI, F2 + NI * fq, 1, i0, ni, w);
#pragma unroll
    for (int i = 0; i < H0; i++)
      if (i < ni) w[i] /= lxy + op->lambda[2][cls[2]][i0 + i];
    VPC0ipHalfStore<T, NI, H0>(w, F1 + line, i0, ni);
  }
  __syncthreads();
  if (fdm) { // F2 = S_z F1
    T wl[NI];
#pragma unroll
    for (int z = 0; z < NI; z++) wl[z] = F1[line + N2 * z];
    VPC0ipHalfApply<T, NI, H0>(op->S[2][cls[2]], wl, i0, ni, w);
    VPC0ipHalfStore<T, NI, H0>(w, F2 + line, i0, ni);
  }
  __syncthreads();
  if (fdm) { // F1 = S_y F2
    VPC0ipHalfContract<T, NI, H0>(op->S[1][cls[1]] + fq * NI, F2 + fa, NI, i0, ni, w);
    VPC0ipHalfStore<T, NI, H0>(w, F1 + line, i0, ni);
  }
  __syncthreads();
  if (fdm && active) { // target += omega S_x F1
    // EARLY: the values to update (not atomically: no other patch of this color changes them) loaded together before
    // the contraction, one round trip instead of one per value: 1.2-1.9 % faster in double at k = 3, 4 and 3.6-3.8 %
    // in float at k = 4, 5; not at k = 2 and in float at k = 3 (within 1 %), and 1.5 % slower in double at k = 5
    // (spills) (bench/results/gpu-update-loads-h100-2026-11-26.md)
    constexpr bool EARLY = sizeof(T) == 8 ? K == 3 || K == 4 : K >= 4;
    double        *dst = target + VPC0ipIndex(bx, base[0] + K + fa, base[1] + K + fq, base[2] + K + i0), old[H0];
    const size_t   zs  = (size_t)bx.m[0] * (size_t)bx.m[1];
    if (EARLY && !atomic)
#pragma unroll
      for (int i = 0; i < H0; i++) old[i] = i < ni ? dst[i * zs] : 0.0;
    VPC0ipHalfContract<T, NI, H0>(op->S[0][cls[0]] + fa * NI, F1 + NI * fq, 1, i0, ni, w);
#pragma unroll
    for (int i = 0; i < H0; i++)
      if (i < ni) {
        if (atomic) atomicAdd(dst + i * zs, omega * (double)w[i]);
        else if (EARLY) dst[i * zs] = old[i] + omega * (double)w[i];
        else dst[i * zs] += omega * (double)w[i];
      }
  }
  __syncthreads(); // the next patch of this block overwrites the shared arrays
}

template <typename T, int K, typename Op>
__global__ void __launch_bounds__(VPC0ip<K>::BLOCK, VPC0ip<K>::MINBLOCKS) VPC0ipKernel(const Op *__restrict__ op, const T *__restrict__ R, VPC0ipBits L, VPCudaBox bx, const int *__restrict__ vertex, int start, int end, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic)
{
  using C = VPC0ip<K>;
  extern __shared__ __align__(16) unsigned char vp_c0ip_smem[];
  const int pp = threadIdx.x / C::THREADS, lt = threadIdx.x % C::THREADS;
  T        *mem = reinterpret_cast<T *>(vp_c0ip_smem) + pp * L.stride;

  const int step = gridDim.x * C::PATCHES, p0 = start + blockIdx.x * C::PATCHES + pp;
  if (sizeof(T) == 8 && x && p0 < end) { // the first patch's closure (each later one is copied during the patch before it)
    int base[3];
    for (int d = 0; d < 3; d++) base[d] = (vertex[3 * p0 + d] - 2) * K;
    VPC0ipGather<T, K>(mem, x, bx, base, true, lt);
  }
  for (int first = start + blockIdx.x * C::PATCHES; first < end; first += step) {
    const int  p = first + pp, pn = p + step;
    const bool active = p < end, an = pn < end;
    VPC0ipPatch<T, K, Op>(op, R, L, bx, vertex + 3 * (active ? p : start), active, lt, b, x, target, omega, atomic, mem, vertex + 3 * (an ? pn : start), an);
  }
}

template <typename T, typename Op>
struct VPC0ipEntry {
  void (*kernel)(const Op *, const T *, VPC0ipBits, VPCudaBox, const int *, int, int, const double *, const double *, double *, double, bool);
  int block, patches, words, groups; // groups: of the threads of the y and z steps (VPC0ip::G)
};

template <typename T, typename Op, int K>
static VPC0ipEntry<T, Op> VPC0ipMake(int xwords)
{
  using C         = VPC0ip<K>;
  const int fdm   = (sizeof(T) == 8 ? C::G + 2 : 1) * C::NI * C::NI * C::NI; // the fast diagonalization's arrays in the x-kinds' words
  const int words = C::XWORDS + (xwords > fdm ? xwords : fdm);
  return {VPC0ipKernel<T, K, Op>, C::BLOCK, C::PATCHES, words, C::G};
}

template <typename T, typename Op>
static int VPC0ipGet(int k, int xwords, VPC0ipEntry<T, Op> *e)
{
  switch (k) {
  case 2:
    *e = VPC0ipMake<T, Op, 2>(xwords);
    return 0;
  case 3:
    *e = VPC0ipMake<T, Op, 3>(xwords);
    return 0;
  case 4:
    *e = VPC0ipMake<T, Op, 4>(xwords);
    return 0;
  case 5:
    *e = VPC0ipMake<T, Op, 5>(xwords);
    return 0;
  default:
    return (int)cudaErrorNotSupported;
  }
}

// the padded matrices of one precision: R[kind][dir][cls] as ni x ne with the columns at their closure index
template <typename T, typename Op>
static int VPC0ipPadMatrices(const Op *op, T **R)
{
  const int ne = op->ne, ni = op->ni, mat = ni * ne;
  T        *h  = new T[(size_t)27 * mat]();
  for (int kind = 0; kind < VPC_KINDS; kind++)
    for (int d = 0; d < op->dim; d++)
      for (int c = 0; c < VPC_NCLASS; c++)
        for (int i = 0; i < ni; i++)
          for (int j = 0; j < op->ncols[kind]; j++) h[((kind * 3 + d) * 3 + c) * mat + i * ne + op->coloff[kind] + j] = op->R[kind][d][c][i * op->ncols[kind] + j];
  cudaError_t err = cudaMalloc(R, (size_t)27 * mat * sizeof(T));
  if (err == cudaSuccess) err = cudaMemcpy(*R, h, (size_t)27 * mat * sizeof(T), cudaMemcpyHostToDevice);
  delete[] h;
  return (int)err;
}

template <typename T, typename Op>
static int VPC0ipPrepareT(VPC0ipLayout *L, int maxbytes)
{
  VPC0ipEntry<T, Op> e;
  const int          err = VPC0ipGet<T, Op>(L->k, L->xwords, &e);
  if (err) return err;
  const int    stride = e.words | 1; // odd, so that the patches of one block start in different banks
  const size_t bytes  = (size_t)e.patches * stride * sizeof(T);
  if (bytes > (size_t)maxbytes) return (int)cudaErrorNotSupported;
  L->stride[sizeof(T) == 8 ? 0 : 1] = stride;
  // the limit belongs to the kernel, which the smoothers of all levels share, and their layouts differ (the coarsest
  // grid's 1D matrices reach fewer columns): only ever raise it
  cudaFuncAttributes attr;
  VP_CHECK(cudaFuncGetAttributes(&attr, e.kernel));
  if ((int)bytes > attr.maxDynamicSharedSizeBytes) VP_CHECK(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  return 0;
}

// Shares the terms out to the G groups of threads of the y and z steps (L->order, L->gstart). With two groups (k = 3..5)
// the terms of one z kind go to one group, where they share one z contraction, and the z kinds go to the groups by
// their cost, largest first to the group with the least so far (cost: per thread (a, b), the y and z steps' FMAs).
// With three groups (k = 2) round robin, one term after another: there it was 6 % faster than grouping by z kind,
// which leaves one group three terms (bench/results/gpu-c0ip-h100-2026-11-26.md).
static void VPC0ipShareTerms(const VPCudaPatchOp_d *op, int k, int G, VPC0ipLayout *L)
{
  const int ne = 4 * k + 1, nc = 2 * k + 1, ni = 2 * k - 1, na = 2 * k;
  int       cost[VPC_KINDS] = {0}, group[VPC_KINDS] = {0}, load[4] = {0}, done[VPC_KINDS] = {0}, n = 0;

  L->order = L->gstart = 0;
  if (G >= 3) {
    for (int g = 0; g < G; g++) {
      L->gstart |= n << (4 * g);
      for (int t = g; t < op->nterms; t += G) L->order |= t << (4 * n++);
    }
    L->gstart |= n << (4 * G);
    return;
  }
  for (int t = 0; t < op->nterms; t++) {
    const int ky = op->kind[t][1], kz = op->kind[t][2];
    if (!cost[kz]) cost[kz] = ni * (L->wide[kz] ? ne : nc);
    cost[kz] += nc * nc + (L->wide[ky] ? na * nc : 0) + (L->wide[kz] ? na * nc : 0);
  }
  for (int i = 0; i < VPC_KINDS; i++) {
    int kz = -1, g = 0;
    for (int c = 0; c < VPC_KINDS; c++)
      if (cost[c] && !done[c] && (kz < 0 || cost[c] > cost[kz])) kz = c;
    if (kz < 0) break;
    for (int h = 1; h < G; h++)
      if (load[h] < load[g]) g = h;
    done[kz]  = 1;
    group[kz] = g;
    load[g] += cost[kz];
  }
  for (int g = 0; g < G; g++) {
    L->gstart |= n << (4 * g);
    for (int kz = 0; kz < VPC_KINDS; kz++)
      if (cost[kz] && group[kz] == g)
        for (int t = 0; t < op->nterms; t++)
          if (op->kind[t][2] == kz) L->order |= t << (4 * n++);
  }
  L->gstart |= n << (4 * G);
}

int VPC0ipCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, int k, VPC0ipLayout *L)
{
  int dev, maxbytes, err;
  if (!VPCudaSmootherSharedC0IP(op_d, 2, k)) return (int)cudaErrorNotSupported;
  L->k      = k;
  L->xwords = 0;
  for (int kind = 0; kind < VPC_KINDS; kind++) {
    L->xoff[kind] = -1;
    L->wide[kind] = op_d->ncols[kind] > 0 && (op_d->coloff[kind] < k || op_d->coloff[kind] + op_d->ncols[kind] - 1 > 3 * k);
    L->needy[kind] = L->needz[kind] = 0;
  }
  for (int t = 0; t < op_d->nterms; t++) {
    const int kx = op_d->kind[t][0];
    L->xoff[kx]  = 0;
    L->needy[kx] |= L->wide[op_d->kind[t][1]];
    L->needz[kx] |= L->wide[op_d->kind[t][2]];
  }
  // an x-kind's array: its centre lines, and the arm lines where a term needs them (VPC0ip's OFF_XY, KWORDS)
  for (int kind = 0; kind < VPC_KINDS; kind++) {
    const int ni = 2 * k - 1, nc = 2 * k + 1, na = 2 * k;
    if (L->xoff[kind] < 0) continue;
    L->xoff[kind] = L->xwords;
    L->xwords += L->needy[kind] || L->needz[kind] ? ni * (nc * nc + 2 * na * nc) : ni * nc * nc;
  }
  {
    VPC0ipEntry<double, VPCudaPatchOp_d> e;
    if ((err = VPC0ipGet<double, VPCudaPatchOp_d>(k, 0, &e))) return err;
    VPC0ipShareTerms(op_d, k, e.groups, L);
  }
  {
    /* the three x-kinds together where there are three, one of them wide without arm lines (the biharmonic's on the
       finer levels; on a coarse grid whose 1D matrices reach less, the kinds one by one) */
    int nx = 0, nwide = 0, kw = -1, kn[2] = {-1, -1}, nn = 0;
    for (int kind = 0; kind < VPC_KINDS; kind++) {
      if (L->xoff[kind] < 0) continue;
      nx++;
      if (L->wide[kind]) {
        nwide++;
        if (!L->needy[kind] && !L->needz[kind]) kw = kind;
      } else if (nn < 2) kn[nn++] = kind;
    }
    L->xfused = nx == 3 && nwide == 1 && kw >= 0 && nn == 2 ? 1 | kw << 1 | kn[0] << 3 | kn[1] << 5 : 0;
  }
  VP_CHECK(cudaGetDevice(&dev));
  VP_CHECK(cudaDeviceGetAttribute(&maxbytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if ((err = VPC0ipPrepareT<double, VPCudaPatchOp_d>(L, maxbytes))) return err;
  if ((err = VPC0ipPrepareT<float, VPCudaPatchOp_f>(L, maxbytes))) return err;
  L->R_d = nullptr;
  L->R_f = nullptr;
  if ((err = VPC0ipPadMatrices<double, VPCudaPatchOp_d>(op_d, &L->R_d))) return err;
  return VPC0ipPadMatrices<float, VPCudaPatchOp_f>(op_f, &L->R_f);
}

template <typename T, typename Op>
static int VPC0ipLaunchT(const VPC0ipLayout *L, const Op *op, const T *R, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks)
{
  VPC0ipEntry<T, Op> e;
  const int          err = VPC0ipGet<T, Op>(L->k, L->xwords, &e);
  if (err) return err;
  const int  need = (end - start + e.patches - 1) / e.patches, blocks = need < maxblocks ? need : maxblocks;
  VPC0ipBits bits = {0, 0, 0, L->xoff[0], L->xoff[1], L->xoff[2], L->stride[sizeof(T) == 8 ? 0 : 1], L->order, L->gstart, L->xfused};
  for (int kind = 0; kind < VPC_KINDS; kind++) {
    bits.wide |= L->wide[kind] << kind;
    bits.needy |= L->needy[kind] << kind;
    bits.needz |= L->needz[kind] << kind;
  }
  e.kernel<<<blocks, e.block, (size_t)e.patches * bits.stride * sizeof(T)>>>(op, R, bits, *bx, vertex, start, end, b, x, target, omega, atomic);
  VP_CHECK(cudaGetLastError());
  return 0;
}

int VPC0ipLaunch(const VPC0ipLayout *L, int single, const void *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks)
{
  if (end <= start) return 0;
  if (single) return VPC0ipLaunchT<float, VPCudaPatchOp_f>(L, (const VPCudaPatchOp_f *)op, L->R_f, bx, vertex, start, end, b, x, target, omega, atomic, maxblocks);
  return VPC0ipLaunchT<double, VPCudaPatchOp_d>(L, (const VPCudaPatchOp_d *)op, L->R_d, bx, vertex, start, end, b, x, target, omega, atomic, maxblocks);
}

int VPC0ipDestroy(VPC0ipLayout *L)
{
  if (L->R_d) VP_CHECK(cudaFree(L->R_d));
  if (L->R_f) VP_CHECK(cudaFree(L->R_f));
  L->R_d = nullptr;
  L->R_f = nullptr;
  return 0;
}
