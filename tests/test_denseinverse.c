static const char help[] = "Checks PCDENSEINVERSE: its apply (and transposed apply) against a Cholesky solve of the assembled operator of a brick\n"
                           "(random vectors, 1e-12) for CG Q_k in 2D and 3D; -negate: the negated operator (not positive definite, an error);\n"
                           "-nonsymmetric: one off-diagonal entry changed (not symmetric, an error).\n"
                           "Options: -dim d, -degree k, -refine n, -cells, -negate.\n";

#include "checks.h"

int main(int argc, char **argv)
{
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const PetscInt  cells[3] = {2, 3, 2};
  PetscInt        dim = 3, degree = 3, refine = 0;
  PetscBool       negate = PETSC_FALSE, nonsym = PETSC_FALSE;
  DM              dm;
  Mat             A;
  PC              inv, chol;
  Vec             b, x, y;
  PetscRandom     rnd;
  PetscReal       rel;
  char            what[128];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-degree", &degree, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-negate", &negate, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nonsymmetric", &nonsym, NULL));
  PetscCall(CreateBrick(dim, cells, lower, upper, degree, refine, &dm));
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  if (negate) PetscCall(MatScale(A, -1.0));
  if (nonsym) { /* one off-diagonal entry changed on one side */
    PetscCall(MatSetValue(A, 0, 1, 0.5, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &inv));
  PetscCall(PCSetOperators(inv, A, A));
  PetscCall(PCSetType(inv, PCDENSEINVERSE));
  PetscCall(PCSetFromOptions(inv));
  PetscCall(PCSetUp(inv));
  PetscCall(PCView(inv, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &chol));
  PetscCall(PCSetOperators(chol, A, A));
  PetscCall(PCSetType(chol, PCCHOLESKY));
  PetscCall(PCSetUp(chol));
  PetscCall(PCApply(chol, b, y));
  PetscCall(PCApply(inv, b, x));
  PetscCall(RelativeDifference(x, y, &rel));
  {
    PetscInt n;
    PetscCall(VecGetSize(b, &n));
    PetscCall(PetscSNPrintf(what, sizeof(what), "denseinverse apply = Cholesky solve, %dD Q%d, %d unknowns", (int)dim, (int)degree, (int)n));
  }
  PetscCall(CheckLessThan(what, rel, 1e-12));
  PetscCall(PCApplyTranspose(inv, b, x));
  PetscCall(RelativeDifference(x, y, &rel));
  PetscCall(CheckLessThan("denseinverse transposed apply = Cholesky solve", rel, 1e-12));
  /* a second set-up after the matrix changed (PCReset path): 2 A gives half the solution */
  PetscCall(MatScale(A, 2.0));
  PetscCall(PCSetOperators(inv, A, A));
  PetscCall(PCSetUp(inv));
  PetscCall(PCApply(inv, b, x));
  PetscCall(VecScale(x, 2.0));
  PetscCall(RelativeDifference(x, y, &rel));
  PetscCall(CheckLessThan("denseinverse after a new matrix (2 A): 2 x = Cholesky solve of A", rel, 1e-12));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(PCDestroy(&inv));
  PetscCall(PCDestroy(&chol));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
