// PCHFEM's whole solve of n right-hand sides on the GPU with the hierarchical transform done macro cell by macro cell
// ("fused" path, VPCudaHFEMSolveCells). Why it pays: the transform of the nodes inside a macro cell reads only the right-hand
// side inside that cell (every node of the spacing-2H grid gathers from spacing-H neighbours that lie strictly inside the
// cell), so one thread block per (macro cell, chunk of columns) can read the cell's closure once, run all levels of S^T in
// shared memory, scale, find each column's largest value and write the packed input of the C^-1 product directly; the
// backward kernel unpacks the product, prolongs in shared memory and writes the solution. The E and C nodes on the cell's
// boundary get the cell's share of their restriction (the cell's right-hand-side values there weighted by 1/2 on an edge
// and 1/4 at a corner, the inner values in full), summed over the cells with atomics: S^T is linear, so the shares add up
// to the whole restriction. The level-by-level path (vphfemtransform.cu with VPCudaHFEMSolveNM) stays the reference.
//
// Storage of one solve (n columns, node-major: element (row, column c) at row n + c):
//   Zec, Yec (double)   rows [C; E] of the set order: right-hand side and solution of the macro-grid and edge nodes
//   Wc (double)         A_CC^-1 Z_C
//   cellZ (TZ)          Z_I, the transformed right-hand side of the inner nodes (double for double and single, float for
//                       the 16-bit formats, as the transform's arithmetic)
//   pack (TP), out (TO) C^-1's input (ncell blocks of prow x n, scaled per block and column for the 16-bit formats) and
//                       its product, twice: forward (Z_I) and backward (Z_I - D^T Y_E); with the folded couplings the back
//                       substitution's product is in TOB (the storage format TP for half and bfloat16, see FoldProduct)
// B = L_C^-1 Ap_CE is applied through the sparse Ap_CE and A_CC^-1 = L_C^-T L_C^-1 (one DGEMM) instead of the dense B.
#include "vphfem_impl.h"
#include <type_traits>
#include <vector>

#define VP_CELL_THREADS 512 // 3 blocks of 512 (48 warps) an SM with the shared memory of 16 columns: twice the loads in flight of 256

// the geometry one block needs
struct VPCellGeom {
  int nx, ny, s, ls, mx;  // fine cells per direction, fine cells per macro cell edge (s = 2^ls), macro cells per row
  int nC, nE, nb, prow;   // set sizes, inner nodes per macro cell and its padded count
  int kp;                 // rows of a cell's block of the packed input: prow, or prow + ns with the folded couplings
  int sstride;            // the scaling of cell q's inner nodes starts at nC + nE + q sstride: 0 where all cells have the
                          // same (VPCudaHFEMTransform_s.cellscale), nb otherwise
};
// Measured on an H100 (h = 1/1024, 256 columns, half): more warps (512 threads a block, VP_CELL_THREADS) and the D^T entries
// in shared instead of global memory paid; unrolling run-time-shaped loops did not (bench/results/gpu-hfem-fused-h100-2026-11-25.md);
// the compile-time shapes of CellShape took the forward and backward kernels from 5.3 to 3.1 ms a pass
// (bench/results/gpu-hfem-shapes-h100-2026-11-25.md).

template <typename T>
__device__ __forceinline__ T Abs(T v)
{
  return v < 0 ? -v : v;
}

// the largest value of each column of the chunk (colmax[c], as the int bits of a non-negative float) -> scale
__device__ __forceinline__ float ScaleOf(const int *colmax, int c)
{
  const float m = __int_as_float(colmax[c]);
  return m > 0.0f ? m : 1.0f;
}

// boundary position p (0 <= p < 4 s) of a macro cell's closure: bottom (o, 0), right (s, o), top (s - o, s), left (0, s - o)
__device__ __forceinline__ void BoundaryNode(int s, int ls, int p, int *li, int *lj)
{
  const int side = p >> ls, o = p & (s - 1);
  *li = side == 0 ? o : (side == 1 ? s : (side == 2 ? s - o : 0));
  *lj = side == 0 ? 0 : (side == 1 ? o : (side == 2 ? s : s - o));
}

// The fused kernels' shape is known at compile time (template arguments LS and LCC: s = 2^LS fine cells per macro cell edge,
// cc = 2^LCC columns per block, VP_CELL_THREADS threads): every index of a thread's loops is then a shift, a mask or a
// constant stride, and each thread keeps its fine index and column across a loop (the loops step by whole rows). With s, the
// chunk and the block size at run time the kernels spent their issue slots on that index arithmetic and on double <-> float
// conversions (Nsight Compute on an H100: instruction-issue bound at 67-74 % SM throughput and a third of DRAM bandwidth,
// bench/results/gpu-hfem-fold-h100-2026-11-25.md); now the arithmetic is done in TA (float for the 16-bit formats, with
// the scaling in float) and a value is converted once on its way in and once on its way out.
template <int LS, int LCC>
struct CellShape {
  static constexpr int S = 1 << LS, W = S + 1, CC = 1 << LCC, ST = CC > 1 ? CC + 1 : 1, NT = VP_CELL_THREADS;
  static constexpr int NB = (S - 1) * (S - 1); // inner nodes
};

// for (t = tid; t < TOTAL; t += NT) as a loop of TOTAL / NT (rounded up) trips, a constant: the compiler unrolls it and
// issues the loads of the unrolled trips before their uses (a loop from tid has a trip count only known at run time)
#define VP_CELL_FOR(t, TOTAL) \
  for (int t##_k = 0, t = tid; t##_k < ((TOTAL) + NT - 1) / NT; t##_k++, t += NT) \
    if ((TOTAL) % NT == 0 || t < (TOTAL))

// The inner nodes' loops (l = (lj - 1)(s - 1) + li - 1, the column fastest): body(l, li, lj) for every inner node and this
// thread's column. A warp holds two nodes of 16 columns; at the 17-word node stride consecutive nodes put them 17 words
// apart, on overlapping banks (two shared-memory wavefronts, Nsight Compute: 44-46 % of the kernels' wavefronts were
// excess). For s = 32 with 16 columns (the 16-bit formats' shape) the warp's halves take nodes li and li + 16 of one row
// instead, 272 = 16 (mod 32) words apart: disjoint banks. Other shapes keep consecutive nodes.
template <int LS, int LCC, typename F>
__device__ __forceinline__ void ForInner(int tid, F body)
{
  using K       = CellShape<LS, LCC>;
  constexpr int S = K::S, CC = K::CC, NT = K::NT;
  if constexpr (S == 32 && CC == 16 && NT == 512 && K::ST == 17) {
    const int li = ((tid >> 5) & 15) | (((tid >> 4) & 1) << 4); // one row a trip: the 32 li of a row times 16 columns
    if (li) {
#pragma unroll 8
      for (int lj = 1; lj < S; lj++) body((lj - 1) * (S - 1) + li - 1, li, lj);
    }
  } else {
#pragma unroll 8
    VP_CELL_FOR(t, K::NB * CC) {
      const int l = (unsigned)t >> LCC, li = (unsigned)l % (S - 1) + 1, lj = (unsigned)l / (S - 1) + 1;
      body(l, li, lj);
    }
  }
}

// The level loops (the nodes of a level's NX x NY grid, spacing 2H in the closure, the column fastest): body(x, y) for every
// node and this thread's column. By default a warp holds two consecutive nodes, 2H positions apart: at the 17-word node stride
// their halves share banks (Nsight Compute: most of the excess shared-memory wavefronts left after ForInner). For s = 32
// with 16 columns and PD = 8 / H >= 1 the warp's halves take nodes PD grid steps apart (16 closure positions: 16 or
// 16 (s + 1) nodes, 272 or 8,976 words, both 16 mod 32: disjoint banks): rows y and y + PD of each block of 2 PD rows, and in
// the rows left over, columns x and x + PD; a node left over after that runs in one half.
template <int LS, int LCC, int NX, int NY, int PD, typename F>
__device__ __forceinline__ void ForGrid(int tid, F body)
{
  using K       = CellShape<LS, LCC>;
  constexpr int CC = K::CC, NT = K::NT;
  if constexpr (K::S == 32 && CC == 16 && NT == 512 && K::ST == 17 && PD >= 1) {
    constexpr int P2 = 2 * PD, NYB = NY / P2, R = NY % P2, NXB = NX / P2, LC = NX % P2;
    constexpr int P1 = NYB * PD * NX, PR = NXB * PD + LC, NI = P1 + R * PR; // pair items (one warp each)
    const int     h = (tid >> 4) & 1, w0 = tid >> 5;
#pragma unroll 4
    for (int k = 0; k < (NI + 15) / 16; k++) {
      const int i = w0 + 16 * k; // the same in the whole warp
      if (NI % 16 && i >= NI) break;
      if (i < P1) {
        const int r = i / NX;
        body(i % NX, (r / PD) * P2 + r % PD + h * PD);
      } else {
        const int j = i - P1, kk = j % PR, y = NYB * P2 + j / PR;
        if (kk < NXB * PD) body((kk / PD) * P2 + kk % PD + h * PD, y);
        else if (!h) body(NXB * P2 + kk - NXB * PD, y);
      }
    }
  } else {
#pragma unroll 8
    VP_CELL_FOR(t, NX * NY * CC) {
      const int p = (unsigned)t >> LCC;
      body((int)((unsigned)p % NX), (int)((unsigned)p / NX));
    }
  }
}

// f(std::integral_constant<int, LH>()) for LH = FIRST, FIRST + STEP, ... while 0 <= LH < LS: a loop over the levels with
// the level a compile-time constant (for ForGrid's shapes)
template <int LH, int STEP, int LS>
struct CellLevels {
  template <typename F>
  __device__ static __forceinline__ void Run(F &&f)
  {
    if constexpr (LH >= 0 && LH < LS) {
      f(std::integral_constant<int, LH>());
      CellLevels<LH + STEP, STEP, LS>::Run(f);
    }
  }
};

// stores of the packed input in its format (from TA: double for double and single, float for the 16-bit formats)
__device__ __forceinline__ void Put(double *p, double v)
{
  *p = v;
}
__device__ __forceinline__ void Put(float *p, double v)
{
  *p = (float)v;
}
__device__ __forceinline__ void Put(__half *p, float v)
{
  *p = __float2half_rn(v);
}
__device__ __forceinline__ void Put(__nv_bfloat16 *p, float v)
{
  *p = __float2bfloat16_rn(v);
}

// a product's value in the transform's arithmetic
template <typename TA, typename TO>
__device__ __forceinline__ TA Widen(TO v)
{
  return (TA)v;
}
template <>
__device__ __forceinline__ float Widen<float, __half>(__half v)
{
  return __half2float(v);
}
template <>
__device__ __forceinline__ float Widen<float, __nv_bfloat16>(__nv_bfloat16 v)
{
  return __bfloat162float(v);
}

// Forward: for macro cell q and the columns [c0, c0 + cc) (block q nch + c0 / cc, see Grid1D): the closure's (s+1)^2
// right-hand-side values, weighted by this cell's share (1 inside, 1/2 on an edge, 1/4 at a corner; zero outside the
// domain and past the last column) -> S^T in shared memory -> z = scale T b: Z_I into ZI (unless NULL: the folded couplings
// need no copy) and, scaled by the column's largest |z| (SCALE), into the first prow of the kp rows of the cell's block of
// the packed input P; the cell's shares of the E and C nodes added to Zec (zeroed before). scaleT: the scaling in TA.
template <typename TA, typename TP, bool SCALE, int LS, int LCC>
__global__ void __launch_bounds__(VP_CELL_THREADS) VPCellForward(VPCellGeom g, int n, const double *__restrict__ B, size_t ldb, const TA *__restrict__ scaleT, const double *__restrict__ scale, const int *__restrict__ place, TA *__restrict__ ZI, TP *__restrict__ P, float *__restrict__ s1, double *__restrict__ Zec)
{
  using K          = CellShape<LS, LCC>;
  constexpr int S = K::S, W = K::W, CC = K::CC, ST = K::ST, NT = K::NT, NB = K::NB;
  static_assert((S << LCC) <= NT, "a row of the closure, all columns of the chunk, fits the block");
  extern __shared__ __align__(16) unsigned char vp_smem[];
  TA            *sh = reinterpret_cast<TA *>(vp_smem);
  __shared__ int colmax[CC];
  const int      tid = threadIdx.x, nch = (n + CC - 1) >> LCC, q = blockIdx.x / nch, c0 = (blockIdx.x - q * nch) << LCC, a = q % g.mx, b = q / g.mx;
  const TA      *scaleI = scaleT + g.nC + g.nE + (size_t)q * g.sstride; // the scaling of the cell's inner nodes
  // the closure's columns li < s: thread (li, cl) reads rows lj0, lj0 + RS, ... of column c0 + cl (coalesced along li)
  {
    constexpr int RS = NT >> (LS + LCC), KR = (W + RS - 1) / RS;
    const int     li = tid & (S - 1), cl = (tid >> LS) & (CC - 1), lj0 = tid >> (LS + LCC), i = a * S + li, col = c0 + cl;
    const bool    on = col < n && i > 0;
    const TA      wi = li ? (TA)1 : (TA)0.5;
    const double *Bc = B + (ptrdiff_t)(on ? col : 0) * ldb + (on ? i - 1 : 0);
    const int     ldj = g.nx - 1;
    TA           *d   = sh + (lj0 * W + li) * ST + cl;
#pragma unroll 8
    for (int k = 0; k < KR; k++) {
      const int lj = lj0 + k * RS, j = b * S + lj;
      if ((KR * RS > W) && lj >= W) break;
      // the load unconditional (a row clamped into the domain, its value then weighted by zero; it is a value of B, finite
      // where the solve's result is): a thread's loads go out together instead of one branch each
      const int jj = min(max(j, 1), g.ny - 1);
      const TA  wt = (on && j > 0 && j < g.ny) ? wi * ((lj == 0 || lj == S) ? (TA)0.5 : (TA)1) : (TA)0;
      d[k * RS * W * ST] = wt * (TA)Bc[(ptrdiff_t)(jj - 1) * ldj];
    }
  }
  // the closure's last column li = s (weight 1/2, and 1/2 again at its corners)
  for (int t = tid; t < W * CC; t += NT) {
    const int cl = t & (CC - 1), lj = t >> LCC, i = a * S + S, j = b * S + lj, col = c0 + cl;
    TA        v = 0;
    if (col < n && i < g.nx && j > 0 && j < g.ny) v = (TA)B[(size_t)col * ldb + VPHFEMNode(g.nx, i, j)] * (TA)0.5 * ((lj == 0 || lj == S) ? (TA)0.5 : (TA)1);
    sh[(lj * W + S) * ST + cl] = v;
  }
  if (tid < CC) colmax[tid] = 0;
  __syncthreads();
  // S^T, finest level first: each node of the spacing-2H grid of the closure gathers its spacing-H neighbours inside it
  const int c = tid & (CC - 1); // this thread's column in the node-major loops (the block size is a multiple of cc)
  CellLevels<0, 1, LS>::Run([&](auto lhc) {
    constexpr int LH = decltype(lhc)::value, H = 1 << LH, M = (S >> (LH + 1)) + 1, oi = H * ST, oj = H * W * ST;
    ForGrid<LS, LCC, M, M, (H <= 8 ? 8 / H : 0)>(tid, [&](int x, int y) {
      TA *v = sh + ((2 * H * y) * W + 2 * H * x) * ST + c;
      TA  e = 0, d = 0;
      if (x > 0) e += v[-oi];
      if (x < M - 1) e += v[oi];
      if (y > 0) e += v[-oj];
      if (y < M - 1) e += v[oj];
      if (x > 0 && y > 0) d += v[-oi - oj];
      if (x < M - 1 && y > 0) d += v[oi - oj];
      if (x > 0 && y < M - 1) d += v[-oi + oj];
      if (x < M - 1 && y < M - 1) d += v[oi + oj];
      *v += (TA)0.5 * e + (TA)0.25 * d;
    });
    __syncthreads();
  });
  // inner nodes (l = (lj - 1)(s - 1) + li - 1): z = scale T b, kept in shared memory for the packing
  const int col = c0 + c;
  float     mx  = 0.0f;
  ForInner<LS, LCC>(tid, [&](int l, int li, int lj) {
    TA      *v = sh + (lj * W + li) * ST + c;
    const TA z = scaleI[l] * *v;
    *v         = z;
    if (ZI && col < n) ZI[((size_t)q * g.nb + l) * n + col] = z;
    mx = fmaxf(mx, (float)Abs(z));
  });
  // the boundary of the closure: this cell's share of its E and C nodes (4 s nodes: bottom, right, top, left)
#pragma unroll 8
  VP_CELL_FOR(t, 4 * S * CC) {
    int li, lj;
    BoundaryNode(S, LS, t >> LCC, &li, &lj);
    const int i = a * S + li, j = b * S + lj;
    const int k = place[VPHFEMNode(g.nx, min(max(i, 1), g.nx - 1), min(max(j, 1), g.ny - 1))]; // unconditional, as in the backward kernel
    if (col < n && i > 0 && i < g.nx && j > 0 && j < g.ny) atomicAdd(&Zec[(size_t)k * n + col], scale[k] * (double)sh[(lj * W + li) * ST + c]);
  }
  if (SCALE) atomicMax(&colmax[c], __float_as_int(mx)); // non-negative floats order as their int bits
  __syncthreads();
  // the packed input of C^-1 and the scales of its columns; then its padding rows (zero)
  if (col < n) {
    const TA f  = SCALE ? (TA)(1.0f / ScaleOf(colmax, c)) : (TA)1;
    TP      *Pq = P + (size_t)q * g.kp * n + col;
    ForInner<LS, LCC>(tid, [&](int l, int li, int lj) { Put(Pq + (size_t)l * n, sh[(lj * W + li) * ST + c] * f); });
    for (int t = tid; t < (g.prow - NB) * CC; t += NT) Put(Pq + (size_t)(NB + (t >> LCC)) * n, (TA)0);
  }
  if (SCALE && tid < CC && c0 + tid < n) s1[(size_t)q * n + c0 + tid] = ScaleOf(colmax, tid);
}

// Backward packing: v = Z_I - D^T Y_E for the inner nodes of macro cell q, scaled by each column's largest |v| (SCALE), into
// the packed input P of the second C^-1 product. The cell's boundary values of Y_E and Z_I are streamed into shared memory
// first (independent loads); then the cell's entries of D^T (contiguous in its CSR: rows q nb .. q nb + nb - 1; dtrow their
// rows, dtslot their E nodes' boundary positions) are applied one (entry, column) per thread with shared atomics.
template <typename TZ, typename TP, bool SCALE>
__global__ void __launch_bounds__(VP_CELL_THREADS) VPCellPackBackward(VPCellGeom g, int n, int lcc, const TZ *__restrict__ ZI, const int *__restrict__ dtptr, const int *__restrict__ dtrow, const int *__restrict__ dtslot, const double *__restrict__ dtval, const int *__restrict__ place, const double *__restrict__ Yec, TP *__restrict__ P, float *__restrict__ s2)
{
  extern __shared__ __align__(16) unsigned char vp_smem[];
  double        *yb = reinterpret_cast<double *>(vp_smem); // 4 s cc: Y_E on the cell's boundary
  TZ            *v  = reinterpret_cast<TZ *>(yb + ((4 * g.s) << lcc));
  __shared__ int colmax[16];
  const int      cc = 1 << lcc, nch = (n + cc - 1) >> lcc, q = blockIdx.x / nch, a = q % g.mx, b = q / g.mx, c0 = (blockIdx.x % nch) * cc, c = threadIdx.x & (cc - 1), col = c0 + c, r0 = q * g.nb;
  const int      k0 = dtptr[r0], k1 = dtptr[r0 + g.nb];
  float          mx = 0.0f;
  if (threadIdx.x < 16) colmax[threadIdx.x] = 0;
  for (int t = threadIdx.x; t < (4 * g.s) << lcc; t += blockDim.x) {
    int li, lj;
    BoundaryNode(g.s, g.ls, t >> lcc, &li, &lj);
    const int i = a * g.s + li, j = b * g.s + lj;
    yb[t]       = (col < n && i > 0 && i < g.nx && j > 0 && j < g.ny) ? Yec[(size_t)place[VPHFEMNode(g.nx, i, j)] * n + col] : 0.0;
  }
#pragma unroll 4
  for (int t = threadIdx.x; t < g.nb << lcc; t += blockDim.x) v[t] = col < n ? ZI[(size_t)(r0 + (t >> lcc)) * n + col] : (TZ)0;
  __syncthreads();
#pragma unroll 4
  for (int t = threadIdx.x; t < (k1 - k0) << lcc; t += blockDim.x) {
    const int k = k0 + (t >> lcc);
    atomicAdd(&v[((dtrow[k] - r0) << lcc) + c], (TZ)(-dtval[k] * yb[(dtslot[k] << lcc) + c]));
  }
  __syncthreads();
  for (int t = threadIdx.x; t < g.nb << lcc; t += blockDim.x) mx = fmaxf(mx, (float)fabs((double)v[t]));
  if (SCALE) atomicMax(&colmax[c], __float_as_int(mx));
  __syncthreads();
  if (col < n) {
    const double f = SCALE ? 1.0 / ScaleOf(colmax, c) : 1.0;
#pragma unroll 4
    for (int t = threadIdx.x; t < g.prow << lcc; t += blockDim.x) {
      const int l = t >> lcc;
      P[((size_t)q * g.prow + l) * n + col] = FromDouble<TP>(l < g.nb ? (double)v[t] * f : 0.0);
    }
  }
  if (SCALE && threadIdx.x < cc && col < n) s2[(size_t)q * n + col] = ScaleOf(colmax, c);
}

// Z_E[rows[r]] -= D Y_I with Y_I read from the forward product: Y_I(cell, l) = sC s1(cell, column) O(cell, l); one thread
// per (coupled E row, column), each row's n values contiguous. (Summing the cell's share of D Y_I at its boundary with shared
// atomics and adding it to Zec took 1.5 ms at h = 1/1024 with 256 columns on an H100, against 1.0 ms for this.)
template <typename TO, bool SCALE>
__global__ void VPCellCouple(int nrows, int n, const int *__restrict__ rows, const int *__restrict__ ptr, const int *__restrict__ col, const double *__restrict__ val, int base, int nb, int prow, const TO *__restrict__ O, const float *__restrict__ s1, double sC, double *__restrict__ Z)
{
  const size_t total = (size_t)nrows * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total; t += (size_t)gridDim.x * blockDim.x) {
    const int r = (int)(t / n), c = (int)(t % n);
    double    sum = 0.0;
#pragma unroll 4
    for (int k = ptr[r]; k < ptr[r + 1]; k++) {
      const int idx = col[k] - base, cell = idx / nb, l = idx - cell * nb;
      sum += val[k] * (SCALE ? (double)s1[(size_t)cell * n + c] : 1.0) * (double)O[((size_t)cell * prow + l) * n + c];
    }
    Z[(size_t)rows[r] * n + c] -= sC * sum;
  }
}

// The folded couplings (src/pc/hfem/hfemfold.c). Z_E -= G^T Z_I of both cells beside each E node, at its slot in each:
// W (n x ns per cell, column-major: the product of the packed Z_I with G) times the cells' column scales s1 and sFA. An
// E node (i, j) lies on a vertical macro line (i a multiple of s: the cells left and right of it) or on a horizontal one
// (below and above); one thread per (E place, column), the column fastest.
template <typename TO, bool SCALE>
__global__ void VPCellFoldCouple(VPCellGeom g, int n, int ns, const int *__restrict__ order, const TO *__restrict__ W, const float *__restrict__ s1, double sFA, double *__restrict__ Zec)
{
  const size_t total = (size_t)g.nE * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total; t += (size_t)gridDim.x * blockDim.x) {
    const int r = (int)(t / n), c = (int)(t % n), k = g.nC + r, node = order[k], i = node % (g.nx - 1) + 1, j = node / (g.nx - 1) + 1;
    int       q1, p1, q2, p2;
    if ((i & (g.s - 1)) == 0) { // vertical line: left cell (slot on its right side), right cell (on its left side)
      const int a = i >> g.ls, b = j >> g.ls, lj = j - (b << g.ls);
      q1 = b * g.mx + a - 1, p1 = g.s + lj;
      q2 = b * g.mx + a, p2 = 3 * g.s + (g.s - lj);
    } else { // horizontal line: the cell below (slot on its top side), the cell above (on its bottom side)
      const int a = i >> g.ls, b = j >> g.ls, li = i - (a << g.ls);
      q1 = (b - 1) * g.mx + a, p1 = 2 * g.s + (g.s - li);
      q2 = b * g.mx + a, p2 = li;
    }
    const double w1 = (double)W[((size_t)q1 * ns + p1) * n + c] * (SCALE ? (double)s1[(size_t)q1 * n + c] : 1.0);
    const double w2 = (double)W[((size_t)q2 * ns + p2) * n + c] * (SCALE ? (double)s1[(size_t)q2 * n + c] : 1.0);
    Zec[(size_t)k * n + c] -= sFA * (w1 + w2);
  }
}

template <typename T>
__device__ __forceinline__ float ToFloat(T v)
{
  return (float)v;
}
template <>
__device__ __forceinline__ float ToFloat<__half>(__half v)
{
  return __half2float(v);
}
template <>
__device__ __forceinline__ float ToFloat<__nv_bfloat16>(__nv_bfloat16 v)
{
  return __bfloat162float(v);
}

#define VP_FOLD_RANGE 64.0f // as PCHFEM_FOLD_RANGE in hfemfold.c

// Back-substitution packing of the folded couplings: rows prow .. prow + ns - 1 of cell q's block of P get alpha Y_E at
// the cell's boundary slots (zero at corners and on the domain's boundary) divided by the column's scale s2 = s1 r; r > 1
// (a power of 2, SCALE only) where alpha Y_E exceeds VP_FOLD_RANGE times s1, and then the column's packed Z_I rows are
// divided by r too (exact in the format). One block of 256 threads per (cell, 32 columns), the column fastest.
template <typename TP, bool SCALE>
__global__ void __launch_bounds__(256) VPCellFoldPack(VPCellGeom g, int n, int ns, double alpha, const int *__restrict__ place, const double *__restrict__ Yec, const float *__restrict__ s1, TP *__restrict__ P, float *__restrict__ s2)
{
  __shared__ int   ymax[32];
  __shared__ float rs[32];
  const int        nch = (n + 31) >> 5, q = blockIdx.x / nch, a = q % g.mx, b = q / g.mx, c = threadIdx.x & 31, col = ((blockIdx.x % nch) << 5) + c;
  if (threadIdx.x < 32) ymax[threadIdx.x] = 0;
  __syncthreads();
  float my = 0.0f;
  for (int p = threadIdx.x >> 5; p < ns; p += blockDim.x >> 5) {
    int li, lj;
    BoundaryNode(g.s, g.ls, p, &li, &lj);
    const int  i = a * g.s + li, j = b * g.s + lj;
    const bool corner = (li == 0 || li == g.s) && (lj == 0 || lj == g.s);
    if (col < n && !corner && i > 0 && i < g.nx && j > 0 && j < g.ny) my = fmaxf(my, (float)fabs(alpha * Yec[(size_t)place[VPHFEMNode(g.nx, i, j)] * n + col]));
  }
  if (SCALE) atomicMax(&ymax[c], __float_as_int(my));
  __syncthreads();
  if (threadIdx.x < 32) {
    float r = 1.0f;
    if (SCALE && col < n) {
      const float m = __int_as_float(ymax[c]), s = s1[(size_t)q * n + col];
      if (m > VP_FOLD_RANGE * s) {
        int e;
        (void)frexpf(m / (VP_FOLD_RANGE * s), &e);
        r = ldexpf(1.0f, e);
      }
      s2[(size_t)q * n + col] = s * r;
    }
    rs[c] = r;
  }
  __syncthreads();
  if (col >= n) return;
  const float  r  = rs[c];
  const double f  = SCALE ? 1.0 / ((double)s1[(size_t)q * n + col] * r) : 1.0;
  TP          *Pq = P + (size_t)q * g.kp * n + col;
  if (SCALE && r > 1.0f)
    for (int l = threadIdx.x >> 5; l < g.nb; l += blockDim.x >> 5) Pq[(size_t)l * n] = FromDouble<TP>((double)(ToFloat(Pq[(size_t)l * n]) / r));
  for (int p = threadIdx.x >> 5; p < ns; p += blockDim.x >> 5) {
    int li, lj;
    BoundaryNode(g.s, g.ls, p, &li, &lj);
    const int  i = a * g.s + li, j = b * g.s + lj;
    const bool corner = (li == 0 || li == g.s) && (lj == 0 || lj == g.s);
    const double y = (!corner && i > 0 && i < g.nx && j > 0 && j < g.ny) ? alpha * Yec[(size_t)place[VPHFEMNode(g.nx, i, j)] * n + col] : 0.0;
    Pq[(size_t)(g.prow + p) * n] = FromDouble<TP>(y * f);
  }
}

// the boundary position (BoundaryNode) of the E node of each entry of D^T in the macro cell of its row; -1 if it is not on
// that cell's boundary (which would be a wrong set order)
__global__ void VPCellSlots(int nnz, int nC, int nx, int s, int mx, int nb, const int *__restrict__ dtrow, const int *__restrict__ dtcol, const int *__restrict__ order, int *__restrict__ slot)
{
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) {
    const int q = dtrow[k] / nb, node = order[dtcol[k]], i = node % (nx - 1) + 1, j = node / (nx - 1) + 1;
    const int li = i - (q % mx) * s, lj = j - (q / mx) * s;
    int       p = -1;
    if (lj == 0 && li > 0 && li < s) p = li;
    else if (li == s && lj > 0 && lj < s) p = s + lj;
    else if (lj == s && li > 0 && li < s) p = 2 * s + (s - li);
    else if (li == 0 && lj > 0 && lj < s) p = 3 * s + (s - lj);
    slot[k] = p;
  }
}

// Backward: the closure's solution in the set order (inner nodes from the product O times sC, the column's scale and the
// scaling; E and C nodes from Yec times the scaling; zero outside the domain) -> S in shared memory -> x. The cell writes its
// inner nodes and its left and bottom edges with their corner (the right and top ones belong to the neighbours or to the
// boundary); edge values depend only on the edge, so both cells beside an edge compute the same.
template <typename TA, typename TO, bool SCALE, int LS, int LCC>
__global__ void __launch_bounds__(VP_CELL_THREADS) VPCellBackward(VPCellGeom g, int n, const TO *__restrict__ O, const float *__restrict__ s2, double sC, const TA *__restrict__ scaleT, const double *__restrict__ scale, const int *__restrict__ place, const double *__restrict__ Yec, double *__restrict__ X, size_t ldx)
{
  using K          = CellShape<LS, LCC>;
  constexpr int S = K::S, W = K::W, CC = K::CC, ST = K::ST, NT = K::NT;
  extern __shared__ __align__(16) unsigned char vp_smem[];
  TA          *sh = reinterpret_cast<TA *>(vp_smem);
  const int    tid = threadIdx.x, nch = (n + CC - 1) >> LCC, q = blockIdx.x / nch, c0 = (blockIdx.x - q * nch) << LCC, a = q % g.mx, b = q / g.mx;
  const int    c = tid & (CC - 1), col = c0 + c, cc = col < n ? col : 0, ncol = n;
  const TA    *scaleI = scaleT + g.nC + g.nE + (size_t)q * g.sstride; // the scaling of the cell's inner nodes
  const TA     f    = col < n ? (TA)(sC * (SCALE ? (double)s2[(size_t)q * n + col] : 1.0)) : (TA)0;
  // the closure's boundary (4 s nodes: bottom, right, top, left) from Yec, first: two dependent loads each (place, then
  // Yec), made unconditional (a node clamped into the domain, weighted by zero outside it) so that the unrolled trips'
  // loads go out together
#pragma unroll 8
  VP_CELL_FOR(t, 4 * S * CC) {
    int li, lj;
    BoundaryNode(S, LS, t >> LCC, &li, &lj);
    const int i = a * S + li, j = b * S + lj;
    const bool in = col < n && i > 0 && i < g.nx && j > 0 && j < g.ny;
    const int  kc = place[VPHFEMNode(g.nx, min(max(i, 1), g.nx - 1), min(max(j, 1), g.ny - 1))];
    const int  k  = in ? kc : 0; // a clamped node may be an inner one, past Yec's rows: row 0 instead, weighted by zero
    sh[(lj * W + li) * ST + c] = (in ? (TA)1 : (TA)0) * (TA)(scale[k] * Yec[(size_t)k * ncol + cc]);
  }
  // inner nodes from the product, the column fastest (coalesced reads of the node-major O)
  {
    const TO *Oq = O + (size_t)q * g.prow * n + (col < n ? col : 0);
    ForInner<LS, LCC>(tid, [&](int l, int li, int lj) { sh[(lj * W + li) * ST + c] = scaleI[l] * f * Widen<TA>(Oq[(size_t)l * n]); });
  }
  __syncthreads();
  // S, coarsest level first: each node new on level H adds 1/2 of the two ends of the coarse edge it halves or 1/4 of
  // the corners of the coarse cell it centres (all in the closure; the boundary's are zero). The three kinds of new node
  // read only coarse nodes, so they are three loops without a barrier between them, each the same arithmetic on every lane
  // (one loop over all nodes of the level with a branch per kind ran the three branches one after the other in each warp,
  // and a quarter of its lanes, the coarse nodes, idle: the largest part of this kernel's instructions)
  CellLevels<LS - 1, -1, LS>::Run([&](auto lhc) {
    constexpr int LH = decltype(lhc)::value, H = 1 << LH, MC = (S >> (LH + 1)) + 1, oi = H * ST, oj = H * W * ST; // MC coarse nodes a direction
    constexpr int PD = H <= 8 ? 8 / H : 0;
    ForGrid<LS, LCC, MC - 1, MC, PD>(tid, [&](int x, int y) { // edge midpoints along x: (2x + 1, 2y) H
      TA *v = sh + ((2 * H * y) * W + 2 * H * x + H) * ST + c;
      *v += (TA)0.5 * (v[-oi] + v[oi]);
    });
    ForGrid<LS, LCC, MC, MC - 1, PD>(tid, [&](int x, int y) { // along y: (2x, 2y + 1) H
      TA *v = sh + ((2 * H * y + H) * W + 2 * H * x) * ST + c;
      *v += (TA)0.5 * (v[-oj] + v[oj]);
    });
    ForGrid<LS, LCC, MC - 1, MC - 1, PD>(tid, [&](int x, int y) { // centres: (2x + 1, 2y + 1) H
      TA *v = sh + ((2 * H * y + H) * W + 2 * H * x + H) * ST + c;
      *v += (TA)0.25 * (v[-oi - oj] + v[oi - oj] + v[-oi + oj] + v[oi + oj]);
    });
    __syncthreads();
  });
  // the solution, the fine index fastest (coalesced writes of X's columns): thread (li, cl), rows lj0, lj0 + RS, ...
  {
    constexpr int RS = NT >> (LS + LCC), KR = (S + RS - 1) / RS;
    const int     li = tid & (S - 1), cl = (tid >> LS) & (CC - 1), lj0 = tid >> (LS + LCC), i = a * S + li;
    const bool    on = c0 + cl < n && i > 0;
    double       *Xc = X + (ptrdiff_t)(on ? c0 + cl : 0) * ldx + (on ? i - 1 : 0);
    const int     ldj = g.nx - 1;
    const TA     *d   = sh + (lj0 * W + li) * ST + cl;
#pragma unroll 8
    for (int k = 0; k < KR; k++) {
      const int lj = lj0 + k * RS, j = b * S + lj;
      if ((KR * RS > S) && lj >= S) break;
      if (on && j > 0) Xc[(ptrdiff_t)(j - 1) * ldj] = (double)d[k * RS * W * ST];
    }
  }
}

// one block per (macro cell, chunk of cc columns), the chunk fastest: the chunks of a cell run at the same time, so the
// 64-byte pieces that each writes or reads of a node's n-value row reach the memory together (against the cell fastest:
// the pass 20.6 -> 19.2 ms at h = 1/1024 with 256 columns in half on an H100)
static unsigned Grid1D(int ncell, int n, int cc)
{
  return (unsigned)ncell * (unsigned)((n + cc - 1) / cc);
}

// the shared memory the fused kernels may take per block (two or three blocks fit on an SM of 228 KB)
#define VP_CELL_SMEM (100 * 1024)

// columns per block: the largest power of two <= 2^lmax whose shared memory (bytes per column, padded: cc + 1 columns'
// worth) fits; -1: none fits
static constexpr int ChunkLog(size_t bytes_per_column, int lmax = 4)
{
  for (int l = lmax; l >= 0; l--) {
    const size_t cc = (size_t)1 << l, st = cc > 1 ? cc + 1 : 1;
    if (bytes_per_column * st <= VP_CELL_SMEM) return l;
  }
  return -1;
}

// the backward packing's shared memory per column: Z_I of the cell and Y_E on its boundary
static size_t PackBytes(VPCudaHFEM h, int s, size_t ta)
{
  return (size_t)h->nb * ta + 4 * (size_t)s * sizeof(double);
}

// the type of the transform's arithmetic and of Z_I: double for double and single, float for the 16-bit formats
static size_t TransformSize(VPCudaHFEM h)
{
  return h->prec == VPC_HFEM_DOUBLE || h->prec == VPC_HFEM_SINGLE ? sizeof(double) : sizeof(float);
}

extern "C" int VPCudaHFEMCellsFit(VPCudaHFEM h, VPCudaHFEMTransform t)
{
  const size_t ta = TransformSize(h);
  return t->s >= 2 && ChunkLog((size_t)(t->s + 1) * (t->s + 1) * ta) >= 0 && ChunkLog(PackBytes(h, t->s, ta)) >= 0;
}

// the forward (stage 0) or backward (stage 2) kernel of s = 2^LS, its chunk of columns fixed at compile time by the shared
// memory of the closure (ChunkLog)
template <typename TA, typename TP, typename TO, typename TOB, bool SCALE, int LS>
static int CellTransform(VPCudaHFEM h, VPCudaHFEMTransform tr, VPCellGeom g, int stage, int n, const double *B, size_t ldb, double *Zec, double *Yec, double *X, size_t ldx)
{
  constexpr int LCC = ChunkLog((size_t)((1 << LS) + 1) * ((1 << LS) + 1) * sizeof(TA));
  if constexpr (LCC < 0) return (int)cudaErrorInvalidValue; // does not fit (VPCudaHFEMCellsFit says so first)
  else {
    using K               = CellShape<LS, LCC>;
    const size_t   sm     = (size_t)K::W * K::W * K::ST * sizeof(TA);
    const unsigned grid   = Grid1D(h->ncell, n, K::CC);
    const TA      *scaleT = reinterpret_cast<const TA *>(sizeof(TA) == sizeof(double) ? (const void *)tr->scale : (const void *)tr->scalef);
    const float   *s1 = h->cellscale, *s2 = h->cellscale + (size_t)h->ncell * n;
    if (stage == 0) {
      TP *P = (TP *)(h->ns ? h->cellpack : h->pack); // the folded path keeps its packed input through the Pi^-1 stage
      VP_CHECK(cudaFuncSetAttribute(VPCellForward<TA, TP, SCALE, LS, LCC>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
      VPCellForward<TA, TP, SCALE, LS, LCC><<<grid, VP_CELL_THREADS, sm>>>(g, n, B, ldb, scaleT, tr->scale, tr->place, h->ns ? NULL : (TA *)h->cellZ, P, (float *)s1, Zec);
    } else if (h->ns) { // the folded back substitution's product, in TOB
      VP_CHECK(cudaFuncSetAttribute(VPCellBackward<TA, TOB, SCALE, LS, LCC>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
      VPCellBackward<TA, TOB, SCALE, LS, LCC><<<grid, VP_CELL_THREADS, sm>>>(g, n, (const TOB *)h->out, s2, h->sFB, scaleT, tr->scale, tr->place, Yec, X, ldx);
    } else {
      VP_CHECK(cudaFuncSetAttribute(VPCellBackward<TA, TO, SCALE, LS, LCC>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
      VPCellBackward<TA, TO, SCALE, LS, LCC><<<grid, VP_CELL_THREADS, sm>>>(g, n, (const TO *)h->out, s2, h->sC, scaleT, tr->scale, tr->place, Yec, X, ldx);
    }
    VP_CHECK(cudaGetLastError());
    return 0;
  }
}

// CellTransform of the run-time ls (s = 2^ls), tried from LS up to 7 (VPCudaHFEMCellsFit: no closure past s = 128 fits the
// shared memory)
template <typename TA, typename TP, typename TO, typename TOB, bool SCALE, int LS = 1>
static int CellTransformOf(int ls, VPCudaHFEM h, VPCudaHFEMTransform tr, VPCellGeom g, int stage, int n, const double *B, size_t ldb, double *Zec, double *Yec, double *X, size_t ldx)
{
  if constexpr (LS > 7) return (int)cudaErrorInvalidValue;
  else if (ls == LS) return CellTransform<TA, TP, TO, TOB, SCALE, LS>(h, tr, g, stage, n, B, ldb, Zec, Yec, X, ldx);
  else return CellTransformOf<TA, TP, TO, TOB, SCALE, LS + 1>(ls, h, tr, g, stage, n, B, ldb, Zec, Yec, X, ldx);
}

// the per-cell kernels of one precision, by stage (see CellStage)
template <typename TA, typename TP, typename TO, typename TOB, bool SCALE>
static int CellStages(VPCudaHFEM h, VPCudaHFEMTransform tr, int stage, int n, const double *B, size_t ldb, double *Zec, double *Yec, double *X, size_t ldx)
{
  const int    s = tr->s;
  int          ls = 0;
  while ((1 << ls) < s) ls++;
  VPCellGeom g = {tr->nx, tr->ny, s, ls, tr->nx / s, h->nC, h->nE, h->nb, Padded(h->nb), Padded(h->nb) + h->ns, tr->cellscale ? 0 : h->nb};
  TP          *P  = (TP *)(h->ns ? h->cellpack : h->pack); // the folded path keeps its packed input through the Pi^-1 stage
  const float *s1 = h->cellscale, *s2 = h->cellscale + (size_t)h->ncell * n;
  if (stage == 0 || stage == 2) {
    if (g.nb != (s - 1) * (s - 1)) return (int)cudaErrorInvalidValue;
    return CellTransformOf<TA, TP, TO, TOB, SCALE>(ls, h, tr, g, stage, n, B, ldb, Zec, Yec, X, ldx);
  } else if (stage == 1) {
    // 8 columns: 3 blocks of 512 threads an SM (with 16 the shared memory allows 2; the pack ran at half occupancy)
    const int    l = ChunkLog(PackBytes(h, s, sizeof(TA)), 3), cc = 1 << l;
    const size_t sm = PackBytes(h, s, sizeof(TA)) * cc;
    VP_CHECK(cudaFuncSetAttribute(VPCellPackBackward<TA, TP, SCALE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
    VPCellPackBackward<TA, TP, SCALE><<<Grid1D(h->ncell, n, cc), VP_CELL_THREADS, sm>>>(g, n, l, (const TA *)h->cellZ, h->dtptr, h->dtrow, h->dtslot, h->couple[1].val, tr->place, Yec, (TP *)h->pack, (float *)s2);
  } else if (stage == 4) {
    const size_t total = (size_t)h->nE * n, nb = (total + 255) / 256;
    if (total) VPCellFoldCouple<TO, SCALE><<<(unsigned)(nb < 65535 * 32 ? nb : 65535 * 32), 256>>>(g, n, h->ns, tr->order, (const TO *)h->out, s1, h->sFA, Zec);
  } else if (stage == 5) {
    VPCellFoldPack<TP, SCALE><<<(unsigned)h->ncell * (unsigned)((n + 31) / 32), 256>>>(g, n, h->ns, h->alpha, tr->place, Yec, s1, P, (float *)s2);
  } else {
    const auto  &cp = h->couple[0];
    const size_t total = (size_t)cp.nrows * n, nb = (total + 255) / 256;
    if (cp.nrows) VPCellCouple<TO, SCALE><<<(unsigned)(nb < 65535 * 32 ? nb : 65535 * 32), 256>>>(cp.nrows, n, cp.rows, cp.ptr, cp.col, cp.val, h->nC + h->nE, h->nb, g.prow, (const TO *)h->out, s1, h->sC, Zec);
  }
  VP_CHECK(cudaGetLastError());
  return 0;
}

// stage 0: forward transform and packing; 1: backward packing; 2: backward unpacking and transform; 3: Z_E -= D Y_I;
// folded couplings: 4: Z_E -= G^T Z_I (from the product with FA); 5: the back substitution's packing of alpha Y_E
static int CellStage(VPCudaHFEM h, VPCudaHFEMTransform t, int stage, int n, const double *B, size_t ldb, double *Zec, double *Yec, double *X, size_t ldx)
{
  switch (h->prec) {
  case VPC_HFEM_DOUBLE:
    return CellStages<double, double, double, double, false>(h, t, stage, n, B, ldb, Zec, Yec, X, ldx);
  case VPC_HFEM_SINGLE: // the transform in double: in float it would raise the residual of the single solve 10-fold
    return CellStages<double, float, float, float, false>(h, t, stage, n, B, ldb, Zec, Yec, X, ldx);
  case VPC_HFEM_HALF:
    return CellStages<float, __half, float, __half, true>(h, t, stage, n, B, ldb, Zec, Yec, X, ldx);
  default:
    return CellStages<float, __nv_bfloat16, float, __nv_bfloat16, true>(h, t, stage, n, B, ldb, Zec, Yec, X, ldx);
  }
}

// the products of the folded couplings, one strided batched GEMM over the cells each (column-major n x rows blocks):
// which 0: W_q (n x ns) = P_q(:, 0:prow) FA; which 1: O_q (n x prow) = P_q (n x (prow + ns)) FB
static int FoldProduct(VPCudaHFEM h, int which, int n)
{
  const int                 prow = Padded(h->nb), K = prow + h->ns, rows = which ? prow : h->ns;
  const cudaDataType_t      t  = h->prec == VPC_HFEM_DOUBLE ? CUDA_R_64F : (h->prec == VPC_HFEM_SINGLE ? CUDA_R_32F : (h->prec == VPC_HFEM_HALF ? CUDA_R_16F : CUDA_R_16BF));
  // the back substitution's product (which 1) in the storage format: for the 16-bit formats half the bytes that its GEMM
  // writes and the backward kernel reads (|O| <= prow + ns VP_FOLD_RANGE: the inputs scaled to at most 1, alpha Y_E to at
  // most VP_FOLD_RANGE, the stores to at most 1); W (which 0) stays float, it is summed into Z_E in double
  const cudaDataType_t      to = h->prec == VPC_HFEM_DOUBLE ? CUDA_R_64F : (which && (h->prec == VPC_HFEM_HALF || h->prec == VPC_HFEM_BFLOAT16) ? t : CUDA_R_32F);
  const cublasComputeType_t ct = h->prec == VPC_HFEM_DOUBLE ? CUBLAS_COMPUTE_64F : (h->prec == VPC_HFEM_SINGLE && h->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  const double              oned = 1.0, zerod = 0.0;
  const float               onef = 1.0f, zerof = 0.0f;
  const void               *one = h->prec == VPC_HFEM_DOUBLE ? (const void *)&oned : (const void *)&onef, *zero = h->prec == VPC_HFEM_DOUBLE ? (const void *)&zerod : (const void *)&zerof;
  VP_CUBLAS(cublasGemmStridedBatchedEx(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, rows, which ? K : prow, one, h->cellpack, t, n, (long long)n * K, which ? h->FB : h->FA, t, which ? K : prow, 0, zero, h->out, to, n, (long long)n * rows, h->ncell, ct, CUBLAS_GEMM_DEFAULT));
  return 0;
}

// W = A_CC^-1 Z for node-major nC x n blocks (n x nC column-major matrices: W^T = Z^T A_CC^-1, A_CC symmetric)
static int SolveMacro(VPCudaHFEM h, int n, const double *Z, double *W)
{
  const double one = 1.0, zero = 0.0;
  VP_CUBLAS(cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, h->nC, h->nC, &one, Z, n, h->Ainv, h->nC, &zero, W, n));
  return 0;
}

// the solve with the folded couplings (buffers grown by the caller): forward transform and packing of Z_I; Z_E -= G^T Z_I;
// the macro grid and Pi^-1 as in the sparse path; [Z_I; alpha Y_E] packed; Y_I = [C_1^-1 | -G/alpha] of it; backward
static int SolveCellsFolded(VPCudaHFEM h, VPCudaHFEMTransform t, int n, const double *B, size_t ldb, double *X, size_t ldx)
{
  const int nC = h->nC, nE = h->nE, nEC = nC + nE;
  double   *Zec = h->nmZ, *Yec = h->nmY, *Wc = h->nmW;
  int       err;
  for (int k = 0; k < VPC_HFEM_NSTEP; k++) h->last[k] = 0.0; // a new solve
  VP_TICK();
  VP_CHECK(cudaMemsetAsync(Zec, 0, sizeof(double) * (size_t)nEC * n, 0));
  if ((err = CellStage(h, t, 0, n, B, ldb, Zec, Yec, X, ldx))) return err;
  VP_TOCK(VPC_HFEM_STEP_TRANSFORM);
  VP_TICK();
  if ((err = FoldProduct(h, 0, n))) return err;
  VP_TOCK(VPC_HFEM_STEP_PACK_C + 1);
  VP_TICK();
  if ((err = CellStage(h, t, 4, n, B, ldb, Zec, Yec, X, ldx))) return err;
  VP_TOCK(VPC_HFEM_STEP_COUPLE);
  VP_TICK();
  if (nC) {
    if ((err = SolveMacro(h, n, Zec, Wc))) return err;
    if ((err = VPHFEMCoupleNM(h, 2, n, Wc, Zec))) return err;
  }
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  if ((err = VPHFEMApplyInverseNM(h, h->Piinv, h->sPi, nE, 1, n, Zec + (size_t)nC * n, Yec + (size_t)nC * n, VPC_HFEM_STEP_PACK_PI))) return err;
  VP_TICK();
  if (nC) {
    if ((err = VPHFEMCoupleNM(h, 3, n, Yec, Zec))) return err;
    if ((err = SolveMacro(h, n, Zec, Yec))) return err;
  }
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  VP_TICK();
  if ((err = CellStage(h, t, 5, n, B, ldb, Zec, Yec, X, ldx))) return err;
  VP_TOCK(VPC_HFEM_STEP_PACK_C);
  VP_TICK();
  if ((err = FoldProduct(h, 1, n))) return err;
  VP_TOCK(VPC_HFEM_STEP_PACK_C + 1);
  VP_TICK();
  if ((err = CellStage(h, t, 2, n, B, ldb, Zec, Yec, X, ldx))) return err;
  VP_TOCK(VPC_HFEM_STEP_TRANSFORM);
  return 0;
}

extern "C" int VPCudaHFEMSolveCells(VPCudaHFEM h, VPCudaHFEMTransform t, int n, const double *B, size_t ldb, double *X, size_t ldx)
{
  const int    nC = h->nC, nE = h->nE, nEC = nC + nE, prow = Padded(h->nb);
  const size_t ta = TransformSize(h), to = h->prec == VPC_HFEM_DOUBLE ? sizeof(double) : sizeof(float), pvals = (size_t)h->ncell * prow * n;
  const bool   fold = h->ns > 0 && nE > 0;
  double      *Zec, *Yec, *Wc;
  int          err;
  if (!n || !t->N) return 0;
  if (!VPCudaHFEMCellsFit(h, t)) return (int)cudaErrorInvalidValue;
  if ((err = Grow((void **)&h->nmZ, &h->nmcap[0], sizeof(double) * ((size_t)nEC * n + 1)))) return err;
  if ((err = Grow((void **)&h->nmY, &h->nmcap[1], sizeof(double) * ((size_t)nEC * n + 1)))) return err;
  if ((err = Grow((void **)&h->nmW, &h->nmcap[2], sizeof(double) * ((size_t)nC * n + 1)))) return err;
  if ((err = Grow((void **)&h->cellscale, &h->cellscalecap, sizeof(float) * 2 * (size_t)h->ncell * n))) return err;
  if ((err = Grow(&h->out, &h->outcap, to * (size_t)h->ncell * (prow > h->ns ? prow : h->ns) * n))) return err;
  if (fold) {
    // [Z_I; alpha Y_E] of every cell, kept from the forward transform to the back substitution
    if ((err = Grow(&h->cellpack, &h->cellpackcap, StorageSize(h->prec) * (size_t)h->ncell * (prow + h->ns) * n))) return err;
  } else {
    if ((err = Grow(&h->cellZ, &h->cellZcap, ta * h->nb * (size_t)h->ncell * n))) return err;
    if ((err = Grow(&h->pack, &h->packcap, StorageSize(h->prec) * pvals))) return err;
  }
  Zec = h->nmZ, Yec = h->nmY, Wc = h->nmW;
  if (fold) return SolveCellsFolded(h, t, n, B, ldb, X, ldx);
  if (!h->dtslot && nE) {
    // once: the boundary position in its cell of the E node of each entry of D^T (an entry off the boundary: an error)
    const int nnz = (int)h->dtnnz, mx = t->nx / t->s;
    int       bad = 0;
    VP_CHECK(cudaMalloc(&h->dtslot, sizeof(int) * ((size_t)nnz + 1)));
    if (nnz) {
      VPCellSlots<<<(nnz + 255) / 256, 256>>>(nnz, nC, t->nx, t->s, mx, h->nb, h->dtrow, h->couple[1].col, t->order, h->dtslot);
      VP_CHECK(cudaGetLastError());
    }
    {
      std::vector<int> slot((size_t)nnz + 1);
      VP_CHECK(cudaMemcpy(slot.data(), h->dtslot, sizeof(int) * ((size_t)nnz + 1), cudaMemcpyDeviceToHost));
      for (int k = 0; k < nnz; k++) bad |= slot[k] < 0;
    }
    if (bad) return VPC_ERR_LAYOUT;
  }
  for (int k = 0; k < VPC_HFEM_NSTEP; k++) h->last[k] = 0.0; // a new solve
  // forward: Z = T B cell by cell, Z_I packed; Y_I = C^-1 Z_I; W_C = A_CC^-1 Z_C, Z_E -= Ap_EC W_C (= B^T L_C^-1 Z_C)
  VP_TICK();
  VP_CHECK(cudaMemsetAsync(Zec, 0, sizeof(double) * (size_t)nEC * n, 0));
  if ((err = CellStage(h, t, 0, n, B, ldb, Zec, Yec, X, ldx))) return err;
  VP_TOCK(VPC_HFEM_STEP_TRANSFORM);
  VP_TICK();
  if ((err = VPHFEMInverseProduct(h, h->Cinv, prow, h->ncell, n))) return err;
  VP_TOCK(VPC_HFEM_STEP_PACK_C + 1);
  VP_TICK();
  if (nC) {
    if ((err = SolveMacro(h, n, Zec, Wc))) return err;
    if (nE && (err = VPHFEMCoupleNM(h, 2, n, Wc, Zec))) return err;
  }
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  if (nE) {
    // middle: Z_E -= D Y_I, Y_E = Pi^-1 Z_E (the Pi path reuses pack and out: the forward product is used up)
    VP_TICK();
    if ((err = CellStage(h, t, 3, n, B, ldb, Zec, Yec, X, ldx))) return err;
    VP_TOCK(VPC_HFEM_STEP_COUPLE);
    if ((err = VPHFEMApplyInverseNM(h, h->Piinv, h->sPi, nE, 1, n, Zec + (size_t)nC * n, Yec + (size_t)nC * n, VPC_HFEM_STEP_PACK_PI))) return err;
  }
  // Y_C = A_CC^-1 (Z_C - Ap_CE Y_E) (= L_C^-T (L_C^-1 Z_C - B Y_E))
  VP_TICK();
  if (nC) {
    if (nE && (err = VPHFEMCoupleNM(h, 3, n, Yec, Zec))) return err;
    if ((err = SolveMacro(h, n, Zec, Yec))) return err;
  }
  VP_TOCK(VPC_HFEM_STEP_MACRO);
  // backward: Y_I = C^-1 (Z_I - D^T Y_E), x = T^T Y cell by cell
  VP_TICK();
  if ((err = CellStage(h, t, 1, n, B, ldb, Zec, Yec, X, ldx))) return err;
  VP_TOCK(VPC_HFEM_STEP_PACK_C);
  VP_TICK();
  if ((err = VPHFEMInverseProduct(h, h->Cinv, prow, h->ncell, n))) return err;
  VP_TOCK(VPC_HFEM_STEP_PACK_C + 1);
  VP_TICK();
  if ((err = CellStage(h, t, 2, n, B, ldb, Zec, Yec, X, ldx))) return err;
  VP_TOCK(VPC_HFEM_STEP_TRANSFORM);
  return 0;
}
