static const char help[] = "Linked against PETSc only: an application that knows nothing of the plugin solves A x = 1 with the\n"
                           "operator of a \"brick\" DM (-dll_append lib/libpetscvpatch.so loads it) through KSPSetDM(), with every\n"
                           "solver choice left to the options (PETSc's defaults where none is given). Prints the iterations,\n"
                           "the converged reason and the true residual |b - A x|/|b|, b = s 1 (-rhs_scale s, default 1).\n";

#include <petscdm.h>
#include <petscksp.h>

int main(int argc, char **argv)
{
  DM                 dm;
  KSP                ksp;
  Mat                A;
  Vec                x, b, r;
  PetscInt           its, N;
  PetscReal          rnorm, bnorm;
  KSPConvergedReason reason;
  PetscReal          scale = 1.0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rhs_scale", &scale, NULL));
  PetscCall(DMCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetType(dm, "brick"));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(VecSet(b, scale));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(VecGetSize(x, &N));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "DoFs %" PetscInt_FMT "\nLinear solve %s due to %s iterations %" PetscInt_FMT "\ntrue residual |b - A x|/|b| %.3e\n", N, reason > 0 ? "converged" : "did not converge", KSPConvergedReasons[reason], its,
                        (double)(rnorm / bnorm)));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
