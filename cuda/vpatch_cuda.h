/* C interface of the CUDA kernels of petsc-vpatch. No PETSc types: plain sizes, host arrays for setup and
   device pointers for the work. Every function returns 0 or a CUDA error code (VPCudaErrorString). */
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The patch operator of a level in one precision, shared by the CPU smoother (src/pc/vertexpatch) and the
   CUDA kernels: for each kind of 1D matrix (mass, stiffness, biharmonic), direction and position class
   (next to the lower boundary, inside, next to the upper one), the rows of the patch interior (ni = 2k-1)
   restricted to the closure columns [coloff, coloff + ncols) where that kind has entries; the Kronecker
   terms; and the fast-diagonalization factors of the separable part. Closure: ne = 2gk+1 nodes per
   direction, g the operator's ghost cells; inner_lo..inner_hi the closure nodes of the patch cells. */
#define VPC_MAX_NE    33 /* 4 k + 1, k <= 8 */
#define VPC_MAX_NI    15 /* 2 k - 1 */
#define VPC_NCLASS    3
#define VPC_KINDS     3
#define VPC_MAX_TERMS 6
#define VPC_DECLARE_PATCHOP(T, SUF) \
  typedef struct { \
    int dim, ne, ni, nterms; \
    T   coef[VPC_MAX_TERMS]; \
    int kind[VPC_MAX_TERMS][3]; \
    int coloff[VPC_KINDS], ncols[VPC_KINDS]; \
    int inner_lo, inner_hi; \
    T   R[VPC_KINDS][3][VPC_NCLASS][VPC_MAX_NI * VPC_MAX_NE]; \
    T   S[3][VPC_NCLASS][VPC_MAX_NI * VPC_MAX_NI], St[3][VPC_NCLASS][VPC_MAX_NI * VPC_MAX_NI]; \
    T   lambda[3][VPC_NCLASS][VPC_MAX_NI]; \
  } VPCudaPatchOp##SUF;
VPC_DECLARE_PATCHOP(double, _d)
VPC_DECLARE_PATCHOP(float, _f)

/* Where a level's node arrays lie: the brick has n[d] interior nodes per direction (full-grid node f = interior index
   + 1; boundary nodes are not stored), and an array holds the box of interior indices [lo[d], lo[d] + m[d]), x fastest.
   One rank: lo = 0, m = n; several: a rank's ghosted local array, or its owned nodes. */
typedef struct {
  int n[3], lo[3], m[3];
} VPCudaBox;

#if defined(__CUDACC__)
#  define VPC_HD __host__ __device__
#else
#  define VPC_HD
#endif

/* The patches of a schedule in processing order, by index arithmetic instead of a per-patch host array: a list of
   boxes, box b holding the patches [box[b].first, box[b + 1].first) and ending with a sentinel whose first is the patch
   count. (The GPU smoothers expand it into a device array of vertices at creation: the kernels are latency bound, and
   a load of the patch's vertex measured faster than decoding it in every patch.)
   A box is a lattice of vertices lo + step (i, j, l), 0 <= i < n[0], j < n[1], l < n[2] (n = 1 beyond the dimension),
   in lexicographic order (i fastest); with cb >= 0 only the points with (i + j + l) % 2 == cb, which is how a red-black
   color of one parity class looks (src/pc/vertexpatch/vpsetup.c). */
typedef struct {
  int first; /* processing index of the box's first patch */
  int lo[3]; /* its first vertex */
  int step;  /* vertex distance of neighbouring lattice points: 1 (every vertex) or 2 (one parity class) */
  int n[3];  /* lattice points per direction */
  int cb;    /* -1: every lattice point; 0 or 1: the checkerboard half whose i + j + l has this parity */
} VPCudaPatchBox;

/* lattice indices i in [0, n) with i % 2 == s */
static inline VPC_HD int VPCudaHalf(int n, int s)
{
  return (n + 1 - s) / 2;
}

/* points of a checkerboard plane (rows j < n1 of n0 points) whose row 0 starts at parity s */
static inline VPC_HD int VPCudaHalfPlane(const int n[3], int s)
{
  return VPCudaHalf(n[1], 0) * VPCudaHalf(n[0], s) + VPCudaHalf(n[1], 1) * VPCudaHalf(n[0], 1 - s);
}

/* patches of a box */
static inline VPC_HD int VPCudaPatchBoxCount(const VPCudaPatchBox *b)
{
  if (b->cb < 0) return b->n[0] * b->n[1] * b->n[2];
  return VPCudaHalf(b->n[2], 0) * VPCudaHalfPlane(b->n, b->cb) + VPCudaHalf(b->n[2], 1) * VPCudaHalfPlane(b->n, 1 - b->cb);
}

/* vertex v of the q-th patch of box b (0 <= q < VPCudaPatchBoxCount(b)) */
static inline VPC_HD void VPCudaPatchBoxVertex(const VPCudaPatchBox *b, int q, int v[3])
{
  int i, j, l;
  if (b->cb < 0) {
    i = q % b->n[0];
    q /= b->n[0];
    j = q % b->n[1];
    l = q / b->n[1];
  } else {
    /* planes alternate between two counts, rows within a plane too; s is the parity of i in the current row */
    int s = b->cb, p0 = VPCudaHalfPlane(b->n, s), p1 = VPCudaHalfPlane(b->n, 1 - s), r0, r1;
    l = 2 * (q / (p0 + p1));
    q %= p0 + p1;
    if (q >= p0) q -= p0, l++, s = 1 - s;
    r0 = VPCudaHalf(b->n[0], s);
    r1 = VPCudaHalf(b->n[0], 1 - s);
    j  = 2 * (q / (r0 + r1));
    q %= r0 + r1;
    if (q >= r0) q -= r0, j++, s = 1 - s;
    i = s + 2 * q;
  }
  v[0] = b->lo[0] + b->step * i;
  v[1] = b->lo[1] + b->step * j;
  v[2] = b->lo[2] + b->step * l;
}

/* the box of patch p (box[0].first <= p < the sentinel's first): a binary search */
static inline VPC_HD int VPCudaPatchBoxOf(const VPCudaPatchBox *box, int nbox, int p)
{
  int lo = 0, hi = nbox - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (box[mid].first <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* A walk through the patches of a list of boxes in processing order without divisions (the host sweeps): init at patch
   p, then VPCudaPatchCursorNext after each patch; v is the current patch's vertex. */
typedef struct {
  const VPCudaPatchBox *box;
  int                   b, i, j, l, v[3];
} VPCudaPatchCursor;

static inline void VPCudaPatchCursorVertex(VPCudaPatchCursor *c)
{
  const VPCudaPatchBox *b = &c->box[c->b];
  c->v[0]                 = b->lo[0] + b->step * c->i;
  c->v[1]                 = b->lo[1] + b->step * c->j;
  c->v[2]                 = b->lo[2] + b->step * c->l;
}

static inline void VPCudaPatchCursorInit(VPCudaPatchCursor *c, const VPCudaPatchBox *box, int nbox, int p)
{
  const int b = VPCudaPatchBoxOf(box, nbox, p);
  int       v[3];
  VPCudaPatchBoxVertex(&box[b], p - box[b].first, v);
  c->box = box;
  c->b   = b;
  c->i   = (v[0] - box[b].lo[0]) / box[b].step;
  c->j   = (v[1] - box[b].lo[1]) / box[b].step;
  c->l   = (v[2] - box[b].lo[2]) / box[b].step;
  VPCudaPatchCursorVertex(c);
}

/* to the next patch (past the last one it stands on the sentinel's box: do not read v there) */
static inline void VPCudaPatchCursorNext(VPCudaPatchCursor *c)
{
  const VPCudaPatchBox *b = &c->box[c->b];
  c->i += b->cb < 0 ? 1 : 2;
  while (c->i >= b->n[0]) { /* the next row with a point (a checkerboard row of one point may have none) */
    if (++c->j >= b->n[1]) {
      c->j = 0;
      if (++c->l >= b->n[2]) { /* the next box: its boxes are never empty */
        c->l = 0;
        b    = &c->box[++c->b];
        if (b->n[0] == 0) return; /* the sentinel */
      }
    }
    c->i = b->cb < 0 ? 0 : (b->cb + c->j + c->l) & 1;
  }
  VPCudaPatchCursorVertex(c);
}

/* vertex v of patch p of a list of boxes (and its sentinel) */
static inline void VPCudaPatchVertex(const VPCudaPatchBox *box, int nbox, int p, int v[3])
{
  const int b = VPCudaPatchBoxOf(box, nbox, p);
  VPCudaPatchBoxVertex(&box[b], p - box[b].first, v);
}

/* The colored multiplicative or the additive vertex-patch step on the GPU, one rank, local residuals, fdm:
   a smoother object holds the patch operator (both precisions), the patch vertices in processing order (a device array
   made from the schedule's boxes, VPCudaPatchBox; colors are ranges of it), and per-block scratch. Arrays: the interior nodes of the brick
   (n[d] per direction, x fastest), device pointers. */
typedef struct VPCudaSmoother_s *VPCudaSmoother;

/* Two kernels: VPC_KERNEL_SHARED keeps the patch in shared memory with conflict-free access (seed 003 section 4.1):
   for operators with one ghost cell (laplace) and for the C0IP biharmonic in 3D at k = 2..5, whose closure (4k+1
   nodes per direction) it stores without the corners the residual does not read (vpsmooth_c0ip.cu);
   VPC_KERNEL_GLOBAL keeps it in a per-block scratch in global memory (any operator). */
#define VPC_KERNEL_GLOBAL 0
#define VPC_KERNEL_SHARED 1
/* VPC_KERNEL_MMA: the one-ghost-cell operators of VPC_KERNEL_SHARED, with the contractions of the double-precision
   steps as FP64 tensor-core products (compute capability 8.0 or newer, else cudaErrorNotSupported); float steps run
   the shared kernel */
#define VPC_KERNEL_MMA 2
/* 1 when the patch closure is the patch's cells (g = 1) and every kind of the terms spans all of it: the operators of
   the laplace shared kernel and of the mma one. Inline, so that a build without CUDA checks it too. */
static inline int VPCudaSmootherMmaSupported(const VPCudaPatchOp_d *op, int g, int k)
{
  if (g != 1 || k < 1 || k > 8 || op->ne != 2 * k + 1 || (op->dim != 2 && op->dim != 3)) return 0;
  for (int t = 0; t < op->nterms; t++)
    for (int d = 0; d < op->dim; d++)
      if (op->coloff[op->kind[t][d]] != 0 || op->ncols[op->kind[t][d]] != op->ne) return 0;
  return 1;
}
/* 1 when the C0IP shared kernel handles it: two ghost cells (closure 4k+1, patch cells at closure indices k..3k),
   3D, k = 2..5 (at k = 5 a patch takes 113 KB of shared memory in double; VPCudaSmootherCreate returns
   cudaErrorNotSupported on a device whose per-block limit is smaller) */
static inline int VPCudaSmootherSharedC0IP(const VPCudaPatchOp_d *op, int g, int k)
{
  return g == 2 && op->dim == 3 && k >= 2 && k <= 5 && op->ne == 4 * k + 1 && op->ni == 2 * k - 1 && op->inner_lo == k && op->inner_hi == 3 * k;
}
/* 1 when VPC_KERNEL_SHARED handles this patch operator (g ghost cells, degree k) */
static inline int VPCudaSmootherSharedSupported(const VPCudaPatchOp_d *op, int g, int k)
{
  return VPCudaSmootherMmaSupported(op, g, k) || VPCudaSmootherSharedC0IP(op, g, k);
}
/* kernel: VPC_KERNEL_*; VPC_KERNEL_SHARED or _MMA where it is not supported returns cudaErrorNotSupported. b, x and the target of
   the steps lie in box (one rank: the whole grid; several: the rank's ghosted local arrays); patches: the nbox boxes of
   the patches in processing order and the sentinel (nbox + 1 entries, read at creation). */
int VPCudaSmootherCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, const VPCudaBox *box, int k, int g, int nbox, const VPCudaPatchBox *patches, int kernel, VPCudaSmoother *sm);
/* one color (patches [start, end)) of the multiplicative step: target[interior] += omega A_j^-1 r_j(x, b); target may be x
   (in place, one rank) or a zeroed correction array (several ranks: added to the owners afterwards) */
int VPCudaSmootherColor(VPCudaSmoother sm, int start, int end, int single, double omega, const double *b, const double *x, double *target);
/* the same with a given (global) residual r instead of the local one: target[interior] += omega A_j^-1 R_j r */
int VPCudaSmootherColorResidual(VPCudaSmoother sm, int start, int end, int single, double omega, const double *r, double *target);
/* the additive step: y += omega sum_j R_j^T A_j^-1 r_j(x, b) (atomic updates); x NULL: residual b */
int VPCudaSmootherAdditive(VPCudaSmoother sm, int single, double omega, const double *b, const double *x, double *y);
/* flops of one patch's local residual in the kernel of this smoother's steps of one precision (single: 0 or 1) where it
   differs from PCVERTEXPATCH's count of the generic sum factorization (the 3D laplace kernel, which combines the terms
   before its z contractions); -1 where it does not */
double VPCudaSmootherResidualFlops(VPCudaSmoother sm, int single);
/* the shared kernel of a 3D laplace smoother, k >= 2: lines of the patch per thread (1, 2: the kernel that combines the
   terms; 0: the generic one-line kernel; -1: by degree and precision, the default); no effect on other smoothers */
int VPCudaSmootherSetLines(VPCudaSmoother sm, int lines);
/* the lines per thread of the steps of one precision as VPCudaSmootherSetLines sets them; -1 where it does not apply */
int VPCudaSmootherGetLines(VPCudaSmoother sm, int single);
/* 1 when the double steps of an mma smoother run one patch per warp (the 3D laplace layout at k = 2, 3), else 0 */
int VPCudaSmootherMmaWarp(VPCudaSmoother sm);
/* caps the grid of the shared-memory and mma kernels at blocks (0: the default, 32 per multiprocessor), so that on a
   small mesh every block runs several patches of a color, one after the other (the checks of tests/gpu_smoother.c) */
int VPCudaSmootherSetMaxBlocks(VPCudaSmoother sm, int blocks);
int VPCudaSmootherDestroy(VPCudaSmoother *sm);

/* An operator in Kronecker form on the interior nodes of a brick (one rank), y = sum_t coef_t (x)_d G_d^{kind_t,d} x:
   per direction d, the 1D matrices of each kind restricted to the n[d] interior nodes, banded with half bandwidth
   bw and stored row-wise as band[d][kind][i*(2 bw + 1) + j - i + bw]. Vectors are the interior nodes, x fastest. */
typedef struct VPCudaKron_s *VPCudaKron;

int VPCudaKronCreate(int dim, const int n[3], int bw, int nterms, const double coef[], const int kind[][3], const double *const band[3][3], VPCudaKron *op);
int VPCudaKronApply_d(VPCudaKron op, const double *x, double *y);
/* double vectors, float arithmetic and intermediates (the mixed-precision multigrid levels) */
int VPCudaKronApply_mixed(VPCudaKron op, const double *x, double *y);
int VPCudaKronDestroy(VPCudaKron *op);
/* The diagonal of a Kronecker form on an m[0] x m[1] x m[2] box of nodes into the device array y: y = sum_t coef_t
   (x)_d diag[d][kind_t,d], diag[d][kind] host arrays of the 1D diagonals on the box's nodes along d (NULL: kind unused). */
int VPCudaKronDiagonal(int dim, const int m[3], int nterms, const double coef[], const int kind[][3], const double *const diag[3][3], double *y);

/* The CG Q_k Laplacian cell by cell with atomic updates (degree a template argument, k = 1..8): the cells
   [c0[d], c0[d] + cells[d]) per direction, x read from an array holding xbox, y written where ybox holds the node
   (y's whole box is zeroed first), and per direction the cell mass and stiffness matrices M[d], K[d] ((k+1) x (k+1),
   row-major, scaled by the cell width). single: float arithmetic on the double vectors. */
typedef struct VPCudaCellLaplace_s *VPCudaCellLaplace;

int VPCudaCellLaplaceCreate(int dim, int k, const int c0[3], const int cells[3], const VPCudaBox *xbox, const VPCudaBox *ybox, const double *const M[3], const double *const K[3], VPCudaCellLaplace *op);
int VPCudaCellLaplaceApply(VPCudaCellLaplace op, int single, const double *x, double *y);
/* a forest's cells (src/dm/brickforest.c): node[] holds each cell's (k+1)^dim local-vector positions (-1: Dirichlet);
   Apply then takes local vectors of nlocal entries (y zeroed first) */
int VPCudaCellLaplaceCreateTable(int dim, int k, int ncells, const int *node, size_t nlocal, const double *const M[3], const double *const K[3], VPCudaCellLaplace *op);
int VPCudaCellLaplaceDiagonal(VPCudaCellLaplace op, double *y);

/* A forest's vertex-patch smoothing step and grid transfer (vpforest.cu): cells and patches through tables (node[]: (k+1)^dim
   local-vector positions per cell, -1 Dirichlet; patchcell[]: 2^dim cells per patch around its vertex, x lowest bit).
   Step: target[interior of patches start..end-1] += omega A_p^-1 r_p, r_p the residual of x and b on the closure, or
   b itself where x is NULL (global residual). Transfer: prolong (in: the coarse values gathered, out: the fine local
   vector) or restrict (in: the fine local vector, out += the transpose; zero it first). E: the two children's
   (k+1) x (k+1) embeddings, row-major. */
typedef struct VPCudaForestSmoother_s *VPCudaForestSmoother;
int VPCudaForestSmootherCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, int k, int npatches, const int *patchcell, int ncells, const int *node, int shared, int lines, VPCudaForestSmoother *sm); /* shared: the box's shared-memory kernels where they apply (laplace); lines: as VPCudaSmootherSetLines */
int VPCudaForestSmootherKernel(VPCudaForestSmoother sm, int single); /* which kernel runs a step: -1 the generic one, 0 the one-line shared-memory one, 1..3 the pair kernel's lines */
int VPCudaForestSmootherStep(VPCudaForestSmoother sm, int single, int start, int end, const double *b, const double *x, double *target, double omega);
int VPCudaForestSmootherDestroy(VPCudaForestSmoother *sm);
typedef struct VPCudaForestTransfer_s *VPCudaForestTransfer;
/* dg: every fine value belongs to one cell (no 1/2^m weights of shared nodes in the restriction). The nfam families
   (family: the first of a parent's 2^dim consecutive children) go through their (2k+1)^dim block: P the 1D embedding
   ((2k+1) x (k+1), row-major), fampos[b nv + i] the block place of child b's node i, famfirst 1 where (b, i) is the
   first with its place, wfam the block's restriction weights; the nsingle cells in single one by one. */
int VPCudaForestTransferCreate(int dim, int k, int dg, int ncells, const int *node, const int *parentof, const int *child, int nparents, const int *pnode, const double *E, int nfam, const int *family, int nsingle, const int *single, const double *P, const int *fampos, const int *famfirst, const double *wfam, VPCudaForestTransfer *t);
int VPCudaForestTransferApply(VPCudaForestTransfer t, int prolong, const double *in, double *out);
int VPCudaForestTransferDestroy(VPCudaForestTransfer *t);
int VPCudaCellLaplaceDestroy(VPCudaCellLaplace *op);

/* C0IP on a forest (vpforestc0ip.cu). A cell's 1D pieces (src/mat/c0ipforest.c fills them): per direction h M, L/h,
   H/h^3 ((k+1)^2, row-major; 2D: z a single 1), the interior face's jump and mean functionals J, A over the lower cell's
   k+1 nodes then the upper's and its penalty sigma, the boundary faces' one-sided Jb, Ab on a cell's lower (0) and upper
   (1) side with sigmab. */
typedef struct {
  int    dim, n;
  double M[3][81], L[3][81], H[3][81];
  double J[3][18], A[3][18], sigma[3];
  double Jb[3][2][9], Ab[3][2][9], sigmab[3];
} VPCudaC0IPCell;
typedef struct VPCudaC0IPForest_s *VPCudaC0IPForest;
/* the product over ncells owned cells (their face table: 2 dim each, -1 boundary) reading the node table of ntable cells
   (owned, then ghosts), into local vectors of nlocal values; cudaErrorInvalidConfiguration where a cell's arrays do not
   fit the device's shared memory */
int VPCudaC0IPForestCreate(const VPCudaC0IPCell *cell, int ncells, int ntable, const int *node, const int *face, size_t nlocal, VPCudaC0IPForest *op);
int VPCudaC0IPForestApply(VPCudaC0IPForest op, const double *x, double *y);
int VPCudaC0IPForestDestroy(VPCudaC0IPForest *op);
/* the patch step: per patch its pattern (ppattern), per pattern its class triple (cls, 3 each) or its dense factor
   (factor[q] non-NULL: the (ni^dim)^2 column-major upper Cholesky factor, solved in double). With face (2 dim
   neighbours per cell of the node table, -1 boundary) and cell, a step may form each patch's local residual from x (the
   ghosted iterate) and b; without, a step takes the global residual b. */
typedef struct VPCudaC0IPPatches_s *VPCudaC0IPPatches;
int VPCudaC0IPPatchesCreate(const VPCudaPatchOp_d *op_d, const VPCudaPatchOp_f *op_f, int k, int npatches, const int *patchcell, int ncells, const int *node, const int *face, const VPCudaC0IPCell *cell, const int *ppattern, int npatterns,
                            const int *cls, const double *const *factor, VPCudaC0IPPatches *s);
/* target[interior] += omega A_p^-1 r for the patches [start, end): r = b - A x on the patch (x non-NULL), else b */
int VPCudaC0IPPatchesStep(VPCudaC0IPPatches s, int single, int start, int end, const double *x, const double *b, double *target, double omega);
int VPCudaC0IPPatchesDestroy(VPCudaC0IPPatches *s);

/* Grid transfer between two levels of a brick (one rank): prolongation P = (x)_d P_d and restriction P^T,
   direction by direction. Each 1D matrix (and its transpose) is given row-wise with a fixed width: row i has
   the entries val[i*w + j] in the columns start[i] + j, j < w (columns outside the range are skipped). nc, nf:
   interior nodes of the coarse and the fine level per direction. */
typedef struct VPCudaTransfer_s *VPCudaTransfer;

int VPCudaTransferCreate(int dim, const int nc[3], const int nf[3], int wp, const int *const pstart[3], const double *const pval[3], int wr, const int *const rstart[3], const double *const rval[3], VPCudaTransfer *t);
/* single: float arithmetic and intermediates on the double vectors (the mixed-precision multigrid levels) */
int VPCudaTransferProlong(VPCudaTransfer t, int single, const double *xc, double *yf);
int VPCudaTransferRestrict(VPCudaTransfer t, int single, const double *xf, double *yc);
int VPCudaTransferDestroy(VPCudaTransfer *t);

/* DG (sipg, cuda/vpdg.cu). Arrays hold cells x fastest, (k+1)^d values per cell (x fastest). The operator: the owned
   cells [c0, c0 + cells) of a grid of grid[d] cells; x is read from an array holding the cells of xbox (n: grid cells,
   lo/m: the array's cells; the ghosted local box, or the whole grid on one rank); y is written for the owned cells in
   order. line: per direction 7 matrices (k+1) x (k+1), row-major: the cell mass, the cell's block with itself by
   boundary class (none, lower, upper, both), the block with its upper neighbour, with its lower neighbour. */
typedef struct VPCudaDG_s *VPCudaDG;
int                        VPCudaDGCreate(int dim, int k, const int grid[3], const int c0[3], const int cells[3], const VPCudaBox *xbox, const double *line, VPCudaDG *op);
/* a forest level's (src/dm/brickforest.c): ncells cells, face[2 dim c + 2 d + s] the local-array cell across cell c's
   lower (s = 0) or upper (s = 1) face along d, -1 on the boundary; x holds the cells and ghost cells, y the cells */
int VPCudaDGCreateForest(int dim, int k, int ncells, const int *face, const double *line, VPCudaDG *op);
int                        VPCudaDGApply(VPCudaDG op, int single, const double *x, double *y);
int                        VPCudaDGDestroy(VPCudaDG *op);
/* The DG vertex-patch steps: per direction and class (lower boundary + 2 upper boundary) a slot of VPC_DG_SLOT doubles:
   Q (np x m), at np^2: Q^T (m x np), at 2 np^2: lambda (m), at 2 np^2 + np: the residual's 1D form (np x np), at
   3 np^2 + np: the 1D mass (np x np); np = 2(k+1), m[d][cls] the local dimension. patches: the nbox boxes of the
   patches and the sentinel (read at creation); the first value of the patch at vertex v is that of cell v - 1, at
   dof sum_d (v_d - 1 - gstart[d]) gstride[d] in the local arrays (cells from gstart, gstride[d] cells apart), and rel
   holds the offsets of its np^d values from there. */
#define VPC_DG_SLOT (4 * 18 * 18 + 18)
typedef struct VPCudaDGSmoother_s *VPCudaDGSmoother;
int VPCudaDGSmootherCreate(int dim, int k, const int grid[3], const int m[3][4], const double *data, int nbox, const VPCudaPatchBox *patches, const int gstart[3], const int gstride[3], int dof, const int *rel, VPCudaDGSmoother *sm);
/* a forest level's patches: key[p] the class triple (cls[0] + 4 cls[1] + 16 cls[2]) or 64 + a mixed index;
   cellofs[2^dim p + b] the local-array offset of patch p's cell b, patch value q at cellofs[.. + qcell[q]] + qlocal[q];
   the mixed patches (mixedpatch[i] ascending, their patch numbers) by the Cholesky factors U of their matrices (LAPACK
   potrf "U", column-major npd x npd, values in patch order, concatenated); they take the global residual rl */
int VPCudaDGSmootherCreateForest(int dim, int k, const int m[3][4], const double *data, int npatches, const int *key, const int *cellofs, const int *qcell, const int *qlocal, int nmixed, const int *mixedpatch, const double *U, VPCudaDGSmoother *sm);
/* patches [start, end): target[patch] += omega E A_j^-1 E^T r_j, r_j from ul and bl (localres; ul NULL: zero) or rl;
   atomic: overlapping patches (additive) */
int VPCudaDGSmootherPatches(VPCudaDGSmoother sm, int start, int end, int localres, int atomic, int single, double omega, const double *ul, const double *bl, const double *rl, double *target);
int VPCudaDGSmootherDestroy(VPCudaDGSmoother *sm);
/* The DG grid transfer per owned fine cell: parent[f] its parent's position in the gathered coarse cells, child[f] the
   child bits (x: 1, y: 2, z: 4); mat: child[0], child[1], child[0]^T, child[1]^T ((k+1) x (k+1) each) */
typedef struct VPCudaDGTransfer_s *VPCudaDGTransfer;
int                                VPCudaDGTransferCreate(int dim, int k, int ncells, const int *parent, const int *child, const double *mat, VPCudaDGTransfer *t);
/* restrict_ 0: out (owned fine cells) = P in (gathered coarse cells); 1: out (gathered coarse cells, zeroed) += P^T in */
int VPCudaDGTransferApply(VPCudaDGTransfer t, int restrict_, int single, const double *in, double *out);
int VPCudaDGTransferDestroy(VPCudaDGTransfer *t);
int VPCudaCopyToDevice(double *dst, const double *src, size_t n);
/* y = x (add 0) or y += x (add 1), n device values (cuda/vpvector.cu) */
int VPCudaVectorCopy(size_t n, int add, const double *x, double *y);
/* the current device, its UUID, its free and total memory in bytes (cuda/vpvector.cu) */
int VPCudaMemoryInfo(int *device, unsigned char uuid[16], size_t *free_bytes, size_t *total_bytes);
int VPCudaVectorAXPY(size_t n, double alpha, const double *x, double *y);

/* Functions given as sum_t prod_d f_td(x_d) (cuda/vpseparable.cu). tab packs the 1D tables, term after term, each
   x, y, z (z absent in 2D). VPCudaSeparableFill: y (device) at the entries (cell c, point i) of W[0] x W[1] x W[2]
   cells of n^dim points each (n = 1: a box of nodes), y = sum_t prod_d tab_td[c_d n + i_d]; tables of W[d] n values. */
int VPCudaSeparableFill(int dim, int n, const int W[3], int nterms, const double *tab, double *y);
/* The squared L2 error of a Q_k function on a rank's owned cells against a separable function given at the k + 2
   Gauss points of those cells (tables of cells[d] (k + 2) values). CG: u holds interior nodes in the box lo, m
   (interior numbering; full-grid node f is interior node f - 1) of a grid of gcells cells; DG: the owned cells'
   values, cell after cell. B: basis at the Gauss points ((k + 2) x (k + 1)); w: weights times cell widths. */
typedef struct {
  int    dim, k, nterms, dg;
  int    cells[3], c0[3], gcells[3], lo[3], m[3];
  double B[10 * 9], w[3][10];
} VPCudaSeparableL2Data;
int VPCudaSeparableL2Error(const VPCudaSeparableL2Data *g, const double *u, const double *tab, double *sum);

/* PCHFEM's dense steps (cuda/vphfem.cu): nC macro-grid nodes, nE edge nodes, ncell macro cells of nb inner nodes;
   precision of the two inverses (VPC_HFEM_*; tf32: TF32 tensor cores for single). LC (nC x nC, lower Cholesky
   factor) and the C-E block (nC x nE; B = LC^-1 times it, made on the GPU) are host arrays in double, column-major. */
#define VPC_HFEM_DOUBLE   0
#define VPC_HFEM_SINGLE   1
#define VPC_HFEM_HALF     2
#define VPC_HFEM_BFLOAT16 3
#define VPC_ERR_CUBLAS    10000 /* + cublasStatus_t */
#define VPC_ERR_CUSOLVER  20000 /* + cusolverStatus_t (the glue prints the code) */
#define VPC_ERR_NOT_SPD   30000 /* a Cholesky factorization or an eigensolve failed */
#define VPC_ERR_LAYOUT    40000 /* PCHFEM's fused path: a coupling that is not on its macro cell's boundary */
typedef struct VPCudaHFEM_s *VPCudaHFEM;
int                          VPCudaHFEMCreate(int nC, int nE, int nb, int ncell, int precision, int tf32, const double *LC, const double *B, VPCudaHFEM *h);
/* C_1^-1 (host, nb x nb, double): stored in the precision */
int VPCudaHFEMSetCinv(VPCudaHFEM h, const double *Cinv);
/* the E-I couplings folded into the C^-1 products of the fused path (see src/pc/hfem/hfemfold.c): G = C_1^-1 D_s^T (host,
   nb x ns, double, column-major) over the ns = 4 s boundary slots of a macro cell, alpha the weight of Y_E; Cinv as for
   VPCudaHFEMSetCinv. Without this call the fused path applies D and D^T as sparse products. */
int VPCudaHFEMSetFold(VPCudaHFEM h, int ns, double alpha, const double *Cinv, const double *G);
/* Pi = E - sum_cells D_k C_1^-1 D_k^T - B^T B: E as nnz (row, column, value) triples, the cells' blocks G (ntype blocks
   nr x nr) subtracted at cellE[c nr + a] (< 0: none) by celltype[c]; inverted on the GPU (cuSOLVER) and stored;
   kappa (if not NULL): Pi's condition number (eigenvalues by cuSOLVER) */
int VPCudaHFEMSetPi(VPCudaHFEM h, size_t nnz, const int *ei, const int *ej, const double *ev, int ntype, int nr, const double *G, const int *cellE, const int *celltype, double *kappa);
/* the couplings D (which 0: E rows, I columns) and D^T (1: I rows, E columns) in the set order, only the rows that have
   entries (rows[q], entries ptr[q]..ptr[q+1]-1 in col, val; host arrays); Couple: Z -= D Y (or D^T Y) on those rows.
   The three dense stages of one solve of n right-hand sides held in the rows [C; E; I] of Z, Y (device, leading
   dimension ld), with the couplings between them: forward: Z_C = LC^-1 Z_C, Y_I = C^-1 Z_I, Z_E -= B^T Z_C; then
   Couple(0); middle: Y_E = Pi^-1 Z_E, Z_C -= B Y_E; then Couple(1); backward: Y_I = C^-1 Z_I, Y_C = LC^-T Z_C */
int VPCudaHFEMSetCoupling(VPCudaHFEM h, int which, int nrows, const int *rows, const int *ptr, const int *col, const double *val);
int VPCudaHFEMCouple(VPCudaHFEM h, int which, int n, const double *Y, double *Z, int ld);
int VPCudaHFEMForward(VPCudaHFEM h, int n, double *Z, double *Y, int ld);
int VPCudaHFEMMiddle(VPCudaHFEM h, int n, double *Z, double *Y, int ld);
int VPCudaHFEMBackward(VPCudaHFEM h, int n, double *Z, double *Y, int ld);
int VPCudaHFEMDestroy(VPCudaHFEM *h);
/* timers of the steps of the three stages (cudaEvents, synchronizing after each step: for profiles only), summed over the
   solves and in the last solve, in milliseconds: the packing, product and unpacking of C^-1 and of Pi^-1, the macro-grid steps (L_C solves and B
   products, double); the subtractions of W are fused into the packing */
#define VPC_HFEM_STEP_PACK_C    0
#define VPC_HFEM_STEP_PACK_PI   3
#define VPC_HFEM_STEP_MACRO     6
#define VPC_HFEM_STEP_TRANSFORM 7 /* node-major solve only: the transform with the transposes in and out */
#define VPC_HFEM_STEP_COUPLE    8 /* node-major solve only: D and D^T */
#define VPC_HFEM_NSTEP          9
int VPCudaHFEMSetTimers(VPCudaHFEM h, int on);
int VPCudaHFEMGetTimes(VPCudaHFEM h, double ms[], double last[]);
/* PCHFEM's hierarchical transform as level-wise stencils (cuda/vphfemtransform.cu) on an nx x ny-cell grid with macro cells
   of s x s cells: order (the node at each place of the set order) and scale (N = (nx-1)(ny-1) each, host arrays).
   Forward: z = diag(scale) P S^T b, work an N x n scratch; backward: x = S P^T diag(scale) y; n columns, leading dimension ld */
typedef struct VPCudaHFEMTransform_s *VPCudaHFEMTransform;
int                                   VPCudaHFEMTransformCreate(int nx, int ny, int s, const int *order, const double *scale, VPCudaHFEMTransform *t);
int                                   VPCudaHFEMTransformForward(VPCudaHFEMTransform t, int n, const double *b, double *work, double *z, size_t ld);
int                                   VPCudaHFEMTransformBackward(VPCudaHFEMTransform t, int n, const double *y, double *x, size_t ld);
int                                   VPCudaHFEMTransformDestroy(VPCudaHFEMTransform *t);
/* the same with node-major work arrays (element (node k, column c) at k n + c): forward from the column-major B (ldb) into
   z, w scratch; backward from y into the column-major X (ldx); N n < 2^31 */
int VPCudaHFEMTransformForwardNM(VPCudaHFEMTransform t, int n, const double *B, size_t ldb, double *w, double *z);
int VPCudaHFEMTransformBackwardNM(VPCudaHFEMTransform t, int n, const double *y, double *w, double *X, size_t ldx);
/* one whole solve of the n columns of B (column-major, ldb) into X (ldx) with node-major work arrays held by h: each
   node's n values are contiguous, so the transform and the couplings read whole rows; C^-1 is one strided batched GEMM
   over the macro cells, Pi^-1 one GEMM, the macro-grid steps GEMMs and triangular solves from the right; N n < 2^31 */
int VPCudaHFEMSolveNM(VPCudaHFEM h, VPCudaHFEMTransform t, int n, const double *B, size_t ldb, double *X, size_t ldx);
/* the same solve with the transform done macro cell by macro cell in shared memory (cuda/vphfemcell.cu): one kernel reads
   B, transforms, scales and packs the input of C^-1; one unpacks C^-1's product, transforms back and writes X; B = L_C^-1
   Ap_CE as the sparse Ap_CE and solves with L_C. CellsFit: whether a macro cell's closure fits the shared memory in this
   precision (macro cells of up to 64 x 64 fine cells in double and single, 128 x 128 in half and bfloat16) */
int VPCudaHFEMCellsFit(VPCudaHFEM h, VPCudaHFEMTransform t);
int VPCudaHFEMSolveCells(VPCudaHFEM h, VPCudaHFEMTransform t, int n, const double *B, size_t ldb, double *X, size_t ldx);

/* Device-to-device messages between the processes of one host (cuda/vpexchange.cu). A rank's receive buffer is one
   cudaMalloc exported through CUDA IPC (handle: VPC_IPC_HANDLE_BYTES bytes); its peers open it and their pack kernels
   store into it directly. Pack: dst[k bs + c] = src[idx[k] bs + c]. Move: dst[didx[k] bs + c] = (add: +=, atomic)
   src[sidx[k] bs + c] (sidx NULL: src[k bs + c]). Mark/Wait: an event recorded on the legacy default stream after the
   packs, and a wait for it alone before a rank tells its peers (work queued after the mark, such as the patches away
   from the shared layers, goes on meanwhile). */
#define VPC_IPC_HANDLE_BYTES 64
int VPCudaExchangeAlloc(size_t nvalues, double **buf, void *handle);
int VPCudaExchangeFree(double *buf);
int VPCudaExchangeOpen(const void *handle, double **peer);
int VPCudaExchangeClose(double *peer);
int VPCudaExchangeIndices(size_t n, const int *host, int **dev);
int VPCudaExchangeFreeIndices(int *dev);
int VPCudaExchangePack(size_t n, int bs, const int *idx, const double *src, double *dst);
int VPCudaExchangeMove(size_t n, int bs, int add, const int *sidx, const int *didx, const double *src, double *dst);
int VPCudaExchangeTouch(size_t n, double *dst);
int VPCudaExchangeMarkCreate(void **mark);
int VPCudaExchangeMark(void *mark);
int VPCudaExchangeWait(void *mark);
int VPCudaExchangeMarkDestroy(void *mark);
/* dst[z dplane + y drow + i] = (add: +=) src[z splane + y srow + i] for i < n0, y < n1, z < n2 (the owned block of a
   rank between its global array and the ghosted local one) */
int VPCudaBoxMove(int n0, int n1, int n2, const double *src, size_t srow, size_t splane, double *dst, size_t drow, size_t dplane, int add);

/* PCDENSEINVERSE (cuda/vpdense.cu): the inverse of an n x n SPD matrix, given by its CSR rows (0-based), made dense on
   the device with cuSOLVER's Cholesky (VPC_ERR_NOT_SPD if it is not positive definite); Apply: y = A^-1 x, x and y device
   pointers (on_device 1) or host arrays copied through the device (0). */
typedef struct VPCudaDenseInverse_s *VPCudaDenseInverse;
int VPCudaDenseInverseCreate(int n, const int *ptr, const int *col, const double *val, VPCudaDenseInverse *d);
int VPCudaDenseInverseApply(VPCudaDenseInverse d, const double *x, double *y, int on_device);
int VPCudaDenseInverseDestroy(VPCudaDenseInverse *d);

const char *VPCudaErrorString(int err);

#ifdef __cplusplus
}
#endif
