/* DMBRICK: creation, options, description setters and getters, view, destroy. The layout that DMSetUp
   builds is in bricklayout.c, the hierarchy in brickhierarchy.c, the grid transfer in bricktransfer.c. */
#include "brickimpl.h"
#include <petscdevice.h>
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#endif

const char *const DMBrickFamilies[]   = {"cg", "dg", "DMBrickFamily", "DMBRICK_", NULL};
const char *const DMBrickPrecisions[] = {"double", "single", "DMBrickPrecision", "DMBRICK_PRECISION_", NULL};

PETSC_INTERN PetscErrorCode DMSetUp_Brick(DM);
PETSC_INTERN PetscErrorCode DMCreateGlobalVector_Brick(DM, Vec *);
PETSC_INTERN PetscErrorCode DMCreateLocalVector_Brick(DM, Vec *);
PETSC_INTERN PetscErrorCode DMGlobalToLocalBegin_Brick(DM, Vec, InsertMode, Vec);
PETSC_INTERN PetscErrorCode DMGlobalToLocalEnd_Brick(DM, Vec, InsertMode, Vec);
PETSC_INTERN PetscErrorCode DMLocalToGlobalBegin_Brick(DM, Vec, InsertMode, Vec);
PETSC_INTERN PetscErrorCode DMLocalToGlobalEnd_Brick(DM, Vec, InsertMode, Vec);
PETSC_INTERN PetscErrorCode DMGetLocalToGlobalMapping_Brick(DM);
PETSC_INTERN PetscErrorCode DMCreateMatrix_Brick(DM, Mat *);
PETSC_INTERN PetscErrorCode DMRefine_Brick(DM, MPI_Comm, DM *);
PETSC_INTERN PetscErrorCode DMCoarsen_Brick(DM, MPI_Comm, DM *);
PETSC_INTERN PetscErrorCode DMCreateInterpolation_Brick(DM, DM, Mat *, Vec *);
PETSC_INTERN PetscErrorCode DMBrickOperatorList_Private(PetscFunctionList *);

PetscErrorCode DMBrickGetImpl_Private(DM dm, DM_Brick **brick)
{
  PetscBool isbrick;

  PetscFunctionBegin;
  *brick = NULL; /* set on every path, so that callers need no initial value */
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMBRICK, &isbrick));
  PetscCheck(isbrick, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "DM of type %s is not a brick (DMBRICK)", ((PetscObject)dm)->type_name ? ((PetscObject)dm)->type_name : "(none)");
  *brick = (DM_Brick *)dm->data;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMBrickCheckNotSetUp(DM dm, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "%s must be called before DMSetUp()", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetDimension - sets the space dimension of the brick (2 or 3; option -dm_brick_dim)

   Logically Collective

   Input Parameters:
+  dm  - the brick
-  dim - 2 or 3

   Level: beginner

.seealso: `DMBRICK`, `DMBrickSetCells()`
@*/
PetscErrorCode DMBrickSetDimension(DM dm, PetscInt dim)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(DMBrickCheckNotSetUp(dm, "DMBrickSetDimension()"));
  brick->dim = dim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetCells - sets the number of cells per direction of the level-0 (coarse) grid; finer levels
   halve every cell (option -dm_brick_cells Nx,Ny[,Nz])

   Logically Collective

   Input Parameters:
+  dm    - the brick
-  cells - dim positive numbers

   Note:
   Call `DMBrickSetDimension()` first: only the first dim entries are read.

   Level: beginner

.seealso: `DMBRICK`, `DMBrickSetDimension()`, `DMRefine()`
@*/
PetscErrorCode DMBrickSetCells(DM dm, const PetscInt cells[])
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(DMBrickCheckNotSetUp(dm, "DMBrickSetCells()"));
  for (PetscInt d = 0; d < 3; d++) brick->cells0[d] = d < brick->dim ? cells[d] : 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetDomain - sets the box [lower_0, upper_0] x ... (option -dm_brick_domain x0,x1,y0,y1[,z0,z1])

   Logically Collective

   Input Parameters:
+  dm    - the brick
.  lower - lower corner, dim entries
-  upper - upper corner, dim entries

   Level: beginner

.seealso: `DMBRICK`, `DMBrickGetDomain()`
@*/
PetscErrorCode DMBrickSetDomain(DM dm, const PetscReal lower[], const PetscReal upper[])
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(DMBrickCheckNotSetUp(dm, "DMBrickSetDomain()"));
  for (PetscInt d = 0; d < brick->dim; d++) {
    brick->lower[d] = lower[d];
    brick->upper[d] = upper[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetDegree - sets the polynomial degree k of the Q_k element, 1 <= k <= 8 (option -dm_brick_degree)

   Logically Collective

   Level: beginner

.seealso: `DMBRICK`
@*/
PetscErrorCode DMBrickSetDegree(DM dm, PetscInt degree)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(DMBrickCheckNotSetUp(dm, "DMBrickSetDegree()"));
  brick->degree = degree;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetFamily - continuous (cg) or discontinuous (dg) elements (option -dm_brick_family)

   Logically Collective

   Note:
   The operator decides the family (`sipg` is DG; `laplace` and `c0ip` are CG), so this is only a check: a family
   that disagrees with the operator is an error at `DMSetUp()`.

   Level: beginner

.seealso: `DMBRICK`, `DMBrickFamily`
@*/
PetscErrorCode DMBrickSetFamily(DM dm, DMBrickFamily family)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(DMBrickCheckNotSetUp(dm, "DMBrickSetFamily()"));
  brick->family     = family;
  brick->family_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetOperator - names the operator the brick discretizes (option -dm_brick_operator); it decides
   what `DMCreateMatrix()` returns and the ghost width of the vectors

   Logically Collective

   Input Parameters:
+  dm   - the brick
-  name - a registered operator: "laplace"

   Level: beginner

.seealso: `DMBRICK`, `DMBrickRegisterOperator()`
@*/
PetscErrorCode DMBrickSetOperator(DM dm, const char name[])
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(DMBrickCheckNotSetUp(dm, "DMBrickSetOperator()"));
  PetscCall(PetscStrncpy(brick->opname, name, sizeof(brick->opname)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetMGPrecision - arithmetic of the operators and grid transfers of the coarser bricks made from this one
   by `DMCoarsen()` (the levels of `PCMG` below this brick) on the GPU (option -dm_brick_mg_precision)

   Logically Collective

   Input Parameters:
+  dm        - the brick
-  precision - `DMBRICK_PRECISION_DOUBLE` or `DMBRICK_PRECISION_SINGLE`

   Notes:
   With `DMBRICK_PRECISION_SINGLE` the matrix-free operators of the coarser bricks and the grid transfers into
   and out of them compute in float on VECCUDA vectors (float arithmetic and intermediates; the vectors stay
   double, as PETSc's are). With -mg_levels_pc_vertexpatch_precision single the V-cycle is then float except the
   residual of the finest level, whose operator is also the outer Krylov method's (seed 003's mixed-precision
   multigrid); use a flexible outer method (FGMRES). This brick's own operator keeps its precision. Host vectors
   compute in double.

   Level: intermediate

.seealso: `DMBRICK`, `DMCoarsen()`, `PCVertexPatchSetPrecision()`
@*/
PetscErrorCode DMBrickSetMGPrecision(DM dm, DMBrickPrecision precision)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(precision == DMBRICK_PRECISION_DOUBLE || precision == DMBRICK_PRECISION_SINGLE, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE,
             "DMBrickSetMGPrecision: precision %d; allowed: DMBRICK_PRECISION_DOUBLE, DMBRICK_PRECISION_SINGLE", (int)precision);
  brick->mg_precision = precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetVerifyConvergence - whether a KSP that solves with this brick (`KSPSetDM()`) checks a claimed convergence
   against the true residual (option -dm_brick_verify_convergence, default true)

   Logically Collective

   Input Parameters:
+  dm     - the brick
-  verify - `PETSC_TRUE` to check

   Notes:
   The brick's `DMKSP` operator callback puts a guard around the KSP's convergence test at `KSPSetUp()`. When PETSc's
   default test claims convergence and the KSP can build its current iterate in the middle of a solve (the GMRES
   family, GCR, FCG, CG, CR, MINRES), the guard forms b - A x (and B (b - A x) for a preconditioned norm) and compares
   it with the same tolerance. If it is above, the solve goes on; if it then stops decreasing (not halved in three
   further checks; for an ill-conditioned operator usually its round-off floor), the solve stops with
   `KSP_DIVERGED_BREAKDOWN`, and -ksp_converged_reason says why. A check costs one `MatMult()` (plus one `PCApply()` for
   a preconditioned norm) per claim, normally once per solve. Other methods (BiCGStab and its variants) are checked
   after the solve, on the solution they return, in the unpreconditioned norm. Richardson and Chebyshev compute their
   residual and get no guard. Set PETSc's `KSPConvergedDefaultSet*()` options before `KSPSetUp()`: afterwards they no
   longer reach the wrapped test.

   Independently of this setting the guard refuses, with an error naming the options, a preconditioner that computes
   in float (-pc_vertexpatch_precision single, -dm_brick_mg_precision single on the GPU) under a Krylov method that
   assumes a fixed linear preconditioner (GMRES, BiCGStab, MINRES, ...); FGMRES, GCR, FCG, CG and Richardson are
   allowed. It looks through PCMG's levels; float arithmetic behind PCKSP, PCCOMPOSITE or PCFIELDSPLIT is not seen.
   Nested KSPs that solve with a brick (a PCMG coarse solve with a tolerance) are guarded too.

   Level: intermediate

.seealso: `DMBRICK`, `KSPSetDM()`, `KSPSetConvergenceTest()`, `PCVertexPatchSetPrecision()`
@*/
PetscErrorCode DMBrickSetVerifyConvergence(DM dm, PetscBool verify)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  brick->verify_convergence = verify;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetSIMD - run the host laplace and sipg products on SIMD groups of cells (-dm_brick_simd); the bricks made from this one
   by `DMCoarsen()` and `DMRefine()` (the `PCMG` levels) get the same setting

   Logically Collective

   Input Parameters:
+  dm   - the brick
-  simd - `PETSC_TRUE` (the default): neighbouring cells of a row along x are applied together, one per lane of a vector
          of the build's width (2 doubles in the portable x86-64 build, 4 with AVX); `PETSC_FALSE`: one cell at a time

   Notes:
   The cells of a group share every 1D matrix, so each multiply-add of the sum factorization is one SIMD instruction. Each
   lane does the one-cell arithmetic in the same order and the cells are added in the same order, so the product is the
   same (bit for bit in the portable build). The sipg product groups the cells of a row that are not on the boundary along
   x (those have other face blocks). The c0ip product contracts whole lines of the owned box, which the compiler
   vectorizes along the lines, and the GPU kernels do not use it. For the smoother see `PCVertexPatchSetSIMD()`.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickSetThreads()`, `PCVertexPatchSetSIMD()`
@*/
PetscErrorCode DMBrickSetSIMD(DM dm, PetscBool simd)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  brick->simd = simd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetThreads - OpenMP threads per rank of the host products of the operators (-dm_brick_threads); the
   bricks made from this one by `DMCoarsen()` and `DMRefine()` (the `PCMG` levels) get the same count

   Logically Collective

   Input Parameters:
+  dm      - the brick
-  threads - at least 1 (the default); above 1 needs a build with OpenMP

   Notes:
   laplace: the cells are processed plane by plane along the last direction, first the even planes and then the odd ones.
   Cells of planes of one parity share no node, so each thread takes whole planes, and every thread count adds the cells'
   contributions in the same order. sipg: each cell writes only its own values, so the threads take rows of cells.
   c0ip: each contraction of the owned box runs its output rows on the threads. Every count gives the product of one
   thread, bit for bit. The grid transfers and the GPU kernels do not use this count. For the smoother's threads see
   `PCVertexPatchSetThreads()`.

   Level: intermediate

.seealso: `DMBRICK`, `PCVertexPatchSetThreads()`
@*/
PetscErrorCode DMBrickSetThreads(DM dm, PetscInt threads)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(threads >= 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_threads %" PetscInt_FMT ": must be at least 1", threads);
#if !defined(_OPENMP)
  PetscCheck(threads == 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "-dm_brick_threads %" PetscInt_FMT " needs a build with OpenMP (this one has none); allowed: 1", threads);
#endif
  brick->threads = threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetRankMinDoFs - a level that would give an MPI rank fewer DoFs than this lives on fewer ranks (-dm_brick_rank_min_dofs);
   the bricks made from this one by `DMCoarsen()` and `DMRefine()` (the `PCMG` levels) get the same limit

   Logically Collective

   Input Parameters:
+  dm      - the brick, before `DMSetUp()`
-  mindofs - at least 0; 0 (the default) agglomerates a level only where its cells do not reach every rank

   Notes:
   Each level takes the largest number of ranks whose process grid fits its cells and leaves every rank at least mindofs
   DoFs (one rank always serves), ranks 0 .. n-1; the others hold nothing on that level, and the grid transfer to the
   finer level gathers across the two partitions (as for any agglomerated level). The iterations do not change. On GPUs
   the small levels cost the latency of their ghost exchanges (each color of a smoothing step waits for its neighbours),
   more than their arithmetic: on four H200s a Q3 level of a few million DoFs smooths faster on one of them.

   Level: intermediate

.seealso: `DMBRICK`, `DMView()`, `PCMG`
@*/
PetscErrorCode DMBrickSetRankMinDoFs(DM dm, PetscInt mindofs)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "DMBrickSetRankMinDoFs() must be called before DMSetUp() on a brick");
  PetscCheck(mindofs >= 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_rank_min_dofs %" PetscInt_FMT ": must be at least 0", mindofs);
  brick->rank_min_dofs = mindofs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetSlabs - split the MPI ranks along the last direction of the grid only (z in 3D, y in 2D): each rank owns a
   slab of whole planes, and the brick's global vectors are stored inside ghosted local arrays (-dm_brick_slabs); the
   bricks made from this one by `DMCoarsen()` and `DMRefine()` (the `PCMG` levels) get the same choice

   Logically Collective

   Input Parameters:
+  dm    - the brick, before `DMSetUp()`
-  slabs - `PETSC_TRUE` for slabs; `PETSC_FALSE` for the process grid with the smallest cut

   Notes:
   In a slab the owned nodes are one contiguous stretch of the ghosted local array, between the ghost planes below and
   above. A global vector of the brick (`DMCreateGlobalVector()`, `VecDuplicate()` of one) then shares that array:
   `DMGlobalToLocal()` into it only fetches the ghost planes and `DMLocalToGlobal()` moves nothing, so the vertex-patch
   sweep (`PCVERTEXPATCH`) and the operators' products on several ranks skip two copies of the level each. The cut is
   larger than a process grid's (each inner rank has two full cross-sections as neighbours), and a level with fewer
   cells along the last direction than ranks lives on fewer ranks. `DMView()` says which levels store their vectors in
   place. Host and CUDA vectors; other vector types keep their own storage.

   Without this call (or the option) the first brick set up decides, and its levels follow: slabs with device vectors
   (-dm_vec_type cuda) on several ranks when they use as many ranks as the grid of smallest cut and cut at most twice as
   much; the grid of smallest cut otherwise (always with host vectors, whose copies cost little against the host's patch
   work). On four H100s (3D Q3, 451M DoFs a GPU, mixed precision) slabs took a V-cycle from 0.2366 s to 0.2212-0.2249 s.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickSetRankMinDoFs()`, `DMView()`, `PCVERTEXPATCH`
@*/
PetscErrorCode DMBrickSetSlabs(DM dm, PetscBool slabs)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "DMBrickSetSlabs() must be called before DMSetUp() on a brick");
  brick->slabs      = slabs;
  brick->slabs_set  = PETSC_TRUE;
  brick->slabs_auto = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickGetOperator - the name of the brick's operator

   Not Collective

   Level: beginner

.seealso: `DMBRICK`, `DMBrickSetOperator()`
@*/
PetscErrorCode DMBrickGetOperator(DM dm, const char **name)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  *name = brick->opname;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickGetInfo - the dimension, the cells of this level, the degree and the level of a set-up brick

   Not Collective

   Output Parameters (each may be NULL):
+  dim    - 2 or 3
.  cells  - cells per direction on this level (dim entries)
.  degree - polynomial degree
-  level  - refinement level relative to the coarse grid given by -dm_brick_cells (negative below it)

   Level: beginner

.seealso: `DMBRICK`
@*/
PetscErrorCode DMBrickGetInfo(DM dm, PetscInt *dim, PetscInt cells[], PetscInt *degree, PetscInt *level)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() first");
  if (dim) *dim = brick->dim;
  if (cells)
    for (PetscInt d = 0; d < brick->dim; d++) cells[d] = brick->cells[d];
  if (degree) *degree = brick->degree;
  if (level) *level = brick->level;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickGetDomain - the box of the brick

   Not Collective

   Level: beginner

.seealso: `DMBRICK`, `DMBrickSetDomain()`
@*/
PetscErrorCode DMBrickGetDomain(DM dm, PetscReal lower[], PetscReal upper[])
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  for (PetscInt d = 0; d < brick->dim; d++) {
    if (lower) lower[d] = brick->lower[d];
    if (upper) upper[d] = brick->upper[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickCellSize_Private(DM dm, PetscReal h[])
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) h[d] = d < brick->dim ? (brick->upper[d] - brick->lower[d]) / brick->cells[d] : 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMSetFromOptions_Brick(DM dm, PetscOptionItems *PetscOptionsObject)
{
  DM_Brick         *brick = (DM_Brick *)dm->data;
  PetscInt          n, refine = 0;
  PetscReal         domain[8];
  PetscInt          cells[8];
  char              name[64], family[64], mattype[256];
  PetscBool         flg;
  PetscFunctionList operators;

  PetscFunctionBegin;
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "DMSetFromOptions() must be called before DMSetUp() on a brick");
  PetscOptionsHeadBegin(PetscOptionsObject, "DMBRICK options");
  PetscCall(PetscOptionsInt("-dm_brick_dim", "Space dimension (2 or 3)", "DMBrickSetDimension", brick->dim, &brick->dim, NULL));
  /* checked here too, before the options whose number of values depends on it */
  PetscCheck(brick->dim == 2 || brick->dim == 3, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_dim %" PetscInt_FMT ": allowed 2 or 3", brick->dim);
  n = 8; /* room for extra values, so that too many are reported */
  for (PetscInt d = 0; d < 3; d++) cells[d] = brick->cells0[d];
  PetscCall(PetscOptionsIntArray("-dm_brick_cells", "Cells per direction of the coarse grid: Nx,Ny[,Nz]", "DMBrickSetCells", cells, &n, &flg));
  if (flg) {
    PetscCheck(n == brick->dim, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_brick_cells needs %" PetscInt_FMT " values (one per direction, -dm_brick_dim %" PetscInt_FMT "), got %" PetscInt_FMT, brick->dim, brick->dim, n);
    for (PetscInt d = 0; d < n; d++) brick->cells0[d] = cells[d];
  }
  n = 8;
  for (PetscInt d = 0; d < 3; d++) {
    domain[2 * d]     = brick->lower[d];
    domain[2 * d + 1] = brick->upper[d];
  }
  PetscCall(PetscOptionsRealArray("-dm_brick_domain", "The box: x0,x1,y0,y1[,z0,z1]", "DMBrickSetDomain", domain, &n, &flg));
  if (flg) {
    PetscCheck(n == 2 * brick->dim, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_brick_domain needs %" PetscInt_FMT " values (x0,x1,y0,y1%s), got %" PetscInt_FMT, 2 * brick->dim, brick->dim == 3 ? ",z0,z1" : "", n);
    for (PetscInt d = 0; d < brick->dim; d++) {
      brick->lower[d] = domain[2 * d];
      brick->upper[d] = domain[2 * d + 1];
    }
  }
  {
    PetscInt  rm[3 * 64];
    PetscBool per[3] = {brick->periodic[0], brick->periodic[1], brick->periodic[2]};
    PetscEnum part   = (PetscEnum)brick->partition;
    n                = 3 * 64;
    PetscCall(PetscOptionsIntArray("-dm_brick_remove", "Coarse cells removed from the box, dim positions each: i0,j0[,k0],i1,j1[,k1],... (the domain becomes a p4est forest)", "DMBrickSetRemovedCells", rm, &n, &flg));
    if (flg) {
      PetscCheck(n % brick->dim == 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_brick_remove needs %" PetscInt_FMT " numbers per cell (-dm_brick_dim %" PetscInt_FMT "), got %" PetscInt_FMT " numbers", brick->dim, brick->dim, n);
      PetscCheck(n < 3 * 64, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_brick_remove: at most %d cells from the options (DMBrickSetRemovedCells() takes any number)", 3 * 64 / 3 - 1);
      PetscCall(DMBrickSetRemovedCells(dm, n / brick->dim, rm));
    }
    n = 3;
    PetscCall(PetscOptionsBoolArray("-dm_brick_periodic", "Periodic directions, 0 or 1 each: px,py[,pz]", "DMBrickSetPeriodic", per, &n, &flg));
    if (flg) {
      PetscCheck(n == brick->dim, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_brick_periodic needs %" PetscInt_FMT " values (one per direction), got %" PetscInt_FMT, brick->dim, n);
      PetscCall(DMBrickSetPeriodic(dm, per));
    }
    PetscCall(PetscOptionsEnum("-dm_brick_partition", "How the ranks split the cells: p4est (space-filling curve of a forest; any domain), grid or slabs (full boxes)", "DMBrickSetPartition", DMBrickPartitions, part, &part, &flg));
    if (flg) PetscCall(DMBrickSetPartition(dm, (DMBrickPartition)part));
  }
  PetscCall(PetscOptionsInt("-dm_brick_degree", "Polynomial degree k of the Q_k element (1..8)", "DMBrickSetDegree", brick->degree, &brick->degree, NULL));
  /* read as a string and checked in DMSetUp, so that a wrong value gets a message listing what is allowed */
  PetscCall(PetscStrncpy(family, DMBrickFamilies[brick->family], sizeof(family)));
  PetscCall(PetscOptionsString("-dm_brick_family", "Element family: cg or dg (the operator decides: sipg is dg; this is a check)", "DMBrickSetFamily", family, family, sizeof(family), &flg));
  if (flg) {
    PetscBool iscg, isdg;
    PetscCall(PetscStrcmp(family, "cg", &iscg));
    PetscCall(PetscStrcmp(family, "dg", &isdg));
    PetscCheck(iscg || isdg, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_family %s: unknown family; allowed: cg, dg", family);
    brick->family     = iscg ? DMBRICK_CG : DMBRICK_DG;
    brick->family_set = PETSC_TRUE;
  }
  PetscCall(PetscStrncpy(name, brick->opname, sizeof(name)));
  PetscCall(DMBrickOperatorList_Private(&operators));
  PetscCall(PetscOptionsFList("-dm_brick_operator", "Operator the brick discretizes", "DMBrickSetOperator", operators, name, name, sizeof(name), &flg));
  if (flg) PetscCall(PetscStrncpy(brick->opname, name, sizeof(brick->opname)));
  PetscCall(DMGetRefineLevel(dm, &refine));
  PetscCall(PetscOptionsInt("-dm_brick_refine", "Refinements of the coarse grid that give this brick", "DMSetRefineLevel", refine, &refine, &flg));
  if (flg) {
    PetscCheck(refine >= 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_refine %" PetscInt_FMT ": must be >= 0", refine);
    PetscCall(DMSetRefineLevel(dm, refine));
  }
  PetscCall(PetscStrncpy(name, DMBrickPrecisions[brick->mg_precision], sizeof(name)));
  PetscCall(PetscOptionsString("-dm_brick_mg_precision", "Arithmetic of the operators and grid transfers of the coarser bricks (DMCoarsen, PCMG levels) on the GPU: double or single (vectors stay double)", "DMBrickSetMGPrecision", name, name,
                               sizeof(name), &flg));
  if (flg) {
    PetscBool isdouble, issingle;
    PetscCall(PetscStrcmp(name, "double", &isdouble));
    PetscCall(PetscStrcmp(name, "single", &issingle));
    PetscCheck(isdouble || issingle, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_mg_precision %s: unknown precision; allowed: double, single", name);
    PetscCall(DMBrickSetMGPrecision(dm, issingle ? DMBRICK_PRECISION_SINGLE : DMBRICK_PRECISION_DOUBLE));
  }
  PetscCall(PetscOptionsBool("-dm_brick_verify_convergence", "KSPs solving with the brick check a claimed convergence against the true residual", "DMBrickSetVerifyConvergence", brick->verify_convergence, &brick->verify_convergence, NULL));
  PetscCall(PetscOptionsBool("-dm_brick_device_memory_check", "Before a solve's first large GPU allocation, stop with an error if its estimated device memory exceeds the GPU's free memory", "DMBRICK", brick->device_memory_check, &brick->device_memory_check, NULL));
  PetscCall(PetscOptionsEnum("-dm_brick_gpu_exchange",
                             "Ghost exchange of device vectors between ranks: auto (CUDA IPC, GPU to GPU, where all ranks share one host; else MPI), ipc (an error where it cannot), mpi (PetscSF, through the host without GPU-aware MPI)", "DMBRICK",
                             DMBrickGPUExchanges, (PetscEnum)brick->gpu_exchange, (PetscEnum *)&brick->gpu_exchange, NULL));
  {
    PetscInt threads = brick->threads;
    PetscCall(PetscOptionsInt("-dm_brick_threads", "OpenMP threads per rank of the host operator product (laplace, c0ip, sipg; this brick and its PCMG levels)", "DMBrickSetThreads", threads, &threads, &flg));
    if (flg) PetscCall(DMBrickSetThreads(dm, threads));
  }
  {
    PetscBool simd = brick->simd;
    PetscCall(PetscOptionsBool("-dm_brick_simd", "Host laplace and sipg products on SIMD groups of cells (this brick and its PCMG levels)", "DMBrickSetSIMD", simd, &simd, &flg));
    if (flg) PetscCall(DMBrickSetSIMD(dm, simd));
  }
  {
    PetscInt mindofs = brick->rank_min_dofs;
    PetscCall(PetscOptionsInt("-dm_brick_rank_min_dofs", "A level that would give a rank fewer DoFs lives on fewer ranks (this brick and its PCMG levels; 0: only where the cells do not reach every rank)", "DMBrickSetRankMinDoFs", mindofs, &mindofs, &flg));
    if (flg) PetscCall(DMBrickSetRankMinDoFs(dm, mindofs));
  }
  {
    PetscBool slabs = brick->slabs;
    PetscCall(PetscOptionsBool("-dm_brick_slabs", "Split the ranks along the last direction only: the global vectors then live inside ghosted local arrays (this brick and its PCMG levels; default: with device vectors where the cut stays within twice the smallest)", "DMBrickSetSlabs", slabs, &slabs, &flg));
    if (flg) PetscCall(DMBrickSetSlabs(dm, slabs));
  }
  PetscCall(PetscOptionsInt("-dm_brick_coarsen_below", "Levels the hierarchy (and PCMG's default number of levels) goes below the -dm_brick_cells grid: -1, as far as every direction's cells halve", "DMBrickSetCoarsenBelow", brick->coarsen_below,
                            &brick->coarsen_below, NULL));
  PetscCall(PetscOptionsInt("-dm_brick_coarse_direct_max", "Most nonzeros of a coarse problem that PCMG's coarse solve, left at its default, solves exactly (LU; on the GPU a dense inverse); larger ones get Chebyshev/Jacobi steps", "DMBRICK",
                            brick->coarse_direct_max, &brick->coarse_direct_max, NULL));
  PetscCheck(brick->coarse_direct_max >= 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_coarse_direct_max %" PetscInt_FMT ": allowed >= 0", brick->coarse_direct_max);
  PetscCall(PetscOptionsInt("-dm_brick_coarse_chebyshev_its", "Chebyshev/Jacobi steps of a coarse problem over -dm_brick_coarse_direct_max", "DMBRICK", brick->coarse_cheby_its, &brick->coarse_cheby_its, NULL));
  PetscCheck(brick->coarse_cheby_its >= 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_coarse_chebyshev_its %" PetscInt_FMT ": allowed >= 1", brick->coarse_cheby_its);
  PetscCall(PetscOptionsBool("-dm_brick_vtk_mpiio", "VTK output (-vec_view vtk:u.vtu): every rank writes its piece of the one file through MPI-IO (else rank 0 writes them, one rank at a time)", "VecView", brick->vtk_mpiio, &brick->vtk_mpiio, NULL));
  PetscCall(PetscOptionsBool("-dm_brick_jacobi_for_sor", "A KSP left at PETSc's default SOR (PCMG's level smoothers) uses Jacobi on the brick's matrix-free operator (SOR needs matrix entries)", "DMBRICK", brick->jacobi_for_sor, &brick->jacobi_for_sor, NULL));
  PetscCall(PetscStrncpy(mattype, brick->coarse_mattype, sizeof(mattype)));
  PetscCall(PetscOptionsString("-dm_brick_coarse_mat_type", "Matrix type of the coarsest level when its problem gets an exact solve (-dm_brick_coarse_direct_max)", "DMCreateMatrix", mattype, mattype, sizeof(mattype), &flg));
  if (flg) {
    PetscCall(PetscFree(brick->coarse_mattype));
    PetscCall(PetscStrallocpy(mattype, &brick->coarse_mattype));
  }
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* why a level lives on fewer than all ranks, for the views: its cells, or the DoF limit of -dm_brick_rank_min_dofs */
static void BrickAgglomerationReason(const DM_Brick *brick, char why[], size_t len)
{
  if (brick->nactive < brick->nfit) (void)PetscSNPrintf(why, len, "agglomerated: fewer than %" PetscInt_FMT " DoFs a rank, -dm_brick_rank_min_dofs", brick->rank_min_dofs);
  else (void)PetscSNPrintf(why, len, "agglomerated: too few cells for all");
}

static PetscErrorCode DMView_Brick(DM dm, PetscViewer viewer)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  PetscBool   isascii;
  PetscMPIInt size;
  PetscInt    N, nlocal, nmin, nmax, ncells = 1;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (!dm->setupcalled) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  brick (not set up): %" PetscInt_FMT "D, degree %" PetscInt_FMT ", operator %s\n", brick->dim, brick->degree, brick->opname));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  {
    Vec v;
    PetscCall(DMGetGlobalVector(dm, &v));
    PetscCall(VecGetSize(v, &N));
    PetscCall(VecGetLocalSize(v, &nlocal));
    PetscCall(DMRestoreGlobalVector(dm, &v));
  }
  {
    /* over the active ranks: an agglomerated level leaves the others empty */
    PetscInt n = brick->activecomm != MPI_COMM_NULL ? nlocal : PETSC_MAX_INT;
    PetscCallMPI(MPI_Allreduce(&n, &nmin, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)dm)));
  }
  PetscCallMPI(MPI_Allreduce(&nlocal, &nmax, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)dm)));
  for (PetscInt d = 0; d < brick->dim; d++) ncells *= brick->cells[d];

  PetscCall(PetscViewerASCIIPrintf(viewer, "  brick: %" PetscInt_FMT "D, cells ", brick->dim));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  for (PetscInt d = 0; d < brick->dim; d++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s%" PetscInt_FMT, d ? " x " : "", brick->cells[d]));
  PetscCall(PetscViewerASCIIPrintf(viewer, " (%" PetscInt_FMT " cells, level %" PetscInt_FMT " above the coarse grid ", ncells, brick->level));
  for (PetscInt d = 0; d < brick->dim; d++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s%" PetscInt_FMT, d ? " x " : "", brick->cells0[d]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "), domain "));
  for (PetscInt d = 0; d < brick->dim; d++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s[%g, %g]", d ? " x " : "", (double)brick->lower[d], (double)brick->upper[d]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  {
    PetscBool sipg, c0ip;
    PetscCall(PetscStrcmp(brick->opname, "sipg", &sipg));
    PetscCall(PetscStrcmp(brick->opname, "c0ip", &c0ip));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  element: Q%" PetscInt_FMT " %s on Gauss-Lobatto nodes, operator %s, %s\n", brick->degree, DMBrickFamilies[brick->family], brick->opname,
                                     !brick->bc ? (c0ip ? "clamped boundary (u = 0; slopes only through DMBrickC0IPAddNormalDerivative())" : "homogeneous Dirichlet boundary")
                                                : (sipg ? "Dirichlet data u = g (DMBrickSetBoundaryFunction()), weakly through the boundary faces of the load vector"
                                                        : (c0ip ? "clamped data: u = g (DMBrickSetBoundaryFunction()) lifted in the load vector, slopes through DMBrickC0IPAddNormalDerivative()" : "Dirichlet data u = g (DMBrickSetBoundaryFunction()), lifted in the load vector; the unknowns and the multigrid are the homogeneous problem's"))));
  }
  if (brick->forest) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(DMBrickViewForest_Private(dm, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  DoFs per rank %" PetscInt_FMT "..%" PetscInt_FMT "; hierarchy: starts at the trees (level 0); matrices: %s on this level (%s on level 0 when it gets an exact solve), vectors %s\n", nmin, nmax, brick->level == 0 ? brick->coarse_mattype : dm->mattype, brick->coarse_mattype, dm->vectype));
  } else {
  if (brick->family == DMBRICK_DG) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  DoFs: %" PetscInt_FMT " (%" PetscInt_FMT " per cell, cell by cell: cells lexicographic in each rank's box, values x fastest in a cell", N, brick->dof));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  } else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  DoFs: %" PetscInt_FMT " (interior nodes ", N));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
    for (PetscInt d = 0; d < brick->dim; d++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s%" PetscInt_FMT, d ? " x " : "", brick->degree * brick->cells[d] - 1));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, ")\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  if (brick->nactive == size) PetscCall(PetscViewerASCIIPrintf(viewer, "  MPI ranks: %d as ", size));
  else {
    char why[128];
    BrickAgglomerationReason(brick, why, sizeof(why));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  MPI ranks: %d of %d (%s) as ", brick->nactive, size, why));
  }
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  for (PetscInt d = 0; d < brick->dim; d++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s%d", d ? " x " : "", brick->procs[d]));
  if (brick->family == DMBRICK_DG) PetscCall(PetscViewerASCIIPrintf(viewer, ", DoFs per rank %" PetscInt_FMT "..%" PetscInt_FMT ", ghost width 1 cell", nmin, nmax));
  else PetscCall(PetscViewerASCIIPrintf(viewer, ", DoFs per rank %" PetscInt_FMT "..%" PetscInt_FMT ", ghost width %" PetscInt_FMT " nodes", nmin, nmax, brick->op.ghost_cells * brick->degree));
  if (brick->rank_min_dofs > 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", at least %" PetscInt_FMT " DoFs a rank on the levels (-dm_brick_rank_min_dofs)", brick->rank_min_dofs));
  if (brick->slabs) PetscCall(PetscViewerASCIIPrintf(viewer, ", slabs (-dm_brick_slabs%s): %s", brick->slabs_auto ? ", chosen for device vectors" : "", brick->inplace ? "global vectors stored in the ghosted local arrays" : brick->nactive > 1 ? "global vectors with their own storage (vector type)" : "one rank"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  {
    /* the hierarchy below the user's coarse grid, and how its coarsest problem is solved by default */
    PetscInt   cells[3] = {1, 1, 1};
    PetscInt64 rows, nnz;
    PetscBool  direct;
    for (PetscInt d = 0; d < brick->dim; d++) cells[d] = brick->cells0[d] >> brick->below;
    PetscCall(DMBrickOperatorSize_Private(brick, cells, &rows, &nnz));
    direct = (PetscBool)(nnz <= brick->coarse_direct_max);
    PetscCall(PetscViewerASCIIPrintf(viewer, "  hierarchy: %" PetscInt_FMT " level(s) below the coarse grid (-dm_brick_coarsen_below); the coarsest, level %" PetscInt_FMT ", ", brick->below, -brick->below));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
    for (PetscInt d = 0; d < brick->dim; d++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s%" PetscInt_FMT, d ? " x " : "", cells[d]));
    PetscCall(PetscViewerASCIIPrintf(viewer, " cells, %" PetscInt64_FMT " unknowns, %" PetscInt64_FMT " nonzeros assembled: %s\n", rows, nnz, direct ? "an exact coarse solve by default" : "over -dm_brick_coarse_direct_max, Chebyshev/Jacobi steps by default"));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  matrices: %s on this level (%s on the coarsest level when it gets an exact solve), vectors %s\n", brick->level <= -brick->below && direct ? brick->coarse_mattype : dm->mattype, brick->coarse_mattype, dm->vectype));
  }
  }
#if defined(VP_HAVE_CUDA)
  PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU arithmetic of the operator and transfers: %s on this level, %s on the coarser levels (host vectors: double)\n", DMBrickPrecisions[brick->precision], DMBrickPrecisions[brick->mg_precision]));
#endif
  PetscCall(PetscViewerASCIIPrintf(viewer, "  KSPs solving with it %s a claimed convergence against the true residual (-dm_brick_verify_convergence)\n", brick->verify_convergence ? "check" : "do not check"));
#if defined(VP_HAVE_CUDA)
  if (brick->device_memory_checked) PetscCall(PetscViewerASCIIPrintf(viewer, "  device memory (-dm_brick_device_memory_check): a solve needs about %.4g bytes on this rank's GPU, %.4g were free at the check\n", brick->device_need_bytes, brick->device_free_bytes));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  device memory check before a solve (-dm_brick_device_memory_check): %s\n", brick->device_memory_check ? "on" : "off"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  ghost exchange of device vectors between ranks (-dm_brick_gpu_exchange %s): %" PetscInt_FMT " graph(s) GPU to GPU (CUDA IPC), %" PetscInt_FMT " through PetscSF so far\n",
                                   DMBrickGPUExchanges[brick->gpu_exchange], brick->nexchange_ipc, brick->nexchange_mpi));
#endif
  {
    PetscBool c0ip;
    PetscCall(PetscStrcmp(brick->opname, "c0ip", &c0ip));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  host %s product: %" PetscInt_FMT " OpenMP thread(s) per rank (-dm_brick_threads), %s\n", brick->opname, brick->threads,
                                     c0ip ? "whole lines of the owned box per contraction" : (brick->simd ? "SIMD groups of cells (-dm_brick_simd)" : "one cell at a time (-dm_brick_simd)")));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The one place where host or device is chosen. Work on vectors (operators, transfers, smoothing steps) runs on
   the GPU when its vectors are VECCUDA (y may be NULL); a build without CUDA always answers no. */
PetscErrorCode DMBrickVecsOnDevice_Private(Vec x, Vec y, PetscBool *device)
{
  PetscFunctionBegin;
  *device = PETSC_FALSE;
#if defined(VP_HAVE_CUDA)
  {
    PetscBool xc, yc = PETSC_TRUE;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &xc, VECSEQCUDA, VECMPICUDA, ""));
    if (y) PetscCall(PetscObjectTypeCompareAny((PetscObject)y, &yc, VECSEQCUDA, VECMPICUDA, ""));
    *device = (PetscBool)(xc && yc);
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = x or (add) y += x for n values in device memory: the brick's scatter on a level that one rank holds */
PetscErrorCode DMBrickDeviceCopy_Private(PetscInt n, PetscBool add, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    const int err = VPCudaVectorCopy((size_t)n, (int)add, x, y);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaVectorCopy: %s", VPCudaErrorString(err));
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "device vectors in a build without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the brick's vectors live on the GPU (its vector type is a CUDA one), so that its work runs there (views) */
PetscErrorCode DMBrickOnDevice_Private(DM dm, PetscBool *device)
{
  PetscFunctionBegin;
  *device = PETSC_FALSE;
#if defined(VP_HAVE_CUDA)
  if (dm->vectype) PetscCall(PetscStrInList(dm->vectype, "cuda,seqcuda,mpicuda", ',', device));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSynchronize - waits until the device work queued so far for the brick has run on this rank (when its vectors
   live on the GPU) and every rank of its communicator has got here: a clock started afterwards measures only what
   follows (the tutorials' solve time after `KSPSetUp()`)

   Collective

   Input Parameter:
.  dm - the brick

   Notes:
   The brick's kernels and PETSc's own run on PETSc's default device stream, so waiting for the current device context
   waits for them. With host vectors this is a barrier only (no device is initialized).

   Level: intermediate

.seealso: `DMBRICK`, `KSPSetUp()`, `PetscDeviceContextSynchronize()`
@*/
PetscErrorCode DMBrickSynchronize(DM dm)
{
  PetscBool device;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(DMBrickOnDevice_Private(dm, &device));
  if (device) {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
  PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line for the views of a level's objects (operator, transfer): on which ranks the level lives, whether it
   was agglomerated, and where and in which precision its work runs. */
PetscErrorCode DMBrickViewLevel_Private(DM dm, PetscViewer viewer)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  PetscMPIInt size;
  PetscBool   device;
  char        why[128] = "", reason[112];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  PetscCall(DMBrickOnDevice_Private(dm, &device));
  if (brick->nactive < size) {
    BrickAgglomerationReason(brick, reason, sizeof(reason));
    PetscCall(PetscSNPrintf(why, sizeof(why), " (%s)", reason));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  level %" PetscInt_FMT ": %" PetscInt_FMT " cells on %d of %d MPI rank(s)%s; runs on the %s in %s\n", brick->level, brick->cells[0] * brick->cells[1] * brick->cells[2], brick->nactive, size,
                                   why, device ? "GPU" : "host",
                                   device && brick->precision == DMBRICK_PRECISION_SINGLE ? "float (-dm_brick_mg_precision single of a finer brick)" : "double"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMDestroy_Brick(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMBrickDestroyForest_Private(dm));
  PetscCall(PetscFree(brick->removed));
  PetscCall(PetscSFDestroy(&brick->halo));
  PetscCall(ISLocalToGlobalMappingDestroy(&brick->ltog));
  if (brick->ownactivecomm) PetscCallMPI(MPI_Comm_free(&brick->activecomm));
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(brick->cellranges[d]));
  PetscCall(PetscFree(brick->rankoffset));
  PetscCall(PetscFree(brick->coarse_mattype));
  PetscCall(PetscFree(dm->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMBRICK = "brick" - a DMDA-like structured hierarchy of Cartesian meshes carrying Q_k elements.

   Options Database Keys:
+  -dm_brick_dim <2>                     - space dimension, 2 or 3
.  -dm_brick_cells <Nx,Ny[,Nz]>          - cells of the coarse (level-0) grid
.  -dm_brick_domain <x0,x1,y0,y1[,z0,z1]> - the box (default unit box)
.  -dm_brick_degree <k>                  - polynomial degree, 1..8
.  -dm_brick_family <cg,dg>              - continuous or discontinuous elements (the operator decides; a check)
.  -dm_brick_operator <laplace>          - the operator `DMCreateMatrix()` returns: laplace (Poisson, k >= 1) or c0ip (C0 interior
                                          penalty biharmonic, clamped plate, k >= 2)
.  -dm_brick_remove <i0,j0[,k0],...>     - coarse cells removed from the box (`DMBrickSetRemovedCells()`): the domain is a p4est forest
.  -dm_brick_periodic <px,py[,pz]>       - periodic directions, 0 or 1 each (`DMBrickSetPeriodic()`)
.  -dm_brick_partition <grid>            - p4est (space-filling curve of a forest; any domain), grid or slabs (full boxes) (`DMBrickSetPartition()`)
.  -dm_brick_refine <n>                  - this brick is the coarse grid refined n times
.  -dm_brick_coarsen_below <-1>          - levels the hierarchy goes below the coarse grid (-1: as far as the cells halve)
.  -dm_brick_coarse_direct_max <1000000> - most nonzeros of a coarse problem that PCMG's default coarse solve solves exactly
.  -dm_brick_coarse_chebyshev_its <20>   - Chebyshev/Jacobi steps of a larger coarse problem (matrix-free)
.  -dm_brick_jacobi_for_sor <true>       - a level smoother left at PETSc's default SOR gets Jacobi on the matrix-free operator
.  -dm_brick_vtk_mpiio <false>           - VTK output (-vec_view vtk:u.vtu, one file, one piece per rank): every rank writes its
                                          piece through MPI-IO (default: rank 0 writes them, one rank at a time)
.  -dm_brick_coarse_mat_type <aij>       - matrix type of the coarsest level when it gets an exact solve
.  -dm_brick_verify_convergence <true>   - KSPs solving with the brick check a claimed convergence against b - A x
                                          (`DMBrickSetVerifyConvergence()`)
.  -dm_brick_device_memory_check <true>  - before a solve's first large GPU allocation, stop with an error naming the bytes it
                                          needs (an estimate: vectors of every level) and the bytes free on the GPU
.  -dm_brick_threads <1>                 - OpenMP threads per rank of the host operator product (`DMBrickSetThreads()`)
.  -dm_brick_simd <true>                 - host laplace and sipg products on SIMD groups of cells along x (`DMBrickSetSIMD()`)
.  -dm_brick_gpu_exchange <auto>         - ghost exchange of device vectors between ranks: auto (GPU to GPU through CUDA IPC where
                                          all ranks share one host, else PetscSF), ipc (an error where IPC cannot serve), mpi
                                          (PetscSF: through the host when MPI is not GPU-aware)
.  -dm_mat_type <shell>                  - matrix type of the finer levels: shell (matrix-free) or an assembled type
-  -dm_vec_type <standard>               - vector type

   Notes:
   A global vector holds the interior Gauss-Lobatto nodes of the (k N_x + 1) x (k N_y + 1) [x (k N_z + 1)]
   node grid in lexicographic order per rank (as a DMDA would lay them out); boundary nodes are eliminated
   (homogeneous Dirichlet). Ranks own whole cells. `DMCoarsen()` and `DMRefine()` halve and double the
   cells, so `-pc_type mg` with `KSPSetDM()` builds its hierarchy, operators and interpolations from the
   brick alone; with no -pc_mg_levels, PCMG uses every level down to the hierarchy's coarsest, which lies below the
   coarse grid as far as every direction's cells halve (DMGetRefineLevel() counts those levels).

   Level: beginner

.seealso: `DMBrickCreate()`, `DMBrickSetCells()`, `DMBrickSetDegree()`, `DMBrickSetOperator()`
M*/
PETSC_EXTERN PetscErrorCode DMCreate_Brick(DM dm)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(PetscNew(&brick));
  dm->data                  = brick;
  brick->dim                = 2;
  brick->degree             = 1;
  brick->family             = DMBRICK_CG;
  brick->verify_convergence = PETSC_TRUE;
  brick->device_memory_check = PETSC_TRUE;
  brick->coarsen_below      = -1;
  brick->jacobi_for_sor     = PETSC_TRUE;
  brick->coarse_direct_max  = 1000000;
  brick->coarse_cheby_its   = 20;
  brick->threads            = 1;
  brick->simd               = PETSC_TRUE;
  brick->partition          = DMBRICK_PARTITION_GRID;
  for (PetscInt d = 0; d < 3; d++) {
    brick->cells0[d] = 2;
    brick->lower[d]  = 0.0;
    brick->upper[d]  = 1.0;
  }
  PetscCall(PetscStrncpy(brick->opname, "laplace", sizeof(brick->opname)));
  PetscCall(PetscStrallocpy(MATAIJ, &brick->coarse_mattype));
  PetscCall(DMSetMatType(dm, MATSHELL));

  dm->ops->setfromoptions          = DMSetFromOptions_Brick;
  dm->ops->setup                   = DMSetUp_Brick;
  dm->ops->view                    = DMView_Brick;
  dm->ops->destroy                 = DMDestroy_Brick;
  dm->ops->createglobalvector      = DMCreateGlobalVector_Brick;
  dm->ops->createlocalvector       = DMCreateLocalVector_Brick;
  dm->ops->globaltolocalbegin      = DMGlobalToLocalBegin_Brick;
  dm->ops->globaltolocalend        = DMGlobalToLocalEnd_Brick;
  dm->ops->localtoglobalbegin      = DMLocalToGlobalBegin_Brick;
  dm->ops->localtoglobalend        = DMLocalToGlobalEnd_Brick;
  dm->ops->getlocaltoglobalmapping = DMGetLocalToGlobalMapping_Brick;
  dm->ops->creatematrix            = DMCreateMatrix_Brick;
  dm->ops->refine                  = DMRefine_Brick;
  dm->ops->coarsen                 = DMCoarsen_Brick;
  dm->ops->createinterpolation     = DMCreateInterpolation_Brick;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickCreate - creates a brick DM; set it up with `DMSetFromOptions()` and `DMSetUp()`

   Collective

   Input Parameter:
.  comm - the communicator

   Output Parameter:
.  dm - the new brick

   Level: beginner

.seealso: `DMBRICK`, `DMBrickSetCells()`, `DMBrickSetDegree()`
@*/
PetscErrorCode DMBrickCreate(MPI_Comm comm, DM *dm)
{
  PetscFunctionBegin;
  PetscCall(VPatchInitializePackage());
  PetscCall(DMCreate(comm, dm));
  PetscCall(DMSetType(*dm, DMBRICK));
  PetscFunctionReturn(PETSC_SUCCESS);
}
