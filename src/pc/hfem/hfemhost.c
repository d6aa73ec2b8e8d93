/* PCHFEM's dense stages on the host (see hfemimpl.h): the store of C_1^-1 and Pi^-1 in the chosen precision and the
   products with them by BLAS. Double uses dgemm; single uses sgemm; half and bfloat16 are emulated: the stored inverses
   and each right-hand side column (scaled by its largest entry, as on the GPU) are rounded to the format's significand
   (11 bits for half with its subnormal range, 8 for bfloat16; TF32: 11), then multiplied in float, as the tensor cores
   multiply 16-bit inputs with float accumulation. */
#include "hfemimpl.h"
#include "hfemround.h"
#include <petscblaslapack.h>

/* PETSc's BLAS macros name the routines of PetscScalar only */
PETSC_EXTERN void sgemm_(const char *, const char *, const PetscBLASInt *, const PetscBLASInt *, const PetscBLASInt *, const float *, const float *, const PetscBLASInt *, const float *, const PetscBLASInt *, const float *, float *, const PetscBLASInt *);

/* the rounding of the inputs of a product: none (double, single), TF32, half (past its largest finite value, 65504:
   infinite, as the GPU's conversion), bfloat16 */
float PCHFEMRoundInput_Private(PC_HFEM *hf, float v)
{
  switch (hf->precision) {
  case PC_HFEM_HALF:
    return PCHFEMRoundHalf(v);
  case PC_HFEM_BFLOAT16:
    return PCHFEMRoundBFloat16(v);
  default:
    return hf->tf32 ? PCHFEMRoundTF32(v) : v;
  }
}

/* a (nv entries, double, taken) as the store: itself for double, else a float copy of a / s rounded to the format */
PetscErrorCode PCHFEMStore_Private(PC pc, PetscInt nv, PetscScalar *a, PetscScalar **dstore, float **fstore, PetscReal *s)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  *s = 1.0;
  if (hf->precision == PC_HFEM_DOUBLE) {
    *dstore = a;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (hf->precision == PC_HFEM_HALF || hf->precision == PC_HFEM_BFLOAT16) {
    PetscReal m = 0.0;
    for (PetscInt q = 0; q < nv; q++) m = PetscMax(m, PetscAbsScalar(a[q]));
    *s = m > 0.0 ? m : 1.0;
  }
  PetscCall(PetscMalloc1(nv + 1, fstore));
  for (PetscInt q = 0; q < nv; q++) (*fstore)[q] = PCHFEMRoundInput_Private(hf, (float)(PetscRealPart(a[q]) / *s));
  PetscCall(PetscFree(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCHFEMSetUpDense_Host(PC pc, const PCHFEMParts *parts, PetscScalar *Cinv)
{
  PC_HFEM     *hf = (PC_HFEM *)pc->data;
  PetscScalar *Pi;

  PetscFunctionBegin;
  if (hf->nC && hf->nE) {
    const PetscScalar one = 1.0;
    PetscBLASInt      bnC, bnE;
    PetscCall(PetscBLASIntCast(hf->nC, &bnC));
    PetscCall(PetscBLASIntCast(hf->nE, &bnE));
    BLAStrsm_("L", "L", "N", "N", &bnC, &bnE, &one, hf->LC, &bnC, hf->B, &bnC); /* B = L_C^-1 Ap_CE */
  }
  PetscCall(PCHFEMStore_Private(pc, hf->nb * hf->nb, Cinv, &hf->Cinv, &hf->Cinvf, &hf->sC));
  PetscCall(PetscMalloc1(hf->nE * hf->nE + 1, &Pi));
  PetscCall(PCHFEMAssemblePi_Private(pc, parts, Pi));
  if (hf->condition) PetscCall(PCHFEMCondition_Private(hf->nE, Pi, &hf->kappaPi));
  PetscCall(PCHFEMInvertSPD_Private(hf->nE, Pi, "Pi"));
  PetscCall(PetscLogFlops((double)hf->nE * hf->nE * hf->nE + 2.0 * hf->nC * hf->nE * hf->nE));
  PetscCall(PCHFEMStore_Private(pc, hf->nE * hf->nE, Pi, &hf->Piinv, &hf->Piinvf, &hf->sPi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y (packed column c = g per + q at X + g ldx + q rows) = M X with M (rows x rows) the stored inverse */
static PetscErrorCode ApplyInverse(PC pc, const PetscScalar *Md, const float *Mf, PetscReal sM, PetscInt rows, PetscInt per, PetscInt groups, const PetscScalar *X, PetscInt ldx, PetscScalar *Y, PetscInt ldy)
{
  PC_HFEM       *hf    = (PC_HFEM *)pc->data;
  const PetscInt ncols = per * groups;
  PetscBLASInt   br, bc, bper;

  PetscFunctionBegin;
  if (!rows || !ncols) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(rows, &br));
  PetscCall(PetscBLASIntCast(per, &bper));
  PetscCall(PetscBLASIntCast(ncols, &bc));
  if (Md) {
    const PetscScalar one = 1.0, zero = 0.0;
    for (PetscInt g = 0; g < groups; g++) BLASgemm_("N", "N", &br, &bper, &br, &one, Md, &br, X + g * ldx, &br, &zero, Y + g * ldy, &br);
  } else {
    const PetscBool scaled = (PetscBool)(hf->precision == PC_HFEM_HALF || hf->precision == PC_HFEM_BFLOAT16);
    const size_t    need   = (size_t)rows * ncols + ncols;
    const float     one = 1.0f, zero = 0.0f;
    float          *colscale;
    if (need > hf->packcap) {
      PetscCall(PetscFree2(hf->pack, hf->packout));
      PetscCall(PetscMalloc2(need, &hf->pack, need, &hf->packout));
      hf->packcap = need;
    }
    colscale = hf->pack + (size_t)rows * ncols;
    for (PetscInt c = 0; c < ncols; c++) {
      const PetscScalar *x = X + (c / per) * ldx + (c % per) * rows;
      PetscReal          s = 1.0;
      if (scaled) {
        PetscReal m = 0.0;
        for (PetscInt r = 0; r < rows; r++) m = PetscMax(m, PetscAbsScalar(x[r]));
        s = m > 0.0 ? m : 1.0;
      }
      colscale[c] = (float)s;
      for (PetscInt r = 0; r < rows; r++) hf->pack[(size_t)c * rows + r] = PCHFEMRoundInput_Private(hf, (float)(PetscRealPart(x[r]) / s));
    }
    sgemm_("N", "N", &br, &bc, &br, &one, Mf, &br, hf->pack, &br, &zero, hf->packout, &br);
    for (PetscInt c = 0; c < ncols; c++) {
      PetscScalar *y = Y + (c / per) * ldy + (c % per) * rows;
      for (PetscInt r = 0; r < rows; r++) y[r] = sM * (PetscReal)colscale[c] * (PetscReal)hf->packout[(size_t)c * rows + r];
    }
  }
  PetscCall(PetscLogFlops(2.0 * rows * rows * ncols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Forward(PC pc, PetscInt n, PetscScalar *Z, PetscScalar *Y, PetscInt ld)
{
  PC_HFEM          *hf = (PC_HFEM *)pc->data;
  const PetscInt    nC = hf->nC, nE = hf->nE;
  const PetscScalar one = 1.0, mone = -1.0;
  PetscBLASInt      bnC, bnE, bn, bld;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(nC, &bnC));
  PetscCall(PetscBLASIntCast(nE, &bnE));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(ld, &bld));
  if (nC) BLAStrsm_("L", "L", "N", "N", &bnC, &bn, &one, hf->LC, &bnC, Z, &bld);
  if (hf->folded) PetscCall(PCHFEMFoldCouple_Host(pc, n, Z, ld)); /* Z_E -= D C^-1 Z_I, as G^T Z_I */
  else PetscCall(ApplyInverse(pc, hf->Cinv, hf->Cinvf, hf->sC, hf->nb, hf->ncell, n, Z + nC + nE, ld, Y + nC + nE, ld));
  if (nC && nE) BLASgemm_("T", "N", &bnE, &bn, &bnC, &mone, hf->B, &bnC, Z, &bld, &one, Z + nC, &bld);
  PetscCall(PetscLogFlops(n * (1.0 * nC * nC + 2.0 * nC * nE)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Middle(PC pc, PetscInt n, PetscScalar *Z, PetscScalar *Y, const PetscScalar *W, PetscInt ld)
{
  PC_HFEM          *hf = (PC_HFEM *)pc->data;
  const PetscInt    nC = hf->nC, nE = hf->nE;
  const PetscScalar one = 1.0, mone = -1.0;
  PetscBLASInt      bnC, bnE, bn, bld;

  PetscFunctionBegin;
  if (!nE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(nC, &bnC));
  PetscCall(PetscBLASIntCast(nE, &bnE));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(ld, &bld));
  if (W)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt e = nC; e < nC + nE; e++) Z[e + j * ld] -= W[e + j * ld];
  PetscCall(ApplyInverse(pc, hf->Piinv, hf->Piinvf, hf->sPi, nE, 1, n, Z + nC, ld, Y + nC, ld));
  if (nC) BLASgemm_("N", "N", &bnC, &bn, &bnE, &mone, hf->B, &bnC, Y + nC, &bld, &one, Z, &bld);
  PetscCall(PetscLogFlops(n * (2.0 * nC * nE + nE)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Backward(PC pc, PetscInt n, PetscScalar *Z, PetscScalar *Y, const PetscScalar *W, PetscInt ld)
{
  PC_HFEM          *hf = (PC_HFEM *)pc->data;
  const PetscInt    nC = hf->nC, nE = hf->nE, nI = hf->nI;
  const PetscScalar one = 1.0;
  PetscBLASInt      bnC, bn, bld;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(nC, &bnC));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(ld, &bld));
  if (nE && hf->folded) PetscCall(PCHFEMFoldBack_Host(pc, n, Z, Y, ld)); /* Y_I = C^-1 (Z_I - D^T Y_E) as [C^-1 | -G] */
  else if (nE) {
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = nC + nE; i < nC + nE + nI; i++) Z[i + j * ld] -= W[i + j * ld];
    PetscCall(ApplyInverse(pc, hf->Cinv, hf->Cinvf, hf->sC, hf->nb, hf->ncell, n, Z + nC + nE, ld, Y + nC + nE, ld));
  }
  if (nC) {
    BLAStrsm_("L", "L", "T", "N", &bnC, &bn, &one, hf->LC, &bnC, Z, &bld);
    for (PetscInt j = 0; j < n; j++) PetscCall(PetscArraycpy(Y + j * ld, Z + j * ld, nC));
  }
  PetscCall(PetscLogFlops(n * (1.0 * nC * nC + nI)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one solve of the columns of Bin into Xo (the products are set up for the work's column count) */
PetscErrorCode PCHFEMSolveStages_Host(PC pc)
{
  PC_HFEM           *hf = (PC_HFEM *)pc->data;
  PetscScalar       *z, *y;
  const PetscScalar *w = NULL;
  PetscInt           ld;

  PetscFunctionBegin;
  PetscCall(PCHFEMTransformForward_Private(pc));
  PetscCall(PetscLogEventBegin(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(MatDenseGetLDA(hf->Z, &ld));
  PetscCall(MatDenseGetArray(hf->Z, &z));
  PetscCall(MatDenseGetArray(hf->Y, &y));
  PetscCall(Forward(pc, hf->wcols, z, y, ld));
  PetscCall(MatDenseRestoreArray(hf->Y, &y));
  PetscCall(MatDenseRestoreArray(hf->Z, &z));
  PetscCall(PetscLogEventEnd(PC_HFEMApplyDense, pc, 0, 0, 0));
  if (!hf->folded) {
    PetscCall(PetscLogEventBegin(PC_HFEMApplyD, pc, 0, 0, 0));
    PetscCall(MatProductNumeric(hf->W));
    PetscCall(PetscLogEventEnd(PC_HFEMApplyD, pc, 0, 0, 0));
  }
  PetscCall(PetscLogEventBegin(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(MatDenseGetArray(hf->Z, &z));
  PetscCall(MatDenseGetArray(hf->Y, &y));
  if (!hf->folded) PetscCall(MatDenseGetArrayRead(hf->W, &w));
  PetscCall(Middle(pc, hf->wcols, z, y, hf->folded ? NULL : w, ld));
  if (!hf->folded) PetscCall(MatDenseRestoreArrayRead(hf->W, &w));
  PetscCall(MatDenseRestoreArray(hf->Y, &y));
  PetscCall(MatDenseRestoreArray(hf->Z, &z));
  PetscCall(PetscLogEventEnd(PC_HFEMApplyDense, pc, 0, 0, 0));
  if (!hf->folded) {
    PetscCall(PetscLogEventBegin(PC_HFEMApplyD, pc, 0, 0, 0));
    PetscCall(MatProductNumeric(hf->W2));
    PetscCall(PetscLogEventEnd(PC_HFEMApplyD, pc, 0, 0, 0));
  }
  PetscCall(PetscLogEventBegin(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(MatDenseGetArray(hf->Z, &z));
  PetscCall(MatDenseGetArray(hf->Y, &y));
  if (!hf->folded) PetscCall(MatDenseGetArrayRead(hf->W2, &w));
  PetscCall(Backward(pc, hf->wcols, z, y, hf->folded ? NULL : w, ld));
  if (!hf->folded) PetscCall(MatDenseRestoreArrayRead(hf->W2, &w));
  PetscCall(MatDenseRestoreArray(hf->Y, &y));
  PetscCall(MatDenseRestoreArray(hf->Z, &z));
  PetscCall(PetscLogEventEnd(PC_HFEMApplyDense, pc, 0, 0, 0));
  PetscCall(PCHFEMTransformBackward_Private(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCHFEMReset_Host(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(hf->Cinv));
  PetscCall(PetscFree(hf->Piinv));
  PetscCall(PetscFree(hf->Cinvf));
  PetscCall(PetscFree(hf->Piinvf));
  PetscCall(PetscFree2(hf->pack, hf->packout));
  hf->packcap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
