/* Setup of PCHFEM [RTRZ21]: the node sets C (macro-grid nodes), E (on macro edges) and I (inside macro cells, macro
   cell by macro cell, the same local order in each), the hierarchical transform S (eq. 2-4), the prehandling (eq. 5: a
   Cholesky factor on C, the diagonal elsewhere), the sparse operators of a solve (hfemimpl.h) and what the backends
   turn into the dense inverses of method M1 (eq. 13-14). */
#include "hfemimpl.h"
#include <petscblaslapack.h>
#include <petsctime.h>

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
   first appears (at least the macro level): width H = 2^(level - its level) fine cells, values (1 - |di|/H)(1 - |dj|/H).
   Without prehandling (-pc_hfem_prehandle false) only the macro-grid nodes get their macro-level hats (width s) and every
   other node keeps its nodal hat: the least change of basis that M1's block structure needs (a macro hat is bilinear
   in each macro cell, so it has no coupling with the functions inside a cell). */
static PetscErrorCode PCHFEMCreateS(PC pc, Mat *S)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nx = hf->nx, ny = hf->ny;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, hf->N, hf->N, 4 * (hf->level - hf->m + 2) + 1, NULL, S));
  PetscCall(MatSetOption(*S, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt j = 1; j < ny; j++)
    for (PetscInt i = 1; i < nx; i++) {
      const PetscInt col = (i - 1) + (nx - 1) * (j - 1);
      PetscInt       H   = hf->s;
      if (hf->prehandle)
        while (H > 1 && (i % H || j % H)) H /= 2; /* the coarsest level (at most the macro level's) holding the node */
      else if (i % H || j % H) H = 1;
      for (PetscInt dj = -(H - 1); dj <= H - 1; dj++)
        for (PetscInt di = -(H - 1); di <= H - 1; di++) {
          const PetscInt  r[2] = {i + di, j + dj};
          const PetscReal v    = (1.0 - PetscAbsInt(di) / (PetscReal)H) * (1.0 - PetscAbsInt(dj) / (PetscReal)H);
          if (r[0] <= 0 || r[0] >= nx || r[1] <= 0 || r[1] >= ny) continue;
          PetscCall(MatSetValue(*S, (r[0] - 1) + (nx - 1) * (r[1] - 1), col, v, INSERT_VALUES));
        }
    }
  PetscCall(MatAssemblyBegin(*S, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*S, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* S_j (N x N): the identity, and for each node new on level j (H = 2^(level - j) fine cells from its level-(j-1)
   neighbours) the interpolation from them, eq. 3: 1/2 from the two ends of the coarse edge it halves, 1/4 from the four
   corners of the coarse cell it centres. S = S_level ... S_{m+1} (the finest factor last). */
static PetscErrorCode PCHFEMCreateSLevel(PC pc, PetscInt j, Mat *Sj)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nx = hf->nx, ny = hf->ny, H = (PetscInt)1 << (hf->level - j);

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, hf->N, hf->N, 5, NULL, Sj));
  for (PetscInt jj = 1; jj < ny; jj++)
    for (PetscInt i = 1; i < nx; i++) {
      const PetscInt  row = (i - 1) + (nx - 1) * (jj - 1);
      const PetscBool ongrid = (PetscBool)(i % H == 0 && jj % H == 0), oldx = (PetscBool)(i % (2 * H) == 0), oldy = (PetscBool)(jj % (2 * H) == 0);
      PetscCall(MatSetValue(*Sj, row, row, 1.0, INSERT_VALUES));
      if (!ongrid || (oldx && oldy)) continue; /* not on level j, or already on level j - 1 */
      for (PetscInt dy = oldy ? 0 : -H; dy <= (oldy ? 0 : H); dy += 2 * H)
        for (PetscInt dx = oldx ? 0 : -H; dx <= (oldx ? 0 : H); dx += 2 * H) {
          const PetscInt a = i + dx, b = jj + dy;
          if (a <= 0 || a >= nx || b <= 0 || b >= ny) continue;
          PetscCall(MatSetValue(*Sj, row, (a - 1) + (nx - 1) * (b - 1), (oldx || oldy) ? 0.5 : 0.25, INSERT_VALUES));
        }
    }
  PetscCall(MatAssemblyBegin(*Sj, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*Sj, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A without the entries below tol: the products of the level factors leave many exact zeros in the pattern (a coarse
   hat is bilinear in its cells, so it has no energy product with the finer hats inside them), and keeping them would
   let the pattern fill as if the hierarchical matrix were dense in each macro cell */
static PetscErrorCode PCHFEMDropZeros(Mat A, PetscReal tol, Mat *B)
{
  PetscInt           n, N, *bi, *bj;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscScalar       *ba;
  PetscBool          done;

  PetscFunctionBegin;
  /* straight from A's CSR into B's (one pass to count, one to copy): inserting entry by entry took 40 % of S^T A S */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCHFEM: the level product has no CSR arrays (MatGetRowIJ)");
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(PetscMalloc1(n + 1, &bi));
  bi[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    bi[r + 1] = bi[r];
    for (PetscInt t = ai[r]; t < ai[r + 1]; t++) bi[r + 1] += PetscAbsScalar(aa[t]) > tol;
  }
  PetscCall(PetscMalloc2(bi[n] + 1, &bj, bi[n] + 1, &ba));
  for (PetscInt r = 0, k = 0; r < n; r++)
    for (PetscInt t = ai[r]; t < ai[r + 1]; t++)
      if (PetscAbsScalar(aa[t]) > tol) {
        bj[k]   = aj[t];
        ba[k++] = aa[t];
      }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &N, &ai, &aj, &done)); /* (it zeroes its size argument) */
  PetscCall(MatCreate(PETSC_COMM_SELF, B));
  PetscCall(MatSetSizes(*B, n, n, n, n));
  PetscCall(MatSetType(*B, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*B, bi, bj, ba));
  PetscCall(PetscFree(bi));
  PetscCall(PetscFree2(bj, ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a dense copy (column-major, leading dimension = rows) of the block [r0, r0 + nr) x [c0, c0 + nc) of Ap */
static PetscErrorCode PCHFEMDenseBlock(Mat Ap, PetscInt r0, PetscInt nr, PetscInt c0, PetscInt nc, PetscScalar *out)
{
  PetscFunctionBegin;
  PetscCall(PetscArrayzero(out, nr * nc));
  for (PetscInt i = 0; i < nr; i++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(Ap, r0 + i, &ncols, &cols, &vals));
    for (PetscInt t = 0; t < ncols; t++)
      if (cols[t] >= c0 && cols[t] < c0 + nc) out[i + (cols[t] - c0) * nr] = vals[t];
    PetscCall(MatRestoreRow(Ap, r0 + i, &ncols, &cols, &vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the spectral condition number of a symmetric positive definite dense matrix (LAPACK syev, eigenvalues only) */
PetscErrorCode PCHFEMCondition_Private(PetscInt n, const PetscScalar *a, PetscReal *kappa)
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

/* the rows [r0, r0 + nr) and columns [c0, c0 + nc) of Ap as an N x N matrix with nothing else but an explicit zero on the
   diagonal of every row: a matrix without empty rows (and so its transpose) keeps PETSc's plain CSR, which the sparse
   times dense products of AIJCUSPARSE need (they reject the compressed-row form of mostly empty matrices) */
static PetscErrorCode PCHFEMBlockOf(Mat Ap, PetscInt r0, PetscInt nr, PetscInt c0, PetscInt nc, Mat *out)
{
  PetscInt  N, *nnz;

  PetscFunctionBegin;
  PetscCall(MatGetSize(Ap, &N, NULL));
  PetscCall(PetscMalloc1(N + 1, &nnz));
  for (PetscInt r = 0; r < N; r++) nnz[r] = 1;
  for (PetscInt r = r0; r < r0 + nr; r++) {
    PetscInt        ncols;
    const PetscInt *cols;
    PetscCall(MatGetRow(Ap, r, &ncols, &cols, NULL));
    for (PetscInt t = 0; t < ncols; t++) nnz[r] += (cols[t] >= c0 && cols[t] < c0 + nc);
    PetscCall(MatRestoreRow(Ap, r, &ncols, &cols, NULL));
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 0, nnz, out));
  for (PetscInt r = r0; r < r0 + nr; r++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(Ap, r, &ncols, &cols, &vals));
    for (PetscInt t = 0; t < ncols; t++)
      if (cols[t] >= c0 && cols[t] < c0 + nc) PetscCall(MatSetValue(*out, r, cols[t], vals[t], ADD_VALUES));
    PetscCall(MatRestoreRow(Ap, r, &ncols, &cols, &vals));
  }
  for (PetscInt r = 0; r < N; r++) PetscCall(MatSetValue(*out, r, r, 0.0, ADD_VALUES));
  PetscCall(MatAssemblyBegin(*out, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*out, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the blocks D_k C_1^-1 D_k^T of the macro cells (eq. 13): D_k^T (nb x nr, its E nodes in the order they first appear
   in the cell's rows of D^T) is compared with those of the types found so far; a new one gets its own block. */
static PetscErrorCode PCHFEMCellBlocks(PC pc, const PetscScalar *Cinv, PCHFEMParts *parts)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nb = hf->nb, nC = hf->nC, nE = hf->nE, ncell = hf->ncell;
  PetscInt      *local, nr = 0, ntype = 0, maxtype = 4, *typenr;
  PetscScalar  **typedt, *dtk, *tk;

  PetscFunctionBegin;
  /* the most E nodes of a cell: its edges' inner nodes */
  nr = 4 * (hf->s - 1);
  parts->nr = nr;
  PetscCall(PetscMalloc2(ncell * nr + 1, &parts->cellE, ncell + 1, &parts->celltype));
  PetscCall(PetscMalloc1(nE + 1, &local));
  for (PetscInt e = 0; e < nE; e++) local[e] = -1;
  PetscCall(PetscMalloc2(maxtype, &typedt, maxtype, &typenr));
  PetscCall(PetscMalloc2(nb * nr + 1, &dtk, nb * nr + 1, &tk));
  for (PetscInt k = 0; k < ncell; k++) {
    PetscInt *ecols = parts->cellE + k * nr, n = 0, t;
    for (PetscInt a = 0; a < nr; a++) ecols[a] = -1;
    PetscCall(PetscArrayzero(dtk, nb * nr));
    for (PetscInt r = 0; r < nb; r++) {
      PetscInt           ncols;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(hf->Dt, nC + nE + k * nb + r, &ncols, &cols, &vals));
      for (PetscInt q = 0; q < ncols; q++) {
        const PetscInt e = cols[q] - nC;
        if (e < 0 || e >= nE) continue; /* the explicit zero on the diagonal */
        if (local[e] < 0) {
          PetscCheck(n < nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCHFEM: macro cell %" PetscInt_FMT " couples to more than %" PetscInt_FMT " edge nodes", k, nr);
          local[e]    = n;
          ecols[n++] = e;
        }
        dtk[r + local[e] * nb] = vals[q];
      }
      PetscCall(MatRestoreRow(hf->Dt, nC + nE + k * nb + r, &ncols, &cols, &vals));
    }
    for (PetscInt a = 0; a < n; a++) local[ecols[a]] = -1;
    for (t = 0; t < ntype; t++) {
      PetscReal diff = 0.0, nrm = 0.0;
      if (typenr[t] != n) continue;
      for (PetscInt q = 0; q < nb * n; q++) {
        diff = PetscMax(diff, PetscAbsScalar(dtk[q] - typedt[t][q]));
        nrm  = PetscMax(nrm, PetscAbsScalar(typedt[t][q]));
      }
      if (diff <= 1e-13 * nrm) break;
    }
    if (t == ntype) {
      if (ntype == maxtype) {
        PetscScalar **nd;
        PetscInt     *nn;
        PetscCall(PetscMalloc2(2 * maxtype, &nd, 2 * maxtype, &nn));
        PetscCall(PetscArraycpy(nd, typedt, ntype));
        PetscCall(PetscArraycpy(nn, typenr, ntype));
        PetscCall(PetscFree2(typedt, typenr));
        typedt = nd;
        typenr = nn;
        maxtype *= 2;
      }
      PetscCall(PetscMalloc1(nb * n + 1, &typedt[ntype]));
      PetscCall(PetscArraycpy(typedt[ntype], dtk, nb * n));
      typenr[ntype++] = n;
    }
    parts->celltype[k] = t;
  }
  /* G_t = D_t C_1^-1 D_t^T, nr x nr (zero where a type has fewer nodes) */
  parts->ntype = ntype;
  PetscCall(PetscCalloc1(ntype * nr * nr + 1, &parts->G));
  for (PetscInt t = 0; t < ntype; t++) {
    PetscBLASInt      bnb, bn, bnr;
    const PetscScalar one = 1.0, zero = 0.0;
    if (!typenr[t]) continue;
    PetscCall(PetscBLASIntCast(nb, &bnb));
    PetscCall(PetscBLASIntCast(typenr[t], &bn));
    PetscCall(PetscBLASIntCast(nr, &bnr));
    BLASgemm_("N", "N", &bnb, &bn, &bnb, &one, Cinv, &bnb, typedt[t], &bnb, &zero, tk, &bnb);
    BLASgemm_("T", "N", &bn, &bn, &bnb, &one, typedt[t], &bnb, tk, &bnb, &zero, parts->G + t * nr * nr, &bnr);
  }
  for (PetscInt t = 0; t < ntype; t++) PetscCall(PetscFree(typedt[t]));
  PetscCall(PetscFree2(typedt, typenr));
  PetscCall(PetscFree2(dtk, tk));
  PetscCall(PetscFree(local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCHFEMPartsDestroy_Private(PCHFEMParts *parts)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(parts->C1));
  PetscCall(PetscFree3(parts->ei, parts->ej, parts->ev));
  PetscCall(PetscFree2(parts->cellE, parts->celltype));
  PetscCall(PetscFree(parts->G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* inverse of a symmetric positive definite dense matrix in place (potrf, potri, then the upper triangle mirrored) */
PetscErrorCode PCHFEMInvertSPD_Private(PetscInt n, PetscScalar *a, const char *what)
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

/* From the assembled nodal operator A: At = S^T A S in the set order with the diagonal prehandling (Ap), the sparse
   operators T, T^T (or, for the stencils, the set order and scaling), D, D^T, the Cholesky factor L_C, Ap_CE (B before L_C^-1), and the parts the backends invert;
   CII (if not NULL): the prehandled I-I block, sparse (all macro cells), for the condition estimates. */
PetscErrorCode PCHFEMSetUpTransform_Private(PC pc, Mat A, PCHFEMParts *parts, Mat *CII)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nC = hf->nC, nE = hf->nE, nI = hf->nI, nb = hf->nb, N = hf->N;
  Mat            S, At, Ap, St;
  Vec            diag, scale;
  IS             perm, all;
  PetscInt      *order;
  PetscBLASInt   bnC;
  PetscLogDouble t[5];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(parts, sizeof(*parts)));
  PetscCall(PetscTime(&t[0]));
  S = NULL;
  if (!hf->stencil) PetscCall(PCHFEMCreateS(pc, &S)); /* the stencils need no explicit S */
  PetscCall(PetscTime(&t[1]));
  if (hf->prehandle) {
    /* At = S^T A S one level at a time, finest first, each product with S_j (at most 5 entries a row) cleared of its
       exact zeros: one PtAP with S, whose coarse columns are wide, costs many times more */
    Vec       d;
    PetscReal tol;
    PetscCall(MatCreateVecs(A, &d, NULL));
    PetscCall(MatGetDiagonal(A, d));
    PetscCall(VecNorm(d, NORM_INFINITY, &tol));
    PetscCall(VecDestroy(&d));
    tol *= 1e-13;
    PetscCall(PetscObjectReference((PetscObject)A));
    At = A;
    for (PetscInt j = hf->level; j > hf->m; j--) {
      Mat            Sj, Aj;
      PetscLogDouble u[4];
      MatInfo        ia, ib;
      PetscCall(PetscTime(&u[0]));
      PetscCall(PCHFEMCreateSLevel(pc, j, &Sj));
      PetscCall(PetscTime(&u[1]));
      /* PETSc's "rap" product (R = S_j^T explicitly, then R A S_j): 0.47-0.59 s a level at h = 1/1024 on one core, flat,
         where the default "scalable" one grew from 0.44 to 1.33 s as the levels fill (6.4 against 8.6 s in all) */
      PetscCall(MatProductCreate(At, Sj, NULL, &Aj));
      PetscCall(MatProductSetType(Aj, MATPRODUCT_PtAP));
      PetscCall(MatProductSetAlgorithm(Aj, "rap"));
      PetscCall(MatProductSetFill(Aj, PETSC_DEFAULT));
      PetscCall(MatProductSetFromOptions(Aj));
      PetscCall(MatProductSymbolic(Aj));
      PetscCall(MatProductNumeric(Aj));
      PetscCall(MatProductClear(Aj));
      PetscCall(PetscTime(&u[2]));
      PetscCall(MatDestroy(&Sj));
      PetscCall(MatDestroy(&At));
      PetscCall(PCHFEMDropZeros(Aj, tol, &At));
      PetscCall(PetscTime(&u[3]));
      PetscCall(MatGetInfo(Aj, MAT_LOCAL, &ia));
      PetscCall(MatGetInfo(At, MAT_LOCAL, &ib));
      PetscCall(PetscInfo(pc, "PCHFEM S^T A S, level %" PetscInt_FMT ": S_j %.3f s, PtAP %.3f s (%.0f entries), drop zeros %.3f s (%.0f left)\n", j, u[1] - u[0], u[2] - u[1], ia.nz_used, u[3] - u[2], ib.nz_used));
      PetscCall(MatDestroy(&Aj));
    }
  } else PetscCall(MatPtAP(A, S, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &At));
  PetscCall(PetscTime(&t[2]));
  /* the set order [C; E; I] */
  PetscCall(PetscMalloc1(N, &order));
  PetscCall(PetscArraycpy(order, hf->idxC, nC));
  PetscCall(PetscArraycpy(order + nC, hf->idxE, nE));
  PetscCall(PetscArraycpy(order + nC + nE, hf->idxI, nI));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, N, order, PETSC_OWN_POINTER, &perm));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, N, 0, 1, &all));
  PetscCall(MatCreateSubMatrix(At, perm, perm, MAT_INITIAL_MATRIX, &Ap));
  /* prehandling, eq. 5: 1/sqrt of the hierarchical diagonal on E and I (1 on C, whose Cholesky factor is kept dense) */
  PetscCall(MatCreateVecs(Ap, &diag, &scale));
  PetscCall(MatGetDiagonal(Ap, diag));
  {
    const PetscScalar *d;
    PetscScalar       *sc;
    PetscCall(VecGetArrayRead(diag, &d));
    PetscCall(VecGetArrayWrite(scale, &sc));
    for (PetscInt k = 0; k < N; k++) sc[k] = (k < nC || !hf->prehandle) ? 1.0 : 1.0 / PetscSqrtScalar(d[k]);
    PetscCall(VecRestoreArrayWrite(scale, &sc));
    PetscCall(VecRestoreArrayRead(diag, &d));
  }
  PetscCall(MatDiagonalScale(Ap, scale, scale));
  /* T = diag(scale) P S^T: the set order and the scaling for the stencils, or T and its transpose as sparse matrices */
  PetscCall(MatDestroy(&hf->T));
  PetscCall(MatDestroy(&hf->Tt));
  PetscCall(PetscFree2(hf->order, hf->scale));
  if (hf->stencil) {
    const PetscInt    *o;
    const PetscScalar *sc;
    PetscCall(PetscMalloc2(N, &hf->order, N, &hf->scale));
    PetscCall(ISGetIndices(perm, &o));
    PetscCall(PetscArraycpy(hf->order, o, N));
    PetscCall(ISRestoreIndices(perm, &o));
    PetscCall(VecGetArrayRead(scale, &sc));
    PetscCall(PetscArraycpy(hf->scale, sc, N));
    PetscCall(VecRestoreArrayRead(scale, &sc));
  } else {
    PetscCall(MatTranspose(S, MAT_INITIAL_MATRIX, &St));
    PetscCall(MatCreateSubMatrix(St, perm, all, MAT_INITIAL_MATRIX, &hf->T));
    PetscCall(MatDiagonalScale(hf->T, scale, NULL));
    PetscCall(MatTranspose(hf->T, MAT_INITIAL_MATRIX, &hf->Tt));
    PetscCall(MatDestroy(&St));
  }
  PetscCall(VecDestroy(&diag));
  PetscCall(VecDestroy(&scale));
  PetscCall(ISDestroy(&perm));
  PetscCall(ISDestroy(&all));
  PetscCall(MatDestroy(&At));
  PetscCall(MatDestroy(&S));
  PetscCall(PetscTime(&t[3]));

  /* L_C, and Ap_CE (B after L_C^-1) */
  PetscCall(PetscBLASIntCast(nC, &bnC));
  PetscCall(PetscFree2(hf->LC, hf->B));
  PetscCall(PetscMalloc2(nC * nC + 1, &hf->LC, nC * nE + 1, &hf->B));
  if (nC) {
    PetscBLASInt info;
    PetscCall(PCHFEMDenseBlock(Ap, 0, nC, 0, nC, hf->LC));
    LAPACKpotrf_("L", &bnC, hf->LC, &bnC, &info);
    PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCHFEM: LAPACK potrf failed on the macro-grid block: %d", (int)info);
    for (PetscInt j = 0; j < nC; j++)
      for (PetscInt i = 0; i < j; i++) hf->LC[i + j * nC] = 0.0;
    if (nE) PetscCall(PCHFEMDenseBlock(Ap, 0, nC, nC, nE, hf->B)); /* Ap_CE: the backends make B = L_C^-1 Ap_CE */
  }
  if (!CII) {
    /* C_1: the first macro cell's I-I block; every macro cell has the same (congruent cells, the same local order) */
    PetscCall(PetscMalloc1(nb * nb + 1, &parts->C1));
    PetscCall(PCHFEMDenseBlock(Ap, nC + nE, nb, nC + nE, nb, parts->C1));
    if (hf->ncell > 1) {
      PetscScalar *Clast;
      PetscReal    diff = 0.0, nrm = 0.0;
      PetscCall(PetscMalloc1(nb * nb + 1, &Clast));
      PetscCall(PCHFEMDenseBlock(Ap, nC + nE + (hf->ncell - 1) * nb, nb, nC + nE + (hf->ncell - 1) * nb, nb, Clast));
      for (PetscInt q = 0; q < nb * nb; q++) {
        diff = PetscMax(diff, PetscAbsScalar(Clast[q] - parts->C1[q]));
        nrm  = PetscMax(nrm, PetscAbsScalar(parts->C1[q]));
      }
      PetscCall(PetscFree(Clast));
      PetscCheck(diff <= 1e-10 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCHFEM: the macro cells' I-I blocks differ (%g relative): they must be congruent", (double)(diff / nrm));
    }
  }
  /* D (E rows, I columns) and D^T, and the E-E block as triples */
  PetscCall(MatDestroy(&hf->D));
  PetscCall(MatDestroy(&hf->Dt));
  PetscCall(PCHFEMBlockOf(Ap, nC, nE, nC + nE, nI, &hf->D));
  PetscCall(MatTranspose(hf->D, MAT_INITIAL_MATRIX, &hf->Dt));
  {
    MatInfo info;
    PetscCall(MatGetInfo(hf->D, MAT_LOCAL, &info));
    PetscCall(PetscInfo(pc, "PCHFEM: the E-I block D has %.0f entries (%.1f per macro cell, %.1f per E node)\n", info.nz_used - hf->N, (info.nz_used - hf->N) / PetscMax(hf->ncell, 1), (info.nz_used - hf->N) / PetscMax(hf->nE, 1)));
  }
  {
    PetscInt nnz = 0;
    for (PetscInt pass = 0; pass < 2; pass++) {
      nnz = 0;
      for (PetscInt r = nC; r < nC + nE; r++) {
        PetscInt           ncols;
        const PetscInt    *cols;
        const PetscScalar *vals;
        PetscCall(MatGetRow(Ap, r, &ncols, &cols, &vals));
        for (PetscInt t = 0; t < ncols; t++)
          if (cols[t] >= nC && cols[t] < nC + nE) {
            if (pass) {
              parts->ei[nnz] = r - nC;
              parts->ej[nnz] = cols[t] - nC;
              parts->ev[nnz] = vals[t];
            }
            nnz++;
          }
        PetscCall(MatRestoreRow(Ap, r, &ncols, &cols, &vals));
      }
      if (!pass) PetscCall(PetscMalloc3(nnz + 1, &parts->ei, nnz + 1, &parts->ej, nnz + 1, &parts->ev));
    }
    parts->nnz = nnz;
  }
  if (CII) {
    IS isI;
    PetscCall(ISCreateStride(PETSC_COMM_SELF, nI, nC + nE, 1, &isI));
    PetscCall(MatCreateSubMatrix(Ap, isI, isI, MAT_INITIAL_MATRIX, CII));
    PetscCall(ISDestroy(&isI));
  }
  PetscCall(MatDestroy(&Ap));
  PetscCall(PetscTime(&t[4]));
  PetscCall(PetscInfo(pc, "PCHFEM transform: S %.2f s, S^T A S %.2f s, set order and T %.2f s, blocks %.2f s\n", t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C_1^-1 in double on the host (LAPACK) and the cells' blocks G made with it */
PetscErrorCode PCHFEMSetUpCells_Private(PC pc, PCHFEMParts *parts, PetscScalar *Cinv)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscArraycpy(Cinv, parts->C1, hf->nb * hf->nb));
  PetscCall(PCHFEMInvertSPD_Private(hf->nb, Cinv, "a macro cell's I-I block"));
  PetscCall(PCHFEMCellBlocks(pc, Cinv, parts));
  PetscCall(PCHFEMSetUpFold_Private(pc, Cinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pi on the host from its parts (eq. 13-14), inverted in place */
PetscErrorCode PCHFEMAssemblePi_Private(PC pc, const PCHFEMParts *parts, PetscScalar *Pi)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nE = hf->nE, nC = hf->nC, nr = parts->nr;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(Pi, nE * nE));
  for (PetscInt p = 0; p < parts->nnz; p++) Pi[parts->ei[p] + parts->ej[p] * nE] += parts->ev[p];
  for (PetscInt k = 0; k < hf->ncell; k++) {
    const PetscInt    *e = parts->cellE + k * nr;
    const PetscScalar *g = parts->G + parts->celltype[k] * nr * nr;
    for (PetscInt b = 0; b < nr; b++)
      for (PetscInt a = 0; a < nr; a++)
        if (e[a] >= 0 && e[b] >= 0) Pi[e[a] + e[b] * nE] -= g[a + b * nr];
  }
  if (nC && nE) {
    const PetscScalar mone = -1.0, one = 1.0;
    PetscBLASInt      bnC, bnE;
    PetscCall(PetscBLASIntCast(nC, &bnC));
    PetscCall(PetscBLASIntCast(nE, &bnE));
    BLASgemm_("T", "N", &bnE, &bnE, &bnC, &mone, hf->B, &bnC, hf->B, &bnC, &one, Pi, &bnE);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

