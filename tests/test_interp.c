static const char help[] = "Checks the brick's grid transfer: matrix-free prolongation and restriction vs assembled (random vectors),\n"
                           "adjointness, and the Galerkin identity P^T A_fine P = A_coarse of nested Q_k spaces.\n"
                           "Options: -dim 2|3, -kmin, -kmax.\n";

#include "checks.h"

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 8;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt k = kmin; k <= kmax; k++) {
    const PetscInt  cells[3] = {2, 3, 2};
    const PetscReal lower[3] = {0.0, -1.0, 0.0}, upper[3] = {3.0, 1.0, 0.5};
    DM              dmf, dmc;
    Mat             Pshell, Paij, Af, Ac;
    Vec             xc, yc, zc, xf, yf, zf;
    PetscReal       rel, a, b;
    char            what[128];

    PetscCall(CreateBrick(dim, cells, lower, upper, k, 1, &dmf));
    PetscCall(DMCoarsen(dmf, MPI_COMM_NULL, &dmc));
    PetscCall(DMCreateInterpolation(dmc, dmf, &Pshell, NULL));
    PetscCall(DMBrickCreateInterpolation(dmc, dmf, MATAIJ, &Paij));
    PetscCall(DMCreateGlobalVector(dmc, &xc));
    PetscCall(VecDuplicate(xc, &yc));
    PetscCall(VecDuplicate(xc, &zc));
    PetscCall(DMCreateGlobalVector(dmf, &xf));
    PetscCall(VecDuplicate(xf, &yf));
    PetscCall(VecDuplicate(xf, &zf));

    PetscCall(VecSetRandom(xc, rnd));
    PetscCall(MatMult(Pshell, xc, yf));
    PetscCall(MatMult(Paij, xc, zf));
    PetscCall(RelativeDifference(yf, zf, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " prolongation matrix-free vs assembled", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));

    PetscCall(VecSetRandom(xf, rnd));
    PetscCall(MatMultTranspose(Pshell, xf, yc));
    PetscCall(MatMultTranspose(Paij, xf, zc));
    PetscCall(RelativeDifference(yc, zc, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " restriction matrix-free vs assembled", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));

    /* (P^T xf, xc) = (xf, P xc) */
    PetscCall(VecDot(yc, xc, &a));
    PetscCall(VecDot(xf, yf, &b));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " restriction is the adjoint of prolongation", dim, k));
    PetscCall(CheckLessThan(what, PetscAbsReal(a - b) / PetscAbsReal(b), 1e-12));

    /* nested spaces: the Galerkin product equals the coarse discretization */
    PetscCall(DMCreateMatrix(dmf, &Af));
    PetscCall(DMCreateMatrix(dmc, &Ac));
    PetscCall(MatMult(Pshell, xc, yf));
    PetscCall(MatMult(Af, yf, zf));
    PetscCall(MatMultTranspose(Pshell, zf, yc));
    PetscCall(MatMult(Ac, xc, zc));
    PetscCall(RelativeDifference(yc, zc, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " Galerkin identity P^T A_f P = A_c", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));

    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&yc));
    PetscCall(VecDestroy(&zc));
    PetscCall(VecDestroy(&xf));
    PetscCall(VecDestroy(&yf));
    PetscCall(VecDestroy(&zf));
    PetscCall(MatDestroy(&Pshell));
    PetscCall(MatDestroy(&Paij));
    PetscCall(MatDestroy(&Af));
    PetscCall(MatDestroy(&Ac));
    PetscCall(DMDestroy(&dmc));
    PetscCall(DMDestroy(&dmf));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
