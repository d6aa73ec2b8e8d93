static const char help[] = "Checks the matrix-free CG Q_k Laplace operator of the brick against the assembled one (random vectors),\n"
                           "its symmetry and diagonal, and the exact energy of a quadratic bubble.\n"
                           "Options: -dim 2|3, -kmin, -kmax.\n";

#include "checks.h"

/* g(x) = prod_d (x_d - a_d)(b_d - x_d): Q_2, zero on the boundary. */
static PetscErrorCode Bubble(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  const PetscReal *box = (const PetscReal *)ctx;

  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= (x[d] - box[d]) * (box[3 + d] - x[d]);
  return 0;
}

/* int |grad g|^2 = sum_d (L_d^3/3) prod_{e != d} L_e^5/30 */
static PetscReal BubbleEnergy(PetscInt dim, const PetscReal L[])
{
  PetscReal sum = 0.0;

  for (PetscInt d = 0; d < dim; d++) {
    PetscReal p = PetscPowReal(L[d], 3) / 3.0;
    for (PetscInt e = 0; e < dim; e++)
      if (e != d) p *= PetscPowReal(L[e], 5) / 30.0;
    sum += p;
  }
  return sum;
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 8;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt k = kmin; k <= kmax; k++) {
    /* a non-square box with unequal cells, one level above a coarse grid (so DMCreateMatrix is matrix-free) */
    const PetscInt  cells[3] = {2, 1, 1};
    const PetscReal lower[3] = {-0.5, 0.0, 0.25}, upper[3] = {1.5, 1.0, 0.75};
    PetscReal       box[6] = {lower[0], lower[1], lower[2], upper[0], upper[1], upper[2]}, L[3], rel, xAy, yAx, energy;
    DM              dm;
    Mat             Ashell, Aaij;
    Vec             x, y, ys, ya, ds, da;
    char            what[128];

    PetscCall(CreateBrick(dim, cells, lower, upper, k, 1, &dm));
    PetscCall(DMCreateMatrix(dm, &Ashell));
    {
      PetscBool isshell;
      PetscCall(PetscObjectTypeCompare((PetscObject)Ashell, MATSHELL, &isshell));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " DMCreateMatrix on level 1 is matrix-free (MATSHELL)", dim, k));
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
    {
      VecType   vt, dmvt;
      PetscBool same;
      PetscCall(VecGetType(x, &vt));
      PetscCall(DMGetVecType(dm, &dmvt));
      PetscCall(PetscStrcmp(vt, dmvt, &same));
      if (!same) { /* "standard" resolves to seq or mpi */
        PetscBool isstd;
        PetscCall(PetscStrcmp(dmvt, VECSTANDARD, &isstd));
        PetscCall(PetscStrbeginswith(vt, "seq", &same));
        if (!same) PetscCall(PetscStrbeginswith(vt, "mpi", &same));
        same = (PetscBool)(same && isstd);
      }
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " global vector type %s follows -dm_vec_type %s", dim, k, vt, dmvt));
      PetscCall(CheckTrue(what, same));
    }

    for (PetscInt t = 0; t < 3; t++) {
      PetscCall(VecSetRandom(x, rnd));
      PetscCall(MatMult(Ashell, x, ys));
      PetscCall(MatMult(Aaij, x, ya));
      PetscCall(RelativeDifference(ys, ya, &rel));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " matrix-free vs assembled, random vector %" PetscInt_FMT, dim, k, t));
      PetscCall(CheckLessThan(what, rel, 1e-12));
    }
    PetscCall(MatMultTranspose(Ashell, x, ys));
    PetscCall(RelativeDifference(ys, ya, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " transpose product vs assembled", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));

    PetscCall(VecSetRandom(y, rnd));
    PetscCall(MatMult(Ashell, x, ys));
    PetscCall(VecDot(y, ys, &yAx));
    PetscCall(MatMult(Ashell, y, ys));
    PetscCall(VecDot(x, ys, &xAy));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " symmetry |y'Ax - x'Ay|/|y'Ax|", dim, k));
    PetscCall(CheckLessThan(what, PetscAbsReal(xAy - yAx) / PetscAbsReal(yAx), 1e-12));

    PetscCall(MatGetDiagonal(Ashell, ds));
    PetscCall(MatGetDiagonal(Aaij, da));
    PetscCall(RelativeDifference(ds, da, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " diagonal matrix-free vs assembled", dim, k));
    PetscCall(CheckLessThan(what, rel, 1e-12));

    if (k >= 2) {
      for (PetscInt d = 0; d < dim; d++) L[d] = upper[d] - lower[d];
      PetscCall(DMBrickInterpolateFunction(dm, Bubble, box, x));
      PetscCall(MatMult(Ashell, x, ys));
      PetscCall(VecDot(x, ys, &energy));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " energy of the Q2 bubble vs exact %.6g", dim, k, (double)BubbleEnergy(dim, L)));
      PetscCall(CheckLessThan(what, PetscAbsReal(energy - BubbleEnergy(dim, L)) / BubbleEnergy(dim, L), 1e-12));
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
