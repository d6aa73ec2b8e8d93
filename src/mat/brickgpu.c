/* The GPU path of the brick operators (built with -DVP_HAVE_CUDA when PETSc has CUDA): the operators handed to the CUDA
   kernels of cuda/ (which know no PETSc types) and applied to the device arrays of VECCUDA vectors, on every rank.
   With one active rank the kernels read and write the global vectors; with several, each rank reads its ghosted
   local vector (DMGlobalToLocal on the device vectors: PetscSF, staged through the host by an MPI that is not
   GPU-aware) and writes its owned nodes. */
#include "brickelement.h"
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#  include <petscdevice_cuda.h>

/* the box of a level's arrays as the kernels see it: the whole grid on one active rank, else the ghosted local box */
static void BrickGPUBox(const DM_Brick *brick, PetscBool ghosted, VPCudaBox *box)
{
  for (PetscInt d = 0; d < 3; d++) {
    box->n[d]  = d < brick->dim ? (int)(brick->degree * brick->cells[d] - 1) : 1;
    box->lo[d] = (int)(ghosted ? brick->gstart[d] : brick->ostart[d]);
    box->m[d]  = (int)(ghosted ? brick->gwidth[d] : brick->owidth[d]);
  }
}

typedef struct {
  VPCudaKron op;     /* on the local box (several ranks) or the grid (one); NULL on a rank without nodes */
  PetscBool  local;  /* several active ranks: through the ghosted local vectors */
  Vec        xl, yl; /* local work vectors (device) */
  PetscInt   nterms, bw, dim;
} BrickKronGPU;

/* the product's own ghosted local vectors, zeroed (device memory allocated) */
static PetscErrorCode BrickKronGPULocals(DM dm, BrickKronGPU *g)
{
  PetscFunctionBegin;
  if (g->xl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMCreateLocalVector(dm, &g->xl));
  PetscCall(VecDuplicate(g->xl, &g->yl));
  PetscCall(VecZeroEntries(g->xl));
  PetscCall(VecZeroEntries(g->yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The 1D matrices on the nodes the kernel holds: the grid's interior nodes, or those of the ghosted local box (rows
   and columns outside the box dropped: the owned rows only need columns within the ghost width, which the box has). */
PetscErrorCode BrickKronGPUCreate(DM dm, const BrickKronForm *form, const BrickLine lines[], void **gpu)
{
  DM_Brick     *brick      = (DM_Brick *)dm->data;
  PetscInt      bw         = lines[0].bw;
  int           n[3]       = {1, 1, 1}, kind[BRICK_KRON_MAX_TERMS][3], err;
  double       *band[3][3] = {{NULL}}, coef[BRICK_KRON_MAX_TERMS];
  BrickKronGPU *g;
  VPCudaBox     box;

  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  g->local  = (PetscBool)(brick->nactive > 1);
  g->nterms = form->nterms;
  g->bw     = bw;
  g->dim    = brick->dim;
  BrickGPUBox(brick, PETSC_TRUE, &box);
  /* zeroed now: VECCUDA allocates device memory at first use, which would fall into the first product; with in-place
     storage (-dm_brick_slabs) the products use the vectors' own local arrays, and these are made only for a vector
     that has none */
  if (g->local && !brick->inplace) PetscCall(BrickKronGPULocals(dm, g));
  if (brick->activecomm != MPI_COMM_NULL) {
    for (PetscInt d = 0; d < brick->dim; d++) {
      const PetscInt ni = box.m[d], first = box.lo[d], w = 2 * bw + 1;
      n[d] = (int)ni;
      for (PetscInt k = 0; k < BRICK_LINE_NKINDS; k++) {
        if (!lines[d].a[k]) continue;
        PetscCall(PetscCalloc1(ni * w, &band[d][k]));
        for (PetscInt i = 0; i < ni; i++)
          for (PetscInt o = -bw; o <= bw; o++)
            if (i + o >= 0 && i + o < ni) band[d][k][i * w + o + bw] = BrickLineEntry(&lines[d], (BrickLineKind)k, first + i + 1, first + i + 1 + o);
      }
    }
    for (PetscInt t = 0; t < form->nterms; t++) {
      coef[t] = form->coef[t];
      for (PetscInt d = 0; d < 3; d++) kind[t][d] = (int)form->kind[t][d];
    }
    err = VPCudaKronCreate((int)brick->dim, n, (int)bw, (int)form->nterms, coef, (const int(*)[3])kind, (const double *const(*)[3])band, &g->op);
    for (PetscInt d = 0; d < 3; d++)
      for (PetscInt k = 0; k < 3; k++) PetscCall(PetscFree(band[d][k]));
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaKronCreate: %s", VPCudaErrorString(err));
  }
  *gpu = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BrickKronGPUDestroy(void **gpu)
{
  BrickKronGPU *g = (BrickKronGPU *)*gpu;
  int           err;

  PetscFunctionBegin;
  if (!g) PetscFunctionReturn(PETSC_SUCCESS);
  if (g->op) {
    err = VPCudaKronDestroy(&g->op);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaKronDestroy: %s", VPCudaErrorString(err));
  }
  PetscCall(VecDestroy(&g->xl));
  PetscCall(VecDestroy(&g->yl));
  PetscCall(PetscFree(g));
  *gpu = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x on the device arrays, in double or (single) in float arithmetic; flops: 2 (2 bw + 1) per point and contraction */
PetscErrorCode BrickKronGPUMult(DM dm, void *gpu, PetscBool single, Vec x, Vec y)
{
  BrickKronGPU      *g = (BrickKronGPU *)gpu;
  Vec                in = x, out = y;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscInt           n;
  int                err = 0;

  PetscFunctionBegin;
  if (g->local) {
    Vec xin, yin;
    /* x's and y's in-place locals where the brick stores them so (-dm_brick_slabs): no copy of the level in or out */
    PetscCall(DMBrickGetInPlaceLocal_Private(dm, x, &xin));
    PetscCall(DMBrickGetInPlaceLocal_Private(dm, y, &yin));
    if (!xin || !yin) PetscCall(BrickKronGPULocals(dm, g));
    PetscCall(DMBrickGlobalToLocalMirror_Private(dm, x, g->xl, &in)); /* else the sweep's local vector where it still holds x */
    out = yin ? yin : g->yl;
  }
  PetscCall(VecGetLocalSize(in, &n));
  PetscCall(VecCUDAGetArrayRead(in, &xa));
  PetscCall(VecCUDAGetArrayWrite(out, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  if (g->op) err = single ? VPCudaKronApply_mixed(g->op, xa, ya) : VPCudaKronApply_d(g->op, xa, ya);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the Kronecker-form operator: %s", VPCudaErrorString(err));
  PetscCall(VecCUDARestoreArrayRead(in, &xa));
  PetscCall(VecCUDARestoreArrayWrite(out, &ya));
  if (g->local) PetscCall(DMLocalToGlobal(dm, out, INSERT_VALUES, y)); /* the owned rows: a copy on the device (in place: nothing) */
  PetscCall(PetscLogGpuFlops((PetscLogDouble)n * g->nterms * g->dim * 2.0 * (2 * g->bw + 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  VPCudaCellLaplace op;
  PetscBool         local; /* several active ranks: x through the ghosted local vector */
  PetscBool         forest; /* a forest: its cell-node table, x and y through local vectors (any rank count) */
  Vec               xl, yl;
  PetscLogDouble    ncells;
} BrickLaplaceGPU;

/* a forest's cell-node table as the kernels take it (int) */
PetscErrorCode BrickForestNodeTableInt(const BrickForest *f, PetscInt ncells, int **table)
{
  PetscFunctionBegin;
  PetscCheck(f->nlocal < PETSC_MAX_INT && (PetscInt64)f->nlocal <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "forest brick: %" PetscInt_FMT " local nodes on a rank exceed the GPU kernels' int indices", f->nlocal);
  PetscCall(PetscMalloc1(ncells * f->nv + 1, table));
  for (PetscInt i = 0; i < ncells * f->nv; i++) (*table)[i] = (int)f->node[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Laplacian's cell kernel (cuda/vpcell.cu) from its per-direction cell matrices (n = k + 1). A rank computes its
   owned nodes: its cells and the layer of cells below them, whose upper faces carry its first nodes. */
PetscErrorCode BrickLaplaceGPUCreate(DM dm, const PetscReal M[][BRICK_MAX_N * BRICK_MAX_N], const PetscReal K[][BRICK_MAX_N * BRICK_MAX_N], void **gpu)
{
  DM_Brick        *brick = (DM_Brick *)dm->data;
  int              c0[3] = {0, 0, 0}, cells[3] = {1, 1, 1}, err;
  const double    *m[3], *k[3];
  VPCudaBox        xb, yb;
  BrickLaplaceGPU *g;

  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  if (brick->forest) {
    int *table;
    for (PetscInt d = 0; d < 3; d++) {
      m[d] = M[d];
      k[d] = K[d];
    }
    g->forest = PETSC_TRUE;
    g->ncells = brick->forest->ncells;
    PetscCall(DMCreateLocalVector(dm, &g->xl));
    PetscCall(VecZeroEntries(g->xl));
    PetscCall(VecDuplicate(g->xl, &g->yl));
    PetscCall(VecZeroEntries(g->yl));
    PetscCall(BrickForestNodeTableInt(brick->forest, brick->forest->ncells, &table));
    err = VPCudaCellLaplaceCreateTable((int)brick->dim, (int)brick->degree, (int)brick->forest->ncells, table, (size_t)brick->forest->nlocal, m, k, &g->op);
    PetscCall(PetscFree(table));
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaCellLaplaceCreateTable: %s", VPCudaErrorString(err));
    *gpu = g;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  g->local = (PetscBool)(brick->nactive > 1);
  if (g->local) { /* zeroed now: VECCUDA allocates device memory at first use, which would fall into the first product */
    PetscCall(DMCreateLocalVector(dm, &g->xl));
    PetscCall(VecZeroEntries(g->xl));
  }
  BrickGPUBox(brick, PETSC_TRUE, &xb);
  BrickGPUBox(brick, PETSC_FALSE, &yb);
  g->ncells = 1;
  for (PetscInt d = 0; d < 3; d++) {
    if (d < brick->dim) {
      c0[d]    = (int)PetscMax(brick->cstart[d] - 1, 0);
      cells[d] = brick->activecomm != MPI_COMM_NULL ? (int)(brick->cend[d] - c0[d]) : 0;
    }
    g->ncells *= cells[d];
    m[d] = M[d];
    k[d] = K[d];
  }
  err = VPCudaCellLaplaceCreate((int)brick->dim, (int)brick->degree, c0, cells, &xb, &yb, m, k, &g->op);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaCellLaplaceCreate: %s", VPCudaErrorString(err));
  *gpu = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BrickLaplaceGPUDestroy(void **gpu)
{
  BrickLaplaceGPU *g = (BrickLaplaceGPU *)*gpu;
  int              err;

  PetscFunctionBegin;
  if (!g) PetscFunctionReturn(PETSC_SUCCESS);
  err = VPCudaCellLaplaceDestroy(&g->op);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaCellLaplaceDestroy: %s", VPCudaErrorString(err));
  PetscCall(VecDestroy(&g->xl));
  PetscCall(VecDestroy(&g->yl));
  PetscCall(PetscFree(g));
  *gpu = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x on the device arrays, cell by cell; flops per cell: 14 n^4 (3D), 8 n^3 (2D), n = k + 1 */
PetscErrorCode BrickLaplaceGPUMult(DM dm, void *gpu, Vec x, Vec y)
{
  DM_Brick          *brick = (DM_Brick *)dm->data;
  BrickLaplaceGPU   *g     = (BrickLaplaceGPU *)gpu;
  Vec                in    = x;
  const PetscScalar *xa;
  PetscScalar       *ya;
  const PetscReal    n = (PetscReal)(brick->degree + 1);
  int                err;

  PetscFunctionBegin;
  if (g->forest) { /* local vectors: the ghosts in, the sums of the cells' contributions out to their owners (one rank: the global vectors) */
    PetscMPIInt size;
    Vec         xin = x, yout = y;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
    if (size > 1) {
      PetscCall(DMGlobalToLocal(dm, x, INSERT_VALUES, g->xl));
      xin  = g->xl;
      yout = g->yl;
    }
    PetscCall(VecCUDAGetArrayRead(xin, &xa));
    PetscCall(VecCUDAGetArrayWrite(yout, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    err = VPCudaCellLaplaceApply(g->op, brick->precision == DMBRICK_PRECISION_SINGLE, xa, ya);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the cell-wise Laplacian (forest): %s", VPCudaErrorString(err));
    PetscCall(VecCUDARestoreArrayRead(xin, &xa));
    PetscCall(VecCUDARestoreArrayWrite(yout, &ya));
    if (size > 1) {
      PetscCall(VecZeroEntries(y));
      PetscCall(DMLocalToGlobal(dm, g->yl, ADD_VALUES, y));
    }
    PetscCall(PetscLogGpuFlops(g->ncells * (brick->dim == 3 ? 14 * n * n * n * n : 8 * n * n * n)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (g->local) PetscCall(DMBrickGlobalToLocalMirror_Private(dm, x, g->xl, &in)); /* the sweep's local vector where it still holds x */
  PetscCall(VecCUDAGetArrayRead(in, &xa));
  PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaCellLaplaceApply(g->op, brick->precision == DMBRICK_PRECISION_SINGLE, xa, ya);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the cell-wise Laplacian: %s", VPCudaErrorString(err));
  PetscCall(VecCUDARestoreArrayRead(in, &xa));
  PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscCall(PetscLogGpuFlops(g->ncells * (brick->dim == 3 ? 14 * n * n * n * n : 8 * n * n * n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator's diagonal on the device from its Kronecker form: per direction the 1D diagonals on the owned nodes,
   combined by one kernel (no host arrays of the vector's length). */
PetscErrorCode BrickGPUDiagonal(DM dm, Vec diag)
{
  DM_Brick     *brick = (DM_Brick *)dm->data;
  BrickKronForm form;
  BrickLine     lines[3];
  double       *d1[3][3] = {{NULL}}, coef[BRICK_KRON_MAX_TERMS];
  int           m[3] = {1, 1, 1}, kind[BRICK_KRON_MAX_TERMS][3], err;
  PetscScalar  *da;

  PetscFunctionBegin;
  PetscCall(brick->op.kronecker(dm, &form, lines));
  for (PetscInt d = 0; d < brick->dim; d++) {
    m[d] = (int)brick->owidth[d];
    for (PetscInt k = 0; k < BRICK_LINE_NKINDS; k++) {
      if (!lines[d].a[k]) continue;
      PetscCall(PetscMalloc1(m[d] + 1, &d1[d][k]));
      for (PetscInt i = 0; i < m[d]; i++) d1[d][k][i] = BrickLineEntry(&lines[d], (BrickLineKind)k, brick->ostart[d] + i + 1, brick->ostart[d] + i + 1);
    }
  }
  for (PetscInt t = 0; t < form.nterms; t++) {
    coef[t] = form.coef[t];
    for (PetscInt d = 0; d < 3; d++) kind[t][d] = (int)form.kind[t][d];
  }
  PetscCall(VecCUDAGetArrayWrite(diag, &da));
  err = VPCudaKronDiagonal((int)brick->dim, m, (int)form.nterms, coef, (const int(*)[3])kind, (const double *const(*)[3])d1, da);
  PetscCall(VecCUDARestoreArrayWrite(diag, &da));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaKronDiagonal: %s", VPCudaErrorString(err));
  for (PetscInt d = 0; d < 3; d++) {
    for (PetscInt k = 0; k < 3; k++) PetscCall(PetscFree(d1[d][k]));
    PetscCall(BrickLineDestroy(&lines[d]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the diagonal on the device when diag is a VECCUDA vector (a no-op without CUDA): done says whether it ran */
PetscErrorCode BrickTryGPUDiagonal(DM dm, Vec diag, PetscBool *done)
{
  PetscFunctionBegin;
  PetscCall(DMBrickVecsOnDevice_Private(diag, NULL, done));
#if defined(VP_HAVE_CUDA)
  if (*done && ((DM_Brick *)dm->data)->forest) {
    /* a forest: the cells' element diagonals summed into a local vector on the device, then to the owners */
    PetscReal        M[3][BRICK_MAX_N * BRICK_MAX_N], K[3][BRICK_MAX_N * BRICK_MAX_N];
    BrickLaplaceGPU *g;
    PetscScalar     *ya;
    int              err;
    PetscCall(BrickLaplaceMatrices1D(dm, M, K));
    PetscCall(BrickLaplaceGPUCreate(dm, M, K, (void **)&g));
    PetscCall(VecCUDAGetArrayWrite(g->yl, &ya));
    err = VPCudaCellLaplaceDiagonal(g->op, ya);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the forest diagonal: %s", VPCudaErrorString(err));
    PetscCall(VecCUDARestoreArrayWrite(g->yl, &ya));
    PetscCall(VecZeroEntries(diag));
    PetscCall(DMLocalToGlobal(dm, g->yl, ADD_VALUES, diag));
    PetscCall(BrickLaplaceGPUDestroy((void **)&g));
  } else if (*done) PetscCall(BrickGPUDiagonal(dm, diag));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

