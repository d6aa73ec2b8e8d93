/* PCDENSEINVERSE ("denseinverse"): the exact solve of a small SPD system through its explicit inverse, made once by a dense
   Cholesky factorization (LAPACK potrf + potri on the host, cuSOLVER on the GPU) and applied as one symmetric
   matrix-vector product. Meant for PCMG's coarse solve when the fine levels run on the GPU: PETSc's sparse LU solves on
   the host (with a copy of the vector each way) took 68-72 ms a V-cycle for the 27,880 Q7 unknowns of a 3 x 5 x 6 coarse
   grid on an H200 machine, the same on one GPU and on four, and were the largest part of the four GPUs' overhead
   (bench/results/gpu-coarse-dense-h200-2026-11-26.md). One rank; on several, inside PCREDUNDANT. */
#include <petsc/private/pcimpl.h>
#include <petscblaslapack.h>
#include <petscvpatch.h>
#include "../../vpatchcompat.h"
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#  include <petscdevice_cuda.h>
#endif

typedef enum {
  PC_DENSEINVERSE_AUTO,
  PC_DENSEINVERSE_HOST,
  PC_DENSEINVERSE_DEVICE
} PCDenseInverseLocation;
static const char *const PCDenseInverseLocations[] = {"auto", "host", "device", "PCDenseInverseLocation", "PC_DENSEINVERSE_", NULL};

typedef struct {
  PCDenseInverseLocation location; /* what was asked */
  PetscBool              ondevice; /* where the inverse is (set up) */
  PetscInt               n, maxsize;
  PetscScalar           *inv; /* host: the inverse, n x n column-major, both triangles */
#if defined(VP_HAVE_CUDA)
  VPCudaDenseInverse dev;
#endif
  PetscLogDouble tsetup;
  PetscInt       hostcopies; /* applies of the device inverse to host vectors (PCREDUNDANT's), each a copy both ways */
} PC_DenseInverse;

static PetscErrorCode PCReset_DenseInverse(PC pc)
{
  PC_DenseInverse *di = (PC_DenseInverse *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(di->inv));
#if defined(VP_HAVE_CUDA)
  if (di->dev) {
    int err = VPCudaDenseInverseDestroy(&di->dev);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCDENSEINVERSE: CUDA error freeing the inverse: %s", VPCudaErrorString(err));
  }
#endif
  di->n          = 0;
  di->hostcopies = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the rows of the sequential matrix A as 0-based CSR arrays in int (the CUDA interface's index type) */
static PetscErrorCode DenseInverseCSR(Mat A, PetscInt n, int **ptr, int **col, PetscScalar **val)
{
  PetscInt64 nnz = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt nc;
    PetscCall(MatGetRow(A, i, &nc, NULL, NULL));
    nnz += nc;
    PetscCall(MatRestoreRow(A, i, &nc, NULL, NULL));
  }
  PetscCheck(nnz < 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCDENSEINVERSE: %" PetscInt64_FMT " nonzeros are too many for its 32-bit CSR", nnz);
  PetscCall(PetscMalloc3(n + 1, ptr, nnz + 1, col, nnz + 1, val));
  (*ptr)[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt           nc;
    const PetscInt    *c;
    const PetscScalar *v;
    PetscCall(MatGetRow(A, i, &nc, &c, &v));
    for (PetscInt j = 0; j < nc; j++) {
      (*col)[(*ptr)[i] + j] = (int)c[j];
      (*val)[(*ptr)[i] + j] = v[j];
    }
    (*ptr)[i + 1] = (*ptr)[i] + (int)nc;
    PetscCall(MatRestoreRow(A, i, &nc, &c, &v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_DenseInverse(PC pc)
{
  PC_DenseInverse *di = (PC_DenseInverse *)pc->data;
  PetscMPIInt      size;
  PetscInt         n, m;
  int             *ptr, *col;
  PetscScalar     *val;
  PetscLogDouble   t0, t1;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  PetscCheck(size == 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCDENSEINVERSE works on one MPI rank (got %d): on several use it inside PCREDUNDANT, e.g. -mg_coarse_pc_type redundant -mg_coarse_redundant_pc_type denseinverse", size);
  PetscCall(MatGetSize(pc->pmat, &n, &m));
  PetscCheck(n == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCDENSEINVERSE needs a square matrix, got %" PetscInt_FMT " x %" PetscInt_FMT, n, m);
  PetscCheck(n <= di->maxsize, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "PCDENSEINVERSE: %" PetscInt_FMT " unknowns, more than -pc_denseinverse_max_size %" PetscInt_FMT " (the inverse takes %.3g GB); raise the option or use a sparse factorization (-pc_type lu)", n, di->maxsize, 8e-9 * (double)n * (double)n);
  {
    /* the Cholesky factorizations read one triangle: a matrix that is not symmetric would be inverted silently wrong */
    PetscBool has, sym = PETSC_TRUE;
    PetscReal nrm;
    PetscCall(MatHasOperation(pc->pmat, MATOP_IS_SYMMETRIC, &has));
    if (has) {
      PetscCall(MatNorm(pc->pmat, NORM_INFINITY, &nrm));
      PetscCall(MatIsSymmetric(pc->pmat, 1e-12 * nrm, &sym));
    } else PetscCall(PetscInfo(pc, "matrix type %s cannot tell whether it is symmetric; assumed\n", ((PetscObject)pc->pmat)->type_name));
    PetscCheck(sym, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PCDENSEINVERSE: the matrix is not symmetric (to 1e-12 of its norm); it needs a symmetric positive definite one; use -pc_type lu");
  }
  PetscCall(PCReset_DenseInverse(pc));
  PetscCall(PetscTime(&t0));
  di->n        = n;
  di->ondevice = PETSC_FALSE;
#if defined(VP_HAVE_CUDA)
  di->ondevice = di->location == PC_DENSEINVERSE_DEVICE || (di->location == PC_DENSEINVERSE_AUTO && PetscDeviceInitialized(PETSC_DEVICE_CUDA)) ? PETSC_TRUE : PETSC_FALSE;
#else
  PetscCheck(di->location != PC_DENSEINVERSE_DEVICE, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_denseinverse_location device: this build has no CUDA; allowed: auto, host");
#endif
  PetscCall(DenseInverseCSR(pc->pmat, n, &ptr, &col, &val));
  if (di->ondevice) {
#if defined(VP_HAVE_CUDA)
    int err = VPCudaDenseInverseCreate((int)n, ptr, col, val, &di->dev);
    PetscCheck(err != VPC_ERR_NOT_SPD, PETSC_COMM_SELF, PETSC_ERR_MAT_CH_ZRPVT, "PCDENSEINVERSE: the matrix is not symmetric positive definite (cuSOLVER's Cholesky factorization failed); use -pc_type lu");
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCDENSEINVERSE: CUDA error in the set-up of the %" PetscInt_FMT " x %" PetscInt_FMT " inverse on the GPU: %s", n, n, VPCudaErrorString(err));
#endif
  } else {
    PetscBLASInt bn, info = 0;
    PetscCall(PetscBLASIntCast(n, &bn));
    PetscCall(PetscCalloc1((size_t)n * n, &di->inv));
    for (PetscInt i = 0; i < n; i++)
      for (int p = ptr[i]; p < ptr[i + 1]; p++) di->inv[(size_t)i * n + col[p]] = val[p];
    if (n) {
      PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bn, di->inv, &bn, &info));
      PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_MAT_CH_ZRPVT, "PCDENSEINVERSE: the matrix is not symmetric positive definite (LAPACK potrf: leading minor %d); use -pc_type lu", (int)info);
      PetscCallBLAS("LAPACKpotri", LAPACKpotri_("L", &bn, di->inv, &bn, &info));
      PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCDENSEINVERSE: LAPACK potri failed (%d)", (int)info);
    }
    for (PetscInt j = 0; j < n; j++) /* the upper triangle from the lower one, for one plain gemv */
      for (PetscInt i = j + 1; i < n; i++) di->inv[(size_t)i * n + j] = di->inv[(size_t)j * n + i];
  }
  PetscCall(PetscFree3(ptr, col, val));
  PetscCall(PetscTime(&t1));
  di->tsetup = t1 - t0;
  PetscCall(PetscInfo(pc, "dense inverse of %" PetscInt_FMT " unknowns on the %s in %.3f s\n", n, di->ondevice ? "GPU" : "host", di->tsetup));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_DenseInverse(PC pc, Vec x, Vec y)
{
  PC_DenseInverse *di = (PC_DenseInverse *)pc->data;

  PetscFunctionBegin;
  if (di->ondevice) {
#if defined(VP_HAVE_CUDA)
    PetscBool          cx, cy;
    const PetscScalar *xa;
    PetscScalar       *ya;
    int                err;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cx, VECSEQCUDA, VECMPICUDA, ""));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)y, &cy, VECSEQCUDA, VECMPICUDA, ""));
    if (cx && cy) {
      PetscCall(VecCUDAGetArrayRead(x, &xa));
      PetscCall(VecCUDAGetArrayWrite(y, &ya));
    } else {
      /* host vectors (inside PCREDUNDANT): the n values go to the GPU and back; said by -info once and counted by PCView */
      if (!di->hostcopies++) PetscCall(PetscInfo(pc, "host vectors: each apply copies %" PetscInt_FMT " values to the GPU and back\n", di->n));
      PetscCall(VecGetArrayRead(x, &xa));
      PetscCall(VecGetArrayWrite(y, &ya));
    }
    PetscCall(PetscLogGpuTimeBegin());
    err = VPCudaDenseInverseApply(di->dev, xa, ya, cx && cy);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCDENSEINVERSE: CUDA error in the apply: %s", VPCudaErrorString(err));
    if (cx && cy) {
      PetscCall(VecCUDARestoreArrayRead(x, &xa));
      PetscCall(VecCUDARestoreArrayWrite(y, &ya));
    } else {
      PetscCall(VecRestoreArrayRead(x, &xa));
      PetscCall(VecRestoreArrayWrite(y, &ya));
    }
    PetscCall(PetscLogGpuFlops(2.0 * di->n * di->n));
#endif
  } else {
    const PetscScalar *xa;
    PetscScalar       *ya;
    PetscBLASInt       bn, one = 1;
    const PetscScalar  a = 1.0, b = 0.0;
    PetscCall(PetscBLASIntCast(di->n, &bn));
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    if (bn) PetscCallBLAS("BLASgemv", BLASgemv_("N", &bn, &bn, &a, di->inv, &bn, xa, &one, &b, ya, &one));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(PetscLogFlops(2.0 * di->n * di->n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_DenseInverse(PC pc, PetscOptionItems *PetscOptionsObject)
{
  PC_DenseInverse *di = (PC_DenseInverse *)pc->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Dense inverse (denseinverse) options");
  PetscCall(PetscOptionsEnum("-pc_denseinverse_location", "Where the inverse is made and applied: auto (the GPU when PETSc has initialized CUDA), host, device", "PCDENSEINVERSE", PCDenseInverseLocations, (PetscEnum)di->location,
                             (PetscEnum *)&di->location, NULL));
  PetscCall(PetscOptionsInt("-pc_denseinverse_max_size", "Largest matrix size accepted (the inverse takes 8 n^2 bytes)", "PCDENSEINVERSE", di->maxsize, &di->maxsize, NULL));
  PetscCheck(di->maxsize >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_denseinverse_max_size %" PetscInt_FMT ": allowed >= 0", di->maxsize);
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_DenseInverse(PC pc, PetscViewer viewer)
{
  PC_DenseInverse *di = (PC_DenseInverse *)pc->data;
  PetscBool        ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (!pc->setupcalled) PetscCall(PetscViewerASCIIPrintf(viewer, "  explicit inverse by dense Cholesky (-pc_denseinverse_location %s): not set up yet\n", PCDenseInverseLocations[di->location]));
  else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  explicit inverse by dense Cholesky (-pc_denseinverse_location %s): %" PetscInt_FMT " unknowns on the %s (%s), %.3g GB, set up in %.3f s; one symmetric matrix-vector product per apply\n",
                                     PCDenseInverseLocations[di->location], di->n, di->ondevice ? "GPU" : "host", di->ondevice ? "cuSOLVER potrf + potri, cublasDsymv" : "LAPACK potrf + potri, BLAS gemv", 8e-9 * (double)di->n * (double)di->n,
                                     di->tsetup));
    if (di->hostcopies) PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " applies so far had host vectors: their values went to the GPU and back\n", di->hostcopies));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_DenseInverse(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_DenseInverse(pc));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCDENSEINVERSE = "denseinverse" - an exact solver for small symmetric positive definite systems through the explicit
   inverse: a dense Cholesky factorization and inversion once (LAPACK potrf + potri on the host, cuSOLVER on the GPU),
   then one symmetric matrix-vector product per apply.

   Options Database Keys:
+  -pc_denseinverse_location <auto> - auto (the GPU when PETSc has initialized CUDA, e.g. for -dm_vec_type cuda), host, device
-  -pc_denseinverse_max_size <50000> - the largest size accepted (the inverse takes 8 n^2 bytes: 20 GB at 50,000)

   Notes:
   For PCMG's coarse solve when the levels run on the GPU: -mg_coarse_pc_type denseinverse on one rank,
   -mg_coarse_pc_type redundant -mg_coarse_redundant_pc_type denseinverse on several (each rank holds the inverse and
   applies it to the gathered coarse vector). The apply reads n^2 / 2 values from the GPU's memory (cublasDsymv) instead of
   the sparse factors' triangular solves on the host. The matrix must be symmetric positive definite (an error otherwise)
   and on one MPI rank.

   Level: intermediate

.seealso: `PCMG`, `PCREDUNDANT`, `PCCHOLESKY`, `DMBRICK`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_DenseInverse(PC pc)
{
  PC_DenseInverse *di;

  PetscFunctionBegin;
  PetscCall(PetscNew(&di));
  di->location            = PC_DENSEINVERSE_AUTO;
  di->maxsize             = 50000;
  pc->data                = di;
  pc->ops->setup          = PCSetUp_DenseInverse;
  pc->ops->apply          = PCApply_DenseInverse;
  pc->ops->applytranspose = PCApply_DenseInverse;
  pc->ops->setfromoptions = PCSetFromOptions_DenseInverse;
  pc->ops->view           = PCView_DenseInverse;
  pc->ops->reset          = PCReset_DenseInverse;
  pc->ops->destroy        = PCDestroy_DenseInverse;
  PetscFunctionReturn(PETSC_SUCCESS);
}
