static const char help[] = "Checks PCHFEM (2D Q1 Poisson): the direct solve against an LU factorization of the assembled matrix (1e-12) for\n"
                           "every macro level, on square and non-square boxes, also without prehandling; the node-set sizes against eq. 6-8 of\n"
                           "[RTRZ21]; KSPMatSolve against single solves (also in several passes); the stencil transform against the sparse one; the couplings folded into the C^-1 products against sparse D, D^T; single, TF32, half and bfloat16 (host\n"
                           "emulation) against LU and as CG preconditioners to 1e-10. Options: -refine n (of a -cells coarse grid, default 2,2 and 2,3).\n";

#include "checks.h"

static PetscErrorCode CheckLevel(const PetscInt cells[], PetscInt refine, PetscInt m, const PetscReal upper[], PetscRandom rnd)
{
  const PetscReal lower[3] = {0, 0, 0};
  DM              dm;
  Mat             A;
  KSP             ksp, lu;
  PC              pc, pclu;
  Vec             b, x, y;
  PetscReal       rel = 0.0;
  PetscInt        nC, nE, nI, mm, nx, ny, s;
  char            what[192];

  PetscFunctionBeginUser;
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMBrickSetDimension(dm, 2));
  PetscCall(DMBrickSetCells(dm, cells));
  PetscCall(DMBrickSetDomain(dm, lower, upper));
  PetscCall(DMBrickSetDegree(dm, 1));
  PetscCall(DMSetRefineLevel(dm, refine));
  PetscCall(DMSetUp(dm));
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCHFEM));
  {
    char v[32];
    PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, m));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_macro_level", v));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &lu));
  PetscCall(KSPSetOperators(lu, A, A));
  PetscCall(KSPSetType(lu, KSPPREONLY));
  PetscCall(KSPGetPC(lu, &pclu));
  PetscCall(PCSetType(pclu, PCLU));
  PetscCall(KSPSolve(lu, b, y));
  PetscCall(RelativeDifference(x, y, &rel));
  PetscCall(PCHFEMGetSets(pc, &nC, &nE, &nI, &mm));
  nx = cells[0] << refine;
  ny = cells[1] << refine;
  s  = (PetscInt)1 << (refine - m);
  PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT " x %" PetscInt_FMT " cells, macro level %" PetscInt_FMT ": direct solve = LU", nx, ny, m));
  PetscCall(CheckLessThan(what, rel, 1e-12));
  if (nx == ny) {
    /* eq. 6-8 with h = 1/nx, h0 = s h */
    const PetscInt ih = nx, ih0 = nx / s;
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT "^2 cells, h0 = 1/%" PetscInt_FMT ": |C|, |E|, |I| = eq. 6-8", nx, ih0));
    PetscCall(CheckTrue(what, (PetscBool)(mm == m && nC == (ih0 - 1) * (ih0 - 1) && nE == 2 * (ih0 - 1) * (ih - ih0) && nI == (ih - ih0) * (ih - ih0))));
  }
  {
    /* many right-hand sides: KSPMatSolve = column-wise solves */
    const PetscInt nrhs = 3;
    Mat            Bm, Xm;
    PetscInt       nloc;
    PetscReal      worst = 0.0;
    PetscCall(VecGetLocalSize(b, &nloc));
    PetscCall(MatCreateDense(PETSC_COMM_WORLD, nloc, PETSC_DECIDE, PETSC_DETERMINE, nrhs, NULL, &Bm));
    PetscCall(MatDuplicate(Bm, MAT_DO_NOT_COPY_VALUES, &Xm));
    PetscCall(MatSetRandom(Bm, rnd));
    if (m == 1) {
      /* two passes, the second padded with a zero column */
      PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_columns", "2"));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_columns"));
    }
    PetscCall(KSPMatSolve(ksp, Bm, Xm));
    for (PetscInt j = 0; j < nrhs; j++) {
      Vec bj, xj;
      PetscCall(MatDenseGetColumnVecRead(Bm, j, &bj));
      PetscCall(KSPSolve(ksp, bj, y));
      PetscCall(MatDenseRestoreColumnVecRead(Bm, j, &bj));
      PetscCall(MatDenseGetColumnVecRead(Xm, j, &xj));
      PetscCall(RelativeDifference(xj, y, &rel));
      PetscCall(MatDenseRestoreColumnVecRead(Xm, j, &xj));
      worst = PetscMax(worst, rel);
    }
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT " x %" PetscInt_FMT ", macro level %" PetscInt_FMT ": KSPMatSolve = 3 single solves%s", nx, ny, m, m == 1 ? " (2 per pass: -pc_hfem_columns 2)" : ""));
    PetscCall(CheckLessThan(what, worst, 1e-13));
    PetscCall(MatDestroy(&Bm));
    PetscCall(MatDestroy(&Xm));
  }
  {
    /* the stencil transform (default) = the explicit sparse T, T^T, on several columns at once */
    const PetscInt nrhs = 2;
    Mat            Bm, Xs, Xt;
    PetscReal      nrm, dif;
    PetscInt       nloc;
    PetscCall(VecGetLocalSize(b, &nloc));
    PetscCall(MatCreateDense(PETSC_COMM_WORLD, nloc, PETSC_DECIDE, PETSC_DETERMINE, nrhs, NULL, &Bm));
    PetscCall(MatDuplicate(Bm, MAT_DO_NOT_COPY_VALUES, &Xs));
    PetscCall(MatDuplicate(Bm, MAT_DO_NOT_COPY_VALUES, &Xt));
    PetscCall(MatSetRandom(Bm, rnd));
    PetscCall(KSPMatSolve(ksp, Bm, Xs));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_transform", "sparse"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPMatSolve(ksp, Bm, Xt));
    PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_transform"));
    PetscCall(MatNorm(Xt, NORM_FROBENIUS, &nrm));
    PetscCall(MatAXPY(Xt, -1.0, Xs, SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(Xt, NORM_FROBENIUS, &dif));
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT " x %" PetscInt_FMT ", macro level %" PetscInt_FMT ": stencil transform = sparse T, T^T (-pc_hfem_transform)", nx, ny, m));
    PetscCall(CheckLessThan(what, dif / nrm, 1e-13));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_transform", "stencil"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_transform"));
    PetscCall(MatDestroy(&Bm));
    PetscCall(MatDestroy(&Xs));
    PetscCall(MatDestroy(&Xt));
  }
  {
    /* the couplings folded into the C^-1 products (default) = the sparse D, D^T (-pc_hfem_fold false); PCView says which */
    PetscBool folded;
    PetscInt  entries;
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PCHFEMGetFolded(pc, &folded, &entries));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_fold", "false"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, y));
    PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_fold"));
    PetscCall(RelativeDifference(x, y, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT " x %" PetscInt_FMT ", macro level %" PetscInt_FMT ": folded couplings (D_s^T: %" PetscInt_FMT " entries) = sparse D, D^T (-pc_hfem_fold false) %.1e", nx, ny, m, entries, (double)rel));
    PetscCall(CheckTrue(what, (PetscBool)(rel <= 1e-13 && (folded == (PetscBool)(nE > 0)))));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_fold", "true"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_fold"));
  }
  {
    /* the nodal variant (-pc_hfem_prehandle false) is the same direct solve */
    PetscCall(KSPSolve(lu, b, y));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_prehandle", "false"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_prehandle"));
    PetscCall(RelativeDifference(x, y, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM %" PetscInt_FMT " x %" PetscInt_FMT ", macro level %" PetscInt_FMT ", -pc_hfem_prehandle false: direct solve = LU", nx, ny, m));
    PetscCall(CheckLessThan(what, rel, 1e-12));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(KSPDestroy(&lu));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

/* the lower precisions on the host: the solve's relative error against LU lies between the format's rounding and a
   bound from kappa ~ 20 (so the precision is really lowered and still right); with CG around it in double the true
   relative residual reaches 1e-10 */
/* The error of the direct solve against LU for the sparse and folded couplings and the point load: expect[] holds the
   errors measured for the format (the inputs here are fixed: PETSc's default random stream on one rank), and a run must
   stay within a factor 1.5 of them, so that a bit of significand more or less in the emulation (a factor 2) shows;
   double (expect NULL) must reach round-off. */
static PetscErrorCode CheckPrecision(const char *prec, PetscBool tf32, const PetscReal expect[3], PetscInt maxits, PetscRandom rnd)
{
  const PetscReal lo[3] = {expect ? expect[0] / 1.5 : 0.0, expect ? expect[1] / 1.5 : 0.0, expect ? expect[2] / 1.5 : 0.0};
  const PetscReal hi[3] = {expect ? 1.5 * expect[0] : 1e-12, expect ? 1.5 * expect[1] : 1e-12, expect ? 1.5 * expect[2] : 1e-12};
  const PetscInt one[3] = {1, 1, 1};
  DM             dm;
  Mat            A;
  KSP            ksp, lu;
  PC             pc;
  Vec            b, x, y, r;
  PetscReal      rel = 0.0, nr, nb;
  PetscInt       its;
  char           what[192];

  PetscFunctionBeginUser;
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMBrickSetDimension(dm, 2));
  PetscCall(DMBrickSetCells(dm, one));
  PetscCall(DMBrickSetDegree(dm, 1));
  PetscCall(DMSetRefineLevel(dm, 6));
  PetscCall(DMSetUp(dm));
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &lu));
  PetscCall(KSPSetOperators(lu, A, A));
  PetscCall(KSPSetType(lu, KSPPREONLY));
  PetscCall(KSPGetPC(lu, &pc));
  PetscCall(PCSetType(pc, PCLU));
  PetscCall(KSPSolve(lu, b, y));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCHFEM));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_precision", prec));
  if (tf32) PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_tf32", "1"));
  /* both forms of the E-I couplings: sparse, then folded into the C^-1 products (the default, kept for CG below) */
  for (PetscInt fold = 0; fold < 2; fold++) {
    PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_fold", fold ? "true" : "false"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(RelativeDifference(x, y, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM in %s%s (host emulation), 64 x 64, %s couplings: direct solve vs LU %.2e in [%.2e, %.2e]", prec, tf32 ? " (TF32)" : "", fold ? "folded" : "sparse", (double)rel, (double)lo[fold], (double)hi[fold]));
    PetscCall(CheckTrue(what, (PetscBool)(rel >= lo[fold] && rel <= hi[fold])));
  }
  {
    /* a point load at the centre, a macro-grid node: Z_I = 0 in every cell while Y_E is not (the folded back
       substitution's packed columns then hold Y_E alone, scaled past the Z_I scale of 1) */
    Vec      bp, yp;
    PetscInt centre = 31 + 63 * 31;
    PetscCall(VecDuplicate(b, &bp));
    PetscCall(VecDuplicate(b, &yp));
    PetscCall(VecZeroEntries(bp));
    PetscCall(VecSetValue(bp, centre, 1e8, INSERT_VALUES)); /* large: unscaled, Y_E would overflow half */
    PetscCall(VecAssemblyBegin(bp));
    PetscCall(VecAssemblyEnd(bp));
    PetscCall(KSPSolve(lu, bp, yp));
    PetscCall(KSPSolve(ksp, bp, x));
    PetscCall(RelativeDifference(x, yp, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM in %s%s (host emulation), 64 x 64, folded couplings, point load at a macro-grid node: vs LU %.2e in [%.2e, %.2e]", prec, tf32 ? " (TF32)" : "", (double)rel, (double)lo[2], (double)hi[2]));
    PetscCall(CheckTrue(what, (PetscBool)(rel >= lo[2] && rel <= hi[2])));
    PetscCall(VecDestroy(&bp));
    PetscCall(VecDestroy(&yp));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_precision"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_tf32"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_fold"));
  /* the preconditioner of CG in double */
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 100));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(PetscSNPrintf(what, sizeof(what), "CG + HFEM in %s%s: true residual %.2e <= 1e-10 in %" PetscInt_FMT " <= %" PetscInt_FMT " iterations", prec, tf32 ? " (TF32)" : "", (double)(nr / nb), its, maxits));
  PetscCall(CheckTrue(what, (PetscBool)(nr / nb <= 1e-10 && its <= maxits)));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(KSPDestroy(&lu));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscRandom     rnd;
  const PetscReal square[3] = {1, 1, 1}, box[3] = {2.0, 0.75, 1};
  const PetscInt  one[3] = {1, 1, 1}, rect[3] = {2, 3, 1};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  for (PetscInt m = 0; m < 5; m++) PetscCall(CheckLevel(one, 5, m, square, rnd));
  for (PetscInt m = 0; m < 3; m++) PetscCall(CheckLevel(rect, 3, m, box, rnd));
  {
    /* measured on the development machine (2026-11-28): sparse, folded, point load */
    const PetscReal single[3] = {3.02e-8, 2.35e-8, 6.97e-8}, tf32[3] = {3.08e-5, 2.55e-5, 1.13e-4};
    const PetscReal half[3] = {1.82e-5, 1.82e-5, 6.39e-5}, bfloat16[3] = {1.27e-4, 1.19e-4, 2.96e-4};
    PetscCall(CheckPrecision("double", PETSC_FALSE, NULL, 1, rnd));
    PetscCall(CheckPrecision("single", PETSC_FALSE, single, 3, rnd));
    PetscCall(CheckPrecision("single", PETSC_TRUE, tf32, 5, rnd));
    PetscCall(CheckPrecision("half", PETSC_FALSE, half, 5, rnd));
    PetscCall(CheckPrecision("bfloat16", PETSC_FALSE, bfloat16, 7, rnd));
  }
  {
    /* the default macro grid: the fewest flops per solve, h0 = sqrt(h) for Q1 ([RTRZ21] Table 3): h = 1/64 -> h0 = 1/8, level 3 */
    DM        dm;
    KSP       ksp;
    PC        pc;
    Vec       b, x;
    PetscInt  m;
    PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
    PetscCall(DMBrickSetDimension(dm, 2));
    PetscCall(DMBrickSetCells(dm, one));
    PetscCall(DMBrickSetDegree(dm, 1));
    PetscCall(DMSetRefineLevel(dm, 6));
    PetscCall(DMSetUp(dm));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetDM(ksp, dm));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCHFEM));
    PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_macro_level"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(DMCreateGlobalVector(dm, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PCHFEMGetSets(pc, NULL, NULL, NULL, &m));
    PetscCall(CheckTrue("HFEM default macro level on 64 x 64 cells is 3 (h0 = 1/8 = sqrt(h), the fewest flops)", (PetscBool)(m == 3)));
    {
      /* PCHFEMGetCounts (no setup) = the setup's sets; eq. 6-8 for every macro level */
      PetscInt  nC, nE, nI, nb, sC, sE, sI;
      PetscBool ok = PETSC_TRUE;
      PetscCall(PCHFEMGetSets(pc, &sC, &sE, &sI, NULL));
      PetscCall(PCHFEMGetCounts(pc, 3, &nC, &nE, &nI, &nb));
      ok = (PetscBool)(nC == sC && nE == sE && nI == sI && nb == 49);
      for (PetscInt mm = 1; mm <= 5; mm++) {
        const PetscInt ih = 64, ih0 = (PetscInt)1 << mm;
        PetscCall(PCHFEMGetCounts(pc, mm, &nC, &nE, &nI, &nb));
        ok = (PetscBool)(ok && nC == (ih0 - 1) * (ih0 - 1) && nE == 2 * (ih0 - 1) * (ih - ih0) && nI == (ih - ih0) * (ih - ih0) && nb == (ih / ih0 - 1) * (ih / ih0 - 1));
      }
      PetscCall(CheckTrue("PCHFEMGetCounts = the setup's sets, and eq. 6-8 for macro levels 1-5 on 64 x 64 cells", ok));
    }
    {
      /* PCHFEMEstimateConditions (Lanczos on the sparse blocks) = LAPACK on the dense blocks (-pc_hfem_condition) */
      PetscReal kc, kp, lc, lp;
      char      what[160];
      PetscCall(PetscOptionsSetValue(NULL, "-pc_hfem_condition", "1"));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(PetscOptionsClearValue(NULL, "-pc_hfem_condition"));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(PCHFEMGetConditions(pc, &lc, &lp));
      PetscCall(PCHFEMEstimateConditions(pc, 3, &kc, &kp));
      PetscCall(PetscSNPrintf(what, sizeof(what), "HFEM 64 x 64, h0 = 1/8: Lanczos kappa(C_i) %.4f, kappa(Pi) %.4f = LAPACK %.4f, %.4f to 1e-4", (double)kc, (double)kp, (double)lc, (double)lp));
      PetscCall(CheckTrue(what, (PetscBool)(PetscAbsReal(kc - lc) <= 1e-4 * lc && PetscAbsReal(kp - lp) <= 1e-4 * lp)));
    }
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
