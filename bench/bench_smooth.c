static const char help[] = "Times one smoothing step of PCVERTEXPATCH against one matrix-vector product of the same brick operator\n"
                           "(seed 001, Figure 2: the cost of a smoothing step in matvecs). The brick and the smoother come from the\n"
                           "options database (-dm_brick_*, -pc_vertexpatch_*); -reps n repetitions, the best of -trials t is kept.\n";

#include <petscvpatch.h>
#include <petsctime.h>

int main(int argc, char **argv)
{
  DM             dm;
  Mat            A;
  PC             pc;
  Vec            x, y, b, w;
  PetscInt       reps = 10, trials = 3, its, N;
  PetscLogDouble tmat = 1e30, tsmooth = 1e30, t0, t1;
  PetscRandom    rnd;
  PCRichardsonConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-trials", &trials, NULL));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMBrickCreateOperator(dm, MATSHELL, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecGetSize(x, &N));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCVERTEXPATCH));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
  /* warm up, then the best of several timed blocks */
  PetscCall(MatMult(A, x, y));
  PetscCall(PCApplyRichardson(pc, b, x, w, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
  for (PetscInt t = 0; t < trials; t++) {
    PetscCall(PetscBarrier((PetscObject)A));
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(A, x, y));
    PetscCall(PetscTime(&t1));
    tmat = PetscMin(tmat, (t1 - t0) / reps);
    PetscCall(PetscBarrier((PetscObject)A));
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < reps; r++) PetscCall(PCApplyRichardson(pc, b, x, w, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
    PetscCall(PetscTime(&t1));
    tsmooth = PetscMin(tsmooth, (t1 - t0) / reps);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "DoFs %" PetscInt_FMT " matvec %.4e s smooth %.4e s ratio %.2f MDoF/s-smooth %.2f\n", N, tmat, tsmooth, tsmooth / tmat, N / tsmooth / 1e6));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&w));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
