/* PCHFEM with the E-I couplings folded into the C^-1 products (-pc_hfem_fold): method M1 of [RTRZ21] rearranged, the
   same solution in exact arithmetic.

   Every macro cell couples to the E nodes of its own boundary only, and on a uniform brick all cells do it through one
   block D_s^T (nb x ns) over the ns = 4 s slots of the boundary (bottom, right, top, left; a slot without an E node, at a
   corner or on the domain's boundary, has no value). With G = C_1^-1 D_s^T, made once at setup:
     Z_E -= D Y_I = D C^-1 Z_I           becomes   Z_E -= (G^T Z_I of every cell, added at its slots' E nodes)
     Y_I  = C^-1 (Z_I - D^T Y_E)         becomes   Y_I  = [C_1^-1 | -G / alpha] [Z_I; alpha Y_E at the slots]
   So the first C^-1 product shrinks to ns rows, the second takes the couplings in its inner dimension, and neither sparse
   coupling product is left: per cell and column 2 nb (nb + 2 ns) flops instead of 4 nb^2 (for s = 32: 37 % fewer), and
   the GPU's fused path (cuda/vphfemcell.cu) no longer stores Z_I between the two products.
   alpha (a power of 2) brings alpha Y_E to the size of Z_I, so that the packed columns of the 16-bit formats, scaled by
   their largest Z_I entry, keep Y_E inside the format's range; a column whose alpha Y_E is still more than
   PCHFEM_FOLD_RANGE times larger gets a power-of-2 larger scale (PCHFEMFoldRescale, the same rule on the GPU). */
#include "hfemimpl.h"
#include <petscblaslapack.h>

PETSC_EXTERN void sgemm_(const char *, const char *, const PetscBLASInt *, const PetscBLASInt *, const PetscBLASInt *, const float *, const float *, const PetscBLASInt *, const float *, const PetscBLASInt *, const float *, float *, const PetscBLASInt *);

#define PCHFEM_FOLD_RANGE 64.0f

/* the slot of boundary position (li, lj) of a macro cell of s x s fine cells (as BoundaryNode in cuda/vphfemcell.cu), -1
   off the boundary or at a corner */
static PetscInt Slot(PetscInt s, PetscInt li, PetscInt lj)
{
  if (lj == 0 && li > 0 && li < s) return li;
  if (li == s && lj > 0 && lj < s) return s + lj;
  if (lj == s && li > 0 && li < s) return 2 * s + (s - li);
  if (li == 0 && lj > 0 && lj < s) return 3 * s + (s - lj);
  return -1;
}

/* the factor r >= 1 (a power of 2) by which a column's scale s1 grows when its packed alpha Y_E, largest my, exceeds the
   range */
static float FoldRescale(float my, float s1)
{
  int e;
  if (!(my > PCHFEM_FOLD_RANGE * s1)) return 1.0f;
  (void)frexpf(my / (PCHFEM_FOLD_RANGE * s1), &e);
  return ldexpf(1.0f, e);
}

/* Find D_s^T from D^T cell by cell; fold (hf->folded) only if every cell's block equals it at the slots it has. Then G,
   alpha and the host store (FA, FB). Cinv: C_1^-1 in double. */
PetscErrorCode PCHFEMSetUpFold_Private(PC pc, const PetscScalar *Cinv)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt s = hf->s, nb = hf->nb, ns = 4 * s, nC = hf->nC, nE = hf->nE, mx = hf->nx / s, K = nb + ns;
  PetscInt      *placeE, *seen;
  PetscScalar   *Ds, *dk;
  PetscBool      ok = PETSC_TRUE;
  PetscReal      dmax = 0.0, gmax = 0.0, cmax = 0.0;

  PetscFunctionBegin;
  PetscCall(PCHFEMResetFold_Private(pc));
  if (!hf->fold || !nE) PetscFunctionReturn(PETSC_SUCCESS);
  hf->ns = ns;
  PetscCall(PetscMalloc1(hf->ncell * ns + 1, &hf->slotE));
  PetscCall(PetscMalloc2(hf->N + 1, &placeE, ns + 1, &seen));
  PetscCall(PetscCalloc2(nb * ns + 1, &Ds, nb * ns + 1, &dk));
  for (PetscInt g = 0; g < hf->N; g++) placeE[g] = -1;
  for (PetscInt e = 0; e < nE; e++) placeE[hf->idxE[e]] = e;
  for (PetscInt p = 0; p < ns; p++) seen[p] = 0;
  for (PetscInt q = 0; q < hf->ncell && ok; q++) {
    const PetscInt a = q % mx, b = q / mx;
    PetscInt      *slot = hf->slotE + q * ns;
    /* the E node at each slot (geometry) */
    for (PetscInt p = 0; p < ns; p++) {
      const PetscInt side = p / s, o = p % s;
      const PetscInt li = side == 0 ? o : (side == 1 ? s : (side == 2 ? s - o : 0)), lj = side == 0 ? 0 : (side == 1 ? o : (side == 2 ? s : s - o));
      const PetscInt i = a * s + li, j = b * s + lj;
      slot[p] = (Slot(s, li, lj) == p && i > 0 && i < hf->nx && j > 0 && j < hf->ny) ? placeE[(i - 1) + (hf->nx - 1) * (j - 1)] : -1;
    }
    /* this cell's D_k^T at the slots */
    PetscCall(PetscArrayzero(dk, nb * ns));
    for (PetscInt l = 0; l < nb && ok; l++) {
      PetscInt           ncols;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(hf->Dt, nC + nE + q * nb + l, &ncols, &cols, &vals));
      for (PetscInt t = 0; t < ncols; t++) {
        const PetscInt e = cols[t] - nC;
        PetscInt       g, p;
        if (e < 0 || e >= nE || vals[t] == 0.0) continue; /* the explicit zero on the diagonal */
        g = hf->idxE[e];
        p = Slot(s, g % (hf->nx - 1) + 1 - a * s, g / (hf->nx - 1) + 1 - b * s);
        if (p < 0 || slot[p] != e) {
          ok = PETSC_FALSE; /* a coupling off the cell's boundary */
          break;
        }
        dk[l + p * nb] = vals[t];
        dmax           = PetscMax(dmax, PetscAbsScalar(vals[t]));
      }
      PetscCall(MatRestoreRow(hf->Dt, nC + nE + q * nb + l, &ncols, &cols, &vals));
    }
    /* against D_s^T: the first cell with an E node at a slot sets its column, every other must repeat it */
    for (PetscInt p = 0; p < ns && ok; p++) {
      if (slot[p] < 0) continue;
      if (!seen[p]) {
        PetscCall(PetscArraycpy(Ds + p * nb, dk + p * nb, nb));
        seen[p] = 1;
      } else
        for (PetscInt l = 0; l < nb; l++)
          if (PetscAbsScalar(dk[l + p * nb] - Ds[l + p * nb]) > 1e-13 * PetscMax(dmax, PETSC_SMALL)) {
            ok = PETSC_FALSE;
            break;
          }
    }
  }
  if (!ok) {
    PetscCall(PetscInfo(pc, "PCHFEM: the macro cells' E-I couplings differ; the couplings stay sparse products\n"));
    PetscCall(PetscFree2(placeE, seen));
    PetscCall(PetscFree2(Ds, dk));
    PetscCall(PCHFEMResetFold_Private(pc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  hf->nnzDs = 0;
  for (PetscInt k = 0; k < nb * ns; k++) hf->nnzDs += Ds[k] != 0.0;
  /* G = C_1^-1 D_s^T; alpha = 2^round(log2(max|G| / max|C_1^-1|)) */
  PetscCall(PetscMalloc1(nb * ns + 1, &hf->Gs));
  {
    const PetscScalar one = 1.0, zero = 0.0;
    PetscBLASInt      bnb, bns;
    PetscCall(PetscBLASIntCast(nb, &bnb));
    PetscCall(PetscBLASIntCast(ns, &bns));
    BLASgemm_("N", "N", &bnb, &bns, &bnb, &one, Cinv, &bnb, Ds, &bnb, &zero, hf->Gs, &bnb);
  }
  for (PetscInt k = 0; k < nb * ns; k++) gmax = PetscMax(gmax, PetscAbsScalar(hf->Gs[k]));
  for (PetscInt k = 0; k < nb * nb; k++) cmax = PetscMax(cmax, PetscAbsScalar(Cinv[k]));
  hf->alpha = (gmax > 0.0 && cmax > 0.0) ? PetscPowReal(2.0, PetscFloorReal(PetscLog2Real(gmax / cmax) + 0.5)) : 1.0;
  if (!hf->device) {
    PetscScalar *FA, *FB;
    PetscCall(PetscMalloc2(ns * nb + 1, &FA, nb * K + 1, &FB));
    for (PetscInt l = 0; l < nb; l++)
      for (PetscInt p = 0; p < ns; p++) FA[p + l * ns] = hf->Gs[l + p * nb];
    PetscCall(PetscArraycpy(FB, Cinv, nb * nb));
    for (PetscInt k = 0; k < nb * ns; k++) FB[nb * nb + k] = -hf->Gs[k] / hf->alpha;
    /* the stores take their own copies (PCHFEMStore_Private keeps or frees what it gets) */
    {
      PetscScalar *a, *bb;
      PetscCall(PetscMalloc1(ns * nb + 1, &a));
      PetscCall(PetscMalloc1(nb * K + 1, &bb));
      PetscCall(PetscArraycpy(a, FA, ns * nb));
      PetscCall(PetscArraycpy(bb, FB, nb * K));
      PetscCall(PCHFEMStore_Private(pc, ns * nb, a, &hf->FA, &hf->FAf, &hf->sFA));
      PetscCall(PCHFEMStore_Private(pc, nb * K, bb, &hf->FB, &hf->FBf, &hf->sFB));
    }
    PetscCall(PetscFree2(FA, FB));
  }
  hf->folded = PETSC_TRUE;
  PetscCall(PetscInfo(pc, "PCHFEM: E-I couplings folded into the C^-1 products: D_s^T %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " entries, alpha %g\n", nb, ns, hf->nnzDs, (double)hf->alpha));
  PetscCall(PetscFree2(placeE, seen));
  PetscCall(PetscFree2(Ds, dk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCHFEMResetFold_Private(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(hf->slotE));
  PetscCall(PetscFree(hf->Gs));
  PetscCall(PetscFree(hf->FA));
  PetscCall(PetscFree(hf->FB));
  PetscCall(PetscFree(hf->FAf));
  PetscCall(PetscFree(hf->FBf));
  hf->folded = PETSC_FALSE;
  hf->ns     = 0;
  hf->nnzDs  = 0;
  hf->alpha  = 1.0;
  hf->sFA = hf->sFB = 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scale of the packed Z_I column z (nb entries): its largest |z| for the 16-bit formats (1 if zero), else 1 */
static float ColumnScale(PC_HFEM *hf, const PetscScalar *z)
{
  PetscReal m = 0.0;
  if (hf->precision != PC_HFEM_HALF && hf->precision != PC_HFEM_BFLOAT16) return 1.0f;
  for (PetscInt l = 0; l < hf->nb; l++) m = PetscMax(m, PetscAbsScalar(z[l]));
  return m > 0.0 ? (float)m : 1.0f;
}

/* room for the packed columns (rows x cols) and the product (prow x cols) in the host's pack */
static PetscErrorCode PackRoom(PC_HFEM *hf, size_t need)
{
  PetscFunctionBegin;
  if (need > hf->packcap) {
    PetscCall(PetscFree2(hf->pack, hf->packout));
    PetscCall(PetscMalloc2(need, &hf->pack, need, &hf->packout));
    hf->packcap = need;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z_E -= G^T Z_I of every macro cell, at its slots' E nodes (Z: set order, n columns, leading dimension ld) */
PetscErrorCode PCHFEMFoldCouple_Host(PC pc, PetscInt n, PetscScalar *Z, PetscInt ld)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nb = hf->nb, ns = hf->ns, ncell = hf->ncell, nC = hf->nC, base = hf->nC + hf->nE, ncols = ncell * n;
  PetscBLASInt   bnb, bns, bc;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(nb, &bnb));
  PetscCall(PetscBLASIntCast(ns, &bns));
  PetscCall(PetscBLASIntCast(ncols, &bc));
  PetscCall(PackRoom(hf, (size_t)PetscMax(nb, 2 * ns) * ncols + ncols));
  if (hf->FA) {
    /* double: W (ns x ncell n, column q n + c) in the packed product buffer, viewed as doubles */
    const PetscScalar one = 1.0, zero = 0.0;
    PetscScalar      *W = (PetscScalar *)hf->packout;
    for (PetscInt q = 0; q < ncell; q++) {
      PetscBLASInt bn, bld;
      PetscCall(PetscBLASIntCast(n, &bn));
      PetscCall(PetscBLASIntCast(ld, &bld));
      BLASgemm_("N", "N", &bns, &bn, &bnb, &one, hf->FA, &bns, Z + base + q * nb, &bld, &zero, W + (size_t)q * n * ns, &bns);
    }
    for (PetscInt q = 0; q < ncell; q++)
      for (PetscInt c = 0; c < n; c++)
        for (PetscInt p = 0; p < ns; p++) {
          const PetscInt e = hf->slotE[q * ns + p];
          if (e >= 0) Z[nC + e + c * ld] -= W[p + ((size_t)q * n + c) * ns];
        }
  } else {
    /* float store: the Z_I columns scaled and rounded as C^-1's inputs, then W = sFA s1 FA^ Z^ */
    const float one = 1.0f, zero = 0.0f;
    float      *s1 = hf->pack + (size_t)nb * ncols;
    for (PetscInt q = 0; q < ncell; q++)
      for (PetscInt c = 0; c < n; c++) {
        const PetscScalar *z = Z + base + q * nb + c * ld;
        const size_t       col = (size_t)q * n + c;
        s1[col]                = ColumnScale(hf, z);
        for (PetscInt l = 0; l < nb; l++) hf->pack[col * nb + l] = PCHFEMRoundInput_Private(hf, (float)(PetscRealPart(z[l]) / s1[col]));
      }
    sgemm_("N", "N", &bns, &bc, &bnb, &one, hf->FAf, &bns, hf->pack, &bnb, &zero, hf->packout, &bns);
    for (PetscInt q = 0; q < ncell; q++)
      for (PetscInt c = 0; c < n; c++) {
        const size_t col = (size_t)q * n + c;
        for (PetscInt p = 0; p < ns; p++) {
          const PetscInt e = hf->slotE[q * ns + p];
          if (e >= 0) Z[nC + e + c * ld] -= hf->sFA * (PetscReal)s1[col] * (PetscReal)hf->packout[col * ns + p];
        }
      }
  }
  PetscCall(PetscLogFlops(2.0 * ns * nb * ncols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y_I = [C_1^-1 | -G/alpha] [Z_I; alpha Y_E at the slots] for every macro cell (Z, Y: set order, n columns, ld) */
PetscErrorCode PCHFEMFoldBack_Host(PC pc, PetscInt n, const PetscScalar *Z, PetscScalar *Y, PetscInt ld)
{
  PC_HFEM       *hf = (PC_HFEM *)pc->data;
  const PetscInt nb = hf->nb, ns = hf->ns, ncell = hf->ncell, nC = hf->nC, base = hf->nC + hf->nE, K = nb + ns, ncols = ncell * n;
  PetscBLASInt   bnb, bK, bc;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(nb, &bnb));
  PetscCall(PetscBLASIntCast(K, &bK));
  PetscCall(PetscBLASIntCast(ncols, &bc));
  if (hf->FB) {
    /* double: the packed columns in a double work array (no scaling, no rounding) */
    const PetscScalar one = 1.0, zero = 0.0;
    PetscScalar      *P, *O;
    PetscCall(PetscMalloc2((size_t)K * ncols + 1, &P, (size_t)nb * ncols + 1, &O));
    for (PetscInt q = 0; q < ncell; q++)
      for (PetscInt c = 0; c < n; c++) {
        PetscScalar *col = P + ((size_t)q * n + c) * K;
        PetscCall(PetscArraycpy(col, Z + base + q * nb + c * ld, nb));
        for (PetscInt p = 0; p < ns; p++) {
          const PetscInt e = hf->slotE[q * ns + p];
          col[nb + p]      = e >= 0 ? hf->alpha * Y[nC + e + c * ld] : 0.0;
        }
      }
    BLASgemm_("N", "N", &bnb, &bc, &bK, &one, hf->FB, &bnb, P, &bK, &zero, O, &bnb);
    for (PetscInt q = 0; q < ncell; q++)
      for (PetscInt c = 0; c < n; c++) PetscCall(PetscArraycpy(Y + base + q * nb + c * ld, O + ((size_t)q * n + c) * nb, nb));
    PetscCall(PetscFree2(P, O));
  } else {
    const float one = 1.0f, zero = 0.0f;
    float      *sc;
    PetscCall(PackRoom(hf, (size_t)K * ncols + ncols));
    sc = hf->pack + (size_t)K * ncols;
    for (PetscInt q = 0; q < ncell; q++)
      for (PetscInt c = 0; c < n; c++) {
        const PetscScalar *z   = Z + base + q * nb + c * ld;
        const size_t       col = (size_t)q * n + c;
        float              s1 = ColumnScale(hf, z), my = 0.0f, r = 1.0f;
        float             *pk = hf->pack + col * K;
        for (PetscInt p = 0; p < ns; p++) {
          const PetscInt e = hf->slotE[q * ns + p];
          if (e >= 0) my = PetscMax(my, (float)PetscAbsScalar(hf->alpha * Y[nC + e + c * ld]));
        }
        if (hf->precision == PC_HFEM_HALF || hf->precision == PC_HFEM_BFLOAT16) r = FoldRescale(my, s1);
        sc[col] = s1 * r;
        for (PetscInt l = 0; l < nb; l++) pk[l] = PCHFEMRoundInput_Private(hf, (float)(PetscRealPart(z[l]) / sc[col]));
        for (PetscInt p = 0; p < ns; p++) {
          const PetscInt e = hf->slotE[q * ns + p];
          pk[nb + p]       = e >= 0 ? PCHFEMRoundInput_Private(hf, (float)(PetscRealPart(hf->alpha * Y[nC + e + c * ld]) / sc[col])) : 0.0f;
        }
      }
    sgemm_("N", "N", &bnb, &bc, &bK, &one, hf->FBf, &bnb, hf->pack, &bK, &zero, hf->packout, &bnb);
    for (PetscInt q = 0; q < ncell; q++)
      for (PetscInt c = 0; c < n; c++) {
        const size_t col = (size_t)q * n + c;
        PetscScalar *y   = Y + base + q * nb + c * ld;
        for (PetscInt l = 0; l < nb; l++) y[l] = hf->sFB * (PetscReal)sc[col] * (PetscReal)hf->packout[col * nb + l];
      }
  }
  PetscCall(PetscLogFlops(2.0 * nb * K * ncols));
  PetscFunctionReturn(PETSC_SUCCESS);
}
