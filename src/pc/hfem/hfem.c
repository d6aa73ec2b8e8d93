/* PCHFEM ("hfem"): the prehandled hierarchical-basis Schur-complement direct solver of [RTRZ21] (method M1) for the 2D
   Q1 Poisson operator of a brick: the PC (options, setup, apply, view). The stages of a solve are in hfemimpl.h. */
#include "hfemimpl.h"
#include <petsctime.h>
#include <petscblaslapack.h>

const char *const PCHFEMPrecisions[] = {"double", "single", "half", "bfloat16", "PCHFEMPrecision", "PC_HFEM_", NULL};

static PetscErrorCode PCHFEMDestroyWork(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&hf->Z));
  PetscCall(MatDestroy(&hf->W));
  PetscCall(MatDestroy(&hf->W2));
  PetscCall(MatDestroy(&hf->Xo));
  PetscCall(MatDestroy(&hf->Bin));
  PetscCall(MatDestroy(&hf->Y));
  hf->wcols = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = A X (sparse times dense), set up once; MatProductNumeric() recomputes it */
static PetscErrorCode PCHFEMProduct(Mat A, Mat X, Mat *C)
{
  PetscFunctionBegin;
  PetscCall(MatProductCreate(A, X, NULL, C));
  PetscCall(MatProductSetType(*C, MATPRODUCT_AB));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MatProductSymbolic(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* everything a setup makes (not the options) */
static PetscErrorCode PCReset_HFEM_Data(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCHFEMDestroyWork(pc));
  PetscCall(PetscFree3(hf->idxC, hf->idxE, hf->idxI));
  PetscCall(PetscFree2(hf->LC, hf->B));
  PetscCall(MatDestroy(&hf->T));
  PetscCall(MatDestroy(&hf->Tt));
  PetscCall(MatDestroy(&hf->D));
  PetscCall(MatDestroy(&hf->Dt));
  PetscCall(PCHFEMResetTransform_Private(pc));
  PetscCall(PCHFEMResetFold_Private(pc));
  PetscCall(PCHFEMReset_Host(pc));
#if defined(VP_HAVE_CUDA)
  PetscCall(PCHFEMReset_Device(pc));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of one apply for macro level m: Pi^-1 (2 nE^2) and two applications of C^-1 (2 nb^2 per macro cell each) */
static PetscReal PCHFEMCost(PetscInt nx, PetscInt ny, PetscInt s)
{
  const PetscReal N = (PetscReal)(nx - 1) * (ny - 1), nC = (PetscReal)(nx / s - 1) * (ny / s - 1), nb = (PetscReal)(s - 1) * (s - 1), ncell = (PetscReal)(nx / s) * (ny / s);
  const PetscReal nE = N - nC - nb * ncell;

  return 2.0 * nE * nE + 4.0 * nb * nb * ncell;
}

/* the work of a solve for n columns: Bin, Y and the four products (hfemimpl.h), on the host or on the GPU */
static PetscErrorCode PCHFEMSetUpWork(PC pc, PetscInt n)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;
  PetscInt ldz, ldy;

  PetscFunctionBegin;
  if (hf->wcols == n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCHFEMDestroyWork(pc));
  if (hf->device) {
#if defined(VP_HAVE_CUDA)
    PetscCall(MatCreateSeqDenseCUDA(PETSC_COMM_SELF, hf->N, n, NULL, &hf->Bin));
    PetscCall(MatCreateSeqDenseCUDA(PETSC_COMM_SELF, hf->N, n, NULL, &hf->Y));
#endif
  } else {
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, hf->N, n, NULL, &hf->Bin));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, hf->N, n, NULL, &hf->Y));
  }
  PetscCall(MatZeroEntries(hf->Y));
  if (hf->stencil) {
    if (hf->device) {
#if defined(VP_HAVE_CUDA)
      PetscCall(MatCreateSeqDenseCUDA(PETSC_COMM_SELF, hf->N, n, NULL, &hf->Z));
      PetscCall(MatCreateSeqDenseCUDA(PETSC_COMM_SELF, hf->N, n, NULL, &hf->Xo));
#endif
    } else {
      PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, hf->N, n, NULL, &hf->Z));
      PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, hf->N, n, NULL, &hf->Xo));
    }
  } else {
    PetscCall(PCHFEMProduct(hf->T, hf->Bin, &hf->Z));
    PetscCall(PCHFEMProduct(hf->Tt, hf->Y, &hf->Xo));
  }
  if (hf->device) {
#if defined(VP_HAVE_CUDA)
    /* D and D^T update Z in place on the GPU (hfemdevice.c): W is the stencils' scratch */
    PetscCall(MatCreateSeqDenseCUDA(PETSC_COMM_SELF, hf->N, n, NULL, &hf->W));
#endif
  } else {
    PetscCall(PCHFEMProduct(hf->D, hf->Y, &hf->W));
    PetscCall(PCHFEMProduct(hf->Dt, hf->Y, &hf->W2));
  }
  PetscCall(MatDenseGetLDA(hf->Z, &ldz));
  PetscCall(MatDenseGetLDA(hf->Y, &ldy));
  PetscCheck(ldz == ldy, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCHFEM: work matrices with different leading dimensions");
  hf->wcols = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCHFEMSolveWork(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  if (hf->device) {
#if defined(VP_HAVE_CUDA)
    PetscCall(PCHFEMSolveStages_Device(pc));
#endif
  } else PetscCall(PCHFEMSolveStages_Host(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
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
  PetscCheck(!brick->forest, comm, PETSC_ERR_SUP, "PCHFEM on a forest brick (-dm_brick_remove, -dm_brick_periodic, -dm_brick_partition p4est) is not implemented: its macro cells and skeleton are those of a full box; allowed: a full box with -dm_brick_partition grid (the default)");
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(size == 1, comm, PETSC_ERR_SUP, "PCHFEM runs on one MPI rank in this version (got %d); run the solve on one rank", size);
  PetscCall(DMBrickOnDevice_Private(dm, &hf->device));
  hf->stencil = (PetscBool)(hf->prehandle && hf->transform == PC_HFEM_TRANSFORM_STENCIL);
  PetscCheck(!hf->tf32 || hf->precision == PC_HFEM_SINGLE, comm, PETSC_ERR_ARG_INCOMP, "-pc_hfem_tf32 is for -pc_hfem_precision single (got %s)", PCHFEMPrecisions[hf->precision]);
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
  {
    /* the dense blocks must be addressable: C_1 on both sides, Pi on the host (the GPU indexes it by size_t) */
    const PetscInt64 nb = (PetscInt64)(hf->s - 1) * (hf->s - 1), nE = (PetscInt64)2 * (hf->nx / hf->s) * (hf->ny / hf->s) * (hf->s - 1) - (PetscInt64)(hf->nx / hf->s + hf->ny / hf->s) * (hf->s - 1);
    PetscCheck(nb * nb < PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCHFEM: macro level %" PetscInt_FMT " makes C_i of order %" PetscInt64_FMT " (too many entries for one dense block); choose a finer -pc_hfem_macro_level", hf->m, nb);
    PetscCheck(hf->device || nE * nE < PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCHFEM: macro level %" PetscInt_FMT " makes Pi of order %" PetscInt64_FMT ", too large for the host's dense inverse; run on the GPU (-dm_vec_type cuda) or choose a coarser -pc_hfem_macro_level", hf->m, nE);
  }
  if (hf->dm != dm) {
    PetscCall(DMDestroy(&hf->dm));
    PetscCall(PetscObjectReference((PetscObject)dm));
    hf->dm = dm;
  }
  PetscCall(PCReset_HFEM_Data(pc));
  PetscCall(PCHFEMSetUpSets_Private(pc));
  /* the assembled nodal operator: Pmat if it is one, else the brick's */
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc->pmat, &assembled, MATSEQAIJ, MATAIJ, ""));
  if (assembled) {
    A = pc->pmat;
    PetscCall(PetscObjectReference((PetscObject)A));
  } else PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  {
    PCHFEMParts  parts;
    PetscScalar *Cinv;
    PetscLogDouble t0, t1, t2;
    PetscCall(PetscTime(&t0));
    PetscCall(PetscLogEventBegin(PC_HFEMTransform, pc, 0, 0, 0));
    PetscCall(PCHFEMSetUpTransform_Private(pc, A, &parts, NULL));
    PetscCall(PetscLogEventEnd(PC_HFEMTransform, pc, 0, 0, 0));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscInfo(pc, "PCHFEM setup: sparse transform and sets %.3f s\n", t1 - t0));
    PetscCall(PetscLogEventBegin(PC_HFEMInvert, pc, 0, 0, 0));
    if (hf->condition) PetscCall(PCHFEMCondition_Private(hf->nb, parts.C1, &hf->kappaC));
    PetscCall(PetscMalloc1(hf->nb * hf->nb + 1, &Cinv));
    PetscCall(PCHFEMSetUpCells_Private(pc, &parts, Cinv));
    if (hf->device) {
#if defined(VP_HAVE_CUDA)
      PetscCall(PCHFEMSetUpDense_Device(pc, &parts, Cinv));
      if (hf->T) PetscCall(MatConvert(hf->T, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &hf->T));
      if (hf->Tt) PetscCall(MatConvert(hf->Tt, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &hf->Tt));
      PetscCall(PCHFEMSetUpTransformDevice_Private(pc));
      PetscCall(PCHFEMSetUpCoupling_Device(pc));
#endif
    } else PetscCall(PCHFEMSetUpDense_Host(pc, &parts, Cinv));
    PetscCall(PCHFEMPartsDestroy_Private(&parts));
    PetscCall(PetscLogEventEnd(PC_HFEMInvert, pc, 0, 0, 0));
    PetscCall(PetscTime(&t2));
    PetscCall(PetscInfo(pc, "PCHFEM setup: dense inverses %.3f s (%s)\n", t2 - t1, hf->device ? "GPU" : "host"));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(PetscLogEventEnd(PC_HFEMSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the data of a setup on the GPU needs GPU vectors, on the host host vectors */
static PetscErrorCode PCHFEMCheckPlace(PC pc, PetscBool device, const char *what)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCheck(device == hf->device, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCHFEM was set up on the %s (the brick's -dm_vec_type) but got %s on the %s: use %s", hf->device ? "GPU" : "host", what, device ? "GPU" : "host",
             hf->device ? "CUDA vectors and MATDENSECUDA matrices" : "host vectors and matrices");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = A^-1 b by M1 (eq. 15-17) on the prehandled system: b~ = L^-1 S^T b, x = S L^-T x~ */
static PetscErrorCode PCApply_HFEM(PC pc, Vec b, Vec x)
{
  PC_HFEM  *hf = (PC_HFEM *)pc->data;
  PetscBool device;
  Vec       col;

  PetscFunctionBegin;
  PetscCall(DMBrickVecsOnDevice_Private(b, x, &device));
  PetscCall(PCHFEMCheckPlace(pc, device, "vectors"));
  PetscCall(PetscLogEventBegin(PC_HFEMApply, pc, b, x, 0));
  PetscCall(PCHFEMSetUpWork(pc, 1));
  PetscCall(MatDenseGetColumnVecWrite(hf->Bin, 0, &col));
  PetscCall(VecCopy(b, col));
  PetscCall(MatDenseRestoreColumnVecWrite(hf->Bin, 0, &col));
  PetscCall(PCHFEMSolveWork(pc));
  PetscCall(MatDenseGetColumnVecRead(hf->Xo, 0, &col));
  PetscCall(VecCopy(col, x));
  PetscCall(MatDenseRestoreColumnVecRead(hf->Xo, 0, &col));
  PetscCall(PetscLogEventEnd(PC_HFEMApply, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* many right-hand sides at once: the same stages with the right-hand sides as the columns of dense matrices, so each dense
   step is one GEMM (C^-1 on all macro cells of all right-hand sides at once, eq. 25) and each sparse one a sparse-dense
   product; at most -pc_hfem_columns columns per pass (the last pass padded with zero columns) */
static PetscErrorCode PCMatApply_HFEM(PC pc, Mat Bm, Mat Xm)
{
  PC_HFEM  *hf = (PC_HFEM *)pc->data;
  PetscInt  n, w, ldb, ldx;
  PetscBool device;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)Bm, &device, MATSEQDENSECUDA, MATMPIDENSECUDA, MATDENSECUDA, ""));
  PetscCall(PCHFEMCheckPlace(pc, device, "a right-hand side matrix"));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)Xm, &device, MATSEQDENSECUDA, MATMPIDENSECUDA, MATDENSECUDA, ""));
  PetscCall(PCHFEMCheckPlace(pc, device, "a solution matrix"));
  PetscCall(PetscLogEventBegin(PC_HFEMApply, pc, Bm, Xm, 0));
  PetscCall(MatGetSize(Bm, NULL, &n));
  w = PetscMin(n, hf->maxcols);
  PetscCall(MatDenseGetLDA(Bm, &ldb));
  PetscCall(MatDenseGetLDA(Xm, &ldx));
#if defined(VP_HAVE_CUDA)
  {
    PetscBool nm;
    PetscCall(PCHFEMNodeMajor_Device(pc, w, &nm));
    if (nm) {
      /* passes of w columns straight from B into X (no work matrices, no padding) */
      const PetscScalar *b;
      PetscScalar       *x;
      PetscCall(MatDenseCUDAGetArrayRead(Bm, &b));
      PetscCall(MatDenseCUDAGetArrayWrite(Xm, &x));
      for (PetscInt c0 = 0; c0 < n; c0 += w) PetscCall(PCHFEMSolveNodeMajor_Device(pc, PetscMin(n, c0 + w) - c0, b + c0 * ldb, ldb, x + c0 * ldx, ldx));
      PetscCall(MatDenseCUDARestoreArrayWrite(Xm, &x));
      PetscCall(MatDenseCUDARestoreArrayRead(Bm, &b));
      PetscCall(PetscLogEventEnd(PC_HFEMApply, pc, Bm, Xm, 0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(PCHFEMSetUpWork(pc, w));
  for (PetscInt c0 = 0; c0 < n; c0 += w) {
    const PetscInt c1 = PetscMin(n, c0 + w);
    Mat            in, out, win, wout;
    if (hf->stencil && c1 - c0 == w && ldb == hf->N && ldx == hf->N) {
      /* the stencils read the right-hand sides and write the solutions in place: no copies */
      const PetscScalar *b;
      PetscScalar       *x;
      if (hf->device) {
#if defined(VP_HAVE_CUDA)
        PetscCall(MatDenseCUDAGetArrayRead(Bm, &b));
        PetscCall(MatDenseCUDAGetArrayWrite(Xm, &x));
        PetscCall(MatDenseCUDAPlaceArray(hf->Bin, b + c0 * ldb));
        PetscCall(MatDenseCUDAPlaceArray(hf->Xo, x + c0 * ldx));
        PetscCall(PCHFEMSolveWork(pc));
        PetscCall(MatDenseCUDAResetArray(hf->Xo));
        PetscCall(MatDenseCUDAResetArray(hf->Bin));
        PetscCall(MatDenseCUDARestoreArrayWrite(Xm, &x));
        PetscCall(MatDenseCUDARestoreArrayRead(Bm, &b));
#endif
      } else {
        PetscCall(MatDenseGetArrayRead(Bm, &b));
        PetscCall(MatDenseGetArrayWrite(Xm, &x));
        PetscCall(MatDensePlaceArray(hf->Bin, b + c0 * ldb));
        PetscCall(MatDensePlaceArray(hf->Xo, x + c0 * ldx));
        PetscCall(PCHFEMSolveWork(pc));
        PetscCall(MatDenseResetArray(hf->Xo));
        PetscCall(MatDenseResetArray(hf->Bin));
        PetscCall(MatDenseRestoreArrayWrite(Xm, &x));
        PetscCall(MatDenseRestoreArrayRead(Bm, &b));
      }
      continue;
    }
    PetscCall(MatDenseGetSubMatrix(Bm, PETSC_DECIDE, PETSC_DECIDE, c0, c1, &in));
    PetscCall(MatDenseGetSubMatrix(hf->Bin, PETSC_DECIDE, PETSC_DECIDE, 0, c1 - c0, &win));
    PetscCall(MatCopy(in, win, SAME_NONZERO_PATTERN));
    PetscCall(MatDenseRestoreSubMatrix(hf->Bin, &win));
    PetscCall(MatDenseRestoreSubMatrix(Bm, &in));
    if (c1 - c0 < w) {
      PetscCall(MatDenseGetSubMatrix(hf->Bin, PETSC_DECIDE, PETSC_DECIDE, c1 - c0, w, &win));
      PetscCall(MatZeroEntries(win));
      PetscCall(MatDenseRestoreSubMatrix(hf->Bin, &win));
    }
    PetscCall(PCHFEMSolveWork(pc));
    PetscCall(MatDenseGetSubMatrix(Xm, PETSC_DECIDE, PETSC_DECIDE, c0, c1, &out));
    PetscCall(MatDenseGetSubMatrix(hf->Xo, PETSC_DECIDE, PETSC_DECIDE, 0, c1 - c0, &wout));
    PetscCall(MatCopy(wout, out, SAME_NONZERO_PATTERN));
    PetscCall(MatDenseRestoreSubMatrix(hf->Xo, &wout));
    PetscCall(MatDenseRestoreSubMatrix(Xm, &out));
  }
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
  PetscCall(PetscOptionsString("-pc_hfem_precision", "Precision of C_i^-1 and Pi^-1 and of their products: double, single, half, bfloat16 (GPU: cuBLAS, tensor cores for half and bfloat16; host: BLAS, half and bfloat16 emulated)", "PCHFEM", prec, prec, sizeof(prec), &set));
  if (set) {
    PetscBool found = PETSC_FALSE;
    for (PetscInt i = 0; i < 4 && !found; i++) {
      PetscCall(PetscStrcmp(prec, PCHFEMPrecisions[i], &found));
      if (found) {
        if (hf->precision != (PCHFEMPrecision)i) pc->setupcalled = 0;
        hf->precision = (PCHFEMPrecision)i;
      }
    }
    PetscCheck(found, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_UNKNOWN_TYPE, "-pc_hfem_precision %s: unknown value; allowed: double, single, half, bfloat16", prec);
  }
  {
    PetscBool tf32 = hf->tf32, pre = hf->prehandle;
    PetscCall(PetscOptionsBool("-pc_hfem_tf32", "With -pc_hfem_precision single: TF32 tensor cores (GPU; emulated on the host)", "PCHFEM", tf32, &tf32, NULL));
    PetscCall(PetscOptionsBool("-pc_hfem_prehandle", "Hierarchical basis and prehandling (false: the same block elimination on the nodal system, the reference of [RTRZ21] Fig. 5)", "PCHFEM", pre, &pre, NULL));
    if (tf32 != hf->tf32 || pre != hf->prehandle) pc->setupcalled = 0;
    hf->tf32      = tf32;
    hf->prehandle = pre;
  }
  {
    PetscBool cond = hf->condition;
    PetscCall(PetscOptionsBool("-pc_hfem_condition", "Compute kappa(C_i) and kappa(Pi) at setup (LAPACK; kappa(Pi) by cuSOLVER on the GPU) and show them in PCView", "PCHFEM", cond, &cond, NULL));
    if (cond && !hf->condition) pc->setupcalled = 0; /* a setup computes them */
    hf->condition = cond;
  }
  PetscCall(PetscOptionsBool("-pc_hfem_fused", "GPU node-major solve: the hierarchical transform, set order, scaling and packing of C^-1's input done macro cell by macro cell in shared memory (macro cells of up to 64 x 64 fine cells in double and single, 128 x 128 in half and bfloat16; larger ones stay level by level, PCView says which); false: level by level over the whole grid", "PCHFEM", hf->fused, &hf->fused, NULL));
  {
    PetscBool fold = hf->fold;
    PetscCall(PetscOptionsBool("-pc_hfem_fold", "Fold the E-I couplings D, D^T into the C^-1 products (G = C_1^-1 D_s^T: a product with 4 s rows for D C^-1 Z_I, and [C_1^-1 | -G] on [Z_I; Y_E] for the back substitution; host, and the GPU's fused passes); false: sparse products with D and D^T", "PCHFEM", fold, &fold, NULL));
    if (fold != hf->fold) pc->setupcalled = 0;
    hf->fold = fold;
  }
  PetscCall(PetscOptionsBool("-pc_hfem_node_major", "GPU with the stencil transform and 8 or more right-hand sides per pass: the whole solve on node-major work arrays (each node's right-hand-side values contiguous); false: column-major work and separate stages", "PCHFEM", hf->nodemajor, &hf->nodemajor, NULL));
  {
    PetscBool timers = hf->timers;
    PetscCall(PetscOptionsBool("-pc_hfem_gpu_timers", "GPU: time each step of the dense stages (synchronizes after each: for profiles); printed by PCView and when the PC is reset", "PCHFEM", timers, &timers, NULL));
    if (timers != hf->timers) pc->setupcalled = 0;
    hf->timers = timers;
  }
  {
    PetscInt t = (PetscInt)hf->transform;
    PetscBool set;
    PetscCall(PetscOptionsEList("-pc_hfem_transform", "How the hierarchical transform T = diag P S^T and T^T are applied: stencil (level by level, eq. 3) or sparse (explicit matrices; always with -pc_hfem_prehandle false)", "PCHFEM", PCHFEMTransforms, 2, PCHFEMTransforms[t], &t, &set));
    PetscCheck(!set || t != PC_HFEM_TRANSFORM_STENCIL || hf->prehandle, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP, "-pc_hfem_transform stencil needs the hierarchical basis (the nodal variant of -pc_hfem_prehandle false has no level factors); use -pc_hfem_transform sparse or leave it unset");
    if ((PCHFEMTransform)t != hf->transform) pc->setupcalled = 0;
    hf->transform = (PCHFEMTransform)t;
  }
  PetscCall(PetscOptionsInt("-pc_hfem_columns", "Right-hand sides per pass of PCMatApply (KSPMatSolve): the work holds about 5 N (GPU) or 6 N (host) doubles per column", "PCHFEM", hf->maxcols, &hf->maxcols, NULL));
  PetscCheck(hf->maxcols >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_hfem_columns %" PetscInt_FMT ": allowed >= 1", hf->maxcols);
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
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %s Schur complement, method M1 [RTRZ21], on the %s; C_i^-1 and Pi^-1 in %s%s%s\n", hf->prehandle ? "prehandled hierarchical-basis" : "nodal-basis (no prehandling)", hf->device ? "GPU" : "host", PCHFEMPrecisions[hf->precision],
                                   hf->tf32 ? " (TF32)" : "", hf->device ? (hf->precision >= PC_HFEM_HALF ? " (tensor cores, float accumulation)" : "") : (hf->precision >= PC_HFEM_HALF || hf->tf32 ? " (emulated: rounded inputs, float products)" : "")));
  if (!hf->dm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  fine grid %" PetscInt_FMT " x %" PetscInt_FMT " cells (level %" PetscInt_FMT "), macro grid level %" PetscInt_FMT " (%" PetscInt_FMT " x %" PetscInt_FMT " macro cells of %" PetscInt_FMT " x %" PetscInt_FMT " cells)\n", hf->nx, hf->ny,
                                   hf->level, hf->m, hf->nx / hf->s, hf->ny / hf->s, hf->s, hf->s));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  node sets: |C| = %" PetscInt_FMT ", |E| = %" PetscInt_FMT ", |I| = %" PetscInt_FMT " (%" PetscInt_FMT " per macro cell)\n", hf->nC, hf->nE, hf->nI, hf->nb));
  {
    const double bytes = hf->precision == PC_HFEM_DOUBLE ? 8 : (hf->precision == PC_HFEM_SINGLE || !hf->device ? 4 : 2);
    PetscCall(PetscViewerASCIIPrintf(viewer, "  dense blocks: C_1^-1 %" PetscInt_FMT " x %" PetscInt_FMT " (%.3g MB), Pi^-1 %" PetscInt_FMT " x %" PetscInt_FMT " (%.3g MB), B %" PetscInt_FMT " x %" PetscInt_FMT " (%.3g MB, double)\n", hf->nb, hf->nb,
                                     hf->nb * (double)hf->nb * bytes / 1e6, hf->nE, hf->nE, hf->nE * (double)hf->nE * bytes / 1e6, hf->nC, hf->nE, hf->nC * (double)hf->nE * sizeof(PetscScalar) / 1e6));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  hierarchical transform: %s\n", hf->stencil ? "level-wise stencils (-pc_hfem_transform stencil)" : "sparse matrices T, T^T"));
#if defined(VP_HAVE_CUDA)
  if (hf->device) {
    PetscBool fused = PETSC_FALSE;
    PetscCall(PCHFEMFused_Device(pc, &fused));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU work arrays: %s%s\n", hf->stencil && hf->nodemajor ? "node-major for 8 or more columns per pass, one call each (-pc_hfem_node_major)" : "column-major, separate stages",
                                     !(hf->stencil && hf->nodemajor) ? "" : (fused ? "; transform and packing fused per macro cell (-pc_hfem_fused)" : (hf->fused && hf->gpu ? "; transform level by level (a macro cell's closure does not fit the shared memory)" : "; transform level by level (-pc_hfem_fused false)"))));
  }
#endif
  if (hf->folded) {
    PetscBool where = (PetscBool)!hf->device;
#if defined(VP_HAVE_CUDA)
    if (hf->device) PetscCall(PCHFEMFused_Device(pc, &where));
#endif
    PetscCall(PetscViewerASCIIPrintf(viewer, "  E-I couplings: %s (-pc_hfem_fold): G = C_1^-1 D_s^T over the %" PetscInt_FMT " boundary slots of a macro cell (D_s^T has %" PetscInt_FMT " entries), alpha = %g\n",
                                     where ? (hf->device ? "folded into the C^-1 products of the fused passes (8 or more columns; fewer: sparse D, D^T)" : "folded into the C^-1 products") : "sparse D, D^T (the GPU folds them only in the fused passes)", hf->ns, hf->nnzDs, (double)hf->alpha));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "  E-I couplings: sparse D, D^T%s\n", hf->fold ? " (the macro cells' couplings differ: not folded)" : " (-pc_hfem_fold false)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  many right-hand sides: up to %" PetscInt_FMT " per pass (-pc_hfem_columns)\n", hf->maxcols));
#if defined(VP_HAVE_CUDA)
  if (hf->device) PetscCall(PCHFEMViewTimes_Device(pc, viewer));
#endif
  if (hf->condition) PetscCall(PetscViewerASCIIPrintf(viewer, "  kappa(C_1) = %.4g, kappa(Pi) = %.4g (%s, at setup)\n", (double)hf->kappaC, (double)hf->kappaPi, hf->device ? "LAPACK, cuSOLVER" : "LAPACK"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_HFEM(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCReset_HFEM_Data(pc));
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

/*@
   PCHFEMGetFolded - whether a set-up PCHFEM folded the E-I couplings into its C^-1 products (-pc_hfem_fold)

   Not Collective

   Input Parameter:
.  pc - a set-up PC of type hfem

   Output Parameters:
+  folded - whether the couplings are folded (false: -pc_hfem_fold false, no E nodes, or macro cells whose couplings differ)
-  entries - the entries of the boundary block D_s^T shared by all macro cells (0 when not folded); may be NULL

   Notes:
   The host folds in every solve; the GPU folds in its fused node-major passes (8 or more right-hand sides per pass,
   -pc_hfem_fused) and uses the sparse D, D^T otherwise.

   Level: advanced

.seealso: `PCHFEM`, `PCHFEMGetSets()`
@*/
PetscErrorCode PCHFEMGetFolded(PC pc, PetscBool *folded, PetscInt *entries)
{
  PetscBool is;
  PC_HFEM  *hf;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHFEM, &is));
  PetscCheck(is, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCHFEMGetFolded() needs a PC of type hfem");
  PetscCheck(pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCHFEMGetFolded(): call PCSetUp() first");
  hf = (PC_HFEM *)pc->data;
  if (folded) *folded = hf->folded;
  if (entries) *entries = hf->nnzDs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCHFEMGetConditions - the condition numbers kappa(C_i) and kappa(Pi) computed at setup with -pc_hfem_condition

   Not Collective

   Input Parameter:
.  pc - a set-up PC of type hfem

   Output Parameters:
+  kappaC - kappa of one macro cell's prehandled I-I block (LAPACK)
-  kappaPi - kappa of the Schur complement Pi (LAPACK on the host, cuSOLVER on the GPU)

   Level: intermediate

.seealso: `PCHFEM`, `PCHFEMEstimateConditions()`
@*/
PetscErrorCode PCHFEMGetConditions(PC pc, PetscReal *kappaC, PetscReal *kappaPi)
{
  PetscBool is;
  PC_HFEM  *hf;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHFEM, &is));
  PetscCheck(is, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCHFEMGetConditions() needs a PC of type hfem");
  hf = (PC_HFEM *)pc->data;
  PetscCheck(pc->setupcalled && hf->condition, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCHFEMGetConditions(): set up the PC with -pc_hfem_condition first");
  if (kappaC) *kappaC = hf->kappaC;
  if (kappaPi) *kappaPi = hf->kappaPi;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCHFEMGetCounts - the sizes of the node sets PCHFEM would use for a given macro level, without setting it up (the
   counts behind [RTRZ21] Tables 1-3: storage and flops of the dense blocks)

   Not Collective

   Input Parameters:
+  pc - a PC of type hfem whose DM (PCSetDM() or KSPSetDM()) is a set-up 2D brick
-  macro_level - the level of the brick's hierarchy that is the macro grid (below the brick's own)

   Output Parameters:
+  nC - nodes of the macro grid
.  nE - nodes on macro edges
.  nI - nodes inside macro cells
-  nb - nodes inside one macro cell (the order of C_i)

   Level: intermediate

.seealso: `PCHFEM`, `PCHFEMGetSets()`
@*/
PetscErrorCode PCHFEMGetCounts(PC pc, PetscInt macro_level, PetscInt *nC, PetscInt *nE, PetscInt *nI, PetscInt *nb)
{
  PetscBool is;
  DM_Brick *brick;
  PC_HFEM  *hf, tmp;
  PC_HFEM  *save;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHFEM, &is));
  PetscCheck(is, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCHFEMGetCounts() needs a PC of type hfem");
  PetscCheck(pc->dm, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCHFEMGetCounts(): give the PC its brick first (PCSetDM() or KSPSetDM())");
  PetscCall(PetscObjectTypeCompare((PetscObject)pc->dm, DMBRICK, &is));
  PetscCheck(is, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCHFEMGetCounts(): the PC's DM is not a brick");
  brick = (DM_Brick *)pc->dm->data;
  PetscCheck(brick->dim == 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCHFEMGetCounts(): -dm_brick_dim %" PetscInt_FMT "; allowed: 2", brick->dim);
  PetscCheck(macro_level < brick->level && brick->cells[0] % ((PetscInt)1 << (brick->level - macro_level)) == 0 && brick->cells[1] % ((PetscInt)1 << (brick->level - macro_level)) == 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "PCHFEMGetCounts(): macro level %" PetscInt_FMT " is not a coarser level of the %" PetscInt_FMT " x %" PetscInt_FMT " cells of level %" PetscInt_FMT, macro_level, brick->cells[0], brick->cells[1], brick->level);
  hf = (PC_HFEM *)pc->data;
  /* the sets of the setup, made on a scratch copy so that a set-up PC keeps its own */
  PetscCall(PetscMemzero(&tmp, sizeof(tmp)));
  tmp.nx    = brick->cells[0];
  tmp.ny    = brick->cells[1];
  tmp.level = brick->level;
  tmp.m     = macro_level;
  tmp.s     = (PetscInt)1 << (brick->level - macro_level);
  save      = hf;
  pc->data  = &tmp;
  PetscCall(PCHFEMSetUpSets_Private(pc));
  pc->data = save;
  if (nC) *nC = tmp.nC;
  if (nE) *nE = tmp.nE;
  if (nI) *nI = tmp.nI;
  if (nb) *nb = tmp.nb;
  PetscCall(PetscFree3(tmp.idxC, tmp.idxE, tmp.idxI));
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
.  -pc_hfem_precision <double>     - precision of C_i^-1, Pi^-1 and their products: double, single, half, bfloat16
.  -pc_hfem_tf32                   - with single: TF32 tensor cores
.  -pc_hfem_prehandle <true>        - false: the same elimination on the nodal system (no hierarchical basis, no scaling)
.  -pc_hfem_columns <256>          - right-hand sides per pass of KSPMatSolve()
.  -pc_hfem_transform <stencil>    - the hierarchical transform as level-wise stencils, or sparse (the explicit matrices)
.  -pc_hfem_node_major <true>      - GPU with the stencils: the whole solve on node-major work arrays (false: column-major stages)
.  -pc_hfem_fused <true>           - node-major GPU solve: transform and packing macro cell by macro cell in shared memory (false: level by level)
.  -pc_hfem_fold <true>            - fold the E-I couplings into the C^-1 products (host, and the GPU's fused passes; false: sparse D, D^T)
.  -pc_hfem_gpu_timers             - GPU: time the steps of the dense stages (for profiles; printed by PCView and at reset)
-  -pc_hfem_condition              - compute kappa(C_1) and kappa(Pi) at setup and show them in PCView

   Notes:
   Use -ksp_type preonly -pc_type hfem for a direct solve, or as the preconditioner of CG/FGMRES, or as the coarse solver
   of PCMG (-mg_coarse_pc_type hfem). Needs -dm_brick_dim 2 -dm_brick_degree 1 -dm_brick_operator laplace, a brick
   refined at least once and one MPI rank (each is checked with an error naming the option). With -dm_vec_type cuda
   everything runs on the GPU: the transform and the E-I couplings as CUDA kernels, C_i^-1 and Pi^-1 through cuBLAS (half and bfloat16
   on the tensor cores with float accumulation, each right-hand side column scaled by its largest entry), Pi assembled
   and inverted by cuSOLVER. On the host double and single use BLAS; half, bfloat16 and TF32 are emulated (the stored
   inverses and the scaled inputs rounded to the format, products in float), so results match the GPU's to rounding.
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
  hf->prehandle            = PETSC_TRUE;
  hf->maxcols              = 256;
  hf->nodemajor            = PETSC_TRUE;
  hf->fused                = PETSC_TRUE;
  hf->fold                 = PETSC_TRUE;
  hf->alpha                = 1.0;
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
