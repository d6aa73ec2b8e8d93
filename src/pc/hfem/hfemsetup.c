/* Setup of PCHFEM [RTRZ21]: the node sets C (macro-grid nodes), E (on macro edges) and I (inside macro cells, macro
   cell by macro cell, the same local order in each), the hierarchical transform S (eq. 2-4), the prehandling (eq. 5: a
   Cholesky factor on C, the diagonal elsewhere) and the dense blocks of method M1 (eq. 13-14). */
#include "hfemimpl.h"
#include <petscblaslapack.h>

/* The sets, in the brick's global numbering (one rank: interior node (i, j) is (i-1) + (nx-1)(j-1)). */
PetscErrorCode PCHFEMSetUpSets_Private(PC pc)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nx = hf->nx, ny = hf->ny, s = hf->s;
  PetscInt       c = 0, e = 0, q = 0;

  PetscFunctionBegin;
  hf->N     = (nx - 1) * (ny - 1);
  hf->nC    = (nx / s - 1) * (ny / s - 1);
  hf->nb    = (s - 1) * (s - 1);
  hf->ncell = (nx / s) * (ny / s);
  hf->nI    = hf->nb * hf->ncell;
  hf->nE    = hf->N - hf->nC - hf->nI;
  PetscCall(PetscFree3(hf->idxC, hf->idxE, hf->idxI));
  PetscCall(PetscMalloc3(hf->nC + 1, &hf->idxC, hf->nE + 1, &hf->idxE, hf->nI + 1, &hf->idxI));
  for (PetscInt j = 1; j < ny; j++)
    for (PetscInt i = 1; i < nx; i++) {
      const PetscInt g = (i - 1) + (nx - 1) * (j - 1);
      const PetscBool oni = (PetscBool)(i % s == 0), onj = (PetscBool)(j % s == 0);
      if (oni && onj) hf->idxC[c++] = g;
      else if (oni || onj) hf->idxE[e++] = g;
    }
  for (PetscInt b = 0; b < ny / s; b++)
    for (PetscInt a = 0; a < nx / s; a++)
      for (PetscInt lj = 1; lj < s; lj++)
        for (PetscInt li = 1; li < s; li++) hf->idxI[q++] = (a * s + li - 1) + (nx - 1) * (b * s + lj - 1);
  PetscCheck(c == hf->nC && e == hf->nE && q == hf->nI, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCHFEM: node sets %" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT " do not add up", c, e, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* S: column q is the nodal expansion of node q's hierarchical function, the Q1 hat of the level on which the node
   first appears (at least the macro level): width H = 2^(level - its level) fine cells, values (1 - |di|/H)(1 - |dj|/H). */
static PetscErrorCode PCHFEMCreateS(PC pc)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nx = hf->nx, ny = hf->ny;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&hf->S));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, hf->N, hf->N, 4 * (hf->level - hf->m + 2) + 1, NULL, &hf->S));
  PetscCall(MatSetOption(hf->S, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt j = 1; j < ny; j++)
    for (PetscInt i = 1; i < nx; i++) {
      const PetscInt col = (i - 1) + (nx - 1) * (j - 1);
      PetscInt       H   = hf->s;
      while (H > 1 && (i % H || j % H)) H /= 2; /* the coarsest level (at most the macro level's) holding the node */
      for (PetscInt dj = -(H - 1); dj <= H - 1; dj++)
        for (PetscInt di = -(H - 1); di <= H - 1; di++) {
          const PetscInt  r[2] = {i + di, j + dj};
          const PetscReal v    = (1.0 - PetscAbsInt(di) / (PetscReal)H) * (1.0 - PetscAbsInt(dj) / (PetscReal)H);
          if (r[0] <= 0 || r[0] >= nx || r[1] <= 0 || r[1] >= ny) continue;
          PetscCall(MatSetValue(hf->S, (r[0] - 1) + (nx - 1) * (r[1] - 1), col, v, INSERT_VALUES));
        }
    }
  PetscCall(MatAssemblyBegin(hf->S, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(hf->S, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a dense copy (column-major, leading dimension = rows) of a sub-block of At */
static PetscErrorCode PCHFEMDenseBlock(Mat At, PetscInt nr, const PetscInt rows[], PetscInt nc, const PetscInt cols[], PetscScalar *out)
{
  IS                 isr, isc;
  Mat                sub, dense;
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nr, rows, PETSC_USE_POINTER, &isr));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nc, cols, PETSC_USE_POINTER, &isc));
  PetscCall(MatCreateSubMatrix(At, isr, isc, MAT_INITIAL_MATRIX, &sub));
  PetscCall(MatConvert(sub, MATSEQDENSE, MAT_INITIAL_MATRIX, &dense));
  PetscCall(MatDenseGetArrayRead(dense, &a));
  PetscCall(PetscArraycpy(out, a, nr * nc));
  PetscCall(MatDenseRestoreArrayRead(dense, &a));
  PetscCall(MatDestroy(&dense));
  PetscCall(MatDestroy(&sub));
  PetscCall(ISDestroy(&isr));
  PetscCall(ISDestroy(&isc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the spectral condition number of a symmetric positive definite dense matrix (LAPACK syev, eigenvalues only) */
static PetscErrorCode PCHFEMCondition(PetscInt n, const PetscScalar *a, PetscReal *kappa)
{
  PetscScalar *c, *work;
  PetscReal   *w;
  PetscBLASInt bn, lwork, info;

  PetscFunctionBegin;
  *kappa = 0.0;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(n, &bn));
  lwork = 3 * bn + 64;
  PetscCall(PetscMalloc3(n * n, &c, n, &w, lwork, &work));
  PetscCall(PetscArraycpy(c, a, n * n));
#if defined(PETSC_USE_COMPLEX)
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "PCHFEM -pc_hfem_condition: real scalars only");
#else
  LAPACKsyev_("N", "L", &bn, c, &bn, w, work, &lwork, &info);
#endif
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK syev failed: %d", (int)info);
  *kappa = w[n - 1] / w[0];
  PetscCall(PetscFree3(c, w, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* inverse of a symmetric positive definite dense matrix in place (potrf, potri, then the upper triangle mirrored) */
static PetscErrorCode PCHFEMInvertSPD(PetscInt n, PetscScalar *a, const char *what)
{
  PetscBLASInt bn, info;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(n, &bn));
  LAPACKpotrf_("L", &bn, a, &bn, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCHFEM: LAPACK potrf failed on %s: %d (not positive definite?)", what, (int)info);
  LAPACKpotri_("L", &bn, a, &bn, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCHFEM: LAPACK potri failed on %s: %d", what, (int)info);
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < j; i++) a[i + j * n] = a[j + i * n];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* From the assembled nodal operator A: At = S^T A S, the prehandling and the dense blocks of M1. */
PetscErrorCode PCHFEMSetUpTransform_Private(PC pc, Mat A)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nC = hf->nC, nE = hf->nE, nI = hf->nI, nb = hf->nb;
  Mat            At;
  Vec            diag;
  PetscScalar   *Lambda, *C1, *dtk = NULL, *tk = NULL, *gk = NULL;
  PetscBLASInt   bnC, bnE, bnb;
  PetscInt      *ecols = NULL;

  PetscFunctionBegin;
  PetscCall(PCHFEMCreateS(pc));
  PetscCall(MatPtAP(A, hf->S, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &At));
  PetscCall(PetscBLASIntCast(nC, &bnC));
  PetscCall(PetscBLASIntCast(nE, &bnE));
  PetscCall(PetscBLASIntCast(nb, &bnb));
  /* prehandling, eq. 5: the Cholesky factor of the hierarchical C-C block, 1/sqrt of the diagonal on E and I */
  PetscCall(MatCreateVecs(At, &diag, NULL));
  PetscCall(MatGetDiagonal(At, diag));
  {
    const PetscScalar *d;
    PetscCall(VecGetArrayRead(diag, &d));
    for (PetscInt k = 0; k < nE; k++) hf->sE[k] = 1.0 / PetscSqrtScalar(d[hf->idxE[k]]);
    for (PetscInt k = 0; k < nI; k++) hf->sI[k] = 1.0 / PetscSqrtScalar(d[hf->idxI[k]]);
    PetscCall(VecRestoreArrayRead(diag, &d));
  }
  PetscCall(VecDestroy(&diag));
  if (nC) {
    PetscBLASInt info;
    PetscCall(PCHFEMDenseBlock(At, nC, hf->idxC, nC, hf->idxC, hf->LC));
    LAPACKpotrf_("L", &bnC, hf->LC, &bnC, &info);
    PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCHFEM: LAPACK potrf failed on the macro-grid block: %d", (int)info);
    for (PetscInt j = 0; j < nC; j++)
      for (PetscInt i = 0; i < j; i++) hf->LC[i + j * nC] = 0.0;
    /* B = L_C^-1 At_CE diag(sE) */
    if (nE) {
      const PetscScalar one = 1.0;
      PetscCall(PCHFEMDenseBlock(At, nC, hf->idxC, nE, hf->idxE, hf->B));
      for (PetscInt j = 0; j < nE; j++)
        for (PetscInt i = 0; i < nC; i++) hf->B[i + j * nC] *= hf->sE[j];
      BLAStrsm_("L", "L", "N", "N", &bnC, &bnE, &one, hf->LC, &bnC, hf->B, &bnC);
    }
  }
  /* C_1: the prehandled I-I block of the first macro cell; every macro cell has the same (congruent cells, the same local order) */
  PetscCall(PetscMalloc1(nb * nb, &C1));
  PetscCall(PCHFEMDenseBlock(At, nb, hf->idxI, nb, hf->idxI, C1));
  for (PetscInt j = 0; j < nb; j++)
    for (PetscInt i = 0; i < nb; i++) C1[i + j * nb] *= hf->sI[i] * hf->sI[j];
  if (hf->ncell > 1) {
    PetscScalar *Clast;
    PetscReal    diff = 0.0, nrm = 0.0;
    PetscCall(PetscMalloc1(nb * nb, &Clast));
    PetscCall(PCHFEMDenseBlock(At, nb, hf->idxI + (hf->ncell - 1) * nb, nb, hf->idxI + (hf->ncell - 1) * nb, Clast));
    for (PetscInt j = 0; j < nb; j++)
      for (PetscInt i = 0; i < nb; i++) {
        const PetscScalar v = Clast[i + j * nb] * hf->sI[(hf->ncell - 1) * nb + i] * hf->sI[(hf->ncell - 1) * nb + j];
        diff = PetscMax(diff, PetscAbsScalar(v - C1[i + j * nb]));
        nrm  = PetscMax(nrm, PetscAbsScalar(C1[i + j * nb]));
      }
    PetscCall(PetscFree(Clast));
    PetscCheck(diff <= 1e-10 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCHFEM: the macro cells' I-I blocks differ (%g relative): they must be congruent", (double)(diff / nrm));
  }
  if (hf->condition) PetscCall(PCHFEMCondition(nb, C1, &hf->kappaC));
  PetscCall(PetscArraycpy(hf->C1inv, C1, nb * nb));
  PetscCall(PCHFEMInvertSPD(nb, hf->C1inv, "a macro cell's I-I block"));
  PetscCall(PetscFree(C1));

  /* D = diag(sE) At_EI diag(sI), sparse */
  {
    IS  isE, isI;
    Vec vE, vI;
    PetscCall(MatDestroy(&hf->D));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nE, hf->idxE, PETSC_USE_POINTER, &isE));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nI, hf->idxI, PETSC_USE_POINTER, &isI));
    PetscCall(MatCreateSubMatrix(At, isE, isI, MAT_INITIAL_MATRIX, &hf->D));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, nE, hf->sE, &vE));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, nI, hf->sI, &vI));
    PetscCall(MatDiagonalScale(hf->D, vE, vI));
    PetscCall(VecDestroy(&vE));
    PetscCall(VecDestroy(&vI));
    PetscCall(ISDestroy(&isE));
    PetscCall(ISDestroy(&isI));
  }
  /* Lambda = E - D C^-1 D^T (eq. 13), macro cell by macro cell; then Pi = Lambda - B^T B (eq. 14) */
  Lambda = hf->Piinv;
  if (nE) {
    Mat Dt;
    PetscCall(PCHFEMDenseBlock(At, nE, hf->idxE, nE, hf->idxE, Lambda));
    for (PetscInt j = 0; j < nE; j++)
      for (PetscInt i = 0; i < nE; i++) Lambda[i + j * nE] *= hf->sE[i] * hf->sE[j];
    PetscCall(MatTranspose(hf->D, MAT_INITIAL_MATRIX, &Dt));
    PetscCall(PetscMalloc1(nE, &ecols));
    for (PetscInt k = 0; k < hf->ncell; k++) {
      PetscInt     nr = 0;
      PetscBLASInt bnr;
      const PetscScalar one = 1.0, zero = 0.0;
      /* the E nodes this macro cell's I nodes couple to */
      for (PetscInt r = k * nb; r < (k + 1) * nb; r++) {
        PetscInt        ncols;
        const PetscInt *cols;
        PetscCall(MatGetRow(Dt, r, &ncols, &cols, NULL));
        for (PetscInt t = 0; t < ncols; t++) {
          PetscInt u = 0;
          while (u < nr && ecols[u] != cols[t]) u++;
          if (u == nr) ecols[nr++] = cols[t];
        }
        PetscCall(MatRestoreRow(Dt, r, &ncols, &cols, NULL));
      }
      if (!nr) continue;
      PetscCall(PetscCalloc3(nb * nr, &dtk, nb * nr, &tk, nr * nr, &gk));
      for (PetscInt r = k * nb; r < (k + 1) * nb; r++) {
        PetscInt           ncols;
        const PetscInt    *cols;
        const PetscScalar *vals;
        PetscCall(MatGetRow(Dt, r, &ncols, &cols, &vals));
        for (PetscInt t = 0; t < ncols; t++) {
          PetscInt u = 0;
          while (ecols[u] != cols[t]) u++;
          dtk[(r - k * nb) + u * nb] = vals[t]; /* D_k^T, nb x nr */
        }
        PetscCall(MatRestoreRow(Dt, r, &ncols, &cols, &vals));
      }
      PetscCall(PetscBLASIntCast(nr, &bnr));
      BLASgemm_("N", "N", &bnb, &bnr, &bnb, &one, hf->C1inv, &bnb, dtk, &bnb, &zero, tk, &bnb); /* C^-1 D_k^T */
      BLASgemm_("T", "N", &bnr, &bnr, &bnb, &one, dtk, &bnb, tk, &bnb, &zero, gk, &bnr);        /* D_k C^-1 D_k^T */
      for (PetscInt b = 0; b < nr; b++)
        for (PetscInt a = 0; a < nr; a++) Lambda[ecols[a] + ecols[b] * nE] -= gk[a + b * nr];
      PetscCall(PetscFree3(dtk, tk, gk));
    }
    PetscCall(PetscFree(ecols));
    PetscCall(MatDestroy(&Dt));
    if (nC) {
      const PetscScalar mone = -1.0, one = 1.0;
      BLASgemm_("T", "N", &bnE, &bnE, &bnC, &mone, hf->B, &bnC, hf->B, &bnC, &one, Lambda, &bnE);
    }
    if (hf->condition) PetscCall(PCHFEMCondition(nE, Lambda, &hf->kappaPi));
    PetscCall(PCHFEMInvertSPD(nE, hf->Piinv, "Pi"));
  }
  PetscCall(MatDestroy(&At));
  PetscCall(PetscLogFlops(2.0 * nb * nb * nb + (double)nE * nE * nE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
