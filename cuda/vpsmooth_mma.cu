// The vertex-patch smoothing step in double precision with every 1D contraction on the FP64 tensor cores
// (mma.sync m8n8k4, compute capability 8.0 and newer), for the operators of the shared-memory kernel (closure = the
// patch's 2^d cells: laplace). Same step as vpsmooth_tile.cu: the closure of x gathered into shared memory, the local
// residual by rectangular sum factorization, the fast-diagonalization solve, the update.
//
// Why: in the shared-memory kernel each FMA of a contraction reads one 8-byte word from shared memory, and shared memory
// delivers 16 doubles per clock per multiprocessor against 64 FP64 FMAs: at most 25 % of the FP64 peak. Here a
// contraction along direction d of an array in shared memory is a matrix product, out (M x N) = A (M x K) in (K x N),
// with N the pairs of the other two indices. One warp-wide m8n8k4 MMA reads 32 words of `in` (one per lane) and does
// 256 multiply-adds: 8 per word instead of 1. A (the 1D matrix rows, zero-padded to tiles of 8 x 4) comes from global
// memory through L1 (32 words per MMA, the same for all patches of a class). The cost is the padding: M and N are
// rounded up to 8 and K to 4 (at k = 3, 2k - 1 = 5 rows fill 5 of 8; at k = 7, 13 of 16).
//
// Work layout: one patch per block of W warps; the (row tile, column tile) pairs of a contraction are dealt to the
// warps round robin and each keeps its pairs' accumulators (two doubles per lane per pair) in registers, and its
// fragment of the matrix. Column
// indices past N and contraction indices past K are clamped to the last valid one (A is zero there), so every shared
// word read is one the patch wrote. The residual's last contraction accumulates over the terms in registers, starting
// from b; the third FDM contraction divides by the eigenvalue sums before storing; the last one adds to the target.
#include "vpsmooth_mma.h"
#include "vpcuda_check.h"
#include "vpcopyasync.h"
#include <cuda_runtime.h>
#include <type_traits>

template <int K, int DIM>
struct VPMma {
  static constexpr int NE = 2 * K + 1, NI = 2 * K - 1;
  static constexpr int NZ = DIM == 3 ? NE : 1, NIZ = DIM == 3 ? NI : 1;
  static constexpr int W = K <= 4 ? 4 : 8, THREADS = 32 * W;
  // resident blocks asked of the register allocation: k <= 4 at most 128 registers per thread (4 blocks of 4 warps); above,
  // no cap (measured on an H100: the 255 registers of the unrolled pairs beat more resident warps, 0.83 against 0.94 ms at
  // k = 7 with 16 warps of 128 registers)
  static constexpr int MINBLOCKS = K <= 4 ? 512 / THREADS : 1;
  // shared words: two closures (this patch's and the next one's, loaded during this one), the x contraction X, the y
  // contraction Y (3D); the FDM arrays reuse this patch's closure and X
  static constexpr int XS = NE * NE * NZ, XW = NI * NE * NZ, YW = DIM == 3 ? NI * NI * NE : 0, WORDS = 2 * XS + XW + YW;
};

constexpr int VPMmaPick(int d, int a0, int a1, int a2)
{
  return d == 0 ? a0 : (d == 1 ? a1 : a2);
}

// A contraction along direction DIR of the array of extents (E0, E1, E2), x fastest, by the M x E_DIR matrix A
// (row-major): out has E_DIR replaced by M, also x fastest. Columns: n = n1 + N1 n2, n1 and n2 the indices along the
// other two directions D1 < D2.
template <int DIR, int E0, int E1, int E2, int M_, int W_>
struct VPMmaStage {
  static constexpr int DIRECTION = DIR, M = M_, W = W_, D1 = DIR == 0 ? 1 : 0, D2 = DIR == 2 ? 1 : 2;
  static constexpr int KD = VPMmaPick(DIR, E0, E1, E2), N1 = VPMmaPick(D1, E0, E1, E2), N = N1 * VPMmaPick(D2, E0, E1, E2);
  static constexpr int SK = VPMmaPick(DIR, 1, E0, E0 * E1), S1 = VPMmaPick(D1, 1, E0, E0 * E1), S2 = VPMmaPick(D2, 1, E0, E0 * E1);
  static constexpr int O0 = DIR == 0 ? M : E0, O1 = DIR == 1 ? M : E1; // output extents; strides 1, O0, O0 O1
  static constexpr int MT = (M + 7) / 8, KT = (KD + 3) / 4, NT = (N + 7) / 8, PAIRS = MT * NT, PER = (PAIRS + W - 1) / W;
  using Acc = double[PER][2];
};

// Pair p of a warp: row tile p % MT, column tile p / MT. W is a multiple of MT, so a warp's pairs share one row tile
// and the warp loads its fragment of A (times scale) once per contraction.
template <class S>
__device__ inline void VPMmaLoadA(const double *__restrict__ A, double scale, int warp, int lane, double (&af)[S::KT])
{
  static_assert(S::W % S::MT == 0, "the warps' row tiles");
  const int m = (warp % S::MT) * 8 + (lane >> 2), t = lane & 3;
#pragma unroll
  for (int kt = 0; kt < S::KT; kt++) af[kt] = (m < S::M && kt * 4 + t < S::KD) ? scale * A[m * S::KD + kt * 4 + t] : 0.0;
}

// acc[j] += A in for the warp's pairs i0 + j, j < NP (unrolled: their shared loads are independent of each other)
template <class S, int NP>
__device__ inline void VPMmaPairs(const double (&af)[S::KT], const double *in, double (*acc)[2], int i0, int warp, int lane)
{
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < NP; j++) {
    const int p = warp + (i0 + j) * S::W;
    if (p < S::PAIRS) { // the same for the whole warp, as mma.sync needs
      const int     nt = p / S::MT, n = nt * 8 + g < S::N ? nt * 8 + g : S::N - 1;
      const double *col = in + (n % S::N1) * S::S1 + (n / S::N1) * S::S2;
#pragma unroll
      for (int kt = 0; kt < S::KT; kt++) VPDmma(acc[j][0], acc[j][1], af[kt], col[(kt * 4 + t < S::KD ? kt * 4 + t : S::KD - 1) * S::SK]);
    }
  }
}

// f(c, value) for the outputs of the warp's pairs i0 + j, j < NP, inside the M x N result; c: the index per direction
template <class S, int NP, class F>
__device__ inline void VPMmaOut(double (*acc)[2], int i0, int warp, int lane, F f)
{
  const int g = lane >> 2, t = lane & 3, m = (warp % S::MT) * 8 + g;
#pragma unroll
  for (int j = 0; j < NP; j++) {
    const int p = warp + (i0 + j) * S::W;
    if (p < S::PAIRS && m < S::M) {
#pragma unroll
      for (int v = 0; v < 2; v++) {
        const int n = (p / S::MT) * 8 + 2 * t + v;
        if (n < S::N) {
          int c[3];
          c[S::DIRECTION] = m;
          c[S::D1]        = n % S::N1;
          c[S::D2]        = n / S::N1;
          f(c, acc[j][v]);
        }
      }
    }
  }
}

// acc += A in over all the warp's pairs (fragment af: the residual's last contraction, accumulated over the terms)
template <class S>
__device__ inline void VPMmaAccumulateA(const double (&af)[S::KT], const double *in, typename S::Acc &acc, int warp, int lane)
{
#pragma unroll
  for (int i0 = 0; i0 < S::PER; i0 += 2) {
    if (i0 + 1 < S::PER) VPMmaPairs<S, 2>(af, in, acc + i0, i0, warp, lane);
    else VPMmaPairs<S, 1>(af, in, acc + i0, i0, warp, lane);
  }
}

template <class S, class F>
__device__ inline void VPMmaForEach(typename S::Acc &acc, int warp, int lane, F f)
{
  VPMmaOut<S, S::PER>(acc, 0, warp, lane, f);
}

// f(c, value) for the outputs of A in (the warp's fragment af of A), two pairs at a time: two independent MMA chains
template <class S, class F>
__device__ inline void VPMmaProductA(const double (&af)[S::KT], const double *in, int warp, int lane, F f)
{
  constexpr int G = 2;
#pragma unroll
  for (int i0 = 0; i0 < S::PER; i0 += G) {
    double acc[G][2] = {{0, 0}, {0, 0}};
    VPMmaPairs<S, G>(af, in, acc, i0, warp, lane);
    VPMmaOut<S, G>(acc, i0, warp, lane, f);
  }
}

// out = A in (fragment af), out x fastest
template <class S>
__device__ inline void VPMmaApplyA(const double (&af)[S::KT], const double *in, double *out, int warp, int lane)
{
  VPMmaProductA<S>(af, in, warp, lane, [&](const int *c, double v) { out[c[0] + S::O0 * (c[1] + S::O1 * c[2])] = v; });
}

__device__ inline int VPMmaClass(int v, int N)
{
  return v == 1 ? 0 : (v == N - 1 ? 2 : 1);
}

// position of interior node (i0, i1, i2) in an array holding box bx
__device__ inline size_t VPMmaIndex(const VPCudaBox &bx, int i0, int i1, int i2)
{
  return (size_t)(i0 - bx.lo[0]) + (size_t)bx.m[0] * ((size_t)(i1 - bx.lo[1]) + (size_t)bx.m[1] * (size_t)(i2 - bx.lo[2]));
}

template <int K, int DIM>
__global__ void __launch_bounds__(VPMma<K, DIM>::THREADS, VPMma<K, DIM>::MINBLOCKS) VPMmaKernel(const VPCudaPatchOp_d *__restrict__ op, VPCudaBox bx, const int *__restrict__ vertex, int start, int end, const double *__restrict__ b, const double *x, double *target, double omega, bool atomic)
{
  using P          = VPMma<K, DIM>;
  constexpr int NE = P::NE, NI = P::NI, NZ = P::NZ, NIZ = P::NIZ, W = P::W;
  using SX         = VPMmaStage<0, NE, NE, NZ, NI, W>;  // closure -> X (NI, NE, NZ)
  using SY         = VPMmaStage<1, NI, NE, NZ, NI, W>;  // X -> Y (NI, NI, NZ); in 2D the residual's last step
  using SZ         = VPMmaStage<2, NI, NI, NE, NI, W>;  // Y -> (NI, NI, NI), the residual's last step in 3D
  using SR         = std::conditional_t<DIM == 3, SZ, SY>;
  using F0         = VPMmaStage<0, NI, NI, NIZ, NI, W>; // the FDM contractions on NI^DIM arrays
  using F1         = VPMmaStage<1, NI, NI, NIZ, NI, W>;
  using F2         = VPMmaStage<2, NI, NI, NI, NI, W>;
  extern __shared__ __align__(16) unsigned char vp_mma_smem[];
  double   *xsb[2] = {reinterpret_cast<double *>(vp_mma_smem), reinterpret_cast<double *>(vp_mma_smem) + P::XS};
  double   *X = xsb[1] + P::XS, *Y = X + P::XW, *G2 = X;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int       buf  = 0;
  // the closure of x at patch q into xs, boundary nodes zero, asynchronously
  auto gather = [&](int q, double *xs) {
    const int *v = vertex + 3 * q, b0 = (v[0] - 1) * K, b1 = (v[1] - 1) * K, b2 = DIM == 3 ? (v[2] - 1) * K : 0;
    for (int i = threadIdx.x; i < P::XS; i += P::THREADS) {
      const int  f0 = b0 + i % NE, f1 = b1 + (i / NE) % NE, f2 = DIM == 3 ? b2 + i / (NE * NE) : 1;
      const bool in = f0 > 0 && f0 <= bx.n[0] && f1 > 0 && f1 <= bx.n[1] && f2 > 0 && f2 <= bx.n[2];
      VPCopyAsync(xs + i, in ? x + VPMmaIndex(bx, f0 - 1, f1 - 1, f2 - 1) : x, in);
    }
    VPCopyCommit();
  };

  if (x && start + (int)blockIdx.x < end) gather(start + blockIdx.x, xsb[0]);
  for (int p = start + blockIdx.x; p < end; p += gridDim.x, buf ^= 1) {
    const int *v      = vertex + 3 * p;
    double    *xs     = xsb[buf], *G1 = xs; // G1: the FDM's first array, on this patch's closure once it is used
    int        cls[3] = {1, 1, 1}, base[3] = {0, 0, 0};
    for (int d = 0; d < DIM; d++) {
      cls[d]  = VPMmaClass(v[d], (bx.n[d] + 1) / K);
      base[d] = (v[d] - 1) * K; // full-grid node of closure index 0; interior index of closure c: base + c - 1
    }
    // the residual's accumulators start from b on the patch interior (the loads overlap the x contractions)
    typename SR::Acc r;
    VPMmaForEach<SR>(r, warp, lane, [&](const int *c, double &val) { val = b[VPMmaIndex(bx, base[0] + c[0], base[1] + c[1], DIM == 3 ? base[2] + c[2] : 0)]; });
    if (x) VPCopyWait();
    __syncthreads(); // this patch's closure is in; the previous patch is done with the other buffer
    if (x && p + (int)gridDim.x < end) gather(p + gridDim.x, xsb[buf ^ 1]); // the next patch's, during this one
    // Each matrix fragment is loaded before the barrier that precedes its use, so its latency overlaps the wait.
    if (x)
      for (int kind = 0; kind < VPC_KINDS; kind++) {
        bool used = false;
        for (int t = 0; t < op->nterms; t++) used = used || op->kind[t][0] == kind;
        if (!used) continue;
        double ax[SX::KT];
        VPMmaLoadA<SX>(op->R[kind][0][cls[0]], 1.0, warp, lane, ax);
        VPMmaApplyA<SX>(ax, xs, X, warp, lane);
        for (int t = 0; t < op->nterms; t++) {
          if (op->kind[t][0] != kind) continue;
          if constexpr (DIM == 3) {
            double ay[SY::KT], az[SZ::KT];
            VPMmaLoadA<SY>(op->R[op->kind[t][1]][1][cls[1]], 1.0, warp, lane, ay);
            VPMmaLoadA<SZ>(op->R[op->kind[t][2]][2][cls[2]], -op->coef[t], warp, lane, az);
            __syncthreads(); // X is complete, and Y free
            VPMmaApplyA<SY>(ay, X, Y, warp, lane);
            __syncthreads();
            VPMmaAccumulateA<SZ>(az, Y, r, warp, lane);
          } else {
            double ay[SY::KT];
            VPMmaLoadA<SY>(op->R[op->kind[t][1]][1][cls[1]], -op->coef[t], warp, lane, ay);
            __syncthreads(); // X is complete
            VPMmaAccumulateA<SY>(ay, X, r, warp, lane);
          }
        }
        __syncthreads(); // X (and Y) are free for the next kind
      }
    // fast diagonalization, S_x S_y S_z diag^-1 S_z^T S_y^T S_x^T r, between G1 (this patch's closure) and G2 (on X)
    double a0[F0::KT], a1[F1::KT];
    VPMmaForEach<SR>(r, warp, lane, [&](const int *c, double &val) { G1[c[0] + NI * (c[1] + NI * c[2])] = val; });
    VPMmaLoadA<F0>(op->St[0][cls[0]], 1.0, warp, lane, a0);
    __syncthreads();
    VPMmaApplyA<F0>(a0, G1, G2, warp, lane);
    VPMmaLoadA<F1>(op->St[1][cls[1]], 1.0, warp, lane, a1);
    __syncthreads();
    if constexpr (DIM == 3) {
      double a2[F2::KT];
      VPMmaApplyA<F1>(a1, G2, G1, warp, lane);
      VPMmaLoadA<F2>(op->St[2][cls[2]], 1.0, warp, lane, a2);
      __syncthreads();
      // the last direction's transform divides by the eigenvalue sums
      VPMmaProductA<F2>(a2, G1, warp, lane, [&](const int *c, double val) { G2[c[0] + NI * (c[1] + NI * c[2])] = val / (op->lambda[0][cls[0]][c[0]] + op->lambda[1][cls[1]][c[1]] + op->lambda[2][cls[2]][c[2]]); });
      VPMmaLoadA<F2>(op->S[2][cls[2]], 1.0, warp, lane, a2);
      __syncthreads();
      VPMmaApplyA<F2>(a2, G2, G1, warp, lane);
      VPMmaLoadA<F1>(op->S[1][cls[1]], 1.0, warp, lane, a1);
      __syncthreads();
      VPMmaApplyA<F1>(a1, G1, G2, warp, lane);
    } else {
      VPMmaProductA<F1>(a1, G2, warp, lane, [&](const int *c, double val) { G1[c[0] + NI * c[1]] = val / (op->lambda[0][cls[0]][c[0]] + op->lambda[1][cls[1]][c[1]]); });
      VPMmaLoadA<F1>(op->S[1][cls[1]], 1.0, warp, lane, a1);
      __syncthreads();
      VPMmaApplyA<F1>(a1, G1, G2, warp, lane);
    }
    VPMmaLoadA<F0>(op->S[0][cls[0]], 1.0, warp, lane, a0);
    __syncthreads();
    VPMmaProductA<F0>(a0, G2, warp, lane, [&](const int *c, double val) {
      double *dst = target + VPMmaIndex(bx, base[0] + c[0], base[1] + c[1], DIM == 3 ? base[2] + c[2] : 0);
      if (atomic) atomicAdd(dst, omega * val);
      else *dst += omega * val;
    });
    // no barrier: the next patch's first shared writes (its x contraction into X = G2) come after its own barrier
  }
}

// the kernel of (k, dim) with its block size and shared words
struct VPMmaEntry {
  void (*kernel)(const VPCudaPatchOp_d *, VPCudaBox, const int *, int, int, const double *, const double *, double *, double, bool);
  int threads, words;
};

template <int K, int DIM>
static VPMmaEntry VPMmaMake()
{
  return {VPMmaKernel<K, DIM>, VPMma<K, DIM>::THREADS, VPMma<K, DIM>::WORDS};
}

static int VPMmaGet(int dim, int k, VPMmaEntry *e)
{
#define VP_MMA_CASE(K) \
  case K: \
    *e = dim == 3 ? VPMmaMake<K, 3>() : VPMmaMake<K, 2>(); \
    return 0;
  switch (k) {
    VP_MMA_CASE(1)
    VP_MMA_CASE(2)
    VP_MMA_CASE(3)
    VP_MMA_CASE(4)
    VP_MMA_CASE(5)
    VP_MMA_CASE(6)
    VP_MMA_CASE(7)
    VP_MMA_CASE(8)
  default:
    return (int)cudaErrorInvalidValue;
  }
#undef VP_MMA_CASE
}

int VPMmaSupported(void)
{
  int dev, major;
  VP_CHECK(cudaGetDevice(&dev));
  VP_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  return major >= 8 ? 0 : (int)cudaErrorNotSupported;
}

int VPMmaPrepare(int dim, int k, size_t *bytes)
{
  VPMmaEntry e;
  const int  err = VPMmaGet(dim, k, &e);
  if (err) return err;
  *bytes = (size_t)e.words * sizeof(double);
  VP_CHECK(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*bytes));
  return 0;
}

int VPMmaLaunch(int dim, int k, const VPCudaPatchOp_d *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks)
{
  VPMmaEntry e;
  const int  err = VPMmaGet(dim, k, &e);
  if (err) return err;
  if (end <= start) return 0;
  const int blocks = end - start < maxblocks ? end - start : maxblocks;
  e.kernel<<<blocks, e.threads, (size_t)e.words * sizeof(double)>>>(op, *bx, vertex, start, end, b, x, target, omega, atomic);
  VP_CHECK(cudaGetLastError());
  return 0;
}
