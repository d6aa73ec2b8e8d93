static const char help[] = "Poisson -Delta u = f with symmetric interior penalty DG Q_k (-dm_brick_operator sipg) on a brick, solved with\n"
                           "KSP + PCMG built from the brick alone, vertex-patch smoothing on every level [CK24].\n"
                           "Manufactured solution u = prod_i sin(pi (x_i - a_i)/(b_i - a_i)) on the box prod [a_i, b_i].\n"
                           "Default problem: Q3 on a 4 x 4 coarse grid refined 3 times (2D; 16k DoFs, 4 levels), or 2 x 2 x 2 refined 2 times\n"
                           "(with -dm_brick_dim 3; 33k DoFs, 3 levels); -dm_brick_* options replace any part of it.\n"
                           "  -smoother vertexpatch (default): FGMRES (residual ||b - A x||) with one V-cycle per iteration, one\n"
                           "             multiplicative vertex-patch sweep (exact local solves by fast diagonalization) before and after.\n"
                           "  -local_space full|dirichlet|clamped: the patches' local space on every level (default full; sets\n"
                           "             -mg_levels_pc_vertexpatch_local_space).\n"
                           "  -smoother chebyshev: the baseline, CG (stopping on ||b - A x||) with V-cycles of Chebyshev/Jacobi smoothing.\n"
                           "  -rhs one: f = 1 instead (the paper's test case; no exact solution, so no L2 error is printed).\n"
                           "  -rhs exp: u = prod_i exp(x_i), nonzero on the boundary: its boundary values given by\n"
                           "             DMBrickSetBoundaryFunction() enter weakly through the boundary faces (-ksp_rtol 1e-12 by default).\n"
                           "  -dm_brick_remove i,j[,k],... / -dm_brick_periodic px,py[,pz]: a forest domain (p4est), solved with f = 1.\n"
                           "Every solve stops at ||r|| <= rtol ||b|| (-ksp_rtol, default 1e-8, as in [CK24]); ex3 prints the iterations, the\n"
                           "fractional iterations n log(rtol) / log(||r_n|| / ||r_0||) of [CK24] Tables 1-2, the true residual\n"
                           "||b - A x||/||b||, and exits with status 1 if the solve did not converge.\n\n";

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

/* set only what the user did not set on the command line */
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
  Vec                u, b, r;
  Mat                A;
  Problem            problem;
  PetscInt           its, dim = 2, nhist;
  PetscReal          error = 0.0, tnorm, bnorm, rtol, *hist, frac = 0.0;
  PetscLogDouble     ts, t0, t1;
  KSPConvergedReason reason;
  char               smoother[32] = "vertexpatch", rhs[32] = "sine", space[32] = "full";
  const char        *opname;
  PetscBool          rhsone, chebyshev, vertexpatch, issipg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-smoother", smoother, sizeof(smoother), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs", rhs, sizeof(rhs), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-local_space", space, sizeof(space), NULL));
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
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dm_brick_dim", &dim, NULL));
  PetscCall(SetDefault("-dm_brick_operator", "sipg"));
  PetscCall(SetDefault("-dm_brick_cells", dim == 3 ? "2,2,2" : "4,4"));
  PetscCall(SetDefault("-dm_brick_degree", "3"));
  PetscCall(SetDefault("-dm_brick_refine", dim == 3 ? "2" : "3"));
  PetscCall(SetDefault("-ksp_rtol", problem.exp ? "1e-12" : "1e-8")); /* exp: ||b|| grows with the boundary data's face terms */
  PetscCall(SetDefault("-pc_type", "mg"));
  if (vertexpatch) {
    PetscCall(SetDefault("-ksp_type", "fgmres"));
    PetscCall(SetDefault("-mg_levels_ksp_type", "richardson"));
    PetscCall(SetDefault("-mg_levels_ksp_max_it", "1"));
    PetscCall(SetDefault("-mg_levels_pc_type", "vertexpatch"));
    PetscCall(SetDefault("-mg_levels_pc_vertexpatch_local_space", space));
  } else {
    PetscCall(SetDefault("-ksp_type", "cg"));
    PetscCall(SetDefault("-ksp_norm_type", "unpreconditioned"));
    PetscCall(SetDefault("-mg_levels_ksp_type", "chebyshev"));
    PetscCall(SetDefault("-mg_levels_pc_type", "jacobi"));
  }

  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMBrickGetOperator(dm, &opname));
  PetscCall(PetscStrcmp(opname, "sipg", &issipg));
  PetscCheck(issipg, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "ex3 solves the DG problem: -dm_brick_operator %s; allowed: sipg (tutorials/ex1 solves the CG one)", opname);
  PetscCall(DMView(dm, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMBrickGetInfo(dm, &problem.dim, NULL, NULL, NULL));
  PetscCall(DMBrickGetDomain(dm, problem.lower, problem.upper));
  {
    /* a forest with removed cells or periodic directions: the manufactured sine is not its solution, so f = 1 */
    PetscBool rmset, perset;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-dm_brick_remove", &rmset));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-dm_brick_periodic", &perset));
    if ((rmset || perset) && !rhsone && !problem.exp) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "forest domain: f = 1 (the manufactured sine solves the full box only; tutorials/ex5 -dm_brick_operator sipg has exact solutions on forests)\n"));
      rhsone = PETSC_TRUE;
    }
  }

  if (problem.exp) PetscCall(DMBrickSetBoundaryFunction(dm, ExactSolution, &problem)); /* u = g on the boundary, weakly */
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(PetscObjectSetName((PetscObject)u, "u")); /* the field's name in -ksp_view_solution vtk:u.vtu */
  PetscCall(VecDuplicate(u, &b));
  PetscCall(DMBrickComputeLoadVector(dm, rhsone ? One : RightHandSide, &problem, b));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetResidualHistory(ksp, NULL, PETSC_DECIDE, PETSC_TRUE));
  PetscCall(PetscTime(&ts));
  PetscCall(KSPSetUp(ksp));
  PetscCall(DMBrickSynchronize(dm)); /* the solve time starts when the set-up's device work has run on every rank */

  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(PetscTime(&t1));

  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(KSPGetResidualHistory(ksp, (const PetscReal **)&hist, &nhist));
  /* [CK24]: the iterations a constant reduction per step would need for the tolerance exactly */
  if (its > 0 && nhist > its && hist[its] > 0 && hist[0] > 0) frac = its * PetscLog10Real(rtol) / PetscLog10Real(hist[its] / hist[0]);
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, u, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &tnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(VecDestroy(&r));
  if (!rhsone) PetscCall(DMBrickComputeL2Error(dm, u, ExactSolution, &problem, &error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Linear solve %s due to %s iterations %" PetscInt_FMT "\n", reason > 0 ? "converged" : "did not converge", KSPConvergedReasons[reason], its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fractional iterations %.2f\n", (double)frac));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "true residual |b - A x|/|b| %.3e\n", (double)(tnorm / bnorm)));
  if (!rhsone) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error %.6e\n", (double)error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve time %.4f s (setup excluded), setup time %.4f s\n", t1 - t0, t0 - ts));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
