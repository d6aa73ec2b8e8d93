static const char help[] = "GPU check of PCVERTEXPATCH: one smoothing step (PCApply from zero, PCApplyRichardson from a random iterate)\n"
                           "with VECCUDA vectors (the CUDA patch kernels) against the same PC on host vectors (the CPU kernels),\n"
                           "multiplicative and additive, double and single precision, laplace and c0ip, each GPU kernel.\n"
                           "Options: -dim 2|3, -kmin, -kmax, -refine, -basic (laplace only, multiplicative and additive in double, multiplicative in\n"
                           "single: for meshes large enough that every GPU block runs several patches of a color), -max_blocks n (caps the grid of\n"
                           "the shared and mma kernels, so that on a small mesh every block runs several patches of a color).\n";

#include "checks.h"
#include "pc/vertexpatch/vpimpl.h"

static PetscErrorCode CheckOne(DM dm, Mat A, const char *op, PetscInt dim, PetscInt k, const char *opts, PetscReal tol, PetscRandom rnd)
{
  PC                          pc;
  Vec                         bg, xg, yg, wg, bh, xh, yh, wh, d;
  PetscInt                    n, its;
  PetscReal                   err[2] = {0, 0};
  PCRichardsonConvergedReason reason;
  char                        what[200];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_precision"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_residual"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_gpu_kernel"));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, "vertexpatch"));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCSetFromOptions(pc));
  /* the host reference in the full form of the 1D matrices, as the GPU kernels compute: the even-odd form changes the
     rounding, which the ill-conditioned C0IP patches (condition ~1e4-1e5 at k = 8) turn into differences of ~1e-11;
     tests/test_evenodd compares the two forms on the CPU */
  PetscCall(PCVertexPatchSetEvenOdd(pc, PETSC_FALSE));
  PetscCall(PCSetUp(pc));
  {
    /* -max_blocks: the smoother, made at set-up for the device vectors, runs its patches on that many blocks at most */
    PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
    PetscInt        maxblocks = 0;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-max_blocks", &maxblocks, NULL));
    if (maxblocks > 0) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s]: GPU smoother made at set-up, grid capped at %" PetscInt_FMT " blocks", op, dim, k, opts, maxblocks));
      PetscCall(CheckTrue(what, (PetscBool)(vp->gpu && !VPCudaSmootherSetMaxBlocks((VPCudaSmoother)vp->gpu, (int)maxblocks))));
    }
  }
  {
    /* the kernel in use: global where asked for, and for c0ip in 2D or above k = 5; shared otherwise */
    const PetscBool expect = (PetscBool) !(strstr(opts, "gpu_kernel global") || (op[0] == 'c' && (dim == 2 || k > 5)));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s]: GPU kernel %s", op, dim, k, opts, expect ? "shared" : "global"));
    PetscCall(CheckTrue(what, (PetscBool)(((PC_VertexPatch *)pc->data)->gpu_shared == expect)));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s]: tensor-core kernel %s", op, dim, k, opts, strstr(opts, "gpu_kernel mma") ? "on" : "off"));
    PetscCall(CheckTrue(what, (PetscBool)(((PC_VertexPatch *)pc->data)->gpu_mma == (strstr(opts, "gpu_kernel mma") != NULL))));
    /* the mma double steps of the 3D laplace at k = 2, 3 run one patch per warp (cuda/vpsmooth_mmawarp.cu); elsewhere a patch per block */
    const PetscBool warp = (PetscBool)(strstr(opts, "gpu_kernel mma") && op[0] == 'l' && dim == 3 && (k == 2 || k == 3));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s]: mma one patch per warp %s", op, dim, k, opts, warp ? "on" : "off"));
    PetscCall(CheckTrue(what, (PetscBool)(((PC_VertexPatch *)pc->data)->gpu && VPCudaSmootherMmaWarp((VPCudaSmoother)((PC_VertexPatch *)pc->data)->gpu) == (int)warp)));
  }
  PetscCall(DMCreateGlobalVector(dm, &bg));
  PetscCall(VecDuplicate(bg, &xg));
  PetscCall(VecDuplicate(bg, &yg));
  PetscCall(VecDuplicate(bg, &wg));
  PetscCall(VecGetLocalSize(bg, &n));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &bh));
  PetscCall(VecDuplicate(bh, &xh));
  PetscCall(VecDuplicate(bh, &yh));
  PetscCall(VecDuplicate(bh, &wh));
  PetscCall(VecDuplicate(bh, &d));
  PetscCall(VecSetRandom(bh, rnd));
  PetscCall(VecSetRandom(xh, rnd));
  PetscCall(VecCopy(bh, bg));
  PetscCall(VecCopy(xh, xg));
  for (PetscInt r = 0; r < 2; r++) {
    const PetscScalar *ga;
    PetscScalar       *da;
    if (r == 0) {
      PetscCall(PCApply(pc, bg, yg)); /* GPU */
      PetscCall(PCApply(pc, bh, yh)); /* CPU */
    } else {
      PetscCall(VecCopy(xg, yg));
      PetscCall(VecCopy(xh, yh));
      PetscCall(PCApplyRichardson(pc, bg, yg, wg, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
      PetscCall(PCApplyRichardson(pc, bh, yh, wh, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
    }
    PetscCall(VecGetArrayRead(yg, &ga));
    PetscCall(VecGetArray(d, &da));
    for (PetscInt i = 0; i < n; i++) da[i] = ga[i];
    PetscCall(VecRestoreArray(d, &da));
    PetscCall(VecRestoreArrayRead(yg, &ga));
    PetscCall(RelativeDifference(d, yh, &err[r]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s] %s: GPU vs CPU", op, dim, k, opts, r ? "PCApplyRichardson" : "PCApply"));
    PetscCall(CheckLessThan(what, err[r], tol));
  }
  {
    /* the 3D laplace shared kernel: the lines per thread asked for with -pc_vertexpatch_gpu_lines are the ones in use */
    PC_VertexPatch *vp     = (PC_VertexPatch *)pc->data;
    const int       single = strstr(opts, "precision single") != NULL;
    PetscInt        want   = -1;
    PetscBool       set;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-pc_vertexpatch_gpu_lines", &want, &set));
    if (vp->gpu && op[0] == 'l' && dim == 3 && k >= 2 && vp->gpu_shared && !(vp->gpu_mma && !single)) {
      const int lines = VPCudaSmootherGetLines((VPCudaSmoother)vp->gpu, single);
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s]: %d line(s) per thread in use, %" PetscInt_FMT " asked for", op, dim, k, opts, lines, want));
      PetscCall(CheckTrue(what, (PetscBool)(set && want >= 0 ? lines == (int)want : (lines >= 0 && lines <= 3))));
    }
  }
  PetscCall(VecDestroy(&bg));
  PetscCall(VecDestroy(&xg));
  PetscCall(VecDestroy(&yg));
  PetscCall(VecDestroy(&wg));
  PetscCall(VecDestroy(&bh));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&wh));
  PetscCall(VecDestroy(&d));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 4, refine = 2;
  PetscBool   basic = PETSC_FALSE;
  PetscRandom rnd;
  const char *ops[] = {"laplace", "c0ip"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-basic", &basic, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt o = 0; o < (basic ? 1 : 2); o++)
    for (PetscInt k = PetscMax(kmin, o == 1 ? 2 : 1); k <= kmax; k++) {
      const PetscInt  cells[3] = {2, 3, 2};
      const PetscReal lower[3] = {0.0, -0.5, 0.0}, upper[3] = {1.5, 1.0, 0.75};
      const PetscReal tols = o == 1 ? 5e-4 : 1e-5; /* float vs double (summation orders differ); the C0IP patches are worse conditioned (condition ~1e4-1e5 at k = 8) */
      DM              dm;
      Mat             A;

      PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_operator", ops[o]));
      PetscCall(PetscOptionsSetValue(NULL, "-dm_vec_type", "cuda"));
      PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &dm));
      PetscCall(DMCreateMatrix(dm, &A));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative", 1e-12, rnd));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type additive", 1e-12, rnd));
      if (basic) {
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_precision single", tols, rnd));
        PetscCall(MatDestroy(&A));
        PetscCall(DMDestroy(&dm));
        continue;
      }
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_residual global", 1e-12, rnd));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type additive -pc_vertexpatch_residual global", 1e-12, rnd));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_precision single", tols, rnd));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type additive -pc_vertexpatch_precision single", tols, rnd));
      if (o == 1 && dim == 3 && k <= 5) { /* c0ip: the default above is the shared-memory kernel; the global-scratch one as well */
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_gpu_kernel global", 1e-12, rnd));
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type additive -pc_vertexpatch_gpu_kernel global -pc_vertexpatch_residual global", 1e-12, rnd));
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_gpu_kernel global -pc_vertexpatch_precision single", tols, rnd));
      }
      if (o == 0) { /* laplace: the default above is the shared-memory kernel; the global-scratch one as well */
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_gpu_kernel global", 1e-12, rnd));
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type additive -pc_vertexpatch_gpu_kernel global -pc_vertexpatch_residual global", 1e-12, rnd));
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_gpu_kernel global -pc_vertexpatch_precision single", tols, rnd));
        /* and the FP64 tensor-core one (its float steps are the shared kernel's) */
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_gpu_kernel mma", 1e-12, rnd));
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type additive -pc_vertexpatch_gpu_kernel mma", 1e-12, rnd));
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_gpu_kernel mma -pc_vertexpatch_residual global", 1e-12, rnd));
        PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_gpu_kernel mma -pc_vertexpatch_precision single", tols, rnd));
      }
      PetscCall(MatDestroy(&A));
      PetscCall(DMDestroy(&dm));
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
