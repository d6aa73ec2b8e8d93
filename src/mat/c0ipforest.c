/* The C0IP biharmonic (c0ip.c) on a forest level: cell by cell and face by face. A forest with removed cells is no
   longer one Kronecker form over the whole box (the faces next to removed cells are boundary faces in the middle of the
   grid), but every cell and face is: the cell matrix is

     sum_d H_d (x) M (x) M + 2 sum_{d<e} L_d (x) L_e (x) M                       (H = int phi'' phi'' / h^3, as c0ip.c)

   and a face normal to d couples its two cells through sigma J J^T - J A^T - A J^T along d times the tangential masses,
   J the jump of the normal derivative and A the mean of the second normal derivative (brickline.c's 1D face terms: on a
   boundary face J and A are one-sided and sigma doubles). The product applies these by sum factorization: a cell's
   term, its upper faces (to the face neighbour, which is the rank's or a ghost) and its boundary faces, so every face
   is applied once, by the owner of its lower cell; the contributions to ghost nodes go to their owners (local-to-global
   add). The entries (assembly, diagonal, the smoother's patch matrices) come from the same 1D pieces. */
#include "brickelement.h"
#if defined(VP_HAVE_CUDA)
  #include <vpatch_cuda.h>
  #include <petscdevice_cuda.h>
#endif

PetscErrorCode BrickC0IPCellSetUp(DM dm, BrickC0IPCell *c)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt k = brick->degree, n = k + 1;
  PetscReal      Mref[BRICK_MAX_N * BRICK_MAX_N], Lref[BRICK_MAX_N * BRICK_MAX_N], H[BRICK_MAX_N * BRICK_MAX_N], d1[2][BRICK_MAX_N], d2[2][BRICK_MAX_N], h[3];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->dim = brick->dim;
  c->n   = n;
  PetscCall(DMBrickCellSize_Private(dm, h));
  PetscCall(BrickElementMatrices1D(k, brick->nodes, Mref, Lref));
  PetscCall(BrickElementSecondDerivatives(k, brick->nodes, H, d1, d2));
  for (PetscInt d = 0; d < 3; d++) {
    if (d >= brick->dim) { /* 2D: the unused z is one node of weight 1 */
      c->M[d][0] = c->L[d][0] = c->H[d][0] = 1.0;
      continue;
    }
    for (PetscInt i = 0; i < n * n; i++) {
      c->M[d][i] = h[d] * Mref[i];
      c->L[d][i] = Lref[i] / h[d];
      c->H[d][i] = H[i] / (h[d] * h[d] * h[d]);
    }
    /* interior face: the lower cell's end 1 (outward normal +1), the upper cell's end 0 (outward normal -1) */
    for (PetscInt i = 0; i < n; i++) {
      c->J[d][i]        = d1[1][i] / h[d];
      c->J[d][n + i]    = -d1[0][i] / h[d];
      c->A[d][i]        = 0.5 * d2[1][i] / (h[d] * h[d]);
      c->A[d][n + i]    = 0.5 * d2[0][i] / (h[d] * h[d]);
      c->Jb[d][0][i]    = -d1[0][i] / h[d];
      c->Ab[d][0][i]    = d2[0][i] / (h[d] * h[d]);
      c->Jb[d][1][i]    = d1[1][i] / h[d];
      c->Ab[d][1][i]    = d2[1][i] / (h[d] * h[d]);
    }
    c->sigma[d]  = BrickC0IPPenalty(k) / h[d];
    c->sigmab[d] = 2.0 * BrickC0IPPenalty(k) / h[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the 3 node coordinates of cell-local node i (x fastest) */
static inline void BrickC0IPSplit(const BrickC0IPCell *c, PetscInt i, PetscInt a[3])
{
  a[0] = i % c->n;
  a[1] = c->dim > 1 ? (i / c->n) % c->n : 0;
  a[2] = c->dim > 2 ? i / (c->n * c->n) : 0;
}

PetscReal BrickC0IPCellEntry(const BrickC0IPCell *c, PetscInt i, PetscInt j)
{
  const PetscInt n = c->n;
  PetscInt       a[3], b[3];
  PetscReal      m[3], l[3], h[3], sum = 0;

  BrickC0IPSplit(c, i, a);
  BrickC0IPSplit(c, j, b);
  for (PetscInt d = 0; d < 3; d++) {
    const PetscInt o = d < c->dim ? a[d] * n + b[d] : 0;
    m[d]             = c->M[d][o];
    l[d]             = c->L[d][o];
    h[d]             = c->H[d][o];
  }
  for (PetscInt d = 0; d < c->dim; d++) {
    PetscReal p = h[d];
    for (PetscInt e = 0; e < c->dim; e++)
      if (e != d) p *= m[e];
    sum += p;
    for (PetscInt e = d + 1; e < c->dim; e++) {
      PetscReal q = 2.0 * l[d] * l[e];
      for (PetscInt g = 0; g < c->dim; g++)
        if (g != d && g != e) q *= m[g];
      sum += q;
    }
  }
  return sum;
}

/* the entry of the face normal to d between node i of cell si and node j of cell sj: side < 0 an interior face (si, sj:
   0 the lower cell, 1 the upper one), else a boundary face on that side (0 lower, 1 upper) of one cell (si = sj = 0) */
PetscReal BrickC0IPFaceEntry(const BrickC0IPCell *c, PetscInt d, PetscInt side, PetscInt si, PetscInt i, PetscInt sj, PetscInt j)
{
  const PetscInt n = c->n;
  PetscInt       a[3], b[3];
  PetscReal      p;

  BrickC0IPSplit(c, i, a);
  BrickC0IPSplit(c, j, b);
  if (side < 0) {
    const PetscInt  ia = si * n + a[d], ib = sj * n + b[d];
    const PetscReal *J = c->J[d], *A = c->A[d];
    p                  = c->sigma[d] * J[ia] * J[ib] - (J[ia] * A[ib] + A[ia] * J[ib]); /* (i, j) and (j, i) round alike */
  } else {
    const PetscReal *J = c->Jb[d][side], *A = c->Ab[d][side];
    p                  = c->sigmab[d] * J[a[d]] * J[b[d]] - (J[a[d]] * A[b[d]] + A[a[d]] * J[b[d]]);
  }
  for (PetscInt e = 0; e < c->dim; e++)
    if (e != d) p *= c->M[e][a[e] * n + b[e]];
  return p;
}

/* v = the cell term applied to u (n^dim values, x fastest); work: 8 n^dim */
void BrickC0IPCellApply(const BrickC0IPCell *c, const PetscScalar *u, PetscScalar *v, PetscScalar *work)
{
  const PetscInt n = c->n, ext[3] = {n, n, c->dim == 3 ? n : 1}, nv = ext[0] * ext[1] * ext[2];
  PetscScalar   *xm = work, *xl = xm + nv, *xh = xl + nv, *t = xh + nv, *s = t + nv, *q = s + nv;

  BrickTensorApply1D(0, ext, n, c->M[0], u, xm);
  BrickTensorApply1D(0, ext, n, c->L[0], u, xl);
  BrickTensorApply1D(0, ext, n, c->H[0], u, xh);
  if (c->dim == 2) {
    /* M_y H_x + H_y M_x + 2 L_y L_x */
    BrickTensorApply1D(1, ext, n, c->M[1], xh, v);
    BrickTensorApply1D(1, ext, n, c->H[1], xm, t);
    BrickTensorApply1D(1, ext, n, c->L[1], xl, s);
    for (PetscInt i = 0; i < nv; i++) v[i] += t[i] + 2.0 * s[i];
    return;
  }
  {
    PetscScalar *mm = q + nv, *lmml = mm + nv;
    /* s = M_y H_x + H_y M_x + 2 L_y L_x (then M_z), mm = M_y M_x (then H_z), lmml = M_y L_x + L_y M_x (then 2 L_z) */
    BrickTensorApply1D(1, ext, n, c->M[1], xh, s);
    BrickTensorApply1D(1, ext, n, c->H[1], xm, t);
    for (PetscInt i = 0; i < nv; i++) s[i] += t[i];
    BrickTensorApply1D(1, ext, n, c->L[1], xl, t);
    for (PetscInt i = 0; i < nv; i++) s[i] += 2.0 * t[i];
    BrickTensorApply1D(1, ext, n, c->M[1], xm, mm);
    BrickTensorApply1D(1, ext, n, c->M[1], xl, lmml);
    BrickTensorApply1D(1, ext, n, c->L[1], xm, t);
    for (PetscInt i = 0; i < nv; i++) lmml[i] += t[i];
    BrickTensorApply1D(2, ext, n, c->M[2], s, v);
    BrickTensorApply1D(2, ext, n, c->H[2], mm, t);
    BrickTensorApply1D(2, ext, n, c->L[2], lmml, q);
    for (PetscInt i = 0; i < nv; i++) v[i] += t[i] + 2.0 * q[i];
  }
}

/* the tangential masses of a face normal to d applied to a trace (extent 1 along d) */
static void BrickC0IPTangential(const BrickC0IPCell *c, PetscInt d, const PetscInt text[], PetscScalar *t, PetscScalar *tmp)
{
  for (PetscInt e = 0; e < c->dim; e++) {
    if (e == d) continue;
    BrickTensorApply1D(e, text, c->n, c->M[e], t, tmp);
    for (PetscInt i = 0; i < text[0] * text[1] * text[2]; i++) t[i] = tmp[i];
  }
}

/* the face normal to d: side < 0 interior, vl/vu += its term applied to the lower cell's ul and the upper cell's uu (vl or
   vu NULL: that side's rows not formed); side 0/1 a boundary face of one cell (ul, vl; uu, vu unused); work: 5 n^dim */
void BrickC0IPFaceApply(const BrickC0IPCell *c, PetscInt d, PetscInt side, const PetscScalar *ul, const PetscScalar *uu, PetscScalar *vl, PetscScalar *vu, PetscScalar *work)
{
  const PetscInt n = c->n, ext[3] = {n, n, c->dim == 3 ? n : 1}, nv = ext[0] * ext[1] * ext[2];
  PetscInt       text[3] = {ext[0], ext[1], ext[2]}, nt;
  PetscScalar   *tj = work, *ta = tj + nv, *tmp = ta + nv, *g = tmp + nv, *out = g + nv;
  const PetscReal *Jl = side < 0 ? c->J[d] : c->Jb[d][side], *Al = side < 0 ? c->A[d] : c->Ab[d][side], sigma = side < 0 ? c->sigma[d] : c->sigmab[d];

  text[d] = 1;
  nt      = text[0] * text[1] * text[2];
  /* the traces J u and A u: contractions along d with the functionals (row vectors) */
  BrickTensorApply1D(d, ext, 1, Jl, ul, tj);
  BrickTensorApply1D(d, ext, 1, Al, ul, ta);
  if (side < 0) {
    BrickTensorApply1D(d, ext, 1, c->J[d] + n, uu, tmp);
    for (PetscInt i = 0; i < nt; i++) tj[i] += tmp[i];
    BrickTensorApply1D(d, ext, 1, c->A[d] + n, uu, tmp);
    for (PetscInt i = 0; i < nt; i++) ta[i] += tmp[i];
  }
  BrickC0IPTangential(c, d, text, tj, tmp);
  BrickC0IPTangential(c, d, text, ta, tmp);
  /* v = J (x) (sigma M tj - M ta) - A (x) M tj: expansions along d (column vectors) */
  for (PetscInt i = 0; i < nt; i++) g[i] = sigma * tj[i] - ta[i];
  for (PetscInt s = 0; s < (side < 0 ? 2 : 1); s++) {
    const PetscReal *J = side < 0 ? c->J[d] + s * n : Jl, *A = side < 0 ? c->A[d] + s * n : Al;
    PetscScalar     *v = s ? vu : vl;
    if (!v) continue; /* a side whose rows the caller does not need */
    BrickTensorApply1D(d, text, n, J, g, out);
    for (PetscInt i = 0; i < nv; i++) v[i] += out[i];
    BrickTensorApply1D(d, text, n, A, tj, out);
    for (PetscInt i = 0; i < nv; i++) v[i] -= out[i];
  }
}

/* flops of one product: 12 (3D) / 5 (2D) cell contractions of n^(d+1) multiply-adds, about 10 n^d per face and 1.5
   faces per cell */
static PetscLogDouble BrickC0IPForestFlops(const BrickC0IPCell *c, const BrickForest *f)
{
  const PetscLogDouble n = c->n, cellf = (f->dim == 3 ? 12 : 5) * f->nv * n, facef = 10.0 * f->nv * 1.5 * f->dim;
  return 2.0 * (cellf + facef) * f->ncells;
}

typedef struct {
  DM            dm;
  BrickC0IPCell cell;
  Vec           xl, yl; /* ghosted work vectors (several ranks) */
  PetscScalar  *buf;    /* the product's scratch: two cells' values and results, and the kernels' work (13 nv) */
  PetscReal    *cd;     /* the diagonals of the cell term and of each kind of face, nv each: the same for every cell */
  void         *gpu;    /* the CUDA product (VP_HAVE_CUDA: VPCudaC0IPForest), made with the shell for device vectors */
} BrickC0IPForest;

#if defined(VP_HAVE_CUDA)
/* the cell's 1D pieces for the CUDA kernels (cuda/vpforestc0ip.cu) */
void BrickC0IPCellToCuda(const BrickC0IPCell *cell, VPCudaC0IPCell *c)
{
  const PetscInt n = cell->n;

  memset(c, 0, sizeof(*c));
  c->dim = (int)cell->dim;
  c->n   = (int)n;
  for (PetscInt d = 0; d < 3; d++) {
    for (PetscInt i = 0; i < n * n; i++) {
      c->M[d][i] = cell->M[d][i];
      c->L[d][i] = cell->L[d][i];
      c->H[d][i] = cell->H[d][i];
    }
    for (PetscInt i = 0; i < 2 * n; i++) {
      c->J[d][i] = cell->J[d][i];
      c->A[d][i] = cell->A[d][i];
    }
    for (PetscInt s = 0; s < 2; s++)
      for (PetscInt i = 0; i < n; i++) {
        c->Jb[d][s][i] = cell->Jb[d][s][i];
        c->Ab[d][s][i] = cell->Ab[d][s][i];
      }
    c->sigma[d]  = cell->sigma[d];
    c->sigmab[d] = cell->sigmab[d];
  }
}

/* the CUDA product (cuda/vpforestc0ip.cu): the same 1D pieces, the forest's tables as int */
static PetscErrorCode BrickC0IPForestGPUCreate(BrickC0IPForest *ctx)
{
  DM_Brick          *brick = (DM_Brick *)ctx->dm->data;
  const BrickForest *f     = brick->forest;
  const PetscInt     nf    = 2 * f->dim;
  VPCudaC0IPCell     c;
  int               *node, *face, err;

  PetscFunctionBegin;
  PetscCheck(brick->precision == DMBRICK_PRECISION_DOUBLE, PetscObjectComm((PetscObject)ctx->dm), PETSC_ERR_SUP, "-dm_brick_operator c0ip on a forest runs its GPU product in double only: -dm_brick_precision / -dm_brick_mg_precision single; allowed: double");
  BrickC0IPCellToCuda(&ctx->cell, &c);
  PetscCall(BrickForestNodeTableInt(f, f->ncells + f->nghost, &node));
  PetscCall(PetscMalloc1(nf * f->ncells + 1, &face));
  for (PetscInt i = 0; i < nf * f->ncells; i++) face[i] = (int)f->face[i];
  err = VPCudaC0IPForestCreate(&c, (int)f->ncells, (int)(f->ncells + f->nghost), node, face, (size_t)f->nlocal, (VPCudaC0IPForest *)&ctx->gpu);
  PetscCall(PetscFree(node));
  PetscCall(PetscFree(face));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaC0IPForestCreate (degree %" PetscInt_FMT " in %" PetscInt_FMT "D: 12 (k+1)^dim doubles of shared memory a block): %s", brick->degree, f->dim, VPCudaErrorString(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x on the device: the local vectors on several ranks (ghosts in, the sums out to their owners) */
static PetscErrorCode BrickC0IPForestGPUMult(BrickC0IPForest *ctx, Vec x, Vec y)
{
  const BrickForest *f = ((DM_Brick *)ctx->dm->data)->forest;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMPIInt        size;
  Vec                xin = x, yout = y;
  int                err;

  PetscFunctionBegin;
  if (!ctx->gpu) PetscCall(BrickC0IPForestGPUCreate(ctx));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ctx->dm), &size));
  if (size > 1) {
    PetscCall(DMGlobalToLocal(ctx->dm, x, INSERT_VALUES, ctx->xl));
    xin  = ctx->xl;
    yout = ctx->yl;
  }
  PetscCall(VecCUDAGetArrayRead(xin, &xa));
  PetscCall(VecCUDAGetArrayWrite(yout, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaC0IPForestApply((VPCudaC0IPForest)ctx->gpu, xa, ya);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the C0IP forest product: %s", VPCudaErrorString(err));
  PetscCall(VecCUDARestoreArrayRead(xin, &xa));
  PetscCall(VecCUDARestoreArrayWrite(yout, &ya));
  if (size > 1) {
    PetscCall(VecZeroEntries(y));
    PetscCall(DMLocalToGlobal(ctx->dm, ctx->yl, ADD_VALUES, y));
  }
  PetscCall(PetscLogGpuFlops(BrickC0IPForestFlops(&ctx->cell, f)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* Clamped boundary values u = g on a forest (DMBrickSetBoundaryFunction()), by lifting: b -= A u_g with u_g the nodal
   interpolant of g on the Dirichlet nodes (those of the domain's boundary, removed cells' faces included), zero on the
   free ones: the product's own loop over the rank's cells, their upper faces and boundary faces, with each cell's
   Dirichlet nodes holding g (ghost cells' too, evaluated here: no exchange of g). */
PetscErrorCode BrickC0IPForestSubtractBoundaryLift_Private(DM dm, Vec b)
{
  const BrickForest *f = ((DM_Brick *)dm->data)->forest;
  BrickC0IPCell      cell;
  PetscScalar       *u, *un, *v, *vn, *work, *yl;
  PetscReal          h[3];
  Vec                y;
  PetscInt           nv = f->nv, nf = 2 * f->dim;
  PetscBool          any;

  PetscFunctionBegin;
  PetscCall(BrickC0IPCellSetUp(dm, &cell));
  PetscCall(DMBrickCellSize_Private(dm, h));
  PetscCall(PetscMalloc1(13 * nv, &u));
  un   = u + nv;
  v    = un + nv;
  vn   = v + nv;
  work = vn + nv;
  PetscCall(DMGetLocalVector(dm, &y));
  PetscCall(VecZeroEntries(y));
  PetscCall(VecGetArray(y, &yl));
  for (PetscInt c = 0; c < f->ncells; c++) {
    const PetscInt *idx = f->node + c * nv;
    PetscCall(DMBrickBoundaryCellValues_Private(dm, h, f->ijk + 3 * c, idx, u, &any)); /* g at Dirichlet nodes, else 0 */
    BrickC0IPCellApply(&cell, u, v, work);
    for (PetscInt e = 0; e < nf; e++) {
      const PetscInt nb = f->face[c * nf + e], d = e / 2, side = e % 2;
      if (nb < 0) BrickC0IPFaceApply(&cell, d, side, u, NULL, v, NULL, work);
      else if (side == 1) { /* an upper face, once, by its lower cell (as in the product) */
        const PetscInt *nidx = f->node + nb * nv;
        PetscBool       nany;
        PetscCall(DMBrickBoundaryCellValues_Private(dm, h, f->ijk + 3 * nb, nidx, un, &nany));
        for (PetscInt i = 0; i < nv; i++) vn[i] = 0.0;
        BrickC0IPFaceApply(&cell, d, -1, u, un, v, vn, work);
        for (PetscInt i = 0; i < nv; i++)
          if (nidx[i] >= 0) yl[nidx[i]] += vn[i];
      }
    }
    for (PetscInt i = 0; i < nv; i++)
      if (idx[i] >= 0) yl[idx[i]] += v[i];
  }
  PetscCall(VecRestoreArray(y, &yl));
  {
    Vec t;
    PetscCall(DMGetGlobalVector(dm, &t));
    PetscCall(VecZeroEntries(t));
    PetscCall(DMLocalToGlobal(dm, y, ADD_VALUES, t));
    PetscCall(VecAXPY(b, -1.0, t));
    PetscCall(DMRestoreGlobalVector(dm, &t));
  }
  PetscCall(DMRestoreLocalVector(dm, &y));
  PetscCall(PetscFree(u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x: each rank's cells, their upper faces and their boundary faces */
static PetscErrorCode MatMult_BrickC0IPForest(Mat A, Vec x, Vec y)
{
  BrickC0IPForest   *ctx;
  const BrickForest *f;
  const PetscScalar *xl;
  PetscScalar       *yl, *u, *un, *v, *vn, *work;
  PetscInt           nv, nf;
  PetscMPIInt        size;
  Vec                xin = x, yout = y;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
#if defined(VP_HAVE_CUDA)
  {
    PetscBool gpu;
    PetscCall(DMBrickVecsOnDevice_Private(x, y, &gpu));
    if (gpu) {
      PetscCall(BrickC0IPForestGPUMult(ctx, x, y));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  f  = ((DM_Brick *)ctx->dm->data)->forest;
  nv = f->nv;
  nf = 2 * f->dim;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ctx->dm), &size));
  if (size > 1) {
    PetscCall(DMGlobalToLocal(ctx->dm, x, INSERT_VALUES, ctx->xl));
    xin  = ctx->xl;
    yout = ctx->yl;
  }
  PetscCall(VecZeroEntries(yout));
  u    = ctx->buf;
  un   = u + nv;
  v    = un + nv;
  vn   = v + nv;
  work = vn + nv;
  PetscCall(VecGetArrayRead(xin, &xl));
  PetscCall(VecGetArray(yout, &yl));
  for (PetscInt c = 0; c < f->ncells; c++) {
    const PetscInt *idx = f->node + c * nv;
    for (PetscInt i = 0; i < nv; i++) u[i] = idx[i] < 0 ? 0.0 : xl[idx[i]];
    BrickC0IPCellApply(&ctx->cell, u, v, work);
    for (PetscInt e = 0; e < nf; e++) {
      const PetscInt nb = f->face[c * nf + e], d = e / 2, side = e % 2;
      if (nb < 0) BrickC0IPFaceApply(&ctx->cell, d, side, u, NULL, v, NULL, work);
      else if (side == 1) { /* the upper face: this cell is its lower one */
        const PetscInt *nidx = f->node + nb * nv;
        for (PetscInt i = 0; i < nv; i++) {
          un[i] = nidx[i] < 0 ? 0.0 : xl[nidx[i]];
          vn[i] = 0.0;
        }
        BrickC0IPFaceApply(&ctx->cell, d, -1, u, un, v, vn, work);
        for (PetscInt i = 0; i < nv; i++)
          if (nidx[i] >= 0) yl[nidx[i]] += vn[i];
      }
    }
    for (PetscInt i = 0; i < nv; i++)
      if (idx[i] >= 0) yl[idx[i]] += v[i];
  }
  PetscCall(VecRestoreArrayRead(xin, &xl));
  PetscCall(VecRestoreArray(yout, &yl));
  if (size > 1) {
    PetscCall(VecZeroEntries(y));
    PetscCall(DMLocalToGlobal(ctx->dm, ctx->yl, ADD_VALUES, y));
  }
  PetscCall(PetscLogFlops(BrickC0IPForestFlops(&ctx->cell, f)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_BrickC0IPForest(Mat A, Vec diag)
{
  BrickC0IPForest   *ctx;
  const BrickForest *f;
  const PetscReal   *cd;
  PetscScalar       *yl;
  PetscInt           nv, nf;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx)); /* device vectors too: summed on the host, copied once (set-up work, as sipg's) */
  f  = ((DM_Brick *)ctx->dm->data)->forest;
  nv = f->nv;
  nf = 2 * f->dim;
  cd = ctx->cd;
  PetscCall(VecZeroEntries(ctx->yl));
  PetscCall(VecGetArray(ctx->yl, &yl));
  for (PetscInt c = 0; c < f->ncells; c++) {
    const PetscInt *idx = f->node + c * nv;
    for (PetscInt i = 0; i < nv; i++)
      if (idx[i] >= 0) yl[idx[i]] += cd[i];
    for (PetscInt e = 0; e < nf; e++) {
      const PetscInt nb = f->face[c * nf + e], d = e / 2, side = e % 2;
      if (nb < 0) {
        for (PetscInt i = 0; i < nv; i++)
          if (idx[i] >= 0) yl[idx[i]] += cd[(1 + side + 4 * d) * nv + i];
      } else if (side == 1) {
        const PetscInt *nidx = f->node + nb * nv;
        PetscInt        stride = 1;
        for (PetscInt t = 0; t < d; t++) stride *= ctx->cell.n;
        for (PetscInt i = 0; i < nv; i++) {
          const PetscInt ad = (i / stride) % ctx->cell.n;
          if (idx[i] >= 0) yl[idx[i]] += cd[(3 + 4 * d) * nv + i];
          if (nidx[i] >= 0) yl[nidx[i]] += cd[(4 + 4 * d) * nv + i];
          /* a node of both cells (on the face; on a periodic direction of 2 cells also the far ends): the cross terms */
          if (idx[i] < 0 || (ad != 0 && ad != ctx->cell.n - 1)) continue;
          for (PetscInt bd = 0; bd < ctx->cell.n; bd += ctx->cell.n - 1) {
            const PetscInt j = i + (bd - ad) * stride;
            if (nidx[j] == idx[i]) yl[idx[i]] += BrickC0IPFaceEntry(&ctx->cell, d, -1, 0, i, 1, j) + BrickC0IPFaceEntry(&ctx->cell, d, -1, 1, j, 0, i);
          }
        }
      }
    }
  }
  PetscCall(VecRestoreArray(ctx->yl, &yl));
  PetscCall(VecZeroEntries(diag));
  PetscCall(DMLocalToGlobal(ctx->dm, ctx->yl, ADD_VALUES, diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickC0IPForestDestroy(void *ptr)
{
  BrickC0IPForest *ctx = (BrickC0IPForest *)ptr;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&ctx->xl));
  PetscCall(VecDestroy(&ctx->yl));
  PetscCall(PetscFree2(ctx->buf, ctx->cd));
#if defined(VP_HAVE_CUDA)
  {
    const int err = VPCudaC0IPForestDestroy((VPCudaC0IPForest *)&ctx->gpu);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaC0IPForestDestroy: %s", VPCudaErrorString(err));
  }
#endif
  PetscCall(DMDestroy(&ctx->dm));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BrickC0IPForestCreateShell(DM dm, Mat *A)
{
  BrickC0IPForest *ctx;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  PetscCall(PetscObjectReference((PetscObject)dm));
  ctx->dm = dm;
  PetscCall(BrickC0IPCellSetUp(dm, &ctx->cell));
  PetscCall(DMCreateLocalVector(dm, &ctx->xl));
  PetscCall(VecDuplicate(ctx->xl, &ctx->yl));
  {
    const BrickForest *f = ((DM_Brick *)dm->data)->forest;
    const PetscInt     nv = f->nv;
    PetscReal         *cd;
    PetscCall(PetscMalloc2(13 * nv, &ctx->buf, (1 + 4 * f->dim) * nv, &ctx->cd));
    cd = ctx->cd;
    for (PetscInt i = 0; i < nv; i++) {
      cd[i] = BrickC0IPCellEntry(&ctx->cell, i, i);
      for (PetscInt d = 0; d < f->dim; d++) {
        cd[(1 + 4 * d) * nv + i] = BrickC0IPFaceEntry(&ctx->cell, d, 0, 0, i, 0, i);  /* lower boundary face */
        cd[(2 + 4 * d) * nv + i] = BrickC0IPFaceEntry(&ctx->cell, d, 1, 0, i, 0, i);  /* upper boundary face */
        cd[(3 + 4 * d) * nv + i] = BrickC0IPFaceEntry(&ctx->cell, d, -1, 0, i, 0, i); /* interior face, lower cell */
        cd[(4 + 4 * d) * nv + i] = BrickC0IPFaceEntry(&ctx->cell, d, -1, 1, i, 1, i); /* interior face, upper cell */
      }
    }
  }
#if defined(VP_HAVE_CUDA)
  {
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(dm, &device));
    if (device) PetscCall(BrickC0IPForestGPUCreate(ctx)); /* in the set-up, not the first product */
  }
#endif
  PetscCall(BrickShellCreate(dm, ctx, BrickC0IPForestDestroy, MatMult_BrickC0IPForest, MatGetDiagonal_BrickC0IPForest, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cells' blocks, each upper face's block over its two cells and each boundary face's block (added) */
PetscErrorCode BrickC0IPForestAssemble(DM dm, Mat A)
{
  DM_Brick              *brick = (DM_Brick *)dm->data;
  const BrickForest     *f     = brick->forest;
  const PetscInt         nv = f->nv, nf = 2 * f->dim;
  BrickC0IPCell          cell;
  ISLocalToGlobalMapping ltog;
  PetscScalar           *E, *F[3], *B[3][2];
  PetscInt              *idx;

  PetscFunctionBegin;
  PetscCall(BrickC0IPCellSetUp(dm, &cell));
  PetscCall(DMBrickGetLocalToGlobal_Private(dm, &ltog));
  PetscCall(PetscMalloc2(nv * nv, &E, 2 * nv, &idx));
  for (PetscInt i = 0; i < nv; i++)
    for (PetscInt j = 0; j < nv; j++) E[i * nv + j] = BrickC0IPCellEntry(&cell, i, j);
  for (PetscInt d = 0; d < f->dim; d++) {
    PetscCall(PetscMalloc3(4 * nv * nv, &F[d], nv * nv, &B[d][0], nv * nv, &B[d][1]));
    for (PetscInt i = 0; i < 2 * nv; i++)
      for (PetscInt j = 0; j < 2 * nv; j++) F[d][i * 2 * nv + j] = BrickC0IPFaceEntry(&cell, d, -1, i / nv, i % nv, j / nv, j % nv);
    for (PetscInt s = 0; s < 2; s++)
      for (PetscInt i = 0; i < nv; i++)
        for (PetscInt j = 0; j < nv; j++) B[d][s][i * nv + j] = BrickC0IPFaceEntry(&cell, d, s, 0, i, 0, j);
  }
  for (PetscInt c = 0; c < f->ncells; c++) {
    PetscCall(ISLocalToGlobalMappingApply(ltog, nv, f->node + c * nv, idx));
    PetscCall(MatSetValues(A, nv, idx, nv, idx, E, ADD_VALUES));
    for (PetscInt e = 0; e < nf; e++) {
      const PetscInt nb = f->face[c * nf + e], d = e / 2, side = e % 2;
      if (nb < 0) PetscCall(MatSetValues(A, nv, idx, nv, idx, B[d][side], ADD_VALUES));
      else if (side == 1) {
        PetscCall(ISLocalToGlobalMappingApply(ltog, nv, f->node + nb * nv, idx + nv));
        PetscCall(MatSetValues(A, 2 * nv, idx, 2 * nv, idx, F[d], ADD_VALUES));
      }
    }
  }
  for (PetscInt d = 0; d < f->dim; d++) PetscCall(PetscFree3(F[d], B[d][0], B[d][1]));
  PetscCall(PetscFree2(E, idx));
  PetscFunctionReturn(PETSC_SUCCESS);
}
