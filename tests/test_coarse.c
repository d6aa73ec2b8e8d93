static const char help[] = "Checks what the brick decides about its coarse problem: the size DMBrickGetOperatorSize() counts against the\n"
                           "assembled operator (rows and nonzeros, every operator and degree), and the levels the hierarchy goes\n"
                           "below the coarse grid (-dm_brick_coarsen_below).\n"
                           "Options: -dim 2|3, -kmin, -kmax, -cells (the grid of the size checks); -forest: the size checks only, on the forest\n"
                           "that -dm_brick_remove / -dm_brick_periodic / -dm_brick_partition p4est describe.\n";

#include "checks.h"

/* rows and nonzeros of the assembled operator against the count */
static PetscErrorCode CheckSize(PetscInt dim, const char op[], PetscInt k)
{
  const PetscInt  cells[3] = {3, 2, 2};
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  DM              dm;
  Mat             A;
  MatInfo         info;
  PetscInt        rows, M;
  PetscInt64      nnz;
  char            what[160];

  PetscFunctionBeginUser;
  /* CreateBrick takes the operator from the options */
  PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_operator", op));
  PetscCall(CreateBrick(dim, cells, lower, upper, k, 0, &dm));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_brick_operator"));
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCall(DMBrickGetOperatorSize(dm, &rows, &nnz));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT ": counted %" PetscInt_FMT " rows, %" PetscInt64_FMT " nonzeros = assembled %" PetscInt_FMT ", %.0f", op, dim, k, rows, nnz, M, info.nz_used));
  PetscCall(CheckTrue(what, (PetscBool)(rows == M && (PetscLogDouble)nnz == info.nz_used)));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

/* the hierarchy below a coarse grid: as far as every direction halves (keeping an interior node), or -dm_brick_coarsen_below */
static PetscErrorCode CheckBelow(PetscInt dim, const PetscInt cells[], PetscInt degree, PetscInt coarsenbelow, PetscInt expect)
{
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  DM              dm, c = NULL;
  PetscInt        refine, level, ccells[3], clevel;
  char            what[200], opt[32];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "%" PetscInt_FMT, coarsenbelow));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_coarsen_below", opt));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMBrickSetDimension(dm, dim));
  PetscCall(DMBrickSetCells(dm, cells));
  PetscCall(DMBrickSetDomain(dm, lower, upper));
  PetscCall(DMBrickSetDegree(dm, degree));
  PetscCall(DMSetRefineLevel(dm, 1));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_brick_coarsen_below"));
  PetscCall(DMGetRefineLevel(dm, &refine));
  PetscCall(DMBrickGetInfo(dm, NULL, NULL, NULL, &level));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " cells %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", -dm_brick_coarsen_below %" PetscInt_FMT ": %" PetscInt_FMT " levels below (refine level %" PetscInt_FMT ", brick level %" PetscInt_FMT ")", dim, degree, cells[0], cells[1],
                         dim == 3 ? cells[2] : 1, coarsenbelow, expect, refine, level));
  PetscCall(CheckTrue(what, (PetscBool)(refine == 1 + expect && level == 1)));
  /* PCMG's hierarchy: coarsening refine times reaches the coarsest level, -expect, whose cells are cells / 2^expect */
  {
    DM f = dm;
    PetscCall(PetscObjectReference((PetscObject)f));
    for (PetscInt i = 0; i < refine; i++) {
      PetscCall(DMCoarsen(f, MPI_COMM_NULL, &c));
      PetscCall(DMDestroy(&f));
      f = c;
    }
    PetscCall(DMBrickGetInfo(c, NULL, ccells, NULL, &clevel));
    PetscBool ok = (PetscBool)(clevel == -expect);
    for (PetscInt d = 0; d < dim; d++) ok = (PetscBool)(ok && ccells[d] == cells[d] >> expect);
    PetscCall(PetscSNPrintf(what, sizeof(what), "  coarsened %" PetscInt_FMT " times: level %" PetscInt_FMT ", %" PetscInt_FMT " cells along x", refine, clevel, ccells[0]));
    PetscCall(CheckTrue(what, ok));
    PetscCall(DMDestroy(&c));
  }
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 8;
  const char *ops[3] = {"laplace", "c0ip", "sipg"};
  PetscBool   forest;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-forest", &forest));
  for (PetscInt o = 0; o < 3; o++)
    for (PetscInt k = PetscMax(kmin, o == 1 ? 2 : 1); k <= kmax; k++) PetscCall(CheckSize(dim, ops[o], k));
  if (!forest) {
    const PetscInt c464[3] = {4, 6, 4}, c888[3] = {8, 8, 8}, c422[3] = {4, 2, 2}, c333[3] = {3, 3, 3};
    PetscCall(CheckBelow(dim, c464, 2, -1, 1));
    PetscCall(CheckBelow(dim, c888, 2, -1, 3));
    PetscCall(CheckBelow(dim, c888, 2, 2, 2));
    PetscCall(CheckBelow(dim, c888, 2, 0, 0));
    PetscCall(CheckBelow(dim, c888, 1, -1, 2)); /* degree 1 keeps 2 cells: one interior node */
    PetscCall(CheckBelow(dim, c422, 1, -1, 0));
    PetscCall(CheckBelow(dim, c422, 3, -1, 1));
    PetscCall(CheckBelow(dim, c333, 3, -1, 0));
  }
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
