static const char help[] = "GPU check of the brick operators: the matrix-free product on VECCUDA vectors (the CUDA Kronecker kernels)\n"
                           "against the assembled matrix on the host, random vectors, laplace and c0ip, 2D and 3D, several degrees.\n"
                           "Options: -dim 2|3, -kmin, -kmax, -refine.\n";

#include "checks.h"

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 4, refine = 2;
  PetscRandom rnd;
  const char *ops[] = {"laplace", "c0ip"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt o = 0; o < 2; o++)
    for (PetscInt k = PetscMax(kmin, o == 1 ? 2 : 1); k <= kmax; k++) {
      const PetscInt  cells[3] = {2, 3, 2};
      const PetscReal lower[3] = {0.0, -0.5, 0.0}, upper[3] = {1.5, 1.0, 0.75};
      DM              dm;
      Mat             A, Aaij;
      Vec             x, y, ya;
      VecType         vt;
      PetscReal       rel = 0.0;
      char            what[160];

      PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_operator", ops[o]));
      PetscCall(PetscOptionsSetValue(NULL, "-dm_vec_type", "cuda"));
      PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &dm));
      PetscCall(DMCreateMatrix(dm, &A));
      PetscCall(DMBrickCreateOperator(dm, MATAIJ, &Aaij));
      PetscCall(DMCreateGlobalVector(dm, &x));
      PetscCall(VecGetType(x, &vt));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " vectors are %s", ops[o], dim, k, vt));
      PetscCall(CheckTrue(what, (PetscBool)(strstr(vt, "cuda") != NULL)));
      PetscCall(VecDuplicate(x, &y));
      PetscCall(VecDuplicate(x, &ya));
      for (PetscInt t = 0; t < 2; t++) {
        PetscCall(VecSetRandom(x, rnd));
        PetscCall(MatMult(A, x, y));     /* the CUDA kernels on the device arrays */
        PetscCall(MatMult(Aaij, x, ya)); /* assembled, on the host */
        PetscCall(RelativeDifference(y, ya, &rel));
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " GPU matrix-free vs host assembled, random vector %" PetscInt_FMT, ops[o], dim, k, t));
        PetscCall(CheckLessThan(what, rel, 1e-12));
      }
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(VecDestroy(&ya));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&Aaij));
      PetscCall(DMDestroy(&dm));
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
