static const char help[] = "Many Poisson problems at once with PCHFEM [RTRZ21]: -Delta u_j = f_j on the unit square, 2D Q1 on a brick, for\n"
                           "j = 1..nrhs right-hand sides with exact solutions u_j = sin(j pi x) sin(pi y) (think of the pressure\n"
                           "Poisson problems of many time steps), solved together by KSPMatSolve with -ksp_type preonly -pc_type hfem.\n"
                           "Prints the setup time, the solve time per right-hand side, the largest relative residual and the L2 errors.\n"
                           "Default: 1 x 1 coarse cell refined 7 times (128 x 128 cells), 16 right-hand sides.\n"
                           "Options: -nrhs n, and every -dm_brick_*, -ksp_*, -pc_hfem_* option.\n\n";

#include <petscvpatch.h>
#include <petsctime.h>

typedef struct {
  PetscInt j;
} Mode;

static PetscErrorCode Exact(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  const Mode *m = (const Mode *)ctx;

  *u = PetscSinReal(m->j * PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]);
  return 0;
}

static PetscErrorCode Rhs(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  const Mode *m = (const Mode *)ctx;

  PetscCall(Exact(dim, x, f, ctx));
  *f *= (m->j * m->j + 1) * PETSC_PI * PETSC_PI;
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
  DM             dm;
  KSP            ksp;
  Mat            A, B, X, R;
  PetscInt       nrhs = 16, nloc;
  PetscReal      worstres = 0.0, maxerr = 0.0, minerr = PETSC_MAX_REAL;
  PetscLogDouble t0, t1, t2, tsetup;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nrhs", &nrhs, NULL));
  PetscCheck(nrhs >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nrhs %" PetscInt_FMT ": allowed >= 1", nrhs);
  PetscCall(SetDefault("-dm_brick_dim", "2"));
  PetscCall(SetDefault("-dm_brick_cells", "1,1"));
  PetscCall(SetDefault("-dm_brick_degree", "1"));
  PetscCall(SetDefault("-dm_brick_refine", "7"));
  PetscCall(SetDefault("-dm_mat_type", "aij"));
  PetscCall(SetDefault("-ksp_type", "preonly"));
  PetscCall(SetDefault("-pc_type", "hfem"));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMView(dm, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscTime(&t1));
  tsetup = t1 - t0;
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  {
    Vec v;
    PetscCall(DMGetGlobalVector(dm, &v));
    PetscCall(VecGetLocalSize(v, &nloc));
    PetscCall(DMRestoreGlobalVector(dm, &v));
  }
  PetscCall(MatCreateDense(PETSC_COMM_WORLD, nloc, PETSC_DECIDE, PETSC_DETERMINE, nrhs, NULL, &B));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
  for (PetscInt j = 0; j < nrhs; j++) {
    Mode m = {j + 1};
    Vec  bj;
    PetscCall(MatDenseGetColumnVecWrite(B, j, &bj));
    PetscCall(DMBrickComputeLoadVector(dm, Rhs, &m, bj));
    PetscCall(MatDenseRestoreColumnVecWrite(B, j, &bj));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(KSPMatSolve(ksp, B, X));
  PetscCall(PetscTime(&t2));
  PetscCall(MatMatMult(A, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &R));
  for (PetscInt j = 0; j < nrhs; j++) {
    Mode      m = {j + 1};
    Vec       bj, xj, rj;
    PetscReal nb, nr, err;
    PetscCall(MatDenseGetColumnVecRead(B, j, &bj));
    PetscCall(MatDenseGetColumnVecWrite(R, j, &rj));
    PetscCall(VecAYPX(rj, -1.0, bj));
    PetscCall(VecNorm(rj, NORM_2, &nr));
    PetscCall(VecNorm(bj, NORM_2, &nb));
    PetscCall(MatDenseRestoreColumnVecWrite(R, j, &rj));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &bj));
    worstres = PetscMax(worstres, nr / nb);
    PetscCall(MatDenseGetColumnVecRead(X, j, &xj));
    PetscCall(DMBrickComputeL2Error(dm, xj, Exact, &m, &err));
    PetscCall(MatDenseRestoreColumnVecRead(X, j, &xj));
    maxerr = PetscMax(maxerr, err);
    minerr = PetscMin(minerr, err);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " right-hand sides: largest relative residual |b - A x|/|b| %.3e\n", nrhs, (double)worstres));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 errors from %.4e to %.4e over the right-hand sides\n", (double)minerr, (double)maxerr));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "setup time %.4f s, solve time %.4f s, per right-hand side %.3e s\n", tsetup, t2 - t1, (t2 - t1) / nrhs));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&R));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return worstres < 1e-8 ? 0 : 1;
}
