/* The default damping of the additive smoother where the operator gives no proven bound.

   The additive step is x <- x + omega B (b - A x), B = sum_j R_j^T A_j^-1 R_j (A_j^-1 the exact or fdm patch
   solve). Two such steps before and after the coarse correction make a symmetric V-cycle, positive definite
   (usable by CG) exactly when omega lambda_max(B A) < 2. For laplace the patch solves are exact and the 2^d
   colors are A-orthogonal, so lambda_max(B A) <= 2^d and the papers' omega = 1/2^d is safe. For c0ip neither
   holds (the fdm solve drops the mixed terms, seed 000 eq. 28, and patches couple through faces): measured
   lambda_max(B A) is 5.7-6.9 in 2D and 13.6-19.0 in 3D for k = 2..7 (bench/c0ip_checks.sh), so the paper's 1/8 is indefinite in 3D
   from k = 5 on. There the default is min(paper value, 1.8 / lambda), lambda from a few Lanczos steps (CG on
   A with B as preconditioner) at setup; 1.8 leaves 10 % for the estimate falling short of lambda_max. */
#include "vpimpl.h"

#define VP_ESTIMATE_ITS   12
#define VP_ESTIMATE_THETA 1.8

/* B r with omega = 1: the undamped additive sum, as a PCSHELL for the estimating CG */
static PetscErrorCode VPAdditiveUndamped(PC shell, Vec r, Vec y)
{
  PC              pc;
  PC_VertexPatch *vp;
  PetscReal       omega;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(shell, &pc));
  vp        = (PC_VertexPatch *)pc->data;
  omega     = vp->omega;
  vp->omega = 1.0;
  PetscCall(VecZeroEntries(y));
  PetscCall(vp->forest ? PCVertexPatchAdditiveForest(pc, r, NULL, y) : PCVertexPatchAdditive(pc, r, NULL, y));
  vp->omega = omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A start vector that depends on the global node index only, so that every partition (and both backends)
   estimate the same number: a hash of the index in lexicographic order, in [-1, 1]. */
static PetscErrorCode VPStartVector(DM dm, Vec v)
{
  DM_Brick    *brick = (DM_Brick *)dm->data;
  PetscInt     xs, ys, zs, xm, ym, zm, M, N, c = 0;
  PetscScalar *a;

  PetscFunctionBegin;
  xs = brick->ostart[0];
  ys = brick->ostart[1];
  zs = brick->ostart[2];
  xm = brick->owidth[0];
  ym = brick->owidth[1];
  zm = brick->owidth[2];
  M  = brick->degree * brick->cells[0] - 1;
  N  = brick->degree * brick->cells[1] - 1;
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, c++) {
        uint64_t h = (uint64_t)(i + M * (j + N * k)) + 0x9e3779b97f4a7c15ULL; /* splitmix64 */
        h          = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
        h          = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
        h          = h ^ (h >> 31);
        a[c]       = 2.0 * (PetscReal)(h >> 11) / 9007199254740992.0 - 1.0;
      }
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the forest's start vector: a function of the node's position (rough, so that it excites every frequency) */
static PetscErrorCode VPStartFunction(PetscInt dim, const PetscReal x[], PetscScalar *v, void *ctx)
{
  *v = PetscSinReal(2 * PETSC_PI * (7 * x[0] + 3 * x[1] + (dim == 3 ? 5 * x[2] : 0))) + PetscCosReal(2 * PETSC_PI * (11 * x[1] - 3 * x[0])) + 0.5; /* of period 1: a periodic end has one value */
  return 0;
}

/* Called at the end of setup, when omega holds the default of the type: limits it by the estimate. */
PetscErrorCode PCVertexPatchEstimateDamping(PC pc)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;
  KSP             ksp;
  PC              shell;
  Vec             b, x;
  PetscReal       emax, emin;

  PetscFunctionBegin;
  vp->lambda_max = 0.0;
  if (vp->type != PC_VERTEXPATCH_ADDITIVE || vp->damping > 0 || !brick->op.additive_estimate) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)pc), &ksp));
  {
    /* its own prefix, so that options meant for the user's KSPs (-ksp_converged_reason, ...) do not reach it */
    const char *prefix;
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCall(KSPSetOptionsPrefix(ksp, prefix));
    PetscCall(KSPAppendOptionsPrefix(ksp, "pc_vertexpatch_estimate_"));
  }
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetOperators(ksp, pc->pmat, pc->pmat));
  PetscCall(KSPGetPC(ksp, &shell));
  PetscCall(PCSetType(shell, PCSHELL));
  PetscCall(PCShellSetContext(shell, pc));
  PetscCall(PCShellSetApply(shell, VPAdditiveUndamped));
  PetscCall(KSPSetComputeSingularValues(ksp, PETSC_TRUE));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, VP_ESTIMATE_ITS));
  PetscCall(DMCreateGlobalVector(vp->dm, &b));
  PetscCall(VecDuplicate(b, &x));
  if (brick->forest) {
    /* from node positions (p4est's node numbers depend on the partition), through A: in its range, so that a
       periodic forest's singular operator sees a consistent system */
    PetscCall(DMBrickInterpolateFunction(vp->dm, VPStartFunction, NULL, x));
    PetscCall(MatMult(pc->pmat, x, b));
  } else PetscCall(VPStartVector(vp->dm, b));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPComputeExtremeSingularValues(ksp, &emax, &emin));
  PetscCheck(emax > 0.0 && !PetscIsInfOrNanReal(emax), PetscObjectComm((PetscObject)pc), PETSC_ERR_CONV_FAILED, "PCVERTEXPATCH: the estimate of lambda_max(B A) for the additive damping failed (%g); set -pc_vertexpatch_damping", (double)emax);
  vp->lambda_max    = emax;
  vp->omega_default = vp->omega;
  vp->omega      = PetscMin(vp->omega, VP_ESTIMATE_THETA / emax);
  PetscCall(PetscInfo(pc, "additive damping %g (lambda_max(B A) estimated %g from %d Lanczos steps)\n", (double)vp->omega, (double)emax, VP_ESTIMATE_ITS));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
