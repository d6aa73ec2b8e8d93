/* Tiny helpers for the C tests: every check prints one line "ok|FAIL <what> <value> <bound>" and the
   program exits with the number of failures, which tests/run.sh counts. */
#pragma once

#include <petscvpatch.h>

static PetscInt check_failures = 0;

static inline PetscErrorCode CheckLessThan(const char what[], PetscReal value, PetscReal bound)
{
  PetscFunctionBeginUser;
  if (!(value < bound)) check_failures++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s %.3e < %.1e\n", value < bound ? "ok" : "FAIL", what, (double)value, (double)bound));
  PetscFunctionReturn(0);
}

static inline PetscErrorCode CheckTrue(const char what[], PetscBool value)
{
  PetscFunctionBeginUser;
  if (!value) check_failures++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s\n", value ? "ok" : "FAIL", what));
  PetscFunctionReturn(0);
}

/* ||a - b|| / ||b|| */
static inline PetscErrorCode RelativeDifference(Vec a, Vec b, PetscReal *rel)
{
  Vec       d;
  PetscReal nd = 0.0, nb = 1.0;

  PetscFunctionBeginUser;
  *rel = -1.0; /* set on every path; a failed call returns before the difference is known */
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *rel = nd / nb;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* A brick with these properties; -cells Nx,Ny[,Nz] replaces the coarse grid (runs on several ranks need more cells),
   and the -dm_brick_* options replace the rest. */
static inline PetscErrorCode CreateBrick(PetscInt dim, const PetscInt defaultcells[], const PetscReal lower[], const PetscReal upper[], PetscInt degree, PetscInt refine, DM *dm)
{
  PetscInt cells[3] = {defaultcells[0], defaultcells[1], defaultcells[2]}, n = 3;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &n, NULL));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, dm));
  PetscCall(DMBrickSetDimension(*dm, dim));
  PetscCall(DMBrickSetCells(*dm, cells));
  PetscCall(DMBrickSetDomain(*dm, lower, upper));
  PetscCall(DMBrickSetDegree(*dm, degree));
  PetscCall(DMSetRefineLevel(*dm, refine));
  PetscCall(DMSetFromOptions(*dm));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

/* solves the m x m system S z = r in place by Gaussian elimination with partial pivoting */
static inline void GaussSolve(PetscInt m, PetscScalar *S, PetscScalar *r)
{
  for (PetscInt c = 0; c < m; c++) {
    PetscInt p = c;
    for (PetscInt i = c + 1; i < m; i++)
      if (PetscAbsScalar(S[i * m + c]) > PetscAbsScalar(S[p * m + c])) p = i;
    for (PetscInt j = 0; j < m; j++) {
      PetscScalar t = S[c * m + j];
      S[c * m + j]  = S[p * m + j];
      S[p * m + j]  = t;
    }
    {
      PetscScalar t = r[c];
      r[c]          = r[p];
      r[p]          = t;
    }
    for (PetscInt i = c + 1; i < m; i++) {
      const PetscScalar f = S[i * m + c] / S[c * m + c];
      for (PetscInt j = c; j < m; j++) S[i * m + j] -= f * S[c * m + j];
      r[i] -= f * r[c];
    }
  }
  for (PetscInt i = m - 1; i >= 0; i--) {
    for (PetscInt j = i + 1; j < m; j++) r[i] -= S[i * m + j] * r[j];
    r[i] /= S[i * m + i];
  }
}
