static const char help[] = "Poisson -Delta u = f on domains that are not a box: a brick whose coarse cells are the trees of a p4est forest.\n"
                           "  -domain lshape   (default) 2D L-shape: 2 x 2 coarse cells, cell (1,1) removed; f = 1\n"
                           "  -domain fichera  3D Fichera corner: 2 x 2 x 2 coarse cells, cell (1,1,1) removed; f = 1\n"
                           "  -domain holes    2D plate with four square holes: 5 x 5 coarse cells, (1,1) (3,1) (1,3) (3,3) removed; f = 1\n"
                           "  -domain periodic periodic along x (and z in 3D, -dm_brick_dim 3), Dirichlet along y; exact solution\n"
                           "                   u = sin(2 pi x) sin(pi y) [sin(2 pi z)] (c0ip: sin(2 pi x) sin^2(pi y) [sin(2 pi z)]), so the L2\n"
                           "                   error is printed\n"
                           "  -domain box      the full box of the L-shape's (2D) or Fichera corner's (-dm_brick_dim 3) coarse cells, f = 1, on the\n"
                           "                   box layout: the reference for the iteration counts\n"
                           "  -bc singular     (L-shape, laplace) f = 0 and u = r^(2/3) sin(2 theta / 3) around the re-entrant corner, its values\n"
                           "                   on the boundary given by DMBrickSetBoundaryFunction(); the L2 error is printed\n"
                           "Any -dm_brick_cells / -dm_brick_remove / -dm_brick_periodic replaces the domain's description; -dm_brick_degree\n"
                           "(default 3) and -dm_brick_refine (default 3 in 2D, 2 in 3D) set the discretization, -dm_brick_operator sipg the DG one\n"
                           "(symmetric interior penalty, Dirichlet data weakly on every boundary face), -dm_brick_operator c0ip the biharmonic\n"
                           "Delta^2 u = f (C0 interior penalty, k >= 2, clamped: u = 0 and du/dn = 0 on every boundary). Solver: FGMRES with one\n"
                           "V-cycle of PCMG over all levels down to the trees, one multiplicative vertex-patch sweep (FDM) before and after,\n"
                           "an exact coarse solve on the trees; it stops at ||b - A x|| <= 1e-9 ||b|| and prints the true residual.\n\n";

#include <petscvpatch.h>
#include <petsctime.h>

typedef struct {
  PetscInt dim;
} Problem;

static PetscErrorCode One(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  *f = 1.0;
  return 0;
}

/* periodic along x (and z), zero at y = 0 and y = 1; ctx set: the biharmonic's, whose y-derivative vanishes there too */
static PetscErrorCode Exact(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  const PetscReal sy = PetscSinReal(PETSC_PI * x[1]);
  *u                 = PetscSinReal(2 * PETSC_PI * x[0]) * (ctx ? sy * sy : sy) * (dim == 3 ? PetscSinReal(2 * PETSC_PI * x[2]) : 1.0);
  return 0;
}

/* -Delta u, or Delta^2 u of u = s (1 - cos(2 pi y)) / 2, s = sin(2 pi x) [sin(2 pi z)]: each term times |wave vector|^4 */
static PetscErrorCode Load(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  if (ctx) {
    const PetscReal s = PetscSinReal(2 * PETSC_PI * x[0]) * (dim == 3 ? PetscSinReal(2 * PETSC_PI * x[2]) : 1.0), q = 4 * PETSC_PI * PETSC_PI, k1 = (dim == 3 ? 2 : 1) * q, k2 = k1 + q;
    *f = 0.5 * s * (k1 * k1 - PetscCosReal(2 * PETSC_PI * x[1]) * k2 * k2);
    return 0;
  }
  PetscCall(Exact(dim, x, f, ctx));
  *f *= (dim == 3 ? 9 : 5) * PETSC_PI * PETSC_PI;
  return 0;
}

/* the L-shape's singular harmonic function: r^(2/3) sin(2 theta / 3), theta from the re-entrant edge x = 1/2 (y > 1/2) */
static PetscErrorCode Singular(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  const PetscReal dx = x[0] - 0.5, dy = x[1] - 0.5, r = PetscSqrtReal(dx * dx + dy * dy);
  PetscReal       t = PetscAtan2Real(dy, dx) - 0.5 * PETSC_PI;
  if (t < 0) t += 2.0 * PETSC_PI;
  *u = r > 0 ? PetscPowReal(r, 2.0 / 3.0) * PetscSinReal(2.0 * t / 3.0) : 0.0;
  return 0;
}

static PetscErrorCode Zero(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  *f = 0.0;
  return 0;
}

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
  char           domain[32] = "lshape", bc[32] = "";
  PetscBool      singular;
  PetscBool      lshape, fichera, holes, periodic, box, c0ip;
  const char    *opname;
  void          *sol = NULL; /* the exact solution's context: set for the biharmonic one */
  DM             dm;
  KSP            ksp;
  Mat            A;
  Vec            u, b, r;
  PetscInt       its, dofs, dim;
  PetscInt64     ncells;
  PetscReal      tnorm, bnorm, error = 0;
  PetscLogDouble t0, t1, ts;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-domain", domain, sizeof(domain), NULL));
  PetscCall(PetscStrcmp(domain, "lshape", &lshape));
  PetscCall(PetscStrcmp(domain, "fichera", &fichera));
  PetscCall(PetscStrcmp(domain, "holes", &holes));
  PetscCall(PetscStrcmp(domain, "periodic", &periodic));
  PetscCall(PetscStrcmp(domain, "box", &box));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bc", bc, sizeof(bc), NULL));
  PetscCall(PetscStrcmp(bc, "singular", &singular));
  PetscCheck(singular || !bc[0] || !strcmp(bc, "none"), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bc %s: allowed none, singular", bc);
  PetscCheck(!singular || lshape, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-bc singular is the L-shape's solution: use it with -domain lshape, not -domain %s", domain);
  PetscCheck(lshape || fichera || holes || periodic || box, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-domain %s: allowed lshape, fichera, holes, periodic, box", domain);
  dim = fichera ? 3 : 2;
  if (periodic || box) PetscCall(PetscOptionsGetInt(NULL, NULL, "-dm_brick_dim", &dim, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_dim", dim == 3 ? "3" : "2"));
  if (lshape) {
    PetscCall(SetDefault("-dm_brick_cells", "2,2"));
    PetscCall(SetDefault("-dm_brick_remove", "1,1"));
  } else if (fichera) {
    PetscCall(SetDefault("-dm_brick_cells", "2,2,2"));
    PetscCall(SetDefault("-dm_brick_remove", "1,1,1"));
  } else if (holes) {
    PetscCall(SetDefault("-dm_brick_cells", "5,5"));
    PetscCall(SetDefault("-dm_brick_remove", "1,1,3,1,1,3,3,3"));
  } else if (box) {
    PetscCall(SetDefault("-dm_brick_cells", dim == 3 ? "2,2,2" : "2,2"));
    PetscCall(SetDefault("-dm_brick_coarsen_below", "0")); /* the same coarsest grid as the forests' (their trees) */
  } else {
    PetscCall(SetDefault("-dm_brick_cells", dim == 3 ? "2,2,2" : "2,2"));
    PetscCall(SetDefault("-dm_brick_periodic", dim == 3 ? "1,0,1" : "1,0"));
  }
  PetscCall(SetDefault("-dm_brick_degree", "3"));
  PetscCall(SetDefault("-dm_brick_refine", dim == 3 ? "2" : "3"));
  PetscCall(SetDefault("-ksp_type", "fgmres"));
  PetscCall(SetDefault("-ksp_rtol", "1e-9"));
  PetscCall(SetDefault("-pc_type", "mg"));
  PetscCall(SetDefault("-mg_levels_ksp_type", "richardson"));
  PetscCall(SetDefault("-mg_levels_ksp_max_it", "1"));
  PetscCall(SetDefault("-mg_levels_pc_type", "vertexpatch"));

  PetscCall(PetscTime(&ts));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMView(dm, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMBrickGetForestInfo(dm, NULL, &ncells, NULL, NULL));
  PetscCall(DMBrickGetOperator(dm, &opname));
  PetscCall(PetscStrcmp(opname, "c0ip", &c0ip));
  if (c0ip) sol = &c0ip;
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(PetscObjectSetName((PetscObject)u, "u")); /* the field's name in -ksp_view_solution vtk:u.vtu */
  PetscCall(VecGetSize(u, &dofs));
  PetscCall(VecDuplicate(u, &b));
  if (singular) PetscCall(DMBrickSetBoundaryFunction(dm, Singular, NULL)); /* u = g on the boundary: the load vector lifts it */
  PetscCall(DMBrickComputeLoadVector(dm, periodic ? Load : (singular ? Zero : One), sol, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, u, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &tnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  if (periodic) PetscCall(DMBrickComputeL2Error(dm, u, Exact, sol, &error));
  if (singular) PetscCall(DMBrickComputeL2Error(dm, u, Singular, NULL, &error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "domain %s: %" PetscInt64_FMT " cells, %" PetscInt_FMT " DoFs\n", domain, ncells, dofs));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Linear solve %s due to %s iterations %" PetscInt_FMT "\n", reason > 0 ? "converged" : "did not converge", KSPConvergedReasons[reason], its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "true residual |b - A x|/|b| %.3e\n", (double)(tnorm / bnorm)));
  if (periodic || singular) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error %.6e\n", (double)error));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve time %.4f s (setup excluded), setup time %.4f s\n", t1 - t0, t0 - ts));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
