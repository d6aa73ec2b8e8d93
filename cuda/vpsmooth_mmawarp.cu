// The 3D Laplacian's vertex-patch smoothing step in double precision on the FP64 tensor cores with one patch per warp
// (k = 2, 3): the contractions of VPMmaKernel (vpsmooth_mma.cu) as m8n8k4 MMAs, laid out so that a contraction costs
// little besides its MMAs and its shared-memory words.
//
// Why: run one warp per patch, the block kernel's contractions issued about 31 instructions per MMA (Nsight Compute,
// 3D k = 3: 4,093 warp instructions per patch for 130 MMAs): per tile of 8 columns it divided the column index into
// the two other indices, clamped rows, columns and contraction indices, and checked every output against the extents.
// Here every array in shared memory has padded extents, so that
// - a tile of 8 columns is 8 consecutive positions along one direction (G) at one position along the third (T): a
//   lane's B and D addresses are its base (computed once per contraction) plus compile-time offsets;
// - contraction indices past the matrix (A is zero there) and columns past the extent read padding, which holds finite
//   values (shared memory is zeroed at the start and every later write is finite); rows past the extent are not
//   stored, columns past it land in padding;
// - the strides are chosen at compile time among the padded ones for few bank-pair conflicts of the 64-bit accesses of
//   half a warp, weighed against the shared memory per warp (which bounds the resident warps).
// The terms are combined as in vpsmooth_pair.cu: X_K and X_M from one read of the closure, W = c_0 M_y X_K + c_1 K_y X_M
// and V = c_2 M_y X_M, then r = b - M_z W - K_z V: 138 MMAs a patch at k = 3. One patch per warp needs no block barrier
// (__syncwarp between contractions), and the next patch's vertex, right-hand side and closure are fetched during the
// current one (the closure into its one buffer once the residual is done: a second buffer cost more resident warps than
// it saved). The cost: columns padded to 8 along G (5 of 8 used where G has 2k - 1 = 5 points), and 14.2 KB of shared
// memory per warp at k = 3 (13 resident warps per multiprocessor with the 149 registers).
#include "vpsmooth_mma.h"
#include "vpsmooth_pair.h"
#include "vpcuda_check.h"
#include "vpcopyasync.h"
#include <cuda_runtime.h>

namespace
{
__host__ __device__ constexpr int H8(int n)
{
  return (n + 7) / 8;
}
__host__ __device__ constexpr int P4(int n)
{
  return (n + 3) / 4 * 4;
}
__host__ __device__ constexpr int Max(int a, int b)
{
  return a > b ? a : b;
}

// the most lanes of a half warp, lane (t, g) = (l % 4, l / 4) at 8-byte word a t + b g, that share a bank pair
constexpr int Ways(int a, int b)
{
  int cnt[16] = {}, w = 1;
  for (int t = 0; t < 4; t++)
    for (int g = 0; g < 4; g++) {
      const int s = ((a * t + b * g) % 16 + 16) % 16;
      if (++cnt[s] > w) w = cnt[s];
    }
  return w;
}

// An array with strides (1, s1, s2) in words, chosen with s1 >= m1 and s2 >= s1 e1 (the padded extent along y): the
// bank-pair conflicts of the accesses listed by Cost::of(s1, s2) against the memory (shared memory per warp bounds the
// resident warps)
template <class Cost>
struct Strides {
  static constexpr int search(int m1, int e1, bool want2)
  {
    int best = 1 << 30, b1 = m1, b2 = m1 * e1;
    for (int s1 = m1; s1 < m1 + 8; s1++)
      for (int s2 = s1 * e1; s2 < s1 * e1 + 16; s2++) {
        const int c = Cost::of(s1, s2) * 16 + s2; // a lane more on a bank pair against 16 words more
        if (c < best) {
          best = c;
          b1   = s1;
          b2   = s2;
        }
      }
    return want2 ? b2 : b1;
  }
};

template <int K>
struct VPMw {
  static constexpr int NE = 2 * K + 1, NI = 2 * K - 1, KTE = (NE + 3) / 4, KTI = (NI + 3) / 4, HE = H8(NE);
  // the y contraction: G along z (tiles over x) where that takes fewer tiles than G along x (tiles over z)
  static constexpr bool YGZ = HE * NI < H8(NI) * NE;
  // Extents: a contraction direction is read up to P4 (A is zero past the matrix), G up to 8 H8; rows are stored only
  // below NI (the predicate of the stores), so an output direction needs no padding of its own.
  // the closure xs (x contraction: B with (SK, SG) = (1, s1))
  struct CX {
    static constexpr int of(int s1, int) { return Ways(1, s1); }
  };
  static constexpr int XS1 = Strides<CX>::search(P4(NE), 8 * HE, false), XS2 = XS1 * 8 * HE, XSW = XS2 * NE;
  // X_K, X_M (x: rows, and T or G of the y contraction; y: G of the x contraction, contraction of the y one; z: T, or G
  // of the y contraction): D of the x contraction (OD, OG) = (1, b1); B of the y one (SK, SG) = (b1, b2 or 1)
  struct CXX {
    static constexpr int of(int b1, int b2) { return Ways(2 * b1, 1) + Ways(b1, YGZ ? b2 : 1); }
  };
  static constexpr int X0 = YGZ ? NI : 8 * H8(NI), X1 = Strides<CXX>::search(X0, 8 * HE, false), X2 = Strides<CXX>::search(X0, 8 * HE, true);
  static constexpr int XW = X2 * (YGZ ? 8 * HE : NE);
  // W, V (x: T, or G of the y contraction; y: rows, G of the z contraction; z: G or T, contraction of the z one): D of
  // the y contraction (rows y: OD = c1; OG = c2 or 1), B of the z one (SK, SG) = (c2, c1)
  struct CY {
    static constexpr int of(int c1, int c2) { return Ways(YGZ ? 2 * c2 : 2, c1) + Ways(c2, c1); }
  };
  static constexpr int Y1 = Strides<CY>::search(YGZ ? NI : 8 * H8(NI), 8, false), Y2 = Strides<CY>::search(YGZ ? NI : 8 * H8(NI), 8, true);
  static constexpr int YW = Y2 * Max(YGZ ? 8 * HE : NE, P4(NE));
  // the fast diagonalization's arrays, (1, f1, f2), every extent 8: F0 (x; G y), F1 (y; G x), F2 (z; G x), and the
  // residual's store (rows z, columns y)
  struct CF {
    static constexpr int of(int f1, int f2) { return Ways(1, f1) + Ways(2 * f1, 1) + Ways(f1, 1) + Ways(2, f1) + Ways(f2, 1) + Ways(2, f2) + Ways(2 * f1, f2); }
  };
  static constexpr int F1 = Strides<CF>::search(8, 8, false), F2 = Strides<CF>::search(8, 8, true), FW = F2 * 8;
  // words per warp: the closure (the next patch's is copied into it during this one's fast diagonalization); X_K and X_M,
  // then the fast diagonalization's second array; W and V, then its first array
  static constexpr int RB = Max(2 * XW, FW), RC = Max(2 * YW, FW), WORDS = XSW + RB + RC;
};

// f(h, p) for the tiles (h, p), h < HT, p < NP
template <int HT, int NP, class F>
__device__ inline void VPMwTiles(F f)
{
#pragma unroll
  for (int p = 0; p < NP; p++)
#pragma unroll
    for (int h = 0; h < HT; h++) f(h, p);
}

// the lane's A fragment (rows m < 8, columns kt 4 + t) of the M x KD row-major matrix A times scale, zero outside it
template <int KT, int M, int KD>
__device__ inline void VPMwLoadA(const double *__restrict__ A, double scale, int lane, double (&af)[KT])
{
  const int m = lane >> 2, t = lane & 3;
#pragma unroll
  for (int kt = 0; kt < KT; kt++) af[kt] = (m < M && kt * 4 + t < KD) ? scale * A[m * KD + kt * 4 + t] : 0.0;
}

// out = A in, a fast-diagonalization contraction: B(k, n) of tile p at in[k SK + n SG + p ST], D(m, n) to
// out[m OD + n OG + p OT] for m < NI (row)
template <int KT, int NP, int SK, int SG, int ST, int OD, int OG, int OT>
__device__ inline void VPMwApply(const double (&af)[KT], const double *in, double *out, int lane, bool row)
{
  const double *bl = in + (lane & 3) * SK + (lane >> 2) * SG;
  double       *ol = out + (lane >> 2) * OD + 2 * (lane & 3) * OG;
  VPMwTiles<1, NP>([&](int, int p) {
    double d0 = 0, d1 = 0;
#pragma unroll
    for (int kt = 0; kt < KT; kt++) VPDmma(d0, d1, af[kt], bl[kt * 4 * SK + p * ST]);
    if (row) {
      ol[p * OT]      = d0;
      ol[p * OT + OG] = d1;
    }
  });
}

__device__ inline int VPMwClass(int v, int N)
{
  return v == 1 ? 0 : (v == N - 1 ? 2 : 1);
}

struct VPMwArgs {
  int km, kk, term[3];
};

template <int K>
__global__ void __launch_bounds__(32, 12) VPMwKernel(const VPCudaPatchOp_d *__restrict__ op, VPCudaBox bx, const int *__restrict__ vertex, int start, int end, const double *__restrict__ b, const double *x, double *target, double omega, VPMwArgs pa)
{
  using P          = VPMw<K>;
  constexpr int NE = P::NE, NI = P::NI, KTE = P::KTE, KTI = P::KTI, HE = P::HE;
  constexpr int F1 = P::F1, F2 = P::F2;
  extern __shared__ __align__(16) unsigned char vp_mw_smem[];
  double      *mem = reinterpret_cast<double *>(vp_mw_smem), *xs = mem, *XK = mem + P::XSW, *W = XK + P::RB, *G1 = W, *G2 = XK;
  const int    lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  const bool   row = g < NI; // this lane's D rows are stored
  const size_t s1 = (size_t)bx.m[0], s2 = (size_t)bx.m[0] * (size_t)bx.m[1];
  const double c0 = op->coef[pa.term[0]], c1 = op->coef[pa.term[1]], c2 = op->coef[pa.term[2]];

  // padding must hold finite values: zero everything once
  for (int i = lane; i < P::WORDS; i += 32) mem[i] = 0.0;
  __syncwarp();
  // Patch q's data, fetched one patch ahead so that the latency of the global loads hides behind a patch's work: its
  // vertex (vn), the right-hand side on its interior in the layout of the residual (the z contraction's D: rows z = g,
  // columns y = 2t + w, tiles x; bn), and its closure of x (strides 1, XS1, XS2; boundary nodes zero) by cp.async.
  int    vn[3];
  double bn[NI][2];
  auto   fetch = [&](int q) {
    const int *v = vertex + 3 * q;
    for (int d = 0; d < 3; d++) vn[d] = v[d];
    const int    b0 = (vn[0] - 1) * K, b1 = (vn[1] - 1) * K, b2 = (vn[2] - 1) * K;
    const bool   ok0 = g < NI && 2 * t < NI, ok1 = g < NI && 2 * t + 1 < NI;
    const size_t ib  = (size_t)(b0 - bx.lo[0]) + (size_t)(b1 + 2 * t - bx.lo[1]) * s1 + (size_t)(b2 + g - bx.lo[2]) * s2;
#pragma unroll
    for (int j = 0; j < NI; j++) {
      bn[j][0] = ok0 ? b[ib + j] : 0.0;
      bn[j][1] = ok1 ? b[ib + j + s1] : 0.0;
    }
    if (!x) return;
    for (int i = lane; i < NE * NE * NE; i += 32) {
      const int  i0 = i % NE, i1 = (i / NE) % NE, i2 = i / (NE * NE), f0 = b0 + i0, f1 = b1 + i1, f2 = b2 + i2;
      const bool in = f0 > 0 && f0 <= bx.n[0] && f1 > 0 && f1 <= bx.n[1] && f2 > 0 && f2 <= bx.n[2];
      VPCopyAsync(xs + i0 + P::XS1 * i1 + P::XS2 * i2, in ? x + (size_t)(f0 - 1 - bx.lo[0]) + (size_t)(f1 - 1 - bx.lo[1]) * s1 + (size_t)(f2 - 1 - bx.lo[2]) * s2 : x, in);
    }
    VPCopyCommit();
  };
  if (start + (int)blockIdx.x < end) fetch(start + blockIdx.x);
  for (int p = start + blockIdx.x; p < end; p += gridDim.x) {
    int     cls[3], base[3];
    double  r[NI][2];
    for (int d = 0; d < 3; d++) {
      cls[d]  = VPMwClass(vn[d], (bx.n[d] + 1) / K);
      base[d] = (vn[d] - 1) * K; // full-grid node of closure index 0; interior index of closure c: base + c - 1
    }
#pragma unroll
    for (int j = 0; j < NI; j++) r[j][0] = bn[j][0], r[j][1] = bn[j][1];
    // the eigenvalues, loaded here for the division in the middle of the fast diagonalization
    double ly[NI];
#pragma unroll
    for (int j = 0; j < NI; j++) ly[j] = op->lambda[1][cls[1]][j];
    const double lz = g < NI ? op->lambda[2][cls[2]][g] : 1.0, lx0 = 2 * t < NI ? op->lambda[0][cls[0]][2 * t] : 1.0, lx1 = 2 * t + 1 < NI ? op->lambda[0][cls[0]][2 * t + 1] : 1.0;
    const bool   ok0 = g < NI && 2 * t < NI, ok1 = g < NI && 2 * t + 1 < NI, more = p + (int)gridDim.x < end;
    if (!x && more) fetch(p + gridDim.x);
    if (x) {
      double a0[KTE], a1[KTE], a2[KTE];
      VPMwLoadA<KTE, NI, NE>(op->R[pa.kk][0][cls[0]], 1.0, lane, a0);
      VPMwLoadA<KTE, NI, NE>(op->R[pa.km][0][cls[0]], 1.0, lane, a1);
      VPCopyWait();
      __syncwarp(); // this patch's closure is in
      // x: xs (DIR x, G y, T z) -> X_K, X_M (rows x), each B word feeding both kinds
      {
        double b0[KTE], b1[KTE], b2[KTE];
        VPMwLoadA<KTE, NI, NE>(op->R[pa.km][1][cls[1]], c0, lane, b0); // the y step's fragments, ahead
        VPMwLoadA<KTE, NI, NE>(op->R[pa.kk][1][cls[1]], c1, lane, b1);
        VPMwLoadA<KTE, NI, NE>(op->R[pa.km][1][cls[1]], c2, lane, b2);
        const double *bl = xs + t + g * P::XS1;
        double       *ol = XK + g + 2 * t * P::X1;
        VPMwTiles<HE, NE>([&](int h, int q) {
          double k0 = 0, k1 = 0, m0 = 0, m1 = 0;
#pragma unroll
          for (int kt = 0; kt < KTE; kt++) {
            const double w = bl[kt * 4 + 8 * h * P::XS1 + q * P::XS2];
            VPDmma(k0, k1, a0[kt], w);
            VPDmma(m0, m1, a1[kt], w);
          }
          if (row) {
            const int o = 8 * h * P::X1 + q * P::X2;
            ol[o]                 = k0;
            ol[o + P::X1]         = k1;
            ol[o + P::XW]         = m0;
            ol[o + P::XW + P::X1] = m1;
          }
        });
#pragma unroll
        for (int kt = 0; kt < KTE; kt++) {
          a0[kt] = b0[kt];
          a1[kt] = b1[kt];
          a2[kt] = b2[kt];
        }
      }
      double z0[KTE], z1[KTE];
      VPMwLoadA<KTE, NI, NE>(op->R[pa.km][2][cls[2]], -1.0, lane, z0); // the z step's, ahead
      VPMwLoadA<KTE, NI, NE>(op->R[pa.kk][2][cls[2]], -1.0, lane, z1);
      __syncwarp(); // X_K, X_M complete
      // y: W = c_0 M_y X_K + c_1 K_y X_M, V = c_2 M_y X_M (rows y)
      {
        constexpr int SG = P::YGZ ? P::X2 : 1, ST = P::YGZ ? 1 : P::X2, OG = P::YGZ ? P::Y2 : 1, OT = P::YGZ ? 1 : P::Y2;
        constexpr int HT = P::YGZ ? HE : 1, NP = P::YGZ ? NI : NE;
        const double *bl = XK + t * P::X1 + g * SG;
        double       *ol = W + g * P::Y1 + 2 * t * OG;
        VPMwTiles<HT, NP>([&](int h, int q) {
          double w0 = 0, w1 = 0, v0 = 0, v1 = 0;
#pragma unroll
          for (int kt = 0; kt < KTE; kt++) {
            const int    o  = kt * 4 * P::X1 + 8 * h * SG + q * ST;
            const double xk = bl[o], xm = bl[o + P::XW];
            VPDmma(w0, w1, a0[kt], xk);
            VPDmma(w0, w1, a1[kt], xm);
            VPDmma(v0, v1, a2[kt], xm);
          }
          if (row) {
            const int o = 8 * h * OG + q * OT;
            ol[o]              = w0;
            ol[o + OG]         = w1;
            ol[o + P::YW]      = v0;
            ol[o + P::YW + OG] = v1;
          }
        });
      }
      __syncwarp(); // W, V complete
      // z: r -= M_z W + K_z V (W, V: DIR z, G y, T x)
      {
        const double *bl = W + t * P::Y2 + g * P::Y1;
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
          for (int kt = 0; kt < KTE; kt++) {
            VPDmma(r[j][0], r[j][1], z0[kt], bl[kt * 4 * P::Y2 + j]);
            VPDmma(r[j][0], r[j][1], z1[kt], bl[kt * 4 * P::Y2 + j + P::YW]);
          }
      }
    }
    // fast diagonalization S_x S_y S_z diag^-1 S_z^T S_y^T S_x^T r, arrays G1 (on W) and G2 (on X_K), strides (1, F1,
    // F2); each fragment is loaded one contraction ahead
    double f[KTI], fn[KTI];
    VPMwLoadA<KTI, NI, NI>(op->St[0][cls[0]], 1.0, lane, f);
    VPMwLoadA<KTI, NI, NI>(op->St[1][cls[1]], 1.0, lane, fn);
    __syncwarp(); // every lane is past its reads of W and V (and of xs)
    if (x && more) fetch(p + gridDim.x); // the next patch's closure into xs, during the fast diagonalization
    {
      double *rl = G1 + g * F2 + 2 * t * F1;
#pragma unroll
      for (int j = 0; j < NI; j++) {
        rl[j]      = r[j][0];
        rl[j + F1] = r[j][1];
      }
    }
    __syncwarp();
    VPMwApply<KTI, NI, 1, F1, F2, 1, F1, F2>(f, G1, G2, lane, row); // x: G y, T z
    VPMwLoadA<KTI, NI, NI>(op->St[2][cls[2]], 1.0, lane, f);
    __syncwarp();
    VPMwApply<KTI, NI, F1, 1, F2, F1, 1, F2>(fn, G2, G1, lane, row); // y: G x, T z
    VPMwLoadA<KTI, NI, NI>(op->S[2][cls[2]], 1.0, lane, fn);
    __syncwarp();
    {
      // z: G x, T y; the division by the eigenvalue sums (rows z = g, columns x = 2t + w, tile y = q)
      const double *bl = G1 + t * F2 + g;
      double       *ol = G2 + g * F2 + 2 * t;
      VPMwTiles<1, NI>([&](int, int q) {
        double d0 = 0, d1 = 0;
#pragma unroll
        for (int kt = 0; kt < KTI; kt++) VPDmma(d0, d1, f[kt], bl[kt * 4 * F2 + q * F1]);
        if (row) {
          const double l = lz + ly[q];
          ol[q * F1]     = d0 / (l + lx0);
          ol[q * F1 + 1] = d1 / (l + lx1);
        }
      });
    }
    VPMwLoadA<KTI, NI, NI>(op->S[1][cls[1]], 1.0, lane, f);
    __syncwarp();
    VPMwApply<KTI, NI, F2, 1, F1, F2, 1, F1>(fn, G2, G1, lane, row); // z
    VPMwLoadA<KTI, NI, NI>(op->S[0][cls[0]], 1.0, lane, fn);
    __syncwarp();
    VPMwApply<KTI, NI, F1, 1, F2, F1, 1, F2>(f, G1, G2, lane, row); // y
    __syncwarp();
    {
      // x: G y, T z; the update of the interior (rows x = g, columns y = 2t + w, tile z = q). Atomic in every case: no
      // other patch of the launch changes these entries in the multiplicative step (its color), and an atomic add
      // does not wait for the old value as a load would.
      const double *bl  = G2 + t + g * F1;
      double       *dst = target + (size_t)(base[0] + g - bx.lo[0]) + (size_t)(base[1] + 2 * t - bx.lo[1]) * s1 + (size_t)(base[2] - bx.lo[2]) * s2;
      VPMwTiles<1, NI>([&](int, int q) {
        double d0 = 0, d1 = 0;
#pragma unroll
        for (int kt = 0; kt < KTI; kt++) VPDmma(d0, d1, fn[kt], bl[kt * 4 + q * F2]);
        double *d = dst + (size_t)q * s2;
        if (ok0) atomicAdd(d, omega * d0);
        if (ok1) atomicAdd(d + s1, omega * d1);
      });
    }
    __syncwarp(); // G1 and G2 are free for the next patch
  }
}

struct VPMwEntry {
  void (*kernel)(const VPCudaPatchOp_d *, VPCudaBox, const int *, int, int, const double *, const double *, double *, double, VPMwArgs);
  int words;
};

template <int K>
VPMwEntry VPMwMake()
{
  return {VPMwKernel<K>, VPMw<K>::WORDS};
}

int VPMwGet(int k, VPMwEntry *e)
{
  switch (k) {
  case 2:
    *e = VPMwMake<2>();
    return 0;
  case 3:
    *e = VPMwMake<3>();
    return 0;
  default:
    return (int)cudaErrorInvalidValue;
  }
}
} // namespace

int VPMmaWarpSupported(int dim, int k)
{
  return dim == 3 && k >= 2 && k <= 3;
}

int VPMmaWarpPrepare(int k, size_t *bytes)
{
  VPMwEntry e;
  const int err = VPMwGet(k, &e);
  if (err) return err;
  *bytes = (size_t)e.words * sizeof(double);
  VP_CHECK(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*bytes));
  return 0;
}

int VPMmaWarpLaunch(const VPPairLayout *l, const VPCudaPatchOp_d *op, const VPCudaBox *bx, const int *vertex, int start, int end, const double *b, const double *x, double *target, double omega, bool atomic, int maxblocks)
{
  VPMwEntry      e;
  const VPMwArgs pa  = {l->km, l->kk, {l->term[0], l->term[1], l->term[2]}};
  const int      err = VPMwGet(l->k, &e);
  if (err) return err;
  if (end <= start) return 0;
  const int blocks = end - start < maxblocks ? end - start : maxblocks;
  e.kernel<<<blocks, 32, (size_t)e.words * sizeof(double)>>>(op, *bx, vertex, start, end, b, x, target, omega, pa);
  VP_CHECK(cudaGetLastError());
  return 0;
}
