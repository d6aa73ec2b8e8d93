/* Grid transfer between brick levels. The prolongation is the embedding of the coarse Q_k space in the
   fine one (interpolation at the fine nodes); on a Cartesian grid it is the Kronecker product of 1D
   embeddings, applied direction by direction. Restriction is its transpose. Each rank computes its owned fine
   nodes from a box of coarse nodes: the part of the box this rank owns on the coarse level is copied from (and, in
   the restriction, summed back into) the coarse vector as a block, the rest (a layer of nodes where the two levels
   are partitioned alike; more where they are not: agglomeration, the coarsest levels) comes through a PetscSF from
   the ranks that own it. No O(N) index set: a VecScatter of the whole box took seconds of set-up per level at 1e9
   DoFs. When one rank holds both levels the GPU kernels work on the coarse vector itself (no box). */
#include "brickimpl.h"
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#endif

/* The 1D prolongation along one direction, row by row for the fine nodes of the fine box: row i has cnt[i] weights
   P1[w[i] ..] for the coarse box nodes start[i] .. (the nonzero range of the node's row of P1, found at setup, so that
   an application does no index arithmetic and no division per node). */
typedef struct {
  PetscInt *start, *cnt, *w;
} BrickTransferLine;

typedef struct {
  DM             dmc, dmf;
  BrickBoxGather gather;                                                     /* the coarse nodes of stage[0] from the coarse vector; its vec
                                                                                holds them (boundary nodes: 0) */
  PetscBool         direct;                                                  /* one rank holds both levels: no gather */
  PetscBool         cboxdirty;                                               /* the box's boundary entries hold restriction output */
  PetscReal         P1[(2 * BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)]; /* one coarse cell into its two children */
  BrickBox          stage[4];                                                /* stage[0]: coarse nodes read; stage[d+1]: after direction d */
  PetscScalar      *buf[4];                                                  /* host boxes of the stages (buf[0]: direct only) */
  BrickTransferLine line[3];                                                 /* per direction: each owned fine node's coarse nodes and weights */
  PetscBool         fineowned;                                               /* the fine box is the owned array, node for node: the last stage writes
                                                                                (the first of the transpose reads) the vector's array, no buf[dim] */
  void *gpu;                                                                 /* the CUDA transfer (VP_HAVE_CUDA), made with the shell when the bricks' vectors are device vectors */
} BrickTransfer;

/* the coarse box from the coarse vector x: its boundary entries zeroed first where a restriction wrote them */
static PetscErrorCode BrickTransferGather(BrickTransfer *t, PetscBool device, Vec x)
{
  PetscFunctionBegin;
  if (t->cboxdirty) PetscCall(VecZeroEntries(t->gather.vec));
  t->cboxdirty = PETSC_FALSE;
  PetscCall(DMBrickBoxGather_Private(&t->gather, device, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(VP_HAVE_CUDA)
static inline void BrickTransferCell(PetscInt, PetscInt, PetscInt, PetscInt *, PetscInt *);

/* The 1D prolongation from the coarse box (stage[0], boundary nodes included: they hold zero) to the owned fine nodes,
   row-wise with width k+1 (fine row i: box columns c k - lo + j), and its transpose with width 4k+1 (a coarse node
   reaches the fine nodes of at most two coarse cells). */
static PetscErrorCode BrickTransferCreateGPU(BrickTransfer *t)
{
  DM_Brick *cb = (DM_Brick *)t->dmc->data, *fb = (DM_Brick *)t->dmf->data;
  const int k = (int)fb->degree, wp = k + 1, wr = 4 * k + 1;
  int       nc[3] = {1, 1, 1}, nf[3] = {1, 1, 1}, *ps[3] = {NULL}, *rs[3] = {NULL}, err;
  double   *pv[3] = {NULL}, *rv[3] = {NULL};

  PetscFunctionBegin;
  for (PetscInt d = 0; d < fb->dim; d++) {
    const BrickBox *cbox = &t->stage[0], *fbox = &t->stage[fb->dim];
    /* direct: the columns are the coarse vector's interior nodes (box node - 1); the boundary columns fall outside
       [0, nc) and drop out, as they hold zero */
    const int shift = t->direct ? 1 : 0;
    nc[d]           = t->direct ? (int)(cb->degree * cb->cells[d] - 1) : (int)(cbox->hi[d] - cbox->lo[d] + 1);
    nf[d]           = (int)(fbox->hi[d] - fbox->lo[d] + 1);
    PetscCall(PetscMalloc2(nf[d], &ps[d], nf[d] * wp, &pv[d]));
    PetscCall(PetscMalloc1(nc[d], &rs[d]));
    PetscCall(PetscCalloc1(nc[d] * wr, &rv[d]));
    for (int J = 0; J < nc[d]; J++) rs[d][J] = -1;
    for (int i = 0; i < nf[d]; i++) {
      PetscInt c, row;
      BrickTransferCell(k, cb->cells[d], fbox->lo[d] + i, &c, &row);
      ps[d][i] = (int)(c * k - cbox->lo[d]) - shift;
      for (int j = 0; j < wp; j++) {
        const int J       = ps[d][i] + j;
        pv[d][i * wp + j] = t->P1[row * (k + 1) + j];
        if (J < 0 || J >= nc[d] || pv[d][i * wp + j] == 0.0) continue;
        if (rs[d][J] < 0) rs[d][J] = i; /* fine rows come in increasing order: the first is the start */
        PetscCheck(i - rs[d][J] < wr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Brick restriction row wider than %d", wr);
        rv[d][J * wr + i - rs[d][J]] = pv[d][i * wp + j];
      }
    }
    for (int J = 0; J < nc[d]; J++)
      if (rs[d][J] < 0) rs[d][J] = 0;
  }
  err = VPCudaTransferCreate((int)fb->dim, nc, nf, wp, (const int *const *)ps, (const double *const *)pv, wr, (const int *const *)rs, (const double *const *)rv, (VPCudaTransfer *)&t->gpu);
  for (PetscInt d = 0; d < fb->dim; d++) {
    PetscCall(PetscFree2(ps[d], pv[d]));
    PetscCall(PetscFree(rs[d]));
    PetscCall(PetscFree(rv[d]));
  }
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaTransferCreate: %s", VPCudaErrorString(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* prolong: gather the coarse box (the box gather), then the kernel into the owned fine nodes; restrict: the kernel
   into the box, then its scatter back into the coarse vector with ADD_VALUES */
static PetscErrorCode BrickTransferApplyGPU(BrickTransfer *t, PetscBool prolong, Vec x, Vec y)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  const PetscBool    empty  = (PetscBool)(BrickBoxSize(&t->stage[((DM_Brick *)t->dmf->data)->dim]) <= 0);
  const int          single = ((DM_Brick *)t->dmc->data)->precision == DMBRICK_PRECISION_SINGLE; /* a transfer into or out of a coarse brick computes in that brick's precision */
  int                err    = 0;

  PetscFunctionBegin;
  if (!t->gpu && !empty) PetscCall(BrickTransferCreateGPU(t));
  if (t->direct) { /* the kernels read and write the level vectors; the empty ranks still touch y (its state) */
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArrayWrite(y, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    if (!empty) err = prolong ? VPCudaTransferProlong((VPCudaTransfer)t->gpu, single, xa, ya) : VPCudaTransferRestrict((VPCudaTransfer)t->gpu, single, xa, ya);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  } else if (prolong) {
    PetscCall(BrickTransferGather(t, PETSC_TRUE, x));
    PetscCall(VecCUDAGetArrayRead(t->gather.vec, &xa));
    PetscCall(VecCUDAGetArrayWrite(y, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    if (!empty) err = VPCudaTransferProlong((VPCudaTransfer)t->gpu, single, xa, ya);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecCUDARestoreArrayRead(t->gather.vec, &xa));
    PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  } else {
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArrayWrite(t->gather.vec, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    if (!empty) err = VPCudaTransferRestrict((VPCudaTransfer)t->gpu, single, xa, ya);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    PetscCall(VecCUDARestoreArrayWrite(t->gather.vec, &ya));
    t->cboxdirty = PETSC_TRUE;
    PetscCall(DMBrickBoxScatterAdd_Private(&t->gather, PETSC_TRUE, y));
  }
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the brick transfer: %s", VPCudaErrorString(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the GPU path when it applies (VECCUDA vectors; a no-op without CUDA): done says whether it ran */
static PetscErrorCode BrickTransferTryGPU(Mat P, PetscBool prolong, Vec x, Vec y, PetscBool *done)
{
  PetscFunctionBegin;
  *done = PETSC_FALSE;
#if defined(VP_HAVE_CUDA)
  {
    BrickTransfer *t;
    PetscCall(DMBrickVecsOnDevice_Private(x, y, done));
    PetscCall(MatShellGetContext(P, &t));
    if (*done) PetscCall(BrickTransferApplyGPU(t, prolong, x, y));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coarse cell holding fine node F (full-grid numbering), and the node's row in P1. */
static inline void BrickTransferCell(PetscInt k, PetscInt Nc, PetscInt F, PetscInt *c, PetscInt *row)
{
  *c   = PetscMin(F / (2 * k), Nc - 1);
  *row = F - 2 * k * (*c);
}

/* One direction of the prolongation (forward: coarse box -> fine box) or of its transpose (fine box -> coarse box,
   accumulated into a zeroed output), from the direction's row table L. cbox/fbox differ only along dir. Along x (inner = 1)
   a row is a short dot product (forward) or axpy (transpose) on one line; along y and z each weight scales a contiguous
   plane segment of length inner, which the compiler vectorizes. The sums run in the same order either way. */
static void BrickTransfer1D(PetscInt dir, const BrickTransferLine *L, const PetscReal P1[], const BrickBox *cbox, const BrickBox *fbox, PetscBool transpose, const PetscScalar in[], PetscScalar out[])
{
  const BrickBox *ibox = transpose ? fbox : cbox, *obox = transpose ? cbox : fbox;
  const PetscInt  nf = fbox->hi[dir] - fbox->lo[dir] + 1, nin = ibox->hi[dir] - ibox->lo[dir] + 1, nout = obox->hi[dir] - obox->lo[dir] + 1;
  PetscInt        inner = 1, outer = 1;

  for (PetscInt d = 0; d < dir; d++) inner *= ibox->hi[d] - ibox->lo[d] + 1;
  for (PetscInt d = dir + 1; d < 3; d++) outer *= ibox->hi[d] - ibox->lo[d] + 1;
  if (transpose)
    for (PetscInt i = 0; i < inner * nout * outer; i++) out[i] = 0.0;
  for (PetscInt o = 0; o < outer; o++) {
    const PetscScalar *src = in + o * nin * inner;
    PetscScalar       *dst = out + o * nout * inner;
    if (inner == 1 && !transpose) {
      for (PetscInt i = 0; i < nf; i++) {
        const PetscReal   *w   = P1 + L->w[i];
        const PetscScalar *x   = src + L->start[i];
        PetscScalar        sum = 0.0;
        for (PetscInt j = 0; j < L->cnt[i]; j++) sum += w[j] * x[j];
        dst[i] = sum;
      }
    } else if (inner == 1) {
      for (PetscInt i = 0; i < nf; i++) {
        const PetscReal  *w = P1 + L->w[i];
        PetscScalar      *y = dst + L->start[i];
        const PetscScalar v = src[i];
        for (PetscInt j = 0; j < L->cnt[i]; j++) y[j] += w[j] * v;
      }
    } else {
      for (PetscInt i = 0; i < nf; i++) {
        const PetscReal *w = P1 + L->w[i];
        for (PetscInt j = 0; j < L->cnt[i]; j++) {
          const PetscReal    wj = w[j];
          const PetscScalar *x  = transpose ? src + i * inner : src + (L->start[i] + j) * inner;
          PetscScalar       *y  = transpose ? dst + (L->start[i] + j) * inner : dst + i * inner;
          if (transpose || j) {
            for (PetscInt a = 0; a < inner; a++) y[a] += wj * x[a];
          } else {
            for (PetscInt a = 0; a < inner; a++) y[a] = wj * x[a];
          }
        }
      }
    }
  }
}

/* The row tables of the directions: for each owned fine node along d, the nonzero range of its row of P1 and the coarse
   box node it starts at. */
static PetscErrorCode BrickTransferLinesCreate(BrickTransfer *t)
{
  DM_Brick      *cb = (DM_Brick *)t->dmc->data, *fb = (DM_Brick *)t->dmf->data;
  const PetscInt k    = fb->degree;
  const BrickBox fbox = t->stage[fb->dim];

  PetscFunctionBegin;
  for (PetscInt d = 0; d < fb->dim; d++) {
    const PetscInt     nf = PetscMax(fbox.hi[d] - fbox.lo[d] + 1, 0);
    BrickTransferLine *L  = &t->line[d];
    PetscCall(PetscMalloc3(PetscMax(nf, 1), &L->start, PetscMax(nf, 1), &L->cnt, PetscMax(nf, 1), &L->w));
    for (PetscInt i = 0; i < nf; i++) {
      PetscInt c, row, jlo = 0, jhi = k;
      BrickTransferCell(k, cb->cells[d], fbox.lo[d] + i, &c, &row);
      while (jlo < k && t->P1[row * (k + 1) + jlo] == 0.0) jlo++;
      while (jhi > jlo && t->P1[row * (k + 1) + jhi] == 0.0) jhi--;
      L->start[i] = c * k + jlo - t->stage[0].lo[d];
      L->cnt[i]   = jhi - jlo + 1;
      L->w[i]     = row * (k + 1) + jlo;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_BrickTransfer(Mat P, Vec xc, Vec yf)
{
  BrickTransfer     *t;
  DM_Brick          *fb;
  const PetscScalar *xl;
  PetscScalar       *y;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Interpolate, P, xc, yf, 0));
  PetscCall(MatShellGetContext(P, &t));
  PetscCall(BrickTransferTryGPU(P, PETSC_TRUE, xc, yf, &done));
  if (done) {
    PetscCall(PetscLogEventEnd(DMBRICK_Interpolate, P, xc, yf, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  fb = (DM_Brick *)t->dmf->data;
  if (t->direct) {
    const PetscScalar *xa;
    PetscCall(VecGetArrayRead(xc, &xa));
    PetscCall(DMBrickGlobalToBox_Private(t->dmc, xa, &t->stage[0], t->buf[0]));
    PetscCall(VecRestoreArrayRead(xc, &xa));
    xl = t->buf[0];
  } else {
    PetscCall(BrickTransferGather(t, PETSC_FALSE, xc));
    PetscCall(VecGetArrayRead(t->gather.vec, &xl));
  }
  PetscCall(VecGetArrayWrite(yf, &y));
  for (PetscInt d = 0; d < fb->dim; d++) BrickTransfer1D(d, &t->line[d], t->P1, &t->stage[d], &t->stage[d + 1], PETSC_FALSE, d ? t->buf[d] : xl, d + 1 == fb->dim && t->fineowned ? y : t->buf[d + 1]);
  if (!t->direct) PetscCall(VecRestoreArrayRead(t->gather.vec, &xl));
  if (!t->fineowned) PetscCall(DMBrickBoxToGlobal_Private(t->dmf, &t->stage[fb->dim], t->buf[fb->dim], y));
  PetscCall(VecRestoreArrayWrite(yf, &y));
  PetscCall(PetscLogEventEnd(DMBRICK_Interpolate, P, xc, yf, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_BrickTransfer(Mat P, Vec xf, Vec yc)
{
  BrickTransfer     *t;
  DM_Brick          *fb;
  const PetscScalar *x, *xb;
  PetscScalar       *yl;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Restrict, P, xf, yc, 0));
  PetscCall(MatShellGetContext(P, &t));
  PetscCall(BrickTransferTryGPU(P, PETSC_FALSE, xf, yc, &done));
  if (done) {
    PetscCall(PetscLogEventEnd(DMBRICK_Restrict, P, xf, yc, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  fb = (DM_Brick *)t->dmf->data;
  PetscCall(VecGetArrayRead(xf, &x));
  if (!t->fineowned) PetscCall(DMBrickGlobalToBox_Private(t->dmf, x, &t->stage[fb->dim], t->buf[fb->dim]));
  xb = t->fineowned ? x : t->buf[fb->dim];
  if (t->direct) { /* the box holds every coarse node once: its interior nodes are the coarse vector */
    PetscScalar *ya;
    for (PetscInt d = fb->dim - 1; d >= 0; d--) BrickTransfer1D(d, &t->line[d], t->P1, &t->stage[d], &t->stage[d + 1], PETSC_TRUE, d + 1 == fb->dim ? xb : t->buf[d + 1], t->buf[d]);
    PetscCall(VecGetArrayWrite(yc, &ya));
    PetscCall(DMBrickBoxToGlobal_Private(t->dmc, &t->stage[0], t->buf[0], ya));
    PetscCall(VecRestoreArrayWrite(yc, &ya));
  } else {
    PetscCall(VecGetArrayWrite(t->gather.vec, &yl));
    for (PetscInt d = fb->dim - 1; d >= 0; d--) BrickTransfer1D(d, &t->line[d], t->P1, &t->stage[d], &t->stage[d + 1], PETSC_TRUE, d + 1 == fb->dim ? xb : t->buf[d + 1], d ? t->buf[d] : yl);
    PetscCall(VecRestoreArrayWrite(t->gather.vec, &yl));
    t->cboxdirty = PETSC_TRUE;
    PetscCall(DMBrickBoxScatterAdd_Private(&t->gather, PETSC_FALSE, yc));
  }
  PetscCall(VecRestoreArrayRead(xf, &x));
  PetscCall(PetscLogEventEnd(DMBRICK_Restrict, P, xf, yc, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickTransferDestroy(void *ctx)
{
  BrickTransfer *t = (BrickTransfer *)ctx;

  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  if (t->gpu) {
    VPCudaTransfer g   = (VPCudaTransfer)t->gpu;
    int            err = VPCudaTransferDestroy(&g);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaTransferDestroy: %s", VPCudaErrorString(err));
  }
#endif
  PetscCall(DMBrickBoxGatherDestroy_Private(&t->gather));
  for (PetscInt i = 0; i < 4; i++) PetscCall(PetscFree(t->buf[i]));
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree3(t->line[d].start, t->line[d].cnt, t->line[d].w));
  PetscCall(DMDestroy(&t->dmc));
  PetscCall(DMDestroy(&t->dmf));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_BrickTransfer(Mat P, PetscViewer viewer)
{
  BrickTransfer *t;
  PetscBool      isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetContext(P, &t));
  PetscCall(PetscViewerASCIIPrintf(viewer, "brick Q%" PetscInt_FMT " prolongation, level %" PetscInt_FMT " -> %" PetscInt_FMT ", matrix-free (sum factorization); restriction is its transpose\n", ((DM_Brick *)t->dmf->data)->degree,
                                   ((DM_Brick *)t->dmc->data)->level, ((DM_Brick *)t->dmf->data)->level));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickTransferCheck(DM dmc, DM dmf)
{
  DM_Brick *cb, *fb;
  MPI_Comm  comm = PetscObjectComm((PetscObject)dmf);

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dmc, &cb));
  PetscCall(DMBrickGetImpl_Private(dmf, &fb));
  PetscCheck(dmc->setupcalled && dmf->setupcalled, comm, PETSC_ERR_ARG_WRONGSTATE, "Both bricks must be set up");
  PetscCheck(cb->dim == fb->dim && cb->degree == fb->degree && fb->level == cb->level + 1, comm, PETSC_ERR_ARG_INCOMP,
             "Brick interpolation needs two levels of one hierarchy: got %" PetscInt_FMT "D Q%" PetscInt_FMT " level %" PetscInt_FMT " and %" PetscInt_FMT "D Q%" PetscInt_FMT " level %" PetscInt_FMT, cb->dim, cb->degree, cb->level, fb->dim,
             fb->degree, fb->level);
  for (PetscInt d = 0; d < fb->dim; d++) {
    PetscCheck(cb->cells0[d] == fb->cells0[d] && cb->lower[d] == fb->lower[d] && cb->upper[d] == fb->upper[d], comm, PETSC_ERR_ARG_INCOMP, "Bricks of different hierarchies (coarse grid or domain differ along %c)", "xyz"[d]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickTransferCreateShell(DM dmc, DM dmf, Mat *P)
{
  DM_Brick      *cb = (DM_Brick *)dmc->data, *fb = (DM_Brick *)dmf->data;
  BrickTransfer *t;
  const PetscInt k = fb->degree;

  PetscFunctionBegin;
  PetscCall(PetscNew(&t));
  PetscCall(PetscObjectReference((PetscObject)dmc));
  PetscCall(PetscObjectReference((PetscObject)dmf));
  t->dmc = dmc;
  t->dmf = dmf;
  PetscCall(BrickBasisProlongation(k, fb->nodes, t->P1));
  /* the stages: coarse box, then one direction at a time switched to the owned fine nodes */
  PetscCall(DMBrickOwnedNodeBox_Private(dmf, &t->stage[fb->dim]));
  for (PetscInt d = 0; d < 3; d++) {
    PetscInt c0, c1, r;
    if (BrickBoxSize(&t->stage[fb->dim]) <= 0) { /* no fine nodes here (an inactive rank of the fine level) */
      t->stage[0].lo[d] = 0;
      t->stage[0].hi[d] = -1;
      continue;
    }
    if (d >= fb->dim) {
      t->stage[0].lo[d] = t->stage[0].hi[d] = 0;
      continue;
    }
    BrickTransferCell(k, cb->cells[d], t->stage[fb->dim].lo[d], &c0, &r);
    BrickTransferCell(k, cb->cells[d], t->stage[fb->dim].hi[d], &c1, &r);
    t->stage[0].lo[d] = c0 * k;
    t->stage[0].hi[d] = (c1 + 1) * k;
  }
  for (PetscInt s = 1; s < fb->dim; s++) {
    for (PetscInt d = 0; d < 3; d++) {
      t->stage[s].lo[d] = d < s ? t->stage[fb->dim].lo[d] : t->stage[0].lo[d];
      t->stage[s].hi[d] = d < s ? t->stage[fb->dim].hi[d] : t->stage[0].hi[d];
    }
  }
  t->direct    = (PetscBool)(cb->nactive == 1 && fb->nactive == 1);
  t->fineowned = PETSC_TRUE;
  for (PetscInt d = 0; d < fb->dim; d++)
    if (t->stage[fb->dim].lo[d] - 1 != fb->ostart[d] || t->stage[fb->dim].hi[d] - t->stage[fb->dim].lo[d] + 1 != fb->owidth[d]) t->fineowned = PETSC_FALSE;
  for (PetscInt s = t->direct ? 0 : 1; s <= fb->dim; s++)
    if (s < fb->dim || !t->fineowned) PetscCall(PetscMalloc1(PetscMax(BrickBoxSize(&t->stage[s]), 1), &t->buf[s]));
  if (!t->direct) PetscCall(DMBrickBoxGatherCreate_Private(dmc, &t->stage[0], &t->gather));
  PetscCall(BrickTransferLinesCreate(t));
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(dmf, &device));
    if (device && BrickBoxSize(&t->stage[fb->dim]) > 0) PetscCall(BrickTransferCreateGPU(t)); /* in the set-up, not the first transfer */
  }
#endif

  PetscCall(DMBrickTransferShell_Private(dmc, dmf, t, BrickTransferDestroy, MatMult_BrickTransfer, MatMultTranspose_BrickTransfer, MatView_BrickTransfer, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCreateVecs() of a transfer: the right vector a coarse brick's, the left a fine one's (device vectors on several
   ranks without the host copy of MATSHELL's own, see DMBrickCreateVector_Private()) */
static PetscErrorCode MatCreateVecs_BrickTransfer(Mat P, Vec *right, Vec *left)
{
  PetscObject dmc, dmf;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)P, "DMBrickTransferCoarse", &dmc));
  PetscCall(PetscObjectQuery((PetscObject)P, "DMBrickTransferFine", &dmf));
  PetscCheck(dmc && dmf, PetscObjectComm((PetscObject)P), PETSC_ERR_PLIB, "a brick transfer without its bricks");
  if (right) PetscCall(DMCreateGlobalVector((DM)dmc, right));
  if (left) PetscCall(DMCreateGlobalVector((DM)dmf, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MATSHELL of a grid transfer (CG or DG): fine rows, coarse columns, the fine level's vector type. */
PetscErrorCode DMBrickTransferShell_Private(DM dmc, DM dmf, void *ctx, PetscErrorCode (*destroy)(void *), PetscErrorCode (*mult)(Mat, Vec, Vec), PetscErrorCode (*multtranspose)(Mat, Vec, Vec), PetscErrorCode (*view)(Mat, PetscViewer), Mat *P)
{
  Vec      vc, vf;
  PetscInt mf, mc, Mf, Mc;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(dmc, &vc));
  PetscCall(DMGetGlobalVector(dmf, &vf));
  PetscCall(VecGetLocalSize(vc, &mc));
  PetscCall(VecGetSize(vc, &Mc));
  PetscCall(VecGetLocalSize(vf, &mf));
  PetscCall(VecGetSize(vf, &Mf));
  PetscCall(DMRestoreGlobalVector(dmc, &vc));
  PetscCall(DMRestoreGlobalVector(dmf, &vf));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dmf), mf, mc, Mf, Mc, ctx, P));
  PetscCall(MatShellSetContextDestroy(*P, destroy));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT, (void (*)(void))mult));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE, (void (*)(void))multtranspose));
  PetscCall(MatShellSetOperation(*P, MATOP_VIEW, (void (*)(void))view));
  PetscCall(MatShellSetVecType(*P, dmf->vectype));
  PetscCall(PetscObjectCompose((PetscObject)*P, "DMBrickTransferCoarse", (PetscObject)dmc));
  PetscCall(PetscObjectCompose((PetscObject)*P, "DMBrickTransferFine", (PetscObject)dmf));
  PetscCall(MatShellSetOperation(*P, MATOP_CREATE_VECS, (void (*)(void))MatCreateVecs_BrickTransfer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickTransferAssemble(DM dmc, DM dmf, MatType type, Mat *P)
{
  DM_Brick      *cb = (DM_Brick *)dmc->data, *fb = (DM_Brick *)dmf->data;
  const PetscInt k = fb->degree, nk = k + 1;
  PetscReal      P1[(2 * BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
  BrickBox       fbox;
  PetscInt       mf, mc, Mc, nz = 1;
  Vec            vc, vf;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Assemble, dmf, 0, 0, 0));
  PetscCall(BrickBasisProlongation(k, fb->nodes, P1));
  PetscCall(DMBrickOwnedNodeBox_Private(dmf, &fbox));
  PetscCall(DMGetGlobalVector(dmc, &vc));
  PetscCall(DMGetGlobalVector(dmf, &vf));
  PetscCall(VecGetLocalSize(vc, &mc));
  PetscCall(VecGetSize(vc, &Mc));
  PetscCall(VecGetLocalSize(vf, &mf));
  PetscCall(DMRestoreGlobalVector(dmc, &vc));
  PetscCall(DMRestoreGlobalVector(dmf, &vf));
  for (PetscInt d = 0; d < fb->dim; d++) nz *= nk;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dmf), P));
  PetscCall(MatSetSizes(*P, mf, mc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*P, type));
  {
    /* at most (k+1)^dim coarse nodes per fine row (on the coarse level's ranks, which may be other ones);
       XAIJ covers every AIJ-like type (aij, baij, aijcusparse, ...) */
    PetscInt *dnz, *onz;
    PetscCall(PetscMalloc2(mf, &dnz, mf, &onz));
    for (PetscInt i = 0; i < mf; i++) {
      dnz[i] = PetscMin(nz, mc);
      onz[i] = PetscMin(nz, Mc - mc);
    }
    PetscCall(MatXAIJSetPreallocation(*P, 1, dnz, onz, NULL, NULL));
    PetscCall(PetscFree2(dnz, onz));
  }
  /* rows and columns by their global indices: the two levels need not share a partition */
  for (PetscInt fz = fbox.lo[2]; fz <= fbox.hi[2]; fz++) {
    for (PetscInt fy = fbox.lo[1]; fy <= fbox.hi[1]; fy++) {
      for (PetscInt fx = fbox.lo[0]; fx <= fbox.hi[0]; fx++) {
        const PetscInt F[3] = {fx, fy, fz}, row = DMBrickNodeGlobalIndex_Private(fb, F);
        PetscInt       cols[729], ncols = 0, C[3][BRICK_MAX_DEGREE + 1], n[3] = {1, 1, 1};
        PetscReal      W[3][BRICK_MAX_DEGREE + 1];
        PetscScalar    vals[729];
        for (PetscInt d = 0; d < 3; d++) {
          if (d < fb->dim) {
            PetscInt c, r;
            BrickTransferCell(k, cb->cells[d], F[d], &c, &r);
            n[d] = 0;
            for (PetscInt j = 0; j <= k; j++) {
              const PetscInt Cn = c * k + j;
              if (P1[r * nk + j] == 0.0 || Cn <= 0 || Cn >= k * cb->cells[d]) continue; /* boundary nodes carry no DoF */
              C[d][n[d]]   = Cn;
              W[d][n[d]++] = P1[r * nk + j];
            }
          } else {
            C[d][0] = 0;
            W[d][0] = 1.0;
          }
        }
        for (PetscInt a = 0; a < n[2]; a++)
          for (PetscInt b = 0; b < n[1]; b++)
            for (PetscInt c = 0; c < n[0]; c++) {
              const PetscInt Cf[3] = {C[0][c], C[1][b], C[2][a]};
              cols[ncols]          = DMBrickNodeGlobalIndex_Private(cb, Cf);
              vals[ncols++]        = W[0][c] * W[1][b] * W[2][a];
            }
        PetscCall(MatSetValues(*P, 1, &row, ncols, cols, vals, INSERT_VALUES));
      }
    }
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscLogEventEnd(DMBRICK_Assemble, dmf, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickCreateInterpolation - the prolongation from a coarse brick level to the next finer one

   Collective

   Input Parameters:
+  dmc  - the coarse brick
.  dmf  - the fine brick (`DMRefine()` of dmc, or dmc is `DMCoarsen()` of it)
-  type - `MATSHELL` for the matrix-free operator, or an assembled type such as `MATAIJ`

   Output Parameter:
.  P - the interpolation; its transpose is the restriction

   Level: intermediate

.seealso: `DMBRICK`, `DMCreateInterpolation()`
@*/
PetscErrorCode DMBrickCreateInterpolation(DM dmc, DM dmf, MatType type, Mat *P)
{
  PetscBool isshell;

  PetscFunctionBegin;
  PetscCall(BrickTransferCheck(dmc, dmf));
  if (((DM_Brick *)dmf->data)->forest) {
    PetscCall(DMBrickForestCreateInterpolation_Private(dmc, dmf, type, P));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (((DM_Brick *)dmf->data)->family == DMBRICK_DG) {
    PetscCall(DMBrickCreateInterpolationDG_Private(dmc, dmf, type, P));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(type, MATSHELL, &isshell));
  if (isshell) PetscCall(BrickTransferCreateShell(dmc, dmf, P));
  else PetscCall(BrickTransferAssemble(dmc, dmf, type, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMCreateInterpolation(): the fine level's matrix type (as DMCreateMatrix() chooses it): matrix-free with
   matrix-free operators, assembled (of that type) with assembled ones. */
PetscErrorCode DMCreateInterpolation_Brick(DM dmc, DM dmf, Mat *P, Vec *rscale)
{
  DM_Brick *fb;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dmf, &fb));
  PetscCall(DMBrickCreateInterpolation(dmc, dmf, fb->level <= 0 ? fb->coarse_mattype : dmf->mattype, P));
  if (rscale) *rscale = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
