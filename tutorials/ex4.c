static const char help[] = "Many Poisson problems at once with PCHFEM [RTRZ21]: -Delta u_j = f_j on the unit square, 2D Q1 on a brick, for\n"
                           "j = 1..nrhs right-hand sides with exact solutions u_j = sin(m_j pi x) sin(pi y) (think of the pressure\n"
                           "Poisson problems of many time steps), solved together by KSPMatSolve with -ksp_type preonly -pc_type hfem.\n"
                           "Prints the setup time, the solve time per right-hand side, GFLOP/s and MDoF/s of the solve, the largest\n"
                           "relative residual and the L2 errors. With -dm_vec_type cuda everything runs on the GPU.\n"
                           "Default: 1 x 1 coarse cell refined 7 times (128 x 128 cells), 16 right-hand sides.\n"
                           "Options: -nrhs n; -nmodes m and -mode j0 (column j has mode m_j = j0 + (j mod m); default 16 and 1);\n"
                           "-repeat r (time r solves after an untimed one; default 1: no untimed solve; the same r passes of PCMatApply()\n"
                           "alone are timed after them: KSPMatSolve() with -ksp_type preonly zeroes X before it); -single k (also time k solves of\n"
                           "one right-hand side); -max_residual t (nonzero exit code if a relative residual is larger; default 1e-8);\n"
                           "and every -dm_brick_*, -ksp_*, -pc_hfem_* option.\n\n";

#include <petscvpatch.h>
#include <petsctime.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

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

/* R = B - A X column by column; *worst = the largest ||r_j|| / ||b_j|| */
static PetscErrorCode WorstResidual(Mat A, Mat B, Mat X, Mat *R, PetscReal *worst)
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MatMatMult(A, X, *R ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, PETSC_DEFAULT, R));
  PetscCall(MatGetSize(B, NULL, &n));
  *worst = 0.0;
  for (PetscInt j = 0; j < n; j++) {
    Vec       bj, rj;
    PetscReal nb, nr;
    PetscCall(MatDenseGetColumnVecRead(B, j, &bj));
    PetscCall(MatDenseGetColumnVecWrite(*R, j, &rj));
    PetscCall(VecAYPX(rj, -1.0, bj));
    PetscCall(VecNorm(rj, NORM_2, &nr));
    PetscCall(VecNorm(bj, NORM_2, &nb));
    PetscCall(MatDenseRestoreColumnVecWrite(*R, j, &rj));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &bj));
    *worst = PetscMax(*worst, nr / nb);
  }
  PetscFunctionReturn(0);
}

/* the GPU's queued work finished (for timings) */
static PetscErrorCode Synchronize(void)
{
  PetscFunctionBeginUser;
#if defined(PETSC_HAVE_CUDA)
  PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscFunctionReturn(0);
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
  Mat            A, B, X, R = NULL;
  PetscInt       nrhs = 16, nmodes = 16, repeat = 1, nloc, nC, nE, nI, m, level;
  PetscBool      device;
  VecType        vtype;
  PC             pc;
  PetscReal      flops;
  Vec            load_template;
  PetscReal      maxres = 1e-8;
  PetscInt       single = 0, mode0 = 1;
  PetscReal      worstres = 0.0, maxerr = 0.0, minerr = PETSC_MAX_REAL;
  PetscLogDouble t0, t1, t2, t3, t4, tsetup;
  PetscLogStage  timed, timedpc;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogStageRegister("Timed solves", &timed));
  PetscCall(PetscLogStageRegister("Timed PCMatApply", &timedpc));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nrhs", &nrhs, NULL));
  PetscCheck(nrhs >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nrhs %" PetscInt_FMT ": allowed >= 1", nrhs);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nmodes", &nmodes, NULL));
  PetscCheck(nmodes >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nmodes %" PetscInt_FMT ": allowed >= 1", nmodes);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_residual", &maxres, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-single", &single, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mode", &mode0, NULL));
  PetscCheck(repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeat %" PetscInt_FMT ": allowed >= 1", repeat);
  PetscCall(SetDefault("-dm_brick_dim", "2"));
  PetscCall(SetDefault("-dm_brick_cells", "1,1"));
  PetscCall(SetDefault("-dm_brick_degree", "1"));
  PetscCall(SetDefault("-dm_brick_refine", "7"));
  {
    char      vt[64] = "";
    PetscBool set;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-dm_vec_type", vt, sizeof(vt), &set));
    PetscCall(PetscStrInList(vt, "cuda,seqcuda,mpicuda", ',', &device));
  }
  PetscCall(SetDefault("-dm_mat_type", device ? "aijcusparse" : "aij"));
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
  PetscCall(Synchronize());
  PetscCall(PetscTime(&t1));
  tsetup = t1 - t0;
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  {
    Vec v;
    PetscCall(DMGetGlobalVector(dm, &v));
    PetscCall(VecGetLocalSize(v, &nloc));
    PetscCall(DMRestoreGlobalVector(dm, &v));
  }
  PetscCall(DMGetVecType(dm, &vtype));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, nloc, PETSC_DECIDE, PETSC_DETERMINE, nrhs));
  PetscCall(MatSetType(B, device ? MATDENSECUDA : MATDENSE));
  PetscCall(MatSetUp(B));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
  {
    Vec *load;
    PetscCall(DMGetGlobalVector(dm, &load_template));
    PetscCall(VecDuplicateVecs(load_template, PetscMin(nmodes, nrhs), &load));
    PetscCall(DMRestoreGlobalVector(dm, &load_template));
    for (PetscInt j = 0; j < PetscMin(nmodes, nrhs); j++) {
      Mode mode = {mode0 + j};
      PetscCall(DMBrickComputeLoadVector(dm, Rhs, &mode, load[j]));
    }
    for (PetscInt j = 0; j < nrhs; j++) {
      Vec bj;
      PetscCall(MatDenseGetColumnVecWrite(B, j, &bj));
      PetscCall(VecCopy(load[j % nmodes], bj));
      PetscCall(MatDenseRestoreColumnVecWrite(B, j, &bj));
    }
    PetscCall(VecDestroyVecs(PetscMin(nmodes, nrhs), &load));
  }
  if (repeat > 1) PetscCall(KSPMatSolve(ksp, B, X)); /* untimed: the first solve allocates the work */
  PetscCall(Synchronize());
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePush(timed)); /* -log_view: the timed solves apart from setup and warm-up */
  for (PetscInt r = 0; r < repeat; r++) PetscCall(KSPMatSolve(ksp, B, X));
  PetscCall(Synchronize());
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&t2));
  t2 = t1 + (t2 - t1) / repeat;
  PetscCall(WorstResidual(A, B, X, &R, &worstres));
  for (PetscInt j = 0; j < PetscMin(nmodes, nrhs); j++) { /* the other columns repeat these right-hand sides */
    Mode      mode = {mode0 + j};
    Vec       xj;
    PetscReal err;
    PetscCall(MatDenseGetColumnVecRead(X, j, &xj));
    PetscCall(DMBrickComputeL2Error(dm, xj, Exact, &mode, &err));
    PetscCall(MatDenseRestoreColumnVecRead(X, j, &xj));
    maxerr = PetscMax(maxerr, err);
    minerr = PetscMin(minerr, err);
  }
  /* the same passes through PCMatApply() alone: KSPMatSolve() with preonly first zeroes X (MatZeroEntries, for a
     zero initial guess), which PCHFEM then overwrites: its X is checked again */
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(Synchronize());
  PetscCall(PetscTime(&t3));
  PetscCall(PetscLogStagePush(timedpc));
  for (PetscInt r = 0; r < repeat; r++) PetscCall(PCMatApply(pc, B, X));
  PetscCall(Synchronize());
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&t4));
  t4 = t3 + (t4 - t3) / repeat;
  {
    PetscReal worst;
    PetscCall(WorstResidual(A, B, X, &R, &worst));
    worstres = PetscMax(worstres, worst);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCMatApply alone: worst |b - A x|/|b| %.3e\n", (double)worst));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " right-hand sides: largest relative residual |b - A x|/|b| %.3e\n", nrhs, (double)worstres));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 errors from %.4e to %.4e over the distinct right-hand sides\n", (double)minerr, (double)maxerr));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "setup time %.4f s, solve time %.4f s, per right-hand side %.3e s\n", tsetup, t2 - t1, (t2 - t1) / nrhs));
  /* the flops of M1 per right-hand side (C^-1 twice, Pi^-1, B twice, L_C twice), as PCHFEM logs them */
  PetscCall(PCHFEMGetSets(pc, &nC, &nE, &nI, &m));
  PetscCall(DMGetRefineLevel(dm, &level));
  {
    const PetscReal s = (PetscReal)((PetscInt)1 << (level - m)), nb = (s - 1) * (s - 1);
    flops = 2.0 * nE * (PetscReal)nE + 4.0 * nb * nI + 4.0 * nC * (PetscReal)nE + 2.0 * nC * (PetscReal)nC;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %.1f GFLOP/s, %.1f MDoF/s (%" PetscInt_FMT " unknowns per right-hand side, %.3g GFLOP each)\n", device ? "GPU" : "host", flops * nrhs / (t2 - t1) / 1e9, (double)(nC + nE + nI) * nrhs / (t2 - t1) / 1e6, nC + nE + nI, flops / 1e9));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCMatApply alone (without KSPMatSolve's zeroing of X): per right-hand side %.3e s, %.1f GFLOP/s, %.1f MDoF/s\n", (t4 - t3) / nrhs, flops * nrhs / (t4 - t3) / 1e9, (double)(nC + nE + nI) * nrhs / (t4 - t3) / 1e6));
  {
    /* with the couplings folded into the C^-1 products (-pc_hfem_fold; the GPU folds only in passes of 8 or more columns)
       fewer flops are done than M1's count above: G^T Z_I (2 nb ns a cell) and [C^-1 | -G] (2 nb (nb + ns)) instead of
       C^-1 twice, and no sparse D, D^T */
    PetscBool folded;
    PetscInt  per = PetscMin(nrhs, 256);
    PetscCall(PCHFEMGetFolded(pc, &folded, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-pc_hfem_columns", &per, NULL));
    if (folded && (!device || PetscMin(per, nrhs) >= 8)) {
      const PetscReal s = (PetscReal)((PetscInt)1 << (level - m)), nb = (s - 1) * (s - 1), ns = 4 * s;
      const PetscReal done = flops - 4.0 * nb * nI + 2.0 * (nb + 2.0 * ns) * nI;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  folded E-I couplings (-pc_hfem_fold): %.3g GFLOP done per right-hand side, %.1f GFLOP/s done\n", done / 1e9, done * nrhs / (t2 - t1) / 1e9));
    }
  }
  if (single > 0) {
    /* one right-hand side at a time (KSPSolve, PCApply): the memory-bound GEMV case */
    Vec b0, x0;
    PetscCall(MatCreateVecs(A, &x0, &b0));
    {
      Vec c;
      PetscCall(MatDenseGetColumnVecRead(B, 0, &c));
      PetscCall(VecCopy(c, b0));
      PetscCall(MatDenseRestoreColumnVecRead(B, 0, &c));
    }
    PetscCall(KSPSolve(ksp, b0, x0)); /* untimed */
    PetscCall(Synchronize());
    PetscCall(PetscTime(&t1));
    for (PetscInt r = 0; r < single; r++) PetscCall(KSPSolve(ksp, b0, x0));
    PetscCall(Synchronize());
    PetscCall(PetscTime(&t2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "one right-hand side (KSPSolve): %.3e s, %.1f GFLOP/s, %.1f MDoF/s\n", (t2 - t1) / single, flops * single / (t2 - t1) / 1e9, (double)(nC + nE + nI) * single / (t2 - t1) / 1e6));
    PetscCall(VecDestroy(&b0));
    PetscCall(VecDestroy(&x0));
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&R));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return worstres < maxres ? 0 : 1;
}
