/* The GPU path of PCVERTEXPATCH (VP_HAVE_CUDA): with VECCUDA vectors, on any number of ranks, the colored
   multiplicative and the additive steps with the fdm solver, local or global residuals, run as CUDA kernels
   (cuda/vpsmooth*.cu) on the device arrays; the patch operator and the processing order are the CPU smoother's,
   copied once per setup. With one active rank the kernels work in place on the global vectors. With several, as
   on the host: the multiplicative step with local residuals works in place in the ghosted local vector and moves
   only the ghost layer between colors (vpghost.c, GPU to GPU through brickexchange.c where it can); with global
   residuals, per color the corrections go into a zeroed local vector that DMLocalToGlobal(ADD_VALUES) adds to their
   owners; the additive step does that once. Combinations without a device implementation are errors, not host paths. */
#include "vpimpl.h"
#if defined(VP_HAVE_CUDA)
#  include <petscdevice_cuda.h>
#endif

/* gpu: whether the step runs on the GPU (VECCUDA vectors); an option without a device implementation stops it */
PetscErrorCode PCVertexPatchUseGPU(PC pc, Vec b, Vec x, PetscBool *gpu)
{
  PetscFunctionBegin;
  *gpu = PETSC_FALSE;
#if defined(VP_HAVE_CUDA)
  {
    PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
    PetscBool       device;
    const char     *prefix;
    PetscCall(DMBrickVecsOnDevice_Private(b, x, &device));
    if (!device) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCheck(vp->solver == PC_VERTEXPATCH_FDM, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-%spc_vertexpatch_local_solver %s has no GPU implementation; with VECCUDA vectors (-dm_vec_type cuda) use -%spc_vertexpatch_local_solver fdm",
               prefix ? prefix : "", PCVertexPatchLocalSolvers[vp->solver], prefix ? prefix : "");
    PetscCheck(vp->schedule == PC_VERTEXPATCH_COLORED, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-%spc_vertexpatch_schedule %s has no GPU implementation; with VECCUDA vectors (-dm_vec_type cuda) use -%spc_vertexpatch_schedule colored",
               prefix ? prefix : "", PCVertexPatchSchedules[vp->schedule], prefix ? prefix : "");
    *gpu = PETSC_TRUE;
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
/* the kernels' view of the arrays: the ghosted local box (the whole grid on one active rank) */
static PetscErrorCode PCVertexPatchGetGPU(PC pc, VPCudaSmoother *sm)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;

  PetscFunctionBegin;
  if (!vp->gpu) {
    int       err;
    VPCudaBox box;
    /* made at setup when the brick's vectors are on the device, else at the first smoothing step on the device; the
       patches are the schedule's boxes (for every ordering: the steps run colors, and the order within a color does
       not change the iterates) */
    PetscCall(PetscLogEventBegin(PC_VertexPatchGPUSetUp, pc, 0, 0, 0));
    for (PetscInt d = 0; d < 3; d++) {
      box.n[d]  = d < brick->dim ? (int)(brick->degree * brick->cells[d] - 1) : 1;
      box.lo[d] = (int)brick->gstart[d];
      box.m[d]  = (int)brick->gwidth[d];
    }
    err = VPCudaSmootherCreate(&vp->op_d, &vp->op_f, &box, (int)brick->degree, (int)brick->op.ghost_cells, (int)vp->nbox, vp->box, vp->gpu_mma ? VPC_KERNEL_MMA : (vp->gpu_shared ? VPC_KERNEL_SHARED : VPC_KERNEL_GLOBAL), (VPCudaSmoother *)&vp->gpu);
    /* the C0IP shared kernel needs up to 113 KB of shared memory per block (k = 5, double): where the device has
       less, auto takes the global kernel, and PCView says so; an explicit shared is refused below */
    if (err == (int)cudaErrorNotSupported && vp->gpu_shared && !vp->gpu_mma && vp->gpu_kernel == PC_VERTEXPATCH_GPU_KERNEL_AUTO) {
      vp->gpu_shared = PETSC_FALSE;
      err            = VPCudaSmootherCreate(&vp->op_d, &vp->op_f, &box, (int)brick->degree, (int)brick->op.ghost_cells, (int)vp->nbox, vp->box, VPC_KERNEL_GLOBAL, (VPCudaSmoother *)&vp->gpu);
    }
    PetscCall(PetscLogEventEnd(PC_VertexPatchGPUSetUp, pc, 0, 0, 0));
    PetscCheck(!err || !vp->gpu_mma, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_vertexpatch_gpu_kernel mma could not be set up: %s (it needs FP64 tensor cores, compute capability 8.0 or newer); allowed: shared, global, auto", VPCudaErrorString(err));
    PetscCheck(err != (int)cudaErrorNotSupported || !vp->gpu_shared, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_vertexpatch_gpu_kernel shared: the patch does not fit this device's shared memory per block (%s); allowed: global, auto",
               VPCudaErrorString(err));
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaSmootherCreate: %s", VPCudaErrorString(err));
    err = VPCudaSmootherSetLines((VPCudaSmoother)vp->gpu, (int)vp->gpu_lines);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaSmootherSetLines: %s", VPCudaErrorString(err));
    for (int single = 0; single < 2; single++)
      if (vp->gpu_lines > 0 && VPCudaSmootherGetLines((VPCudaSmoother)vp->gpu, single) == 0)
        PetscCall(PetscInfo(pc, "-pc_vertexpatch_gpu_lines %" PetscInt_FMT ": the kernel does not fit this device's shared memory per block in %s precision; the generic one-line kernel runs those steps (PCView says which runs)\n", vp->gpu_lines, single ? "single" : "double"));
    for (int single = 0; single < 2; single++) {
      const double rf = VPCudaSmootherResidualFlops((VPCudaSmoother)vp->gpu, single);
      vp->gpu_flops[single] = vp->flops_per_patch + (rf >= 0 && vp->residual_flops > 0 ? rf - vp->residual_flops : 0);
    }
  }
  *sm = (VPCudaSmoother)vp->gpu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* patches [p0, p1) of one color on the device: target += omega A_j^-1 r_j; r_j from (b, x) or, without x, from the
   residual b */
static PetscErrorCode VPColorGPU(PC pc, VPCudaSmoother sm, PetscInt p0, PetscInt p1, Vec b, Vec x, Vec target)
{
  PC_VertexPatch    *vp     = (PC_VertexPatch *)pc->data;
  const int          single = vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION;
  const PetscScalar *ba, *xa = NULL;
  PetscScalar       *ta;
  int                err;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArrayRead(b, &ba));
  if (x && x != target) PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(VecCUDAGetArray(target, &ta));
  if (x == target) xa = ta;
  PetscCall(PetscLogGpuTimeBegin());
  if (x) err = VPCudaSmootherColor(sm, (int)p0, (int)p1, single, vp->omega, ba, xa, ta);
  else err = VPCudaSmootherColorResidual(sm, (int)p0, (int)p1, single, vp->omega, ba, ta);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the vertex-patch color step: %s", VPCudaErrorString(err));
  PetscCall(VecCUDARestoreArray(target, &ta));
  if (x && x != target) PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscCall(VecCUDARestoreArrayRead(b, &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* At setup, when the brick's vectors live on the device: the CUDA smoother now, so that the solve's first smoothing
   step does not pay for it (combinations without a device implementation are refused at that step, as before) */
PetscErrorCode PCVertexPatchSetUpGPU(PC pc)
{
  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
    PetscBool       device;
    VPCudaSmoother  sm;
    PetscCall(DMBrickOnDevice_Private(vp->dm, &device));
    if (device && vp->solver == PC_VERTEXPATCH_FDM && vp->schedule == PC_VERTEXPATCH_COLORED) {
      PetscCall(PCVertexPatchGetGPU(pc, &sm));
      /* several ranks, multiplicative with local residuals: the ghost SFs and their GPU-to-GPU exchanges now (the
         spread of every color; the push of the colors that end a sweep, forward or reversed) */
      if (((DM_Brick *)vp->dm->data)->nactive > 1 && vp->type == PC_VERTEXPATCH_MULTIPLICATIVE && vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL) {
        PetscCall(PCVertexPatchSetUpHostWork(pc));
        for (PetscInt c = 0; c < vp->ncolors; c++) PetscCall(DMBrickSetUpExchange_Private(vp->dm, vp->spreadsf[c], 1));
        PetscCall(DMBrickSetUpExchange_Private(vp->dm, vp->pushsf[0], 1));
        PetscCall(DMBrickSetUpExchange_Private(vp->dm, vp->pushsf[vp->ncolors - 1], 1));
        /* and the device memory of the sweep's ghosted local vectors, which VECCUDA allocates at their first use: else
           the first smoothing step of each level in the solve pays for it (none with in-place storage: the sweep works
           in the local vectors of x and b themselves) */
        if (!((DM_Brick *)vp->dm->data)->inplace) {
          PetscCall(PCVertexPatchGetSweepVectors(pc));
          PetscCall(VecZeroEntries(vp->xl));
          PetscCall(VecZeroEntries(vp->bl));
        }
      }
    }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one multiplicative step on the GPU: the colors in order (or reversed), each one launch; zerolocal (several ranks,
   local residuals): x is zero, so the sweep's ghosted local vector is zeroed instead of filled from x */
PetscErrorCode PCVertexPatchSmoothGPU(PC pc, Vec b, Vec x, PetscBool zerolocal)
{
  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    PC_VertexPatch *vp     = (PC_VertexPatch *)pc->data;
    DM_Brick       *brick  = (DM_Brick *)vp->dm->data;
    const PetscBool global = (PetscBool)(vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL), local = (PetscBool)(brick->nactive > 1);
    VPCudaSmoother  sm;
    PetscCall(PCVertexPatchGetGPU(pc, &sm));
    if (global) PetscCall(PCVertexPatchGetWorkVectors(pc));
    if (local && !global) {
      /* several ranks, local residuals: in place in the ghosted local vector, as the host sweep (vpghost.c); between
         colors only the ghost layer moves (a push of the corrected ghosts to their owners, a refresh of all ghosts),
         device to device where -dm_brick_gpu_exchange allows. With in-place storage (-dm_brick_slabs) the local
         vectors are those of x and b themselves: no copy of the level in or out */
      PetscScalar *xa;
      Vec          xl, bl;
      PetscCall(PCVertexPatchSetUpHostWork(pc)); /* the ghost SFs (the layout is the host's) */
      PetscCall(PCVertexPatchLocalRHS(pc, b, &bl));
      PetscCall(PCVertexPatchSweepLocal(pc, x, PETSC_FALSE, &xl));
      if (zerolocal) PetscCall(VecZeroEntries(xl));
      else PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, xl));
      for (PetscInt ic = 0; ic < vp->ncolors; ic++) {
        const PetscInt  c = vp->reverse ? vp->ncolors - 1 - ic : ic, p0 = vp->colorptr[c], p1 = vp->colorptr[c + 1];
        const PetscInt  pm      = vp->split ? vp->batchptr[c * (vp->nbatches + 1) + 1] : p1;
        const PetscBool refresh = (PetscBool)(ic < vp->ncolors - 1);
        /* split schedule: the patches reaching shared nodes, then the exchange's packs, then the others, which run on
           the device while the ranks trade the tokens */
        PetscCall(VPColorGPU(pc, sm, p0, pm, bl, xl, xl));
        PetscCall(VecCUDAGetArray(xl, &xa));
        PetscCall(PCVertexPatchExchangeGhostsDeviceBegin(pc, c, refresh, xa));
        PetscCall(VecCUDARestoreArray(xl, &xa));
        if (pm < p1) PetscCall(VPColorGPU(pc, sm, pm, p1, bl, xl, xl));
        PetscCall(VecCUDAGetArray(xl, &xa));
        PetscCall(PCVertexPatchExchangeGhostsDeviceEnd(pc, c, refresh, xa));
        PetscCall(VecCUDARestoreArray(xl, &xa));
      }
      PetscCall(DMLocalToGlobal(vp->dm, xl, INSERT_VALUES, x)); /* the owned values (in place: nothing); no message */
      if (xl == vp->xl) PetscCall(DMBrickSetLocalMirror_Private(vp->dm, x, xl)); /* a product of x (PCMG's residual) may read xl */
      PetscCall(PetscLogGpuFlops(vp->gpu_flops[vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION] * vp->npatches));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (PetscInt ic = 0; ic < vp->ncolors; ic++) {
      const PetscInt c = vp->reverse ? vp->ncolors - 1 - ic : ic;
      if (global) {
        /* the residual of the current iterate, once per color, by the operator's own (GPU) product */
        PetscCall(MatMult(pc->pmat, x, vp->r));
        PetscCall(VecAYPX(vp->r, -1.0, b));
      }
      if (!local) PetscCall(VPColorGPU(pc, sm, vp->colorptr[c], vp->colorptr[c + 1], global ? vp->r : b, global ? NULL : x, x)); /* in place */
      else {
        if (global) PetscCall(DMGlobalToLocal(vp->dm, vp->r, INSERT_VALUES, vp->bl));
        else PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, vp->xl));
        PetscCall(VecZeroEntries(vp->dl));
        PetscCall(VPColorGPU(pc, sm, vp->colorptr[c], vp->colorptr[c + 1], vp->bl, global ? NULL : vp->xl, vp->dl));
        PetscCall(DMLocalToGlobal(vp->dm, vp->dl, ADD_VALUES, x));
      }
    }
    PetscCall(PetscLogGpuFlops(vp->gpu_flops[vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION] * vp->npatches));
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
    PC_VertexPatch    *vp    = (PC_VertexPatch *)pc->data;
    DM_Brick          *brick = (DM_Brick *)vp->dm->data;
    const PetscBool    local = (PetscBool)(brick->nactive > 1);
    VPCudaSmoother     sm;
    const PetscScalar *ba, *xa = NULL;
    PetscScalar       *ya;
    Vec                bv, xv, yv;
    int                err;
    PetscCall(PCVertexPatchGetGPU(pc, &sm));
    if (local || vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL) PetscCall(PCVertexPatchGetWorkVectors(pc));
    if (x && vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL) {
      /* the global residual once; the patches then solve with it (no x) */
      PetscCall(MatMult(pc->pmat, x, vp->r));
      PetscCall(VecAYPX(vp->r, -1.0, b));
      b = vp->r;
      x = NULL;
    }
    bv = b;
    xv = x;
    yv = y;
    if (local) {
      PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, vp->bl));
      if (x) PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, vp->xl));
      PetscCall(VecZeroEntries(vp->dl));
      bv = vp->bl;
      xv = x ? vp->xl : NULL;
      yv = vp->dl;
    }
    PetscCall(VecCUDAGetArrayRead(bv, &ba));
    if (xv) PetscCall(VecCUDAGetArrayRead(xv, &xa));
    PetscCall(VecCUDAGetArray(yv, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    err = VPCudaSmootherAdditive(sm, vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION, vp->omega, ba, xa, ya);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaSmootherAdditive: %s", VPCudaErrorString(err));
    PetscCall(VecCUDARestoreArray(yv, &ya));
    if (xv) PetscCall(VecCUDARestoreArrayRead(xv, &xa));
    PetscCall(VecCUDARestoreArrayRead(bv, &ba));
    if (local) PetscCall(DMLocalToGlobal(vp->dm, vp->dl, ADD_VALUES, y));
    PetscCall(PetscLogGpuFlops(vp->gpu_flops[vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION] * vp->npatches));
  }
#else
  SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVERTEXPATCH was built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
