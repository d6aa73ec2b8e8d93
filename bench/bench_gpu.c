static const char help[] = "Throughput of the brick operator (MatMult) and of one vertex-patch smoothing step (colored multiplicative,\n"
                           "local residual + fdm) on whatever vectors -dm_vec_type gives (cuda: the GPU kernels), for each GPU\n"
                           "smoothing kernel (shared where it applies: laplace, 3D c0ip at k = 2..5; global) in double and single precision, and the FP64\n"
                           "tensor-core one (mma) in double, and for 3D laplace the generic one-line shared kernel (-pc_vertexpatch_gpu_lines 0) beside\n"
                           "the default choice. Prints one line: dim k DoFs, matvec time, MDoF/s, GFLOP/s (as logged), then per kernel and precision: smoothing time,\n"
                           "MDoF/s, GFLOP/s. Options: the brick's (-dm_brick_*), -reps n, and -pc_vertexpatch_* for the smoother.\n";

#include <petscvpatch.h>
#include <petsctime.h>

/* reps smoothing steps after a warm-up (which builds the GPU data); VecNorm synchronizes */
static PetscErrorCode TimeSmoothing(PC pc, Vec b, Vec x, Vec w, PetscInt reps, PetscLogDouble *t, PetscLogDouble *f)
{
  PetscInt                    its;
  PetscReal                   nrm;
  PetscLogDouble              t0, t1, f0, f1;
  PCRichardsonConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PCSetUp(pc));
  PetscCall(PCApplyRichardson(pc, b, x, w, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
  PetscCall(VecNorm(x, NORM_2, &nrm));
  PetscCall(PetscGetFlops(&f0));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(PCApplyRichardson(pc, b, x, w, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
  PetscCall(VecNorm(x, NORM_2, &nrm));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscGetFlops(&f1));
  *t = (t1 - t0) / reps;
  *f = (f1 - f0) / reps;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  DM             dm;
  Mat            A;
  PC             pc;
  Vec            x, y, b, w;
  PetscInt       reps = 20, n, dim, k;
  PetscLogDouble t0, t1, tm, f0, f1, fm;
  PetscReal      nrm;
  PetscRandom    rnd;
  const char    *opname;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMBrickGetInfo(dm, &dim, NULL, &k, NULL));
  PetscCall(DMBrickGetOperator(dm, &opname));
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
  PetscCall(MatMult(A, x, y));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscGetFlops(&f0));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(A, x, y));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscGetFlops(&f1));
  tm = (t1 - t0) / reps;
  fm = (f1 - f0) / reps;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dim %" PetscInt_FMT " k %" PetscInt_FMT " DoFs %" PetscInt_FMT " matvec %.3e s %.1f MDoF/s %.1f GFLOP/s", dim, k, n, tm, n / tm * 1e-6, fm / tm * 1e-9));
  /* the shared-memory kernel applies to laplace and to c0ip in 3D with k = 2..5 (PCVERTEXPATCH refuses it otherwise) */
  for (PetscInt kern = 0; kern < 2; kern++)
    for (PetscInt prec = 0; prec < 2; prec++) {
      PetscLogDouble ts = 0, fs = 0;
      PetscBool      lap, c0ip, shared;
      PetscCall(PetscStrcmp(opname, "laplace", &lap));
      PetscCall(PetscStrcmp(opname, "c0ip", &c0ip));
      shared = (PetscBool)(lap || (c0ip && dim == 3 && k >= 2 && k <= 5));
      if (kern == 0 && shared) {
        PetscCall(PCVertexPatchSetGPUKernel(pc, PC_VERTEXPATCH_GPU_KERNEL_SHARED));
      } else if (kern == 1) PetscCall(PCVertexPatchSetGPUKernel(pc, PC_VERTEXPATCH_GPU_KERNEL_GLOBAL));
      if (kern == 1 || shared) {
        PetscCall(PCVertexPatchSetPrecision(pc, prec ? PC_VERTEXPATCH_SINGLE_PRECISION : PC_VERTEXPATCH_DOUBLE));
        PetscCall(TimeSmoothing(pc, b, x, w, reps, &ts, &fs));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, " smooth_%s_%s %.3e s %.1f MDoF/s %.1f GFLOP/s", kern ? "global" : "shared", prec ? "single" : "double", ts, n / ts * 1e-6, fs / ts * 1e-9));
      } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, " smooth_shared_%s n/a s n/a MDoF/s n/a GFLOP/s", prec ? "single" : "double"));
    }
  {
    /* the FP64 tensor-core kernel (laplace; its float steps are the shared kernel's, so double only) */
    PetscBool lap;
    PetscCall(PetscStrcmp(opname, "laplace", &lap));
    if (lap) {
      PetscLogDouble ts = 0, fs = 0;
      PetscCall(PCVertexPatchSetGPUKernel(pc, PC_VERTEXPATCH_GPU_KERNEL_MMA));
      PetscCall(PCVertexPatchSetPrecision(pc, PC_VERTEXPATCH_DOUBLE));
      PetscCall(TimeSmoothing(pc, b, x, w, reps, &ts, &fs));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " smooth_mma_double %.3e s %.1f MDoF/s %.1f GFLOP/s", ts, n / ts * 1e-6, fs / ts * 1e-9));
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, " smooth_mma_double n/a s n/a MDoF/s n/a GFLOP/s"));
  }
  {
    /* 3D laplace, k >= 2: the shared kernel above runs with the lines per thread chosen by degree and precision
       (-pc_vertexpatch_gpu_lines -1); here the generic one-line kernel (0) beside it */
    PetscBool lap;
    PetscCall(PetscStrcmp(opname, "laplace", &lap));
    for (PetscInt prec = 0; prec < 2; prec++) {
      if (lap && dim == 3 && k >= 2) {
        PetscLogDouble ts = 0, fs = 0;
        PetscCall(PCVertexPatchSetGPUKernel(pc, PC_VERTEXPATCH_GPU_KERNEL_SHARED));
        PetscCall(PCVertexPatchSetGPULines(pc, 0));
        PetscCall(PCVertexPatchSetPrecision(pc, prec ? PC_VERTEXPATCH_SINGLE_PRECISION : PC_VERTEXPATCH_DOUBLE));
        PetscCall(TimeSmoothing(pc, b, x, w, reps, &ts, &fs));
        PetscCall(PCVertexPatchSetGPULines(pc, -1));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, " smooth_generic_%s %.3e s %.1f MDoF/s %.1f GFLOP/s", prec ? "single" : "double", ts, n / ts * 1e-6, fs / ts * 1e-9));
      } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, " smooth_generic_%s n/a s n/a MDoF/s n/a GFLOP/s", prec ? "single" : "double"));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
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
