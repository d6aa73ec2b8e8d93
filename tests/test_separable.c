static const char help[] = "Checks DMBrickComputeLoadVectorSeparable() and DMBrickComputeL2ErrorSeparable() against the point-function\n"
                           "versions (the same quadrature): load vectors to 1e-13 relative, L2 errors of a random vector to 1e-12, CG and DG,\n"
                           "2D and 3D, k = kmin..kmax, on any number of ranks and (with -dm_vec_type cuda) on the GPU; and the errors for bad\n"
                           "input (no terms, a vector of another brick).\n"
                           "  -dim 2|3  -kmin k  -kmax k  -family cg|dg  -cells Nx,Ny[,Nz]\n\n";

#include "checks.h"

/* f(x) = sin(1.3 x) cos(0.7 y) exp(0.2 z) + (1 + x^2) y (2 - z): two terms */
static PetscScalar Factor(PetscInt t, PetscInt d, PetscReal x)
{
  if (t == 0) return d == 0 ? PetscSinReal(1.3 * x) : (d == 1 ? PetscCosReal(0.7 * x) : PetscExpReal(0.2 * x));
  return d == 0 ? 1.0 + x * x : (d == 1 ? x : 2.0 - x);
}

static PetscErrorCode SeparableF(PetscInt t, PetscInt d, PetscReal x, PetscScalar *v, void *ctx)
{
  *v = Factor(t, d, x);
  return 0;
}

static PetscErrorCode PointF(PetscInt dim, const PetscReal x[], PetscScalar *v, void *ctx)
{
  *v = 0.0;
  for (PetscInt t = 0; t < 2; t++) {
    PetscScalar p = 1.0;
    for (PetscInt d = 0; d < dim; d++) p *= Factor(t, d, x[d]);
    *v += p;
  }
  return 0;
}

/* u = prod_d sin(pi (x_d - a_d) / (b_d - a_d)) on the box of the test: zero on its boundary */
static const PetscReal box_lo[3] = {-0.5, 0.2, 0.25}, box_hi[3] = {1.5, 1.0, 1.75};

static PetscErrorCode SineSeparable(PetscInt t, PetscInt d, PetscReal x, PetscScalar *v, void *ctx)
{
  *v = PetscSinReal(PETSC_PI * (x - box_lo[d]) / (box_hi[d] - box_lo[d]));
  return 0;
}

static PetscErrorCode SinePoint(PetscInt dim, const PetscReal x[], PetscScalar *v, void *ctx)
{
  *v = 1.0;
  for (PetscInt d = 0; d < dim; d++) *v *= PetscSinReal(PETSC_PI * (x[d] - box_lo[d]) / (box_hi[d] - box_lo[d]));
  return 0;
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 8;
  char        family[8] = "cg";
  PetscBool   dg;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-family", family, sizeof(family), NULL));
  PetscCall(PetscStrcmp(family, "dg", &dg));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt k = kmin; k <= kmax; k++) {
    /* a box off the origin with unequal cell widths per direction */
    const PetscInt  cells[3] = {3, 2, 2};
    const PetscReal *lower = box_lo, *upper = box_hi;
    DM              dm;
    Vec             bp, bs, u;
    PetscReal       rel = 0.0, ep, es, nb;
    char            what[160];

    if (dg) PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_operator", "sipg"));
    PetscCall(CreateBrick(dim, cells, lower, upper, k, 1, &dm));
    PetscCall(DMCreateGlobalVector(dm, &bp));
    PetscCall(VecDuplicate(bp, &bs));
    PetscCall(VecDuplicate(bp, &u));

    PetscCall(DMBrickComputeLoadVector(dm, PointF, NULL, bp));
    PetscCall(VecSet(bs, 7.0)); /* every entry must be written */
    PetscCall(DMBrickComputeLoadVectorSeparable(dm, 2, SeparableF, NULL, bs));
    PetscCall(VecNorm(bp, NORM_2, &nb));
    PetscCall(RelativeDifference(bs, bp, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D %s Q%" PetscInt_FMT " separable load vector = point-function load vector (|b| %.3e), relative", dim, family, k, (double)nb));
    PetscCall(CheckLessThan(what, rel, 1e-13));

    /* the L2 error of a random vector (of the size of the exact solution) against f */
    PetscCall(VecSetRandom(u, rnd));
    PetscCall(DMBrickComputeL2Error(dm, u, PointF, NULL, &ep));
    PetscCall(DMBrickComputeL2ErrorSeparable(dm, u, 2, SeparableF, NULL, &es));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D %s Q%" PetscInt_FMT " separable L2 error = point-function L2 error (%.6e), relative", dim, family, k, (double)ep));
    PetscCall(CheckLessThan(what, PetscAbsReal(es - ep) / ep, 1e-12));
    /* and of an interpolant, whose error is small: the two sums differ in their rounding, relative to that error */
    PetscCall(DMBrickInterpolateFunction(dm, SinePoint, NULL, u));
    PetscCall(DMBrickComputeL2Error(dm, u, SinePoint, NULL, &ep));
    PetscCall(DMBrickComputeL2ErrorSeparable(dm, u, 1, SineSeparable, NULL, &es));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D %s Q%" PetscInt_FMT " L2 error of the sine's interpolant (%.3e), separable against point function: difference below 1e-6 of it + 1e-15", dim, family, k, (double)ep));
    PetscCall(CheckLessThan(what, PetscAbsReal(es - ep), 1e-6 * ep + 1e-15));
    if (k == kmin) { /* bad input: a clear error, no crash */
      PetscErrorCode ierr;
      Vec            wrong;
      PetscInt       nl;
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = DMBrickComputeLoadVectorSeparable(dm, 0, SeparableF, NULL, bs);
      PetscCall(PetscPopErrorHandler());
      PetscCall(CheckTrue("nterms 0 is refused (PETSC_ERR_ARG_OUTOFRANGE)", (PetscBool)(ierr == PETSC_ERR_ARG_OUTOFRANGE)));
      PetscCall(VecGetLocalSize(bs, &nl));
      PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nl + 1, PETSC_DETERMINE, &wrong));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = DMBrickComputeLoadVectorSeparable(dm, 2, SeparableF, NULL, wrong);
      PetscCall(PetscPopErrorHandler());
      PetscCall(CheckTrue("a vector of the wrong size is refused (PETSC_ERR_ARG_WRONG)", (PetscBool)(ierr == PETSC_ERR_ARG_WRONG)));
      PetscCall(VecDestroy(&wrong));
    }
    PetscCall(VecDestroy(&bp));
    PetscCall(VecDestroy(&bs));
    PetscCall(VecDestroy(&u));
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
