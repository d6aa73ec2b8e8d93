/* What a brick decides for the multigrid that solves with it, where the user did not:
   - how far its hierarchy goes below the coarse grid the user gave (-dm_brick_coarsen_below): PCMG takes its number of
     levels from DMGetRefineLevel(), so the levels below -dm_brick_cells are counted there;
   - the size of its operator as an assembled matrix (rows, nonzeros), which decides whether the coarse problem gets an
     exact solve (-dm_brick_coarse_direct_max) or a few Chebyshev/Jacobi steps on the matrix-free operator;
   - the smoother of a level left at PETSc's default, Chebyshev with SOR: SOR needs matrix entries, which a matrix-free
     level does not have, so such a level smooths with Chebyshev/Jacobi (-dm_brick_jacobi_for_sor).
   What was decided is named in the KSP/PC views (object names) and with -info. */
#include "brickimpl.h"
#include <petsc/private/kspimpl.h>
#include <petsc/private/pcmgimpl.h>

/* The fewest cells per direction a coarsest level may have: one interior node (degree 1 on one cell has none). */
static PetscInt BrickMinCells(const DM_Brick *brick)
{
  return brick->family == DMBRICK_CG && brick->degree == 1 ? 2 : 1;
}

/* Levels below cells0: as many times as every direction's cell count halves (-dm_brick_coarsen_below caps it). Called
   by DMSetUp() of a brick made by the user; bricks made by DMRefine()/DMCoarsen() take it from theirs. */
PetscErrorCode DMBrickSetUpBelow_Private(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  PetscInt  below = 0, refine;

  PetscFunctionBegin;
  if (brick->below_set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(brick->coarsen_below >= -1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_coarsen_below %" PetscInt_FMT ": allowed -1 (as far as the cells halve) or a number of levels >= 0", brick->coarsen_below);
  while ((brick->coarsen_below < 0 || below < brick->coarsen_below) && below < 20) {
    const PetscInt scale = (PetscInt)1 << (below + 1);
    PetscBool      halves = PETSC_TRUE;
    for (PetscInt d = 0; d < brick->dim; d++) halves = (PetscBool)(halves && brick->cells0[d] % scale == 0 && brick->cells0[d] / scale >= BrickMinCells(brick));
    if (!halves) break;
    below++;
  }
  brick->below     = below;
  brick->below_set = PETSC_TRUE;
  PetscCall(DMGetRefineLevel(dm, &refine));
  PetscCall(DMSetRefineLevel(dm, refine + below));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The 1D interior-node range [lo, hi] (indices into the full grid 0..kN) that node i couples with when the coupling
   reaches `reach` cells beyond the cells that contain i (0: the cells of i; 1: also their face neighbours). */
static void BrickNodeReach(PetscInt i, PetscInt k, PetscInt N, PetscInt reach, PetscInt *lo, PetscInt *hi)
{
  const PetscInt first = i % k == 0 ? i / k - 1 : i / k, last = i / k; /* cells containing node i */
  *lo = PetscMax((first - reach) * k, 1);
  *hi = PetscMin((last + reach + 1) * k, k * N - 1);
}

/* The assembled size of a brick's operator on a grid of cells[] (dim entries): rows and nonzeros, from the element
   couplings. */
PetscErrorCode DMBrickOperatorSize_Private(const DM_Brick *brick, const PetscInt cells[], PetscInt64 *rows, PetscInt64 *nonzeros)
{
  const PetscInt k = brick->degree, dim = brick->dim;

  PetscFunctionBegin;
  if (brick->family == DMBRICK_DG) {
    /* a cell couples with itself and its face neighbours, all (k+1)^d values with all */
    PetscInt64 ncells = 1, blocks, dof = 1;
    for (PetscInt d = 0; d < dim; d++) {
      ncells *= cells[d];
      dof *= k + 1;
    }
    blocks = ncells;
    for (PetscInt d = 0; d < dim; d++) blocks += 2 * (ncells / cells[d]) * (cells[d] - 1);
    *rows     = ncells * dof;
    *nonzeros = blocks * dof * dof;
  } else {
    /* CG: per direction, the sum over the interior nodes of the nodes each couples with, within its cells (narrow) and,
       for c0ip's face terms, one more cell each way (wide). The laplace pattern is the tensor product of the narrow
       ones; c0ip's is the union over d of (wide along d, narrow elsewhere): inclusion-exclusion, the pairwise and
       higher intersections being all narrow */
    const PetscInt reach = brick->op.ghost_cells - 1;
    PetscInt64     narrow[3], wide[3], n = 1, prodnarrow = 1;
    for (PetscInt d = 0; d < dim; d++) {
      const PetscInt N = cells[d];
      narrow[d] = wide[d] = 0;
      for (PetscInt i = 1; i < k * N; i++) {
        PetscInt lo, hi;
        BrickNodeReach(i, k, N, 0, &lo, &hi);
        narrow[d] += hi - lo + 1;
        BrickNodeReach(i, k, N, reach, &lo, &hi);
        wide[d] += hi - lo + 1;
      }
      n *= k * N - 1;
      prodnarrow *= narrow[d];
    }
    *rows = n;
    if (reach == 0 || n == 0) *nonzeros = prodnarrow;
    else {
      PetscInt64 sum = 0;
      for (PetscInt d = 0; d < dim; d++) sum += prodnarrow / narrow[d] * wide[d];
      *nonzeros = sum - (dim - 1) * prodnarrow;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rank's rows' nonzeros of a forest's assembled operator. DG: a cell's values couple with its own and its face
   neighbours' (f->face). CG: a free node couples with the free nodes of the cells around it (laplace) and also of those
   cells' face neighbours (c0ip: its face terms join all nodes of the two cells of a face). Each owned node's coupled cells
   that are in the domain have their nodes stamped in a window of lattice positions around it (distinct positions along a
   periodic direction shorter than the window), and the free ones counted once. Only coarse levels ask (the size of the
   exact coarse solve), where a window of at most (4k+5)^dim stamps a node is affordable. */
static PetscErrorCode BrickForestOperatorNonzeros(const DM_Brick *brick, PetscInt64 *nnz)
{
  const BrickForest *f = brick->forest;
  const PetscInt     k = brick->degree, dim = brick->dim, nv = f->nv, ext = brick->op.ghost_cells > 1 ? 1 : 0, W = 4 * k + 5;
  PetscInt          *pos, *stamp, nstamp;

  PetscFunctionBegin;
  *nnz = 0;
  if (brick->op.dg) {
    for (PetscInt c = 0; c < f->ncells; c++) {
      const PetscInt *nbr = f->face + c * 2 * dim;
      PetscInt        nb  = 1;
      for (PetscInt e = 0; e < 2 * dim; e++) { /* distinct neighbours: along a periodic direction of 2 cells both faces meet one cell */
        PetscBool again = PETSC_FALSE;
        for (PetscInt g = 0; g < e; g++) again = (PetscBool)(again || nbr[g] == nbr[e]);
        nb += nbr[e] >= 0 && !again;
      }
      *nnz += (PetscInt64)nv * nv * nb;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  nstamp = W * W * (dim == 3 ? W : 1);
  PetscCall(PetscMalloc2(3 * f->nowned + 1, &pos, nstamp, &stamp));
  for (PetscInt i = 0; i < 3 * f->nowned; i++) pos[i] = -1;
  for (PetscInt i = 0; i < nstamp; i++) stamp[i] = -1;
  for (PetscInt c = 0; c < f->ncells; c++) /* each owned node's lattice position, from a cell that holds it */
    for (PetscInt i = 0; i < nv; i++) {
      const PetscInt ln = f->node[c * nv + i], ii[3] = {i % (k + 1), (i / (k + 1)) % (k + 1), i / ((k + 1) * (k + 1))};
      if (ln < 0 || ln >= f->nowned || pos[3 * ln] >= 0) continue;
      for (PetscInt d = 0; d < 3; d++) pos[3 * ln + d] = d < dim ? f->ijk[3 * c + d] * k + ii[d] : 0;
    }
  for (PetscInt n = 0; n < f->nowned; n++) {
    PetscInt rlo[3] = {0, 0, 0}, rhi[3] = {0, 0, 0}, win[3][4 * BRICK_MAX_DEGREE + 5], m[3] = {1, 1, 1}, period[3] = {1, 1, 1};
    win[1][0] = win[2][0] = 0;
    PetscCheck(pos[3 * n] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "forest brick: owned node %" PetscInt_FMT " is in none of the rank's cells", n);
    for (PetscInt d = 0; d < dim; d++) {
      const PetscInt p = pos[3 * n + d];
      period[d] = k * (brick->cells0[d] << f->level);
      rlo[d]    = p % k == 0 ? p / k - 1 : p / k;
      rhi[d]    = p % k == 0 ? p / k : p / k;
      m[d]      = 0; /* the distinct (wrapped) positions of the window */
      for (PetscInt q = (rlo[d] - ext) * k; q <= (rhi[d] + 1 + ext) * k; q++) {
        const PetscInt w = brick->periodic[d] ? ((q % period[d]) + period[d]) % period[d] : q;
        PetscBool      seen = PETSC_FALSE;
        for (PetscInt j = 0; j < m[d]; j++) seen = (PetscBool)(seen || win[d][j] == w);
        if (!seen) win[d][m[d]++] = w;
      }
    }
    for (PetscInt e = 0; e < (ext ? dim : 1); e++) { /* the cells around the node, extended by one cell along e (c0ip) */
      PetscInt lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      for (PetscInt d = 0; d < dim; d++) {
        lo[d] = rlo[d] - (ext && d == e);
        hi[d] = rhi[d] + (ext && d == e);
      }
      for (PetscInt cz = lo[2]; cz <= hi[2]; cz++)
        for (PetscInt cy = lo[1]; cy <= hi[1]; cy++)
          for (PetscInt cx = lo[0]; cx <= hi[0]; cx++) {
            const PetscInt cc[3] = {cx, cy, cz};
            if (!DMBrickForestCellInDomain_Private(brick, f->level, cc)) continue;
            for (PetscInt i = 0; i < nv; i++) {
              const PetscInt ii[3] = {i % (k + 1), (i / (k + 1)) % (k + 1), i / ((k + 1) * (k + 1))};
              PetscInt       q[3] = {0, 0, 0}, s = 0;
              for (PetscInt d = dim - 1; d >= 0; d--) {
                PetscInt j = 0, w = cc[d] * k + ii[d];
                if (brick->periodic[d]) w = ((w % period[d]) + period[d]) % period[d];
                while (win[d][j] != w) j++; /* it is in the window */
                q[d] = w;
                s    = s * W + j;
              }
              if (stamp[s] == n) continue;
              stamp[s] = n;
              *nnz += DMBrickForestNodeFree_Private(brick, q);
            }
          }
    }
  }
  PetscCall(PetscFree2(pos, stamp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickGetOperatorSize - the size of the brick's operator as an assembled matrix: its rows (global unknowns) and its
   nonzeros, counted from the element couplings without assembling (the number `MatGetInfo()` reports for the matrix
   that `DMBrickCreateOperator()` assembles; on a forest whose rows' bound exceeds 64 times -dm_brick_coarse_direct_max, that
   bound, as counting would cost more than it decides)

   Collective

   Input Parameter:
.  dm - the brick, set up

   Output Parameters:
+  rows     - global number of unknowns
-  nonzeros - nonzeros of the assembled operator

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickCreateOperator()`
@*/
PetscErrorCode DMBrickGetOperatorSize(DM dm, PetscInt *rows, PetscInt64 *nonzeros)
{
  DM_Brick  *brick;
  PetscInt64 n, nnz;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() first");
  if (brick->forest) {
    /* a forest: its DoFs and the nonzeros of its rows (BrickForestOperatorNonzeros), counted where the bound of a row's
       couplings (CG (2k+1)^d, c0ip also k layers on each side, DG (2d+1) (k+1)^d) stays under 64 times
       -dm_brick_coarse_direct_max; above, the bound (the count would cost more than it decides: it is over the limit anyway) */
    const PetscInt64 k = brick->degree, w = 2 * k + 1, box = brick->dim == 3 ? w * w * w : w * w, side = brick->dim == 3 ? w * w : w;
    PetscInt64       own = brick->forest->nowned, mine, bound;
    PetscCallMPI(MPIU_Allreduce(&own, &n, 1, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)dm)));
    bound = brick->op.dg ? n * (2 * brick->dim + 1) * brick->forest->nv : n * (box + (brick->op.ghost_cells > 1 ? 2 * brick->dim * k * side : 0));
    if (bound <= 64 * (PetscInt64)brick->coarse_direct_max) {
      PetscCall(BrickForestOperatorNonzeros(brick, &mine));
      PetscCallMPI(MPIU_Allreduce(&mine, &nnz, 1, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)dm)));
    } else nnz = bound;
  } else PetscCall(DMBrickOperatorSize_Private(brick, brick->cells, &n, &nnz));
  if (rows) *rows = (PetscInt)n;
  if (nonzeros) *nonzeros = nnz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Does the brick's operator stay under the size that gets an exact coarse solve by default? */
PetscErrorCode DMBrickCoarseDirect_Private(DM dm, PetscBool *direct)
{
  DM_Brick  *brick = (DM_Brick *)dm->data;
  PetscInt64 nnz;

  PetscFunctionBegin;
  PetscCall(DMBrickGetOperatorSize(dm, NULL, &nnz));
  *direct = (PetscBool)(nnz <= brick->coarse_direct_max);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the options database holds -<prefix>name */
static PetscErrorCode BrickOptionGiven(PetscObject obj, const char prefix[], const char name[], PetscBool *given)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(obj->options, prefix, name, given));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCMG names its coarse solver "<outer prefix>mg_coarse_" */
static PetscErrorCode BrickIsMGCoarse(KSP ksp, PetscBool *coarse)
{
  const char *prefix;
  size_t      len, tail = sizeof("mg_coarse_") - 1;

  PetscFunctionBegin;
  *coarse = PETSC_FALSE;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  if (!prefix) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrlen(prefix, &len));
  if (len >= tail) PetscCall(PetscStrcmp(prefix + len - tail, "mg_coarse_", coarse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coarse solver by size, where the user chose none: PCMG's default (LU, or LU inside PCREDUNDANT on several ranks;
   PCDENSEINVERSE with device vectors) under -dm_brick_coarse_direct_max nonzeros, a few Chebyshev/Jacobi steps on the
   matrix-free operator over it. */
static PetscErrorCode BrickCoarseDefaults(KSP ksp, DM dm)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  const char *prefix;
  PetscBool   given, direct = PETSC_FALSE, device = PETSC_FALSE;
  PetscInt    rows;
  PetscInt64  nnz;
  PC          pc;
  char        name[256];

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  for (PetscInt i = 0; i < 3; i++) {
    const char *opts[3] = {"-ksp_type", "-pc_type", "-redundant_pc_type"};
    PetscCall(BrickOptionGiven((PetscObject)ksp, prefix, opts[i], &given));
    if (given) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(KSPGetPC(ksp, &pc));
  {
    /* a solver set in code (not PCMG's default preonly + lu / redundant) is the user's */
    PetscBool preonly, lu, redundant;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCLU, &lu));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCREDUNDANT, &redundant));
    if (!preonly || !(lu || redundant)) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMBrickGetOperatorSize(dm, &rows, &nnz));
  PetscCall(DMBrickCoarseDirect_Private(dm, &direct));
  PetscCall(DMBrickOnDevice_Private(dm, &device));
  if (direct && device) {
    /* on the GPU: the explicit inverse, applied as one product on the device (PETSc's LU solves on the host) */
    PetscBool redundant;
    PC        inner = pc;
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCREDUNDANT, &redundant));
    if (redundant) {
      KSP rksp;
      PetscCall(PCRedundantGetKSP(pc, &rksp));
      PetscCall(KSPGetPC(rksp, &inner));
    }
    PetscCall(PCSetType(inner, PCDENSEINVERSE));
    PetscCall(PetscSNPrintf(name, sizeof(name), "brick coarse solve: %" PetscInt_FMT " unknowns, %" PetscInt64_FMT " nonzeros <= -dm_brick_coarse_direct_max %" PetscInt_FMT ": exact, dense inverse on the GPU", rows, nnz, brick->coarse_direct_max));
    PetscCall(PetscObjectSetName((PetscObject)ksp, name));
    PetscCall(PetscInfo(ksp, "%s\n", name));
  } else if (!direct) {
    PetscBool itsgiven;
    PetscCall(KSPSetType(ksp, KSPCHEBYSHEV));
    PetscCall(BrickOptionGiven((PetscObject)ksp, prefix, "-ksp_max_it", &itsgiven));
    if (!itsgiven) PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, brick->coarse_cheby_its));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
    PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
    /* the whole spectrum that the steps can reach, not only its upper part (as a smoother's) */
    PetscCall(KSPChebyshevEstEigSet(ksp, 0.0, 0.01, 0.0, 1.1));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(PetscSNPrintf(name, sizeof(name), "brick coarse solve: %" PetscInt_FMT " unknowns, %" PetscInt64_FMT " nonzeros > -dm_brick_coarse_direct_max %" PetscInt_FMT ": %" PetscInt_FMT " Chebyshev/Jacobi steps, matrix-free", rows, nnz, brick->coarse_direct_max, ksp->max_it));
    PetscCall(PetscObjectSetName((PetscObject)ksp, name));
    PetscCall(PetscInfo(ksp, "%s\n", name));
  } else {
    PetscCall(PetscSNPrintf(name, sizeof(name), "brick coarse solve: %" PetscInt_FMT " unknowns, %" PetscInt64_FMT " nonzeros <= -dm_brick_coarse_direct_max %" PetscInt_FMT ": exact (sparse LU)", rows, nnz, brick->coarse_direct_max));
    PetscCall(PetscObjectSetName((PetscObject)ksp, name));
    PetscCall(PetscInfo(ksp, "%s\n", name));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define BRICK_JACOBI_NAME "brick default: jacobi in place of PETSc's sor, which needs matrix entries (-dm_brick_jacobi_for_sor)"

/* A vector of the brick's layout whose entries are a hash of each value's place in the whole grid: the same vector on
   every partition (PETSc's random vectors are drawn rank by rank, so they change with the partition). */
static PetscErrorCode BrickPartitionFreeNoise(DM dm, Vec v)
{
  DM_Brick    *brick = (DM_Brick *)dm->data;
  PetscScalar *a;
  const PetscInt nx = brick->owidth[0], ny = brick->owidth[1];
  PetscInt       n  = 0;

  PetscFunctionBegin;
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt z = 0; z < (brick->dim == 3 ? brick->owidth[2] : 1); z++)
    for (PetscInt y = 0; y < ny; y++)
      for (PetscInt x = 0; x < nx; x++)
        for (PetscInt c = 0; c < brick->dof; c++, n++) {
          /* the place: point (x, y, z) of the whole grid, value c of it */
          const PetscReal g[4] = {(PetscReal)(brick->ostart[0] + x), (PetscReal)(brick->ostart[1] + y), (PetscReal)(brick->dim == 3 ? brick->ostart[2] + z : 0), (PetscReal)c};
          const PetscReal t = PetscSinReal(12.9898 * g[0] + 78.233 * g[1] + 37.719 * g[2] + 4.581 * g[3]) * 43758.5453;
          a[n] = 2.0 * (t - PetscFloorReal(t)) - 1.0;
        }
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bounds of PETSc's Chebyshev for a Jacobi-preconditioned level, found as PETSc finds them (10 CG steps, the largest
   eigenvalue estimate scaled to [0.1, 1.1] of it) but from a vector that does not depend on the partition, so that every
   rank count gives the iterations of one rank. Done once per operator; an -ksp_chebyshev_eig* option read later wins. */
static PetscErrorCode BrickChebyshevBounds(KSP ksp, DM dm, Mat P)
{
  PetscObject done;
  KSP         est;
  PC          pc;
  Vec         b, x;
  PetscReal   emax, emin;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)ksp, "DMBrick_chebyshev_bounds_of", &done));
  if (done == (PetscObject)P) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)ksp), &est));
  PetscCall(KSPSetType(est, KSPCG));
  PetscCall(KSPSetOperators(est, P, P));
  PetscCall(KSPGetPC(est, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(est, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 10));
  PetscCall(KSPSetConvergenceTest(est, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetComputeSingularValues(est, PETSC_TRUE));
  PetscCall(MatCreateVecs(P, &x, &b));
  PetscCall(BrickPartitionFreeNoise(dm, b)); /* set-up only: written on the host, copied to the GPU once with device vectors */
  PetscCall(KSPSolve(est, b, x));
  PetscCall(KSPComputeExtremeSingularValues(est, &emax, &emin));
  PetscCall(KSPChebyshevSetEigenvalues(ksp, 1.1 * emax, 0.1 * emax));
  PetscCall(PetscInfo(ksp, "Chebyshev/Jacobi bounds [%g, %g] from 10 CG steps on a partition-independent vector (largest eigenvalue estimate %g)\n", (double)(0.1 * emax), (double)(1.1 * emax), (double)emax));
  PetscCall(PetscObjectCompose((PetscObject)ksp, "DMBrick_chebyshev_bounds_of", (PetscObject)P));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&est));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's PCMG smooths every level with Chebyshev and SOR; SOR reads matrix entries. On a matrix-free level of the brick
   the smoother becomes Chebyshev/Jacobi (the shells have their diagonal); SOR asked for by name is an error that says
   what works. */
static PetscErrorCode BrickSmootherDefaults(KSP ksp, DM dm, Mat P, PetscBool bounds)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  PC          pc;
  PetscBool   sor, shell, given;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSHELL, &shell));
  if (!shell) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSOR, &sor));
  if (!sor) {
    /* a level the brick gave Jacobi before its operator existed (the outer KSP's walk) gets its Chebyshev bounds now */
    const char *name;
    PetscBool   ours = PETSC_FALSE, jacobi;
    PetscCall(PetscObjectGetName((PetscObject)pc, &name));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCJACOBI, &jacobi));
    if (name) PetscCall(PetscStrcmp(name, BRICK_JACOBI_NAME, &ours));
    if (ours && jacobi && bounds) PetscCall(BrickChebyshevBounds(ksp, dm, P));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  {
    /* an option names the type this PC takes when it reads its options (PCMG's smoothers do, after this): unless it
       names sor, that type is the user's choice */
    char type[64] = "";
    PetscCall(PetscOptionsGetString(((PetscObject)pc)->options, prefix, "-pc_type", type, sizeof(type), &given));
    if (given) {
      PetscBool sorgiven;
      PetscCall(PetscStrcmp(type, PCSOR, &sorgiven));
      if (!sorgiven) PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCheck(!given && brick->jacobi_for_sor, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP,
             "-%spc_type sor needs matrix entries, but the brick's level operators are matrix-free (MATSHELL); use -%spc_type jacobi (with Chebyshev), -%spc_type vertexpatch with -%sksp_type richardson, or -dm_mat_type aij", prefix ? prefix : "",
             prefix ? prefix : "", prefix ? prefix : "", prefix ? prefix : "");
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(PetscObjectSetName((PetscObject)pc, BRICK_JACOBI_NAME));
  PetscCall(PetscInfo(ksp, "level %" PetscInt_FMT ": PETSc's default smoother SOR needs matrix entries; Jacobi instead on the matrix-free operator\n", brick->level));
  if (bounds) PetscCall(BrickChebyshevBounds(ksp, dm, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCMG makes a distinct up smoother (-pc_mg_distinct_smoothup) as a copy of the down smoother's types before either
   reads its options, and the up smoother reads only -mg_levels_up_* ones: -mg_levels_pc_type vertexpatch alone leaves it at
   PETSc's Chebyshev/SOR. An up smoother given no type of its own takes the KSP type, PC type and iterations the options
   give the down smoother, so that -pc_mg_distinct_smoothup -mg_levels_up_pc_vertexpatch_reverse is a symmetric V-cycle. */
static PetscErrorCode BrickUpFromDown(KSP up, KSP down)
{
  const char *uprefix, *dprefix;
  char        type[64];
  PetscBool   given;
  PetscInt    its;
  PC          pc;

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(up, &uprefix));
  PetscCall(KSPGetOptionsPrefix(down, &dprefix));
  PetscCall(BrickOptionGiven((PetscObject)up, uprefix, "-pc_type", &given));
  if (given) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BrickOptionGiven((PetscObject)up, uprefix, "-ksp_type", &given));
  if (given) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsGetString(((PetscObject)down)->options, dprefix, "-pc_type", type, sizeof(type), &given));
  if (!given) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(up, &pc));
  PetscCall(PCSetType(pc, type));
  PetscCall(PetscOptionsGetString(((PetscObject)down)->options, dprefix, "-ksp_type", type, sizeof(type), &given));
  if (given) PetscCall(KSPSetType(up, type));
  PetscCall(PetscOptionsGetInt(((PetscObject)down)->options, dprefix, "-ksp_max_it", &its, &given));
  if (given) PetscCall(KSPSetTolerances(up, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, its));
  PetscCall(PetscInfo(up, "the up smoother takes the down smoother's types from the options of -%s\n", dprefix ? dprefix : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The brick's defaults for a KSP that solves with it (from its DMKSP operator callback, before the KSP and its PC set up).
   PCMG calls that callback on its intermediate levels and its coarse solve, not on its finest level, whose operator is
   the outer KSP's: the outer KSP's call sees to the levels' smoothers (all matrix-free when P is), which PCMG has
   made by then (PCSetFromOptions) and which take their options later (PCSetUp), so an option still wins. */
PetscErrorCode DMBrickKSPDefaults_Private(KSP ksp, DM dm, Mat P)
{
  PetscBool coarse, mg;
  PC        pc;

  PetscFunctionBegin;
  PetscCall(BrickIsMGCoarse(ksp, &coarse));
  if (coarse) PetscCall(BrickCoarseDefaults(ksp, dm));
  PetscCall(BrickSmootherDefaults(ksp, dm, P, PETSC_TRUE));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &mg));
  if (mg && pc->data) {
    PC_MG *pcmg = (PC_MG *)pc->data;
    for (PetscInt l = 1; l < pcmg->nlevels && pcmg->levels; l++) {
      KSP smoothers[2] = {pcmg->levels[l]->smoothd, pcmg->levels[l]->smoothu};
      if (smoothers[1] && smoothers[1] != smoothers[0]) PetscCall(BrickUpFromDown(smoothers[1], smoothers[0]));
      for (PetscInt s = 0; s < 2; s++)
        if (smoothers[s] && (s == 0 || smoothers[1] != smoothers[0])) PetscCall(BrickSmootherDefaults(smoothers[s], dm, P, (PetscBool)(l == pcmg->nlevels - 1))); /* P: the finest level's */
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
