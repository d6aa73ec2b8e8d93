static const char help[] = "Linked against PETSc only: creates a \"brick\" DM, which exists only once -dll_append lib/libpetscvpatch.so\n"
                           "has loaded the plugin, then applies its operator to the constant vector and prints sizes and the result.\n";

#include <petscdm.h>

int main(int argc, char **argv)
{
  DM        dm;
  Mat       A;
  Vec       x, y;
  PetscInt  N;
  PetscReal norm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(DMCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetType(dm, "brick"));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecNorm(y, NORM_1, &norm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "brick DoFs %" PetscInt_FMT " |A 1|_1 %.12e\n", N, (double)norm));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
