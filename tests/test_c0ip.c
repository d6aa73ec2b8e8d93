static const char help[] = "Checks the C0 interior penalty biharmonic operator of the brick (-dm_brick_operator c0ip): matrix-free\n"
                           "vs assembled on random vectors, transpose, symmetry, diagonal, the energy a(u,u) of a C0 function with\n"
                           "a derivative kink inside and non-zero normal derivatives on the boundary against its value computed\n"
                           "by hand from eq. (8) of seed 000, and positive definiteness (Cholesky of the assembled matrix).\n"
                           "Options: -dim 2|3, -kmin, -kmax, -cells, -refine (of the coarse grid -cells; keep the cells even), -spd <bool>.\n";

#include "checks.h"
#include <petscdt.h>

/* One factor of the test function: g(x) = (x-a)(b-x) + c ((b-a)/2 - |x - m|), m = (a+b)/2 a cell boundary:
   zero at a and b, a kink at m, non-zero slopes at a and b. */
typedef struct {
  PetscReal a[3], b[3], c[3];
} Kinked;

static PetscReal G(const Kinked *p, PetscInt d, PetscReal x)
{
  return (x - p->a[d]) * (p->b[d] - x) + p->c[d] * (0.5 * (p->b[d] - p->a[d]) - PetscAbsReal(x - 0.5 * (p->a[d] + p->b[d])));
}

static PetscReal Gp(const Kinked *p, PetscInt d, PetscReal x, PetscInt side) /* side -1/+1: one-sided at the kink */
{
  const PetscReal m = 0.5 * (p->a[d] + p->b[d]), s = (x < m || (x == m && side < 0)) ? -1.0 : 1.0;
  return p->a[d] + p->b[d] - 2.0 * x - p->c[d] * s;
}

static PetscErrorCode KinkedFunction(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= G((Kinked *)ctx, d, x[d]);
  return 0;
}

/* The 1D energies of g along d: int g^2, int g'^2, and the 1D C0IP form: int g''^2 (g'' = -2) plus, at the
   two boundary points, sigma_b J^2 - 2 A J with J = d_n g, A = g''; at the kink, sigma_i J^2 - 2 A J with
   J = g'(m-) - g'(m+) (outward normals +1, -1). sigma_i = k(k+1)/h, sigma_b = 2 k(k+1)/h. */
static PetscErrorCode Energies1D(const Kinked *p, PetscInt d, PetscInt k, PetscReal h, PetscReal e[3])
{
  PetscReal x[3], w[3], m = 0.5 * (p->a[d] + p->b[d]), sigi = k * (k + 1) / h, sigb = 2.0 * sigi, J;

  PetscFunctionBeginUser;
  e[0] = e[1] = 0.0;
  for (PetscInt half = 0; half < 2; half++) {
    PetscCall(PetscDTGaussQuadrature(3, half ? m : p->a[d], half ? p->b[d] : m, x, w));
    for (PetscInt q = 0; q < 3; q++) {
      e[0] += w[q] * PetscSqr(G(p, d, x[q]));
      e[1] += w[q] * PetscSqr(Gp(p, d, x[q], 0));
    }
  }
  e[2] = 4.0 * (p->b[d] - p->a[d]);
  J    = -Gp(p, d, p->a[d], 1);
  e[2] += sigb * J * J - 2.0 * (-2.0) * J;
  J = Gp(p, d, p->b[d], -1);
  e[2] += sigb * J * J - 2.0 * (-2.0) * J;
  J = Gp(p, d, m, -1) - Gp(p, d, m, 1);
  e[2] += sigi * J * J - 2.0 * (-2.0) * J;
  PetscFunctionReturn(0);
}

/* Cholesky of the (gathered, dense) assembled matrix: succeeds iff it is positive definite. The dense
   Cholesky's zero-pivot error is caught, not printed. */
static PetscErrorCode CheckPositiveDefinite(Mat A, const char what[])
{
  Mat            Aseq, D, *sub;
  IS             all;
  PetscInt       n;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, n, 0, 1, &all));
  PetscCall(MatCreateSubMatrices(A, 1, &all, &all, MAT_INITIAL_MATRIX, &sub));
  Aseq = sub[0];
  PetscCall(PetscFree(sub));
  PetscCall(MatConvert(Aseq, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatCholeskyFactor(D, NULL, NULL);
  PetscCall(PetscPopErrorHandler());
  PetscCall(CheckTrue(what, (PetscBool)(ierr == 0)));
  PetscCall(ISDestroy(&all));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&Aseq));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 2, kmax = 6, refine = 1;
  PetscBool   spd = PETSC_TRUE, set;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-spd", &spd, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-dm_brick_operator", &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_operator", "c0ip"));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt k = kmin; k <= kmax; k++) {
    /* a non-cubic box; refine 1 of an even coarse grid, so the middle of every direction is a cell boundary */
    const PetscInt  cells[3] = {2, 2, 2};
    const PetscReal lower[3] = {-0.5, 0.0, 0.25}, upper[3] = {1.5, 1.0, 0.75};
    DM              dm;
    Mat             Ashell, Aaij;
    Vec             x, y, ys, ya, ds, da;
    PetscReal       rel, xAy, yAx, energy, exact = 0.0, e1d[3][3];
    PetscInt        ncells[3];
    Kinked          kink;
    char            what[160];

    PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &dm));
    PetscCall(DMBrickGetInfo(dm, NULL, ncells, NULL, NULL));
    PetscCall(DMCreateMatrix(dm, &Ashell));
    {
      /* the comparisons below are between two implementations only if this one is matrix-free (level >= 1) */
      PetscBool isshell;
      PetscCall(PetscObjectTypeCompare((PetscObject)Ashell, MATSHELL, &isshell));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " DMCreateMatrix on level %" PetscInt_FMT " is matrix-free (MATSHELL)", dim, k, refine));
      PetscCall(CheckTrue(what, isshell));
    }
    PetscCall(DMSetMatType(dm, MATAIJ));
    PetscCall(DMCreateMatrix(dm, &Aaij));
    PetscCall(DMCreateGlobalVector(dm, &x));
    PetscCall(VecDuplicate(x, &y));
    PetscCall(VecDuplicate(x, &ys));
    PetscCall(VecDuplicate(x, &ya));
    PetscCall(VecDuplicate(x, &ds));
    PetscCall(VecDuplicate(x, &da));

    for (PetscInt t = 0; t < 3; t++) {
      PetscCall(VecSetRandom(x, rnd));
      PetscCall(MatMult(Ashell, x, ys));
      PetscCall(MatMult(Aaij, x, ya));
      PetscCall(RelativeDifference(ys, ya, &rel));
      PetscCall(PetscSNPrintf(what, sizeof(what), "c0ip %" PetscInt_FMT "D Q%" PetscInt_FMT " matrix-free vs assembled, random vector %" PetscInt_FMT, dim, k, t));
      PetscCall(CheckLessThan(what, rel, 1e-12));
    }
    PetscCall(MatMultTranspose(Ashell, x, ys));
    PetscCall(RelativeDifference(ys, ya, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "c0ip %" PetscInt_FMT "D Q%" PetscInt_FMT " transpose product vs assembled", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));
    PetscCall(VecSetRandom(y, rnd));
    PetscCall(MatMult(Ashell, x, ys));
    PetscCall(VecDot(y, ys, &yAx));
    PetscCall(MatMult(Ashell, y, ys));
    PetscCall(VecDot(x, ys, &xAy));
    PetscCall(PetscSNPrintf(what, sizeof(what), "c0ip %" PetscInt_FMT "D Q%" PetscInt_FMT " symmetry |y'Ax - x'Ay|/|y'Ax|", dim, k));
    PetscCall(CheckLessThan(what, PetscAbsReal(xAy - yAx) / PetscAbsReal(yAx), 1e-12));
    PetscCall(MatGetDiagonal(Ashell, ds));
    PetscCall(MatGetDiagonal(Aaij, da));
    PetscCall(RelativeDifference(ds, da, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "c0ip %" PetscInt_FMT "D Q%" PetscInt_FMT " diagonal matrix-free vs assembled", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));

    /* a(u,u) of u = prod_d g_d(x_d) = sum over the terms of eq. (23)/(25) of products of 1D energies */
    for (PetscInt d = 0; d < dim; d++) {
      kink.a[d] = lower[d];
      kink.b[d] = upper[d];
      kink.c[d] = 0.3 * (upper[d] - lower[d]) * (d + 1);
      PetscCall(Energies1D(&kink, d, k, (upper[d] - lower[d]) / ncells[d], e1d[d]));
    }
    for (PetscInt d = 0; d < dim; d++) {
      PetscReal p = e1d[d][2];
      for (PetscInt e = 0; e < dim; e++)
        if (e != d) p *= e1d[e][0];
      exact += p;
      for (PetscInt e = d + 1; e < dim; e++) {
        PetscReal q = 2.0 * e1d[d][1] * e1d[e][1];
        for (PetscInt f = 0; f < dim; f++)
          if (f != d && f != e) q *= e1d[f][0];
        exact += q;
      }
    }
    PetscCall(DMBrickInterpolateFunction(dm, KinkedFunction, &kink, x));
    PetscCall(MatMult(Ashell, x, ys));
    PetscCall(VecDot(x, ys, &energy));
    PetscCall(PetscSNPrintf(what, sizeof(what), "c0ip %" PetscInt_FMT "D Q%" PetscInt_FMT " a(u,u) of a kinked tensor function vs eq. (8) by hand (%.10g)", dim, k, (double)exact));
    PetscCall(CheckLessThan(what, PetscAbsReal(energy - exact) / exact, 1e-11));

    if (spd) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "c0ip %" PetscInt_FMT "D Q%" PetscInt_FMT " assembled operator positive definite (Cholesky), gamma = %d", dim, k, (int)(k * (k + 1))));
      PetscCall(CheckPositiveDefinite(Aaij, what));
    }

    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&ys));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&ds));
    PetscCall(VecDestroy(&da));
    PetscCall(MatDestroy(&Ashell));
    PetscCall(MatDestroy(&Aaij));
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
