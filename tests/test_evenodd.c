static const char help[] = "PCVERTEXPATCH on the CPU: one smoothing step with the interior patches' 1D matrices in even-odd form\n"
                           "(-pc_vertexpatch_even_odd, the default) against the full matrices, multiplicative and additive, local and\n"
                           "global residual, double and single precision, laplace and c0ip. Options: -dim 2|3, -kmin, -kmax, -refine.\n";

#include "checks.h"
#include "pc/vertexpatch/vpimpl.h"

static PetscErrorCode MakePC(DM dm, Mat A, const char *opts, PetscBool evenodd, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_precision"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_residual"));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(PCCreate(PETSC_COMM_WORLD, pc));
  PetscCall(PCSetType(*pc, "vertexpatch"));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCSetDM(*pc, dm));
  PetscCall(PCSetFromOptions(*pc));
  PetscCall(PCVertexPatchSetEvenOdd(*pc, evenodd));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(0);
}

/* the step from zero (PCApply) and from a random iterate (PCApplyRichardson) with both forms; returns the larger
   relative difference */
static PetscErrorCode CheckOne(DM dm, Mat A, const char *op, PetscInt dim, PetscInt k, const char *opts, PetscReal tol, PetscRandom rnd)
{
  PC                          pc[2];
  Vec                         b, x, y[2], w;
  PetscInt                    its;
  PetscReal                   err[2];
  PCRichardsonConvergedReason reason;
  char                        what[200];

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < 2; e++) PetscCall(MakePC(dm, A, opts, (PetscBool)e, &pc[e]));
  {
    /* the form is in use where it should be: every 1D matrix of an interior patch from k = 2 on (with 4 cells or more) */
    PC_VertexPatch *vp = (PC_VertexPatch *)pc[1]->data;
    PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s]: even-odd form %s", op, dim, k, opts, k >= 2 ? "on" : "off (1-node interior)");
    PetscCall(CheckTrue(what, (PetscBool)((vp->eo_d != NULL) == (k >= 2))));
    /* -log_view's host flops: the full-form count without the form, fewer with it */
    {
      const PC_VertexPatch *full = (PC_VertexPatch *)pc[0]->data;
      PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s]: host flops per patch %g (full form %g) %s", op, dim, k, opts, (double)vp->host_flops_per_patch, (double)full->host_flops_per_patch, k >= 2 ? "fewer in even-odd form" : "the same");
      PetscCall(CheckTrue(what, (PetscBool)(full->host_flops_per_patch == full->flops_per_patch && (k >= 2 ? vp->host_flops_per_patch < full->host_flops_per_patch : vp->host_flops_per_patch == full->host_flops_per_patch))));
    }
  }
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &w));
  PetscCall(VecDuplicate(b, &y[0]));
  PetscCall(VecDuplicate(b, &y[1]));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecSetRandom(x, rnd));
  for (PetscInt r = 0; r < 2; r++) {
    for (PetscInt e = 0; e < 2; e++) {
      if (r == 0) PetscCall(PCApply(pc[e], b, y[e]));
      else {
        PetscCall(VecCopy(x, y[e]));
        PetscCall(PCApplyRichardson(pc[e], b, y[e], w, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
      }
    }
    PetscCall(RelativeDifference(y[1], y[0], &err[r]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " [%s] %s: even-odd vs full", op, dim, k, opts, r ? "PCApplyRichardson" : "PCApply"));
    PetscCall(CheckLessThan(what, err[r], tol));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&y[0]));
  PetscCall(VecDestroy(&y[1]));
  PetscCall(PCDestroy(&pc[0]));
  PetscCall(PCDestroy(&pc[1]));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 3, kmin = 1, kmax = 8, refine = 1;
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
      const PetscReal told = o == 1 ? 1e-10 : 1e-12, tols = o == 1 ? 5e-4 : 1e-5;
      DM              dm;
      Mat             A;

      PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_operator", ops[o]));
      PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &dm));
      PetscCall(DMCreateMatrix(dm, &A));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative", told, rnd));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type additive", told, rnd));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_residual global", told, rnd));
      PetscCall(CheckOne(dm, A, ops[o], dim, k, "-pc_vertexpatch_type multiplicative -pc_vertexpatch_precision single", tols, rnd));
      PetscCall(MatDestroy(&A));
      PetscCall(DMDestroy(&dm));
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
