static const char help[] = "The clamped plate: the biharmonic equation Delta^2 u = f with u = du/dn = 0 on the boundary of a brick (2D or\n"
                           "3D), C0 interior penalty discretization (CG Q_k, k >= 2), solved with KSP + PCMG + vertex-patch smoothing\n"
                           "built from the brick alone (seed 000).\n"
                           "Manufactured solution u = prod_i sin^2(pi t_i), t_i = (x_i - a_i)/(b_i - a_i): zero with zero gradient on the\n"
                           "boundary, so it satisfies the clamped conditions.\n"
                           "Default problem: Q3 on an 8 x 8 grid refined twice (2D; 9k DoFs, 6 levels down to one cell), or Q2 on 4 x 4 x 4\n"
                           "refined once (with -dm_brick_dim 3; 3.4k DoFs, 4 levels); -dm_brick_* options replace any part of it. The residual of the\n"
                           "biharmonic operator has a round-off floor that grows like h^-4: on fine meshes ask for a larger -ksp_rtol.\n"
                           "  -smoother mvs (default): FGMRES (the true residual; the iterates of seed 000's right-preconditioned GMRES)\n"
                           "             with V-cycles of one colored multiplicative vertex-patch step (2^(d+1) colors, damping 1 in 2D,\n"
                           "             0.7 in 3D) before and after.\n"
                           "  -smoother avs: CG with V-cycles of two additive vertex-patch steps (damping 1/4 in 2D, 1/8 in 3D, limited by\n"
                           "             the lambda_max(B A) estimated at setup) before and after.\n"
                           "  -coarse smoother: one step of the same smoother on the -dm_brick_cells grid, kept as the coarsest (the paper;\n"
                           "             exact on a coarse grid of 2^d cells, which is the default there); -coarse lu: LU of the assembled\n"
                           "             coarse matrix, whatever its size; -coarse auto (the default on other coarse grids): the brick's choice,\n"
                           "             which coarsens below -dm_brick_cells as far as the cells halve and solves the coarsest problem exactly\n"
                           "             up to -dm_brick_coarse_direct_max nonzeros, with Chebyshev/Jacobi steps over it (-ksp_view says which).\n"
                           "  -rhs paper: seed 000's test problem, u = prod sin(pi t_i): zero on the boundary, its non-zero slope\n"
                           "             imposed weakly through the boundary faces (DMBrickC0IPAddNormalDerivative).\n"
                           "  -rhs exp:   u = exp(x + y (+ z)), nonzero on the boundary with a nonzero slope: the clamped data u = g\n"
                           "             (DMBrickSetBoundaryFunction(), lifted in the load vector) and du/dn = grad u . n\n"
                           "             (DMBrickC0IPAddNormalDerivative()); the multigrid stays the homogeneous problem's. Boxes and\n"
                           "             domains with removed cells (their faces are boundary too); not periodic ones.\n"
                           "  -dm_brick_remove i,j[,k],... / -dm_brick_periodic px,py[,pz]: a forest domain (p4est); with removed cells\n"
                           "             f = 1 (no errors printed), periodic only: the default solution (periodic) and its L2 error (every\n"
                           "             direction periodic: none, the solution is determined up to a constant).\n"
                           "Prints the iterations, the fractional iterations nu_frac = -8 / log10(rbar), rbar = (|r_n|/|r_0|)^(1/n),\n"
                           "the L2 and broken H2 errors and the time. Every -ksp_*, -pc_*, -mg_* and -dm_brick_* option changes the setup;\n"
                           "-mg_levels_pc_vertexpatch_local_solver dense gives the exact local solvers of seed 000, Table 1;\n"
                           "-mg_levels_pc_vertexpatch_precision single (mixed precision) needs a flexible or residual-updating Krylov method\n"
                           "(the V-cycle is then not linear): FGMRES and CG are; GMRES is refused. Exits with status 1 if the solve did not converge.\n\n";

#include <petscvpatch.h>
#include <petsctime.h>

typedef struct {
  PetscInt  dim;
  PetscReal lower[3], upper[3];
} Problem;

/* s(t) = sin^2(pi t) and its derivatives in t */
static void Sine2(PetscReal t, PetscReal s[5])
{
  const PetscReal a = 2.0 * PETSC_PI * t, p = PETSC_PI;
  s[0] = 0.5 * (1.0 - PetscCosReal(a));
  s[1] = p * PetscSinReal(a);
  s[2] = 2.0 * p * p * PetscCosReal(a);
  s[3] = -4.0 * p * p * p * PetscSinReal(a);
  s[4] = -8.0 * p * p * p * p * PetscCosReal(a);
}

/* derivatives of order 0..4 of each factor, in x */
static void Factors(const Problem *pb, const PetscReal x[], PetscReal g[3][5])
{
  for (PetscInt d = 0; d < 3; d++) {
    PetscReal c = 1.0;
    if (d >= pb->dim) {
      g[d][0] = 1.0;
      g[d][1] = g[d][2] = g[d][3] = g[d][4] = 0.0;
      continue;
    }
    Sine2((x[d] - pb->lower[d]) / (pb->upper[d] - pb->lower[d]), g[d]);
    for (PetscInt o = 1; o < 5; o++) {
      c *= 1.0 / (pb->upper[d] - pb->lower[d]);
      g[d][o] *= c;
    }
  }
}

static PetscErrorCode ExactSolution(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  PetscReal g[3][5];

  Factors((Problem *)ctx, x, g);
  *u = g[0][0] * g[1][0] * g[2][0];
  return 0;
}

static PetscErrorCode ExactHessian(PetscInt dim, const PetscReal x[], PetscScalar H[], void *ctx)
{
  PetscReal g[3][5];

  Factors((Problem *)ctx, x, g);
  for (PetscInt d = 0; d < dim; d++)
    for (PetscInt e = 0; e < dim; e++) {
      PetscReal p = 1.0;
      for (PetscInt f = 0; f < 3; f++) p *= g[f][(f == d) + (f == e)];
      H[d * dim + e] = p;
    }
  return 0;
}

static PetscErrorCode One(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  *f = 1.0;
  return 0;
}

/* Delta^2 u = sum_d u_dddd + 2 sum_{d<e} u_ddee */
static PetscErrorCode RightHandSide(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  PetscReal g[3][5];

  Factors((Problem *)ctx, x, g);
  *f = 0.0;
  for (PetscInt d = 0; d < dim; d++) {
    PetscReal p = 1.0;
    for (PetscInt e = 0; e < 3; e++) p *= g[e][e == d ? 4 : 0];
    *f += p;
    for (PetscInt e = d + 1; e < dim; e++) {
      PetscReal q = 2.0;
      for (PetscInt c = 0; c < 3; c++) q *= g[c][(c == d || c == e) ? 2 : 0];
      *f += q;
    }
  }
  return 0;
}

/* seed 000's test problem: u = prod sin(pi t_i), zero on the boundary but with a non-zero slope there, which
   enters weakly through the boundary faces (DMBrickC0IPAddNormalDerivative); f = Delta^2 u = (sum_d c_d^2)^2 u */
static PetscReal PaperFactor(const Problem *pb, PetscInt d, const PetscReal x[], PetscInt order)
{
  const PetscReal c = PETSC_PI / (pb->upper[d] - pb->lower[d]), a = c * (x[d] - pb->lower[d]), p = PetscPowReal(c, (PetscReal)order);

  switch (order % 4) {
  case 0:
    return p * PetscSinReal(a);
  case 1:
    return p * PetscCosReal(a);
  case 2:
    return -p * PetscSinReal(a);
  default:
    return -p * PetscCosReal(a);
  }
}

static PetscErrorCode PaperSolution(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PaperFactor((Problem *)ctx, d, x, 0);
  return 0;
}

static PetscErrorCode PaperGradient(PetscInt dim, const PetscReal x[], PetscReal g[], void *ctx)
{
  for (PetscInt d = 0; d < dim; d++) {
    g[d] = 1.0;
    for (PetscInt e = 0; e < dim; e++) g[d] *= PaperFactor((Problem *)ctx, e, x, e == d);
  }
  return 0;
}

/* -rhs exp: u = exp(sum_d x_d), its gradient and Hessian (every entry u), Delta^2 u = dim^2 u */
static PetscErrorCode ExpSolution(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  PetscReal e = 0.0;
  for (PetscInt d = 0; d < dim; d++) e += x[d];
  *u = PetscExpReal(e);
  return 0;
}

static PetscErrorCode ExpGradient(PetscInt dim, const PetscReal x[], PetscReal g[], void *ctx)
{
  PetscScalar u;
  PetscCall(ExpSolution(dim, x, &u, ctx));
  for (PetscInt d = 0; d < dim; d++) g[d] = PetscRealPart(u);
  return 0;
}

static PetscErrorCode ExpHessian(PetscInt dim, const PetscReal x[], PetscScalar H[], void *ctx)
{
  PetscScalar u;
  PetscCall(ExpSolution(dim, x, &u, ctx));
  for (PetscInt i = 0; i < dim * dim; i++) H[i] = u;
  return 0;
}

static PetscErrorCode ExpRightHandSide(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  PetscCall(ExpSolution(dim, x, f, ctx));
  *f *= (PetscReal)(dim * dim);
  return 0;
}

static PetscErrorCode PaperHessian(PetscInt dim, const PetscReal x[], PetscScalar H[], void *ctx)
{
  for (PetscInt d = 0; d < dim; d++)
    for (PetscInt e = 0; e < dim; e++) {
      H[d * dim + e] = 1.0;
      for (PetscInt f = 0; f < dim; f++) H[d * dim + e] *= PaperFactor((Problem *)ctx, f, x, (f == d) + (f == e));
    }
  return 0;
}

static PetscErrorCode PaperRightHandSide(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  Problem  *pb = (Problem *)ctx;
  PetscReal s  = 0.0;

  for (PetscInt d = 0; d < dim; d++) s += PetscSqr(PETSC_PI / (pb->upper[d] - pb->lower[d]));
  PaperSolution(dim, x, f, ctx);
  *f *= s * s;
  return 0;
}

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
  Mat                A;
  Vec                u, b, r;
  Problem            problem;
  PetscInt           its, cells[3], degree;
  PetscReal          l2 = 0.0, h2 = 0.0, rnorm, tnorm, bnorm, nufrac;
  PetscLogDouble     ts, t0, t1;
  KSPConvergedReason reason;
  char               smoother[32] = "mvs", coarse[32] = "auto", rhs[32] = "sine2";
  PetscBool          mvs, avs, paper, lu, sine2, expo, smoothercoarse, autocoarse, forest, removed, allperiodic;
  PetscInt           dim = 2, coarsecells[3] = {0, 0, 0};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-smoother", smoother, sizeof(smoother), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-coarse", coarse, sizeof(coarse), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs", rhs, sizeof(rhs), NULL));
  PetscCall(PetscStrcmp(smoother, "mvs", &mvs));
  PetscCall(PetscStrcmp(smoother, "avs", &avs));
  PetscCheck(mvs || avs, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-smoother %s: allowed mvs, avs", smoother);
  PetscCall(PetscStrcmp(coarse, "lu", &lu));
  PetscCall(PetscStrcmp(coarse, "smoother", &smoothercoarse));
  PetscCall(PetscStrcmp(coarse, "auto", &autocoarse));
  PetscCheck(lu || smoothercoarse || autocoarse, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-coarse %s: allowed auto, smoother, lu", coarse);
  PetscCall(PetscStrcmp(rhs, "paper", &paper));
  PetscCall(PetscStrcmp(rhs, "sine2", &sine2));
  PetscCall(PetscStrcmp(rhs, "exp", &expo));
  PetscCheck(paper || sine2 || expo, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rhs %s: allowed sine2, paper, exp", rhs);

  /* a default problem that shows the method: several levels, a fine grid for 1-4 ranks (c0ip reads two cells of ghosts,
     so a rank needs three cells along a split direction), and a coarse grid that halves down to one cell, so that the
     coarsest problem stays small at every degree (the levels below it live on fewer ranks) */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dm_brick_dim", &dim, NULL));
  PetscCall(SetDefault("-dm_brick_operator", "c0ip"));
  PetscCall(SetDefault("-dm_brick_cells", dim == 3 ? "4,4,4" : "8,8"));
  PetscCall(SetDefault("-dm_brick_degree", dim == 3 ? "2" : "3"));
  PetscCall(SetDefault("-dm_brick_refine", dim == 3 ? "1" : "2"));
  if (autocoarse) {
    /* one smoothing step solves exactly on a coarse grid with one interior vertex (2^d cells) */
    PetscInt n = 3;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-dm_brick_cells", coarsecells, &n, NULL));
    smoothercoarse = PETSC_TRUE;
    for (PetscInt d = 0; d < n; d++) smoothercoarse = (PetscBool)(smoothercoarse && coarsecells[d] == 2);
  }
  /* the smoother solves on the user's coarse grid, which therefore stays the coarsest; LU on the brick's coarsest level,
     whatever its size (PCMG's default coarse solver, kept once a KSP type is given) */
  if (smoothercoarse) PetscCall(SetDefault("-dm_brick_coarsen_below", "0"));
  if (lu) PetscCall(SetDefault("-mg_coarse_ksp_type", "preonly"));
  /* -rhs exp: the lifted boundary values make ||b|| grow like h^-3, so the default is tighter (the L2 error at order
     k + 1 is then measured, not the algebraic error) */
  PetscCall(SetDefault("-ksp_rtol", expo ? "1e-12" : "1e-8"));
  PetscCall(SetDefault("-pc_type", "mg"));
  PetscCall(SetDefault("-mg_levels_ksp_type", "richardson"));
  PetscCall(SetDefault("-mg_levels_pc_type", "vertexpatch"));
  if (mvs) {
    /* FGMRES: right preconditioning, so its residual is the true one, |b - A x| (seed 000 counts with right-preconditioned
       GMRES, whose iterates FGMRES reproduces for a fixed preconditioner); exact also when the V-cycle computes in float */
    PetscCall(SetDefault("-ksp_type", "fgmres"));
    PetscCall(SetDefault("-mg_levels_ksp_max_it", "1"));
    PetscCall(SetDefault("-mg_levels_pc_vertexpatch_type", "multiplicative"));
  } else {
    PetscCall(SetDefault("-ksp_type", "cg"));
    PetscCall(SetDefault("-ksp_norm_type", "unpreconditioned"));
    PetscCall(SetDefault("-mg_levels_ksp_max_it", "2"));
    PetscCall(SetDefault("-mg_levels_pc_vertexpatch_type", "additive"));
  }
  if (smoothercoarse) {
    PetscCall(SetDefault("-mg_coarse_ksp_type", "richardson"));
    PetscCall(SetDefault("-mg_coarse_ksp_max_it", "1"));
    PetscCall(SetDefault("-mg_coarse_pc_type", "vertexpatch"));
    PetscCall(SetDefault("-mg_coarse_pc_vertexpatch_type", mvs ? "multiplicative" : "additive"));
  }

  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMView(dm, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMBrickGetInfo(dm, &problem.dim, cells, &degree, NULL));
  PetscCall(DMBrickGetDomain(dm, problem.lower, problem.upper));

  PetscCall(DMBrickGetForestInfo(dm, &forest, NULL, NULL, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-dm_brick_remove", &removed));
  {
    /* every direction periodic: the constants are the operator's kernel, so the solution is known up to one */
    PetscBool per[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
    PetscInt  nper   = 3;
    PetscCall(PetscOptionsGetBoolArray(NULL, NULL, "-dm_brick_periodic", per, &nper, NULL));
    allperiodic = (PetscBool)(nper >= problem.dim && per[0] && per[1] && (problem.dim == 2 || per[2]));
    if (allperiodic) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "every direction periodic: the solution is determined up to a constant (no error printed)\n"));
  }
  if (expo || paper) { /* neither solution is periodic on the box */
    PetscBool per[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, anyper;
    PetscInt  nper   = 3;
    PetscCall(PetscOptionsGetBoolArray(NULL, NULL, "-dm_brick_periodic", per, &nper, NULL));
    anyper = (PetscBool)(per[0] || per[1] || per[2]);
    PetscCheck(!anyper, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-rhs %s (%s) is not periodic: not with -dm_brick_periodic; allowed: %s", rhs, expo ? "u = exp(x + y (+ z))" : "u = prod sin(pi x_i)",
               expo ? "boxes and domains with removed cells (-dm_brick_remove)" : "boxes");
  }
  if (removed && !expo) {
    /* removed cells: the manufactured solutions sine2 and paper are not clamped on the new boundary, so f = 1 and no
       errors (-rhs exp takes its boundary data on any domain) */
    PetscCheck(!paper, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-rhs %s imposes slopes on the box's boundary: not with -dm_brick_remove; allowed: the default (f = 1 on a domain with removed cells) or -rhs exp", rhs);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "forest domain with removed cells: f = 1 (the manufactured solutions sine2 and paper solve the box and periodic boxes only; -rhs exp, or tutorials/ex5 -dm_brick_operator c0ip -domain periodic, has an exact solution)\n"));
  }
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(PetscObjectSetName((PetscObject)u, "u")); /* the field's name in -ksp_view_solution vtk:u.vtu */
  PetscCall(VecDuplicate(u, &b));
  PetscCall(VecDuplicate(u, &r));
  if (expo) PetscCall(DMBrickSetBoundaryFunction(dm, ExpSolution, &problem)); /* the values, lifted by the load vector */
  PetscCall(DMBrickComputeLoadVector(dm, expo ? ExpRightHandSide : removed ? One : paper ? PaperRightHandSide : RightHandSide, &problem, b));
  if (paper) PetscCall(DMBrickC0IPAddNormalDerivative(dm, PaperGradient, &problem, b));
  if (expo) PetscCall(DMBrickC0IPAddNormalDerivative(dm, ExpGradient, &problem, b));

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
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatMult(A, u, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &tnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  {
    /* fractional iterations (seed 000, section 5.1): steps to reduce the residual by 1e8 at the average rate,
       measured in the Krylov method's own norm (the true residual for FGMRES and for CG with -ksp_norm_type
       unpreconditioned; the preconditioned one with -ksp_type gmres -ksp_pc_side left, deal.II's GMRES
       default). The true residual |b - A x| is printed too: on fine meshes it stalls near eps cond(A) |x|/|b|. */
    const PetscReal *hist;
    PetscInt         nhist;
    PetscCall(KSPGetResidualHistory(ksp, &hist, &nhist));
    rnorm  = nhist > its ? hist[its] / hist[0] : tnorm / bnorm;
    nufrac = its > 0 ? -8.0 / PetscLog10Real(PetscPowReal(rnorm, 1.0 / its)) : 0.0;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Linear solve %s due to %s iterations %" PetscInt_FMT "\n", reason > 0 ? "converged" : "did not converge", KSPConvergedReasons[reason], its));
  if (reason > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fractional iterations nu_frac %.2f (|r_n|/|r_0| = %.3e; true residual |b - A x|/|b| = %.3e)\n", (double)nufrac, (double)rnorm, (double)(tnorm / bnorm)));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fractional iterations: none, the solve did not converge (true residual |b - A x|/|b| = %.3e)\n", (double)(tnorm / bnorm)));
  if ((!removed || expo) && !allperiodic) { /* the box, a periodic box (prod sin^2 is periodic), or -rhs exp anywhere: the L2 error; the broken H2 error on the box */
    PetscCall(DMBrickComputeL2Error(dm, u, paper ? PaperSolution : expo ? ExpSolution : ExactSolution, &problem, &l2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error %.6e\n", (double)l2));
    if (!forest) {
      PetscCall(DMBrickComputeBrokenH2Error(dm, u, paper ? PaperHessian : expo ? ExpHessian : ExactHessian, &problem, &h2));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "broken H2 error %.6e\n", (double)h2));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve time %.4f s (setup excluded), setup time %.4f s\n", t1 - t0, t0 - ts));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1; /* a diverged solve is a failure of the run */
}
