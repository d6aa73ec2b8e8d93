static const char help[] = "Inhomogeneous Dirichlet data (DMBrickSetBoundaryFunction()): solves -Delta u = f with u = g on the boundary\n"
                           "(laplace, sipg; c0ip: Delta^2 u = f with u = g and du/dn = grad u . n, the slope through\n"
                           "DMBrickC0IPAddNormalDerivative()) by CG + PCMG (vertex-patch smoothing) and checks the L2 error.\n"
                           "  -test poly:   u a Q_k polynomial (nonzero on the boundary): reproduced (L2 error < 1e-9 relative)\n"
                           "  -test order:  u = exp(x + y (+ z)): L2 order k + 1 over -levels refinements\n"
                           "  -test lshape: u = r^(2/3) sin(2 theta / 3) around the re-entrant corner of the L-shape (2 x 2 coarse cells,\n"
                           "                the upper right one removed: -dm_brick_remove 1,1): the reduced order 4/3\n"
                           "Options: -dim, -k, -refine (the first level), -levels, -cells, -vtk file.vtu (the last solution).\n";

#include <petscvpatch.h>
#include "checks.h"

typedef struct {
  PetscInt  k, dim;
  char      test[16];
  PetscBool c0ip; /* -dm_brick_operator c0ip: the load is Delta^2 u */
} BCCtx;

/* the poly test's 1D factor along d and its derivatives 1, 2 and 4: 1 + x + x^2/2 + ... up to x^k, shifted per
   direction */
static PetscReal PolyFactorDerivatives(PetscInt k, PetscInt d, PetscReal x, PetscReal *first, PetscReal *second, PetscReal *fourth)
{
  PetscReal v = 0.0, s1 = 0.0, s2 = 0.0, s4 = 0.0;
  for (PetscInt j = 0; j <= k; j++) {
    const PetscReal c = 1.0 / (PetscReal)(j + 1 + d);
    v += c * PetscPowRealInt(x, j);
    if (j >= 1) s1 += c * j * PetscPowRealInt(x, j - 1);
    if (j >= 2) s2 += c * j * (j - 1) * PetscPowRealInt(x, j - 2);
    if (j >= 4) s4 += c * j * (j - 1) * (j - 2) * (j - 3) * PetscPowRealInt(x, j - 4);
  }
  *first  = s1;
  *second = s2;
  *fourth = s4;
  return v;
}

static PetscReal PolyFactor(PetscInt k, PetscInt d, PetscReal x, PetscReal *second)
{
  PetscReal first, fourth;
  return PolyFactorDerivatives(k, d, x, &first, second, &fourth);
}

/* grad u (c0ip: the boundary slope du/dn = grad u . n, DMBrickC0IPAddNormalDerivative()) */
static PetscErrorCode Gradient(PetscInt dim, const PetscReal x[], PetscReal g[], void *ctx)
{
  const BCCtx *c = (const BCCtx *)ctx;
  PetscBool    poly;

  PetscCall(PetscStrcmp(c->test, "poly", &poly));
  if (poly) {
    PetscReal v[3], d1[3], s, f;
    for (PetscInt d = 0; d < dim; d++) v[d] = PolyFactorDerivatives(c->k, d, x[d], &d1[d], &s, &f);
    for (PetscInt d = 0; d < dim; d++) {
      g[d] = d1[d];
      for (PetscInt e = 0; e < dim; e++)
        if (e != d) g[d] *= v[e];
    }
  } else { /* order: u = exp(sum x_d) */
    PetscReal e = 0.0;
    for (PetscInt d = 0; d < dim; d++) e += x[d];
    for (PetscInt d = 0; d < dim; d++) g[d] = PetscExpReal(e);
  }
  return 0;
}

/* Delta^2 u: sum_d u_dddd + 2 sum_{d<e} u_ddee */
static PetscErrorCode Bilaplacian(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  const BCCtx *c = (const BCCtx *)ctx;
  PetscBool    poly;

  PetscCall(PetscStrcmp(c->test, "poly", &poly));
  if (poly) {
    PetscReal v[3], d1[3], d2[3], d4[3], sum = 0.0;
    for (PetscInt d = 0; d < dim; d++) v[d] = PolyFactorDerivatives(c->k, d, x[d], &d1[d], &d2[d], &d4[d]);
    for (PetscInt d = 0; d < dim; d++)
      for (PetscInt e = d; e < dim; e++) {
        PetscReal p = e == d ? d4[d] : 2.0 * d2[d] * d2[e];
        for (PetscInt o = 0; o < dim; o++)
          if (o != d && o != e) p *= v[o];
        sum += p;
      }
    *f = sum;
  } else {
    PetscReal e = 0.0;
    for (PetscInt d = 0; d < dim; d++) e += x[d];
    *f = (PetscReal)(dim * dim) * PetscExpReal(e);
  }
  return 0;
}

static PetscErrorCode Exact(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  const BCCtx *c = (const BCCtx *)ctx;
  PetscBool    poly, order;

  PetscCall(PetscStrcmp(c->test, "poly", &poly));
  PetscCall(PetscStrcmp(c->test, "order", &order));
  if (poly) {
    PetscReal v = 1.0, s;
    for (PetscInt d = 0; d < dim; d++) v *= PolyFactor(c->k, d, x[d], &s);
    *u = v;
  } else if (order) {
    PetscReal e = 0.0;
    for (PetscInt d = 0; d < dim; d++) e += x[d];
    *u = PetscExpReal(e);
  } else { /* the L-shape's singular solution: angle from the re-entrant edge x = 1/2 (y > 1/2), round to y = 1/2 (x > 1/2) */
    const PetscReal dx = x[0] - 0.5, dy = x[1] - 0.5, r = PetscSqrtReal(dx * dx + dy * dy);
    PetscReal       t = PetscAtan2Real(dy, dx) - 0.5 * PETSC_PI; /* (0, 3 pi / 2) inside */
    if (t < 0) t += 2.0 * PETSC_PI;
    *u = r > 0 ? PetscPowReal(r, 2.0 / 3.0) * PetscSinReal(2.0 * t / 3.0) : 0.0;
  }
  return 0;
}

static PetscErrorCode Load(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  const BCCtx *c = (const BCCtx *)ctx;
  PetscBool    poly, order;

  PetscCall(PetscStrcmp(c->test, "poly", &poly));
  PetscCall(PetscStrcmp(c->test, "order", &order));
  if (poly) { /* -Delta u = -sum_d P_d'' prod_{e != d} P_e */
    PetscReal v[3], s[3], sum = 0.0;
    for (PetscInt d = 0; d < dim; d++) v[d] = PolyFactor(c->k, d, x[d], &s[d]);
    for (PetscInt d = 0; d < dim; d++) {
      PetscReal p = s[d];
      for (PetscInt e = 0; e < dim; e++)
        if (e != d) p *= v[e];
      sum += p;
    }
    *f = -sum;
  } else if (order) {
    PetscReal e = 0.0;
    for (PetscInt d = 0; d < dim; d++) e += x[d];
    *f = -(PetscReal)dim * PetscExpReal(e);
  } else *f = 0.0; /* harmonic */
  return 0;
}

static PetscErrorCode Solve(PetscInt dim, PetscInt k, PetscInt refine, BCCtx *ctx, const char vtk[], PetscReal *err, PetscReal *unorm)
{
  DM        dm;
  KSP       ksp;
  Vec       b, u;
  PetscInt  its, cells[3] = {2, 2, 2};
  PetscReal lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};

  PetscFunctionBeginUser;
  PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &dm));
  PetscCall(DMBrickSetBoundaryFunction(dm, Exact, ctx));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &u));
  PetscCall(PetscObjectSetName((PetscObject)u, "u"));
  {
    const char *op;
    PetscCall(DMBrickGetOperator(dm, &op));
    PetscCall(PetscStrcmp(op, "c0ip", &ctx->c0ip));
  }
  if (ctx->c0ip) { /* the clamped plate: values lifted with the load vector, the slope added weakly */
    PetscCall(DMBrickComputeLoadVector(dm, Bilaplacian, ctx, b));
    PetscCall(DMBrickC0IPAddNormalDerivative(dm, Gradient, ctx, b));
  } else PetscCall(DMBrickComputeLoadVector(dm, Load, ctx, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
  {
    Mat A;
    PC  pc;
    PetscCall(DMCreateMatrix(dm, &A));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(MatDestroy(&A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, 1e-13, 1e-50, PETSC_DEFAULT, 200));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCMG));
    PetscCall(PCMGSetLevels(pc, refine + 1, NULL));
    PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_ksp_type", "richardson"));
    PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_ksp_max_it", "1"));
    PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_pc_type", "vertexpatch"));
    PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_pc_vertexpatch_type", "additive")); /* symmetric: CG */
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(DMBrickComputeL2Error(dm, u, Exact, ctx, err));
  {
    /* ||u|| in L2: the error of the zero vector with the boundary data off (the interior values alone would miss g) */
    Vec z;
    PetscCall(VecDuplicate(u, &z));
    PetscCall(VecZeroEntries(z));
    PetscCall(DMBrickSetBoundaryFunction(dm, NULL, NULL));
    PetscCall(DMBrickComputeL2Error(dm, z, Exact, ctx, unorm));
    PetscCall(DMBrickSetBoundaryFunction(dm, Exact, ctx));
    PetscCall(VecDestroy(&z));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refine %" PetscInt_FMT ": %" PetscInt_FMT " CG iterations, L2 error %.4e (||u|| %.4e)", refine, its, (double)*err, (double)*unorm));
  if (vtk[0]) {
    PetscViewer viewer;
    PetscCall(PetscViewerVTKOpen(PETSC_COMM_WORLD, vtk, FILE_MODE_WRITE, &viewer));
    PetscCall(VecView(u, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  dim = 2, k = 2, refine = 1, levels = 3;
  BCCtx     ctx;
  PetscReal err[16], un[16];
  char      vtk[PETSC_MAX_PATH_LEN] = "";
  PetscBool poly, order, lshape;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscStrncpy(ctx.test, "poly", sizeof(ctx.test)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", ctx.test, sizeof(ctx.test), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-k", &k, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-levels", &levels, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vtk", vtk, sizeof(vtk), NULL));
  PetscCall(PetscStrcmp(ctx.test, "poly", &poly));
  PetscCall(PetscStrcmp(ctx.test, "order", &order));
  PetscCall(PetscStrcmp(ctx.test, "lshape", &lshape));
  PetscCheck(poly || order || lshape, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-test %s: allowed poly, order, lshape", ctx.test);
  PetscCheck(levels >= 1 && levels <= 16, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-levels %" PetscInt_FMT ": allowed 1..16", levels);
  ctx.k    = k;
  ctx.dim  = dim;
  ctx.c0ip = PETSC_FALSE;
  if (poly) levels = 1;
  for (PetscInt l = 0; l < levels; l++) {
    PetscCall(Solve(dim, k, refine + l, &ctx, l == levels - 1 ? vtk : "", &err[l], &un[l]));
    if (l) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", order %.2f", (double)PetscLog2Real(err[l - 1] / err[l])));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }
  if (poly) PetscCall(CheckLessThan("Q_k polynomial with its boundary values reproduced: L2 error / ||u||", err[0] / un[0], 1e-9));
  for (PetscInt l = 1; l < levels && !poly; l++) {
    char            what[128];
    /* c0ip Q2: order 2 in L2 (the quadratic C0IP method is suboptimal in L2) */
    const PetscReal expected = lshape ? PetscMin(k + 1, 4.0 / 3.0) : (ctx.c0ip && k == 2 ? 2.0 : k + 1), rate = PetscLog2Real(err[l - 1] / err[l]);
    if (err[l] < 1e-12 * un[l]) continue; /* near round-off (and the solver's tolerance): not judged */
    PetscCall(PetscSNPrintf(what, sizeof(what), "L2 order %" PetscInt_FMT " -> %" PetscInt_FMT " refinements, |order - %.2f|", refine + l - 1, refine + l, (double)expected));
    PetscCall(CheckLessThan(what, PetscAbsReal(rate - expected), 0.25));
  }
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
