/* The CG Q_k Poisson operator a(u,v) = (grad u, grad v) on a brick, matrix-free and assembled.

   On a Cartesian cell of widths h_x, h_y (, h_z) the element matrix is a sum of Kronecker products of
   1D matrices, M_d = h_d M and K_d = L / h_d (reference mass M, stiffness L):
     2D: A_K = M_y (x) K_x + K_y (x) M_x,
     3D: A_K = M_z (x) M_y (x) K_x + M_z (x) K_y (x) M_x + K_z (x) M_y (x) M_x,
   applied by sum factorization in O(k^(d+1)) per cell. */
#include "brickelement.h"

typedef struct {
  DM        dm;
  Vec       xl, yl; /* local (ghosted) work vectors */
  PetscReal M[3][BRICK_MAX_N * BRICK_MAX_N], K[3][BRICK_MAX_N * BRICK_MAX_N];
  BrickEvenOdd Meo[3], Keo[3]; /* their even-odd halves: the host product's contractions */
  void     *gpu; /* the GPU cell kernel (VP_HAVE_CUDA), made with the shell when the brick's vectors are device vectors */
} BrickLaplace;

static PetscErrorCode BrickLaplaceSetUp1D(DM dm, PetscReal M[][BRICK_MAX_N * BRICK_MAX_N], PetscReal K[][BRICK_MAX_N * BRICK_MAX_N])
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt n     = brick->degree + 1;
  PetscReal      Mref[BRICK_MAX_N * BRICK_MAX_N], Lref[BRICK_MAX_N * BRICK_MAX_N], h[3];

  PetscFunctionBegin;
  PetscCall(BrickElementMatrices1D(brick->degree, brick->nodes, Mref, Lref));
  PetscCall(DMBrickCellSize_Private(dm, h));
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt i = 0; i < n * n; i++) {
      M[d][i] = h[d] * Mref[i];
      K[d][i] = Lref[i] / h[d];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cell's 1D mass and stiffness matrices per direction (h M, L / h), for the GPU path */
PetscErrorCode BrickLaplaceMatrices1D(DM dm, PetscReal M[][BRICK_MAX_N * BRICK_MAX_N], PetscReal K[][BRICK_MAX_N * BRICK_MAX_N])
{
  PetscFunctionBegin;
  PetscCall(BrickLaplaceSetUp1D(dm, M, K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v = A_K u on one cell; work holds 5 (k+1)^dim scalars. The 1D mass and stiffness matrices are centro-symmetric, so
   each contraction runs in its even-odd form (about half the multiply-adds). */
static void BrickLaplaceCellApply(PetscInt dim, PetscInt n, const BrickEvenOdd M[], const BrickEvenOdd K[], const PetscScalar u[], PetscScalar v[], PetscScalar work[])
{
  const PetscInt ext[3] = {n, n, dim == 3 ? n : 1}, size = n * n * ext[2];
  PetscScalar   *mx = work, *kx = work + size, *t1 = work + 2 * size, *t2 = work + 3 * size, *t3 = work + 4 * size;

  BrickEvenOddApply1D(0, ext, &M[0], u, mx);
  BrickEvenOddApply1D(0, ext, &K[0], u, kx);
  if (dim == 2) {
    BrickEvenOddApply1D(1, ext, &M[1], kx, v);
    BrickEvenOddApply1D(1, ext, &K[1], mx, t1);
    for (PetscInt i = 0; i < size; i++) v[i] += t1[i];
    return;
  }
  BrickEvenOddApply1D(1, ext, &M[1], kx, t1); /* M_y K_x u */
  BrickEvenOddApply1D(1, ext, &K[1], mx, t2); /* K_y M_x u */
  for (PetscInt i = 0; i < size; i++) t1[i] += t2[i];
  BrickEvenOddApply1D(1, ext, &M[1], mx, t3); /* M_y M_x u */
  BrickEvenOddApply1D(2, ext, &M[2], t1, v);
  BrickEvenOddApply1D(2, ext, &K[2], t3, t2);
  for (PetscInt i = 0; i < size; i++) v[i] += t2[i];
}

/* BrickLaplaceCellApply on a SIMD group of cells, one per lane (the same operations in the same order on each lane) */
static void BrickLaplaceCellApplyLanes(PetscInt dim, PetscInt n, const BrickEvenOdd M[], const BrickEvenOdd K[], const BrickLaneD u[], BrickLaneD v[], BrickLaneD work[])
{
  const PetscInt ext[3] = {n, n, dim == 3 ? n : 1}, size = n * n * ext[2];
  BrickLaneD    *mx = work, *kx = work + size, *t1 = work + 2 * size, *t2 = work + 3 * size, *t3 = work + 4 * size;

  BrickEvenOddLaneApply1D(0, ext, &M[0], u, mx);
  BrickEvenOddLaneApply1D(0, ext, &K[0], u, kx);
  if (dim == 2) {
    BrickEvenOddLaneApply1D(1, ext, &M[1], kx, v);
    BrickEvenOddLaneApply1D(1, ext, &K[1], mx, t1);
    for (PetscInt i = 0; i < size; i++) v[i] += t1[i];
    return;
  }
  BrickEvenOddLaneApply1D(1, ext, &M[1], kx, t1);
  BrickEvenOddLaneApply1D(1, ext, &K[1], mx, t2);
  for (PetscInt i = 0; i < size; i++) t1[i] += t2[i];
  BrickEvenOddLaneApply1D(1, ext, &M[1], mx, t3);
  BrickEvenOddLaneApply1D(2, ext, &M[2], t1, v);
  BrickEvenOddLaneApply1D(2, ext, &K[2], t3, t2);
  for (PetscInt i = 0; i < size; i++) v[i] += t2[i];
}

/* the local work vectors of the host product, made at its first use (the GPU path has its own on several ranks and
   needs none on one) */
static PetscErrorCode BrickLaplaceWorkVectors(BrickLaplace *ctx)
{
  PetscFunctionBegin;
  if (!ctx->xl) {
    PetscCall(DMCreateLocalVector(ctx->dm, &ctx->xl));
    PetscCall(VecDuplicate(ctx->xl, &ctx->yl));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owned cells of the planes c = c0, c0 + 2, ... <= c1 along direction od (the last one), y += A_K x. Cells of such
   planes share no node, so the planes of one call may run on several threads (-dm_brick_threads). */
static PetscErrorCode BrickLaplacePlanes(BrickLaplace *ctx, const BrickBox *cells, PetscInt od, PetscInt c0, PetscInt c1, const PetscScalar *xl, PetscScalar *yl)
{
  DM_Brick      *brick = (DM_Brick *)ctx->dm->data;
  const PetscInt n = brick->degree + 1, nloc = brick->dim == 2 ? n * n : n * n * n;
  int            fail  = 0;

  PetscFunctionBegin;
#if defined(_OPENMP)
  #pragma omp parallel for num_threads(brick->threads) schedule(static) if (brick->threads > 1) reduction(max : fail)
#endif
  for (PetscInt c = c0; c <= c1; c += 2) {
    for (PetscInt cz = od == 2 ? c : cells->lo[2]; cz <= (od == 2 ? c : cells->hi[2]); cz++)
      for (PetscInt cy = od == 1 ? c : cells->lo[1]; cy <= (od == 1 ? c : cells->hi[1]); cy++) {
        if (brick->simd) {
          /* BRICK_LANES_D cells of the row at once; each is then added in turn, in the order of the loop below */
          BrickLaneD u[729], v[729], work[5 * 729];
          PetscInt   idx[BRICK_LANES_D][729];
          for (PetscInt cx = cells->lo[0]; cx <= cells->hi[0]; cx += BRICK_LANES_D) {
            const PetscInt nl = PetscMin(BRICK_LANES_D, cells->hi[0] - cx + 1);
            for (PetscInt l = 0; l < BRICK_LANES_D; l++) {
              const PetscInt cell[3] = {cx + l, cy, cz};
              double        *us      = (double *)u;
              if (l >= nl) {
                for (PetscInt i = 0; i < nloc; i++) us[i * BRICK_LANES_D + l] = 0.0;
                continue;
              }
              if (BrickCellLocalIndices(ctx->dm, cell, idx[l])) fail = 1;
              for (PetscInt i = 0; i < nloc; i++) us[i * BRICK_LANES_D + l] = idx[l][i] < 0 ? 0.0 : xl[idx[l][i]];
            }
            BrickLaplaceCellApplyLanes(brick->dim, n, ctx->Meo, ctx->Keo, u, v, work);
            for (PetscInt l = 0; l < nl; l++) {
              const double *vs = (const double *)v;
              for (PetscInt i = 0; i < nloc; i++)
                if (idx[l][i] >= 0) yl[idx[l][i]] += vs[i * BRICK_LANES_D + l];
            }
          }
        } else {
          PetscScalar u[729], v[729], work[5 * 729];
          PetscInt    idx[729];
          for (PetscInt cx = cells->lo[0]; cx <= cells->hi[0]; cx++) {
            const PetscInt cell[3] = {cx, cy, cz};
            if (BrickCellLocalIndices(ctx->dm, cell, idx)) fail = 1; /* it cannot fail for a CG brick; checked after the loop */
            for (PetscInt i = 0; i < nloc; i++) u[i] = idx[i] < 0 ? 0.0 : xl[idx[i]];
            BrickLaplaceCellApply(brick->dim, n, ctx->Meo, ctx->Keo, u, v, work);
            for (PetscInt i = 0; i < nloc; i++)
              if (idx[i] >= 0) yl[idx[i]] += v[i];
          }
        }
      }
  }
  PetscCheck(!fail, PETSC_COMM_SELF, PETSC_ERR_LIB, "BrickCellLocalIndices failed in the laplace product");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x on a forest level: the rank's cells from its list, their nodes through the forest's table */
static PetscErrorCode BrickLaplaceMultForest(BrickLaplace *ctx, Vec x, Vec y)
{
  DM_Brick          *brick = (DM_Brick *)ctx->dm->data;
  const BrickForest *f     = brick->forest;
  const PetscInt     n = brick->degree + 1, nv = f->nv;
  const PetscScalar *xl;
  PetscScalar       *yl, u[729], v[729], work[5 * 729];
  PetscMPIInt        size;
  Vec                xin = x, yout = y;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ctx->dm), &size));
  if (size > 1) { /* through the ghosted local vectors; on one rank the global vectors have the local layout */
    PetscCall(BrickLaplaceWorkVectors(ctx));
    PetscCall(DMGlobalToLocal(ctx->dm, x, INSERT_VALUES, ctx->xl));
    xin  = ctx->xl;
    yout = ctx->yl;
  }
  PetscCall(VecZeroEntries(yout));
  PetscCall(VecGetArrayRead(xin, &xl));
  PetscCall(VecGetArray(yout, &yl));
  for (PetscInt c = 0; c < f->ncells; c++) {
    const PetscInt *idx = f->node + c * nv;
    for (PetscInt i = 0; i < nv; i++) u[i] = idx[i] < 0 ? 0.0 : xl[idx[i]];
    BrickLaplaceCellApply(brick->dim, n, ctx->Meo, ctx->Keo, u, v, work);
    for (PetscInt i = 0; i < nv; i++)
      if (idx[i] >= 0) yl[idx[i]] += v[i];
  }
  PetscCall(VecRestoreArrayRead(xin, &xl));
  PetscCall(VecRestoreArray(yout, &yl));
  if (size > 1) {
    PetscCall(VecZeroEntries(y));
    PetscCall(DMLocalToGlobal(ctx->dm, ctx->yl, ADD_VALUES, y));
  }
  {
    const PetscInt m = n / 2, h = n - m, line = h * (2 * h - 1) + m * (2 * m - 1) + 4 * m;
    PetscCall(PetscLogFlops(1.0 * (nv / n) * line * (brick->dim == 2 ? 4 : 7) * f->ncells));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_BrickLaplace(Mat A, Vec x, Vec y)
{
  BrickLaplace      *ctx;
  DM_Brick          *brick;
  const PetscScalar *xl;
  PetscScalar       *yl;
  PetscInt           nloc, n;
  BrickBox           cells;
  PetscBool          gpu;
  Vec                xin;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  brick = (DM_Brick *)ctx->dm->data;
  PetscCall(DMBrickVecsOnDevice_Private(x, y, &gpu));
#if defined(VP_HAVE_CUDA)
  if (gpu) {
    /* on the GPU: the same cell matrices, one thread block per few cells, atomic updates (cuda/vpcell.cu) */
    if (!ctx->gpu) PetscCall(BrickLaplaceGPUCreate(ctx->dm, ctx->M, ctx->K, &ctx->gpu));
    PetscCall(BrickLaplaceGPUMult(ctx->dm, ctx->gpu, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (brick->forest) {
    PetscCall(BrickLaplaceMultForest(ctx, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  n    = brick->degree + 1;
  nloc = brick->dim == 2 ? n * n : n * n * n;
  PetscCall(DMBrickOwnedCellBox_Private(ctx->dm, &cells));
  PetscCall(BrickLaplaceWorkVectors(ctx));
  PetscCall(DMBrickGlobalToLocalMirror_Private(ctx->dm, x, ctx->xl, &xin)); /* x's in-place local (-dm_brick_slabs) or ctx->xl */
  PetscCall(VecZeroEntries(ctx->yl));
  PetscCall(VecGetArrayRead(xin, &xl));
  PetscCall(VecGetArray(ctx->yl, &yl));
  {
    /* the even planes along the last direction, then the odd ones: the same order on every thread count */
    const PetscInt od = brick->dim - 1;
    PetscCall(BrickLaplacePlanes(ctx, &cells, od, cells.lo[od], cells.hi[od], xl, yl));
    PetscCall(BrickLaplacePlanes(ctx, &cells, od, cells.lo[od] + 1, cells.hi[od], xl, yl));
  }
  PetscCall(VecRestoreArrayRead(xin, &xl));
  PetscCall(VecRestoreArray(ctx->yl, &yl));
  PetscCall(VecZeroEntries(y));
  PetscCall(DMLocalToGlobal(ctx->dm, ctx->yl, ADD_VALUES, y));
  {
    /* per line of an even-odd contraction: h rows of E (2h - 1 flops each), m of O, 2m sums and differences, 2m to recombine */
    const PetscInt m = n / 2, h = n - m, line = h * (2 * h - 1) + m * (2 * m - 1) + 4 * m;
    PetscCall(PetscLogFlops(1.0 * (nloc / n) * line * (brick->dim == 2 ? 4 : 7) * PetscMax(BrickBoxSize(&cells), 0)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry (i,j) of the element matrix, i and j cell-node numbers (x fastest). */
static inline PetscReal BrickLaplaceEntry(PetscInt dim, PetscInt n, PetscReal M[][BRICK_MAX_N * BRICK_MAX_N], PetscReal K[][BRICK_MAX_N * BRICK_MAX_N], PetscInt i, PetscInt j)
{
  PetscInt  ii[3] = {i % n, (i / n) % n, i / (n * n)}, jj[3] = {j % n, (j / n) % n, j / (n * n)};
  PetscReal sum = 0.0;

  for (PetscInt d = 0; d < dim; d++) {
    PetscReal p = 1.0;
    for (PetscInt e = 0; e < dim; e++) p *= (e == d ? K[e] : M[e])[ii[e] * n + jj[e]];
    sum += p;
  }
  return sum;
}

static PetscErrorCode MatGetDiagonal_BrickLaplace(Mat A, Vec diag)
{
  BrickLaplace *ctx;
  DM_Brick     *brick;
  PetscScalar  *yl;
  PetscReal     cell[729]; /* the element matrix's diagonal: the same for every cell of a Cartesian level */
  PetscInt      idx[729], nloc, n;
  BrickBox      cells;
  PetscBool     done;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  brick = (DM_Brick *)ctx->dm->data;
  PetscCall(BrickTryGPUDiagonal(ctx->dm, diag, &done));
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  n    = brick->degree + 1;
  nloc = brick->dim == 2 ? n * n : n * n * n;
  PetscCall(DMBrickOwnedCellBox_Private(ctx->dm, &cells));
  PetscCall(BrickLaplaceWorkVectors(ctx));
  PetscCall(VecZeroEntries(ctx->yl));
  PetscCall(VecGetArray(ctx->yl, &yl));
  for (PetscInt i = 0; i < nloc; i++) cell[i] = BrickLaplaceEntry(brick->dim, n, ctx->M, ctx->K, i, i);
  if (brick->forest)
    for (PetscInt c = 0; c < brick->forest->ncells; c++) {
      const PetscInt *fi = brick->forest->node + c * nloc;
      for (PetscInt i = 0; i < nloc; i++)
        if (fi[i] >= 0) yl[fi[i]] += cell[i];
    }
  for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++) {
        const PetscInt c[3] = {cx, cy, cz};
        PetscCall(BrickCellLocalIndices(ctx->dm, c, idx));
        for (PetscInt i = 0; i < nloc; i++)
          if (idx[i] >= 0) yl[idx[i]] += cell[i];
      }
  PetscCall(VecRestoreArray(ctx->yl, &yl));
  PetscCall(VecZeroEntries(diag));
  PetscCall(DMLocalToGlobal(ctx->dm, ctx->yl, ADD_VALUES, diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickLaplaceDescribe(DM dm, char line[], size_t len)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(line, len, "CG Q%" PetscInt_FMT " in %" PetscInt_FMT "D, level %" PetscInt_FMT ", matrix-free (sum factorization on Cartesian cells)", brick->degree, brick->dim, brick->level));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickLaplaceDestroy(void *ptr)
{
  BrickLaplace *ctx = (BrickLaplace *)ptr;

  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  PetscCall(BrickLaplaceGPUDestroy(&ctx->gpu));
#endif
  PetscCall(VecDestroy(&ctx->xl));
  PetscCall(VecDestroy(&ctx->yl));
  PetscCall(DMDestroy(&ctx->dm));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickLaplaceCreateShell(DM dm, Mat *A)
{
  BrickLaplace *ctx;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  PetscCall(PetscObjectReference((PetscObject)dm));
  ctx->dm = dm;
  PetscCall(BrickLaplaceSetUp1D(dm, ctx->M, ctx->K));
  for (PetscInt d = 0; d < 3; d++) {
    PetscReal am, ak;
    BrickEvenOddCreate(((DM_Brick *)dm->data)->degree + 1, ctx->M[d], &ctx->Meo[d], &am);
    BrickEvenOddCreate(((DM_Brick *)dm->data)->degree + 1, ctx->K[d], &ctx->Keo[d], &ak);
    PetscCheck(am < 1e-12 && ak < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the 1D mass and stiffness matrices are not centro-symmetric (relative asymmetry %g, %g)", (double)am, (double)ak);
  }
  {
    /* the work vectors or the GPU kernel now, in the set-up, not in the first product of a solve */
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(dm, &device));
    if (!device) PetscCall(BrickLaplaceWorkVectors(ctx));
#if defined(VP_HAVE_CUDA)
    else PetscCall(BrickLaplaceGPUCreate(dm, ctx->M, ctx->K, &ctx->gpu));
#endif
  }
  PetscCall(BrickShellCreate(dm, ctx, BrickLaplaceDestroy, MatMult_BrickLaplace, MatGetDiagonal_BrickLaplace, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Assembles the operator into A (preallocated for the DMDA box stencil, or any matrix of the right size). */
static PetscErrorCode BrickLaplaceAssemble(DM dm, Mat A)
{
  DM_Brick              *brick = (DM_Brick *)dm->data;
  const PetscInt         n = brick->degree + 1, nloc = brick->dim == 2 ? n * n : n * n * n;
  PetscReal              M[3][BRICK_MAX_N * BRICK_MAX_N], K[3][BRICK_MAX_N * BRICK_MAX_N];
  PetscScalar           *E;
  PetscInt               idx[729];
  ISLocalToGlobalMapping ltog;
  BrickBox               cells;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Assemble, dm, A, 0, 0));
  PetscCall(BrickLaplaceSetUp1D(dm, M, K));
  PetscCall(PetscMalloc1(nloc * nloc, &E));
  for (PetscInt i = 0; i < nloc; i++)
    for (PetscInt j = 0; j < nloc; j++) E[i * nloc + j] = BrickLaplaceEntry(brick->dim, n, M, K, i, j);
  PetscCall(DMBrickGetLocalToGlobal_Private(dm, &ltog));
  PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
  {
    PetscBool assembled;
    PetscCall(MatAssembled(A, &assembled));
    if (assembled) PetscCall(MatZeroEntries(A)); /* reassembly; a fresh (or preallocator) matrix is empty */
  }
  if (brick->forest)
    for (PetscInt c = 0; c < brick->forest->ncells; c++) {
      PetscCall(ISLocalToGlobalMappingApply(ltog, nloc, brick->forest->node + c * nloc, idx));
      PetscCall(MatSetValues(A, nloc, idx, nloc, idx, E, ADD_VALUES));
    }
  for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++) {
        const PetscInt cell[3] = {cx, cy, cz};
        PetscCall(BrickCellLocalIndices(dm, cell, idx));
        PetscCall(ISLocalToGlobalMappingApply(ltog, nloc, idx, idx));
        PetscCall(MatSetValues(A, nloc, idx, nloc, idx, E, ADD_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PetscFree(E));
  PetscCall(PetscLogEventEnd(DMBRICK_Assemble, dm, A, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Kronecker form sum_d M (x) .. (x) L_d (x) .. (x) M, for the vertex-patch smoother. */
static PetscErrorCode BrickLaplaceKronecker(DM dm, BrickKronForm *form, BrickLine lines[])
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(form, sizeof(*form)));
  form->nterms = brick->dim;
  for (PetscInt t = 0; t < brick->dim; t++) {
    form->coef[t] = 1.0;
    for (PetscInt d = 0; d < 3; d++) form->kind[t][d] = d == t ? BRICK_LINE_STIFFNESS : BRICK_LINE_MASS;
  }
  form->separable = BRICK_LINE_STIFFNESS;
  for (PetscInt d = 0; d < 3; d++) {
    if (d < brick->dim) PetscCall(BrickLineCreate(dm, d, PETSC_FALSE, &lines[d]));
    else PetscCall(PetscMemzero(&lines[d], sizeof(lines[d])));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -dm_brick_operator laplace: any degree, one layer of neighbour cells. */
PetscErrorCode DMBrickOperatorCreate_Laplace(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  brick->op.min_degree                = 1;
  brick->op.ghost_cells               = 1;
  brick->op.createshell               = BrickLaplaceCreateShell;
  brick->op.assemble                  = BrickLaplaceAssemble;
  brick->op.kronecker                 = BrickLaplaceKronecker;
  brick->op.describe = BrickLaplaceDescribe;
  brick->op.multiplicative_damping[2] = brick->op.multiplicative_damping[3] = 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
