static const char help[] = "VTK output of brick vectors: writes the nodal interpolant of a Q_k polynomial (field p) and of a linear\n"
                           "function (field q) with VecView() on a VTK viewer, for tests/check_vtk.py (python3-vtk9) to read back.\n"
                           "Options: -dim, -k, -refine, -cells, -file (default brick.vtu), -dm_brick_* (operator sipg: DG; remove, periodic, ...).\n"
                           "p is a product over directions of polynomials of degree k that vanish on the box's faces (CG: the brick's\n"
                           "Dirichlet nodes hold zero) and, with -forest_factor, at x_d = 1/2 (the faces of removed cells of a 2 x 2 (x 2)\n"
                           "coarse grid). tests/check_vtk.py evaluates the same formulas.\n";

#include <petscvpatch.h>
#include "checks.h"

typedef struct {
  PetscInt  k;
  PetscBool dg, half; /* dg: any Q_k polynomial (no boundary nodes); half: a factor (t - 1/2) too */
} PolyCtx;

/* the 1D factor along direction d: t (1 - t) [(t - 1/2)] times 1 + (d + 1) t / 3 + t^2 / 5 + ... up to degree k (DG: no
   boundary factors) */
static PetscReal Factor(const PolyCtx *c, PetscInt d, PetscReal t)
{
  PetscInt  deg = c->k;
  PetscReal v   = 1.0, s = 0.0, tj = 1.0;

  if (!c->dg) {
    v = t * (1.0 - t);
    deg -= 2;
    if (c->half) {
      v *= t - 0.5;
      deg -= 1;
    }
  }
  for (PetscInt j = 0; j <= deg; j++, tj *= t) s += tj * (j == 0 ? 1.0 : (PetscReal)(d + 1) / (PetscReal)(2 * j + 1));
  return v * s;
}

static PetscErrorCode Poly(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  PetscReal v = 1.0;

  for (PetscInt d = 0; d < dim; d++) v *= Factor((const PolyCtx *)ctx, d, x[d]);
  *u = v;
  return 0;
}

static PetscErrorCode Linear(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  (void)ctx;
  *u = 1.0 + x[0] + 2.0 * x[1] + (dim == 3 ? 3.0 * x[2] : 0.0);
  return 0;
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, k = 2, refine = 1, cells[3] = {2, 2, 2};
  char        file[PETSC_MAX_PATH_LEN] = "brick.vtu";
  PolyCtx     ctx;
  DM          dm;
  Vec         p, q;
  PetscViewer viewer;
  PetscReal   lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  PetscInt64  ncells;
  PetscBool   forest, ascii = PETSC_FALSE;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-k", &k, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-file", file, sizeof(file), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ascii", &ascii, NULL)); /* also view q on an ASCII viewer (the vector type's own view) */
  PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &dm));
  ctx.k = k;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-forest_factor", &ctx.half));
  {
    const char *op;
    PetscBool   dg;
    PetscCall(DMBrickGetOperator(dm, &op)); /* sipg: a DG brick */
    PetscCall(PetscStrcmp(op, "sipg", &dg));
    ctx.dg = dg;
  }
  PetscCall(DMCreateGlobalVector(dm, &p));
  PetscCall(VecDuplicate(p, &q)); /* a duplicate views itself in VTK too */
  PetscCall(PetscObjectSetName((PetscObject)p, "p"));
  PetscCall(PetscObjectSetName((PetscObject)q, "q"));
  PetscCall(DMBrickInterpolateFunction(dm, Poly, &ctx, p));
  PetscCall(DMBrickInterpolateFunction(dm, Linear, NULL, q));
  PetscCall(PetscViewerVTKOpen(PETSC_COMM_WORLD, file, FILE_MODE_WRITE, &viewer));
  PetscCall(VecView(p, viewer));
  PetscCall(VecView(q, viewer));
  {
    PetscBool other = PETSC_FALSE; /* -other_brick: a vector of another brick on the same viewer (an error) */
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-other_brick", &other, NULL));
    if (other) {
      DM  dm2;
      Vec w;
      PetscCall(CreateBrick(dim, cells, lower, upper, k, refine + 1, &dm2));
      PetscCall(DMCreateGlobalVector(dm2, &w));
      PetscCall(VecView(w, viewer));
      PetscCall(VecDestroy(&w));
      PetscCall(DMDestroy(&dm2));
    }
  }
  PetscCall(PetscViewerDestroy(&viewer));
  if (ascii) PetscCall(VecView(q, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMBrickGetForestInfo(dm, &forest, &ncells, NULL, NULL));
  if (!forest) {
    PetscInt c[3];
    PetscCall(DMBrickGetInfo(dm, NULL, c, NULL, NULL));
    ncells = (PetscInt64)c[0] * c[1] * (dim == 3 ? c[2] : 1);
  }
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wrote %s: %" PetscInt64_FMT " cells, %d rank(s)\n", file, ncells, size));
  PetscCall(VecDestroy(&p));
  PetscCall(VecDestroy(&q));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
