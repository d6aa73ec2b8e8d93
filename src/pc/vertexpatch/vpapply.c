/* The smoothing sweeps of PCVERTEXPATCH on the CPU: gather a patch, local residual, local solve, update.

   Multiplicative: patches of one color do not overlap (their interiors are disjoint and no interior meets
   another patch's closure), so a color is processed in any order, in place. With several ranks the sweep works in
   place in the ghosted local vector and exchanges only ghosts between colors (vpghost.c); with global residuals a
   color writes its corrections into a zeroed local vector that is added to the owners (DMLocalToGlobal ADD). Either
   way the result equals the one-rank sweep. */
#include "vpimpl.h"

static PetscErrorCode VPGetLayout(PC_VertexPatch *vp, VPLayout *L)
{
  DM_Brick *brick = (DM_Brick *)vp->dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    L->gs[d] = brick->gstart[d];
    L->gw[d] = brick->gwidth[d];
  }
  for (PetscInt d = 0; d < 3; d++) L->nk[d] = d < brick->dim ? brick->degree * brick->cells[d] : 1;
  L->k   = brick->degree;
  L->dim = brick->dim;
  L->g   = brick->op.ghost_cells;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* per-thread scratch of VPProcessPatch: closure and interior arrays, the residual's contractions (three x
   kinds, one xy and one result array), the solve, and the same again in float for single precision */
PetscInt PCVertexPatchWorkSize(const PC_VertexPatch *vp)
{
  const PetscInt ne = vp->op_d.ne, ni = vp->op_d.ni, dim = vp->op_d.dim;
  const PetscInt nc = dim == 3 ? ne * ne * ne : ne * ne, nint = dim == 3 ? ni * ni * ni : ni * ni, nx = dim == 3 ? ni * ne * ne : ni * ne;
  const PetscInt kernel = BRICK_LINE_NKINDS * nx + ni * ni * ne + 2 * nint + 2 * nint;

  return 2 * (nc + 4 * nint + kernel);
}

/* One patch: r = (local residual of x and b) or (R_j of a global residual in rx), delta = A_j^-1 r,
   target[interior] += omega delta. */
/* Plain C (it runs inside OpenMP regions, where PETSc's error and stack machinery must not be used):
   returns 0, or the LAPACK error code of the dense solve. */
static int VPProcessPatch(const PC_VertexPatch *vp, const VPLayout *L, const PetscInt v[3], const PetscScalar *xa, const PetscScalar *ba, PetscBool local, PetscScalar *target, PetscScalar *work)
{
  const PetscInt ne = 2 * L->g * L->k + 1, ni = 2 * L->k - 1, dim = L->dim, nc = dim == 3 ? ne * ne * ne : ne * ne, n = dim == 3 ? ni * ni * ni : ni * ni;
  const PetscInt ilo = vp->op_d.inner_lo, ihi = vp->op_d.inner_hi, first = (L->g - 1) * L->k + 1;
  PetscInt       off[3][VP_MAX_NE], m[3], interior[VP_MAX_NI * VP_MAX_NI * VP_MAX_NI];
  PetscScalar   *xbar = work, *bint = work + nc, *r = bint + n, *delta = r + n, *kw = delta + n;
  PetscInt       c      = 0;
  int            cls[3] = {0, 0, 0};

  for (PetscInt d = 0; d < dim; d++) cls[d] = (int)PCVertexPatchClass(v[d], L->nk[d] / L->k);
  VPClosureOffsets(L, v, off, m);
  /* interior nodes are never on the domain boundary: their offsets are all valid */
  for (PetscInt z = (dim == 3 ? first : 0); z < (dim == 3 ? first + ni : 1); z++)
    for (PetscInt y = first; y < first + ni; y++)
      for (PetscInt x = first; x < first + ni; x++) interior[c++] = off[0][x] + off[1][y] + off[2][z];
  for (PetscInt i = 0; i < n; i++) bint[i] = ba[interior[i]];
  if (local) {
    /* the closure: the patch cells, and their face neighbours where the operator reads them (nodes outside
       the patch cells in at most one direction); the rest is never multiplied by a non-zero and is left 0 so
       that the sweep reads nothing another patch of the color may be writing */
    c = 0;
    for (PetscInt z = 0; z < m[2]; z++)
      for (PetscInt y = 0; y < m[1]; y++)
        for (PetscInt x = 0; x < m[0]; x++, c++) {
          const PetscInt outside = (x < ilo || x > ihi) + (y < ilo || y > ihi) + (dim == 3 && (z < ilo || z > ihi));
          xbar[c]                = (outside > 1 || off[0][x] < 0 || off[1][y] < 0 || off[2][z] < 0) ? 0.0 : xa[off[0][x] + off[1][y] + off[2][z]];
        }
  }
  if (vp->precision == PC_VERTEXPATCH_DOUBLE) {
    if (local) VPPatchResidual_d(&vp->op_d, vp->eo_d, cls, xbar, bint, r, kw);
    else
      for (PetscInt i = 0; i < n; i++) r[i] = bint[i];
    if (vp->solver == PC_VERTEXPATCH_FDM) VPPatchSolveFDM_d(&vp->op_d, vp->eo_d, cls, r, delta, kw);
    else {
      const PetscInt key = vp->clsmap[0][cls[0]] + 3 * vp->clsmap[1][cls[1]] + 9 * vp->clsmap[2][cls[2]];
      int            info;
      for (PetscInt i = 0; i < n; i++) delta[i] = r[i];
      info = VPPatchSolveDense(n, vp->dense[key], delta);
      if (info) return info;
    }
    for (PetscInt i = 0; i < n; i++) target[interior[i]] += vp->omega * delta[i];
  } else {
    /* single precision: the patch is rounded to float, worked on in float, and the correction added in double */
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
  return 0;
}

/* Batch bt of color c (bt < 0: the whole color) of the processing order. Its patches write disjoint nodes, so the colored
   and batched schedules run them on vp->nthreads threads, and in SIMD groups (vp->nlanes > 1); the result depends on
   neither. The single schedule's one "color" is the sequential loop. */
static PetscErrorCode VPProcessRange(PC_VertexPatch *vp, const VPLayout *L, PetscInt c, PetscInt bt, const PetscScalar *xa, const PetscScalar *ba, PetscBool local, PetscScalar *target)
{
  const PetscInt  wsize = PCVertexPatchWorkSize(vp), r0 = c * (vp->nbatches + 1) + (bt < 0 ? 0 : bt), r1 = c * (vp->nbatches + 1) + (bt < 0 ? vp->nbatches : bt + 1);
  const PetscInt  start = vp->batchptr[r0], end = vp->batchptr[r1];
  const PetscBool threads = (PetscBool)(vp->schedule != PC_VERTEXPATCH_SINGLE && vp->nthreads > 1);
  int             info    = 0;

  PetscFunctionBegin;
  PetscCall(PCVertexPatchSetUpLanes(vp, PETSC_TRUE));
  if (vp->nlanes > 1) {
    /* each thread a contiguous share of the range, grouped as its patches come */
#if defined(_OPENMP)
  #pragma omp parallel num_threads(vp->nthreads) reduction(max : info) if (threads)
    {
      const PetscInt t = omp_get_thread_num(), nt = omp_get_num_threads(), n = end - start;
      const int      e = VPProcessLanesRange(vp, L, start + n * t / nt, start + n * (t + 1) / nt, xa, ba, local, target, vp->lanework + (size_t)t * vp->lanework_bytes);
      if (e > info) info = e;
    }
#else
    info = VPProcessLanesRange(vp, L, start, end, xa, ba, local, target, vp->lanework);
#endif
  } else {
#if defined(_OPENMP)
    if (threads) {
      /* exactly the threads the work buffers were made for, each a contiguous share of the range */
  #pragma omp parallel num_threads(vp->nthreads) reduction(max : info)
      {
        const PetscInt t = omp_get_thread_num(), nt = omp_get_num_threads(), n = end - start, p0 = start + n * t / nt, p1 = start + n * (t + 1) / nt;
        VPPatchWalk    w;
        VPPatchWalkInit(&w, vp, p0);
        for (PetscInt p = p0; p < p1; p++, VPPatchWalkNext(&w)) {
          PetscInt v[3];
          VPPatchWalkVertex(&w, v);
          const int e = VPProcessPatch(vp, L, v, xa, ba, local, target, vp->work + t * wsize);
          if (e > info) info = e;
        }
      }
    } else
#endif
      if (vp->reverse && vp->schedule == PC_VERTEXPATCH_SINGLE) {
      /* the single loop's backward sweep (a color's patches are independent: their order does not matter) */
      for (PetscInt p = end - 1; p >= start && !info; p--) {
        PetscInt v[3];
        PCVertexPatchGetVertex(vp, p, v);
        info = VPProcessPatch(vp, L, v, xa, ba, local, target, vp->work);
      }
    } else {
      VPPatchWalk w;
      (void)threads;
      VPPatchWalkInit(&w, vp, start);
      for (PetscInt p = start; p < end && !info; p++, VPPatchWalkNext(&w)) {
        PetscInt v[3];
        VPPatchWalkVertex(&w, v);
        info = VPProcessPatch(vp, L, v, xa, ba, local, target, vp->work);
      }
    }
  }
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK potrs failed on a patch: %d", info);
  PetscCall(PetscLogFlops(vp->host_flops_per_patch * (end - start)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   PCVertexPatchSetUpHostWork - what the host steps of a set-up smoother use besides its patch data, made at setup so that the
   first step of a solve neither allocates nor touches fresh memory: nothing for the one-rank multiplicative step with local
   residuals (it works in place on the level's vectors), the ghost exchange (and its local vectors) for that step on several
   ranks, the work vectors otherwise. Collective on the PC.
*/
PetscErrorCode PCVertexPatchSetUpHostWork(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPLayout        L;

  PetscFunctionBegin;
  if (vp->type == PC_VERTEXPATCH_MULTIPLICATIVE && vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL) {
    if (((DM_Brick *)vp->dm->data)->nactive <= 1) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(VPGetLayout(vp, &L));
    PetscCall(PCVertexPatchSetUpGhostExchange(pc, &L));
  } else PetscCall(PCVertexPatchGetWorkVectors(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One multiplicative smoothing step x <- S(x, b); guesszero: x is zero on entry (its values are not read). */
PetscErrorCode PCVertexPatchSmooth(PC pc, Vec b, Vec x, PetscBool guesszero)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPLayout        L;
  const PetscBool local = (PetscBool)(vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL);
  /* several ranks with local residuals sweep in the ghosted local vector and write all of x at the end: a zero guess
     zeroes that local vector instead of x (no copy of x into it, no ghost exchange of zeros) */
  const PetscBool ghosted = (PetscBool)(local && ((DM_Brick *)vp->dm->data)->nactive > 1);

  PetscBool gpu;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_VertexPatchSmooth, pc, b, x, 0));
  PetscCall(VPGetLayout(vp, &L));
  if (guesszero && !ghosted) PetscCall(VecZeroEntries(x));
  PetscCall(PCVertexPatchUseGPU(pc, b, x, &gpu));
  if (gpu) {
    PetscCall(PCVertexPatchSmoothGPU(pc, b, x, (PetscBool)(guesszero && ghosted)));
    PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, x, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (local && ((DM_Brick *)vp->dm->data)->nactive <= 1) {
    /* one rank holds the level: its global array has the local layout; update in place (the other ranks have nothing) */
    PetscScalar       *xa;
    const PetscScalar *ba;
    PetscCall(VecGetArray(x, &xa));
    PetscCall(VecGetArrayRead(b, &ba));
    for (PetscInt ib = 0; ib < vp->nbatches; ib++)
      for (PetscInt ic = 0; ic < vp->ncolors; ic++) {
        const PetscInt  bt = vp->reverse ? vp->nbatches - 1 - ib : ib, c = vp->reverse ? vp->ncolors - 1 - ic : ic;
        PetscCall(VPProcessRange(vp, &L, c, bt, xa, ba, PETSC_TRUE, xa));
      }
    PetscCall(VecRestoreArrayRead(b, &ba));
    PetscCall(VecRestoreArray(x, &xa));
  } else if (local) {
    /* several ranks: in place in the local vector, exchanging only ghosts between colors (vpghost.c) */
    PetscScalar       *xa;
    const PetscScalar *ba;
    Vec                xl, bl; /* x's and b's in-place locals (-dm_brick_slabs), else the smoother's own */
    PetscCall(PCVertexPatchSetUpGhostExchange(pc, &L));
    PetscCall(PCVertexPatchLocalRHS(pc, b, &bl));
    PetscCall(PCVertexPatchSweepLocal(pc, x, PETSC_FALSE, &xl));
    if (guesszero) PetscCall(VecZeroEntries(xl));
    else PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, xl));
    PetscCall(VecGetArray(xl, &xa));
    PetscCall(VecGetArrayRead(bl, &ba));
    for (PetscInt ic = 0; ic < vp->ncolors; ic++) {
      const PetscInt  c       = vp->reverse ? vp->ncolors - 1 - ic : ic;
      const PetscBool refresh = (PetscBool)(ic < vp->ncolors - 1);
      /* split schedule: the patches reaching shared nodes, the exchange under way while the others run */
      PetscCall(VPProcessRange(vp, &L, c, vp->split ? 0 : -1, xa, ba, PETSC_TRUE, xa));
      PetscCall(PCVertexPatchExchangeGhostsBegin(pc, c, refresh, xa));
      if (vp->split) PetscCall(VPProcessRange(vp, &L, c, 1, xa, ba, PETSC_TRUE, xa));
      PetscCall(PCVertexPatchExchangeGhostsEnd(pc, c, refresh, xa));
    }
    PetscCall(VecRestoreArrayRead(bl, &ba));
    PetscCall(VecRestoreArray(xl, &xa));
    PetscCall(DMLocalToGlobal(vp->dm, xl, INSERT_VALUES, x)); /* the owned values (in place: nothing); no message */
  } else {
    /* global residuals: one product per color, its corrections summed into the owners */
    PetscScalar       *da;
    const PetscScalar *ba;
    PetscCall(PCVertexPatchGetWorkVectors(pc));
    for (PetscInt ic = 0; ic < vp->ncolors; ic++) {
      const PetscInt c = vp->reverse ? vp->ncolors - 1 - ic : ic;
      PetscCall(MatMult(pc->pmat, x, vp->r));
      PetscCall(VecAYPX(vp->r, -1.0, b));
      PetscCall(DMGlobalToLocal(vp->dm, vp->r, INSERT_VALUES, vp->bl));
      PetscCall(VecZeroEntries(vp->dl));
      PetscCall(VecGetArrayRead(vp->bl, &ba));
      PetscCall(VecGetArray(vp->dl, &da));
      PetscCall(VPProcessRange(vp, &L, c, -1, NULL, ba, PETSC_FALSE, da));
      PetscCall(VecRestoreArray(vp->dl, &da));
      PetscCall(VecRestoreArrayRead(vp->bl, &ba));
      PetscCall(DMLocalToGlobal(vp->dm, vp->dl, ADD_VALUES, x));
    }
  }
  PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Additive step: y += omega sum_j R_j^T A_j^-1 r_j, with r_j the residual of x (or, x == NULL, of zero:
   r_j = R_j b). The local variant forms r_j on each patch from x's closure; the global one from b - A x. */
PetscErrorCode PCVertexPatchAdditive(PC pc, Vec b, Vec x, Vec y)
{
  PC_VertexPatch    *vp = (PC_VertexPatch *)pc->data;
  VPLayout           L;
  PetscScalar       *da;
  const PetscScalar *xa, *ba;
  PetscBool          local = (PetscBool)(x && vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL), gpu;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_VertexPatchSmooth, pc, b, y, 0));
  PetscCall(PCVertexPatchUseGPU(pc, b, y, &gpu));
  if (gpu) {
    PetscCall(PCVertexPatchAdditiveGPU(pc, b, x, y));
    PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCVertexPatchGetWorkVectors(pc));
  PetscCall(VPGetLayout(vp, &L));
  if (x && !local) {
    PetscCall(MatMult(pc->pmat, x, vp->r));
    PetscCall(VecAYPX(vp->r, -1.0, b));
    PetscCall(DMGlobalToLocal(vp->dm, vp->r, INSERT_VALUES, vp->bl));
  } else PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, vp->bl));
  if (local) PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, vp->xl));
  PetscCall(VecZeroEntries(vp->dl));
  PetscCall(VecGetArrayRead(vp->xl, &xa));
  PetscCall(VecGetArrayRead(vp->bl, &ba));
  PetscCall(VecGetArray(vp->dl, &da));
  /* color by color (the processing order is sorted by color): the patches of one color write disjoint nodes, so they may
     run on several threads, and each node still receives its patches' corrections in the order of one thread */
  for (PetscInt ic = 0; ic < vp->ncolors; ic++) {
    const PetscInt c = vp->reverse ? vp->ncolors - 1 - ic : ic;
    PetscCall(VPProcessRange(vp, &L, c, -1, xa, ba, local, da));
  }
  PetscCall(VecRestoreArray(vp->dl, &da));
  PetscCall(VecRestoreArrayRead(vp->bl, &ba));
  PetscCall(VecRestoreArrayRead(vp->xl, &xa));
  PetscCall(DMLocalToGlobal(vp->dm, vp->dl, ADD_VALUES, y));
  PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
