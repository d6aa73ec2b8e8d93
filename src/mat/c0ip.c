/* The C0 interior penalty (C0IP) biharmonic operator on a brick (seed 000, eq. 8), CG Q_k with k >= 2 and
   clamped boundary conditions: u = 0 strongly (the brick's unknowns are the interior nodes) and du/dn = 0
   weakly through the boundary faces.

     a(u,v) = sum_K (D^2 u, D^2 v)_K + sum_e ( sigma_e [d_n u][d_n v] - {d_nn u}[d_n v] - [d_n u]{d_nn v} )_e

   On the brick's Cartesian mesh the cell integrals are sum_d H_d (x) M (x) M + 2 sum_{d<e} L_d (x) L_e (x) M,
   and the faces normal to d add a 1D face term times the tangential masses. Collecting per direction,
   with B_d = (1D cell H/h^3 plus the 1D face terms) over the whole 1D grid (brickline.c),

     2D: A = B_x (x) M_y + 2 L_x (x) L_y + M_x (x) B_y                                       (seed 000, eq. 23)
     3D: A = B M M + M B M + M M B + 2 (L L M + M L L + L M L)                                 (eq. 25)

   which the shell applies by banded sum factorization on the owned nodes, reading 2 cells of ghosts. */
#include "brickelement.h"

typedef struct {
  DM            dm;
  BrickKronForm form;
  BrickLine     lines[3];
  Vec           xl;         /* local (ghosted) copy of the input */
  BrickBox      ibox, obox; /* nodes read (owned plus two cells, inside the grid) and owned nodes */
  PetscScalar  *in, *out, *work;
  void         *gpu; /* the GPU copy of the Kronecker form (VP_HAVE_CUDA), made with the shell when the brick's vectors are device vectors */
} BrickC0IP;

static PetscErrorCode BrickC0IPKronecker(DM dm, BrickKronForm *form, BrickLine lines[])
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  PetscInt  t     = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(form, sizeof(*form)));
  for (PetscInt d = 0; d < brick->dim; d++) {
    form->coef[t] = 1.0;
    for (PetscInt e = 0; e < 3; e++) form->kind[t][e] = e == d ? BRICK_LINE_BIHARMONIC : BRICK_LINE_MASS;
    t++;
  }
  for (PetscInt d = 0; d < brick->dim; d++)
    for (PetscInt e = d + 1; e < brick->dim; e++) {
      form->coef[t] = 2.0;
      for (PetscInt c = 0; c < 3; c++) form->kind[t][c] = (c == d || c == e) ? BRICK_LINE_STIFFNESS : BRICK_LINE_MASS;
      t++;
    }
  form->nterms    = t;
  form->separable = BRICK_LINE_BIHARMONIC;
  for (PetscInt d = 0; d < 3; d++) {
    if (d < brick->dim) PetscCall(BrickLineCreate(dm, d, PETSC_TRUE, &lines[d]));
    else PetscCall(PetscMemzero(&lines[d], sizeof(lines[d])));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_BrickC0IP(Mat A, Vec x, Vec y)
{
  BrickC0IP         *ctx;
  const PetscScalar *xl;
  PetscScalar       *ya;
  DM_Brick          *brick;
  Vec                xin;
  PetscBool          gpu;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  brick = (DM_Brick *)ctx->dm->data;
  PetscCall(DMBrickVecsOnDevice_Private(x, y, &gpu));
#if defined(VP_HAVE_CUDA)
  if (gpu) {
    if (!ctx->gpu) PetscCall(BrickKronGPUCreate(ctx->dm, &ctx->form, ctx->lines, &ctx->gpu));
    PetscCall(BrickKronGPUMult(ctx->dm, ctx->gpu, (PetscBool)(brick->precision == DMBRICK_PRECISION_SINGLE), x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(DMBrickGlobalToLocalMirror_Private(ctx->dm, x, ctx->xl, &xin)); /* x's in-place local (-dm_brick_slabs) or ctx->xl */
  PetscCall(VecGetArrayRead(xin, &xl));
  PetscCall(DMBrickLocalToBox_Private(ctx->dm, xl, &ctx->ibox, ctx->in));
  PetscCall(VecRestoreArrayRead(xin, &xl));
  PetscCall(BrickKronApplyBox(brick->dim, &ctx->form, ctx->lines, &ctx->ibox, ctx->in, &ctx->obox, ctx->out, ctx->work, brick->threads));
  PetscCall(VecGetArray(y, &ya));
  PetscCall(DMBrickBoxToGlobal_Private(ctx->dm, &ctx->obox, ctx->out, ya));
  PetscCall(VecRestoreArray(y, &ya));
  {
    /* band contractions: about (4k+1) multiply-adds per point and direction for B, (2k+1) for M and L */
    const PetscLogDouble k = brick->degree, pts = (PetscLogDouble)BrickBoxSize(&ctx->obox);
    PetscCall(PetscLogFlops(2.0 * pts * ctx->form.nterms * brick->dim * (3 * k + 1)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_BrickC0IP(Mat A, Vec diag)
{
  BrickC0IP   *ctx;
  DM_Brick    *brick;
  PetscScalar *da;
  PetscInt     p    = 0;
  PetscBool    done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  brick = (DM_Brick *)ctx->dm->data;
  PetscCall(BrickTryGPUDiagonal(ctx->dm, diag, &done));
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt z = ctx->obox.lo[2]; z <= ctx->obox.hi[2]; z++)
    for (PetscInt y = ctx->obox.lo[1]; y <= ctx->obox.hi[1]; y++)
      for (PetscInt x = ctx->obox.lo[0]; x <= ctx->obox.hi[0]; x++, p++) {
        const PetscInt f[3] = {x, y, z};
        ctx->out[p]         = BrickKronEntry(brick->dim, &ctx->form, ctx->lines, f, f);
      }
  PetscCall(VecGetArray(diag, &da));
  PetscCall(DMBrickBoxToGlobal_Private(ctx->dm, &ctx->obox, ctx->out, da));
  PetscCall(VecRestoreArray(diag, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickC0IPDescribe(DM dm, char line[], size_t len)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  /* sum_d B_d (x) M .. + 2 sum_{d<e} L_d (x) L_e (x) M: d + d(d-1)/2 Kronecker terms */
  if (brick->forest) PetscCall(PetscSNPrintf(line, len, "C0 interior penalty biharmonic, CG Q%" PetscInt_FMT " in %" PetscInt_FMT "D, level %" PetscInt_FMT ", penalty gamma = k(k+1) = %g (2 gamma on boundary faces, removed cells' included), matrix-free on the forest: cell terms and face terms by sum factorization (c0ipforest.c)", brick->degree, brick->dim, brick->level, (double)BrickC0IPPenalty(brick->degree)));
  else
    PetscCall(PetscSNPrintf(line, len, "C0 interior penalty biharmonic, CG Q%" PetscInt_FMT " in %" PetscInt_FMT "D, level %" PetscInt_FMT ", penalty gamma = k(k+1) = %g (2 gamma on boundary faces), matrix-free (%" PetscInt_FMT " Kronecker terms)", brick->degree,
                            brick->dim, brick->level, (double)BrickC0IPPenalty(brick->degree), brick->dim + brick->dim * (brick->dim - 1) / 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickC0IPDestroy(void *ptr)
{
  BrickC0IP *ctx = (BrickC0IP *)ptr;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) PetscCall(BrickLineDestroy(&ctx->lines[d]));
#if defined(VP_HAVE_CUDA)
  PetscCall(BrickKronGPUDestroy(&ctx->gpu));
#endif
  PetscCall(PetscFree3(ctx->in, ctx->out, ctx->work));
  PetscCall(VecDestroy(&ctx->xl));
  PetscCall(DMDestroy(&ctx->dm));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* nodes a row of the owned box reaches: two cells either way, inside the grid */
static PetscErrorCode BrickC0IPReadBox(DM dm, const BrickBox *obox, BrickBox *ibox)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  *ibox = *obox;
  if (BrickBoxSize(obox) <= 0) PetscFunctionReturn(PETSC_SUCCESS); /* no owned nodes (a rank without cells on this level) */
  for (PetscInt d = 0; d < brick->dim; d++) {
    ibox->lo[d] = PetscMax(obox->lo[d] - 2 * brick->degree, 0);
    ibox->hi[d] = PetscMin(obox->hi[d] + 2 * brick->degree, brick->degree * brick->cells[d]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickC0IPCreateShell(DM dm, Mat *A)
{
  BrickC0IP *ctx;

  PetscFunctionBegin;
  if (((DM_Brick *)dm->data)->forest) { /* cell by cell and face by face (c0ipforest.c) */
    PetscCall(BrickC0IPForestCreateShell(dm, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscNew(&ctx));
  PetscCall(PetscObjectReference((PetscObject)dm));
  ctx->dm = dm;
  PetscCall(BrickC0IPKronecker(dm, &ctx->form, ctx->lines));
  PetscCall(DMBrickOwnedNodeBox_Private(dm, &ctx->obox));
  PetscCall(BrickC0IPReadBox(dm, &ctx->obox, &ctx->ibox));
  PetscCall(PetscMalloc3(PetscMax(BrickBoxSize(&ctx->ibox), 1), &ctx->in, PetscMax(BrickBoxSize(&ctx->obox), 1), &ctx->out, PetscMax(BrickKronApplyWorkSize(3, &ctx->ibox, &ctx->obox), 1), &ctx->work));
  PetscCall(DMCreateLocalVector(dm, &ctx->xl));
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(dm, &device));
    if (device) PetscCall(BrickKronGPUCreate(dm, &ctx->form, ctx->lines, &ctx->gpu)); /* in the set-up, not the first product */
  }
#endif
  PetscCall(BrickShellCreate(dm, ctx, BrickC0IPDestroy, MatMult_BrickC0IP, MatGetDiagonal_BrickC0IP, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row by row from the Kronecker form: the columns of a row are the nodes within two cells of it that
   some term couples (nonzero entries only, so a preallocator sees the true pattern). */
static PetscErrorCode BrickC0IPAssemble(DM dm, Mat A)
{
  DM_Brick              *brick = (DM_Brick *)dm->data;
  const PetscInt         k = brick->degree, maxcols = (4 * k + 1) * (4 * k + 1) * (brick->dim == 3 ? 4 * k + 1 : 1);
  BrickKronForm          form;
  BrickLine              lines[3];
  BrickBox               obox;
  ISLocalToGlobalMapping ltog;
  PetscInt               gs[3], gw[3], *cols, row;
  PetscScalar           *vals;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Assemble, dm, A, 0, 0));
  if (brick->forest) {
    PetscBool assembled;
    PetscCall(MatAssembled(A, &assembled));
    if (assembled) PetscCall(MatZeroEntries(A));
    PetscCall(BrickC0IPForestAssemble(dm, A));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(PetscLogEventEnd(DMBRICK_Assemble, dm, A, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(BrickC0IPKronecker(dm, &form, lines));
  PetscCall(DMBrickOwnedNodeBox_Private(dm, &obox));
  PetscCall(DMBrickGetLocalToGlobal_Private(dm, &ltog));
  for (PetscInt d = 0; d < 3; d++) {
    gs[d] = brick->gstart[d];
    gw[d] = brick->gwidth[d];
  }
  PetscCall(PetscMalloc2(maxcols, &cols, maxcols, &vals));
  {
    PetscBool assembled;
    PetscCall(MatAssembled(A, &assembled));
    if (assembled) PetscCall(MatZeroEntries(A));
  }
  for (PetscInt z = obox.lo[2]; z <= obox.hi[2]; z++)
    for (PetscInt y = obox.lo[1]; y <= obox.hi[1]; y++)
      for (PetscInt x = obox.lo[0]; x <= obox.hi[0]; x++) {
        const PetscInt f[3]  = {x, y, z};
        PetscInt       lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, nc = 0;
        for (PetscInt d = 0; d < brick->dim; d++) {
          lo[d] = PetscMax(f[d] - 2 * k, 1);
          hi[d] = PetscMin(f[d] + 2 * k, k * brick->cells[d] - 1);
        }
        for (PetscInt c = lo[2]; c <= hi[2]; c++)
          for (PetscInt b = lo[1]; b <= hi[1]; b++)
            for (PetscInt a = lo[0]; a <= hi[0]; a++) {
              const PetscInt  g[3] = {a, b, c};
              const PetscReal v    = BrickKronEntry(brick->dim, &form, lines, f, g);
              if (v == 0.0) continue;
              cols[nc] = (a - 1 - gs[0]) + gw[0] * ((b - 1 - gs[1]) + gw[1] * (brick->dim == 3 ? c - 1 - gs[2] : 0));
              vals[nc] = v;
              nc++;
            }
        row = (x - 1 - gs[0]) + gw[0] * ((y - 1 - gs[1]) + gw[1] * (brick->dim == 3 ? z - 1 - gs[2] : 0));
        PetscCall(ISLocalToGlobalMappingApply(ltog, 1, &row, &row));
        PetscCall(ISLocalToGlobalMappingApply(ltog, nc, cols, cols));
        PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PetscFree2(cols, vals));
  for (PetscInt d = 0; d < 3; d++) PetscCall(BrickLineDestroy(&lines[d]));
  PetscCall(PetscLogEventEnd(DMBRICK_Assemble, dm, A, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -dm_brick_operator c0ip: degrees 2..8, two layers of neighbour cells (the face neighbours of a patch's
   cells), 2^(d+1) colors for the multiplicative smoother, damping 1 (2D) and 0.7 (3D) as in seed 000. */
PetscErrorCode DMBrickOperatorCreate_C0IP(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  brick->op.min_degree                = 2;
  brick->op.ghost_cells               = 2;
  brick->op.redblack                  = PETSC_TRUE;
  brick->op.multiplicative_damping[2] = 1.0;
  brick->op.multiplicative_damping[3] = 0.7;
  /* seed 000: additive 1/4 in 2D, 1/8 in 3D; the inexact (fdm) patch solves and the face couplings give no
     bound of lambda_max(B A), which reaches 19 in 3D: the setup estimates it (vpdamping.c) */
  brick->op.additive_estimate = PETSC_TRUE;
  brick->op.createshell               = BrickC0IPCreateShell;
  brick->op.assemble                  = BrickC0IPAssemble;
  brick->op.kronecker                 = BrickC0IPKronecker;
  brick->op.describe                  = BrickC0IPDescribe;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Clamped boundary values u = g (DMBrickSetBoundaryFunction()) for c0ip, by lifting (a forest: c0ipforest.c): b -= A_full u_g on the
   owned nodes, u_g the nodal interpolant of g on the boundary nodes (zero inside) and A_full the Kronecker form over the
   full grid, boundary nodes included (its 1D matrices span nodes 0..kN). The rows of the owned nodes read u_g within two
   cells, as the product does; g is evaluated there, so no exchange is needed. The slope data come separately
   (DMBrickC0IPAddNormalDerivative()). */
PetscErrorCode BrickC0IPSubtractBoundaryLift_Private(DM dm, Vec b)
{
  DM_Brick     *brick = (DM_Brick *)dm->data;
  BrickKronForm form;
  BrickLine     lines[3];
  BrickBox      obox, ibox;
  PetscScalar  *in, *out, *work, *ta;
  PetscReal     h[3];
  Vec           t;
  PetscInt      p = 0;

  PetscFunctionBegin;
  if (brick->forest) { /* cell by cell and face by face (c0ipforest.c) */
    PetscCall(BrickC0IPForestSubtractBoundaryLift_Private(dm, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(BrickC0IPKronecker(dm, &form, lines));
  PetscCall(DMBrickOwnedNodeBox_Private(dm, &obox));
  PetscCall(BrickC0IPReadBox(dm, &obox, &ibox));
  PetscCall(DMBrickCellSize_Private(dm, h));
  PetscCall(PetscMalloc3(PetscMax(BrickBoxSize(&ibox), 1), &in, PetscMax(BrickBoxSize(&obox), 1), &out, PetscMax(BrickKronApplyWorkSize(3, &ibox, &obox), 1), &work));
  if (BrickBoxSize(&obox) > 0) {
    for (PetscInt z = ibox.lo[2]; z <= ibox.hi[2]; z++)
      for (PetscInt y = ibox.lo[1]; y <= ibox.hi[1]; y++)
        for (PetscInt x = ibox.lo[0]; x <= ibox.hi[0]; x++, p++) {
          const PetscInt f[3]     = {x, y, z};
          PetscBool      boundary = PETSC_FALSE;
          PetscReal      X[3]     = {0, 0, 0};
          in[p]                   = 0.0;
          for (PetscInt d = 0; d < brick->dim; d++) {
            const PetscInt c = f[d] / brick->degree, i = f[d] % brick->degree; /* node f = c k + i of the 1D grid */
            X[d]             = brick->lower[d] + h[d] * (c + brick->nodes[i]);
            if (f[d] == 0 || f[d] == brick->degree * brick->cells[d]) boundary = PETSC_TRUE;
          }
          if (boundary) PetscCall((*brick->bc)(brick->dim, X, &in[p], brick->bcctx));
        }
    PetscCall(BrickKronApplyBox(brick->dim, &form, lines, &ibox, in, &obox, out, work, 1));
  }
  PetscCall(DMGetGlobalVector(dm, &t));
  PetscCall(VecGetArrayWrite(t, &ta));
  if (BrickBoxSize(&obox) > 0) PetscCall(DMBrickBoxToGlobal_Private(dm, &obox, out, ta));
  PetscCall(VecRestoreArrayWrite(t, &ta));
  PetscCall(VecAXPY(b, -1.0, t));
  PetscCall(DMRestoreGlobalVector(dm, &t));
  PetscCall(PetscFree3(in, out, work));
  for (PetscInt d = 0; d < 3; d++) PetscCall(BrickLineDestroy(&lines[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   DMBrickC0IPAddNormalDerivative - adds to a load vector the weak (Nitsche) terms of prescribed boundary slopes
   du/dn = grad w . n for the C0IP operator (-dm_brick_operator c0ip): b_i += int_{boundary} (grad w . n)
   (sigma d_n phi_i - d_nn phi_i), with sigma = 2 k(k+1)/h the boundary penalty. With w = 0 on the boundary
   (the brick's value condition) the discrete problem approximates the plate with u = 0 and du/dn = grad w . n,
   e.g. the test problem of seed 000 (u = prod sin(pi x_i), whose slope on the boundary is not zero). With boundary
   values (`DMBrickSetBoundaryFunction()`, lifted by the load vector) it completes the clamped data u = g, du/dn =
   grad w . n (tutorials/ex2 -rhs exp). On a forest the faces are those without a neighbour: the domain's boundary,
   removed cells' faces included (periodic directions have none).

   Collective

   Input Parameters:
+  dm       - the brick (operator c0ip)
.  gradient - the gradient of a function w whose normal component is the prescribed slope
.  ctx      - its context
-  b        - the load vector to add to

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickComputeLoadVector()`
@*/
/* the slope data term of one boundary face (normal d, side 0 lower / 1 upper) of a cell: be (the cell's nodes) +=
   int_F (grad w . n)(sigma d_n phi_i - d_nn phi_i) by k + 2 Gauss points a tangential direction */
static PetscErrorCode BrickC0IPSlopeFace(DM dm, DMBrickGradientFunction gradient, void *ctx, const PetscReal h[], const PetscReal d1[2][BRICK_MAX_N], const PetscReal d2[2][BRICK_MAX_N], const PetscReal xq[], const PetscReal wq[], const PetscReal Bq[], const PetscInt cell[], PetscInt d, PetscInt side, PetscScalar be[])
{
  const DM_Brick *brick = (const DM_Brick *)dm->data;
  const PetscInt  n = brick->degree + 1, nq = brick->degree + 2, nloc = brick->dim == 2 ? n * n : n * n * n;
  const PetscReal nrm = side ? 1.0 : -1.0, sigma = 2.0 * BrickC0IPPenalty(brick->degree) / h[d];
  /* the tangential directions; in 2D the second is the unused z (one point, weight 1) */
  const PetscInt t0 = brick->dim == 2 ? 1 - d : (d == 0 ? 1 : 0), t1 = brick->dim == 2 ? 2 : (d == 2 ? 1 : 2);

  PetscFunctionBegin;
  for (PetscInt q1 = 0; q1 < (t1 < brick->dim ? nq : 1); q1++)
    for (PetscInt q0 = 0; q0 < nq; q0++) {
      PetscReal X[3] = {0, 0, 0}, w = wq[q0] * h[t0], g[3] = {0, 0, 0};
      X[d]  = brick->lower[d] + h[d] * (cell[d] + side);
      X[t0] = brick->lower[t0] + h[t0] * (cell[t0] + xq[q0]);
      if (t1 < brick->dim) {
        X[t1] = brick->lower[t1] + h[t1] * (cell[t1] + xq[q1]);
        w *= wq[q1] * h[t1];
      }
      PetscCall((*gradient)(brick->dim, X, g, ctx));
      for (PetscInt i = 0; i < nloc; i++) {
        const PetscInt ii[3] = {i % n, (i / n) % n, i / (n * n)};
        /* d_n phi = n phi_d'(end)/h, d_nn phi = phi_d''(end)/h^2, times the tangential values */
        PetscReal v = sigma * nrm * d1[side][ii[d]] / h[d] - d2[side][ii[d]] / (h[d] * h[d]);
        v *= Bq[q0 * n + ii[t0]] * (t1 < brick->dim ? Bq[q1 * n + ii[t1]] : 1.0);
        be[i] += w * g[d] * nrm * v;
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickC0IPAddNormalDerivative(DM dm, DMBrickGradientFunction gradient, void *ctx, Vec b)
{
  DM_Brick    *brick;
  PetscBool    isc0ip;
  PetscReal    H[BRICK_MAX_N * BRICK_MAX_N], d1[2][BRICK_MAX_N], d2[2][BRICK_MAX_N], h[3], xq[BRICK_MAX_N + 2], wq[BRICK_MAX_N + 2], Bq[(BRICK_MAX_N + 2) * BRICK_MAX_N];
  PetscInt     n, nq, nloc, idx[729];
  Vec          bl;
  PetscScalar *bla, be[729];
  BrickBox     cells;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(PetscStrcmp(brick->opname, "c0ip", &isc0ip));
  PetscCheck(isc0ip, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "DMBrickC0IPAddNormalDerivative() needs -dm_brick_operator c0ip, not %s", brick->opname);
  n    = brick->degree + 1;
  nq   = brick->degree + 2;
  nloc = brick->dim == 2 ? n * n : n * n * n;
  PetscCall(BrickElementSecondDerivatives(brick->degree, brick->nodes, H, d1, d2));
  PetscCall(BrickElementQuadrature(brick->degree, brick->nodes, nq, xq, wq, Bq));
  PetscCall(DMBrickCellSize_Private(dm, h));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(VecZeroEntries(bl));
  PetscCall(VecGetArray(bl, &bla));
  if (brick->forest) { /* the rank's cells' faces without a neighbour: the domain's boundary, removed cells' faces included */
    const BrickForest *f = brick->forest;
    for (PetscInt c = 0; c < f->ncells; c++) {
      const PetscInt *cidx = f->node + c * f->nv;
      PetscBool       onboundary = PETSC_FALSE;
      for (PetscInt i = 0; i < nloc; i++) be[i] = 0.0;
      for (PetscInt e = 0; e < 2 * brick->dim; e++)
        if (f->face[c * 2 * brick->dim + e] < 0) {
          PetscCall(BrickC0IPSlopeFace(dm, gradient, ctx, h, d1, d2, xq, wq, Bq, f->ijk + 3 * c, e / 2, e % 2, be));
          onboundary = PETSC_TRUE;
        }
      if (!onboundary) continue;
      for (PetscInt i = 0; i < nloc; i++)
        if (cidx[i] >= 0) bla[cidx[i]] += be[i];
    }
  } else {
    PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
    for (PetscInt d = 0; d < brick->dim; d++)
      for (PetscInt side = 0; side < 2; side++) {
        const PetscInt layer = side ? brick->cells[d] - 1 : 0;
        const PetscInt t0 = brick->dim == 2 ? 1 - d : (d == 0 ? 1 : 0), t1 = brick->dim == 2 ? 2 : (d == 2 ? 1 : 2);
        if (layer < cells.lo[d] || layer > cells.hi[d]) continue;
        for (PetscInt c1 = cells.lo[t1]; c1 <= cells.hi[t1]; c1++)
          for (PetscInt c0 = cells.lo[t0]; c0 <= cells.hi[t0]; c0++) {
            PetscInt cell[3] = {0, 0, 0};
            cell[d]          = layer;
            cell[t0]         = c0;
            cell[t1]         = c1;
            for (PetscInt i = 0; i < nloc; i++) be[i] = 0.0;
            PetscCall(BrickC0IPSlopeFace(dm, gradient, ctx, h, d1, d2, xq, wq, Bq, cell, d, side, be));
            PetscCall(BrickCellLocalIndices(dm, cell, idx));
            for (PetscInt i = 0; i < nloc; i++)
              if (idx[i] >= 0) bla[idx[i]] += be[i];
          }
      }
  }
  PetscCall(VecRestoreArray(bl, &bla));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
