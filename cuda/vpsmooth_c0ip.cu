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
// Per term each thread (a, b) then contracts along y into its z line in registers (the y arms where the y kind is
// wide, the z arms where the z kind is), and along z in registers.
//
// Threads: a patch has NI x NE threads (a, q), a < NI the x index, q < NE the y closure index; the y/z and the
// fast-diagonalization steps use the NI x NI threads with q < NI. The 1D matrices are zero-padded to NE columns
// (a table made once per smoother), so every row starts at closure index 0.
#include "vpsmooth_c0ip.h"
#include "vpcuda_check.h"
#include <cuda_runtime.h>

// the layout as the kernel reads it: bit masks over the kinds and one offset per kind, so that a kind known only at
// run time indexes no parameter array (which would go through local memory)
struct VPC0ipBits {
  int wide, needy, needz, off0, off1, off2, stride;
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
  static constexpr int THREADS = NI * NE;                           // per patch
  static constexpr int PATCHES = 192 / THREADS > 0 ? 192 / THREADS : 1; // per block
  static constexpr int BLOCK   = PATCHES * THREADS;
  // resident blocks the registers must allow (the kernel is latency bound): four at k = 2..4 (the shared memory of
  // the c0ip form leaves room for five; five blocks' registers spill), two at k = 5 (unbounded, ptxas takes 254)
  static constexpr int MINBLOCKS = K <= 4 ? 4 : 2;
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
template <typename T, int NE, int J0, int NJ>
__device__ inline T VPC0ipDot(const T (&row)[NE], const T *line, int js)
{
  T acc = 0;
#pragma unroll
  for (int j = 0; j < NJ; j++) acc += row[J0 + j] * line[j * js];
  return acc;
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

// one term's y and z contractions by thread (a, b): r -= coef (R_z (x) R_y) X, z line in registers
template <typename T, int K, bool WY, bool WZ>
__device__ inline void VPC0ipTerm(const T *__restrict__ Ryrow, const T *__restrict__ Rz, const T *X, int a, T coef, T (&r)[2 * K - 1])
{
  using C          = VPC0ip<K>;
  constexpr int NE = C::NE, NC = C::NC, NI = C::NI, NA = C::NA;
  T             row[NE], Y[NE];
  VPC0ipLoadRow<T, NE>(Ryrow, row);
#pragma unroll
  for (int zc = 0; zc < NC; zc++) {
    T acc = VPC0ipDot<T, NE, K, NC>(row, X + a + NI * NC * zc, NI);
    if (WY) {
#pragma unroll
      for (int ya = 0; ya < NA; ya++) acc += row[VPC0ipArm<K>(ya)] * X[C::OFF_XY + a + NI * (ya + NA * zc)];
    }
    Y[K + zc] = acc;
  }
  if (WZ) {
#pragma unroll
    for (int za = 0; za < NA; za++) Y[VPC0ipArm<K>(za)] = VPC0ipDot<T, NE, K, NC>(row, X + C::OFF_XZ + a + NI * NC * za, NI);
  }
#pragma unroll
  for (int c = 0; c < NI; c++) {
    T acc = 0;
    if (WZ) {
#pragma unroll
      for (int z = 0; z < NE; z++) acc += Rz[c * NE + z] * Y[z];
    } else {
#pragma unroll
      for (int z = K; z <= 3 * K; z++) acc += Rz[c * NE + z] * Y[z];
    }
    r[c] -= coef * acc;
  }
}

// The fast-diagonalization helpers below repeat the laplace kernel's (vpsmooth_tile.cu). One header for both was tried:
// the laplace kernel's code generation changed and its k = 3 step took 10 % longer
// (bench/results/gpu-c0ip-shared-h100-2026-11-25.md).

// out[z] = sum_j row[j] in[j js + z zs] over NI x NI (the fast-diagonalization steps through shared memory)
template <typename T, int NI>
__device__ inline void VPC0ipFDMContract(const T *__restrict__ rowg, const T *in, int js, int zs, T (&out)[NI])
{
  T row[NI];
  VPC0ipLoadRow<T, NI>(rowg, row);
#pragma unroll
  for (int z = 0; z < NI; z++) {
    T acc = 0;
#pragma unroll
    for (int j = 0; j < NI; j++) acc += row[j] * in[j * js + z * zs];
    out[z] = acc;
  }
}

template <typename T, int NI>
__device__ inline void VPC0ipFDMApply(const T *__restrict__ A, const T (&in)[NI], T (&out)[NI])
{
#pragma unroll
  for (int i = 0; i < NI; i++) {
    T acc = 0;
#pragma unroll
    for (int j = 0; j < NI; j++) acc += A[i * NI + j] * in[j];
    out[i] = acc;
  }
}

template <typename T, int NI>
__device__ inline void VPC0ipStore(const T (&line)[NI], T *out, int zs)
{
#pragma unroll
  for (int z = 0; z < NI; z++) out[z * zs] = line[z];
}

// NLINES lines of NX nodes along x (closure indices X0 + i) into dst[i + NX l]; map gives line l's closure indices
// (c1, c2). Consecutive threads read consecutive nodes of a line; each thread keeps its x index over the lines.
template <typename T, int K, int NX, int X0, int NLINES, typename Map>
__device__ inline void VPC0ipLoadLines(T *dst, const double *x, const VPCudaBox &bx, const int base[3], bool active, int lt, Map map)
{
  constexpr int PER = VPC0ip<K>::THREADS / NX; // lines per pass
  const int     i = lt % NX, l0 = lt / NX, f0 = base[0] + X0 + i;
  const bool    in0 = active && f0 > 0 && f0 <= bx.n[0];
  if (l0 >= PER) return;
  for (int l = l0; l < NLINES; l += PER) {
    int c1, c2;
    map(l, c1, c2);
    const int f1 = base[1] + c1, f2 = base[2] + c2;
    T         val = 0;
    if (in0 && f1 > 0 && f1 <= bx.n[1] && f2 > 0 && f2 <= bx.n[2]) val = (T)x[VPC0ipIndex(bx, f0 - 1, f1 - 1, f2 - 1)];
    dst[i + NX * l] = val;
  }
}

// One patch. mem: this patch's shared words (XWORDS for the closure, then the x-kinds' arrays at L.Off(kind)); R: the padded 1D
// matrices, R[((kind * 3 + dir) * 3 + cls) * NI * NE + row * NE + column]
template <typename T, int K, typename Op>
__device__ void VPC0ipPatch(const Op *__restrict__ op, const T *__restrict__ R, const VPC0ipBits &L, const VPCudaBox &bx, const int *v, bool active, int lt, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic, T *mem)
{
  using C          = VPC0ip<K>;
  constexpr int NE = C::NE, NC = C::NC, NI = C::NI, NA = C::NA, MAT = NI * NE;
  const int     a = lt % NI, q = lt / NI; // q < NE
  T            *xs = mem, *Xs = mem + C::XWORDS;
  int           cls[3] = {1, 1, 1}, base[3] = {0, 0, 0};
  T             r[NI];

  if (active)
    for (int d = 0; d < 3; d++) {
      cls[d]  = VPC0ipClass(v[d], (bx.n[d] + 1) / K);
      base[d] = (v[d] - 2) * K; // full-grid node of closure index 0; interior index of closure c: base + c - 1
    }
  // the cross of x (nodes outside the brick zero), slab by slab, x fastest; and the line of b
  if (x) {
    VPC0ipLoadLines<T, K, NE, 0, NC * NC>(xs, x, bx, base, active, lt, [](int l, int &c1, int &c2) {
      c1 = K + l % NC;
      c2 = K + l / NC;
    });
    VPC0ipLoadLines<T, K, NC, K, NA * NC>(xs + C::OFF_SY, x, bx, base, active, lt, [](int l, int &c1, int &c2) {
      c1 = VPC0ipArm<K>(l % NA);
      c2 = K + l / NA;
    });
    VPC0ipLoadLines<T, K, NC, K, NC * NA>(xs + C::OFF_SZ, x, bx, base, active, lt, [](int l, int &c1, int &c2) {
      c1 = K + l % NC;
      c2 = VPC0ipArm<K>(l / NC);
    });
  }
#pragma unroll
  for (int z = 0; z < NI; z++) r[z] = (active && q < NI) ? (T)b[VPC0ipIndex(bx, base[0] + K + a, base[1] + K + q, base[2] + K + z)] : (T)0;
  __syncthreads();

  if (x) {
    for (int kind = 0; kind < VPC_KINDS; kind++) {
      if (L.Off(kind) < 0) continue;
      const T *Rrow = R + ((kind * 3 + 0) * 3 + cls[0]) * MAT + a * NE;
      T       *X    = Xs + L.Off(kind);
      if (L.Wide(kind)) VPC0ipContractX<T, K, true>(Rrow, xs, X, a, q, L.NeedY(kind), L.NeedZ(kind));
      else VPC0ipContractX<T, K, false>(Rrow, xs, X, a, q, L.NeedY(kind), L.NeedZ(kind));
    }
    __syncthreads();
    // the terms are dealt round-robin to G groups of NI x NI threads (a, b) (thread lt = a + NI b + NI^2 group), so
    // that the threads with q >= NI work too; group 0 holds b in r, the others add their sums to it through xs
    // (free now: the x contractions are done)
    constexpr int PAIRS = NI * NI, G = C::THREADS / PAIRS;
    const int     grp = lt / PAIRS, ta = (lt % PAIRS) % NI, tb = (lt % PAIRS) / NI;
    if (grp < G)
      for (int t = grp; t < op->nterms; t += G) {
        const int ky = op->kind[t][1], kz = op->kind[t][2];
        const T  *Ry = R + ((ky * 3 + 1) * 3 + cls[1]) * MAT + tb * NE, *Rz = R + ((kz * 3 + 2) * 3 + cls[2]) * MAT;
        const T  *X  = Xs + L.Off(op->kind[t][0]);
        const T   c  = op->coef[t];
        if (L.Wide(ky)) {
          if (L.Wide(kz)) VPC0ipTerm<T, K, true, true>(Ry, Rz, X, ta, c, r);
          else VPC0ipTerm<T, K, true, false>(Ry, Rz, X, ta, c, r);
        } else {
          if (L.Wide(kz)) VPC0ipTerm<T, K, false, true>(Ry, Rz, X, ta, c, r);
          else VPC0ipTerm<T, K, false, false>(Ry, Rz, X, ta, c, r);
        }
      }
    if (G > 1) {
      if (grp >= 1 && grp < G) VPC0ipStore<T, NI>(r, xs + (grp - 1) * PAIRS * NI + ta + NI * tb, PAIRS);
      __syncthreads();
      if (grp == 0)
        for (int g = 1; g < G; g++)
#pragma unroll
          for (int z = 0; z < NI; z++) r[z] += xs[(g - 1) * PAIRS * NI + ta + NI * tb + PAIRS * z];
    }
  }

  // fast diagonalization as in the laplace kernel: z in registers, x and y through shared memory; F1 and F2
  // (NI^3 words each, x + NI y + NI^2 z) reuse the closure and the first x-kind array
  T *F1 = xs, *F2 = Xs, u[NI], w[NI];
  VPC0ipFDMApply<T, NI>(op->St[2][cls[2]], r, u);
  __syncthreads(); // the residual's reads of xs and Xs are done
  if (q < NI) VPC0ipStore<T, NI>(u, F1 + a + NI * q, NI * NI);
  __syncthreads();
  if (q < NI) {
    VPC0ipFDMContract<T, NI>(op->St[1][cls[1]] + q * NI, F1 + a, NI, NI * NI, w);
    VPC0ipStore<T, NI>(w, F2 + a + NI * q, NI * NI);
  }
  __syncthreads();
  if (q < NI) {
    const T lxy = op->lambda[0][cls[0]][a] + op->lambda[1][cls[1]][q];
    VPC0ipFDMContract<T, NI>(op->St[0][cls[0]] + a * NI, F2 + NI * q, 1, NI * NI, w);
#pragma unroll
    for (int z = 0; z < NI; z++) w[z] /= lxy + op->lambda[2][cls[2]][z];
    VPC0ipFDMApply<T, NI>(op->S[2][cls[2]], w, u);
    VPC0ipStore<T, NI>(u, F1 + a + NI * q, NI * NI);
  }
  __syncthreads();
  if (q < NI) {
    VPC0ipFDMContract<T, NI>(op->S[1][cls[1]] + q * NI, F1 + a, NI, NI * NI, w);
    VPC0ipStore<T, NI>(w, F2 + a + NI * q, NI * NI);
  }
  __syncthreads();
  if (active && q < NI) {
    VPC0ipFDMContract<T, NI>(op->S[0][cls[0]] + a * NI, F2 + NI * q, 1, NI * NI, w);
#pragma unroll
    for (int z = 0; z < NI; z++) {
      double *dst = target + VPC0ipIndex(bx, base[0] + K + a, base[1] + K + q, base[2] + K + z);
      if (atomic) atomicAdd(dst, omega * (double)w[z]);
      else *dst += omega * (double)w[z];
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

  for (int first = start + blockIdx.x * C::PATCHES; first < end; first += gridDim.x * C::PATCHES) {
    const int  p      = first + pp;
    const bool active = p < end;
    const int *v      = vertex + 3 * (active ? p : start);
    VPC0ipPatch<T, K, Op>(op, R, L, bx, v, active, lt, b, x, target, omega, atomic, mem);
  }
}

template <typename T, typename Op>
struct VPC0ipEntry {
  void (*kernel)(const Op *, const T *, VPC0ipBits, VPCudaBox, const int *, int, int, const double *, const double *, double *, double, bool);
  int block, patches, words;
};

template <typename T, typename Op, int K>
static VPC0ipEntry<T, Op> VPC0ipMake(int xwords)
{
  using C = VPC0ip<K>;
  return {VPC0ipKernel<T, K, Op>, C::BLOCK, C::PATCHES, C::XWORDS + (xwords > C::NI * C::NI * C::NI ? xwords : C::NI * C::NI * C::NI)};
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
  VPC0ipBits bits = {0, 0, 0, L->xoff[0], L->xoff[1], L->xoff[2], L->stride[sizeof(T) == 8 ? 0 : 1]};
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
