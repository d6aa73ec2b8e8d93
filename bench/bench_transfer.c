static const char help[] = "Times the brick's grid transfer between the finest level and the next coarser one (the shell of\n"
                           "DMCreateInterpolation): -reps applications of the prolongation, then of the restriction, after one\n"
                           "untimed application of each; prints the mean time of one and the norm of the restricted vector (the\n"
                           "same digits from one build to the next when the arithmetic is unchanged). -dm_brick_* options set the mesh.\n";

#include <petscvpatch.h>
#include <petsctime.h>

int main(int argc, char **argv)
{
  DM             dmf, dmc;
  Mat            P;
  Vec            xc, xf;
  PetscLogDouble t0, t1, t2;
  PetscReal      norm;
  PetscInt       reps = 30;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCheck(reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT ": allowed a positive number", reps);
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dmf));
  PetscCall(DMSetFromOptions(dmf));
  PetscCall(DMSetUp(dmf));
  PetscCall(DMCoarsen(dmf, PETSC_COMM_WORLD, &dmc));
  PetscCall(DMCreateInterpolation(dmc, dmf, &P, NULL));
  PetscCall(DMCreateGlobalVector(dmc, &xc));
  PetscCall(DMCreateGlobalVector(dmf, &xf));
  PetscCall(VecSetRandom(xc, NULL));
  PetscCall(MatMult(P, xc, xf));
  PetscCall(MatMultTranspose(P, xf, xc));
  /* the clock reads after the device has run the queued work (DMBrickSynchronize(): a barrier on the host) */
  PetscCall(DMBrickSynchronize(dmf));
  PetscCall(PetscTime(&t0));
  for (PetscInt i = 0; i < reps; i++) PetscCall(MatMult(P, xc, xf));
  PetscCall(DMBrickSynchronize(dmf));
  PetscCall(PetscTime(&t1));
  for (PetscInt i = 0; i < reps; i++) PetscCall(MatMultTranspose(P, xf, xc));
  PetscCall(DMBrickSynchronize(dmf));
  PetscCall(PetscTime(&t2));
  PetscCall(VecNorm(xc, NORM_2, &norm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "prolongation %.3f ms, restriction %.3f ms (mean of %" PetscInt_FMT "), norm %.10e\n", 1e3 * (t1 - t0) / reps, 1e3 * (t2 - t1) / reps, reps, (double)norm));
  PetscCall(MatDestroy(&P));
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&xf));
  PetscCall(DMDestroy(&dmc));
  PetscCall(DMDestroy(&dmf));
  PetscCall(PetscFinalize());
  return 0;
}
