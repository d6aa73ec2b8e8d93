// Internal to cuda/: the state of PCHFEM's GPU solver (vphfem.cu) and of its hierarchical transform (vphfemtransform.cu),
// shared with the fused macro-cell path (vphfemcell.cu), and the small helpers the three files use.
#pragma once
#include "vpatch_cuda.h"
#include "vpcuda_check.h"
#include "vpcublas_check.h"
#include <cuda_fp16.h>
#include <cuda_bf16.h>

struct VPCudaHFEMTransform_s {
  int     nx, ny, s, N;
  int    *order; // the node at each place of the set order
  int    *place; // and the place of each node (the inverse permutation)
  double *scale; // the prehandling's scaling at each place
  float  *scalef; // and in float (the fused path's transform arithmetic for the 16-bit formats)
  int     cellscale; // 1: the scaling of the inner nodes (the last (nx/s)(ny/s) blocks of (s-1)^2 places, cell by cell) is the
                     // same in every macro cell (congruent cells: it is), so the fused kernels read one block, from cache
};

struct VPCudaHFEM_s {
  int                nC, nE, nb, ncell, prec, tf32;
  cublasHandle_t     blas;
  cusolverDnHandle_t solver;
  double            *LC, *B;        // Cholesky factor of the macro-grid block (nC x nC, lower), B (nC x nE)
  void              *Cinv, *Piinv;  // the two inverses in the storage precision, divided by sC, sPi
  double             sC, sPi;       // their scales (the largest entry for half and bfloat16, else 1)
  void              *pack;          // right-hand sides packed and converted for one product
  void              *out;           // its result (double for double, else float)
  float             *colscale;      // the scale of each packed column (half, bfloat16)
  size_t             packcap, outcap, colcap;
  double            *nmZ, *nmY, *nmW;       // node-major work (VPCudaHFEMSolveNM)
  float             *partial;               // per-column maxima of row chunks
  size_t             nmcap[3], partialcap;
  int               *info;
  struct {
    int     nrows, *rows, *ptr, *col; // the rows with couplings, and their entries (CSR)
    double *val;
  } couple[4];                              // in the set order: D (E rows, I columns), D^T (I rows, E columns), and the
                                            // prehandled C-E block Ap_CE before L_C^-1 as E rows (C columns) and as C rows
  int               *dtptr, *dtrow, *dtslot; // D^T's entries of every I row (nI + 1 offsets into couple[1].col), the I row of
                                            // each entry, and its E node's position on the boundary of the row's macro cell
  size_t             dtnnz;                 // D^T's entries
  double            *Ainv;                  // A_CC^-1 = L_C^-T L_C^-1 (nC x nC): the fused path's macro-grid solves as GEMMs
  void              *cellZ;                 // fused path: Z_I (double for double and single, else float), node-major
  float             *cellscale;             // fused path: the scales of the packed columns of both C^-1 products (2 ncell n)
  size_t             cellZcap, cellscalecap;
  int                ns;                     // folded couplings (VPCudaHFEMSetFold; 0: none): slots of a cell's boundary (4 s)
  double             alpha, sFA, sFB;        // the weight of Y_E in the packed back substitution; the stores' scales
  void              *FA, *FB;               // G = C_1^-1 D_s^T (prow x ns) and [C_1^-1; -G^T / alpha] ((prow + ns) x prow),
                                            // column-major in the storage precision (scaled as C^-1 for the 16-bit formats)
  void              *cellpack;              // fused folded path: [Z_I; alpha Y_E] of every cell (ncell blocks of (prow + ns) x n)
  size_t             cellpackcap;
  int                timers;                 // time the steps of a solve (VPCudaHFEMSetTimers)
  cudaEvent_t        ev[2];
  double             ms[VPC_HFEM_NSTEP];     // milliseconds per step, summed over the solves
  double             last[VPC_HFEM_NSTEP];   // and in the last solve
};

// the order of the stored inverses: n rounded up to a multiple of 8, so that every packed column and the inverse's columns
// start 16-byte aligned, as cuBLAS's tensor-core kernels for the 16-bit formats and TF32 want (C_1 has odd order (s-1)^2)
static inline int Padded(int n)
{
  return (n + 7) / 8 * 8;
}

// step timers: Tick before a step, Tock after it adds its time to ms[step] (nothing unless timers are on)
static inline int Tick(VPCudaHFEM h)
{
  if (h->timers) VP_CHECK(cudaEventRecord(h->ev[0], 0));
  return 0;
}
static inline int Tock(VPCudaHFEM h, int step)
{
  float t;
  if (!h->timers) return 0;
  VP_CHECK(cudaEventRecord(h->ev[1], 0));
  VP_CHECK(cudaEventSynchronize(h->ev[1]));
  VP_CHECK(cudaEventElapsedTime(&t, h->ev[0], h->ev[1]));
  h->ms[step] += t;
  h->last[step] += t;
  return 0;
}
#define VP_TICK() \
  do { \
    int e_ = Tick(h); \
    if (e_) return e_; \
  } while (0)
#define VP_TOCK(step) \
  do { \
    int e_ = Tock(h, step); \
    if (e_) return e_; \
  } while (0)

static inline size_t StorageSize(int prec)
{
  return prec == VPC_HFEM_DOUBLE ? sizeof(double) : (prec == VPC_HFEM_SINGLE ? sizeof(float) : sizeof(__half));
}

static inline int Grow(void **p, size_t *cap, size_t bytes)
{
  if (bytes <= *cap) return 0;
  VP_CHECK(cudaFree(*p));
  *p = NULL;
  VP_CHECK(cudaMalloc(p, bytes));
  *cap = bytes;
  return 0;
}

static inline unsigned Blocks(size_t n)
{
  size_t b = (n + 255) / 256;
  return (unsigned)(b < 65535 * 4 ? (b ? b : 1) : 65535 * 4);
}

template <typename T>
__device__ __forceinline__ T FromDouble(double v);
template <>
__device__ __forceinline__ double FromDouble<double>(double v)
{
  return v;
}
template <>
__device__ __forceinline__ float FromDouble<float>(double v)
{
  return (float)v;
}
template <>
__device__ __forceinline__ __half FromDouble<__half>(double v)
{
  return __float2half_rn((float)v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 FromDouble<__nv_bfloat16>(double v)
{
  return __float2bfloat16_rn((float)v);
}


// interior node (i, j) of the nx x ny-cell grid in the brick's numbering
__device__ __forceinline__ size_t VPHFEMNode(int nx, int i, int j)
{
  return (size_t)(i - 1) + (size_t)(nx - 1) * (j - 1);
}

// h->out = M h->pack for groups node-major blocks of prow x n packed values (one strided batched GEMM, M symmetric), or
// for one block with several columns M P^T column-major (prow x n), or with one column one GEMM over the groups (vphfem.cu)
int VPHFEMInverseProduct(VPCudaHFEM h, const void *M, int prow, int groups, int n);
// Y = M X for the groups node-major blocks (rows x n) of X: packed (scaled per block and column for the 16-bit formats),
// multiplied, unpacked into Y; step: the first of its three timer steps (vphfem.cu)
int VPHFEMApplyInverseNM(VPCudaHFEM h, const void *M, double sM, int rows, int groups, int n, const double *X, double *Y, int step);
// Z[rows[q]] -= sum_k val[k] Y[col[k]] for the rows of coupling which, node-major (n values a row) (vphfem.cu)
int VPHFEMCoupleNM(VPCudaHFEM h, int which, int n, const double *Y, double *Z);
