static const char help[] = "Poisson -Delta u = f on a brick (2D or 3D, CG Q_k), solved with KSP + PCMG built from the brick alone.\n"
                           "Manufactured solution u = prod_i sin(pi (x_i - a_i)/(b_i - a_i)) on the box prod [a_i, b_i].\n"
                           "Default solver: CG preconditioned by a multigrid V-cycle with Chebyshev/Jacobi smoothing\n"
                           "(every -ksp_*, -pc_*, -mg_* and -dm_brick_* option can change it).\n\n";

#include <petscvpatch.h>
#include <petsctime.h>

typedef struct {
  PetscInt  dim;
  PetscReal lower[3], upper[3];
} Problem;

static PetscErrorCode ExactSolution(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  Problem *p = (Problem *)ctx;

  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * (x[d] - p->lower[d]) / (p->upper[d] - p->lower[d]));
  return 0;
}

static PetscErrorCode RightHandSide(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  Problem  *p = (Problem *)ctx;
  PetscReal s = 0.0;

  for (PetscInt d = 0; d < dim; d++) s += PetscSqr(PETSC_PI / (p->upper[d] - p->lower[d]));
  PetscCall(ExactSolution(dim, x, f, ctx));
  *f *= s;
  return 0;
}

/* The baseline configuration: set only what the user did not set on the command line. */
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
  Vec                u, b;
  Problem            problem;
  PetscInt           its, cells[3];
  PetscReal          error, rnorm, bnorm;
  PetscLogDouble     t0, t1;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SetDefault("-ksp_type", "cg"));
  PetscCall(SetDefault("-ksp_rtol", "1e-9"));
  PetscCall(SetDefault("-pc_type", "mg"));
  PetscCall(SetDefault("-mg_levels_ksp_type", "chebyshev"));
  PetscCall(SetDefault("-mg_levels_pc_type", "jacobi"));

  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMView(dm, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMBrickGetInfo(dm, &problem.dim, cells, NULL, NULL));
  PetscCall(DMBrickGetDomain(dm, problem.lower, problem.upper));

  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(DMBrickComputeLoadVector(dm, RightHandSide, &problem, b));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(PetscTime(&t1));

  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(DMBrickComputeL2Error(dm, u, ExactSolution, &problem, &error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Linear solve %s due to %s iterations %" PetscInt_FMT "\n", reason > 0 ? "converged" : "did not converge", KSPConvergedReasons[reason], its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error %.6e\n", (double)error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve time %.4f s (setup excluded)\n", t1 - t0));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
