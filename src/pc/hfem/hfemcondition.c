/* Condition numbers of PCHFEM's blocks without their dense inverses: kappa(C_i) and kappa(Pi) ([RTRZ21] Table 1) from
   the Lanczos process inside CG (the extreme eigenvalue estimates of KSPComputeExtremeSingularValues()) on the sparse
   prehandled blocks. Pi = E - D C^-1 D^T - B^T B is applied as an operator: C^-1 by an inner CG on the block-diagonal
   I-I block (kappa at most about 40, so to 1e-14 in well under 200 iterations) and B = L_C^-1 Ap_CE by a product and two
   triangular solves. For the sizes where the dense eigenproblems of -pc_hfem_condition are out of reach. */
#include "hfemimpl.h"
#include <petscblaslapack.h>

typedef struct {
  Mat          E, D;   /* E-E block (nE x nE), E-I block (nE x nI) */
  KSP          cinv;   /* CG on the I-I block */
  PetscScalar *LC, *G; /* Cholesky factor of the C-C block (nC x nC), Ap_CE (nC x nE) */
  PetscInt     nC, nE;
  Vec          wI, zI, wE;
  PetscScalar *wC;
} PiShell;

static PetscErrorCode PiMult(Mat P, Vec x, Vec y)
{
  PiShell          *ps;
  const PetscScalar one = 1.0, zero = 0.0;
  PetscBLASInt      bnC, bnE, inc = 1;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ps));
  PetscCall(MatMult(ps->E, x, y));
  PetscCall(MatMultTranspose(ps->D, x, ps->wI));
  PetscCall(KSPSolve(ps->cinv, ps->wI, ps->zI));
  PetscCall(MatMult(ps->D, ps->zI, ps->wE));
  PetscCall(VecAXPY(y, -1.0, ps->wE));
  if (ps->nC) {
    const PetscScalar *xa;
    PetscScalar       *wa;
    PetscCall(PetscBLASIntCast(ps->nC, &bnC));
    PetscCall(PetscBLASIntCast(ps->nE, &bnE));
    PetscCall(VecGetArrayRead(x, &xa));
    BLASgemv_("N", &bnC, &bnE, &one, ps->G, &bnC, xa, &inc, &zero, ps->wC, &inc); /* Ap_CE x */
    PetscCall(VecRestoreArrayRead(x, &xa));
    BLAStrsm_("L", "L", "N", "N", &bnC, &inc, &one, ps->LC, &bnC, ps->wC, &bnC); /* B x */
    BLAStrsm_("L", "L", "T", "N", &bnC, &inc, &one, ps->LC, &bnC, ps->wC, &bnC);
    PetscCall(VecGetArray(ps->wE, &wa));
    BLASgemv_("T", &bnC, &bnE, &one, ps->G, &bnC, ps->wC, &inc, &zero, wa, &inc); /* B^T B x */
    PetscCall(VecRestoreArray(ps->wE, &wa));
    PetscCall(VecAXPY(y, -1.0, ps->wE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the extreme eigenvalues' ratio of the SPD operator A from CG on a random right-hand side to a tight tolerance */
static PetscErrorCode LanczosCondition(Mat A, const char *prefix, PetscReal *kappa)
{
  KSP         ksp;
  PC          pc;
  Vec         b, x;
  PetscRandom rnd;
  PetscReal   emax, emin;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-300, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetComputeSingularValues(ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPComputeExtremeSingularValues(ksp, &emax, &emin));
  *kappa = emax / emin;
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCHFEMEstimateConditions - estimates kappa(C_i) and kappa(Pi) of PCHFEM's blocks for a macro level by Lanczos on the
   sparse blocks, without the dense inverses (so for the fine grids of [RTRZ21] Table 1 where `-pc_hfem_condition`'s dense
   eigenproblems are out of reach)

   Collective on one rank

   Input Parameters:
+  pc - a PC of type hfem with its brick (PCSetDM() or KSPSetDM()), a 2D Q1 laplace brick on one rank
-  macro_level - the level of the brick's hierarchy that is the macro grid

   Output Parameters:
+  kappaC - the spectral condition number of one macro cell's prehandled I-I block C_i
-  kappaPi - that of the Schur complement Pi

   Notes:
   The estimates are the extreme Ritz values of CG (PCNONE, relative tolerance 1e-12, options prefix -hfem_kappa_C_ and
   -hfem_kappa_Pi_) on a random right-hand side; the inner solves with C use CG to 1e-14 (prefix -hfem_kappa_inner_).
   They agree with LAPACK's to 4 digits on the grids where both run (tests/test_hfem).

   Level: advanced

.seealso: `PCHFEM`, `PCHFEMGetCounts()`
@*/
PetscErrorCode PCHFEMEstimateConditions(PC pc, PetscInt macro_level, PetscReal *kappaC, PetscReal *kappaPi)
{
  PC_HFEM    *save, tmp;
  DM_Brick   *brick;
  PetscBool   is;
  Mat         A, CII, C1, P;
  PCHFEMParts parts;
  PiShell     ps;
  IS          is1;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHFEM, &is));
  PetscCheck(is, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCHFEMEstimateConditions() needs a PC of type hfem");
  PetscCheck(pc->dm, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCHFEMEstimateConditions(): give the PC its brick first (PCSetDM() or KSPSetDM())");
  PetscCall(PetscObjectTypeCompare((PetscObject)pc->dm, DMBRICK, &is));
  PetscCheck(is, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCHFEMEstimateConditions(): the PC's DM is not a brick");
  brick = (DM_Brick *)pc->dm->data;
  PetscCheck(brick->dim == 2 && brick->degree == 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCHFEMEstimateConditions(): 2D Q1 bricks only (-dm_brick_dim 2 -dm_brick_degree 1)");
  PetscCheck(macro_level < brick->level && brick->cells[0] % ((PetscInt)1 << (brick->level - macro_level)) == 0 && brick->cells[1] % ((PetscInt)1 << (brick->level - macro_level)) == 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "PCHFEMEstimateConditions(): macro level %" PetscInt_FMT " is not a coarser level of the %" PetscInt_FMT " x %" PetscInt_FMT " cells of level %" PetscInt_FMT, macro_level, brick->cells[0], brick->cells[1], brick->level);
  PetscCall(DMBrickCreateOperator(pc->dm, MATAIJ, &A));
  /* the sparse setup on a scratch copy, as a setup would make it */
  PetscCall(PetscMemzero(&tmp, sizeof(tmp)));
  tmp.nx        = brick->cells[0];
  tmp.ny        = brick->cells[1];
  tmp.level     = brick->level;
  tmp.m         = macro_level;
  tmp.s         = (PetscInt)1 << (brick->level - macro_level);
  tmp.prehandle = PETSC_TRUE;
  save          = (PC_HFEM *)pc->data;
  pc->data      = &tmp;
  PetscCall(PCHFEMSetUpSets_Private(pc));
  PetscCall(PCHFEMSetUpTransform_Private(pc, A, &parts, &CII));
  pc->data = save;
  PetscCall(MatDestroy(&A));

  /* kappa(C_i): the first macro cell's block */
  PetscCall(ISCreateStride(PETSC_COMM_SELF, tmp.nb, 0, 1, &is1));
  PetscCall(MatCreateSubMatrix(CII, is1, is1, MAT_INITIAL_MATRIX, &C1));
  PetscCall(ISDestroy(&is1));
  PetscCall(LanczosCondition(C1, "hfem_kappa_C_", kappaC));
  PetscCall(MatDestroy(&C1));

  /* kappa(Pi) */
  ps.nC = tmp.nC;
  ps.nE = tmp.nE;
  ps.LC = tmp.LC;
  ps.G  = tmp.B;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, tmp.nE, tmp.nE, 9, NULL, &ps.E));
  PetscCall(MatSetOption(ps.E, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt q = 0; q < parts.nnz; q++) PetscCall(MatSetValue(ps.E, parts.ei[q], parts.ej[q], parts.ev[q], ADD_VALUES));
  PetscCall(MatAssemblyBegin(ps.E, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(ps.E, MAT_FINAL_ASSEMBLY));
  {
    IS isE, isI;
    PetscCall(ISCreateStride(PETSC_COMM_SELF, tmp.nE, tmp.nC, 1, &isE));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, tmp.nI, tmp.nC + tmp.nE, 1, &isI));
    PetscCall(MatCreateSubMatrix(tmp.D, isE, isI, MAT_INITIAL_MATRIX, &ps.D));
    PetscCall(ISDestroy(&isE));
    PetscCall(ISDestroy(&isI));
  }
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ps.cinv));
  PetscCall(KSPSetOptionsPrefix(ps.cinv, "hfem_kappa_inner_"));
  PetscCall(KSPSetOperators(ps.cinv, CII, CII));
  PetscCall(KSPSetType(ps.cinv, KSPCG));
  {
    PC ipc;
    PetscCall(KSPGetPC(ps.cinv, &ipc));
    PetscCall(PCSetType(ipc, PCNONE));
  }
  PetscCall(KSPSetTolerances(ps.cinv, 1e-14, 1e-300, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetFromOptions(ps.cinv));
  PetscCall(MatCreateVecs(CII, &ps.wI, &ps.zI));
  PetscCall(MatCreateVecs(ps.E, &ps.wE, NULL));
  PetscCall(PetscMalloc1(tmp.nC + 1, &ps.wC));
  PetscCall(MatCreateShell(PETSC_COMM_SELF, tmp.nE, tmp.nE, tmp.nE, tmp.nE, &ps, &P));
  PetscCall(MatShellSetOperation(P, MATOP_MULT, (void (*)(void))PiMult));
  PetscCall(LanczosCondition(P, "hfem_kappa_Pi_", kappaPi));
  PetscCall(MatDestroy(&P));
  PetscCall(PetscFree(ps.wC));
  PetscCall(VecDestroy(&ps.wI));
  PetscCall(VecDestroy(&ps.zI));
  PetscCall(VecDestroy(&ps.wE));
  PetscCall(KSPDestroy(&ps.cinv));
  PetscCall(MatDestroy(&ps.E));
  PetscCall(MatDestroy(&ps.D));
  PetscCall(MatDestroy(&CII));
  PetscCall(PCHFEMPartsDestroy_Private(&parts));
  PetscCall(PetscFree3(tmp.idxC, tmp.idxE, tmp.idxI));
  PetscCall(PetscFree2(tmp.LC, tmp.B));
  PetscCall(MatDestroy(&tmp.T));
  PetscCall(MatDestroy(&tmp.Tt));
  PetscCall(MatDestroy(&tmp.D));
  PetscCall(MatDestroy(&tmp.Dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
