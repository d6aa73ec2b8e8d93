/* PCVERTEXPATCH on a forest brick (CPU). For laplace the patch problems are the box's: every cell is congruent and a
   patch's 2^dim cells are all in the domain, so each patch takes the interior position class of the brick's patch operator
   (the same 1D matrices, fast-diagonalization factors and dense factors) and the per-patch kernels of vpkernels.c. For
   c0ip the outer faces matter too: each patch's solver follows its pattern of boundary outer faces, and its local
   residual reads the face neighbours of its cells (vpforestc0ip.c). What differs is
   addressing: a patch's closure is read through the forest's cell-node table (its 2^dim cells may be the rank's or in
   its ghost layer), with -1 for Dirichlet nodes (read as zero).

   Multiplicative: color by color (BrickForest's colors: same-colored patches share no interior node and no interior
   meets another's closure), each color's corrections gathered in a zeroed local vector, added to their owners
   (DMLocalToGlobal ADD) and the ghosts refreshed. A node receives at most one correction per color, so every rank count
   computes the same iterate, bit for bit. Additive: all patches' corrections of one residual, summed the same way. */
#include "vpimpl.h"
#if defined(VP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* local indices of the closure of patch p, (2k+1)^dim of them, x fastest (-1: Dirichlet node): each of its 2^dim cells'
   node rows copied into place (a node two cells share gets the same number from both) */
static void VPForestClosure(const BrickForest *f, PetscInt p, PetscInt idx[])
{
  const PetscInt  k = f->k, ne = 2 * k + 1, n = k + 1, dim = f->dim, nz = dim == 3 ? n : 1;
  const PetscInt *pc = f->patchcell + p * (1 << dim);

  for (PetscInt b = 0; b < (1 << dim); b++) {
    const PetscInt *cn = f->node + pc[b] * f->nv;
    PetscInt       *dst = idx + (b & 1) * k + ne * (((b >> 1) & 1) * k + ne * ((b >> 2) & 1) * k);
    for (PetscInt z = 0; z < nz; z++)
      for (PetscInt y = 0; y < n; y++)
        for (PetscInt x = 0; x < n; x++) dst[x + ne * (y + ne * z)] = cn[x + n * (y + n * z)];
  }
}

/* one patch: the residual (local: of xa and ba on the closure; global: ba holds it), the local solve, target += omega delta */
static PetscErrorCode VPForestProcessPatch(const PC_VertexPatch *vp, const BrickForest *f, PetscInt p, const PetscScalar *xa, const PetscScalar *ba, PetscBool local, PetscScalar *target, PetscScalar *work, PetscInt *idx)
{
  const PetscInt k = f->k, ne = 2 * k + 1, ni = 2 * k - 1, dim = f->dim, nc = dim == 3 ? ne * ne * ne : ne * ne, n = dim == 3 ? ni * ni * ni : ni * ni;
  PetscInt       interior[VP_MAX_NI * VP_MAX_NI * VP_MAX_NI], c = 0;
  PetscScalar   *xbar = work, *bint = work + nc, *r = bint + n, *delta = r + n, *kw = delta + n;
  const int      cls[3] = {1, 1, 1};

  PetscFunctionBegin;
  VPForestClosure(f, p, idx);
  for (PetscInt z = (dim == 3 ? 1 : 0); z < (dim == 3 ? ne - 1 : 1); z++)
    for (PetscInt y = 1; y < ne - 1; y++)
      for (PetscInt x = 1; x < ne - 1; x++) interior[c++] = idx[x + ne * (y + ne * z)];
  for (PetscInt i = 0; i < n; i++) bint[i] = ba[interior[i]];
  if (local)
    for (PetscInt i = 0; i < nc; i++) xbar[i] = idx[i] < 0 ? 0.0 : xa[idx[i]];
  if (vp->precision == PC_VERTEXPATCH_DOUBLE) {
    if (local) VPPatchResidual_d(&vp->op_d, vp->eo_d, cls, xbar, bint, r, kw);
    else
      for (PetscInt i = 0; i < n; i++) r[i] = bint[i];
    if (vp->solver == PC_VERTEXPATCH_FDM) VPPatchSolveFDM_d(&vp->op_d, vp->eo_d, cls, r, delta, kw);
    else {
      const PetscInt key = vp->clsmap[0][1] + 3 * vp->clsmap[1][1] + 9 * vp->clsmap[2][1];
      int            info;
      for (PetscInt i = 0; i < n; i++) delta[i] = r[i];
      info = VPPatchSolveDense(n, vp->dense[key], delta);
      PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCVERTEXPATCH: the dense patch solve failed (LAPACK info %d)", info);
    }
    for (PetscInt i = 0; i < n; i++) target[interior[i]] += vp->omega * delta[i];
  } else {
    float *xf = (float *)kw, *bf = xf + nc, *rf = bf + n, *df = rf + n, *wf = df + n;
    if (local)
      for (PetscInt i = 0; i < nc; i++) xf[i] = (float)xbar[i];
    for (PetscInt i = 0; i < n; i++) bf[i] = (float)bint[i];
    if (local) VPPatchResidual_f(&vp->op_f, vp->eo_f, cls, xf, bf, rf, wf);
    else
      for (PetscInt i = 0; i < n; i++) rf[i] = bf[i];
    VPPatchSolveFDM_f(&vp->op_f, vp->eo_f, cls, rf, df, wf);
    for (PetscInt i = 0; i < n; i++) target[interior[i]] += vp->omega * (PetscScalar)df[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the patches [p0, p0 + nl) in one SIMD group (vp->nlanes lanes; the rest empty): the box's lane kernels, each lane's
   closure gathered through the forest's tables. Every forest patch is of the interior class, so any patches group. */
static PetscErrorCode VPForestLanes(const PC_VertexPatch *vp, const BrickForest *f, PetscInt p0, PetscInt nl, const PetscScalar *xa, const PetscScalar *ba, PetscBool local, PetscScalar *target)
{
  const PetscInt W = vp->nlanes, ne = 2 * f->k + 1, ni = 2 * f->k - 1, dim = f->dim, nc = dim == 3 ? ne * ne * ne : ne * ne, n = dim == 3 ? ni * ni * ni : ni * ni;
  const int      cls[3] = {1, 1, 1};
  PetscInt       idx[VP_MAX_NE * VP_MAX_NE * VP_MAX_NE], interior[VP_LANES_F][VP_MAX_NI * VP_MAX_NI * VP_MAX_NI];
  char          *work = vp->lanework;

  PetscFunctionBegin;
  for (PetscInt l = 0; l < nl; l++) {
    PetscInt c = 0;
    VPForestClosure(f, p0 + l, idx);
    for (PetscInt z = (dim == 3 ? 1 : 0); z < (dim == 3 ? ne - 1 : 1); z++)
      for (PetscInt y = 1; y < ne - 1; y++)
        for (PetscInt x = 1; x < ne - 1; x++) interior[l][c++] = idx[x + ne * (y + ne * z)];
    if (vp->precision == PC_VERTEXPATCH_DOUBLE) {
      double *xs = (double *)work, *bs = xs + (size_t)nc * W;
      if (local)
        for (PetscInt i = 0; i < nc; i++) xs[i * W + l] = idx[i] < 0 ? 0.0 : xa[idx[i]];
      for (PetscInt i = 0; i < n; i++) bs[i * W + l] = ba[interior[l][i]];
    } else {
      float *xs = (float *)work, *bs = xs + (size_t)nc * W;
      if (local)
        for (PetscInt i = 0; i < nc; i++) xs[i * W + l] = idx[i] < 0 ? 0.0f : (float)xa[idx[i]];
      for (PetscInt i = 0; i < n; i++) bs[i * W + l] = (float)ba[interior[l][i]];
    }
  }
  if (vp->precision == PC_VERTEXPATCH_DOUBLE) {
    VPLaneD *xbar = (VPLaneD *)work, *bint = xbar + nc, *r = bint + n, *delta = r + n, *kw = delta + n;
    double  *xs = (double *)xbar, *bs = (double *)bint, *ds = (double *)delta;
    for (PetscInt l = nl; l < W; l++) { /* empty lanes: zeros, so that they compute nothing that overflows */
      for (PetscInt i = 0; i < n; i++) bs[i * W + l] = 0;
      for (PetscInt i = 0; i < nc; i++) xs[i * W + l] = 0;
    }
    if (local) VPPatchResidualLanes_d(&vp->op_d, vp->eo_d, cls, xbar, bint, r, kw);
    else
      for (PetscInt i = 0; i < n; i++) r[i] = bint[i];
    if (vp->solver == PC_VERTEXPATCH_FDM) VPPatchSolveFDMLanes_d(&vp->op_d, vp->eo_d, cls, r, delta, kw);
    else {
      const PetscInt key = vp->clsmap[0][1] + 3 * vp->clsmap[1][1] + 9 * vp->clsmap[2][1];
      const double  *rs  = (const double *)r;
      for (PetscInt l = 0; l < nl; l++) {
        PetscScalar one[VP_MAX_NI * VP_MAX_NI * VP_MAX_NI];
        int         info;
        for (PetscInt i = 0; i < n; i++) one[i] = rs[i * W + l];
        info = VPPatchSolveDense(n, vp->dense[key], one);
        PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCVERTEXPATCH: the dense patch solve failed (LAPACK info %d)", info);
        for (PetscInt i = 0; i < n; i++) ds[i * W + l] = one[i];
      }
    }
    for (PetscInt l = 0; l < nl; l++)
      for (PetscInt i = 0; i < n; i++) target[interior[l][i]] += vp->omega * ds[i * W + l];
  } else {
    VPLaneF *xbar = (VPLaneF *)work, *bint = xbar + nc, *r = bint + n, *delta = r + n, *kw = delta + n;
    float   *xs = (float *)xbar, *bs = (float *)bint, *ds = (float *)delta;
    for (PetscInt l = nl; l < W; l++) {
      for (PetscInt i = 0; i < n; i++) bs[i * W + l] = 0;
      for (PetscInt i = 0; i < nc; i++) xs[i * W + l] = 0;
    }
    if (local) VPPatchResidualLanes_f(&vp->op_f, vp->eo_f, cls, xbar, bint, r, kw);
    else
      for (PetscInt i = 0; i < n; i++) r[i] = bint[i];
    VPPatchSolveFDMLanes_f(&vp->op_f, vp->eo_f, cls, r, delta, kw);
    for (PetscInt l = 0; l < nl; l++)
      for (PetscInt i = 0; i < n; i++) target[interior[l][i]] += vp->omega * (PetscScalar)ds[i * W + l];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VPForestColor(PC_VertexPatch *vp, const BrickForest *f, PetscInt color, const PetscScalar *xa, const PetscScalar *ba, PetscBool local, PetscScalar *target)
{
  PetscInt idx[VP_MAX_NE * VP_MAX_NE * VP_MAX_NE];

  PetscFunctionBegin;
  if (vp->forestc0ip) { /* C0IP: the patch's own solver, its own residual (vpforestc0ip.c) */
    const PetscInt k = f->k, ne = 2 * k + 1, dim = f->dim;
    PetscInt       interior[VP_MAX_NI * VP_MAX_NI * VP_MAX_NI];
    for (PetscInt p = f->colorptr[color]; p < f->colorptr[color + 1]; p++) {
      PetscInt c = 0;
      VPForestClosure(f, p, idx);
      for (PetscInt z = (dim == 3 ? 1 : 0); z < (dim == 3 ? ne - 1 : 1); z++)
        for (PetscInt y = 1; y < ne - 1; y++)
          for (PetscInt x = 1; x < ne - 1; x++) interior[c++] = idx[x + ne * (y + ne * z)];
      PetscCall(PCVertexPatchForestC0IPPatch(vp, p, interior, local ? xa : NULL, ba, target, vp->work));
    }
    PetscCall(PetscLogFlops(PCVertexPatchForestC0IPFlops(vp, f->colorptr[color], f->colorptr[color + 1], local)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (vp->nlanes > 1)
    for (PetscInt p = f->colorptr[color]; p < f->colorptr[color + 1]; p += vp->nlanes) PetscCall(VPForestLanes(vp, f, p, PetscMin(vp->nlanes, f->colorptr[color + 1] - p), xa, ba, local, target));
  else
    for (PetscInt p = f->colorptr[color]; p < f->colorptr[color + 1]; p++) PetscCall(VPForestProcessPatch(vp, f, p, xa, ba, local, target, vp->work, idx));
  PetscCall(PetscLogFlops(vp->flops_per_patch * (f->colorptr[color + 1] - f->colorptr[color])));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchDestroyForest(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  if (vp->forestgpu) {
    const int err = VPCudaForestSmootherDestroy((VPCudaForestSmoother *)&vp->forestgpu);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaForestSmootherDestroy: %s", VPCudaErrorString(err));
  }
#endif
  vp->forestgpu = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(VP_HAVE_CUDA)
/* the CUDA smoother of the forest's patches: its tables (as int) and the patch operator */
static PetscErrorCode VPForestSetUpGPU(PC pc)
{
  PC_VertexPatch    *vp = (PC_VertexPatch *)pc->data;
  const BrickForest *f  = ((DM_Brick *)vp->dm->data)->forest;
  int               *node, *pcell, err;

  PetscFunctionBegin;
  if (vp->forestc0ip) { /* c0ip: its own patch step (vpforestc0ip.c) */
    PetscCall(PCVertexPatchForestC0IPSetUpGPU(vp));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (vp->forestgpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BrickForestNodeTableInt(f, f->ncells + f->nghost, &node));
  PetscCall(PetscMalloc1(f->npatches * (1 << f->dim) + 1, &pcell));
  for (PetscInt i = 0; i < f->npatches * (1 << f->dim); i++) pcell[i] = (int)f->patchcell[i];
  err = VPCudaForestSmootherCreate(&vp->op_d, &vp->op_f, (int)f->k, (int)f->npatches, pcell, (int)(f->ncells + f->nghost), node, vp->gpu_kernel != PC_VERTEXPATCH_GPU_KERNEL_GLOBAL, (int)vp->gpu_lines, (VPCudaForestSmoother *)&vp->forestgpu);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaForestSmootherCreate: %s", VPCudaErrorString(err));
  PetscCall(PetscFree(node));
  PetscCall(PetscFree(pcell));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one color on the device: tv += the corrections of its patches (xv NULL: bv holds the residual; xv == tv: in place) */
static PetscErrorCode VPForestColorGPU(PC_VertexPatch *vp, const BrickForest *f, PetscInt color, Vec xv, Vec bv, Vec tv)
{
  const PetscScalar *xa = NULL, *ba;
  PetscScalar       *da;
  int                err;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArray(tv, &da));
  if (xv && xv != tv) PetscCall(VecCUDAGetArrayRead(xv, &xa));
  else if (xv) xa = da;
  PetscCall(VecCUDAGetArrayRead(bv, &ba));
  if (vp->forestc0ip) PetscCall(PCVertexPatchForestC0IPStepGPU(vp, f->colorptr[color], f->colorptr[color + 1], xa, ba, da)); /* c0ip: its own step */
  else {
    PetscCall(PetscLogGpuTimeBegin());
    err = VPCudaForestSmootherStep((VPCudaForestSmoother)vp->forestgpu, vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION, (int)f->colorptr[color], (int)f->colorptr[color + 1], ba, xa, da, vp->omega);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the forest's smoothing step: %s", VPCudaErrorString(err));
    PetscCall(PetscLogGpuFlops(vp->flops_per_patch * (f->colorptr[color + 1] - f->colorptr[color])));
  }
  PetscCall(VecCUDARestoreArrayRead(bv, &ba));
  if (xv && xv != tv) PetscCall(VecCUDARestoreArrayRead(xv, &xa));
  PetscCall(VecCUDARestoreArray(tv, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* a color's step on the host or on the device (the vectors' place decides, as everywhere in the brick): tv += its
   patches' corrections, their residuals from xv and bv (local residual) or bv alone (xv NULL); xv == tv works in place
   (one rank: the global vectors have the local layout, and a color's patches write no node another one reads) */
static PetscErrorCode VPForestColorVecs(PC_VertexPatch *vp, const BrickForest *f, PetscInt color, Vec xv, Vec bv, Vec tv, PetscBool device)
{
  const PetscScalar *xa = NULL, *ba;
  PetscScalar       *da;

  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  if (device) {
    PetscCall(VPForestColorGPU(vp, f, color, xv, bv, tv));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(VecGetArray(tv, &da));
  if (xv && xv != tv) PetscCall(VecGetArrayRead(xv, &xa));
  else if (xv) xa = da;
  PetscCall(VecGetArrayRead(bv, &ba));
  PetscCall(VPForestColor(vp, f, color, xa, ba, (PetscBool)(xv != NULL), da));
  PetscCall(VecRestoreArrayRead(bv, &ba));
  if (xv && xv != tv) PetscCall(VecRestoreArrayRead(xv, &xa));
  PetscCall(VecRestoreArray(tv, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchSetUpForest(PC pc)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;

  PetscFunctionBegin;
  PetscCall(DMBrickForestCheckOperator_Private(vp->dm, "PCVERTEXPATCH with -dm_brick_operator"));
  PetscCheck(vp->schedule == PC_VERTEXPATCH_COLORED, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_vertexpatch_schedule %s on a forest brick: allowed: colored (within a color the forest's patches come in p4est's curve order)", PCVertexPatchSchedules[vp->schedule]);
  PetscCall(PCVertexPatchSetUpPatchOperator(pc));
  PetscCall(PCVertexPatchSetUpEvenOdd(pc));
  vp->forest   = PETSC_TRUE;
  vp->npatches = brick->forest->npatches;
  vp->ncolors  = brick->forest->ncolors;
  vp->nthreads = 1;
  PetscCall(PetscFree(vp->work));
  PetscCall(PetscMalloc1(PCVertexPatchWorkSize(vp), &vp->work));
  PetscCall(PCVertexPatchSetUpLanes(vp, PETSC_TRUE)); /* the host steps in SIMD groups of patches (-pc_vertexpatch_simd) */
  PetscCall(PCVertexPatchDestroyForestC0IP(pc));
  if (brick->op.ghost_cells > 1) {
    PetscCall(PCVertexPatchSetUpForestC0IP(pc));
    vp->nlanes = 1; /* one patch at a time (the patterns differ in their solvers) */
  }
  {
    /* the work vectors now, in the set-up, where a step uses them: one rank's multiplicative sweep with local residuals
       works in place and needs none (four vectors of the level: 12.6 GB at 394M DoFs) */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)vp->dm), &size));
    if (size > 1 || vp->type == PC_VERTEXPATCH_ADDITIVE || vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL) PetscCall(PCVertexPatchGetWorkVectors(pc));
  }
  PetscCall(PCVertexPatchDestroyForest(pc));
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(vp->dm, &device));
    PetscCheck(!device || vp->solver == PC_VERTEXPATCH_FDM || vp->forestc0ip, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_vertexpatch_local_solver %s on a forest with device vectors: the GPU forest kernel solves by fast diagonalization; allowed: fdm", PCVertexPatchLocalSolvers[vp->solver]);
    if (device) PetscCall(VPForestSetUpGPU(pc));
  }
#endif
  PetscCall(PCVertexPatchEstimateDamping(pc)); /* c0ip additive: the default damping from lambda_max(B A) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = one multiplicative sweep from x (or from zero) for A x = b */
PetscErrorCode PCVertexPatchSmoothForest(PC pc, Vec b, Vec x, PetscBool guesszero)
{
  PC_VertexPatch    *vp = (PC_VertexPatch *)pc->data;
  const BrickForest *f  = ((DM_Brick *)vp->dm->data)->forest;
  const PetscBool    local = (PetscBool)(vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL);
  PetscBool          device, onerank;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_VertexPatchSmooth, pc, b, x, 0));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)vp->dm), &size));
  onerank = (PetscBool)(size == 1);
  PetscCall(DMBrickVecsOnDevice_Private(b, x, &device));
#if defined(VP_HAVE_CUDA)
  if (device) PetscCall(VPForestSetUpGPU(pc));
#endif
  if (guesszero) PetscCall(VecZeroEntries(x));
  if (onerank) { /* in place: no local copies, no exchanges */
    if (!local) PetscCall(PCVertexPatchGetWorkVectors(pc));
    for (PetscInt ic = 0; ic < f->ncolors; ic++) {
      const PetscInt c = vp->reverse ? f->ncolors - 1 - ic : ic;
      if (!local) {
        PetscCall(MatMult(pc->pmat, x, vp->r));
        PetscCall(VecAYPX(vp->r, -1.0, b));
      }
      PetscCall(VPForestColorVecs(vp, f, c, local ? x : NULL, local ? b : vp->r, x, device));
    }
    PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, x, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCVertexPatchGetWorkVectors(pc));
  if (local) PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, vp->bl));
  for (PetscInt ic = 0; ic < f->ncolors; ic++) {
    const PetscInt c = vp->reverse ? f->ncolors - 1 - ic : ic;
    if (local) PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, vp->xl));
    else {
      PetscCall(MatMult(pc->pmat, x, vp->r));
      PetscCall(VecAYPX(vp->r, -1.0, b));
      PetscCall(DMGlobalToLocal(vp->dm, vp->r, INSERT_VALUES, vp->bl));
    }
    PetscCall(VecZeroEntries(vp->dl));
    PetscCall(VPForestColorVecs(vp, f, c, local ? vp->xl : NULL, vp->bl, vp->dl, device));
    PetscCall(DMLocalToGlobal(vp->dm, vp->dl, ADD_VALUES, x));
  }
  PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y += omega sum_p R_p^T A_p^-1 R_p (b - A x) (x NULL: zero) */
PetscErrorCode PCVertexPatchAdditiveForest(PC pc, Vec b, Vec x, Vec y)
{
  PC_VertexPatch    *vp = (PC_VertexPatch *)pc->data;
  const BrickForest *f  = ((DM_Brick *)vp->dm->data)->forest;
  const PetscBool    local = (PetscBool)(x && vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL);
  PetscBool          device;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_VertexPatchSmooth, pc, b, y, 0));
  PetscCall(PCVertexPatchGetWorkVectors(pc));
  PetscCall(DMBrickVecsOnDevice_Private(b, y, &device));
#if defined(VP_HAVE_CUDA)
  if (device) PetscCall(VPForestSetUpGPU(pc));
#endif
  if (x && !local) {
    PetscCall(MatMult(pc->pmat, x, vp->r));
    PetscCall(VecAYPX(vp->r, -1.0, b));
    PetscCall(DMGlobalToLocal(vp->dm, vp->r, INSERT_VALUES, vp->bl));
  } else PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, vp->bl));
  if (local) PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, vp->xl));
  PetscCall(VecZeroEntries(vp->dl));
  for (PetscInt ic = 0; ic < f->ncolors; ic++) PetscCall(VPForestColorVecs(vp, f, vp->reverse ? f->ncolors - 1 - ic : ic, local ? vp->xl : NULL, vp->bl, vp->dl, device));
  PetscCall(DMLocalToGlobal(vp->dm, vp->dl, ADD_VALUES, y));
  PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
