static const char help[] = "Checks PCHFEM (2D Q1 Poisson): the direct solve against an LU factorization of the assembled matrix (1e-12) for\n"
                           "every macro level, on square and non-square boxes; the node-set sizes against eq. 6-8 of [RTRZ21]; KSPMatSolve\n"
                           "against single solves. Options: -refine n (of a -cells coarse grid, default 2,2 and 2,3).\n";

#include "checks.h"

static PetscErrorCode CheckLevel(const PetscInt cells[], PetscInt refine, PetscInt m, const PetscReal upper[], PetscRandom rnd)
{
  const PetscReal lower[3] = {0, 0, 0};
  DM              dm;
  Mat             A;
  KSP             ksp, lu;
  PC              pc, pclu;
  Vec             b, x, y;
  PetscReal       rel;
  PetscInt        nC, nE, nI, mm, nx, ny, s;
  char            what[192];

  PetscFunctionBeginUser;
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMBrickSetDimension(dm, 2));
  PetscCall(DMBrickSetCells(dm, cells));
  PetscCall(DMBrickSetDomain(dm, lower, upper));
  PetscCall(DMBrickSetDegree(dm, 1));
  PetscCall(DMSetRefineLevel(dm, refine));
  PetscCall(DMSetUp(dm));
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCHFEM));
  {
    char v[32];
    PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, m));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_macro_level", v));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &lu));
  PetscCall(KSPSetOperators(lu, A, A));
  PetscCall(KSPSetType(lu, KSPPREONLY));
  PetscCall(KSPGetPC(lu, &pclu));
  PetscCall(PCSetType(pclu, PCLU));
  PetscCall(KSPSolve(lu, b, y));
  PetscCall(RelativeDifference(x, y, &rel));
  PetscCall(PCHFEMGetSets(pc, &nC, &nE, &nI, &mm));
  nx = cells[0] << refine;
  ny = cells[1] << refine;
  s  = (PetscInt)1 << (refine - m);
  PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT " x %" PetscInt_FMT " cells, macro level %" PetscInt_FMT ": direct solve = LU", nx, ny, m));
  PetscCall(CheckLessThan(what, rel, 1e-12));
  if (nx == ny) {
    /* eq. 6-8 with h = 1/nx, h0 = s h */
    const PetscInt ih = nx, ih0 = nx / s;
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT "^2 cells, h0 = 1/%" PetscInt_FMT ": |C|, |E|, |I| = eq. 6-8", nx, ih0));
    PetscCall(CheckTrue(what, (PetscBool)(mm == m && nC == (ih0 - 1) * (ih0 - 1) && nE == 2 * (ih0 - 1) * (ih - ih0) && nI == (ih - ih0) * (ih - ih0))));
  }
  {
    /* many right-hand sides: KSPMatSolve = column-wise solves */
    const PetscInt nrhs = 3;
    Mat            Bm, Xm;
    PetscInt       nloc;
    PetscReal      worst = 0.0;
    PetscCall(VecGetLocalSize(b, &nloc));
    PetscCall(MatCreateDense(PETSC_COMM_WORLD, nloc, PETSC_DECIDE, PETSC_DETERMINE, nrhs, NULL, &Bm));
    PetscCall(MatDuplicate(Bm, MAT_DO_NOT_COPY_VALUES, &Xm));
    PetscCall(MatSetRandom(Bm, rnd));
    PetscCall(KSPMatSolve(ksp, Bm, Xm));
    for (PetscInt j = 0; j < nrhs; j++) {
      Vec bj, xj;
      PetscCall(MatDenseGetColumnVecRead(Bm, j, &bj));
      PetscCall(KSPSolve(ksp, bj, y));
      PetscCall(MatDenseRestoreColumnVecRead(Bm, j, &bj));
      PetscCall(MatDenseGetColumnVecRead(Xm, j, &xj));
      PetscCall(RelativeDifference(xj, y, &rel));
      PetscCall(MatDenseRestoreColumnVecRead(Xm, j, &xj));
      worst = PetscMax(worst, rel);
    }
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT " x %" PetscInt_FMT ", macro level %" PetscInt_FMT ": KSPMatSolve = 3 single solves", nx, ny, m));
    PetscCall(CheckLessThan(what, worst, 1e-13));
    PetscCall(MatDestroy(&Bm));
    PetscCall(MatDestroy(&Xm));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(KSPDestroy(&lu));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscRandom     rnd;
  const PetscReal square[3] = {1, 1, 1}, box[3] = {2.0, 0.75, 1};
  const PetscInt  one[3] = {1, 1, 1}, rect[3] = {2, 3, 1};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  for (PetscInt m = 0; m < 5; m++) PetscCall(CheckLevel(one, 5, m, square, rnd));
  for (PetscInt m = 0; m < 3; m++) PetscCall(CheckLevel(rect, 3, m, box, rnd));
  {
    /* the default macro grid: the fewest flops per solve, h0 = sqrt(h) for Q1 ([RTRZ21] Table 3): h = 1/64 -> h0 = 1/8, level 3 */
    DM        dm;
    KSP       ksp;
    PC        pc;
    Vec       b, x;
    PetscInt  m;
    PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
    PetscCall(DMBrickSetDimension(dm, 2));
    PetscCall(DMBrickSetCells(dm, one));
    PetscCall(DMBrickSetDegree(dm, 1));
    PetscCall(DMSetRefineLevel(dm, 6));
    PetscCall(DMSetUp(dm));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetDM(ksp, dm));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCHFEM));
    PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_macro_level"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(DMCreateGlobalVector(dm, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PCHFEMGetSets(pc, NULL, NULL, NULL, &m));
    PetscCall(CheckTrue("HFEM default macro level on 64 x 64 cells is 3 (h0 = 1/8 = sqrt(h), the fewest flops)", (PetscBool)(m == 3)));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
