/* PCHFEM's hierarchical transform as level-wise stencils (eq. 3) instead of sparse products: T = diag(scale) P S^T and
   T^T, with S = S_level ... S_{m+1} the product of the one-level interpolations (hfemsetup.c, PCHFEMCreateSLevel).

   S_j keeps every node and adds to each node new on level j (spacing H = 2^(level - j) fine cells) 1/2 of the two ends
   of the coarse edge it halves or 1/4 of the four corners of the coarse cell it centres. So S^T b runs from the finest
   level to the macro level, each level adding to every node of the coarser grid (spacing 2H) its eight level-j
   neighbours with those weights; S y runs the other way, each new node adding its parents. Each pass changes only nodes
   that the pass does not read, so it works in place. A pass costs a few flops per node of its level, against the
   (2H-1)^2 entries per row of the explicit T (about 20 on average, up to (2s-1)^2 in the macro-grid rows).

   This file is the host's version and the reference of the GPU's (cuda/vphfemtransform.cu); the explicit T, T^T remain
   as -pc_hfem_transform sparse and for the nodal variant (-pc_hfem_prehandle false), whose S has no level factors. */
#include "hfemimpl.h"
#if defined(VP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include "vpatch_cuda.h"
#endif

const char *const PCHFEMTransforms[] = {"stencil", "sparse", "PCHFEMTransform", "PC_HFEM_TRANSFORM_", NULL};

/* fine-grid node (i, j), 0 < i < nx, 0 < j < ny: its place in the brick's numbering of interior nodes */
#define NODE(i, j) ((i) - 1 + (nx - 1) * ((j) - 1))

/* x <- S_j^T x, S_j of spacing H: every node of the spacing-2H grid gathers its eight spacing-H neighbours (all of them
   interior: the coarse nodes lie at least 2H from the boundary) */
static void RestrictLevel(PetscInt nx, PetscInt ny, PetscInt H, PetscInt n, PetscScalar *x, PetscInt ld)
{
  for (PetscInt c = 0; c < n; c++) {
    PetscScalar *v = x + c * ld;
    for (PetscInt j = 2 * H; j < ny; j += 2 * H)
      for (PetscInt i = 2 * H; i < nx; i += 2 * H) {
        const PetscScalar edge = v[NODE(i - H, j)] + v[NODE(i + H, j)] + v[NODE(i, j - H)] + v[NODE(i, j + H)];
        const PetscScalar diag = v[NODE(i - H, j - H)] + v[NODE(i + H, j - H)] + v[NODE(i - H, j + H)] + v[NODE(i + H, j + H)];
        v[NODE(i, j)] += 0.5 * edge + 0.25 * diag;
      }
  }
}

/* the value of node (i, j) of column v, zero on the boundary */
static inline PetscScalar At(PetscInt nx, PetscInt ny, const PetscScalar *v, PetscInt i, PetscInt j)
{
  return (i <= 0 || i >= nx || j <= 0 || j >= ny) ? 0.0 : v[NODE(i, j)];
}

/* x <- S_j x, S_j of spacing H: each new node adds its parents (1/2 each on a coarse edge, 1/4 each in a coarse cell) */
static void ProlongLevel(PetscInt nx, PetscInt ny, PetscInt H, PetscInt n, PetscScalar *x, PetscInt ld)
{
  for (PetscInt c = 0; c < n; c++) {
    PetscScalar *v = x + c * ld;
    for (PetscInt j = H; j < ny; j += H)
      for (PetscInt i = H; i < nx; i += H) {
        const PetscBool oldx = (PetscBool)(i % (2 * H) == 0), oldy = (PetscBool)(j % (2 * H) == 0);
        if (oldx && oldy) continue;
        if (oldx) v[NODE(i, j)] += 0.5 * (At(nx, ny, v, i, j - H) + At(nx, ny, v, i, j + H));
        else if (oldy) v[NODE(i, j)] += 0.5 * (At(nx, ny, v, i - H, j) + At(nx, ny, v, i + H, j));
        else v[NODE(i, j)] += 0.25 * (At(nx, ny, v, i - H, j - H) + At(nx, ny, v, i + H, j - H) + At(nx, ny, v, i - H, j + H) + At(nx, ny, v, i + H, j + H));
      }
  }
}

/* z = T b for n columns on the host; work: N x n scratch; all three with leading dimension ld */
static PetscErrorCode TransformForward_Host(PC_HFEM *hf, PetscInt n, const PetscScalar *b, PetscScalar *work, PetscScalar *z, PetscInt ld)
{
  PetscFunctionBegin;
  for (PetscInt c = 0; c < n; c++) PetscCall(PetscArraycpy(work + c * ld, b + c * ld, hf->N));
  for (PetscInt H = 1; H < hf->s; H *= 2) RestrictLevel(hf->nx, hf->ny, H, n, work, ld);
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt k = 0; k < hf->N; k++) z[k + c * ld] = hf->scale[k] * work[hf->order[k] + c * ld];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^T y for n columns on the host */
static PetscErrorCode TransformBackward_Host(PC_HFEM *hf, PetscInt n, const PetscScalar *y, PetscScalar *x, PetscInt ld)
{
  PetscFunctionBegin;
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt k = 0; k < hf->N; k++) x[hf->order[k] + c * ld] = hf->scale[k] * y[k + c * ld];
  for (PetscInt H = hf->s / 2; H >= 1; H /= 2) ProlongLevel(hf->nx, hf->ny, H, n, x, ld);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of one column of T (or T^T): per level, 9 per coarse node gathered (forward) or 2-4 per new node (backward,
   about the same in total), and the scaling */
static PetscLogDouble TransformFlops(PC_HFEM *hf)
{
  PetscLogDouble f = hf->N;
  for (PetscInt H = 1; H < hf->s; H *= 2) f += 9.0 * (hf->nx / (2 * H) - 1) * (hf->ny / (2 * H) - 1);
  return f;
}

/* Z = T Bin (W as scratch) for the work's columns: stencils on the host or the GPU, or the sparse product */
PetscErrorCode PCHFEMTransformForward_Private(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_HFEMApplyT, pc, 0, 0, 0));
  if (!hf->stencil) PetscCall(MatProductNumeric(hf->Z));
  else {
    const PetscScalar *b;
    PetscScalar       *w, *z;
    PetscInt           ld;
    PetscCall(MatDenseGetLDA(hf->Z, &ld));
    if (hf->device) {
#if defined(VP_HAVE_CUDA)
      int err;
      PetscCall(MatDenseCUDAGetArrayRead(hf->Bin, &b));
      PetscCall(MatDenseCUDAGetArrayWrite(hf->W, &w));
      PetscCall(MatDenseCUDAGetArrayWrite(hf->Z, &z));
      PetscCall(PetscLogGpuTimeBegin());
      err = VPCudaHFEMTransformForward((VPCudaHFEMTransform)hf->gputransform, (int)hf->wcols, b, w, z, (size_t)ld);
      PetscCall(PetscLogGpuTimeEnd());
      PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the hierarchical transform: %s", VPCudaErrorString(err));
      PetscCall(MatDenseCUDARestoreArrayWrite(hf->Z, &z));
      PetscCall(MatDenseCUDARestoreArrayWrite(hf->W, &w));
      PetscCall(MatDenseCUDARestoreArrayRead(hf->Bin, &b));
      PetscCall(PetscLogGpuFlops(hf->wcols * TransformFlops(hf)));
#endif
    } else {
      PetscCall(MatDenseGetArrayRead(hf->Bin, &b));
      PetscCall(MatDenseGetArrayWrite(hf->W, &w));
      PetscCall(MatDenseGetArrayWrite(hf->Z, &z));
      PetscCall(TransformForward_Host(hf, hf->wcols, b, w, z, ld));
      PetscCall(MatDenseRestoreArrayWrite(hf->Z, &z));
      PetscCall(MatDenseRestoreArrayWrite(hf->W, &w));
      PetscCall(MatDenseRestoreArrayRead(hf->Bin, &b));
      PetscCall(PetscLogFlops(hf->wcols * TransformFlops(hf)));
    }
  }
  PetscCall(PetscLogEventEnd(PC_HFEMApplyT, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Xo = T^T Y for the work's columns */
PetscErrorCode PCHFEMTransformBackward_Private(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_HFEMApplyT, pc, 0, 0, 0));
  if (!hf->stencil) PetscCall(MatProductNumeric(hf->Xo));
  else {
    const PetscScalar *y;
    PetscScalar       *x;
    PetscInt           ld;
    PetscCall(MatDenseGetLDA(hf->Xo, &ld));
    if (hf->device) {
#if defined(VP_HAVE_CUDA)
      int err;
      PetscCall(MatDenseCUDAGetArrayRead(hf->Y, &y));
      PetscCall(MatDenseCUDAGetArrayWrite(hf->Xo, &x));
      PetscCall(PetscLogGpuTimeBegin());
      err = VPCudaHFEMTransformBackward((VPCudaHFEMTransform)hf->gputransform, (int)hf->wcols, y, x, (size_t)ld);
      PetscCall(PetscLogGpuTimeEnd());
      PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in the hierarchical transform: %s", VPCudaErrorString(err));
      PetscCall(MatDenseCUDARestoreArrayWrite(hf->Xo, &x));
      PetscCall(MatDenseCUDARestoreArrayRead(hf->Y, &y));
      PetscCall(PetscLogGpuFlops(hf->wcols * TransformFlops(hf)));
#endif
    } else {
      PetscCall(MatDenseGetArrayRead(hf->Y, &y));
      PetscCall(MatDenseGetArrayWrite(hf->Xo, &x));
      PetscCall(TransformBackward_Host(hf, hf->wcols, y, x, ld));
      PetscCall(MatDenseRestoreArrayWrite(hf->Xo, &x));
      PetscCall(MatDenseRestoreArrayRead(hf->Y, &y));
      PetscCall(PetscLogFlops(hf->wcols * TransformFlops(hf)));
    }
  }
  PetscCall(PetscLogEventEnd(PC_HFEMApplyT, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the GPU's copy of the set order and the scaling (stencil transform on the GPU) */
PetscErrorCode PCHFEMSetUpTransformDevice_Private(PC pc)
{
#if defined(VP_HAVE_CUDA)
  PC_HFEM            *hf = (PC_HFEM *)pc->data;
  int                *order, err, nx, ny, s;
  VPCudaHFEMTransform t = NULL;
#endif

  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  if (!hf->device || !hf->stencil) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(hf->N + 1, &order));
  for (PetscInt k = 0; k < hf->N; k++) PetscCall(PetscMPIIntCast(hf->order[k], &order[k]));
  PetscCall(PetscMPIIntCast(hf->nx, &nx));
  PetscCall(PetscMPIIntCast(hf->ny, &ny));
  PetscCall(PetscMPIIntCast(hf->s, &s));
  err              = VPCudaHFEMTransformCreate(nx, ny, s, order, hf->scale, &t);
  hf->gputransform = t;
  PetscCall(PetscFree(order));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in VPCudaHFEMTransformCreate: %s", VPCudaErrorString(err));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCHFEMResetTransform_Private(PC pc)
{
  PC_HFEM *hf = (PC_HFEM *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscFree2(hf->order, hf->scale));
#if defined(VP_HAVE_CUDA)
  {
    VPCudaHFEMTransform t   = (VPCudaHFEMTransform)hf->gputransform;
    int                 err = VPCudaHFEMTransformDestroy(&t);
    hf->gputransform        = NULL;
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCHFEM: CUDA error in VPCudaHFEMTransformDestroy: %s", VPCudaErrorString(err));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
