static const char help[] = "Checks PCVERTEXPATCH on a DG (sipg) brick: for each local space (full, dirichlet, clamped), one multiplicative\n"
                           "and one additive application with fast diagonalization against the same with dense Cholesky local solves;\n"
                           "for clamped, the patch-local residual against the global one (exact: its test functions and their\n"
                           "derivatives vanish on the patch boundary); for full, one sweep on a single patch is the exact solve.\n"
                           "Options: -dim 2|3, -kmin, -kmax, -cells.\n";

#include "checks.h"

static PetscErrorCode CreateSIPG(PetscInt dim, const PetscInt cells[], PetscInt k, DM *dm)
{
  const PetscReal lower[3] = {-0.5, 0.0, 0.25}, upper[3] = {1.5, 1.0, 0.75};

  PetscFunctionBeginUser;
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, dm));
  PetscCall(DMBrickSetDimension(*dm, dim));
  PetscCall(DMBrickSetCells(*dm, cells));
  PetscCall(DMBrickSetDomain(*dm, lower, upper));
  PetscCall(DMBrickSetDegree(*dm, k));
  PetscCall(DMBrickSetOperator(*dm, "sipg"));
  PetscCall(DMSetFromOptions(*dm));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

/* y = one application of a vertex-patch PC with these settings on A (from x0 with the Richardson step, or PCApply) */
static PetscErrorCode Apply(DM dm, Mat A, PCVertexPatchType type, PCVertexPatchLocalSpace space, PCVertexPatchLocalSolver solver, PetscInt residual, Vec b, Vec x0, Vec y)
{
  PC                          pc;
  Vec                         w;
  PetscInt                    its;
  PCRichardsonConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCVERTEXPATCH));
  PetscCall(PCVertexPatchSetType(pc, type));
  PetscCall(PCVertexPatchSetLocalSpace(pc, space));
  PetscCall(PCVertexPatchSetLocalSolver(pc, solver));
  if (residual >= 0) PetscCall(PCVertexPatchSetResidual(pc, (PCVertexPatchResidual)residual));
  PetscCall(PCSetUp(pc));
  if (x0) {
    PetscCall(VecDuplicate(b, &w));
    PetscCall(VecCopy(x0, y));
    PetscCall(PCApplyRichardson(pc, b, y, w, 0.0, 0.0, 0.0, 1, PETSC_FALSE, &its, &reason));
    PetscCall(VecDestroy(&w));
  } else PetscCall(PCApply(pc, b, y));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 4, cells[3] = {3, 4, 3}, n = 3;
  PetscRandom rnd;
  char        what[192];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &n, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt k = kmin; k <= kmax; k++) {
    DM  dm;
    Mat A;
    Vec b, x0, y1, y2;
    PetscCall(CreateSIPG(dim, cells, k, &dm));
    PetscCall(DMCreateMatrix(dm, &A));
    PetscCall(DMCreateGlobalVector(dm, &b));
    PetscCall(VecDuplicate(b, &x0));
    PetscCall(VecDuplicate(b, &y1));
    PetscCall(VecDuplicate(b, &y2));
    PetscCall(VecSetRandom(b, rnd));
    PetscCall(VecSetRandom(x0, rnd));
    for (PetscInt s = 0; s < 3; s++) {
      const PCVertexPatchLocalSpace space = (PCVertexPatchLocalSpace)s;
      PetscReal                     rel;
      if (space == PC_VERTEXPATCH_SPACE_CLAMPED && k < 3) continue;
      for (PetscInt t = 0; t < 2; t++) {
        const PCVertexPatchType type = (PCVertexPatchType)t;
        PetscCall(Apply(dm, A, type, space, PC_VERTEXPATCH_FDM, -1, b, x0, y1));
        PetscCall(Apply(dm, A, type, space, PC_VERTEXPATCH_DENSE, -1, b, x0, y2));
        PetscCall(RelativeDifference(y1, y2, &rel));
        PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " %s %s sweep: fdm vs dense local solves", dim, k, PCVertexPatchLocalSpaces[space], PCVertexPatchTypes[type]));
        PetscCall(CheckLessThan(what, rel, 1e-11));
      }
      if (space == PC_VERTEXPATCH_SPACE_CLAMPED) {
        PetscCall(Apply(dm, A, PC_VERTEXPATCH_MULTIPLICATIVE, space, PC_VERTEXPATCH_FDM, PC_VERTEXPATCH_RESIDUAL_LOCAL, b, x0, y1));
        PetscCall(Apply(dm, A, PC_VERTEXPATCH_MULTIPLICATIVE, space, PC_VERTEXPATCH_FDM, PC_VERTEXPATCH_RESIDUAL_GLOBAL, b, x0, y2));
        PetscCall(RelativeDifference(y1, y2, &rel));
        PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " clamped: patch-local residual = global residual (one sweep)", dim, k));
        PetscCall(CheckLessThan(what, rel, 1e-11));
      }
      if (space == PC_VERTEXPATCH_SPACE_DIRICHLET) {
        /* the dirichlet kernel's local residual is an approximation: it must differ from the global one */
        PetscCall(Apply(dm, A, PC_VERTEXPATCH_MULTIPLICATIVE, space, PC_VERTEXPATCH_FDM, PC_VERTEXPATCH_RESIDUAL_LOCAL, b, x0, y1));
        PetscCall(Apply(dm, A, PC_VERTEXPATCH_MULTIPLICATIVE, space, PC_VERTEXPATCH_FDM, PC_VERTEXPATCH_RESIDUAL_GLOBAL, b, x0, y2));
        PetscCall(RelativeDifference(y1, y2, &rel));
        PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " dirichlet: patch-local residual differs from the global one (inconsistent, as in [CK24])", dim, k));
        PetscCall(CheckTrue(what, (PetscBool)(rel > 1e-6)));
      }
    }
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x0));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&dm));
    {
      /* 2^d cells: one patch; the full space is the whole space, so one sweep solves A y = b */
      const PetscInt two[3] = {2, 2, 2};
      Vec            r;
      PetscReal      rn, bn;
      PetscCall(CreateSIPG(dim, two, k, &dm));
      PetscCall(DMBrickCreateOperator(dm, MATSHELL, &A));
      PetscCall(DMCreateGlobalVector(dm, &b));
      PetscCall(VecDuplicate(b, &y1));
      PetscCall(VecDuplicate(b, &r));
      PetscCall(VecSetRandom(b, rnd));
      PetscCall(Apply(dm, A, PC_VERTEXPATCH_MULTIPLICATIVE, PC_VERTEXPATCH_SPACE_FULL, PC_VERTEXPATCH_FDM, -1, b, NULL, y1));
      PetscCall(MatMult(A, y1, r));
      PetscCall(VecAXPY(r, -1.0, b));
      PetscCall(VecNorm(r, NORM_2, &rn));
      PetscCall(VecNorm(b, NORM_2, &bn));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D DG Q%" PetscInt_FMT " full space on a single patch: one sweep solves, |b - A y|/|b|", dim, k));
      PetscCall(CheckLessThan(what, rn / bn, 1e-11));
      PetscCall(VecDestroy(&b));
      PetscCall(VecDestroy(&y1));
      PetscCall(VecDestroy(&r));
      PetscCall(MatDestroy(&A));
      PetscCall(DMDestroy(&dm));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
