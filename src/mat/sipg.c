/* The symmetric interior penalty (SIPG) DG Q_k Poisson operator on a brick [CK24, eq. 4-7]:

     a(u,v) = sum_K (grad u, grad v)_K + sum_F ( -<{du/dn}, [v]> - <[u], {dv/dn}> + sigma_F <[u], [v]> ),

   with jumps and averages on interior faces, u itself on boundary faces (weak homogeneous Dirichlet), and the
   penalty sigma_F = gamma k(k+1)/h_F on interior faces and 2 gamma k(k+1)/h_F on boundary faces (h_F: the cell width
   normal to the face; gamma = 1, or -dm_brick_sipg_penalty), the choice of deal.II's interior penalty examples. On the Cartesian mesh the operator is the Kronecker
   sum of 1D DG forms (a face normal to x integrates in y and z with the cell mass matrices), so everything is built
   from three (k+1) x (k+1) matrices per direction (BrickDGLine): the cell mass, the cell's block with itself
   (stiffness and its two faces), and the block with its upper neighbour. The product reads the face neighbours
   of each cell from the ghosted local vector. */
#include "brickelement.h"
#if defined(VP_HAVE_CUDA)
  #include <vpatch_cuda.h>
  #include <petscdevice_cuda.h>
#endif

/* The 1D SIPG form along direction d (see BrickDGLine). Reference quantities on [0,1]: phi_i(0) = delta_i0,
   phi_i(1) = delta_ik (Gauss-Lobatto nodes), derivatives at the ends from the basis. */
static PetscErrorCode BrickSIPGLineCreate(DM dm, PetscInt dir, BrickDGLine *line)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt k = brick->degree, n = k + 1;
  PetscReal      Mref[BRICK_MAX_N * BRICK_MAX_N], Lref[BRICK_MAX_N * BRICK_MAX_N], h[3], ends[2] = {0.0, 1.0}, val[2 * BRICK_MAX_N], der[2 * BRICK_MAX_N];
  PetscReal      e0[BRICK_MAX_N], e1[BRICK_MAX_N], d0[BRICK_MAX_N], d1[BRICK_MAX_N], sigma, sigmab;

  PetscFunctionBegin;
  PetscCall(DMBrickCellSize_Private(dm, h));
  PetscCall(BrickElementMatrices1D(k, brick->nodes, Mref, Lref));
  PetscCall(BrickBasisEvaluate(k, brick->nodes, 2, ends, val, der));
  for (PetscInt i = 0; i < n; i++) {
    e0[i] = val[i];
    e1[i] = val[n + i];
    d0[i] = der[i] / h[dir];
    d1[i] = der[n + i] / h[dir];
  }
  sigma  = brick->op.penalty * (PetscReal)(k * (k + 1)) / h[dir];
  sigmab = 2.0 * sigma;
  line->n = n;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      const PetscInt ij = i * n + j;
      /* the lower face of a cell: on the boundary (outer normal -x), or interior with the cell on its upper side */
      const PetscReal lowb = d0[j] * e0[i] + e0[j] * d0[i] + sigmab * e0[i] * e0[j];
      const PetscReal lowi = 0.5 * (d0[j] * e0[i] + e0[j] * d0[i]) + sigma * e0[i] * e0[j];
      /* the upper face: on the boundary (outer normal +x), or interior with the cell on its lower side */
      const PetscReal upb = -d1[j] * e1[i] - e1[j] * d1[i] + sigmab * e1[i] * e1[j];
      const PetscReal upi = -0.5 * (d1[j] * e1[i] + e1[j] * d1[i]) + sigma * e1[i] * e1[j];
      const PetscReal K   = Lref[ij] / h[dir];
      line->mass[ij]      = h[dir] * Mref[ij];
      line->diag[0][ij]   = K + lowi + upi;
      line->diag[1][ij]   = K + lowb + upi;
      line->diag[2][ij]   = K + lowi + upb;
      line->diag[3][ij]   = K + lowb + upb;
      line->lowerface[ij] = lowi;
      line->upperface[ij] = upi;
      /* test function in the lower cell (value and derivative at its x = 1), trial in the upper cell (at its x = 0) */
      line->upper[ij] = -0.5 * e1[i] * d0[j] + 0.5 * d1[i] * e0[j] - sigma * e1[i] * e0[j];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  DM          dm;
  Vec         xl; /* local (ghosted by one cell) copy of the input */
  BrickDGLine line[3];
  PetscReal   lowerT[3][BRICK_MAX_N * BRICK_MAX_N]; /* the block with the lower neighbour: upper^T */
  void       *gpu;                                  /* the CUDA operator (VP_HAVE_CUDA: VPCudaDG), made with the shell when the brick's vectors are device vectors */
} BrickSIPG;

/* the block of direction d coupling cell c (rows) to cell c + o (o = -1, 0, 1) */
static inline const PetscReal *BrickSIPGBlock(const BrickSIPG *ctx, const DM_Brick *brick, PetscInt d, PetscInt c, PetscInt o)
{
  if (o > 0) return ctx->line[d].upper;
  if (o < 0) return ctx->lowerT[d];
  return ctx->line[d].diag[(c == 0) + 2 * (c == brick->cells[d] - 1)];
}

#if defined(VP_HAVE_CUDA)
/* the CUDA operator: per direction the 1D blocks (mass, the four diagonal variants, upper, lower) of the ghosted box */
static PetscErrorCode BrickSIPGGPUCreate(BrickSIPG *ctx)
{
  DM_Brick      *brick = (DM_Brick *)ctx->dm->data;
  const PetscInt nn    = (brick->degree + 1) * (brick->degree + 1);
  double        *line;
  int            grid[3], c0[3], cells[3], err;
  VPCudaBox      box;
  VPCudaDG       op;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(3 * 7 * nn, &line));
  for (PetscInt d = 0; d < brick->dim; d++) {
    double *L = line + d * 7 * nn;
    for (PetscInt i = 0; i < nn; i++) {
      L[i] = ctx->line[d].mass[i];
      for (PetscInt c = 0; c < 4; c++) L[(1 + c) * nn + i] = ctx->line[d].diag[c][i];
      L[5 * nn + i] = ctx->line[d].upper[i];
      L[6 * nn + i] = ctx->lowerT[d][i];
    }
  }
  if (brick->forest) {
    /* a forest: the cells through the face table (the cell kernel reads each neighbour where it is in the local array) */
    const BrickForest *f = brick->forest;
    int               *face;
    PetscCall(PetscMalloc1(2 * f->dim * f->ncells + 1, &face));
    for (PetscInt i = 0; i < 2 * f->dim * f->ncells; i++) face[i] = (int)f->face[i];
    err = VPCudaDGCreateForest((int)brick->dim, (int)brick->degree, (int)f->ncells, face, line, &op);
    PetscCall(PetscFree(face));
  } else {
    for (PetscInt d = 0; d < 3; d++) {
      grid[d]   = (int)brick->cells[d];
      c0[d]     = (int)brick->cstart[d];
      cells[d]  = (int)(brick->cend[d] - brick->cstart[d]);
      box.n[d]  = grid[d];
      box.lo[d] = (int)brick->gstart[d];
      box.m[d]  = (int)brick->gwidth[d];
    }
    err = VPCudaDGCreate((int)brick->dim, (int)brick->degree, grid, c0, cells, &box, line, &op);
  }
  PetscCall(PetscFree(line));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaDGCreate: %s", VPCudaErrorString(err));
  ctx->gpu = op;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The GPU product (cuda/vpdg.cu): one thread block per owned cell reads the cell and its face neighbours from the
   ghosted local array (the global one on a single active rank, where the two coincide) and writes its owned values. */
static PetscErrorCode BrickSIPGGPUMult(BrickSIPG *ctx, Vec x, Vec y)
{
  DM_Brick          *brick = (DM_Brick *)ctx->dm->data;
  const PetscInt     n     = brick->degree + 1;
  Vec                in    = x;
  const PetscScalar *xa;
  PetscScalar       *ya;
  VPCudaDG           op;
  int                err;

  PetscFunctionBegin;
  if (!ctx->gpu) PetscCall(BrickSIPGGPUCreate(ctx));
  op = (VPCudaDG)ctx->gpu;
  if (brick->forest) {
    if (brick->nactive > 1) { /* several ranks (collective on all of them): the local vector with the ghost cells */
      PetscCall(DMGlobalToLocal(ctx->dm, x, INSERT_VALUES, ctx->xl));
      in = ctx->xl;
    }
  } else if (brick->nactive > 1) {
    PetscCall(DMBrickGlobalToLocalMirror_Private(ctx->dm, x, ctx->xl, &in)); /* x's in-place local (-dm_brick_slabs) or ctx->xl */
  }
  PetscCall(VecCUDAGetArrayRead(in, &xa));
  PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaDGApply(op, brick->precision == DMBRICK_PRECISION_SINGLE, xa, ya);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the DG operator: %s", VPCudaErrorString(err));
  PetscCall(VecCUDARestoreArrayRead(in, &xa));
  PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  {
    BrickBox cells;
    PetscCall(DMBrickOwnedCellBox_Private(ctx->dm, &cells));
    PetscCall(PetscLogGpuFlops(2.0 * n * brick->dof * brick->dim * (3 + brick->dim - 1) * (brick->forest ? brick->forest->ncells : PetscMax(BrickBoxSize(&cells), 0))));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* y_c = sum_d (the blocks along d of the cell and its two neighbours applied to their values) times the masses across:
   diag[d] the cell's block along d, nb[2 d] / nb[2 d + 1] the values of its lower / upper neighbour along d (NULL on the
   boundary). The box's cells and the forest's (BrickSIPGCellForest) both come here. */
static void BrickSIPGCellApply(const BrickSIPG *ctx, const DM_Brick *brick, const PetscReal *const diag[], const PetscScalar *xc, const PetscScalar *const nb[], PetscScalar *yc, PetscScalar work[])
{
  const PetscInt n = brick->degree + 1, ext[3] = {n, n, brick->dim == 3 ? n : 1}, nloc = brick->dof;
  PetscScalar   *t = work, *s = work + nloc, *w = work + 2 * nloc;

  for (PetscInt i = 0; i < nloc; i++) yc[i] = 0.0;
  for (PetscInt d = 0; d < brick->dim; d++) {
    BrickTensorApply1D(d, ext, n, diag[d], xc, t);
    for (PetscInt side = 0; side < 2; side++) {
      if (!nb[2 * d + side]) continue;
      BrickTensorApply1D(d, ext, n, side ? ctx->line[d].upper : ctx->lowerT[d], nb[2 * d + side], s);
      for (PetscInt i = 0; i < nloc; i++) t[i] += s[i];
    }
    for (PetscInt e = 0; e < brick->dim; e++) {
      if (e == d) continue;
      BrickTensorApply1D(e, ext, n, ctx->line[e].mass, t, w);
      for (PetscInt i = 0; i < nloc; i++) t[i] = w[i];
    }
    for (PetscInt i = 0; i < nloc; i++) yc[i] += t[i];
  }
}

/* the box's cell c, whose values start at xc (neighbours at xc +- gs[d], gs in values) */
static void BrickSIPGCell(const BrickSIPG *ctx, const DM_Brick *brick, const PetscInt c[], const PetscScalar *xc, const PetscInt gs[], PetscScalar *yc, PetscScalar work[])
{
  const PetscReal   *diag[3] = {NULL, NULL, NULL};
  const PetscScalar *nb[6]   = {NULL, NULL, NULL, NULL, NULL, NULL};

  for (PetscInt d = 0; d < brick->dim; d++) {
    diag[d]       = BrickSIPGBlock(ctx, brick, d, c[d], 0);
    nb[2 * d]     = c[d] > 0 ? xc - gs[d] : NULL;
    nb[2 * d + 1] = c[d] < brick->cells[d] - 1 ? xc + gs[d] : NULL;
  }
  BrickSIPGCellApply(ctx, brick, diag, xc, nb, yc, work);
}

/* value i of lane l's cell (its values from x[l]) into lane l */
static inline void BrickSIPGGather(PetscInt nloc, const PetscScalar *const x[], BrickLaneD u[])
{
  double *us = (double *)u;
  for (PetscInt l = 0; l < BRICK_LANES_D; l++)
    for (PetscInt i = 0; i < nloc; i++) us[i * BRICK_LANES_D + l] = x[l][i];
}

/* BrickSIPGCellApply on BRICK_LANES_D cells at once that have the same blocks (diag) and neighbours on the same faces
   (lane l: its values xc[l], its neighbours' nb[l][f], its output yc[l]); every lane does the one-cell operations in
   the same order */
static void BrickSIPGCellLanesApply(const BrickSIPG *ctx, const DM_Brick *brick, const PetscReal *const diag[], const PetscScalar *const xc[], const PetscScalar *const nb[][6], PetscScalar *const yc[], BrickLaneD work[])
{
  const PetscInt n = brick->degree + 1, ext[3] = {n, n, brick->dim == 3 ? n : 1}, nloc = brick->dof;
  BrickLaneD    *u = work, *t = work + nloc, *s = work + 2 * nloc, *w = work + 3 * nloc, *y = work + 4 * nloc;

  BrickSIPGGather(nloc, xc, u);
  for (PetscInt i = 0; i < nloc; i++) y[i] = (BrickLaneD){0};
  for (PetscInt d = 0; d < brick->dim; d++) {
    BrickLaneApply1D(d, ext, n, 0, n, diag[d], u, t);
    for (PetscInt side = 0; side < 2; side++) {
      const PetscScalar *x[BRICK_LANES_D];
      if (!nb[0][2 * d + side]) continue;
      for (PetscInt l = 0; l < BRICK_LANES_D; l++) x[l] = nb[l][2 * d + side];
      BrickSIPGGather(nloc, x, w);
      BrickLaneApply1D(d, ext, n, 0, n, side ? ctx->line[d].upper : ctx->lowerT[d], w, s);
      for (PetscInt i = 0; i < nloc; i++) t[i] += s[i];
    }
    for (PetscInt e = 0; e < brick->dim; e++) {
      if (e == d) continue;
      BrickLaneApply1D(e, ext, n, 0, n, ctx->line[e].mass, t, w);
      for (PetscInt i = 0; i < nloc; i++) t[i] = w[i];
    }
    for (PetscInt i = 0; i < nloc; i++) y[i] += t[i];
  }
  {
    const double *ys = (const double *)y;
    for (PetscInt l = 0; l < BRICK_LANES_D; l++)
      for (PetscInt i = 0; i < nloc; i++) yc[l][i] = ys[i * BRICK_LANES_D + l];
  }
}

/* BRICK_LANES_D cells of a box row from cell c on, none on the boundary along x (so that all lanes have the same blocks
   and neighbours): they follow each other along x, nloc values apart */
static void BrickSIPGCellLanes(const BrickSIPG *ctx, const DM_Brick *brick, const PetscInt c[], const PetscScalar *xc, const PetscInt gs[], PetscScalar *yc, BrickLaneD work[])
{
  const PetscInt     nloc    = brick->dof;
  const PetscReal   *diag[3] = {NULL, NULL, NULL};
  const PetscScalar *x[BRICK_LANES_D], *nb[BRICK_LANES_D][6];
  PetscScalar       *y[BRICK_LANES_D];

  for (PetscInt d = 0; d < brick->dim; d++) diag[d] = BrickSIPGBlock(ctx, brick, d, c[d], 0);
  for (PetscInt l = 0; l < BRICK_LANES_D; l++) {
    x[l] = xc + l * nloc;
    y[l] = yc + l * nloc;
    for (PetscInt d = 0; d < brick->dim; d++) {
      nb[l][2 * d]     = c[d] > 0 ? x[l] - gs[d] : NULL;
      nb[l][2 * d + 1] = c[d] < brick->cells[d] - 1 ? x[l] + gs[d] : NULL;
    }
  }
  BrickSIPGCellLanesApply(ctx, brick, diag, x, nb, y, work);
}

/* Forest levels (brickforest.c): a cell's face neighbours come from the forest's face table (-1: a boundary face, the
   domain's, a removed cell's or a hole's), and its diagonal block along d takes the variant of its two faces there. */
static inline PetscInt BrickSIPGForestVariant(const BrickForest *f, PetscInt c, PetscInt d)
{
  return (f->face[2 * f->dim * c + 2 * d] < 0) + 2 * (f->face[2 * f->dim * c + 2 * d + 1] < 0);
}

/* the 1D block along d of rows in cell c: side -1 its own (diagonal), 0 with its lower neighbour, 1 with its upper one */
static inline const PetscReal *BrickSIPGForestBlock(const BrickSIPG *ctx, const BrickForest *f, PetscInt c, PetscInt d, PetscInt side)
{
  return side < 0 ? ctx->line[d].diag[BrickSIPGForestVariant(f, c, d)] : side ? ctx->line[d].upper : ctx->lowerT[d];
}

/* y_c of the rank's cell c from the local array xl (cells and ghosts, nloc values each) */
static void BrickSIPGCellForest(const BrickSIPG *ctx, const DM_Brick *brick, PetscInt c, const PetscScalar *xl, PetscScalar *yc, PetscScalar work[])
{
  const BrickForest *f       = brick->forest;
  const PetscReal   *diag[3] = {NULL, NULL, NULL};
  const PetscScalar *nb[6]   = {NULL, NULL, NULL, NULL, NULL, NULL};

  for (PetscInt d = 0; d < brick->dim; d++) {
    diag[d] = BrickSIPGForestBlock(ctx, f, c, d, -1);
    for (PetscInt side = 0; side < 2; side++) {
      const PetscInt cn = f->face[2 * f->dim * c + 2 * d + side];
      nb[2 * d + side]  = cn < 0 ? NULL : xl + cn * brick->dof;
    }
  }
  BrickSIPGCellApply(ctx, brick, diag, xl + c * brick->dof, nb, yc, work);
}

/* entry (i, j) of the block of cell c's rows with its own values (side -1) or those of its neighbour across face
   (d, side) */
static PetscReal BrickSIPGForestEntry(const BrickSIPG *ctx, const DM_Brick *brick, PetscInt c, PetscInt dnb, PetscInt side, PetscInt i, PetscInt j)
{
  const PetscInt n = brick->degree + 1, ii[3] = {i % n, (i / n) % n, i / (n * n)}, jj[3] = {j % n, (j / n) % n, j / (n * n)};
  PetscReal      sum = 0.0;

  for (PetscInt d = 0; d < brick->dim; d++) {
    PetscReal p = 1.0;
    if (side >= 0 && d != dnb) continue; /* a face neighbour couples only through its direction's term */
    for (PetscInt e = 0; e < brick->dim; e++) p *= (e == d ? BrickSIPGForestBlock(ctx, brick->forest, c, d, side) : ctx->line[e].mass)[ii[e] * n + jj[e]];
    sum += p;
  }
  return sum;
}

/* the forest product: the ghost cells' values first (on one rank the global vector is the local one), then each rank's
   cell writes its own values */
static PetscErrorCode BrickSIPGMultForest(BrickSIPG *ctx, Vec x, Vec y)
{
  DM_Brick          *brick = (DM_Brick *)ctx->dm->data;
  const BrickForest *f     = brick->forest;
  const PetscInt     nloc  = brick->dof;
  const PetscScalar *xl;
  PetscScalar       *ya;
  Vec                in = x;

  PetscFunctionBegin;
  if (brick->nactive > 1) { /* several ranks (collective on all of them): the local vector with the ghost cells */
    PetscCall(DMGlobalToLocal(ctx->dm, x, INSERT_VALUES, ctx->xl));
    in = ctx->xl;
  }
  PetscCall(VecGetArrayRead(in, &xl));
  PetscCall(VecGetArrayWrite(y, &ya));
#if defined(_OPENMP)
  #pragma omp parallel for num_threads(brick->threads) schedule(static) if (brick->threads > 1)
#endif
  for (PetscInt g = 0; g < (f->ncells + BRICK_LANES_D - 1) / BRICK_LANES_D; g++) {
    /* a group of BRICK_LANES_D consecutive cells with no boundary face runs in SIMD lanes (-dm_brick_simd), the others
       one by one; neither changes a digit */
    const PetscInt c0 = g * BRICK_LANES_D, c1 = PetscMin(c0 + BRICK_LANES_D, f->ncells);
    PetscBool      inner = (PetscBool)(brick->simd && c1 - c0 == BRICK_LANES_D);
    for (PetscInt i = 2 * f->dim * c0; i < 2 * f->dim * c1 && inner; i++) inner = (PetscBool)(f->face[i] >= 0);
    if (inner) {
      const PetscReal   *diag[3] = {NULL, NULL, NULL};
      const PetscScalar *x[BRICK_LANES_D], *nb[BRICK_LANES_D][6];
      PetscScalar       *y[BRICK_LANES_D];
      BrickLaneD         work[5 * 729];
      for (PetscInt d = 0; d < brick->dim; d++) diag[d] = ctx->line[d].diag[0];
      for (PetscInt l = 0; l < BRICK_LANES_D; l++) {
        x[l] = xl + (c0 + l) * nloc;
        y[l] = ya + (c0 + l) * nloc;
        for (PetscInt e = 0; e < 2 * f->dim; e++) nb[l][e] = xl + f->face[2 * f->dim * (c0 + l) + e] * nloc;
      }
      BrickSIPGCellLanesApply(ctx, brick, diag, x, nb, y, work);
    } else
      for (PetscInt c = c0; c < c1; c++) {
        PetscScalar work[3 * 729];
        BrickSIPGCellForest(ctx, brick, c, xl, ya + c * nloc, work);
      }
  }
  PetscCall(VecRestoreArrayRead(in, &xl));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(PetscLogFlops(2.0 * (brick->degree + 1) * nloc * brick->dim * (3 + brick->dim - 1) * f->ncells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host product: each owned cell writes its own values, so the rows of cells run on -dm_brick_threads threads, and
   (-dm_brick_simd) the cells of a row not on the boundary along x in SIMD groups; neither changes a digit. */
static PetscErrorCode MatMult_BrickSIPG(Mat A, Vec x, Vec y)
{
  BrickSIPG         *ctx;
  DM_Brick          *brick;
  const PetscScalar *xl;
  PetscScalar       *ya;
  BrickBox           cells;
  PetscInt           n, ncells;
  Vec                xin;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickVecsOnDevice_Private(x, y, &device));
    if (device) {
      PetscCall(BrickSIPGGPUMult(ctx, x, y));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  brick = (DM_Brick *)ctx->dm->data;
  if (brick->forest) {
    PetscCall(BrickSIPGMultForest(ctx, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  n     = brick->degree + 1;
  PetscCall(DMBrickOwnedCellBox_Private(ctx->dm, &cells));
  ncells = PetscMax(BrickBoxSize(&cells), 0);
  PetscCall(DMBrickGlobalToLocalMirror_Private(ctx->dm, x, ctx->xl, &xin)); /* x's in-place local (-dm_brick_slabs) or ctx->xl */
  PetscCall(VecGetArrayRead(xin, &xl));
  PetscCall(VecGetArrayWrite(y, &ya));
  if (ncells > 0) {
    const PetscInt nloc = brick->dof, nx = cells.hi[0] - cells.lo[0] + 1, ny = cells.hi[1] - cells.lo[1] + 1, nrows = ny * (cells.hi[2] - cells.lo[2] + 1);
    const PetscInt gs[3] = {nloc, brick->gwidth[0] * nloc, brick->gwidth[0] * brick->gwidth[1] * nloc};
#if defined(_OPENMP)
  #pragma omp parallel for num_threads(brick->threads) schedule(static) if (brick->threads > 1)
#endif
    for (PetscInt row = 0; row < nrows; row++) {
      const PetscInt     cy = cells.lo[1] + row % ny, cz = cells.lo[2] + row / ny;
      const PetscScalar *xr = xl + (cells.lo[0] - brick->gstart[0]) * gs[0] + (cy - brick->gstart[1]) * gs[1] + (cz - brick->gstart[2]) * gs[2];
      PetscScalar       *yr = ya + row * nx * nloc;
      PetscInt           cx = cells.lo[0];
      while (cx <= cells.hi[0]) {
        const PetscInt c[3] = {cx, cy, cz}, last = cx + BRICK_LANES_D - 1;
        if (brick->simd && cx > 0 && last < brick->cells[0] - 1 && last <= cells.hi[0]) {
          BrickLaneD work[5 * 729];
          BrickSIPGCellLanes(ctx, brick, c, xr + (cx - cells.lo[0]) * nloc, gs, yr + (cx - cells.lo[0]) * nloc, work);
          cx += BRICK_LANES_D;
        } else {
          PetscScalar work[3 * 729];
          BrickSIPGCell(ctx, brick, c, xr + (cx - cells.lo[0]) * nloc, gs, yr + (cx - cells.lo[0]) * nloc, work);
          cx++;
        }
      }
    }
  }
  PetscCall(VecRestoreArrayRead(xin, &xl));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  /* per direction: three 1D blocks and dim-1 masses, 2 n flops per value each */
  PetscCall(PetscLogFlops(2.0 * n * brick->dof * brick->dim * (3 + brick->dim - 1) * ncells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry (i, j) of the block coupling a cell to its neighbour o[] (at most one direction nonzero; all zero: itself),
   for a cell whose position along each direction is c[]. */
static PetscReal BrickSIPGEntry(const BrickSIPG *ctx, const DM_Brick *brick, const PetscInt c[], const PetscInt o[], PetscInt i, PetscInt j)
{
  const PetscInt n = brick->degree + 1, ii[3] = {i % n, (i / n) % n, i / (n * n)}, jj[3] = {j % n, (j / n) % n, j / (n * n)};
  PetscReal      sum = 0.0;

  for (PetscInt d = 0; d < brick->dim; d++) {
    PetscReal p = 1.0;
    PetscBool other = PETSC_FALSE;
    for (PetscInt e = 0; e < brick->dim; e++)
      if (e != d && o[e]) other = PETSC_TRUE;
    if (other) continue; /* a neighbour along another direction couples only through that direction's term */
    for (PetscInt e = 0; e < brick->dim; e++) p *= (e == d ? BrickSIPGBlock(ctx, brick, d, c[d], o[d]) : ctx->line[e].mass)[ii[e] * n + jj[e]];
    sum += p;
  }
  return sum;
}

static PetscErrorCode MatGetDiagonal_BrickSIPG(Mat A, Vec diag)
{
  BrickSIPG   *ctx;
  DM_Brick    *brick;
  PetscScalar *da;
  BrickBox     cells;
  PetscInt     b = 0;
  PetscBool    device;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  brick = (DM_Brick *)ctx->dm->data;
  PetscCall(DMBrickOwnedCellBox_Private(ctx->dm, &cells));
  PetscCall(DMBrickVecsOnDevice_Private(diag, NULL, &device));
  /* the owned entries in a host array: the vector's own (host vectors), or a buffer copied to the device once (setup work) */
  if (device) {
    PetscInt n;
    PetscCall(VecGetLocalSize(diag, &n));
    PetscCall(PetscMalloc1(n, &da));
  } else PetscCall(VecGetArrayWrite(diag, &da));
  if (brick->forest)
    for (PetscInt c = 0; c < brick->forest->ncells; c++)
      for (PetscInt i = 0; i < brick->dof; i++, b++) da[b] = BrickSIPGForestEntry(ctx, brick, c, -1, -1, i, i);
  for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++) {
        const PetscInt c[3] = {cx, cy, cz}, o[3] = {0, 0, 0};
        for (PetscInt i = 0; i < brick->dof; i++, b++) da[b] = BrickSIPGEntry(ctx, brick, c, o, i, i);
      }
  if (!device) {
    PetscCall(VecRestoreArrayWrite(diag, &da));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(VP_HAVE_CUDA)
  {
    PetscScalar *dd;
    int          err;
    PetscCall(VecCUDAGetArrayWrite(diag, &dd));
    err = VPCudaCopyToDevice(dd, da, (size_t)b);
    PetscCall(VecCUDARestoreArrayWrite(diag, &dd));
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error copying the DG diagonal: %s", VPCudaErrorString(err));
  }
#endif
  PetscCall(PetscFree(da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickSIPGDescribe(DM dm, char line[], size_t len)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(line, len, "DG Q%" PetscInt_FMT " in %" PetscInt_FMT "D, level %" PetscInt_FMT ", penalty %g k(k+1)/h (twice that on the boundary), matrix-free (sum factorization, cell and face terms)", brick->degree, brick->dim, brick->level,
                          (double)brick->op.penalty));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickSIPGDestroy(void *ptr)
{
  BrickSIPG *ctx = (BrickSIPG *)ptr;

  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    VPCudaDG op  = (VPCudaDG)ctx->gpu;
    int      err = VPCudaDGDestroy(&op);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaDGDestroy: %s", VPCudaErrorString(err));
  }
#endif
  PetscCall(VecDestroy(&ctx->xl));
  PetscCall(DMDestroy(&ctx->dm));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickSIPGSetUp(DM dm, BrickSIPG *ctx)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < brick->dim; d++) {
    const PetscInt n = brick->degree + 1;
    PetscCall(BrickSIPGLineCreate(dm, d, &ctx->line[d]));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) ctx->lowerT[d][i * n + j] = ctx->line[d].upper[j * n + i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickSIPGCreateShell(DM dm, Mat *A)
{
  BrickSIPG *ctx;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  PetscCall(PetscObjectReference((PetscObject)dm));
  ctx->dm = dm;
  PetscCall(BrickSIPGSetUp(dm, ctx));
  PetscCall(DMCreateLocalVector(dm, &ctx->xl));
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(dm, &device));
    if (device) { /* in the set-up, not the first product (VECCUDA allocates device memory at first use) */
      PetscCall(BrickSIPGGPUCreate(ctx));
      PetscCall(VecZeroEntries(ctx->xl));
    }
  }
#endif
  PetscCall(BrickShellCreate(dm, ctx, BrickSIPGDestroy, MatMult_BrickSIPG, MatGetDiagonal_BrickSIPG, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the forest's blocks: each rank's cell with itself and its face neighbours (added: on a periodic direction of two cells
   both faces lead to the same neighbour) */
static PetscErrorCode BrickSIPGAssembleForest(const BrickSIPG *ctx, const DM_Brick *brick, Mat A, PetscScalar *E)
{
  const BrickForest *f = brick->forest;
  const PetscInt     nloc = brick->dof;
  PetscInt           rows[729], cols[729];

  PetscFunctionBegin;
  for (PetscInt c = 0; c < f->ncells; c++) {
    for (PetscInt i = 0; i < nloc; i++) rows[i] = f->rstart + c * nloc + i;
    for (PetscInt e = -1; e < 2 * brick->dim; e++) {
      const PetscInt nb = e < 0 ? c : f->face[2 * brick->dim * c + e];
      if (nb < 0) continue;
      for (PetscInt j = 0; j < nloc; j++) cols[j] = nb * nloc + j;
      PetscCall(ISLocalToGlobalMappingApply(brick->ltog, nloc, cols, cols));
      for (PetscInt i = 0; i < nloc; i++)
        for (PetscInt j = 0; j < nloc; j++) E[i * nloc + j] = BrickSIPGForestEntry(ctx, brick, c, e < 0 ? -1 : e / 2, e < 0 ? -1 : e % 2, i, j);
      PetscCall(MatSetValues(A, nloc, rows, nloc, cols, E, ADD_VALUES));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Assembles the operator: per owned cell, its block with itself and with each face neighbour. */
static PetscErrorCode BrickSIPGAssemble(DM dm, Mat A)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  BrickSIPG   ctx;
  BrickBox    cells;
  PetscInt    rows[729], cols[729];
  PetscScalar *E;
  PetscBool   assembled;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Assemble, dm, A, 0, 0));
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  PetscCall(BrickSIPGSetUp(dm, &ctx));
  PetscCall(PetscMalloc1(brick->dof * brick->dof, &E));
  PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
  PetscCall(MatAssembled(A, &assembled));
  if (assembled) PetscCall(MatZeroEntries(A));
  if (brick->forest) PetscCall(BrickSIPGAssembleForest(&ctx, brick, A, E));
  for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++) {
        const PetscInt c[3] = {cx, cy, cz}, row0 = DMBrickCellGlobalIndex_Private(brick, c);
        for (PetscInt i = 0; i < brick->dof; i++) rows[i] = row0 + i;
        for (PetscInt nb = 0; nb < 2 * brick->dim + 1; nb++) {
          PetscInt o[3] = {0, 0, 0}, cn[3] = {cx, cy, cz}, col0;
          if (nb) {
            o[(nb - 1) / 2] = (nb % 2) ? -1 : 1;
            cn[(nb - 1) / 2] += o[(nb - 1) / 2];
            if (cn[(nb - 1) / 2] < 0 || cn[(nb - 1) / 2] >= brick->cells[(nb - 1) / 2]) continue;
          }
          col0 = DMBrickCellGlobalIndex_Private(brick, cn);
          for (PetscInt j = 0; j < brick->dof; j++) cols[j] = col0 + j;
          for (PetscInt i = 0; i < brick->dof; i++)
            for (PetscInt j = 0; j < brick->dof; j++) E[i * brick->dof + j] = BrickSIPGEntry(&ctx, brick, c, o, i, j);
          PetscCall(MatSetValues(A, brick->dof, rows, brick->dof, cols, E, INSERT_VALUES));
        }
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PetscFree(E));
  PetscCall(PetscLogEventEnd(DMBRICK_Assemble, dm, A, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -dm_brick_operator sipg: DG Q_k, any degree, the face neighbours of a cell. */
PetscErrorCode DMBrickOperatorCreate_SIPG(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  brick->op.dg          = PETSC_TRUE;
  brick->op.min_degree  = 1;
  brick->op.ghost_cells = 1;
  brick->op.createshell = BrickSIPGCreateShell;
  brick->op.assemble    = BrickSIPGAssemble;
  brick->op.dgline      = BrickSIPGLineCreate;
  brick->op.describe = BrickSIPGDescribe;
  brick->op.penalty     = 1.0;
  {
    const char *prefix;
    PetscBool   set;
    PetscCall(PetscObjectGetOptionsPrefix((PetscObject)dm, &prefix));
    PetscCall(PetscOptionsGetReal(((PetscObject)dm)->options, prefix, "-dm_brick_sipg_penalty", &brick->op.penalty, &set));
    PetscCheck(brick->op.penalty >= 1.0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_sipg_penalty %g: the penalty factor must be at least 1 (sigma = factor k(k+1)/h; coercivity)", (double)brick->op.penalty);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
