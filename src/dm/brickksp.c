/* What a brick does for the KSPs that solve with it (KSPSetDM): the DMKSP operator callback, and the
   convergence guard that callback puts on the KSP.

   The guard wraps the KSP's convergence test so that a reported convergence is one the true residual has:
   - a preconditioner that is not a fixed linear operator (float arithmetic in a vertex-patch smoother or in
     a coarse level's operator) is refused, at the first test of a solve, under a Krylov method whose
     residual estimate assumes one (GMRES and the like); the message names the option and the methods to use;
   - when the wrapped test (PETSc's default) claims convergence and the KSP is one whose current iterate can be
     built in the middle of a solve (the GMRES family, GCR, FCG, CG, CR, MINRES), the norm of b - A x in the KSP's
     own norm is computed; if it is above the tolerance the solve goes on, and if it then stops decreasing (not
     halved in BRICK_GUARD_PATIENCE further checks; an ill-conditioned operator's round-off floor is the usual
     cause) the solve stops with KSP_DIVERGED_BREAKDOWN and says why with -ksp_converged_reason. Other methods
     (the BiCGStab variants among them, whose KSPBuildSolution() mid-iteration is not the iterate) are checked
     once, after the solve, on the solution they return (unpreconditioned norm).
   The guard is put on every KSP that solves with the brick and has a convergence test, also on nested ones
   (a PCMG coarse solve with a tolerance). */
#include "brickimpl.h"
#include <petsc/private/kspimpl.h>
#include <petsc/private/pcmgimpl.h>

typedef struct {
  PetscErrorCode (*converged)(KSP, PetscInt, PetscReal, KSPConvergedReason *, void *);
  void *ctx;
  PetscErrorCode (*destroy)(VP_CTX_DESTROY_ARG);
  PetscBool verify;     /* check claimed convergence against the true residual (-dm_brick_verify_convergence) */
  Vec       t, v, w;    /* work: solution, residual, preconditioned residual */
  PetscReal denied;     /* this solve: the true residual norm at the last claim it denied (0: none yet) */
  PetscReal truenorm;   /* this solve: the last true residual norm computed */
  PetscBool stalled;    /* this solve ended in KSP_DIVERGED_BREAKDOWN because the true residual stalled */
  PetscInt  nchecks;    /* this solve: true residuals computed */
  PetscInt  nostep;     /* this solve: denied checks since the best true residual last halved */
} BrickKSPGuard;

#define BRICK_GUARD_PATIENCE 3

/* Krylov methods whose reported norm stays the norm of a true residual when the preconditioner varies from
   one application to the next: flexible ones (they keep the preconditioned directions), those that update
   the residual by products with A, and those that compute it. */
static const char *const BrickNonlinearSafeKSP[] = {KSPFGMRES, KSPPIPEFGMRES, KSPGCR, KSPPIPEGCR, KSPFCG, KSPPIPEFCG, KSPCG, KSPRICHARDSON, KSPCHEBYSHEV, KSPPREONLY};

/* Methods whose KSPBuildSolution() gives the current iterate in the middle of a solve: the true residual can be
   checked at a claimed convergence. */
static const char *const BrickCheckableKSP[] = {KSPGMRES, KSPFGMRES, KSPLGMRES, KSPDGMRES, KSPPGMRES, KSPGCR, KSPFCG, KSPCG, KSPCR, KSPMINRES};

/* Methods whose reported norm is b - A x computed as such: nothing to verify, no guard. */
static const char *const BrickExplicitResidualKSP[] = {KSPRICHARDSON, KSPCHEBYSHEV, KSPPREONLY};

static PetscErrorCode BrickTypeIn(PetscObject obj, const char *const list[], size_t n, PetscBool *in)
{
  PetscFunctionBegin;
  *in = PETSC_FALSE;
  for (size_t i = 0; i < n && !*in; i++) PetscCall(PetscObjectTypeCompare(obj, list[i], in));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Does applying pc involve float arithmetic (then it is not a fixed linear operator)? desc: the option that
   makes it so, with its prefix. Walks PCMG's levels (smoothers, coarse solve, level operators). */
static PetscErrorCode BrickPCNonlinear(PC pc, char desc[], size_t len, PetscBool *nonlinear)
{
  PetscErrorCode (*getprecision)(PC, PCVertexPatchPrecision *) = NULL;
  PetscBool   ismg;
  const char *prefix;

  PetscFunctionBegin;
  *nonlinear = PETSC_FALSE;
  if (!pc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, "PCVertexPatchGetPrecision_C", &getprecision));
  if (getprecision) {
    PCVertexPatchPrecision precision;
    PetscCall((*getprecision)(pc, &precision));
    if (precision == PC_VERTEXPATCH_SINGLE_PRECISION) {
      PetscCall(PetscSNPrintf(desc, len, "-%spc_vertexpatch_precision single", prefix ? prefix : ""));
      *nonlinear = PETSC_TRUE;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (ismg) {
    PC_MG *mg = (PC_MG *)pc->data;
    for (PetscInt l = 0; l < mg->nlevels && mg->levels && !*nonlinear; l++) {
      KSP smoothers[2] = {mg->levels[l]->smoothd, mg->levels[l]->smoothu};
      for (PetscInt s = 0; s < 2 && !*nonlinear; s++) {
        PC  spc;
        Mat A;
        DM  dm = NULL;
        if (!smoothers[s] || (s == 1 && smoothers[1] == smoothers[0])) continue;
        PetscCall(KSPGetPC(smoothers[s], &spc));
        PetscCall(BrickPCNonlinear(spc, desc, len, nonlinear));
        if (*nonlinear || !smoothers[s]->pc->mat) continue;
        /* a coarser brick computing in float on the GPU (-dm_brick_mg_precision single) */
        PetscCall(KSPGetOperators(smoothers[s], &A, NULL));
        PetscCall(MatGetDM(A, &dm));
        if (dm) {
          PetscBool isbrick, cuda = PETSC_FALSE;
          PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMBRICK, &isbrick));
          if (isbrick) PetscCall(DMBrickOnDevice_Private(dm, &cuda));
          if (isbrick && cuda && ((DM_Brick *)dm->data)->precision == DMBRICK_PRECISION_SINGLE) {
            PetscCall(PetscSNPrintf(desc, len, "-dm_brick_mg_precision single (level %" PetscInt_FMT " of %s computes in float on the GPU)", l, prefix && prefix[0] ? prefix : "the PCMG"));
            *nonlinear = PETSC_TRUE;
          }
        }
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The norm of b - A x of the current iterate, in the norm the KSP measures (NaN-free; -1 when that norm
   cannot be formed here, e.g. a preconditioned norm with right preconditioning). */
static PetscErrorCode BrickKSPTrueNorm(KSP ksp, BrickKSPGuard *g, PetscReal *norm)
{
  Vec         r;
  KSPNormType type;
  PCSide      side;

  PetscFunctionBegin;
  *norm = -1.0;
  PetscCall(KSPGetNormType(ksp, &type));
  PetscCall(KSPGetPCSide(ksp, &side));
  if (!g->t) PetscCall(VecDuplicate(ksp->vec_sol, &g->t));
  if (!g->v) PetscCall(VecDuplicate(ksp->vec_rhs, &g->v));
  PetscCall(KSPBuildResidual(ksp, g->t, g->v, &r));
  g->nchecks++;
  switch (type) {
  case KSP_NORM_UNPRECONDITIONED:
    PetscCall(VecNorm(r, NORM_2, norm));
    break;
  case KSP_NORM_PRECONDITIONED:
  case KSP_NORM_NATURAL:
    if (side != PC_LEFT && side != PC_SYMMETRIC) break;
    if (!g->w) PetscCall(VecDuplicate(ksp->vec_rhs, &g->w));
    PetscCall(PCApply(ksp->pc, r, g->w));
    if (type == KSP_NORM_PRECONDITIONED) PetscCall(VecNorm(g->w, NORM_2, norm));
    else {
      PetscScalar dot;
      PetscCall(VecDot(r, g->w, &dot));
      *norm = PetscSqrtReal(PetscAbsScalar(dot));
    }
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A solve may come with new vectors (KSPReset(), another brick): work vectors that do not fit are remade. */
static PetscErrorCode BrickKSPGuardRefresh(KSP ksp, BrickKSPGuard *g)
{
  Vec *w[3] = {&g->t, &g->v, &g->w};

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 3; i++) {
    PetscInt  n, m;
    PetscBool same;
    if (!*w[i]) continue;
    PetscCall(VecGetLocalSize(*w[i], &n));
    PetscCall(VecGetLocalSize(ksp->vec_rhs, &m));
    PetscCall(PetscObjectTypeCompare((PetscObject)*w[i], ((PetscObject)ksp->vec_rhs)->type_name, &same));
    if (n != m || !same) PetscCall(VecDestroy(w[i]));
  }
  if (ksp->dm) {
    PetscBool isbrick;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp->dm, DMBRICK, &isbrick));
    if (isbrick) g->verify = ((DM_Brick *)ksp->dm->data)->verify_convergence;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickKSPGuardConverged(KSP ksp, PetscInt n, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  BrickKSPGuard *g = (BrickKSPGuard *)ctx;
  PetscReal      tnorm;
  PetscBool      checkable;

  PetscFunctionBegin;
  if (n == 0) {
    PetscBool safe, nonlinear;
    char      desc[256] = "";
    g->denied = g->truenorm = 0.0;
    g->stalled            = PETSC_FALSE;
    g->nchecks = g->nostep = 0;
    PetscCall(BrickKSPGuardRefresh(ksp, g));
    PetscCall(BrickTypeIn((PetscObject)ksp, BrickNonlinearSafeKSP, PETSC_STATIC_ARRAY_LENGTH(BrickNonlinearSafeKSP), &safe));
    if (!safe) {
      PetscCall(BrickPCNonlinear(ksp->pc, desc, sizeof(desc), &nonlinear));
      if (nonlinear) {
        const char *prefix;
        PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
        SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_INCOMP,
                "-%sksp_type %s assumes a fixed linear preconditioner, but %s makes the preconditioner compute in float, so it is not one: the reported residual would not be the true one. "
                "Use -%sksp_type fgmres (or gcr, fcg, cg for a symmetric preconditioner, richardson), or double precision",
                prefix ? prefix : "", ((PetscObject)ksp)->type_name, desc, prefix ? prefix : "");
      }
    }
  }
  PetscCall((*g->converged)(ksp, n, rnorm, reason, g->ctx));
  /* only PETSc's default test has a threshold we know (ttol); KSP_CONVERGED_ITS claims no residual */
  if (!g->verify || *reason <= 0 || *reason == KSP_CONVERGED_ITS || g->converged != KSPConvergedDefault) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BrickTypeIn((PetscObject)ksp, BrickCheckableKSP, PETSC_STATIC_ARRAY_LENGTH(BrickCheckableKSP), &checkable));
  if (!checkable) PetscFunctionReturn(PETSC_SUCCESS);
  {
    /* KSPBuildSolution() of PETSc 3.22 (not 3.18) returns the stored vec_sol (the start of this cycle) once
       ksp->reason is set, and *reason may be ksp->reason itself: the iterate is built as mid-solve */
    KSPConvergedReason claimed = *reason;

    ksp->reason = KSP_CONVERGED_ITERATING;
    PetscCall(BrickKSPTrueNorm(ksp, g, &tnorm));
    ksp->reason = claimed;
    *reason     = claimed;
  }
  if (tnorm < 0.0) PetscFunctionReturn(PETSC_SUCCESS);
  if (tnorm <= ksp->ttol) {
    PetscCall(PetscInfo(ksp, "Iteration %" PetscInt_FMT ": claimed convergence checked, true residual %g <= tolerance %g\n", n, (double)tnorm, (double)ksp->ttol));
    g->truenorm = tnorm;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* denied: go on while the true residual still decreases (halves within BRICK_GUARD_PATIENCE checks) */
  if (g->denied == 0.0 || tnorm <= 0.5 * g->denied) {
    g->denied = g->denied == 0.0 ? tnorm : PetscMin(g->denied, tnorm);
    g->nostep = 0;
  } else g->nostep++;
  g->truenorm = tnorm;
  if (g->nostep >= BRICK_GUARD_PATIENCE) {
    PetscCall(PetscInfo(ksp, "Iteration %" PetscInt_FMT ": residual estimate %g below the tolerance %g, but the true residual %g has not halved in %d checks: stopping\n", n, (double)rnorm, (double)ksp->ttol, (double)tnorm, BRICK_GUARD_PATIENCE));
    g->stalled = PETSC_TRUE;
    *reason    = KSP_DIVERGED_BREAKDOWN;
  } else {
    PetscCall(PetscInfo(ksp, "Iteration %" PetscInt_FMT ": residual estimate %g below the tolerance %g, but the true residual is %g: iterating on\n", n, (double)rnorm, (double)ksp->ttol, (double)tnorm));
    *reason = KSP_CONVERGED_ITERATING;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickKSPGuardDestroy(VP_CTX_DESTROY_ARG arg)
{
  BrickKSPGuard *g = (BrickKSPGuard *)VP_CTX_DESTROY_DEREF(arg);

  PetscFunctionBegin;
  if (g->destroy) PetscCall(VP_CTX_DESTROY_CALL(*g->destroy, g->ctx));
  PetscCall(VecDestroy(&g->t));
  PetscCall(VecDestroy(&g->v));
  PetscCall(VecDestroy(&g->w));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* with -ksp_converged_reason: why a solve the guard stopped did not converge */
static PetscErrorCode BrickKSPGuardReasonView(KSP ksp, void *ctx)
{
  BrickKSPGuard *g = NULL;
  const char    *prefix;
  PetscBool      view;

  PetscFunctionBegin;
  if (ksp->converged != BrickKSPGuardConverged) PetscFunctionReturn(PETSC_SUCCESS);
  g = (BrickKSPGuard *)ksp->cnvP;
  if (!g->stalled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscOptionsHasName(((PetscObject)ksp)->options, prefix, "-ksp_converged_reason", &view));
  if (view)
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)ksp),
                          "%*s(brick) the residual estimate reached the tolerance %g but the true residual stopped decreasing at %g above it (for an ill-conditioned operator, often its round-off floor: then ask for a larger -%sksp_rtol)\n",
                          2 * (int)((PetscObject)ksp)->tablevel, "", (double)ksp->ttol, (double)g->truenorm, prefix ? prefix : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the solve, for the methods whose iterate could not be checked during it: the returned solution's true
   residual (unpreconditioned norm: one MatMult) against the tolerance the solve claimed to reach. A claim it denies
   becomes KSP_DIVERGED_BREAKDOWN (the reason printed by -ksp_converged_reason before this runs still says converged). */
static PetscErrorCode BrickKSPGuardPostSolve(KSP ksp, Vec b, Vec x, void *ctx)
{
  BrickKSPGuard *g = (BrickKSPGuard *)ctx;
  PetscBool      checkable;
  KSPNormType    type;
  Mat            A;
  PetscReal      tnorm;

  PetscFunctionBegin;
  if (ksp->dm) PetscCall(DMBrickReportDeviceMemory_Private(ksp->dm));
  /* the guard may have been replaced by another convergence test since: then ctx is gone */
  if (ksp->converged != BrickKSPGuardConverged || ksp->cnvP != ctx) PetscFunctionReturn(PETSC_SUCCESS);
  if (!g->verify || ksp->reason <= 0 || ksp->reason == KSP_CONVERGED_ITS || g->converged != KSPConvergedDefault) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BrickTypeIn((PetscObject)ksp, BrickCheckableKSP, PETSC_STATIC_ARRAY_LENGTH(BrickCheckableKSP), &checkable));
  PetscCall(KSPGetNormType(ksp, &type));
  if (checkable || type != KSP_NORM_UNPRECONDITIONED) PetscFunctionReturn(PETSC_SUCCESS);
  if (!g->v) PetscCall(VecDuplicate(b, &g->v));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatMult(A, x, g->v));
  PetscCall(VecAYPX(g->v, -1.0, b));
  PetscCall(VecNorm(g->v, NORM_2, &tnorm));
  g->truenorm = tnorm;
  if (tnorm > ksp->ttol) {
    PetscCall(PetscInfo(ksp, "%s claimed convergence, but the solution it returned has the true residual %g above the tolerance %g: DIVERGED_BREAKDOWN\n", ((PetscObject)ksp)->type_name, (double)tnorm, (double)ksp->ttol));
    g->stalled  = PETSC_TRUE;
    ksp->reason = KSP_DIVERGED_BREAKDOWN;
  } else PetscCall(PetscInfo(ksp, "the returned solution checked: true residual %g <= tolerance %g\n", (double)tnorm, (double)ksp->ttol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The post-solve hook of a KSP without the guard (Richardson, Chebyshev): the device memory report (-info) */
static PetscErrorCode BrickKSPReportPostSolve(KSP ksp, Vec b, Vec x, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(DMBrickReportDeviceMemory_Private(ksp->dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Puts the guard on ksp once (not on tests that skip the norm, not on methods that compute b - A x). */
static PetscErrorCode BrickKSPInstallGuard(KSP ksp, DM_Brick *brick)
{
  BrickKSPGuard *g;
  PetscBool      explicitres;

  PetscFunctionBegin;
  if (ksp->converged == BrickKSPGuardConverged || ksp->converged == KSPConvergedSkip) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BrickTypeIn((PetscObject)ksp, BrickExplicitResidualKSP, PETSC_STATIC_ARRAY_LENGTH(BrickExplicitResidualKSP), &explicitres));
  if (explicitres) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&g));
  g->verify = brick->verify_convergence;
  /* the destroy's declared type differs between PETSc versions (src/vpatchcompat.h) */
  PetscCall(KSPGetAndClearConvergenceTest(ksp, &g->converged, &g->ctx, (void *)&g->destroy));
  PetscCall(KSPSetConvergenceTest(ksp, BrickKSPGuardConverged, g, BrickKSPGuardDestroy));
  PetscCall(KSPConvergedReasonViewSet(ksp, BrickKSPGuardReasonView, NULL, NULL));
  if (!ksp->postsolve) PetscCall(KSPSetPostSolve(ksp, BrickKSPGuardPostSolve, g)); /* a user's post-solve hook stays */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Preconditioners that work with a matrix-free operator (products and the diagonal); any other needs entries. */
static const char *const BrickMatrixFreePC[] = {PCNONE, PCSHELL, PCJACOBI, PCVERTEXPATCH, PCKSP, PCMG};

/* The default DMKSP operator callback of a brick: DMCreateMatrix() already returns the operator, so
   KSPSetDM() alone gives KSP (and every PCMG level) its matrix; an assembled matrix handed in empty is filled.
   When the KSP's preconditioner needs matrix entries (a direct or algebraic solver) and the operator is
   matrix-free, which happens when PCMG stops above the brick's coarse grid (-pc_mg_levels below
   -dm_brick_refine + 1), the preconditioning matrix becomes the assembled operator
   (-dm_brick_coarse_mat_type). It runs in KSPSetUp(), before the KSP's first solve, which is also where the
   convergence guard goes on. */
PetscErrorCode DMBrickComputeOperators_Private(KSP ksp, Mat A, Mat P, void *ctx)
{
  DM        dm;
  DM_Brick *brick;
  Mat       mats[2] = {A, P};
  PC        pc;
  PetscBool pshell;

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &dm));
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  for (PetscInt i = 0; i < 2; i++) {
    PetscBool isshell, assembled;
    if (i == 1 && P == A) break;
    PetscCall(PetscObjectTypeCompare((PetscObject)mats[i], MATSHELL, &isshell));
    if (isshell) continue;
    PetscCall(MatAssembled(mats[i], &assembled));
    if (!assembled) PetscCall(brick->op.assemble(dm, mats[i]));
  }
  PetscCall(DMBrickKSPDefaults_Private(ksp, dm, P));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSHELL, &pshell));
  if (pshell && ((PetscObject)pc)->type_name) {
    PetscBool matrixfree;
    PetscCall(BrickTypeIn((PetscObject)pc, BrickMatrixFreePC, PETSC_STATIC_ARRAY_LENGTH(BrickMatrixFreePC), &matrixfree));
    if (!matrixfree) {
      Mat Pa;
      PetscCall(PetscInfo(ksp, "PC %s needs matrix entries: the brick's operator on level %" PetscInt_FMT " assembled as %s\n", ((PetscObject)pc)->type_name, brick->level, brick->coarse_mattype));
      PetscCall(DMBrickCreateOperator(dm, brick->coarse_mattype, &Pa));
      PetscCall(KSPSetOperators(ksp, A, Pa));
      PetscCall(MatDestroy(&Pa));
    }
  }
  PetscCall(BrickKSPInstallGuard(ksp, brick));
  {
    const PetscBool before = brick->device_memory_checked;
    PetscCall(DMBrickCheckDeviceMemory_Private(ksp, dm));
    if (!before && brick->device_memory_checked && !ksp->postsolve) PetscCall(KSPSetPostSolve(ksp, BrickKSPReportPostSolve, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
