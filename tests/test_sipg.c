static const char help[] = "Checks the DG (sipg) brick: the matrix-free SIPG operator against the assembled one (random vectors), its\n"
                           "symmetry and diagonal, exact energies (a continuous bubble: int |grad u|^2; piecewise constants: the\n"
                           "penalty on the faces), the grid transfer (shell = assembled, transpose, exact on Q_k polynomials) and the\n"
                           "L2 convergence order k+1. Options: -dim 2|3, -kmin, -kmax, -order 0|1, -order_levels n, -dm_brick_sipg_penalty.\n";

#include "checks.h"

/* g(x) = prod_d (x_d - a_d)(b_d - x_d): Q_2, continuous and zero on the boundary */
static PetscErrorCode Bubble(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  const PetscReal *box = (const PetscReal *)ctx;

  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= (x[d] - box[d]) * (box[3 + d] - x[d]);
  return 0;
}

/* a Q_k polynomial that is not continuous-only: the transfer must reproduce it exactly */
static PetscErrorCode Poly(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  const PetscInt k = *(const PetscInt *)ctx;

  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscPowReal(x[d] + 0.3 * (d + 1), (PetscReal)k) - 0.5 * x[d];
  return 0;
}

static PetscErrorCode SineExact(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * x[d]);
  return 0;
}

static PetscErrorCode SineRHS(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  PetscCall(SineExact(dim, x, f, ctx));
  *f *= dim * PETSC_PI * PETSC_PI;
  return 0;
}

static PetscErrorCode CreateSIPGBrick(PetscInt dim, const PetscInt cells[], const PetscReal lower[], const PetscReal upper[], PetscInt k, PetscInt refine, DM *dm)
{
  PetscFunctionBeginUser;
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, dm));
  PetscCall(DMBrickSetDimension(*dm, dim));
  PetscCall(DMBrickSetCells(*dm, cells));
  PetscCall(DMBrickSetDomain(*dm, lower, upper));
  PetscCall(DMBrickSetDegree(*dm, k));
  PetscCall(DMBrickSetOperator(*dm, "sipg"));
  PetscCall(DMSetRefineLevel(*dm, refine));
  PetscCall(DMSetFromOptions(*dm));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

static PetscErrorCode Energy(Mat A, Vec u, PetscReal *e)
{
  Vec         Au;
  PetscScalar s;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(u, &Au));
  PetscCall(MatMult(A, u, Au));
  PetscCall(VecDot(u, Au, &s));
  *e = PetscRealPart(s);
  PetscCall(VecDestroy(&Au));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckOperator(PetscInt dim, PetscInt k, const PetscInt cells[], PetscRandom rnd)
{
  const PetscReal lower[3] = {-0.5, 0.0, 0.25}, upper[3] = {1.5, 1.0, 0.75};
  PetscReal       box[6] = {lower[0], lower[1], lower[2], upper[0], upper[1], upper[2]}, L[3], h[3], rel, xAy, yAx, e, exact;
  DM              dm;
  Mat             As, Aa;
  Vec             x, y, ys, ya, ds, da;
  PetscBool       sym, isshell;
  char            what[160];
  PetscInt        nc[3];

  PetscFunctionBeginUser;
  PetscCall(CreateSIPGBrick(dim, cells, lower, upper, k, 1, &dm));
  PetscCall(DMBrickGetInfo(dm, NULL, nc, NULL, NULL));
  for (PetscInt d = 0; d < 3; d++) {
    L[d] = upper[d] - lower[d];
    h[d] = L[d] / nc[d];
  }
  PetscCall(DMCreateMatrix(dm, &As));
  PetscCall(PetscObjectTypeCompare((PetscObject)As, MATSHELL, &isshell));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " DMCreateMatrix is matrix-free", dim, k));
  PetscCall(CheckTrue(what, isshell));
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &Aa));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &ys));
  PetscCall(VecDuplicate(x, &ya));
  PetscCall(VecDuplicate(x, &ds));
  PetscCall(VecDuplicate(x, &da));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(y, rnd));
  PetscCall(MatMult(As, x, ys));
  PetscCall(MatMult(Aa, x, ya));
  PetscCall(RelativeDifference(ys, ya, &rel));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " shell vs assembled (random x)", dim, k));
  PetscCall(CheckLessThan(what, rel, 1e-12));
  PetscCall(MatIsSymmetric(Aa, 1e-12, &sym));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " assembled SIPG matrix symmetric", dim, k));
  PetscCall(CheckTrue(what, sym));
  {
    PetscScalar a, b;
    PetscCall(MatMult(As, y, ya));
    PetscCall(VecDot(x, ya, &a));
    PetscCall(VecDot(y, ys, &b));
    xAy = PetscRealPart(a);
    yAx = PetscRealPart(b);
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " shell symmetric |x'Ay - y'Ax|/|x'Ay|", dim, k));
    PetscCall(CheckLessThan(what, PetscAbsReal(xAy - yAx) / PetscAbsReal(xAy), 1e-12));
  }
  PetscCall(MatGetDiagonal(As, ds));
  PetscCall(MatGetDiagonal(Aa, da));
  PetscCall(RelativeDifference(ds, da, &rel));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " diagonal shell vs assembled", dim, k));
  PetscCall(CheckLessThan(what, rel, 1e-12));
  PetscCall(Energy(As, x, &e));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " positive x'Ax (random x)", dim, k));
  PetscCall(CheckTrue(what, (PetscBool)(e > 0)));
  if (k >= 2) { /* the continuous bubble: no jumps, so only the cell terms, int |grad g|^2 */
    exact = 0.0;
    for (PetscInt d = 0; d < dim; d++) {
      PetscReal p = PetscPowReal(L[d], 3) / 3.0;
      for (PetscInt f = 0; f < dim; f++)
        if (f != d) p *= PetscPowReal(L[f], 5) / 30.0;
      exact += p;
    }
    PetscCall(DMBrickInterpolateFunction(dm, Bubble, box, x));
    PetscCall(Energy(As, x, &e));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " energy of a continuous bubble = int |grad u|^2", dim, k));
    PetscCall(CheckLessThan(what, PetscAbsReal(e - exact) / exact, 1e-12));
  }
  {
    /* the step: 1 left of the middle. Gradients vanish; the jump at the middle face (interior penalty k(k+1)/h_x) and
       the boundary faces where u = 1 (penalty 2 k(k+1)/h_d) remain */
    PetscReal pk = (PetscReal)(k * (k + 1)), gamma = 1.0;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-dm_brick_sipg_penalty", &gamma, NULL)); /* the penalty factor scales every face penalty */
    pk *= gamma;
    PetscReal area[3] = {1.0, 1.0, 1.0}; /* the face areas normal to each direction */
    for (PetscInt d = 0; d < dim; d++) {
      for (PetscInt f = 0; f < dim; f++)
        if (f != d) area[d] *= L[f];
    }
    exact = pk / h[0] * area[0] + 2.0 * pk / h[0] * area[0];
    for (PetscInt d = 1; d < dim; d++) exact += 2.0 * (2.0 * pk / h[d]) * 0.5 * area[d];
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (size == 1) { /* one rank: the global vector is cell by cell, cells x fastest, (k+1)^d values each */
      PetscScalar   *xa;
      const PetscInt dof = dim == 2 ? (k + 1) * (k + 1) : (k + 1) * (k + 1) * (k + 1);
      PetscCall(VecGetArrayWrite(x, &xa));
      for (PetscInt c = 0; c < nc[0] * nc[1] * (dim == 3 ? nc[2] : 1); c++)
        for (PetscInt i = 0; i < dof; i++) xa[c * dof + i] = (c % nc[0]) < nc[0] / 2 ? 1.0 : 0.0;
      PetscCall(VecRestoreArrayWrite(x, &xa));
      PetscCall(Energy(As, x, &e));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " energy of a step = the face penalties", dim, k));
      PetscCall(CheckLessThan(what, PetscAbsReal(e - exact) / exact, 1e-12));
    }
  }
  {
    /* the transfer from the level below: shell = assembled, P^T the adjoint, Q_k polynomials reproduced */
    DM       dmc;
    Mat      Ps, Pa;
    Vec      xc, yc, zc, xf, yf, zf;
    PetscInt kk = k;
    PetscCall(DMCoarsen(dm, PETSC_COMM_WORLD, &dmc));
    PetscCall(DMBrickCreateInterpolation(dmc, dm, MATSHELL, &Ps));
    PetscCall(DMBrickCreateInterpolation(dmc, dm, MATAIJ, &Pa));
    PetscCall(DMCreateGlobalVector(dmc, &xc));
    PetscCall(VecDuplicate(xc, &yc));
    PetscCall(VecDuplicate(xc, &zc));
    PetscCall(DMCreateGlobalVector(dm, &xf));
    PetscCall(VecDuplicate(xf, &yf));
    PetscCall(VecDuplicate(xf, &zf));
    PetscCall(VecSetRandom(xc, rnd));
    PetscCall(VecSetRandom(xf, rnd));
    PetscCall(MatMult(Ps, xc, yf));
    PetscCall(MatMult(Pa, xc, zf));
    PetscCall(RelativeDifference(yf, zf, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " prolongation shell vs assembled", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));
    PetscCall(MatMultTranspose(Ps, xf, yc));
    PetscCall(MatMultTranspose(Pa, xf, zc));
    PetscCall(RelativeDifference(yc, zc, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " restriction shell vs assembled", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));
    PetscCall(DMBrickInterpolateFunction(dmc, Poly, &kk, xc));
    PetscCall(DMBrickInterpolateFunction(dm, Poly, &kk, zf));
    PetscCall(MatMult(Ps, xc, yf));
    PetscCall(RelativeDifference(yf, zf, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " prolongation reproduces a Q_k polynomial", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));
    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&yc));
    PetscCall(VecDestroy(&zc));
    PetscCall(VecDestroy(&xf));
    PetscCall(VecDestroy(&yf));
    PetscCall(VecDestroy(&zf));
    PetscCall(MatDestroy(&Ps));
    PetscCall(MatDestroy(&Pa));
    PetscCall(DMDestroy(&dmc));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&ys));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&ds));
  PetscCall(VecDestroy(&da));
  PetscCall(MatDestroy(&As));
  PetscCall(MatDestroy(&Aa));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

/* L2 errors of the SIPG solution of -Laplace u = f, u = prod sin(pi x_d) on the unit square/cube, on `levels` meshes;
   the assembled matrix with the KSP of the options (default CG + Jacobi to 1e-12) */
static PetscErrorCode CheckOrder(PetscInt dim, PetscInt k, PetscInt levels, const PetscInt cells[])
{
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  PetscReal       err[8];
  char            what[160];

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < levels; l++) {
    DM  dm;
    Mat A;
    Vec b, u;
    KSP ksp;
    PetscCall(CreateSIPGBrick(dim, cells, lower, upper, k, l, &dm));
    PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
    PetscCall(DMCreateGlobalVector(dm, &b));
    PetscCall(VecDuplicate(b, &u));
    PetscCall(DMBrickComputeLoadVector(dm, SineRHS, NULL, b));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    {
      PC pc;
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCJACOBI));
    }
    PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, u));
    PetscCall(DMBrickComputeL2Error(dm, u, SineExact, NULL, &err[l]));
    if (l) {
      const PetscReal rate = PetscLog2Real(err[l - 1] / err[l]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %" PetscInt_FMT "D DG Q%" PetscInt_FMT " level %" PetscInt_FMT ": L2 error %.4e, rate %.3f\n", dim, k, l, (double)err[l], (double)rate));
      if (l == levels - 1) {
        PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " L2 order k+1 = %" PetscInt_FMT ": |rate - (k+1)|", dim, k, k + 1));
        PetscCall(CheckLessThan(what, PetscAbsReal(rate - (k + 1)), 0.3));
      }
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %" PetscInt_FMT "D DG Q%" PetscInt_FMT " level 0: L2 error %.4e\n", dim, k, (double)err[0]));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&u));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&dm));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 8, levels = 3, cells[3] = {2, 1, 1}, n = 3;
  PetscBool   order = PETSC_TRUE;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-order", &order, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-order_levels", &levels, NULL));
  /* a non-square box with unequal cells; the coarse grid 2 x 1 (x 1) unless -cells says otherwise (several ranks) */
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &n, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt k = kmin; k <= kmax; k++) PetscCall(CheckOperator(dim, k, cells, rnd));
  if (order)
    for (PetscInt k = kmin; k <= PetscMin(kmax, dim == 2 ? 4 : 2); k++) {
      const PetscInt c[3] = {2, 2, 2};
      PetscCall(CheckOrder(dim, k, levels, c));
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
