static const char help[] = "Poisson -Delta u = f on a brick (2D or 3D, CG Q_k), solved with KSP + PCMG built from the brick alone.\n"
                           "Manufactured solution u = prod_i sin(pi (x_i - a_i)/(b_i - a_i)) on the box prod [a_i, b_i].\n"
                           "  -smoother vertexpatch (default): FGMRES (residual ||b - A x||) with one V-cycle per\n"
                           "             iteration, one multiplicative vertex-patch sweep (FDM local solver) before and after.\n"
                           "  -smoother chebyshev: the baseline, CG with V-cycles of Chebyshev/Jacobi smoothing.\n"
                           "  -rhs one: f = 1 instead (the papers' test case; no exact solution, so no L2 error is printed).\n"
                           "  -fmg <bool>: start from one full multigrid cycle and count the V-cycles after it (seed 003, Algorithm 2.2);\n"
                           "             on by default with the vertex-patch smoother, off with the baseline.\n"
                           "Every -ksp_*, -pc_*, -mg_* and -dm_brick_* option changes the configuration.\n\n";

#include <petscvpatch.h>
#include <petsctime.h>

typedef struct {
  PetscInt  dim;
  PetscReal lower[3], upper[3];
} Problem;

static PetscErrorCode ExactSolution(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  Problem *p = (Problem *)ctx;

  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * (x[d] - p->lower[d]) / (p->upper[d] - p->lower[d]));
  return 0;
}

static PetscErrorCode One(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  *f = 1.0;
  return 0;
}

static PetscErrorCode RightHandSide(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  Problem  *p = (Problem *)ctx;
  PetscReal s = 0.0;

  for (PetscInt d = 0; d < dim; d++) s += PetscSqr(PETSC_PI / (p->upper[d] - p->lower[d]));
  PetscCall(ExactSolution(dim, x, f, ctx));
  *f *= s;
  return 0;
}

/* The baseline configuration: set only what the user did not set on the command line. */
static PetscErrorCode SetDefault(const char name[], const char value[])
{
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, name, value));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  DM                 dm;
  KSP                ksp;
  Vec                u, b;
  Problem            problem;
  PetscInt           its, cells[3];
  PetscReal          error = 0.0, rnorm, bnorm;
  PetscLogDouble     ts, t0, t1;
  KSPConvergedReason reason;
  char               smoother[32] = "vertexpatch", rhs[32] = "sine";
  PetscBool          rhsone;
  PetscBool          chebyshev, vertexpatch, fmg = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-smoother", smoother, sizeof(smoother), NULL));

  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs", rhs, sizeof(rhs), NULL));
  PetscCall(PetscStrcmp(rhs, "one", &rhsone));
  if (!rhsone) {
    PetscBool sine;
    PetscCall(PetscStrcmp(rhs, "sine", &sine));
    PetscCheck(sine, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rhs %s: allowed sine, one", rhs);
  }
  PetscCall(PetscStrcmp(smoother, "chebyshev", &chebyshev));
  PetscCall(PetscStrcmp(smoother, "vertexpatch", &vertexpatch));
  PetscCheck(chebyshev || vertexpatch, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-smoother %s: allowed vertexpatch, chebyshev", smoother);
  fmg = vertexpatch; /* the paper's solver: full multigrid, then V-cycles */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-fmg", &fmg, NULL));
  PetscCall(SetDefault("-ksp_rtol", "1e-9"));
  PetscCall(SetDefault("-pc_type", "mg"));
  if (vertexpatch) {
    PetscBool kspset;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-ksp_type", &kspset));
    if (!kspset) {
      /* FGMRES: right preconditioning, so the true residual ||b - A x|| is measured, and exact also when the
         V-cycle is not a fixed linear operator (single-precision smoothing) */
      PetscCall(SetDefault("-ksp_type", "fgmres"));
    }
    PetscCall(SetDefault("-mg_levels_ksp_type", "richardson"));
    PetscCall(SetDefault("-mg_levels_ksp_max_it", "1"));
    PetscCall(SetDefault("-mg_levels_pc_type", "vertexpatch"));
  } else {
    PetscCall(SetDefault("-ksp_type", "cg"));
    PetscCall(SetDefault("-mg_levels_ksp_type", "chebyshev"));
    PetscCall(SetDefault("-mg_levels_pc_type", "jacobi"));
  }

  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMView(dm, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMBrickGetInfo(dm, &problem.dim, cells, NULL, NULL));
  PetscCall(DMBrickGetDomain(dm, problem.lower, problem.upper));

  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(DMBrickComputeLoadVector(dm, rhsone ? One : RightHandSide, &problem, b));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscTime(&ts));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscTime(&t0));
  if (fmg) {
    /* one full multigrid cycle gives the initial guess; the V-cycle iteration goes on from it and its
       iterations are counted, its convergence still measured against ||b|| */
    PC        pc;
    PetscBool ismg;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
    PetscCheck(ismg, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-fmg needs -pc_type mg");
    PetscCall(PCMGSetType(pc, PC_MG_FULL));
    PetscCall(PCApply(pc, b, u));
    PetscCall(PCMGSetType(pc, PC_MG_MULTIPLICATIVE));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    {
      /* stop at ||b - A x|| <= rtol ||b|| as the paper does; PCMG's own Richardson loop would measure
         against the (much smaller) residual of the FMG guess, so the target goes in as absolute tolerance */
      PetscReal rtol, abstol, dtol, bnorm0;
      PetscInt  maxit;
      PetscCall(KSPGetTolerances(ksp, &rtol, &abstol, &dtol, &maxit));
      PetscCall(VecNorm(b, NORM_2, &bnorm0));
      PetscCall(KSPSetTolerances(ksp, rtol, PetscMax(abstol, rtol * bnorm0), dtol, maxit));
    }
  }
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(PetscTime(&t1));

  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  if (!rhsone) PetscCall(DMBrickComputeL2Error(dm, u, ExactSolution, &problem, &error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Linear solve %s due to %s iterations %" PetscInt_FMT "%s\n", reason > 0 ? "converged" : "did not converge", KSPConvergedReasons[reason], its, fmg ? " (V-cycles after one full multigrid cycle)" : ""));
  if (!rhsone) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error %.6e\n", (double)error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve time %.4f s (setup excluded), setup time %.4f s\n", t1 - t0, t0 - ts));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
