/* DMSetUp for DMBRICK: checks the description, distributes the cells over the ranks, builds the DMDA
   of interior Gauss-Lobatto nodes, and the vector, scatter and box helpers on top of it. */
#include "brickimpl.h"

PETSC_INTERN PetscErrorCode DMBrickOperatorSetUp_Private(DM);

static const char dirname[] = "xyz";

/* Total cut of a process grid, in cell faces: along a direction split into p parts there are p-1 cuts,
   each as large as the cross-section of the grid. */
static PetscReal ProcessGridCost(PetscInt dim, const PetscInt cells[], const PetscMPIInt p[])
{
  PetscReal cost = 0.0;

  for (PetscInt d = 0; d < dim; d++) {
    PetscReal face = 1.0;
    for (PetscInt e = 0; e < dim; e++)
      if (e != d) face *= (PetscReal)cells[e];
    cost += (p[d] - 1) * face;
  }
  return cost;
}

/* Chooses the process grid on the coarse (level-0) grid: every rank must own a cell there; grids that
   also give the first rank of each split direction two cells (so the coarse level itself can carry the
   DMDA's ghost layer) are preferred, then the smallest cut. */
static PetscErrorCode BrickChooseProcessGrid(DM dm)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  PetscMPIInt size, best[3] = {0, 0, 0};
  PetscReal   bestcost  = PETSC_MAX_REAL;
  PetscBool   bestroomy = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  for (PetscMPIInt m = 1; m <= size; m++) {
    if (size % m) continue;
    for (PetscMPIInt n = 1; n <= size / m; n++) {
      PetscMPIInt p[3] = {m, n, size / (m * n)}, ok = 1;
      PetscBool   roomy = PETSC_TRUE;
      PetscReal   cost;
      if ((size / m) % n) continue;
      if (brick->dim == 2 && p[2] != 1) continue;
      for (PetscInt d = 0; d < brick->dim; d++) {
        if (brick->cells0[d] < p[d]) ok = 0;
        if (p[d] > 1 && brick->cells0[d] == p[d]) roomy = PETSC_FALSE;
      }
      if (!ok) continue;
      cost = ProcessGridCost(brick->dim, brick->cells0, p);
      if ((roomy && !bestroomy) || (roomy == bestroomy && cost < bestcost)) {
        bestroomy = roomy;
        bestcost  = cost;
        for (PetscInt d = 0; d < 3; d++) best[d] = p[d];
      }
    }
  }
  if (!best[0]) {
    PetscInt ncells = 1;
    for (PetscInt d = 0; d < brick->dim; d++) ncells *= brick->cells0[d];
    SETERRQ(PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_cells: the coarse grid has %" PetscInt_FMT " cells, too few for %d MPI ranks (every rank owns at least one coarse cell)", ncells, size);
  }
  for (PetscInt d = 0; d < 3; d++) {
    brick->procs[d] = best[d];
    PetscCall(PetscMalloc1(best[d] + 1, &brick->cellranges0[d]));
    brick->cellranges0[d][0] = 0;
    /* cells are dealt in units of the largest power of two that divides the count and still gives every rank a
       unit, so that every rank's share keeps halving as far as the grid does (coarsening below the coarse grid);
       the remainder goes to the first ranks, so the first rank (which also loses the boundary node) is the largest */
    {
      PetscInt unit = 1, units;
      while (brick->cells0[d] % (2 * unit) == 0 && brick->cells0[d] / (2 * unit) >= best[d]) unit *= 2;
      units = brick->cells0[d] / unit;
      for (PetscMPIInt i = 0; i < best[d]; i++) brick->cellranges0[d][i + 1] = brick->cellranges0[d][i] + unit * (units / best[d] + (i < units % best[d]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickCheckDescription(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  MPI_Comm  comm  = PetscObjectComm((PetscObject)dm);

  PetscFunctionBegin;
  PetscCheck(brick->dim == 2 || brick->dim == 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_dim %" PetscInt_FMT ": allowed 2 or 3", brick->dim);
  PetscCheck(brick->degree >= 1 && brick->degree <= BRICK_MAX_DEGREE, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_degree %" PetscInt_FMT ": allowed 1..%d", brick->degree, BRICK_MAX_DEGREE);
  PetscCheck(brick->family == DMBRICK_CG, comm, PETSC_ERR_SUP, "-dm_brick_family %s is not supported yet; allowed: cg", DMBrickFamilies[brick->family]);
  for (PetscInt d = 0; d < brick->dim; d++) {
    PetscCheck(brick->cells0[d] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_cells: %" PetscInt_FMT " cells along %c; allowed: a positive number per direction", brick->cells0[d], dirname[d]);
    PetscCheck(!PetscIsInfOrNanReal(brick->lower[d]) && !PetscIsInfOrNanReal(brick->upper[d]), comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_domain: along %c the ends must be finite numbers", dirname[d]);
    PetscCheck(brick->upper[d] > brick->lower[d], comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_domain: along %c the upper end %g is not above the lower end %g; allowed: %c1 > %c0", dirname[d], (double)brick->upper[d], (double)brick->lower[d],
               dirname[d], dirname[d]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owned cells of this rank on this level, from the level-0 ranges scaled by 2^level. */
static PetscErrorCode BrickSetLevelLayout(DM dm)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  MPI_Comm    comm  = PetscObjectComm((PetscObject)dm);
  PetscMPIInt rank, coord[3];
  PetscInt    refine, coarsen, scale, g = brick->op.ghost_cells;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(DMGetRefineLevel(dm, &refine));
  PetscCall(DMGetCoarsenLevel(dm, &coarsen));
  brick->level = refine - coarsen;
  PetscCheck(PetscAbsInt(brick->level) <= 24, comm, PETSC_ERR_ARG_OUTOFRANGE, "Brick level %" PetscInt_FMT " (-dm_brick_refine %" PetscInt_FMT ", coarsened %" PetscInt_FMT " times): allowed -24..24", brick->level, refine, coarsen);
  scale    = (PetscInt)1 << PetscAbsInt(brick->level);
  coord[0] = rank % brick->procs[0];
  coord[1] = (rank / brick->procs[0]) % brick->procs[1];
  coord[2] = rank / (brick->procs[0] * brick->procs[1]);
  for (PetscInt d = 0; d < 3; d++) {
    const PetscInt *r = brick->cellranges0[d];
    if (d >= brick->dim) {
      brick->cells[d]  = 1;
      brick->cstart[d] = 0;
      brick->cend[d]   = 1;
      continue;
    }
    if (brick->level >= 0) {
      PetscInt nodes = 0;
      PetscCall(PetscIntMultError(brick->cells0[d], scale, &brick->cells[d]));
      PetscCall(PetscIntMultError(brick->cells[d], brick->degree, &nodes));
      PetscCheck(nodes < PETSC_MAX_INT / 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_cells %" PetscInt_FMT " along %c refined %" PetscInt_FMT " times (-dm_brick_refine) with degree %" PetscInt_FMT " gives too many nodes for %d-bit indices",
                 brick->cells0[d], dirname[d], brick->level, brick->degree, (int)(8 * sizeof(PetscInt)));
      brick->cstart[d] = r[coord[d]] * scale;
      brick->cend[d]   = r[coord[d] + 1] * scale;
    } else {
      /* below the coarse grid every rank's share must still halve evenly */
      for (PetscMPIInt i = 0; i <= brick->procs[d]; i++)
        PetscCheck(r[i] % scale == 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "Cannot coarsen the brick %" PetscInt_FMT " time(s) below the coarse grid: along %c the %" PetscInt_FMT " coarse cells (-dm_brick_cells) %s do not divide by %" PetscInt_FMT
                   "; use fewer -pc_mg_levels or a coarse grid divisible by 2^(levels-1-refine)",
                   -brick->level, dirname[d], brick->cells0[d], brick->procs[d] > 1 ? "or their split over the ranks" : "", scale);
      brick->cells[d]  = brick->cells0[d] / scale;
      brick->cstart[d] = r[coord[d]] / scale;
      brick->cend[d]   = r[coord[d] + 1] / scale;
    }
    if (brick->level < 0)
      PetscCheck(brick->degree > 1 || brick->cells[d] > 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
                 "Level %" PetscInt_FMT " of the brick (coarsened below -dm_brick_cells) has a single cell along %c and, with degree 1, no interior degree of freedom; use fewer -pc_mg_levels", brick->level, dirname[d]);
    else
      PetscCheck(brick->degree > 1 || brick->cells[d] > 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_degree 1 with a single cell along %c has no interior degree of freedom; allowed: at least 2 cells along %c (-dm_brick_cells) or degree >= 2",
                 dirname[d], dirname[d]);
    /* the DMDA needs every rank to own at least its stencil width of nodes; the first rank owns one node less */
    if (brick->procs[d] > 1) {
      const PetscInt first = brick->level >= 0 ? r[1] * scale : r[1] / scale, need = g + 1;
      PetscCheck(first >= need, comm, PETSC_ERR_ARG_OUTOFRANGE,
                 "Level %" PetscInt_FMT " of the brick (%" PetscInt_FMT " cells along %c) is too coarse for %d ranks along %c: the first rank would own %" PetscInt_FMT " cell(s), the %s operator needs %" PetscInt_FMT
                 "; use a finer -dm_brick_cells, fewer MPI ranks, or fewer -pc_mg_levels",
                 brick->level, brick->cells[d], dirname[d], brick->procs[d], dirname[d], first, brick->opname, need);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickCreateNodeDA(DM dm)
{
  DM_Brick      *brick     = (DM_Brick *)dm->data;
  const PetscInt k         = brick->degree;
  PetscInt      *lnodes[3] = {NULL, NULL, NULL}, M[3];
  PetscInt       scale     = (PetscInt)1 << PetscAbsInt(brick->level);

  PetscFunctionBegin;
  for (PetscInt d = 0; d < brick->dim; d++) {
    const PetscInt *r = brick->cellranges0[d];
    M[d]              = k * brick->cells[d] - 1;
    PetscCall(PetscMalloc1(brick->procs[d], &lnodes[d]));
    for (PetscMPIInt i = 0; i < brick->procs[d]; i++) {
      PetscInt a = brick->level >= 0 ? r[i] * scale : r[i] / scale, b = brick->level >= 0 ? r[i + 1] * scale : r[i + 1] / scale;
      /* a rank owns the full-grid nodes [a k, b k); node 0 and node k N lie on the boundary */
      lnodes[d][i] = b * k - PetscMax(a * k, 1);
    }
  }
  if (brick->dim == 2) {
    PetscCall(DMDACreate2d(PetscObjectComm((PetscObject)dm), DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, M[0], M[1], brick->procs[0], brick->procs[1], 1, brick->op.ghost_cells * k, lnodes[0], lnodes[1], &brick->da));
  } else {
    PetscCall(DMDACreate3d(PetscObjectComm((PetscObject)dm), DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, M[0], M[1], M[2], brick->procs[0], brick->procs[1], brick->procs[2], 1, brick->op.ghost_cells * k, lnodes[0],
                           lnodes[1], lnodes[2], &brick->da));
  }
  PetscCall(DMSetUp(brick->da));
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(lnodes[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix type named by an option must exist: try it on a 1 x 1 matrix, quietly, and name the option. */
static PetscErrorCode BrickCheckMatType(MatType type, const char option[])
{
  Mat            M;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, &M));
  PetscCall(MatSetSizes(M, 1, 1, 1, 1));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetType(M, type);
  PetscCall(PetscPopErrorHandler());
  PetscCall(MatDestroy(&M));
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s %s: not a matrix type; use shell (matrix-free) or an assembled type such as aij", option, type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMSetUp_Brick(DM dm)
{
  DM_Brick *brick                                     = (DM_Brick *)dm->data;
  PetscErrorCode (*computeops)(KSP, Mat, Mat, void *) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Setup, dm, 0, 0, 0));
  PetscCall(BrickCheckDescription(dm));
  PetscCall(BrickCheckMatType(dm->mattype, "-dm_mat_type"));
  PetscCall(BrickCheckMatType(brick->coarse_mattype, "-dm_brick_coarse_mat_type"));
  PetscCall(DMBrickOperatorSetUp_Private(dm));
  PetscCheck(brick->degree >= brick->op.min_degree, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_degree %" PetscInt_FMT " with -dm_brick_operator %s: allowed degrees %" PetscInt_FMT "..%d", brick->degree, brick->opname,
             brick->op.min_degree, BRICK_MAX_DEGREE);
  if (!brick->cellranges0[0]) PetscCall(BrickChooseProcessGrid(dm));
  PetscCall(BrickSetLevelLayout(dm));
  PetscCall(BrickCreateNodeDA(dm));
  PetscCall(BrickBasisNodes(brick->degree, brick->nodes));
  PetscCall(DMSetDimension(dm, brick->dim));
  PetscCall(DMKSPGetComputeOperators(dm, &computeops, NULL));
  if (!computeops) PetscCall(DMKSPSetComputeOperators(dm, DMBrickComputeOperators_Private, NULL));
  PetscCall(PetscLogEventEnd(DMBRICK_Setup, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCreateGlobalVector_Brick(DM dm, Vec *v)
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  PetscInt  xm, ym, zm;

  PetscFunctionBegin;
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() on the brick first");
  PetscCall(DMDAGetCorners(brick->da, NULL, NULL, NULL, &xm, &ym, &zm));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)dm), v));
  PetscCall(VecSetSizes(*v, xm * ym * zm, PETSC_DETERMINE));
  PetscCall(VecSetType(*v, dm->vectype));
  PetscCall(VecSetDM(*v, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCreateLocalVector_Brick(DM dm, Vec *v)
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  PetscInt  xm, ym, zm;

  PetscFunctionBegin;
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() on the brick first");
  PetscCall(DMDAGetGhostCorners(brick->da, NULL, NULL, NULL, &xm, &ym, &zm));
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, xm * ym * zm, PETSC_DETERMINE));
  PetscCall(VecSetType(*v, dm->vectype));
  PetscCall(VecSetDM(*v, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalBegin_Brick(DM dm, Vec g, InsertMode mode, Vec l)
{
  PetscFunctionBegin;
  PetscCall(DMGlobalToLocalBegin(((DM_Brick *)dm->data)->da, g, mode, l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalEnd_Brick(DM dm, Vec g, InsertMode mode, Vec l)
{
  PetscFunctionBegin;
  PetscCall(DMGlobalToLocalEnd(((DM_Brick *)dm->data)->da, g, mode, l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalBegin_Brick(DM dm, Vec l, InsertMode mode, Vec g)
{
  PetscFunctionBegin;
  PetscCall(DMLocalToGlobalBegin(((DM_Brick *)dm->data)->da, l, mode, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalEnd_Brick(DM dm, Vec l, InsertMode mode, Vec g)
{
  PetscFunctionBegin;
  PetscCall(DMLocalToGlobalEnd(((DM_Brick *)dm->data)->da, l, mode, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGetLocalToGlobalMapping_Brick(DM dm)
{
  ISLocalToGlobalMapping map;

  PetscFunctionBegin;
  PetscCall(DMGetLocalToGlobalMapping(((DM_Brick *)dm->data)->da, &map));
  PetscCall(PetscObjectReference((PetscObject)map));
  dm->ltogmap = map;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickCreateOperator - the brick's operator as a matrix of the given type, whatever the level

   Collective

   Input Parameters:
+  dm   - the brick
-  type - `MATSHELL` (matrix-free) or an assembled type such as `MATAIJ`

   Output Parameter:
.  A - the operator

   Note:
   `DMCreateMatrix()` calls this with `-dm_mat_type` on levels above the coarse grid and with
   `-dm_brick_coarse_mat_type` on the coarse grid and below.

   Level: intermediate

.seealso: `DMBRICK`, `DMCreateMatrix()`
@*/
PetscErrorCode DMBrickCreateOperator(DM dm, MatType type, Mat *A)
{
  DM_Brick *brick;
  PetscBool isshell;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() first");
  PetscCall(PetscStrcmp(type, MATSHELL, &isshell));
  if (isshell) {
    PetscCall(brick->op.createshell(dm, A));
  } else {
    /* exact preallocation: a MATPREALLOCATOR pass over the same element loop (the DMDA's box stencil would
       store up to ((2k+1)/(k+2))^dim times more entries, all explicit zeros) */
    Mat      pre;
    Vec      v;
    PetscInt n, N;
    PetscCall(DMGetGlobalVector(dm, &v));
    PetscCall(VecGetLocalSize(v, &n));
    PetscCall(VecGetSize(v, &N));
    PetscCall(DMRestoreGlobalVector(dm, &v));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), &pre));
    PetscCall(MatSetType(pre, MATPREALLOCATOR));
    PetscCall(MatSetSizes(pre, n, n, N, N));
    PetscCall(MatSetUp(pre));
    PetscCall(brick->op.assemble(dm, pre));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), A));
    PetscCall(MatSetType(*A, type));
    PetscCall(MatSetSizes(*A, n, n, N, N));
    PetscCall(MatPreallocatorPreallocate(pre, PETSC_TRUE, *A));
    PetscCall(MatDestroy(&pre));
    PetscCall(brick->op.assemble(dm, *A));
    PetscCall(MatSetDM(*A, dm));
  }
  /* lets a consumer (PCVERTEXPATCH) check that a matrix is this brick's operator (the DM does not hold the
     matrix, so the reference makes no cycle) */
  PetscCall(PetscObjectCompose((PetscObject)*A, "DMBrick_operator_of", (PetscObject)dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Levels at or below the coarse grid use the coarse type, so that the default coarse solver of PCMG (LU)
   finds an assembled matrix while every finer level stays matrix-free. */
PetscErrorCode DMCreateMatrix_Brick(DM dm, Mat *A)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMBrickCreateOperator(dm, brick->level <= 0 ? brick->coarse_mattype : dm->mattype, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- boxes of full-grid nodes ---- */

PetscErrorCode DMBrickOwnedCellBox_Private(DM dm, BrickBox *box)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    box->lo[d] = brick->cstart[d];
    box->hi[d] = brick->cend[d] - 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickOwnedNodeBox_Private(DM dm, BrickBox *box)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    if (d < brick->dim) {
      box->lo[d] = PetscMax(brick->cstart[d] * brick->degree, 1);
      box->hi[d] = brick->cend[d] * brick->degree - 1;
    } else box->lo[d] = box->hi[d] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For each direction, the array offset of every box node in a DMDA array with corner start[] and
   width[] (interior numbering), or -1 for a boundary node. */
static PetscErrorCode BrickBoxOffsets(DM dm, const BrickBox *box, const PetscInt start[], const PetscInt width[], PetscInt *off[3])
{
  DM_Brick *brick  = (DM_Brick *)dm->data;
  PetscInt  stride = 1;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    const PetscInt n = box->hi[d] - box->lo[d] + 1;
    PetscCall(PetscMalloc1(n, &off[d]));
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt f = box->lo[d] + i;
      if (d >= brick->dim) off[d][i] = 0;
      else if (f <= 0 || f >= brick->degree * brick->cells[d]) off[d][i] = -1;
      else {
        PetscCheck(f - 1 >= start[d] && f - 1 < start[d] + width[d], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Brick box node %" PetscInt_FMT " along %c outside the array [%" PetscInt_FMT ", %" PetscInt_FMT ")", f, dirname[d], start[d] + 1,
                   start[d] + width[d] + 1);
        off[d][i] = (f - 1 - start[d]) * stride;
      }
    }
    stride *= width[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum {
  BOX_FROM_ARRAY,
  BOX_ADD_TO_ARRAY,
  BOX_INSERT_TO_ARRAY
} BoxCopyMode;

static PetscErrorCode BrickBoxCopy(DM dm, PetscBool ghosted, const BrickBox *box, BoxCopyMode mode, PetscScalar boxv[], PetscScalar array[])
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  PetscInt  start[3], width[3], *off[3], n[3], b = 0;

  PetscFunctionBegin;
  if (ghosted) PetscCall(DMDAGetGhostCorners(brick->da, &start[0], &start[1], &start[2], &width[0], &width[1], &width[2]));
  else PetscCall(DMDAGetCorners(brick->da, &start[0], &start[1], &start[2], &width[0], &width[1], &width[2]));
  PetscCall(BrickBoxOffsets(dm, box, start, width, off));
  for (PetscInt d = 0; d < 3; d++) n[d] = box->hi[d] - box->lo[d] + 1;
  for (PetscInt iz = 0; iz < n[2]; iz++) {
    for (PetscInt iy = 0; iy < n[1]; iy++) {
      const PetscBool rowout = (PetscBool)(off[2][iz] < 0 || off[1][iy] < 0);
      for (PetscInt ix = 0; ix < n[0]; ix++, b++) {
        const PetscInt o = off[0][ix];
        if (rowout || o < 0) {
          if (mode == BOX_FROM_ARRAY) boxv[b] = 0.0;
          continue;
        }
        switch (mode) {
        case BOX_FROM_ARRAY:
          boxv[b] = array[o + off[1][iy] + off[2][iz]];
          break;
        case BOX_ADD_TO_ARRAY:
          array[o + off[1][iy] + off[2][iz]] += boxv[b];
          break;
        case BOX_INSERT_TO_ARRAY:
          array[o + off[1][iy] + off[2][iz]] = boxv[b];
          break;
        }
      }
    }
  }
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(off[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Box values from a local (ghosted) array; boundary nodes read as zero. */
PetscErrorCode DMBrickLocalToBox_Private(DM dm, const PetscScalar local[], const BrickBox *box, PetscScalar boxv[])
{
  PetscFunctionBegin;
  PetscCall(BrickBoxCopy(dm, PETSC_TRUE, box, BOX_FROM_ARRAY, boxv, (PetscScalar *)local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adds box values into a local (ghosted) array; boundary nodes are dropped. */
PetscErrorCode DMBrickBoxAddToLocal_Private(DM dm, const BrickBox *box, const PetscScalar boxv[], PetscScalar local[])
{
  PetscFunctionBegin;
  PetscCall(BrickBoxCopy(dm, PETSC_TRUE, box, BOX_ADD_TO_ARRAY, (PetscScalar *)boxv, local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Box values from the owned part of a global array (the box must lie in the owned nodes). */
PetscErrorCode DMBrickGlobalToBox_Private(DM dm, const PetscScalar global[], const BrickBox *box, PetscScalar boxv[])
{
  PetscFunctionBegin;
  PetscCall(BrickBoxCopy(dm, PETSC_FALSE, box, BOX_FROM_ARRAY, boxv, (PetscScalar *)global));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Writes box values into the owned part of a global array. */
PetscErrorCode DMBrickBoxToGlobal_Private(DM dm, const BrickBox *box, const PetscScalar boxv[], PetscScalar global[])
{
  PetscFunctionBegin;
  PetscCall(BrickBoxCopy(dm, PETSC_FALSE, box, BOX_INSERT_TO_ARRAY, (PetscScalar *)boxv, global));
  PetscFunctionReturn(PETSC_SUCCESS);
}
