static const char help[] = "GPU check of PCHFEM's fused node-major passes with the E-I couplings folded into the C^-1 products\n"
                           "(-pc_hfem_fold, the default) against an LU solve on the host: 16 right-hand sides in one pass, random ones\n"
                           "and point loads of size 1e8 at macro-grid nodes (Z_I = 0 in every cell while Y_E is not: the packed\n"
                           "back substitution must scale past the Z_I scale, or half overflows), in the four precisions, and the\n"
                           "folded pass against the sparse one (-pc_hfem_fold false). Options: -refine (of a 3 x 2 box, default 5).\n";

#include "checks.h"

/* the largest relative error of the columns of X against those of Y (host dense matrices) */
static PetscErrorCode WorstColumn(Mat X, Mat Y, PetscReal *worst)
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(X, NULL, &n));
  *worst = 0.0;
  for (PetscInt j = 0; j < n; j++) {
    Vec       x, y;
    PetscReal rel = 0.0;
    PetscCall(MatDenseGetColumnVecRead(X, j, &x));
    PetscCall(MatDenseGetColumnVecRead(Y, j, &y));
    PetscCall(RelativeDifference(x, y, &rel));
    PetscCall(MatDenseRestoreColumnVecRead(Y, j, &y));
    PetscCall(MatDenseRestoreColumnVecRead(X, j, &x));
    *worst = PetscMax(*worst, rel);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X (host) = the GPU's KSPMatSolve of B (host) with PCHFEM in precision prec, couplings folded or not */
static PetscErrorCode SolveOnGPU(DM dm, Mat Bh, const char *prec, PetscBool fold, Mat Xh, PetscBool *folded)
{
  KSP      ksp;
  PC       pc;
  Mat      A, Bg, Xg;
  PetscInt entries;

  PetscFunctionBeginUser;
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCHFEM));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_precision", prec));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_fold", fold ? "true" : "false"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_precision"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_fold"));
  PetscCall(MatConvert(Bh, MATDENSECUDA, MAT_INITIAL_MATRIX, &Bg));
  PetscCall(MatDuplicate(Bg, MAT_DO_NOT_COPY_VALUES, &Xg));
  PetscCall(KSPMatSolve(ksp, Bg, Xg));
  PetscCall(PCHFEMGetFolded(pc, folded, &entries));
  PetscCall(MatCopy(Xg, Xh, SAME_NONZERO_PATTERN));
  PetscCall(MatDestroy(&Bg));
  PetscCall(MatDestroy(&Xg));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt  cells[3] = {3, 2, 1};
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1.5, 1.0, 1};
  const char     *precs[4] = {"double", "single", "half", "bfloat16"};
  const PetscReal tol[4]   = {1e-11, 1e-4, 2e-2, 1e-1};
  const PetscInt  nrhs     = 16;
  PetscInt        refine   = 5, N, nx, ny;
  DM              dm;
  Mat             A, Bh, Xh, Xlu, Xs, F;
  PetscRandom     rnd;
  char            what[256];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMBrickSetDimension(dm, 2));
  PetscCall(DMBrickSetCells(dm, cells));
  PetscCall(DMBrickSetDomain(dm, lower, upper));
  PetscCall(DMBrickSetDegree(dm, 1));
  PetscCall(DMSetRefineLevel(dm, refine));
  PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(DMSetUp(dm));
  nx = cells[0] << refine;
  ny = cells[1] << refine;
  N  = (nx - 1) * (ny - 1);
  /* the right-hand sides: 8 random, 8 point loads at the inner nodes of the 3 x 2 coarse grid (macro-grid nodes of every
     macro grid of the box) */
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, N, nrhs, NULL, &Bh));
  PetscCall(MatSetRandom(Bh, rnd));
  for (PetscInt j = 8; j < nrhs; j++) {
    Vec            b;
    const PetscInt i0 = (1 + (j - 8) % 2) << refine, j0 = (PetscInt)1 << refine;
    PetscCall(MatDenseGetColumnVecWrite(Bh, j, &b));
    PetscCall(VecZeroEntries(b));
    PetscCall(VecSetValue(b, (i0 - 1) + (nx - 1) * (j0 - 1), 1e8, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
    PetscCall(MatDenseRestoreColumnVecWrite(Bh, j, &b));
  }
  /* the reference: LU of the assembled matrix on the host */
  {
    MatFactorInfo info;
    IS            rperm, cperm;
    PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
    PetscCall(MatConvert(A, MATSEQAIJ, MAT_INPLACE_MATRIX, &A));
    PetscCall(MatGetOrdering(A, MATORDERINGND, &rperm, &cperm));
    PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_LU, &F));
    PetscCall(MatFactorInfoInitialize(&info));
    PetscCall(MatLUFactorSymbolic(F, A, rperm, cperm, &info));
    PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscCall(MatDuplicate(Bh, MAT_DO_NOT_COPY_VALUES, &Xlu));
    PetscCall(MatMatSolve(F, Bh, Xlu));
    PetscCall(ISDestroy(&rperm));
    PetscCall(ISDestroy(&cperm));
  }
  PetscCall(MatDuplicate(Bh, MAT_DO_NOT_COPY_VALUES, &Xh));
  PetscCall(MatDuplicate(Bh, MAT_DO_NOT_COPY_VALUES, &Xs));
  for (PetscInt p = 0; p < 4; p++) {
    PetscReal rel, dif;
    PetscBool folded, sparse;
    PetscCall(SolveOnGPU(dm, Bh, precs[p], PETSC_TRUE, Xh, &folded));
    PetscCall(WorstColumn(Xh, Xlu, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM on the GPU in %s, %s, 16 columns (8 random, 8 point loads of 1e8): worst column vs LU %.2e <= %.0e", precs[p], folded ? "folded couplings" : "NOT folded", (double)rel, (double)tol[p]));
    PetscCall(CheckTrue(what, (PetscBool)(folded && rel <= tol[p])));
    PetscCall(SolveOnGPU(dm, Bh, precs[p], PETSC_FALSE, Xs, &sparse));
    PetscCall(WorstColumn(Xh, Xs, &dif));
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM on the GPU in %s: folded vs sparse couplings (-pc_hfem_fold false) %.2e <= %.0e", precs[p], (double)dif, (double)tol[p]));
    PetscCall(CheckTrue(what, (PetscBool)(!sparse && dif <= tol[p])));
  }
  PetscCall(MatDestroy(&Bh));
  PetscCall(MatDestroy(&Xh));
  PetscCall(MatDestroy(&Xs));
  PetscCall(MatDestroy(&Xlu));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
