/* Grid transfer between two levels of a forest brick (CG, and DG where the node table holds each cell's own values). Each rank prolongs onto its own fine cells: a fine cell's
   values are its parent coarse cell's, embedded child by child (the 1D two-child embedding of bricktransfer.c, one
   (k+1) x (k+1) block per child position and direction). The two levels are partitioned by p4est each on its own, so
   a parent may live on another rank: at set-up the fine rank learns its parents' coarse node numbers from their owners
   (a PetscSF over the coarse cell-node tables, addressed by the parents' curve positions) and then gathers the coarse
   values it needs through a second PetscSF whose roots are the coarse global vector. The restriction is the exact
   transpose: a fine node shared by 2^m fine cells is weighted 1/2^m in each (its cells are all in the domain, as it is
   a free node), so that each fine row counts once; a DG value belongs to one cell (weight 1). */
#include "brickimpl.h"
#if defined(VP_HAVE_CUDA)
  #include <vpatch_cuda.h>
  #include <petscdevice_cuda.h>
#endif

typedef struct {
  DM           dmc, dmf; /* not referenced: the shell composes both */
  PetscInt     dim, k, nv;
  PetscBool    dg; /* DG levels: every fine value belongs to one cell (weight 1 in the transpose) */
  PetscReal    E[2][BRICK_MAX_DEGREE + 1][BRICK_MAX_DEGREE + 1]; /* child position b: rows b k .. b k + k of the embedding */
  PetscReal    ET[2][(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
  PetscReal    P[(2 * BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)], PT[(2 * BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)]; /* the 1D embedding of a parent into its two children's 2k + 1 nodes, and its transpose */
  PetscInt     nfam, *fampos; /* a family's (2k+1)^dim nodes; per child position b and node i of the child, its place in the family */
  PetscReal   *wcell, *wfamily; /* restriction weights (each fine node counts once in the sum) of a cell's nodes and of a family's */
  PetscScalar *work;            /* 3 nfam scratch values */
  PetscInt     nparents, *parentof, *child; /* per fine cell: its parent (index into the gathered parents), its child bits */
  PetscInt    *pnode;                       /* nparents nv: the parent's nodes in buf, -1 on the boundary */
  PetscInt     nbuf;                        /* coarse nodes the rank's fine cells read */
  PetscInt    *bufglobal;                   /* their global numbers */
  PetscSF      gather;                      /* buf (leaves) from the coarse global vector (roots) */
  PetscScalar *buf;
  Vec          fl;     /* fine local vector */
  Vec          bufvec; /* device levels: buf on the device (a sequential device vector of nbuf entries) */
  void        *gpu;    /* VPCudaForestTransfer (VP_HAVE_CUDA), made when the fine level's vectors are device vectors */
} BrickForestTransfer;

/* Is fine cell c the first of a whole family on this rank? p4est's cells are in curve order, so a parent's 2^dim
   children, where one rank owns them all, are consecutive cells with child bits 0 .. 2^dim - 1. */
static PetscBool BrickForestIsFamily(const BrickForestTransfer *t, PetscInt ncells, PetscInt c)
{
  const PetscInt nch = 1 << t->dim;

  if (t->dg || c + nch > ncells) return PETSC_FALSE;
  for (PetscInt b = 0; b < nch; b++)
    if (t->child[c + b] != b || t->parentof[c + b] != t->parentof[c]) return PETSC_FALSE;
  return PETSC_TRUE;
}

#if defined(VP_HAVE_CUDA)
/* the transfer on the device: the gather through the same PetscSF on device arrays, the cells by the kernels of
   cuda/vpforest.cu */
static PetscErrorCode BrickForestTransferGPU(BrickForestTransfer *t, PetscBool prolong, Vec in, Vec out)
{
  const BrickForest *ff = ((DM_Brick *)t->dmf->data)->forest;
  const PetscScalar *ia;
  PetscScalar       *oa, *ba, *fa;
  int                err;

  PetscFunctionBegin;
  if (prolong) {
    PetscCall(VecCUDAGetArrayRead(in, &ia));
    PetscCall(VecCUDAGetArrayWrite(t->bufvec, &ba));
    PetscCall(DMBrickSFDevice_Private(t->dmf, t->gather, PETSC_FALSE, ia, ba, PETSC_FALSE));
    PetscCall(VecCUDARestoreArrayRead(in, &ia));
    PetscCall(VecCUDAGetArray(t->fl, &fa));
    PetscCall(PetscLogGpuTimeBegin());
    err = VPCudaForestTransferApply((VPCudaForestTransfer)t->gpu, 1, ba, fa);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the forest prolongation: %s", VPCudaErrorString(err));
    PetscCall(VecCUDARestoreArrayWrite(t->bufvec, &ba));
    PetscCall(VecCUDAGetArrayWrite(out, &oa));
    PetscCall(DMBrickDeviceCopy_Private(ff->nowned, PETSC_FALSE, fa, oa));
    PetscCall(VecCUDARestoreArrayWrite(out, &oa));
    PetscCall(VecCUDARestoreArray(t->fl, &fa));
  } else {
    PetscCall(DMGlobalToLocal(t->dmf, in, INSERT_VALUES, t->fl));
    PetscCall(VecZeroEntries(t->bufvec));
    PetscCall(VecCUDAGetArrayRead(t->fl, (const PetscScalar **)&fa));
    PetscCall(VecCUDAGetArray(t->bufvec, &ba));
    PetscCall(PetscLogGpuTimeBegin());
    err = VPCudaForestTransferApply((VPCudaForestTransfer)t->gpu, 0, fa, ba);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the forest restriction: %s", VPCudaErrorString(err));
    PetscCall(VecCUDARestoreArrayRead(t->fl, (const PetscScalar **)&fa));
    PetscCall(VecZeroEntries(out));
    PetscCall(VecCUDAGetArray(out, &oa));
    PetscCall(DMBrickSFDevice_Private(t->dmf, t->gather, PETSC_TRUE, ba, oa, PETSC_TRUE));
    PetscCall(VecCUDARestoreArray(out, &oa));
    PetscCall(VecCUDARestoreArray(t->bufvec, &ba));
  }
  PetscCall(PetscLogGpuFlops(2.0 * t->dim * t->nv * (t->k + 1) * ff->ncells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickForestTransferSetUpGPU(BrickForestTransfer *t)
{
  const BrickForest *ff = ((DM_Brick *)t->dmf->data)->forest;
  const PetscInt     n  = t->k + 1;
  const PetscInt     nch = 1 << t->dim;
  int               *node, *parentof, *child, *pnode, *family, *single, *fampos, *famfirst, nfam = 0, nsingle = 0, err;
  double             E[2 * 81];

  PetscFunctionBegin;
  PetscCall(BrickForestNodeTableInt(ff, ff->ncells, &node));
  PetscCall(PetscMalloc4(ff->ncells / nch + 1, &family, ff->ncells + 1, &single, nch * t->nv, &fampos, nch * t->nv, &famfirst));
  for (PetscInt c = 0; c < ff->ncells;) {
    if (BrickForestIsFamily(t, ff->ncells, c)) {
      family[nfam++] = (int)c;
      c += nch;
    } else single[nsingle++] = (int)c++;
  }
  for (PetscInt q = 0; q < nch * t->nv; q++) {
    fampos[q]   = (int)t->fampos[q];
    famfirst[q] = 1;
    for (PetscInt r = 0; r < q && famfirst[q]; r++)
      if (t->fampos[r] == t->fampos[q]) famfirst[q] = 0;
  }
  PetscCall(PetscMalloc3(ff->ncells + 1, &parentof, ff->ncells + 1, &child, t->nparents * t->nv + 1, &pnode));
  for (PetscInt c = 0; c < ff->ncells; c++) {
    parentof[c] = (int)t->parentof[c];
    child[c]    = (int)t->child[c];
  }
  for (PetscInt i = 0; i < t->nparents * t->nv; i++) pnode[i] = (int)t->pnode[i];
  for (PetscInt b = 0; b < 2; b++)
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) E[b * n * n + i * n + j] = t->E[b][i][j];
  err = VPCudaForestTransferCreate((int)t->dim, (int)t->k, (int)t->dg, (int)ff->ncells, node, parentof, child, (int)t->nparents, pnode, E, nfam, family, nsingle, single, t->P, fampos, famfirst, t->wfamily, (VPCudaForestTransfer *)&t->gpu);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaForestTransferCreate: %s", VPCudaErrorString(err));
  PetscCall(PetscFree4(family, single, fampos, famfirst));
  PetscCall(PetscFree(node));
  PetscCall(PetscFree3(parentof, child, pnode));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, t->nbuf, &t->bufvec));
  PetscCall(VecZeroEntries(t->bufvec));
  PetscCall(DMBrickSetUpExchange_Private(t->dmf, t->gather, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static int BrickInt64Compare(const void *a, const void *b)
{
  const PetscInt64 x = *(const PetscInt64 *)a, y = *(const PetscInt64 *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* the node values of fine cell c from its parent's (u: nv values of the parent, v: nv values of the child) */
static void BrickForestEmbed(const BrickForestTransfer *t, PetscBool transpose, PetscInt bits, const PetscScalar u[], PetscScalar v[], PetscScalar work[])
{
  const PetscInt n = t->k + 1, ext[3] = {n, n, t->dim == 3 ? n : 1};
  PetscReal      B[3][(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];

  for (PetscInt d = 0; d < t->dim; d++) {
    const PetscInt b = (bits >> d) & 1;
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) B[d][i * n + j] = transpose ? t->E[b][j][i] : t->E[b][i][j];
  }
  BrickTensorApply1D(0, ext, n, B[0], u, work);
  BrickTensorApply1D(1, ext, n, B[1], work, t->dim == 2 ? v : work + t->nv);
  if (t->dim == 3) BrickTensorApply1D(2, ext, n, B[2], work + t->nv, v);
}

/* the block of a family's (2k+1)^dim node values from (transpose: to) its parent's (k+1)^dim, direction by direction:
   fewer operations than 2^dim cell embeddings (Q3 3D: 5.2k against 12.3k flops) */
static void BrickForestFamilyEmbed(const BrickForestTransfer *t, PetscBool transpose, const PetscScalar in[], PetscScalar out[])
{
  const PetscInt n = t->k + 1, ne = 2 * t->k + 1, dim = t->dim;
  PetscScalar   *w1 = t->work, *w2 = t->work + t->nfam;
  PetscInt       ext[3];

  if (!transpose) {
    const PetscInt e0[3] = {n, n, dim == 3 ? n : 1}, e1[3] = {ne, n, dim == 3 ? n : 1}, e2[3] = {ne, ne, dim == 3 ? n : 1};
    BrickTensorApply1D(0, e0, ne, t->P, in, w1);
    BrickTensorApply1D(1, e1, ne, t->P, w1, dim == 2 ? out : w2);
    if (dim == 3) BrickTensorApply1D(2, e2, ne, t->P, w2, out);
  } else {
    for (PetscInt d = 0; d < 3; d++) ext[d] = d < dim ? ne : 1;
    BrickTensorApply1D(0, ext, n, t->PT, in, w1);
    ext[0] = n;
    BrickTensorApply1D(1, ext, n, t->PT, w1, dim == 2 ? out : w2);
    ext[1] = n;
    if (dim == 3) BrickTensorApply1D(2, ext, n, t->PT, w2, out);
  }
}

static PetscErrorCode MatMult_BrickForestTransfer(Mat P, Vec xc, Vec yf)
{
  BrickForestTransfer *t;
  const BrickForest   *ff;
  const PetscScalar   *xa;
  PetscScalar         *ya, u[729], v[729], work[2 * 729];

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &t));
  ff = ((DM_Brick *)t->dmf->data)->forest;
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickVecsOnDevice_Private(xc, yf, &device));
    if (device) {
      if (!t->gpu) PetscCall(BrickForestTransferSetUpGPU(t));
      PetscCall(BrickForestTransferGPU(t, PETSC_TRUE, xc, yf));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(VecGetArrayRead(xc, &xa));
  PetscCall(PetscSFBcastBegin(t->gather, MPIU_SCALAR, xa, t->buf, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(t->gather, MPIU_SCALAR, xa, t->buf, MPI_REPLACE));
  PetscCall(VecRestoreArrayRead(xc, &xa));
  /* straight into the global vector: every owned node lies in one of the rank's cells, and the ghost nodes' values
     (their owners compute them) are not needed */
  PetscCall(VecGetArrayWrite(yf, &ya));
  for (PetscInt c = 0; c < ff->ncells;) {
    const PetscInt *pn = t->pnode + t->parentof[c] * t->nv;
    for (PetscInt i = 0; i < t->nv; i++) u[i] = pn[i] < 0 ? 0.0 : t->buf[pn[i]];
    if (BrickForestIsFamily(t, ff->ncells, c)) { /* the whole family at once */
      PetscScalar *blk = t->work + 2 * t->nfam;
      BrickForestFamilyEmbed(t, PETSC_FALSE, u, blk);
      for (PetscInt b = 0; b < (1 << t->dim); b++, c++) {
        const PetscInt *fn = ff->node + c * t->nv, *pos = t->fampos + b * t->nv;
        for (PetscInt i = 0; i < t->nv; i++)
          if (fn[i] >= 0 && fn[i] < ff->nowned) ya[fn[i]] = blk[pos[i]];
      }
    } else {
      const PetscInt *fn = ff->node + c * t->nv;
      BrickForestEmbed(t, PETSC_FALSE, t->child[c], u, v, work);
      for (PetscInt i = 0; i < t->nv; i++)
        if (fn[i] >= 0 && fn[i] < ff->nowned) ya[fn[i]] = v[i]; /* a node shared by several cells gets the same value from each */
      c++;
    }
  }
  PetscCall(VecRestoreArrayWrite(yf, &ya));
  PetscCall(PetscLogFlops(2.0 * t->dim * t->nv * (t->k + 1) * ff->ncells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_BrickForestTransfer(Mat P, Vec xf, Vec yc)
{
  BrickForestTransfer *t;
  const BrickForest   *ff;
  const PetscScalar   *fa;
  PetscScalar         *ya, u[729], v[729], work[2 * 729];
  PetscMPIInt          size;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &t));
  ff = ((DM_Brick *)t->dmf->data)->forest;
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickVecsOnDevice_Private(xf, yc, &device));
    if (device) {
      if (!t->gpu) PetscCall(BrickForestTransferSetUpGPU(t));
      PetscCall(BrickForestTransferGPU(t, PETSC_FALSE, xf, yc));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  /* the fine values of the rank's cells: on one rank the global vector itself (no ghost nodes), else the local vector
     (a collective global-to-local on every rank: a rank without ghost nodes may still own others' ghosts) */
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)t->dmf), &size));
  if (size > 1) PetscCall(DMGlobalToLocal(t->dmf, xf, INSERT_VALUES, t->fl));
  PetscCall(PetscArrayzero(t->buf, t->nbuf));
  PetscCall(VecGetArrayRead(size > 1 ? t->fl : xf, &fa));
  for (PetscInt c = 0; c < ff->ncells;) {
    const PetscInt *pn = t->pnode + t->parentof[c] * t->nv;
    if (BrickForestIsFamily(t, ff->ncells, c)) { /* the whole family at once, each of its nodes once with the family's weight */
      PetscScalar *blk = t->work + 2 * t->nfam;
      for (PetscInt b = 0; b < (1 << t->dim); b++, c++) {
        const PetscInt *fn = ff->node + c * t->nv, *pos = t->fampos + b * t->nv;
        for (PetscInt i = 0; i < t->nv; i++) blk[pos[i]] = fn[i] < 0 ? 0.0 : t->wfamily[pos[i]] * fa[fn[i]];
      }
      BrickForestFamilyEmbed(t, PETSC_TRUE, blk, u);
    } else {
      const PetscInt *fn = ff->node + c * t->nv;
      for (PetscInt i = 0; i < t->nv; i++) v[i] = fn[i] < 0 ? 0.0 : t->wcell[i] * fa[fn[i]];
      BrickForestEmbed(t, PETSC_TRUE, t->child[c], v, u, work);
      c++;
    }
    for (PetscInt i = 0; i < t->nv; i++)
      if (pn[i] >= 0) t->buf[pn[i]] += u[i];
  }
  PetscCall(VecRestoreArrayRead(size > 1 ? t->fl : xf, &fa));
  PetscCall(VecZeroEntries(yc));
  PetscCall(VecGetArray(yc, &ya));
  PetscCall(PetscSFReduceBegin(t->gather, MPIU_SCALAR, t->buf, ya, MPI_SUM));
  PetscCall(PetscSFReduceEnd(t->gather, MPIU_SCALAR, t->buf, ya, MPI_SUM));
  PetscCall(VecRestoreArray(yc, &ya));
  PetscCall(PetscLogFlops(2.0 * t->dim * t->nv * (t->k + 1) * ff->ncells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickForestTransferDestroy(void *ctx)
{
  BrickForestTransfer *t = (BrickForestTransfer *)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree2(t->parentof, t->child));
  PetscCall(PetscFree4(t->wcell, t->wfamily, t->fampos, t->work));
  PetscCall(PetscFree(t->pnode));
  PetscCall(PetscFree(t->bufglobal));
  PetscCall(PetscFree(t->buf));
  PetscCall(PetscSFDestroy(&t->gather));
  PetscCall(VecDestroy(&t->fl));
  PetscCall(VecDestroy(&t->bufvec));
#if defined(VP_HAVE_CUDA)
  if (t->gpu) {
    const int err = VPCudaForestTransferDestroy((VPCudaForestTransfer *)&t->gpu);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaForestTransferDestroy: %s", VPCudaErrorString(err));
  }
#endif
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_BrickForestTransfer(Mat P, PetscViewer viewer)
{
  BrickForestTransfer *t;
  PetscBool            isascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &t));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii)
    PetscCall(PetscViewerASCIIPrintf(viewer, "brick Q%" PetscInt_FMT " prolongation on a p4est forest, level %" PetscInt_FMT " -> %" PetscInt_FMT ", matrix-free cell by cell (parents gathered across the two partitions); restriction is its transpose\n", t->k,
                                     ((DM_Brick *)t->dmc->data)->level, ((DM_Brick *)t->dmf->data)->level));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickForestTransferSetUp(DM dmc, DM dmf, BrickForestTransfer *t)
{
  DM_Brick          *cb = (DM_Brick *)dmc->data, *fb = (DM_Brick *)dmf->data;
  const BrickForest *fc = cb->forest, *ff = fb->forest;
  MPI_Comm           comm = PetscObjectComm((PetscObject)dmf);
  const PetscInt     k = fb->degree, n = k + 1, nv = ff->nv;
  PetscInt64        *pg, *parents;
  PetscInt          *cglobal, *pglobal;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  t->dmc = dmc;
  t->dmf = dmf;
  t->dim = fb->dim;
  t->k   = k;
  t->nv  = nv;
  t->dg  = fb->op.dg;
  {
    PetscReal P[(2 * BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
    PetscCall(BrickBasisProlongation(k, fb->nodes, P));
    for (PetscInt b = 0; b < 2; b++)
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt j = 0; j < n; j++) t->E[b][i][j] = P[(b * k + i) * n + j];
    for (PetscInt i = 0; i < 2 * k + 1; i++)
      for (PetscInt j = 0; j < n; j++) {
        t->P[i * n + j]           = P[i * n + j];
        t->PT[j * (2 * k + 1) + i] = P[i * n + j];
      }
  }
  {
    /* restriction weights: a free fine node lies in 2^m fine cells (m: the directions in which it is on a cell's end), each
       counting 1/2^m of it; in a family only the ends of the family block are shared with other families */
    const PetscInt ne = 2 * k + 1, nch = 1 << fb->dim;
    t->nfam = fb->dim == 3 ? ne * ne * ne : ne * ne;
    PetscCall(PetscMalloc4(nv, &t->wcell, t->nfam, &t->wfamily, nch * nv, &t->fampos, 3 * t->nfam, &t->work));
    for (PetscInt i = 0; i < nv; i++) {
      const PetscInt ii[3] = {i % n, (i / n) % n, i / (n * n)};
      t->wcell[i]          = 1.0;
      for (PetscInt d = 0; d < fb->dim && !t->dg; d++)
        if (ii[d] == 0 || ii[d] == k) t->wcell[i] *= 0.5;
      for (PetscInt b = 0; b < nch; b++) t->fampos[b * nv + i] = ii[0] + (b & 1) * k + ne * (ii[1] + ((b >> 1) & 1) * k + ne * (ii[2] + ((b >> 2) & 1) * k));
    }
    for (PetscInt i = 0; i < t->nfam; i++) {
      const PetscInt ii[3] = {i % ne, (i / ne) % ne, i / (ne * ne)};
      t->wfamily[i]        = 1.0;
      for (PetscInt d = 0; d < fb->dim; d++)
        if (ii[d] == 0 || ii[d] == 2 * k) t->wfamily[i] *= 0.5;
    }
  }
  /* the parents of the rank's fine cells, by curve position on the coarse level */
  PetscCall(PetscMalloc2(ff->ncells, &t->parentof, ff->ncells, &t->child));
  PetscCall(PetscMalloc2(ff->ncells, &pg, ff->ncells, &parents));
  for (PetscInt c = 0; c < ff->ncells; c++) {
    const PetscInt *ijk = ff->ijk + 3 * c, pc[3] = {ijk[0] >> 1, ijk[1] >> 1, ijk[2] >> 1};
    t->child[c] = (ijk[0] & 1) | ((ijk[1] & 1) << 1) | (fb->dim == 3 ? (ijk[2] & 1) << 2 : 0);
    pg[c]       = BrickForestCurveIndex(fc, cb->cells0, pc, fc->level);
    parents[c]  = pg[c];
  }
  qsort(parents, (size_t)ff->ncells, sizeof(PetscInt64), BrickInt64Compare);
  t->nparents = 0;
  for (PetscInt c = 0; c < ff->ncells; c++)
    if (!t->nparents || parents[c] != parents[t->nparents - 1]) parents[t->nparents++] = parents[c];
  for (PetscInt c = 0; c < ff->ncells; c++) {
    const PetscInt64 *hit = (const PetscInt64 *)bsearch(&pg[c], parents, (size_t)t->nparents, sizeof(PetscInt64), BrickInt64Compare);
    t->parentof[c]        = (PetscInt)(hit - parents);
  }
  /* the parents' coarse node numbers, from the ranks that own the parents */
  PetscCall(PetscMalloc2(fc->ncells * nv, &cglobal, t->nparents * nv, &pglobal));
  {
    const PetscInt *l2g;
    ISLocalToGlobalMapping ltog;
    PetscCall(DMBrickGetLocalToGlobal_Private(dmc, &ltog));
    PetscCall(ISLocalToGlobalMappingGetIndices(ltog, &l2g));
    for (PetscInt i = 0; i < fc->ncells * nv; i++) cglobal[i] = fc->node[i] < 0 ? -1 : l2g[fc->node[i]];
    PetscCall(ISLocalToGlobalMappingRestoreIndices(ltog, &l2g));
  }
  {
    PetscSFNode *remote;
    PetscSF      sf;
    PetscCall(PetscMalloc1(t->nparents * nv, &remote));
    for (PetscInt p = 0; p < t->nparents; p++) {
      PetscMPIInt lo = 0, hi = size;
      while (hi - lo > 1) {
        const PetscMPIInt mid = (lo + hi) / 2;
        if (fc->first[mid] <= parents[p]) lo = mid;
        else hi = mid;
      }
      while (lo < size - 1 && fc->first[lo + 1] <= parents[p]) lo++; /* past empty ranks */
      for (PetscInt i = 0; i < nv; i++) {
        remote[p * nv + i].rank  = lo;
        remote[p * nv + i].index = (PetscInt)(parents[p] - fc->first[lo]) * nv + i;
      }
    }
    PetscCall(PetscSFCreate(comm, &sf));
    PetscCall(PetscSFSetGraph(sf, fc->ncells * nv, t->nparents * nv, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
    PetscCall(PetscSFBcastBegin(sf, MPIU_INT, cglobal, pglobal, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPIU_INT, cglobal, pglobal, MPI_REPLACE));
    PetscCall(PetscSFDestroy(&sf));
  }
  {
    /* the coarse nodes to gather: the parents' free nodes, sorted */
    PetscInt nb = 0;
    PetscCall(PetscMalloc1(t->nparents * nv, &t->bufglobal));
    PetscCall(PetscMalloc1(t->nparents * nv, &t->pnode));
    for (PetscInt i = 0; i < t->nparents * nv; i++)
      if (pglobal[i] >= 0) t->bufglobal[nb++] = pglobal[i];
    PetscCall(PetscSortRemoveDupsInt(&nb, t->bufglobal));
    t->nbuf = nb;
    for (PetscInt i = 0; i < t->nparents * nv; i++) {
      t->pnode[i] = -1;
      if (pglobal[i] >= 0) PetscCall(PetscFindInt(pglobal[i], nb, t->bufglobal, &t->pnode[i]));
    }
    PetscCall(PetscMalloc1(nb + 1, &t->buf));
  }
  {
    PetscLayout layout;
    PetscCall(PetscLayoutCreateFromSizes(comm, fc->nowned, PETSC_DECIDE, 1, &layout));
    PetscCall(PetscSFCreate(comm, &t->gather));
    PetscCall(PetscSFSetGraphLayout(t->gather, layout, t->nbuf, NULL, PETSC_COPY_VALUES, t->bufglobal));
    PetscCall(PetscSFSetUp(t->gather));
    PetscCall(PetscLayoutDestroy(&layout));
  }
  PetscCall(DMCreateLocalVector(dmf, &t->fl));
  PetscCall(VecZeroEntries(t->fl));
  PetscCall(PetscFree2(cglobal, pglobal));
  PetscCall(PetscFree2(pg, parents));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The assembled prolongation: each owned fine node's row, from one of its cells (every cell gives the same row) */
static PetscErrorCode BrickForestTransferAssemble(BrickForestTransfer *t, MatType type, Mat *P)
{
  DM_Brick          *fb = (DM_Brick *)t->dmf->data, *cb = (DM_Brick *)t->dmc->data;
  const BrickForest *ff = fb->forest, *fc = cb->forest;
  const PetscInt     n = t->k + 1, nv = t->nv;
  PetscBool         *done;
  PetscInt          *cols, Mc = 0, Mf = 0;
  PetscScalar       *vals;

  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(&fc->nowned, &Mc, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)t->dmf)));
  PetscCallMPI(MPIU_Allreduce(&ff->nowned, &Mf, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)t->dmf)));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)t->dmf), P));
  PetscCall(MatSetSizes(*P, ff->nowned, fc->nowned, Mf, Mc));
  PetscCall(MatSetType(*P, type));
  PetscCall(MatSeqAIJSetPreallocation(*P, nv, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*P, nv, NULL, nv, NULL));
  PetscCall(MatSetOption(*P, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(PetscCalloc1(ff->nowned, &done));
  PetscCall(PetscMalloc2(nv, &cols, nv, &vals));
  for (PetscInt c = 0; c < ff->ncells; c++) {
    const PetscInt *pn = t->pnode + t->parentof[c] * nv, *fn = ff->node + c * nv;
    for (PetscInt i = 0; i < nv; i++) {
      const PetscInt ii[3] = {i % n, (i / n) % n, i / (n * n)}, row = fn[i] + ff->rstart;
      PetscInt       nc    = 0;
      if (fn[i] < 0 || fn[i] >= ff->nowned || done[fn[i]]) continue;
      done[fn[i]] = PETSC_TRUE;
      for (PetscInt j = 0; j < nv; j++) {
        const PetscInt jj[3] = {j % n, (j / n) % n, j / (n * n)};
        PetscReal      w     = 1.0;
        if (pn[j] < 0) continue;
        for (PetscInt d = 0; d < t->dim; d++) w *= t->E[(t->child[c] >> d) & 1][ii[d]][jj[d]];
        cols[nc]   = t->bufglobal[pn[j]];
        vals[nc++] = w;
      }
      PetscCall(MatSetValues(*P, 1, &row, nc, cols, vals, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(cols, vals));
  PetscCall(PetscFree(done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickForestCreateInterpolation_Private(DM dmc, DM dmf, MatType type, Mat *P)
{
  DM_Brick            *cb = (DM_Brick *)dmc->data, *fb = (DM_Brick *)dmf->data;
  BrickForestTransfer *t;
  PetscBool            isshell;

  PetscFunctionBegin;
  PetscCheck(cb->forest && fb->forest, PetscObjectComm((PetscObject)dmf), PETSC_ERR_ARG_INCOMP, "Brick interpolation between a forest level and a box level: both levels must come from one forest hierarchy");
  PetscCheck(cb->nremoved == fb->nremoved, PetscObjectComm((PetscObject)dmf), PETSC_ERR_ARG_INCOMP, "Bricks of different forests (-dm_brick_remove differs)");
  for (PetscInt d = 0; d < 3; d++) PetscCheck(cb->periodic[d] == fb->periodic[d], PetscObjectComm((PetscObject)dmf), PETSC_ERR_ARG_INCOMP, "Bricks of different forests (-dm_brick_periodic differs along %c)", "xyz"[d]);
  PetscCall(PetscNew(&t));
  PetscCall(PetscLogEventBegin(DMBRICK_ForestTransferSetUp, dmf, 0, 0, 0));
  PetscCall(BrickForestTransferSetUp(dmc, dmf, t));
  PetscCall(PetscLogEventEnd(DMBRICK_ForestTransferSetUp, dmf, 0, 0, 0));
  PetscCall(PetscStrcmp(type, MATSHELL, &isshell));
  if (isshell) {
#if defined(VP_HAVE_CUDA)
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(dmf, &device));
    if (device) PetscCall(BrickForestTransferSetUpGPU(t)); /* now, in the set-up, not in the first V-cycle */
#endif
    PetscCall(DMBrickTransferShell_Private(dmc, dmf, t, BrickForestTransferDestroy, MatMult_BrickForestTransfer, MatMultTranspose_BrickForestTransfer, MatView_BrickForestTransfer, P));
  }
  else {
    PetscCall(BrickForestTransferAssemble(t, type, P));
    PetscCall(BrickForestTransferDestroy(t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
