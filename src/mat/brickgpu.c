/* The GPU path of the brick operators (built with -DVP_HAVE_CUDA when PETSc has CUDA): the operator's
   Kronecker form handed to the CUDA kernels of cuda/ (which know no PETSc types) as banded 1D matrices on the
   interior nodes, and applied to the device arrays of VECCUDA vectors. One rank for now; with several ranks,
   or host vectors, the shells keep their CPU path. */
#include "brickelement.h"
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>

/* The interior rows and columns of the 1D matrices (full-grid node f = interior index + 1). */
PetscErrorCode BrickKronGPUCreate(DM dm, const BrickKronForm *form, const BrickLine lines[], void **gpu)
{
  DM_Brick  *brick      = (DM_Brick *)dm->data;
  PetscInt   bw         = lines[0].bw;
  int        n[3]       = {1, 1, 1}, kind[BRICK_KRON_MAX_TERMS][3], err;
  double    *band[3][3] = {{NULL}}, coef[BRICK_KRON_MAX_TERMS];
  VPCudaKron op;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < brick->dim; d++) {
    const PetscInt ni = lines[d].n - 2, w = 2 * bw + 1;
    n[d] = (int)ni;
    for (PetscInt k = 0; k < BRICK_LINE_NKINDS; k++) {
      if (!lines[d].a[k]) continue;
      PetscCall(PetscCalloc1(ni * w, &band[d][k]));
      for (PetscInt i = 0; i < ni; i++)
        for (PetscInt o = -bw; o <= bw; o++)
          if (i + o >= 0 && i + o < ni) band[d][k][i * w + o + bw] = BrickLineEntry(&lines[d], (BrickLineKind)k, i + 1, i + 1 + o);
    }
  }
  for (PetscInt t = 0; t < form->nterms; t++) {
    coef[t] = form->coef[t];
    for (PetscInt d = 0; d < 3; d++) kind[t][d] = (int)form->kind[t][d];
  }
  err = VPCudaKronCreate((int)brick->dim, n, (int)bw, (int)form->nterms, coef, (const int(*)[3])kind, (const double *const(*)[3])band, &op);
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt k = 0; k < 3; k++) PetscCall(PetscFree(band[d][k]));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaKronCreate: %s", VPCudaErrorString(err));
  *gpu = op;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BrickKronGPUDestroy(void **gpu)
{
  VPCudaKron op = (VPCudaKron)*gpu;
  int        err;

  PetscFunctionBegin;
  if (!op) PetscFunctionReturn(PETSC_SUCCESS);
  err = VPCudaKronDestroy(&op);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaKronDestroy: %s", VPCudaErrorString(err));
  *gpu = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x on the device arrays, in double or (single) in float arithmetic; flops: 2 (2 bw + 1) per point and contraction */
PetscErrorCode BrickKronGPUMult(void *gpu, PetscInt dim, PetscInt nterms, PetscInt bw, PetscBool single, Vec x, Vec y)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscInt           n;
  int                err;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  err = single ? VPCudaKronApply_mixed((VPCudaKron)gpu, xa, ya) : VPCudaKronApply_d((VPCudaKron)gpu, xa, ya);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the Kronecker-form operator: %s", VPCudaErrorString(err));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscCall(PetscLogGpuFlops((PetscLogDouble)n * nterms * dim * 2.0 * (2 * bw + 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if defined(VP_HAVE_CUDA)
/* The Laplacian's cell kernel (cuda/vpcell.cu) from its per-direction cell matrices (n = k + 1) */
PetscErrorCode BrickLaplaceGPUCreate(DM dm, const PetscReal M[][BRICK_MAX_N * BRICK_MAX_N], const PetscReal K[][BRICK_MAX_N * BRICK_MAX_N], void **gpu)
{
  DM_Brick         *brick    = (DM_Brick *)dm->data;
  int               cells[3] = {1, 1, 1}, err;
  const double     *m[3], *k[3];
  VPCudaCellLaplace op;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    if (d < brick->dim) cells[d] = (int)brick->cells[d];
    m[d] = M[d];
    k[d] = K[d];
  }
  err = VPCudaCellLaplaceCreate((int)brick->dim, (int)brick->degree, cells, m, k, &op);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaCellLaplaceCreate: %s", VPCudaErrorString(err));
  *gpu = op;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BrickLaplaceGPUDestroy(void **gpu)
{
  VPCudaCellLaplace op = (VPCudaCellLaplace)*gpu;
  int               err;

  PetscFunctionBegin;
  if (!op) PetscFunctionReturn(PETSC_SUCCESS);
  err = VPCudaCellLaplaceDestroy(&op);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaCellLaplaceDestroy: %s", VPCudaErrorString(err));
  *gpu = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x on the device arrays, cell by cell; flops per cell: 14 n^4 (3D), 8 n^3 (2D), n = k + 1 */
PetscErrorCode BrickLaplaceGPUMult(DM dm, void *gpu, Vec x, Vec y)
{
  DM_Brick          *brick = (DM_Brick *)dm->data;
  const PetscScalar *xa;
  PetscScalar       *ya;
  const PetscReal    n      = (PetscReal)(brick->degree + 1);
  PetscLogDouble     ncells = 1;
  int                err;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < brick->dim; d++) ncells *= (PetscLogDouble)brick->cells[d];
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaCellLaplaceApply((VPCudaCellLaplace)gpu, brick->precision == DMBRICK_PRECISION_SINGLE, xa, ya);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the cell-wise Laplacian: %s", VPCudaErrorString(err));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscCall(PetscLogGpuFlops(ncells * (brick->dim == 3 ? 14 * n * n * n * n : 8 * n * n * n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* whether both vectors live on the GPU (VECSEQCUDA) and the operator runs on one rank: the GPU path applies */
PetscErrorCode BrickUseGPU(DM dm, Vec x, Vec y, PetscBool *gpu)
{
  PetscFunctionBegin;
  *gpu = PETSC_FALSE;
#if defined(VP_HAVE_CUDA)
  {
    PetscMPIInt size;
    PetscBool   xc, yc;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
    PetscCall(PetscObjectTypeCompare((PetscObject)x, VECSEQCUDA, &xc));
    PetscCall(PetscObjectTypeCompare((PetscObject)y, VECSEQCUDA, &yc));
    *gpu = (PetscBool)(size == 1 && xc && yc);
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
