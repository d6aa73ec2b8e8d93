static const char help[] = "Throughput of the brick operator (MatMult) and of one vertex-patch smoothing step (colored multiplicative,\n"
                           "local residual + fdm) on whatever vectors -dm_vec_type gives (cuda: the GPU kernels). Prints one line:\n"
                           "dim k DoFs, matvec time, MDoF/s, GFLOP/s (as logged), smoothing time, MDoF/s, GFLOP/s.\n"
                           "Options: the brick's (-dm_brick_*), -reps n, and -pc_vertexpatch_* for the smoother.\n";

#include <petscvpatch.h>
#include <petsctime.h>

int main(int argc, char **argv)
{
  DM             dm;
  Mat            A;
  PC             pc;
  Vec            x, y, b, w;
  PetscInt       reps = 20, n, dim, k, its;
  PetscLogDouble t0, t1, tm, ts, f0, f1, fm, fs;
  PetscReal      nrm;
  PetscRandom    rnd;
  PCRichardsonConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMBrickGetInfo(dm, &dim, NULL, &k, NULL));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecGetSize(x, &n));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, "vertexpatch"));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  /* warm up (first products build the GPU data), then time reps of each; VecNorm synchronizes */
  PetscCall(MatMult(A, x, y));
  PetscCall(PCApplyRichardson(pc, b, x, w, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscGetFlops(&f0));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(A, x, y));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscGetFlops(&f1));
  tm = (t1 - t0) / reps;
  fm = (f1 - f0) / reps;
  PetscCall(PetscGetFlops(&f0));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(PCApplyRichardson(pc, b, x, w, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
  PetscCall(VecNorm(x, NORM_2, &nrm));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscGetFlops(&f1));
  ts = (t1 - t0) / reps;
  fs = (f1 - f0) / reps;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dim %" PetscInt_FMT " k %" PetscInt_FMT " DoFs %" PetscInt_FMT " matvec %.3e s %.1f MDoF/s %.1f GFLOP/s smooth %.3e s %.1f MDoF/s %.1f GFLOP/s\n", dim, k, n, tm, n / tm * 1e-6, fm / tm * 1e-9, ts,
                        n / ts * 1e-6, fs / ts * 1e-9));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&w));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
