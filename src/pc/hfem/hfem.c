/* PCHFEM ("hfem"): the prehandled hierarchical-basis Schur-complement direct solver of [RTRZ21] (method M1) for the 2D
   Q1 Poisson operator of a brick, on the host in double precision (this version). */
#include "hfemimpl.h"
#include <petscblaslapack.h>

static const char *const PCHFEMPrecisions[] = {"double", "single", "half", "bfloat16", "PCHFEMPrecision", "PC_HFEM_", NULL};

/* flops of one apply for macro level m: Pi^-1 (2 nE^2) and two applications of C^-1 (2 nb^2 per macro cell each) */
static PetscReal PCHFEMCost(PetscInt nx, PetscInt ny, PetscInt s)
{
  const PetscReal N = (PetscReal)(nx - 1) * (ny - 1), nC = (PetscReal)(nx / s - 1) * (ny / s - 1), nb = (PetscReal)(s - 1) * (s - 1), ncell = (PetscReal)(nx / s) * (ny / s);
  const PetscReal nE = N - nC - nb * ncell;

  return 2.0 * nE * nE + 4.0 * nb * nb * ncell;
}

static PetscErrorCode PCSetUp_HFEM(PC pc)
{
  PC_HFEM    *hf = (PC_HFEM *)pc->data;
  DM          dm = pc->dm;
  DM_Brick   *brick;
  PetscBool   isbrick, islaplace, assembled;
  PetscMPIInt size;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  Mat         A;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_HFEMSetUp, pc, 0, 0, 0));
  if (!dm) PetscCall(MatGetDM(pc->pmat, &dm));
  PetscCheck(dm, comm, PETSC_ERR_ARG_WRONGSTATE, "PCHFEM needs the brick (DMBRICK) of its operator: call KSPSetDM() or PCSetDM() with the brick");
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMBRICK, &isbrick));
  PetscCheck(isbrick, comm, PETSC_ERR_ARG_WRONG, "PCHFEM works on a brick (DMBRICK), not on a DM of type %s", ((PetscObject)dm)->type_name);
  brick = (DM_Brick *)dm->data;
  PetscCall(PetscStrcmp(brick->opname, "laplace", &islaplace));
  PetscCheck(islaplace, comm, PETSC_ERR_SUP, "PCHFEM: -dm_brick_operator %s; allowed: laplace", brick->opname);
  PetscCheck(brick->dim == 2, comm, PETSC_ERR_SUP, "PCHFEM: -dm_brick_dim %" PetscInt_FMT ": the hierarchical-basis method is for 2D; allowed: -dm_brick_dim 2", brick->dim);
  PetscCheck(brick->degree == 1, comm, PETSC_ERR_SUP, "PCHFEM: -dm_brick_degree %" PetscInt_FMT ": the method is for Q1; allowed: -dm_brick_degree 1", brick->degree);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(size == 1, comm, PETSC_ERR_SUP, "PCHFEM runs on one MPI rank in this version (got %d); run the solve on one rank", size);
  PetscCheck(hf->precision == PC_HFEM_DOUBLE, comm, PETSC_ERR_SUP, "-pc_hfem_precision %s is not implemented in this version (host, double only); allowed: double", PCHFEMPrecisions[hf->precision]);
  hf->level = brick->level;
  hf->nx    = brick->cells[0];
  hf->ny    = brick->cells[1];
  {
    /* the macro grid: a coarser level of the hierarchy (also below the coarse grid, where its cells halve), with
       macro cells of s = 2^(level - m) >= 2 fine cells per direction */
    PetscInt  mlo = brick->level - 1;
    PetscReal best = PETSC_MAX_REAL;
    while ((hf->nx % ((PetscInt)2 << (brick->level - mlo))) == 0 && (hf->ny % ((PetscInt)2 << (brick->level - mlo))) == 0) mlo--;
    PetscCheck(hf->nx % 2 == 0 && hf->ny % 2 == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCHFEM: the brick has %" PetscInt_FMT " x %" PetscInt_FMT " cells, not a refinement of a coarser grid; the macro grid must be coarser: use -dm_brick_refine >= 1 or even -dm_brick_cells", hf->nx, hf->ny);
    if (hf->macro_level != PETSC_DETERMINE) {
      PetscCheck(hf->macro_level >= mlo && hf->macro_level < brick->level, comm, PETSC_ERR_ARG_OUTOFRANGE, "-pc_hfem_macro_level %" PetscInt_FMT ": allowed %" PetscInt_FMT "..%" PetscInt_FMT " (the levels below the brick's own, %" PetscInt_FMT ", whose cells halve)", hf->macro_level, mlo,
                 brick->level - 1, brick->level);
      hf->m = hf->macro_level;
    } else
      for (PetscInt m = mlo; m < brick->level; m++) {
        const PetscReal c = PCHFEMCost(hf->nx, hf->ny, (PetscInt)1 << (brick->level - m));
        if (c < best) {
          best  = c;
          hf->m = m;
        }
      }
  }
  hf->s = (PetscInt)1 << (hf->level - hf->m);
  if (hf->dm != dm) {
    PetscCall(DMDestroy(&hf->dm));
    PetscCall(PetscObjectReference((PetscObject)dm));
    hf->dm = dm;
  }
  PetscCall(PCHFEMSetUpSets_Private(pc));
  PetscCall(PetscFree6(hf->LC, hf->sE, hf->sI, hf->B, hf->C1inv, hf->Piinv));
  PetscCall(PetscMalloc6(hf->nC * hf->nC + 1, &hf->LC, hf->nE + 1, &hf->sE, hf->nI + 1, &hf->sI, hf->nC * hf->nE + 1, &hf->B, hf->nb * hf->nb + 1, &hf->C1inv, hf->nE * hf->nE + 1, &hf->Piinv));
  PetscCall(PetscFree(hf->work));
  PetscCall(PetscMalloc1(2 * (hf->nC + hf->nE + hf->nI) + 2, &hf->work));
  /* the assembled nodal operator: Pmat if it is one, else the brick's */
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc->pmat, &assembled, MATSEQAIJ, MATAIJ, ""));
  if (assembled) {
    A = pc->pmat;
    PetscCall(PetscObjectReference((PetscObject)A));
  } else PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  PetscCall(PCHFEMSetUpTransform_Private(pc, A));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&hf->bt));
  PetscCall(VecDestroy(&hf->xt));
  PetscCall(VecDestroy(&hf->wE));
  PetscCall(VecDestroy(&hf->wI));
  PetscCall(MatCreateVecs(hf->S, &hf->bt, &hf->xt));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, hf->nE, &hf->wE));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, hf->nI, &hf->wI));
  PetscCall(PetscLogEventEnd(PC_HFEMSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = A^-1 b by M1 (eq. 15-17) on the prehandled system: b~ = L^-1 S^T b, x = S L^-T x~ */
PetscErrorCode PCHFEMApplyVec_Private(PC pc, Vec b, Vec x)
{
  PC_HFEM          *hf = (PC_HFEM *)pc->data;
  const PetscInt    nC = hf->nC, nE = hf->nE, nI = hf->nI, nb = hf->nb;
  PetscScalar      *bC = hf->work, *bE, *bI, *xE, *yI, *t, *a;
  PetscBLASInt      bnC, bnE, bnb, bncell, one_i = 1;
  const PetscScalar one = 1.0, zero = 0.0, mone = -1.0;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_HFEMApply, pc, b, x, 0));
  PetscCall(PetscBLASIntCast(nC, &bnC));
  PetscCall(PetscBLASIntCast(nE, &bnE));
  PetscCall(PetscBLASIntCast(nb, &bnb));
  PetscCall(PetscBLASIntCast(hf->ncell, &bncell));
  PetscCall(MatMultTranspose(hf->S, b, hf->bt));
  PetscCall(VecGetArray(hf->wE, &bE));
  PetscCall(VecGetArray(hf->wI, &bI));
  xE = hf->work + nC;
  yI = hf->work + nC + nE;
  PetscCall(VecGetArray(hf->bt, &a));
  for (PetscInt k = 0; k < nC; k++) bC[k] = a[hf->idxC[k]];
  for (PetscInt k = 0; k < nE; k++) bE[k] = hf->sE[k] * a[hf->idxE[k]];
  for (PetscInt k = 0; k < nI; k++) bI[k] = hf->sI[k] * a[hf->idxI[k]];
  PetscCall(VecRestoreArray(hf->bt, &a));
  if (nC) BLAStrsm_("L", "L", "N", "N", &bnC, &one_i, &one, hf->LC, &bnC, bC, &bnC);
  /* y_I = C^-1 b_I, all macro cells in one product (eq. 25) */
  BLASgemm_("N", "N", &bnb, &bncell, &bnb, &one, hf->C1inv, &bnb, bI, &bnb, &zero, yI, &bnb);
  if (nE) {
    Vec vy, vr;
    /* r_E = b_E - B^T b_C - D y_I, kept in bE */
    if (nC) BLASgemv_("T", &bnC, &bnE, &mone, hf->B, &bnC, bC, &one_i, &one, bE, &one_i);
    PetscCall(VecRestoreArray(hf->wE, &bE));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, nI, yI, &vy));
    PetscCall(VecDuplicate(hf->wE, &vr));
    PetscCall(MatMult(hf->D, vy, vr));
    PetscCall(VecAXPY(hf->wE, -1.0, vr));
    PetscCall(VecDestroy(&vr));
    PetscCall(VecDestroy(&vy));
    /* x_E = Pi^-1 r_E (eq. 15) */
    PetscCall(VecGetArray(hf->wE, &bE));
    BLASgemv_("N", &bnE, &bnE, &one, hf->Piinv, &bnE, bE, &one_i, &zero, xE, &one_i);
    PetscCall(VecRestoreArray(hf->wE, &bE));
    /* x_C = b_C - B x_E (eq. 16) */
    if (nC) BLASgemv_("N", &bnC, &bnE, &mone, hf->B, &bnC, xE, &one_i, &one, bC, &one_i);
    /* b_I - D^T x_E */
    PetscCall(VecRestoreArray(hf->wI, &bI));
    {
      Vec vx, vt;
      PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, nE, xE, &vx));
      PetscCall(VecDuplicate(hf->wI, &vt));
      PetscCall(MatMultTranspose(hf->D, vx, vt));
      PetscCall(VecAXPY(hf->wI, -1.0, vt));
      PetscCall(VecDestroy(&vt));
      PetscCall(VecDestroy(&vx));
    }
    PetscCall(VecGetArray(hf->wI, &bI));
    /* x_I = C^-1 (b_I - D^T x_E) (eq. 17) */
    BLASgemm_("N", "N", &bnb, &bncell, &bnb, &one, hf->C1inv, &bnb, bI, &bnb, &zero, yI, &bnb);
  } else {
    PetscCall(VecRestoreArray(hf->wE, &bE));
  }
  PetscCall(VecRestoreArray(hf->wI, &bI));
  /* back: x~ = L^-T x, x = S x~ */
  if (nC) BLAStrsm_("L", "L", "T", "N", &bnC, &one_i, &one, hf->LC, &bnC, bC, &bnC);
  PetscCall(VecGetArrayWrite(hf->xt, &t));
  for (PetscInt k = 0; k < nC; k++) t[hf->idxC[k]] = bC[k];
  for (PetscInt k = 0; k < nE; k++) t[hf->idxE[k]] = hf->sE[k] * xE[k];
  for (PetscInt k = 0; k < nI; k++) t[hf->idxI[k]] = hf->sI[k] * yI[k];
  PetscCall(VecRestoreArrayWrite(hf->xt, &t));
  PetscCall(MatMult(hf->S, hf->xt, x));
  PetscCall(PetscLogFlops(2.0 * nE * nE + 4.0 * nb * nb * hf->ncell + 4.0 * nC * nE + 2.0 * nC * nC));
  PetscCall(PetscLogEventEnd(PC_HFEMApply, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_HFEM(PC pc, Vec b, Vec x)
{
  PetscBool device;

  PetscFunctionBegin;
  PetscCall(DMBrickVecsOnDevice_Private(b, x, &device));
  PetscCheck(!device, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCHFEM has no GPU implementation yet; with it use host vectors: -dm_vec_type standard");
  PetscCall(PCHFEMApplyVec_Private(pc, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* many right-hand sides at once: the same steps with the right-hand sides as the columns of dense matrices, so each dense
   step is one GEMM (C^-1 on all macro cells of all right-hand sides at once, eq. 25) and each sparse one a sparse-dense product */
static PetscErrorCode PCMatApply_HFEM(PC pc, Mat Bm, Mat Xm)
{
  PC_HFEM          *hf = (PC_HFEM *)pc->data;
  const PetscInt    nC = hf->nC, nE = hf->nE, nI = hf->nI, nb = hf->nb, N = hf->N;
  PetscInt          n;
  Mat               Bt, Ym, Rm, Xt, Xs;
  PetscScalar      *bC, *bE, *bI, *xE, *yI, *a;
  PetscBLASInt      bnC, bnE, bnb, bn, bcols;
  const PetscScalar one = 1.0, zero = 0.0, mone = -1.0;
  PetscBool         device;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)Bm, &device, MATSEQDENSECUDA, MATMPIDENSECUDA, MATDENSECUDA, ""));
  PetscCheck(!device, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCHFEM has no GPU implementation yet; with it use host matrices and vectors: -dm_vec_type standard");
  PetscCall(PetscLogEventBegin(PC_HFEMApply, pc, Bm, Xm, 0));
  PetscCall(MatGetSize(Bm, NULL, &n));
  PetscCall(PetscBLASIntCast(nC, &bnC));
  PetscCall(PetscBLASIntCast(nE, &bnE));
  PetscCall(PetscBLASIntCast(nb, &bnb));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(hf->ncell * n, &bcols));
  PetscCall(PetscMalloc5(nC * n + 1, &bC, nE * n + 1, &bE, nI * n + 1, &bI, nE * n + 1, &xE, nI * n + 1, &yI));
  /* b~ = S^T B, split into the sets and prehandled */
  PetscCall(MatTransposeMatMult(hf->S, Bm, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Bt));
  PetscCall(MatDenseGetArray(Bt, &a));
  for (PetscInt j = 0; j < n; j++) {
    const PetscScalar *col = a + (size_t)j * N;
    for (PetscInt k = 0; k < nC; k++) bC[k + j * nC] = col[hf->idxC[k]];
    for (PetscInt k = 0; k < nE; k++) bE[k + j * nE] = hf->sE[k] * col[hf->idxE[k]];
    for (PetscInt k = 0; k < nI; k++) bI[k + j * nI] = hf->sI[k] * col[hf->idxI[k]];
  }
  PetscCall(MatDenseRestoreArray(Bt, &a));
  PetscCall(MatDestroy(&Bt));
  if (nC) BLAStrsm_("L", "L", "N", "N", &bnC, &bn, &one, hf->LC, &bnC, bC, &bnC);
  /* Y_I = C^-1 B_I: every macro cell of every right-hand side is a column of one nb x (ncell n) matrix */
  BLASgemm_("N", "N", &bnb, &bcols, &bnb, &one, hf->C1inv, &bnb, bI, &bnb, &zero, yI, &bnb);
  if (nE) {
    const PetscScalar *r;
    /* R_E = B_E - B^T B_C - D Y_I; X_E = Pi^-1 R_E */
    if (nC) BLASgemm_("T", "N", &bnE, &bn, &bnC, &mone, hf->B, &bnC, bC, &bnC, &one, bE, &bnE);
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, nI, n, yI, &Ym));
    PetscCall(MatMatMult(hf->D, Ym, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rm));
    PetscCall(MatDenseGetArrayRead(Rm, &r));
    for (PetscInt k = 0; k < nE * n; k++) bE[k] -= r[k];
    PetscCall(MatDenseRestoreArrayRead(Rm, &r));
    PetscCall(MatDestroy(&Rm));
    PetscCall(MatDestroy(&Ym));
    BLASgemm_("N", "N", &bnE, &bn, &bnE, &one, hf->Piinv, &bnE, bE, &bnE, &zero, xE, &bnE);
    /* X_C = B_C - B X_E */
    if (nC) BLASgemm_("N", "N", &bnC, &bn, &bnE, &mone, hf->B, &bnC, xE, &bnE, &one, bC, &bnC);
    /* X_I = C^-1 (B_I - D^T X_E) */
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, nE, n, xE, &Ym));
    PetscCall(MatTransposeMatMult(hf->D, Ym, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rm));
    PetscCall(MatDenseGetArrayRead(Rm, &r));
    for (PetscInt k = 0; k < nI * n; k++) bI[k] -= r[k];
    PetscCall(MatDenseRestoreArrayRead(Rm, &r));
    PetscCall(MatDestroy(&Rm));
    PetscCall(MatDestroy(&Ym));
    BLASgemm_("N", "N", &bnb, &bcols, &bnb, &one, hf->C1inv, &bnb, bI, &bnb, &zero, yI, &bnb);
  }
  /* back: X~ = L^-T X, X = S X~ */
  if (nC) BLAStrsm_("L", "L", "T", "N", &bnC, &bn, &one, hf->LC, &bnC, bC, &bnC);
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, N, n, NULL, &Xt));
  PetscCall(MatDenseGetArrayWrite(Xt, &a));
  for (PetscInt j = 0; j < n; j++) {
    PetscScalar *col = a + (size_t)j * N;
    for (PetscInt k = 0; k < nC; k++) col[hf->idxC[k]] = bC[k + j * nC];
    for (PetscInt k = 0; k < nE; k++) col[hf->idxE[k]] = hf->sE[k] * xE[k + j * nE];
    for (PetscInt k = 0; k < nI; k++) col[hf->idxI[k]] = hf->sI[k] * yI[k + j * nI];
  }
  PetscCall(MatDenseRestoreArrayWrite(Xt, &a));
  PetscCall(MatMatMult(hf->S, Xt, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Xs));
  PetscCall(MatCopy(Xs, Xm, SAME_NONZERO_PATTERN));
  PetscCall(MatDestroy(&Xs));
  PetscCall(MatDestroy(&Xt));
  PetscCall(PetscFree5(bC, bE, bI, xE, yI));
  PetscCall(PetscLogFlops(n * (2.0 * nE * nE + 4.0 * nb * nb * hf->ncell + 4.0 * nC * nE + 2.0 * nC * nC)));
  PetscCall(PetscLogEventEnd(PC_HFEMApply, pc, Bm, Xm, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_HFEM(PC pc, PetscOptionItems *PetscOptionsObject)
{
  PC_HFEM  *hf = (PC_HFEM *)pc->data;
  PetscBool set;
  PetscInt  m = hf->macro_level;
  char      prec[32];

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Prehandled hierarchical-basis Schur-complement solver (HFEM) options");
  PetscCall(PetscOptionsInt("-pc_hfem_macro_level", "Level of the brick's hierarchy that is the macro grid (default: the one with the fewest flops per solve)", "PCHFEM", m, &m, &set));
  if (set) {
    if (m != hf->macro_level) pc->setupcalled = 0;
    hf->macro_level = m;
  }
  PetscCall(PetscStrncpy(prec, PCHFEMPrecisions[hf->precision], sizeof(prec)));
  PetscCall(PetscOptionsString("-pc_hfem_precision", "Precision of the dense blocks: double (single, half, bfloat16: not in this version)", "PCHFEM", prec, prec, sizeof(prec), &set));
  if (set) {
    PetscBool found = PETSC_FALSE;
    for (PetscInt i = 0; i < 4 && !found; i++) {
      PetscCall(PetscStrcmp(prec, PCHFEMPrecisions[i], &found));
      if (found) hf->precision = (PCHFEMPrecision)i;
    }
    PetscCheck(found, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_UNKNOWN_TYPE, "-pc_hfem_precision %s: unknown value; allowed: double, single, half, bfloat16", prec);
  }
  PetscCall(PetscOptionsBool("-pc_hfem_condition", "Compute kappa(C_i) and kappa(Pi) at setup (LAPACK) and show them in PCView", "PCHFEM", hf->condition, &hf->condition, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_HFEM(PC pc, PetscViewer viewer)
{
  PC_HFEM  *hf = (PC_HFEM *)pc->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  prehandled hierarchical-basis Schur complement, method M1 [RTRZ21], precision %s, on the host\n", PCHFEMPrecisions[hf->precision]));
  if (!hf->dm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  fine grid %" PetscInt_FMT " x %" PetscInt_FMT " cells (level %" PetscInt_FMT "), macro grid level %" PetscInt_FMT " (%" PetscInt_FMT " x %" PetscInt_FMT " macro cells of %" PetscInt_FMT " x %" PetscInt_FMT " cells)\n", hf->nx, hf->ny,
                                   hf->level, hf->m, hf->nx / hf->s, hf->ny / hf->s, hf->s, hf->s));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  node sets: |C| = %" PetscInt_FMT ", |E| = %" PetscInt_FMT ", |I| = %" PetscInt_FMT " (%" PetscInt_FMT " per macro cell)\n", hf->nC, hf->nE, hf->nI, hf->nb));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  dense blocks: C_1^-1 %" PetscInt_FMT " x %" PetscInt_FMT " (%.3g MB), Pi^-1 %" PetscInt_FMT " x %" PetscInt_FMT " (%.3g MB), B %" PetscInt_FMT " x %" PetscInt_FMT " (%.3g MB)\n", hf->nb, hf->nb,
                                   hf->nb * (double)hf->nb * sizeof(PetscScalar) / 1e6, hf->nE, hf->nE, hf->nE * (double)hf->nE * sizeof(PetscScalar) / 1e6, hf->nC, hf->nE, hf->nC * (double)hf->nE * sizeof(PetscScalar) / 1e6));
  if (hf->condition) PetscCall(PetscViewerASCIIPrintf(viewer, "  kappa(C_1) = %.4g, kappa(Pi) = %.4g (LAPACK, at setup)\n", (double)hf->kappaC, (double)hf->kappaPi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_HFEM(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscFree3(hf->idxC, hf->idxE, hf->idxI));
  PetscCall(PetscFree6(hf->LC, hf->sE, hf->sI, hf->B, hf->C1inv, hf->Piinv));
  PetscCall(PetscFree(hf->work));
  PetscCall(MatDestroy(&hf->S));
  PetscCall(MatDestroy(&hf->D));
  PetscCall(VecDestroy(&hf->bt));
  PetscCall(VecDestroy(&hf->xt));
  PetscCall(VecDestroy(&hf->wE));
  PetscCall(VecDestroy(&hf->wI));
  PetscCall(DMDestroy(&hf->dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_HFEM(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_HFEM(pc));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCHFEMGetSets - the sizes of the node sets of a set-up PCHFEM and its macro level

   Not Collective

   Input Parameter:
.  pc - the PC

   Output Parameters:
+  nC - nodes of the macro grid
.  nE - nodes on macro edges (not macro-grid nodes)
.  nI - nodes inside macro cells
-  macro_level - the level of the brick's hierarchy that is the macro grid

   Level: intermediate

.seealso: `PCHFEM`
@*/
PetscErrorCode PCHFEMGetSets(PC pc, PetscInt *nC, PetscInt *nE, PetscInt *nI, PetscInt *macro_level)
{
  PetscBool is;
  PC_HFEM  *hf;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHFEM, &is));
  PetscCheck(is, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCHFEMGetSets() needs a PC of type hfem");
  PetscCheck(pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCHFEMGetSets(): call PCSetUp() first");
  hf = (PC_HFEM *)pc->data;
  if (nC) *nC = hf->nC;
  if (nE) *nE = hf->nE;
  if (nI) *nI = hf->nI;
  if (macro_level) *macro_level = hf->m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCHFEM = "hfem" - the prehandled hierarchical-basis Schur-complement direct solver (method M1 of [RTRZ21]) for the 2D
   Q1 Poisson operator of a brick: the nodal system is transformed to the hierarchical basis of the levels above a macro
   grid (S, eq. 2-4), prehandled by a Cholesky factor on the macro-grid nodes and the diagonal elsewhere (eq. 5), and
   solved by block elimination over the node sets C (macro-grid nodes), E (on macro edges) and I (inside macro cells) with
   the dense inverses of one macro cell's I-I block (all macro cells at once as one matrix product, eq. 25) and of the
   Schur complement Pi (eq. 13-17).

   Options Database Keys:
+  -pc_hfem_macro_level <m>        - the level of the brick's hierarchy that is the macro grid (default: the fewest flops per solve)
.  -pc_hfem_precision <double>     - precision of the dense blocks (this version: double on the host)
-  -pc_hfem_condition              - compute kappa(C_1) and kappa(Pi) at setup and show them in PCView

   Notes:
   Use -ksp_type preonly -pc_type hfem for a direct solve, or as the preconditioner of CG/FGMRES, or as the coarse solver
   of PCMG (-mg_coarse_pc_type hfem). Needs -dm_brick_dim 2 -dm_brick_degree 1 -dm_brick_operator laplace, a brick
   refined at least once, host vectors and one MPI rank (each is checked with an error naming the option).
   `KSPMatSolve()` solves many right-hand sides as one chain of matrix-matrix products.

   Level: intermediate

.seealso: `DMBRICK`, `PCVERTEXPATCH`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_HFEM(PC pc)
{
  PC_HFEM *hf;

  PetscFunctionBegin;
  PetscCall(PetscNew(&hf));
  hf->macro_level          = PETSC_DETERMINE;
  hf->precision            = PC_HFEM_DOUBLE;
  pc->data                 = hf;
  pc->ops->setup           = PCSetUp_HFEM;
  pc->ops->apply           = PCApply_HFEM;
  pc->ops->matapply        = PCMatApply_HFEM;
  pc->ops->setfromoptions  = PCSetFromOptions_HFEM;
  pc->ops->view            = PCView_HFEM;
  pc->ops->reset           = PCReset_HFEM;
  pc->ops->destroy         = PCDestroy_HFEM;
  PetscFunctionReturn(PETSC_SUCCESS);
}
