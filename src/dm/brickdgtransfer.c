/* Grid transfer between DG brick levels [CK24, section 3]: the prolongation is the canonical embedding of the coarse
   DG space in the fine one (a fine cell's values are its parent's polynomial at the fine cell's Gauss-Lobatto
   points: per direction the (k+1) x (k+1) block of the child, lower or upper half), restriction its transpose. Each
   rank computes its owned fine cells from their parents, gathered from the coarse vector (brickgather.c: the owned
   block copied, any others through a PetscSF; the two levels may be partitioned differently: agglomeration);
   restriction sums them back. */
#include "brickimpl.h"
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#  include <petscdevice_cuda.h>
#endif

typedef struct {
  DM             dmc, dmf;
  BrickBox       parents; /* the coarse cells under this rank's fine cells */
  BrickBoxGather gather;  /* the parents from the coarse vector; its vec holds them cell by cell as in parents (x fastest),
                            (k+1)^d values each */
  PetscReal child[2][(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)], childT[2][(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
  void     *gpu; /* the CUDA transfer (VP_HAVE_CUDA: VPCudaDGTransfer), made with the shell when the bricks' vectors are device vectors */
} BrickDGTransfer;

static inline PetscInt BrickDGParent(const BrickDGTransfer *, const PetscInt[], PetscInt[]);

#if defined(VP_HAVE_CUDA)
/* the CUDA transfer: per owned fine cell its parent in the gathered box and which child it is */
static PetscErrorCode BrickDGTransferCreateGPU(BrickDGTransfer *t)
{
  DM_Brick        *fb = (DM_Brick *)t->dmf->data;
  const PetscInt   nn = (fb->degree + 1) * (fb->degree + 1);
  BrickBox         cells;
  PetscInt         nc, b = 0;
  int             *parent, *child, err;
  double           mat[4 * (BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
  VPCudaDGTransfer g;

  PetscFunctionBegin;
  PetscCall(DMBrickOwnedCellBox_Private(t->dmf, &cells));
  nc = PetscMax(BrickBoxSize(&cells), 0);
  PetscCall(PetscMalloc2(nc + 1, &parent, nc + 1, &child));
  for (PetscInt cz = cells.lo[2]; nc && cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++, b++) {
        const PetscInt c[3] = {cx, cy, cz};
        PetscInt       ch[3];
        parent[b] = (int)BrickDGParent(t, c, ch);
        child[b]  = (int)(ch[0] + 2 * ch[1] + 4 * ch[2]);
      }
  for (PetscInt i = 0; i < nn; i++) {
    mat[i]          = t->child[0][i];
    mat[nn + i]     = t->child[1][i];
    mat[2 * nn + i] = t->childT[0][i];
    mat[3 * nn + i] = t->childT[1][i];
  }
  err = VPCudaDGTransferCreate((int)fb->dim, (int)fb->degree, (int)nc, parent, child, mat, &g);
  PetscCall(PetscFree2(parent, child));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaDGTransferCreate: %s", VPCudaErrorString(err));
  t->gpu = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The GPU path (VECCUDA vectors; a no-op without CUDA): done says whether it ran. The gather of the parents and the sum
   back work on the device vectors; the kernel works cell by cell (cuda/vpdg.cu), restriction with atomic adds. */
static PetscErrorCode BrickDGTransferTryGPU(BrickDGTransfer *t, PetscBool prolong, Vec x, Vec y, PetscBool *done)
{
  PetscFunctionBegin;
  PetscCall(DMBrickVecsOnDevice_Private(x, y, done));
#if defined(VP_HAVE_CUDA)
  if (*done) {
    DM_Brick          *fb = (DM_Brick *)t->dmf->data;
    const PetscScalar *in;
    PetscScalar       *out;
    int                err;
    if (!t->gpu) PetscCall(BrickDGTransferCreateGPU(t));
    if (prolong) {
      PetscCall(DMBrickBoxGather_Private(&t->gather, PETSC_TRUE, x));
      PetscCall(VecCUDAGetArrayRead(t->gather.vec, &in));
      PetscCall(VecCUDAGetArrayWrite(y, &out));
      PetscCall(PetscLogGpuTimeBegin());
      err = VPCudaDGTransferApply((VPCudaDGTransfer)t->gpu, 0, fb->precision == DMBRICK_PRECISION_SINGLE, in, out);
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(VecCUDARestoreArrayRead(t->gather.vec, &in));
      PetscCall(VecCUDARestoreArrayWrite(y, &out));
    } else {
      PetscCall(VecZeroEntries(t->gather.vec));
      PetscCall(VecCUDAGetArrayRead(x, &in));
      PetscCall(VecCUDAGetArray(t->gather.vec, &out));
      PetscCall(PetscLogGpuTimeBegin());
      err = VPCudaDGTransferApply((VPCudaDGTransfer)t->gpu, 1, fb->precision == DMBRICK_PRECISION_SINGLE, in, out);
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(VecCUDARestoreArrayRead(x, &in));
      PetscCall(VecCUDARestoreArray(t->gather.vec, &out));
      PetscCall(DMBrickBoxScatterAdd_Private(&t->gather, PETSC_TRUE, y));
    }
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the DG grid transfer: %s", VPCudaErrorString(err));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the position of fine cell c's parent in the parents box, and the child (0 lower, 1 upper) along each direction */
static inline PetscInt BrickDGParent(const BrickDGTransfer *t, const PetscInt c[], PetscInt child[])
{
  const PetscInt w0 = t->parents.hi[0] - t->parents.lo[0] + 1, w1 = t->parents.hi[1] - t->parents.lo[1] + 1;
  PetscInt       p[3];

  for (PetscInt d = 0; d < 3; d++) {
    p[d]     = c[d] / 2 - t->parents.lo[d];
    child[d] = c[d] % 2;
  }
  return p[0] + w0 * (p[1] + w1 * p[2]);
}

/* out = (x)_d B_d in, B_d the child block (or its transpose) of direction d */
static void BrickDGTransferCell(const DM_Brick *brick, PetscReal B[2][(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)], const PetscInt child[], const PetscScalar in[], PetscScalar out[], PetscScalar work[])
{
  const PetscInt n = brick->degree + 1, ext[3] = {n, n, brick->dim == 3 ? n : 1};

  BrickTensorApply1D(0, ext, n, B[child[0]], in, work);
  if (brick->dim == 2) BrickTensorApply1D(1, ext, n, B[child[1]], work, out);
  else {
    BrickTensorApply1D(1, ext, n, B[child[1]], work, out);
    BrickTensorApply1D(2, ext, n, B[child[2]], out, work);
    for (PetscInt i = 0; i < brick->dof; i++) out[i] = work[i];
  }
}

static PetscErrorCode MatMult_BrickDGTransfer(Mat P, Vec xc, Vec yf)
{
  BrickDGTransfer   *t;
  DM_Brick          *fb;
  const PetscScalar *cv;
  PetscScalar       *y, work[729];
  BrickBox           cells;
  PetscInt           b = 0;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Interpolate, P, xc, yf, 0));
  PetscCall(MatShellGetContext(P, &t));
  PetscCall(BrickDGTransferTryGPU(t, PETSC_TRUE, xc, yf, &done));
  if (done) {
    PetscCall(PetscLogEventEnd(DMBRICK_Interpolate, P, xc, yf, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  fb = (DM_Brick *)t->dmf->data;
  PetscCall(DMBrickBoxGather_Private(&t->gather, PETSC_FALSE, xc));
  PetscCall(DMBrickOwnedCellBox_Private(t->dmf, &cells));
  PetscCall(VecGetArrayRead(t->gather.vec, &cv));
  PetscCall(VecGetArrayWrite(yf, &y));
  for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++, b++) {
        const PetscInt c[3] = {cx, cy, cz};
        PetscInt       child[3];
        const PetscInt p = BrickDGParent(t, c, child);
        BrickDGTransferCell(fb, t->child, child, cv + p * fb->dof, y + b * fb->dof, work);
      }
  PetscCall(VecRestoreArrayRead(t->gather.vec, &cv));
  PetscCall(VecRestoreArrayWrite(yf, &y));
  PetscCall(PetscLogFlops(2.0 * fb->dof * (fb->degree + 1) * fb->dim * BrickBoxSize(&cells)));
  PetscCall(PetscLogEventEnd(DMBRICK_Interpolate, P, xc, yf, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_BrickDGTransfer(Mat P, Vec xf, Vec yc)
{
  BrickDGTransfer   *t;
  DM_Brick          *fb;
  const PetscScalar *x;
  PetscScalar       *cv, out[729], work[729];
  BrickBox           cells;
  PetscInt           b = 0;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Restrict, P, xf, yc, 0));
  PetscCall(MatShellGetContext(P, &t));
  PetscCall(BrickDGTransferTryGPU(t, PETSC_FALSE, xf, yc, &done));
  if (done) {
    PetscCall(PetscLogEventEnd(DMBRICK_Restrict, P, xf, yc, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  fb = (DM_Brick *)t->dmf->data;
  PetscCall(DMBrickOwnedCellBox_Private(t->dmf, &cells));
  PetscCall(VecZeroEntries(t->gather.vec));
  PetscCall(VecGetArray(t->gather.vec, &cv));
  PetscCall(VecGetArrayRead(xf, &x));
  for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++, b++) {
        const PetscInt c[3] = {cx, cy, cz};
        PetscInt       child[3];
        const PetscInt p = BrickDGParent(t, c, child);
        BrickDGTransferCell(fb, t->childT, child, x + b * fb->dof, out, work);
        for (PetscInt i = 0; i < fb->dof; i++) cv[p * fb->dof + i] += out[i];
      }
  PetscCall(VecRestoreArrayRead(xf, &x));
  PetscCall(VecRestoreArray(t->gather.vec, &cv));
  PetscCall(DMBrickBoxScatterAdd_Private(&t->gather, PETSC_FALSE, yc));
  PetscCall(PetscLogFlops(2.0 * fb->dof * (fb->degree + 1) * fb->dim * BrickBoxSize(&cells)));
  PetscCall(PetscLogEventEnd(DMBRICK_Restrict, P, xf, yc, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickDGTransferDestroy(void *ctx)
{
  BrickDGTransfer *t = (BrickDGTransfer *)ctx;

  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    VPCudaDGTransfer g   = (VPCudaDGTransfer)t->gpu;
    int              err = VPCudaDGTransferDestroy(&g);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaDGTransferDestroy: %s", VPCudaErrorString(err));
  }
#endif
  PetscCall(DMBrickBoxGatherDestroy_Private(&t->gather));
  PetscCall(DMDestroy(&t->dmc));
  PetscCall(DMDestroy(&t->dmf));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_BrickDGTransfer(Mat P, PetscViewer viewer)
{
  BrickDGTransfer *t;
  PetscBool        isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetContext(P, &t));
  PetscCall(PetscViewerASCIIPrintf(viewer, "brick DG Q%" PetscInt_FMT " prolongation (canonical embedding), level %" PetscInt_FMT " -> %" PetscInt_FMT ", matrix-free cell by cell; restriction is its transpose\n", ((DM_Brick *)t->dmf->data)->degree,
                                   ((DM_Brick *)t->dmc->data)->level, ((DM_Brick *)t->dmf->data)->level));
  PetscCall(DMBrickViewLevel_Private(t->dmf, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The 1D child blocks: child[c][i*(k+1)+j] = phi_j at fine node i of child c, in the parent's reference coordinate. */
static PetscErrorCode BrickDGChildBlocks(const DM_Brick *fb, PetscReal child[2][(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)])
{
  const PetscInt k = fb->degree, n = k + 1;
  PetscReal      P[(2 * BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];

  PetscFunctionBegin;
  PetscCall(BrickBasisProlongation(k, fb->nodes, P));
  for (PetscInt c = 0; c < 2; c++)
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) child[c][i * n + j] = P[(c * k + i) * n + j];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickDGTransferCreateShell(DM dmc, DM dmf, Mat *P)
{
  DM_Brick        *fb = (DM_Brick *)dmf->data;
  BrickDGTransfer *t;
  BrickBox         cells;

  PetscFunctionBegin;
  PetscCall(PetscNew(&t));
  PetscCall(PetscObjectReference((PetscObject)dmc));
  PetscCall(PetscObjectReference((PetscObject)dmf));
  t->dmc = dmc;
  t->dmf = dmf;
  PetscCall(BrickDGChildBlocks(fb, t->child));
  for (PetscInt c = 0; c < 2; c++)
    for (PetscInt i = 0; i < fb->degree + 1; i++)
      for (PetscInt j = 0; j < fb->degree + 1; j++) t->childT[c][i * (fb->degree + 1) + j] = t->child[c][j * (fb->degree + 1) + i];
  PetscCall(DMBrickOwnedCellBox_Private(dmf, &cells));
  for (PetscInt d = 0; d < 3; d++) {
    t->parents.lo[d] = cells.lo[d] / 2;
    t->parents.hi[d] = cells.hi[d] < cells.lo[d] ? t->parents.lo[d] - 1 : cells.hi[d] / 2;
  }
  if (BrickBoxSize(&cells) <= 0) /* an inactive fine rank: no parents */
    for (PetscInt d = 0; d < 3; d++) {
      t->parents.lo[d] = 0;
      t->parents.hi[d] = -1;
    }
  PetscCall(DMBrickBoxGatherCreate_Private(dmc, &t->parents, &t->gather));
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(dmf, &device));
    if (device) PetscCall(BrickDGTransferCreateGPU(t)); /* in the set-up, not the first transfer */
  }
#endif
  PetscCall(DMBrickTransferShell_Private(dmc, dmf, t, BrickDGTransferDestroy, MatMult_BrickDGTransfer, MatMultTranspose_BrickDGTransfer, MatView_BrickDGTransfer, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The assembled prolongation: per owned fine cell, the Kronecker product of its child blocks against its parent. */
static PetscErrorCode BrickDGTransferAssemble(DM dmc, DM dmf, MatType type, Mat *P)
{
  DM_Brick      *cb = (DM_Brick *)dmc->data, *fb = (DM_Brick *)dmf->data;
  const PetscInt n = fb->degree + 1;
  PetscReal      child[2][(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
  PetscScalar   *E;
  PetscInt       rows[729], cols[729], mf, mc;
  BrickBox       cells;
  Vec            v;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Assemble, dmf, 0, 0, 0));
  PetscCall(BrickDGChildBlocks(fb, child));
  PetscCall(DMGetGlobalVector(dmf, &v));
  PetscCall(VecGetLocalSize(v, &mf));
  PetscCall(DMRestoreGlobalVector(dmf, &v));
  PetscCall(DMGetGlobalVector(dmc, &v));
  PetscCall(VecGetLocalSize(v, &mc));
  PetscCall(DMRestoreGlobalVector(dmc, &v));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dmf), P));
  PetscCall(MatSetSizes(*P, mf, mc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*P, type));
  /* a fine row couples to the (k+1)^d values of one coarse cell, on this rank or another */
  PetscCall(MatXAIJSetPreallocation(*P, 1, NULL, NULL, NULL, NULL));
  PetscCall(MatSeqAIJSetPreallocation(*P, fb->dof, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*P, fb->dof, NULL, fb->dof, NULL));
  PetscCall(PetscMalloc1(fb->dof * fb->dof, &E));
  PetscCall(DMBrickOwnedCellBox_Private(dmf, &cells));
  for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++) {
        const PetscInt c[3] = {cx, cy, cz}, p[3] = {cx / 2, cy / 2, cz / 2}, ch[3] = {cx % 2, cy % 2, cz % 2};
        const PetscInt r0 = DMBrickCellGlobalIndex_Private(fb, c), c0 = DMBrickCellGlobalIndex_Private(cb, p);
        for (PetscInt i = 0; i < fb->dof; i++) {
          rows[i] = r0 + i;
          cols[i] = c0 + i;
        }
        for (PetscInt i = 0; i < fb->dof; i++)
          for (PetscInt j = 0; j < fb->dof; j++) {
            const PetscInt ii[3] = {i % n, (i / n) % n, i / (n * n)}, jj[3] = {j % n, (j / n) % n, j / (n * n)};
            PetscReal      e = 1.0;
            for (PetscInt d = 0; d < fb->dim; d++) e *= child[ch[d]][ii[d] * n + jj[d]];
            E[i * fb->dof + j] = e;
          }
        PetscCall(MatSetValues(*P, fb->dof, rows, fb->dof, cols, E, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(E));
  PetscCall(PetscLogEventEnd(DMBRICK_Assemble, dmf, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMBrickCreateInterpolation() for DG bricks (the two levels are checked by the caller). */
PetscErrorCode DMBrickCreateInterpolationDG_Private(DM dmc, DM dmf, MatType type, Mat *P)
{
  PetscBool isshell;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(type, MATSHELL, &isshell));
  if (isshell) PetscCall(BrickDGTransferCreateShell(dmc, dmf, P));
  else PetscCall(BrickDGTransferAssemble(dmc, dmf, type, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
