static const char help[] = "Checks the V-cycle a KSPSetDM() + options configuration makes, as a linear operator B: its symmetry,\n"
                           "|(x, B y) - (B x, y)| / (|x| |B y|), for two vectors that do not depend on the partition, and a\n"
                           "fingerprint of B x (norm, dot with y) to compare rank counts. The brick and the solver come from the options\n"
                           "(e.g. -pc_type mg -mg_levels_ksp_type richardson -mg_levels_pc_type vertexpatch).\n"
                           "Options: -symmetric <bool> (expect a symmetric V-cycle, default true; false: expect an asymmetric one).\n";

#include "checks.h"

/* two functions whose load vectors are partition-free and far from each other */
static PetscErrorCode FunctionX(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * (d + 1) * x[d]) + 0.3 * PetscCosReal(7.0 * x[d]);
  return 0;
}

static PetscErrorCode FunctionY(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  *u = 0.0;
  for (PetscInt d = 0; d < dim; d++) *u += PetscSinReal(11.0 * x[d] + d) * x[d];
  return 0;
}

int main(int argc, char **argv)
{
  DM        dm;
  KSP       ksp;
  PC        pc;
  Vec       x, y, Bx, By;
  PetscReal nx, nBy, nBx, asym;
  PetscScalar xBy, Bxy;
  PetscBool symmetric = PETSC_TRUE;
  char      what[256];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-symmetric", &symmetric, NULL));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &Bx));
  PetscCall(VecDuplicate(x, &By));
  PetscCall(DMBrickComputeLoadVector(dm, FunctionX, NULL, x));
  PetscCall(DMBrickComputeLoadVector(dm, FunctionY, NULL, y));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCApply(pc, x, Bx));
  PetscCall(PCApply(pc, y, By));
  PetscCall(VecDot(x, By, &xBy));
  PetscCall(VecDot(Bx, y, &Bxy));
  PetscCall(VecNorm(x, NORM_2, &nx));
  PetscCall(VecNorm(By, NORM_2, &nBy));
  PetscCall(VecNorm(Bx, NORM_2, &nBx));
  asym = PetscAbsScalar(xBy - Bxy) / (nx * nBy);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fingerprint vcycle norm %.16e dot %.16e\n", (double)nBx, (double)PetscRealPart(Bxy)));
  if (symmetric) PetscCall(CheckLessThan("the V-cycle is symmetric: |(x, B y) - (B x, y)| / (|x| |B y|)", asym, 1e-12));
  else {
    PetscCall(PetscSNPrintf(what, sizeof(what), "the V-cycle is not symmetric (forward sweeps both ways): |(x, B y) - (B x, y)| / (|x| |B y|) = %.3e > 1e-6", (double)asym));
    PetscCall(CheckTrue(what, (PetscBool)(asym > 1e-6)));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&Bx));
  PetscCall(VecDestroy(&By));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
