/* The GPU path of PCVERTEXPATCH (VP_HAVE_CUDA): on one rank, with VECCUDA vectors, the colored
   multiplicative and the additive steps with the fdm solver, local or global residuals, run as CUDA kernels
   (cuda/vpsmooth.cu) on the device arrays; the patch operator and the processing order are the CPU
   smoother's, copied once per setup. Everything else (dense solvers, single and batched schedules, several
   ranks) takes the CPU path. */
#include "vpimpl.h"
#if defined(VP_HAVE_CUDA)
#  include <petscdevice_cuda.h>
#endif

PetscErrorCode PCVertexPatchUseGPU(PC pc, Vec b, Vec x, PetscBool *gpu)
{
  PetscFunctionBegin;
  *gpu = PETSC_FALSE;
#if defined(VP_HAVE_CUDA)
  {
    PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
    PetscMPIInt     size;
    PetscBool       bc, xc = PETSC_TRUE;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
    PetscCall(PetscObjectTypeCompare((PetscObject)b, VECSEQCUDA, &bc));
    if (x) PetscCall(PetscObjectTypeCompare((PetscObject)x, VECSEQCUDA, &xc));
    *gpu = (PetscBool)(size == 1 && bc && xc && vp->solver == PC_VERTEXPATCH_FDM && vp->schedule == PC_VERTEXPATCH_COLORED);
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchDestroyGPU(PC pc)
{
  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  if (vp->gpu) {
    VPCudaSmoother sm  = (VPCudaSmoother)vp->gpu;
    int            err = VPCudaSmootherDestroy(&sm);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaSmootherDestroy: %s", VPCudaErrorString(err));
    vp->gpu = NULL;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(VP_HAVE_CUDA)
static PetscErrorCode PCVertexPatchGetGPU(PC pc, VPCudaSmoother *sm)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;

  PetscFunctionBegin;
  if (!vp->gpu) {
    int *vtx, n[3] = {1, 1, 1}, err;
    PetscCall(PetscMalloc1(3 * vp->npatches + 1, &vtx));
    for (PetscInt i = 0; i < 3 * vp->npatches; i++) vtx[i] = (int)vp->vertex[i];
    for (PetscInt d = 0; d < brick->dim; d++) n[d] = (int)(brick->degree * brick->cells[d] - 1);
    err = VPCudaSmootherCreate(&vp->op_d, &vp->op_f, n, (int)brick->degree, (int)brick->op.ghost_cells, (int)vp->npatches, vtx, vp->gpu_shared ? VPC_KERNEL_SHARED : VPC_KERNEL_GLOBAL, (VPCudaSmoother *)&vp->gpu);
    PetscCall(PetscFree(vtx));
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaSmootherCreate: %s", VPCudaErrorString(err));
  }
  *sm = (VPCudaSmoother)vp->gpu;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* one multiplicative step on the GPU: the colors in order (or reversed), each one launch, in place */
PetscErrorCode PCVertexPatchSmoothGPU(PC pc, Vec b, Vec x)
{
  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    PC_VertexPatch    *vp = (PC_VertexPatch *)pc->data;
    VPCudaSmoother     sm;
    const PetscScalar *ba;
    PetscScalar       *xa;
    const int          single = vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION;
    PetscCall(PCVertexPatchGetGPU(pc, &sm));
    for (PetscInt ic = 0; ic < vp->ncolors; ic++) {
      const PetscInt c = vp->reverse ? vp->ncolors - 1 - ic : ic;
      int            err;
      if (vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL) {
        /* the residual of the current iterate, once per color, by the operator's own (GPU) product */
        PetscCall(MatMult(pc->pmat, x, vp->r));
        PetscCall(VecAYPX(vp->r, -1.0, b));
        PetscCall(VecCUDAGetArrayRead(vp->r, &ba));
      } else PetscCall(VecCUDAGetArrayRead(b, &ba));
      PetscCall(VecCUDAGetArray(x, &xa));
      PetscCall(PetscLogGpuTimeBegin());
      if (vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL) err = VPCudaSmootherColorResidual(sm, (int)vp->colorptr[c], (int)vp->colorptr[c + 1], single, vp->omega, ba, xa);
      else err = VPCudaSmootherColor(sm, (int)vp->colorptr[c], (int)vp->colorptr[c + 1], single, vp->omega, ba, xa);
      PetscCall(PetscLogGpuTimeEnd());
      PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the vertex-patch color step: %s", VPCudaErrorString(err));
      PetscCall(VecCUDARestoreArray(x, &xa));
      PetscCall(VecCUDARestoreArrayRead(vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL ? vp->r : b, &ba));
    }
    PetscCall(PetscLogGpuFlops(vp->flops_per_patch * vp->npatches));
  }
#else
  SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVERTEXPATCH was built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the additive step on the GPU: y += omega sum_j R_j^T A_j^-1 r_j (x NULL: r_j from b alone), atomic updates */
PetscErrorCode PCVertexPatchAdditiveGPU(PC pc, Vec b, Vec x, Vec y)
{
  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    PC_VertexPatch    *vp = (PC_VertexPatch *)pc->data;
    VPCudaSmoother     sm;
    const PetscScalar *ba, *xa = NULL;
    PetscScalar       *ya;
    int                err;
    PetscCall(PCVertexPatchGetGPU(pc, &sm));
    if (x && vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL) {
      /* the global residual once; the patches then solve with it (no x) */
      PetscCall(MatMult(pc->pmat, x, vp->r));
      PetscCall(VecAYPX(vp->r, -1.0, b));
      b = vp->r;
      x = NULL;
    }
    PetscCall(VecCUDAGetArrayRead(b, &ba));
    if (x) PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArray(y, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    err = VPCudaSmootherAdditive(sm, vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION, vp->omega, ba, xa, ya);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaSmootherAdditive: %s", VPCudaErrorString(err));
    PetscCall(VecCUDARestoreArray(y, &ya));
    if (x) PetscCall(VecCUDARestoreArrayRead(x, &xa));
    PetscCall(VecCUDARestoreArrayRead(b, &ba));
    PetscCall(PetscLogGpuFlops(vp->flops_per_patch * vp->npatches));
  }
#else
  SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVERTEXPATCH was built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
