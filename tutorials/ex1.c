static const char help[] = "Poisson -Delta u = f on a brick (2D or 3D, CG Q_k), solved with KSP + PCMG built from the brick alone.\n"
                           "Manufactured solution u = prod_i sin(pi (x_i - a_i)/(b_i - a_i)) on the box prod [a_i, b_i].\n"
                           "Default problem: Q3 on a 4 x 4 coarse grid refined 4 times (2D; 37k DoFs, 5 levels), or 4 x 4 x 4 refined\n"
                           "2 times (with -dm_brick_dim 3; 103k DoFs, 3 levels); -dm_brick_* options replace any part of it.\n"
                           "  -smoother vertexpatch (default): FGMRES (residual ||b - A x||) with one V-cycle per\n"
                           "             iteration, one multiplicative vertex-patch sweep (FDM local solver) before and after.\n"
                           "  -smoother chebyshev: the baseline, CG (also stopping on ||b - A x||) with V-cycles of Chebyshev/Jacobi smoothing.\n"
                           "  -dm_brick_remove i,j[,k],... / -dm_brick_periodic px,py[,pz]: a forest domain (p4est), solved with f = 1.\n"
                           "  -rhs one: f = 1 instead (the papers' test case; no exact solution, so no L2 error is printed).\n"
                           "  -rhs exp: u = prod_i exp(x_i), nonzero on the boundary: its boundary values given by\n"
                           "             DMBrickSetBoundaryFunction() (the load vector lifts them; the L2 error on the host;\n"
                           "             -ksp_rtol 1e-12 by default, since ||b|| grows with the lifted boundary values).\n"
                           "  -separable <bool>: the load vector and the L2 error from the 1D factors of f and u (default; on the GPU\n"
                           "             with -dm_vec_type cuda), or with f and u called at every quadrature point on the host (0).\n"
                           "  -fmg <bool>: start from one full multigrid cycle and count the V-cycles after it (seed 003, Algorithm 2.2);\n"
                           "             on by default with the vertex-patch smoother, off with the baseline. With -ksp_type richardson\n"
                           "             the count is that of the paper's loop: at least one V-cycle, each followed by ||b - A x||.\n"
                           "  -solves n: solve n times (default 1), each from the same start; the first solve's time is the one reported,\n"
                           "             the later ones are listed after it (the first also pays for what PETSc allocates lazily in a\n"
                           "             solve, such as FGMRES's Krylov vectors past the fifth, and for the first touch of that memory).\n"
                           "The coarse solve is the brick's choice (-ksp_view names it): the hierarchy goes below -dm_brick_cells as far as the\n"
                           "cells halve, and the coarsest problem is solved exactly up to -dm_brick_coarse_direct_max nonzeros (sparse LU;\n"
                           "with -dm_vec_type cuda PCDENSEINVERSE on the GPU, inside PCREDUNDANT on several ranks), with Chebyshev/Jacobi\n"
                           "steps over it. -mg_coarse_pc_type (or -mg_coarse_redundant_pc_type) sets another.\n"
                           "Every solve stops at ||r|| <= rtol ||b|| (-ksp_rtol, default 1e-9) in the Krylov method's norm; ex1 prints\n"
                           "the true residual ||b - A x||/||b|| too and exits with status 1 if the solve did not converge.\n"
                           "Every -ksp_*, -pc_*, -mg_* and -dm_brick_* option changes the configuration.\n\n";

#include <petscvpatch.h>
#include <petsctime.h>

typedef struct {
  PetscInt  dim;
  PetscReal lower[3], upper[3];
  PetscBool exp; /* -rhs exp: u = prod exp(x_i) */
} Problem;

static PetscErrorCode ExactSolution(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  Problem *p = (Problem *)ctx;

  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= p->exp ? PetscExpReal(x[d]) : PetscSinReal(PETSC_PI * (x[d] - p->lower[d]) / (p->upper[d] - p->lower[d]));
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

  for (PetscInt d = 0; d < dim; d++) s += p->exp ? -1.0 : PetscSqr(PETSC_PI / (p->upper[d] - p->lower[d])); /* -Delta exp = -dim exp */
  PetscCall(ExactSolution(dim, x, f, ctx));
  *f *= s;
  return 0;
}

/* The same functions as sums of products of 1D factors: one term each (f = 1 has factors 1). */
static PetscErrorCode ExactSolutionFactor(PetscInt term, PetscInt d, PetscReal x, PetscScalar *u, void *ctx)
{
  Problem *p = (Problem *)ctx;

  *u = p->exp ? PetscExpReal(x) : PetscSinReal(PETSC_PI * (x - p->lower[d]) / (p->upper[d] - p->lower[d]));
  return 0;
}

static PetscErrorCode OneFactor(PetscInt term, PetscInt d, PetscReal x, PetscScalar *f, void *ctx)
{
  *f = 1.0;
  return 0;
}

static PetscErrorCode RightHandSideFactor(PetscInt term, PetscInt d, PetscReal x, PetscScalar *f, void *ctx)
{
  Problem  *p = (Problem *)ctx;
  PetscReal s = 0.0;

  PetscCall(ExactSolutionFactor(term, d, x, f, ctx));
  if (d == 0) { /* the Laplacian's factor sum_i (pi / (b_i - a_i))^2 goes with the first direction */
    for (PetscInt i = 0; i < p->dim; i++) s += p->exp ? -1.0 : PetscSqr(PETSC_PI / (p->upper[i] - p->lower[i]));
    *f *= s;
  }
  return 0;
}

/* Richardson with PCMG: whole V-cycles, each followed by ||b - A x|| (PCMG's own Richardson loop, which PETSc
   takes with the default test, stops inside a cycle after the pre-smoothing). With a full-multigrid start,
   seed 003's Algorithm 2.2: at least one V-cycle (its loop starts from delta = ||b||). */
typedef struct {
  void     *ctx; /* KSPConvergedDefault's */
  PetscBool atleastone;
} WholeCycles;

static PetscErrorCode ConvergedWholeCycles(KSP ksp, PetscInt n, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  WholeCycles *w = (WholeCycles *)ctx;

  PetscFunctionBeginUser;
  PetscCall(KSPConvergedDefault(ksp, n, rnorm, reason, w->ctx));
  if (n == 0 && w->atleastone && *reason > 0) *reason = KSP_CONVERGED_ITERATING;
  PetscFunctionReturn(0);
}

static PetscErrorCode DestroyWholeCycles(void *ctx)
{
  WholeCycles *w = (WholeCycles *)ctx;

  PetscFunctionBeginUser;
  PetscCall(KSPConvergedDefaultDestroy(w->ctx));
  PetscCall(PetscFree(w));
  PetscFunctionReturn(0);
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
  PetscReal          error = 0.0, tnorm, bnorm;
  Mat                A;
  Vec                r;
  PetscInt           dim = 2;
  PetscLogDouble     ts, t0, t1 = 0.0;
  KSPConvergedReason reason;
  char               smoother[32] = "vertexpatch", rhs[32] = "sine";
  PetscBool          rhsone;
  PetscBool          chebyshev, vertexpatch, fmg = PETSC_FALSE, separable = PETSC_TRUE;
  PetscInt           nsolves = 1;
  PetscLogDouble     later[16];
  PetscLogStage      stage[6]; /* -log_view accounts for the whole run phase by phase */

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-smoother", smoother, sizeof(smoother), NULL));

  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs", rhs, sizeof(rhs), NULL));
  PetscCall(PetscStrcmp(rhs, "one", &rhsone));
  PetscCall(PetscStrcmp(rhs, "exp", &problem.exp));
  if (!rhsone) {
    PetscBool sine;
    PetscCall(PetscStrcmp(rhs, "sine", &sine));
    PetscCheck(sine || problem.exp, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rhs %s: allowed sine, one, exp", rhs);
  }
  PetscCall(PetscStrcmp(smoother, "chebyshev", &chebyshev));
  PetscCall(PetscStrcmp(smoother, "vertexpatch", &vertexpatch));
  PetscCheck(chebyshev || vertexpatch, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-smoother %s: allowed vertexpatch, chebyshev", smoother);
  fmg = vertexpatch; /* the paper's solver: full multigrid, then V-cycles */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-fmg", &fmg, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-separable", &separable, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-solves", &nsolves, NULL));
  PetscCheck(nsolves >= 1 && nsolves <= 17, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-solves %" PetscInt_FMT ": allowed 1 to 17", nsolves);
  /* a default problem that shows the method: several levels, Q3, and coarse cells for 1-4 ranks */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dm_brick_dim", &dim, NULL));
  PetscCall(SetDefault("-dm_brick_cells", dim == 3 ? "4,4,4" : "4,4"));
  PetscCall(SetDefault("-dm_brick_degree", "3"));
  PetscCall(SetDefault("-dm_brick_refine", dim == 3 ? "2" : "4"));
  /* -rhs exp: the lifted boundary values make ||b|| grow like 1/h, so the default is tighter (the L2 error falls at order
     k + 1 below it) */
  PetscCall(SetDefault("-ksp_rtol", problem.exp ? "1e-12" : "1e-9"));
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
    PetscCall(SetDefault("-ksp_norm_type", "unpreconditioned")); /* the same stopping test as the vertex-patch solver */
    PetscCall(SetDefault("-mg_levels_ksp_type", "chebyshev"));
    PetscCall(SetDefault("-mg_levels_pc_type", "jacobi"));
  }

  PetscCall(PetscLogStageRegister("ex1: DM setup", &stage[0]));
  PetscCall(PetscLogStageRegister("ex1: load vector", &stage[1]));
  PetscCall(PetscLogStageRegister("ex1: KSPSetUp", &stage[2]));
  PetscCall(PetscLogStageRegister("ex1: solve", &stage[3]));
  PetscCall(PetscLogStageRegister("ex1: residual, error", &stage[4]));
  PetscCall(PetscLogStageRegister("ex1: later solves", &stage[5])); /* -solves: the "ex1: solve" stage stays the first solve */
  PetscCall(PetscLogStagePush(stage[0]));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMView(dm, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMBrickGetInfo(dm, &problem.dim, cells, NULL, NULL));
  PetscCall(DMBrickGetDomain(dm, problem.lower, problem.upper));
  {
    /* a forest (-dm_brick_remove, -dm_brick_periodic): point functions (the separable ones are box-only), and the
       manufactured sine is the solution only when the domain is still the whole box without periodic directions */
    PetscBool forest, rmset, perset;
    PetscCall(DMBrickGetForestInfo(dm, &forest, NULL, NULL, NULL));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-dm_brick_remove", &rmset));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-dm_brick_periodic", &perset));
    if (forest) separable = PETSC_FALSE;
    if (forest && (rmset || perset) && !rhsone && !problem.exp) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "forest domain: f = 1 (the manufactured sine solves the full box only; tutorials/ex5 has exact solutions on forests)\n"));
      rhsone = PETSC_TRUE;
    }
  }

  if (problem.exp) PetscCall(DMBrickSetBoundaryFunction(dm, ExactSolution, &problem)); /* u = g on the boundary, lifted */
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(PetscObjectSetName((PetscObject)u, "u")); /* the field's name in -ksp_view_solution vtk:u.vtu */
  PetscCall(VecDuplicate(u, &b));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogStagePush(stage[1]));
  if (separable) PetscCall(DMBrickComputeLoadVectorSeparable(dm, 1, rhsone ? OneFactor : RightHandSideFactor, &problem, b));
  else PetscCall(DMBrickComputeLoadVector(dm, rhsone ? One : RightHandSide, &problem, b));

  PetscCall(PetscLogStagePop());
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetFromOptions(ksp));
  {
    PetscBool richardson;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPRICHARDSON, &richardson));
    if (richardson) {
      PetscBool normset;
      /* the cycles stop on ||b - A x|| as the help says; Richardson's own default is the preconditioned norm, which at
         high order can claim 1e-9 with a true residual orders of magnitude above it */
      PetscCall(PetscOptionsHasName(NULL, NULL, "-ksp_norm_type", &normset));
      if (!normset) PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
      WholeCycles *w;
      PetscCall(PetscNew(&w));
      PetscCall(KSPConvergedDefaultCreate(&w->ctx));
      w->atleastone = fmg;
      PetscCall(KSPSetConvergenceTest(ksp, ConvergedWholeCycles, w, DestroyWholeCycles));
    }
  }
  PetscCall(PetscLogStagePush(stage[2]));
  PetscCall(PetscTime(&ts));
  PetscCall(KSPSetUp(ksp));
  /* the set-up ends when its device work has run and the slowest rank is done: otherwise the first reduction of the
     solve would wait for it and the solve time (rank 0's) would include part of the set-up */
  PetscCall(DMBrickSynchronize(dm));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogStagePush(stage[3]));
  for (PetscInt solve = 0; solve < nsolves; solve++) {
    PetscLogDouble start, end;
    if (solve == 1) {
      PetscCall(PetscLogStagePop());
      PetscCall(PetscLogStagePush(stage[5]));
    }
    if (solve) PetscCall(VecZeroEntries(u)); /* the same start as the first solve, outside the timed part */
    PetscCall(PetscTime(&start));
    if (fmg) {
      /* one full multigrid cycle gives the initial guess; the V-cycle iteration goes on from it and its
         iterations are counted, its convergence still measured against ||b|| */
      PC        pc;
      PCType    pctype;
      PetscBool ismg;
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
      PetscCall(PCGetType(pc, &pctype));
      PetscCheck(ismg, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-fmg (on by default with -smoother vertexpatch) needs -pc_type mg; with -pc_type %s add -fmg 0", pctype);
      PetscCall(PCMGSetType(pc, PC_MG_FULL));
      PetscCall(PCApply(pc, b, u));
      PetscCall(PCMGSetType(pc, PC_MG_MULTIPLICATIVE));
      /* with a nonzero initial guess PETSc's default test still measures against ||b|| (not the residual of the
         guess), as the paper does */
      PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    }
    PetscCall(KSPSolve(ksp, b, u));
    PetscCall(PetscTime(&end));
    if (solve) later[solve - 1] = end - start;
    else t1 = end;
  }
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogStagePush(stage[4]));

  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, u, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &tnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(VecDestroy(&r));
  if (!rhsone && separable && !problem.exp) PetscCall(DMBrickComputeL2ErrorSeparable(dm, u, 1, ExactSolutionFactor, &problem, &error));
  else if (!rhsone) PetscCall(DMBrickComputeL2Error(dm, u, ExactSolution, &problem, &error));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Linear solve %s due to %s iterations %" PetscInt_FMT "%s\n", reason > 0 ? "converged" : "did not converge", KSPConvergedReasons[reason], its, fmg ? " (V-cycles after one full multigrid cycle)" : ""));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "true residual |b - A x|/|b| %.3e\n", (double)(tnorm / bnorm)));
  if (!rhsone) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error %.6e\n", (double)error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve time %.4f s (setup excluded), setup time %.4f s\n", t1 - t0, t0 - ts));
  if (nsolves > 1) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "later solves (same start), s:"));
    for (PetscInt i = 0; i < nsolves - 1; i++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %.4f", later[i]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1; /* a solve that did not converge is a failed run */
}
