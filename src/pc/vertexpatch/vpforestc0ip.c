/* C0IP vertex patches on a forest brick (CPU). A patch's matrix is the operator restricted to its (2k-1)^dim interior
   nodes: the cell terms of its 2^dim cells, the faces between them, and its outer faces, each either to a cell of the
   domain (interior face: the patch's one-sided share) or a boundary face (a removed cell or the box's end: one-sided
   terms with the doubled penalty). Which of the two each of its dim 2^dim outer faces is, its "pattern", determines the
   matrix. Where the pattern is separable (on each side of each direction all faces of one kind) and the kinds are the
   box's position classes (lower boundary / inside / upper boundary), the patch is the box's patch of that class triple:
   the fast diagonalization of PCVertexPatchSetUpPatchOperator() applies. The other patterns ("mixed": a side partly on
   the boundary next to a re-entrant edge, or a direction two cells wide with both sides on the boundary) take the
   Cholesky factor of their exact matrix, one per distinct pattern on the rank (a handful), built from the cell and face
   entries of c0ipforest.c; with -pc_vertexpatch_local_solver dense every pattern does.

   The residual is local (the default) or global (once per color). A patch's local residual is b - A x on its interior
   nodes: the cell terms of its 2^dim cells and every face of them (a face between two patch cells once, for both; an
   outer face with its neighbour's values, or one-sided on the boundary, for the patch cell's rows alone). Its reads reach
   the face neighbours of the patch cells, two cells from a rank's own: on several ranks the brick keeps two ghost
   layers for c0ip (brickp4est.c), and the red-black colors keep a color's reads clear of its writes. */
#include "vpimpl.h"
#include "../../mat/brickelement.h"
#include <petscblaslapack.h>

/* the outer face of patch cell b (bits: its position around the vertex) normal to d: bit of the pattern */
static inline PetscInt VPC0IPPatternBit(PetscInt dim, PetscInt b, PetscInt d)
{
  const PetscInt side = (b >> d) & 1, t = (b & ((1 << d) - 1)) | ((b >> (d + 1)) << d);
  return (2 * d + side) * (1 << (dim - 1)) + t;
}

/* the pattern of patch p: bit set where the outer face lies on the boundary */
static PetscInt VPC0IPPattern(const DM_Brick *brick, const BrickForest *f, PetscInt p)
{
  const PetscInt *v       = f->patchvertex + 3 * p;
  PetscInt        pattern = 0;

  for (PetscInt b = 0; b < (1 << f->dim); b++)
    for (PetscInt d = 0; d < f->dim; d++) {
      PetscInt nb[3] = {0, 0, 0};
      for (PetscInt e = 0; e < f->dim; e++) nb[e] = v[e] - 1 + ((b >> e) & 1);
      nb[d] += ((b >> d) & 1) ? 1 : -1;
      if (!DMBrickForestCellInDomain_Private(brick, f->level, nb)) pattern |= (PetscInt)1 << VPC0IPPatternBit(f->dim, b, d);
    }
  return pattern;
}

/* the class triple of a separable pattern (0: lower side on the boundary, 1: inside, 2: upper side on the boundary), or
   PETSC_FALSE where the pattern is mixed or the level too small for the box's classes (they need 4 cells a direction) */
static PetscBool VPC0IPClasses(const BrickForest *f, PetscInt pattern, int cls[3])
{
  const PetscInt half = 1 << (f->dim - 1), full = (1 << half) - 1;

  cls[0] = cls[1] = cls[2] = 0;
  for (PetscInt d = 0; d < f->dim; d++) {
    const PetscInt lo = (pattern >> (2 * d * half)) & full, hi = (pattern >> ((2 * d + 1) * half)) & full;
    if (f->n[d] < 4 || (lo != 0 && lo != full) || (hi != 0 && hi != full) || (lo && hi)) return PETSC_FALSE;
    cls[d] = lo ? 0 : (hi ? 2 : 1);
  }
  return PETSC_TRUE;
}

/* closure position (0..2k per direction) of node i of patch cell b -> interior index, or -1 on the patch boundary */
static inline PetscInt VPC0IPInterior(const BrickC0IPCell *c, PetscInt k, PetscInt b, PetscInt i)
{
  const PetscInt n = c->n, ni = 2 * k - 1, a[3] = {i % n, (i / n) % n, i / (n * n)};
  PetscInt       idx = 0;

  for (PetscInt d = c->dim - 1; d >= 0; d--) {
    const PetscInt pos = ((b >> d) & 1) * k + a[d];
    if (pos < 1 || pos > 2 * k - 1) return -1;
    idx = idx * ni + pos - 1;
  }
  return idx;
}

/* the exact patch matrix of a pattern (column-major, m x m), then its Cholesky factor */
static PetscErrorCode VPC0IPPatchFactor(const BrickC0IPCell *c, PetscInt k, PetscInt pattern, PetscScalar **factor)
{
  const PetscInt dim = c->dim, nv = dim == 3 ? c->n * c->n * c->n : c->n * c->n, ni = 2 * k - 1, m = dim == 3 ? ni * ni * ni : ni * ni;
  PetscScalar   *a;
  PetscBLASInt   bm, info;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(m * m, &a));
  for (PetscInt b = 0; b < (1 << dim); b++) {
    for (PetscInt i = 0; i < nv; i++) {
      const PetscInt ii = VPC0IPInterior(c, k, b, i);
      if (ii < 0) continue;
      for (PetscInt j = 0; j < nv; j++) {
        const PetscInt jj = VPC0IPInterior(c, k, b, j);
        PetscReal      s;
        if (jj < 0) continue;
        s = BrickC0IPCellEntry(c, i, j);
        for (PetscInt d = 0; d < dim; d++) {
          const PetscInt side = (b >> d) & 1; /* the outer face of this cell normal to d is on that side */
          if ((pattern >> VPC0IPPatternBit(dim, b, d)) & 1) s += BrickC0IPFaceEntry(c, d, side, 0, i, 0, j);
          else s += BrickC0IPFaceEntry(c, d, -1, 1 - side, i, 1 - side, j); /* the patch cell is the face's upper cell on the lower side */
        }
        a[ii + jj * m] += s;
      }
    }
    /* the faces inside the patch: from their lower cell, over both cells */
    for (PetscInt d = 0; d < dim; d++) {
      if ((b >> d) & 1) continue;
      for (PetscInt si = 0; si < 2; si++)
        for (PetscInt i = 0; i < nv; i++) {
          const PetscInt ii = VPC0IPInterior(c, k, b | (si << d), i);
          if (ii < 0) continue;
          for (PetscInt sj = 0; sj < 2; sj++)
            for (PetscInt j = 0; j < nv; j++) {
              const PetscInt jj = VPC0IPInterior(c, k, b | (sj << d), j);
              if (jj >= 0) a[ii + jj * m] += BrickC0IPFaceEntry(c, d, -1, si, i, sj, j);
            }
        }
    }
  }
  PetscCall(PetscBLASIntCast(m, &bm));
  LAPACKpotrf_("U", &bm, a, &bm, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK potrf failed on a C0IP forest patch matrix (pattern %" PetscInt_FMT ", not positive definite?): %d", pattern, (int)info);
  *factor = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchDestroyForestC0IP(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPForestC0IP   *fc = vp->forestc0ip;

  PetscFunctionBegin;
  if (!fc) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(VP_HAVE_CUDA)
  {
    const int err = VPCudaC0IPPatchesDestroy((VPCudaC0IPPatches *)&fc->gpu);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaC0IPPatchesDestroy: %s", VPCudaErrorString(err));
  }
#endif
  for (PetscInt q = 0; q < fc->npatterns; q++) PetscCall(PetscFree(fc->factor[q]));
  PetscCall(PetscFree4(fc->pattern, fc->cls, fc->factor, fc->count));
  PetscCall(PetscFree(fc->buf));
  PetscCall(PetscFree(fc->ppattern));
  PetscCall(PetscFree(vp->forestc0ip));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the patterns of the rank's patches, their classes and factors */
PetscErrorCode PCVertexPatchSetUpForestC0IP(PC pc)
{
  PC_VertexPatch    *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick          *brick = (DM_Brick *)vp->dm->data;
  const BrickForest *f     = brick->forest;
  VPForestC0IP      *fc;
  PetscInt          *pat, np = 0;
  BrickC0IPCell      cell;

  PetscFunctionBegin;
  PetscCheck(vp->solver != PC_VERTEXPATCH_SEPARABLE_DENSE, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_vertexpatch_local_solver separable_dense with -dm_brick_operator c0ip on a forest: the mixed patches have no separable part; allowed: fdm, dense");
  for (PetscInt d = 0; d < f->dim; d++) /* a patch's two outer faces along d would be one face joining its own cells */
    PetscCheck(!f->periodic[d] || f->n[d] > 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVERTEXPATCH with -dm_brick_operator c0ip on a level with 2 cells along the periodic direction %c (-dm_brick_periodic): allowed: at least 3 cells there (more -dm_brick_cells or an exact coarse solve on that level)", (char)('x' + d));
  PetscCall(PCVertexPatchDestroyForestC0IP(pc));
  PetscCall(PetscNew(&fc));
  vp->forestc0ip = fc;
  PetscCall(BrickC0IPCellSetUp(vp->dm, &cell));
  fc->cell = cell;
  PetscCall(PetscMalloc1(12 * f->nv, &fc->buf));
  if (vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL) { /* the local residual reads the face neighbours of the patch cells */
    const PetscInt nf = 2 * f->dim;
    for (PetscInt i = 0; i < f->npatches * (1 << f->dim); i++)
      for (PetscInt e = 0; e < nf; e++) PetscCheck(f->face[f->patchcell[i] * nf + e] >= -1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "forest brick: a face neighbour of a patch cell is beyond the ghost layers");
  }
  PetscCall(PetscMalloc1(f->npatches + 1, &fc->ppattern));
  PetscCall(PetscMalloc1(f->npatches + 1, &pat));
  for (PetscInt p = 0; p < f->npatches; p++) pat[p] = fc->ppattern[p] = VPC0IPPattern(brick, f, p);
  np = f->npatches;
  PetscCall(PetscSortRemoveDupsInt(&np, pat));
  fc->npatterns = np;
  PetscCall(PetscCalloc4(np + 1, &fc->pattern, np + 1, &fc->cls, np + 1, &fc->factor, np + 1, &fc->count)); /* factor NULL until made: an error midway frees only those */
  for (PetscInt q = 0; q < np; q++) {
    fc->pattern[q] = pat[q];
    fc->count[q]   = 0;
    fc->factor[q]  = NULL;
    if (!VPC0IPClasses(f, pat[q], fc->cls[q])) fc->cls[q][0] = -1; /* mixed */
    if (fc->cls[q][0] < 0 || vp->solver == PC_VERTEXPATCH_DENSE) PetscCall(VPC0IPPatchFactor(&cell, f->k, pat[q], &fc->factor[q]));
  }
  for (PetscInt p = 0; p < f->npatches; p++) {
    PetscInt q;
    PetscCall(PetscFindInt(fc->ppattern[p], np, pat, &q));
    fc->ppattern[p] = q;
    fc->count[q]++;
  }
  fc->nmixed = 0;
  for (PetscInt q = 0; q < np; q++)
    if (fc->cls[q][0] < 0) fc->nmixed += fc->count[q];
  PetscCall(PetscFree(pat));
  PetscCall(PetscInfo(pc, "C0IP forest patches: %" PetscInt_FMT " of %" PetscInt_FMT " mixed, %" PetscInt_FMT " patterns\n", fc->nmixed, f->npatches, np));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = ba - A xa on the interior nodes of patch p (interior: their local indices), cell by cell: its cell term, its outer
   faces (to a face neighbour beyond the patch, or one-sided on the boundary; only the patch cell's rows), and the faces
   inside the patch once, from their lower cell, with both cells' rows (cell-local values; -1 in the node table reads
   zero) */
static void VPC0IPPatchResidual(const VPForestC0IP *fc, const BrickForest *f, PetscInt p, const PetscScalar *xa, const PetscScalar *ba, const PetscInt interior[], PetscScalar *r)
{
  const BrickC0IPCell *c  = &fc->cell;
  const PetscInt       nv = f->nv, nf = 2 * f->dim, ni = 2 * f->k - 1, n = f->dim == 3 ? ni * ni * ni : ni * ni, *pc = f->patchcell + p * (1 << f->dim);
  PetscScalar         *u = fc->buf, *un = u + nv, *v = un + nv, *vn = v + nv, *w = vn + nv;

  for (PetscInt i = 0; i < n; i++) r[i] = ba[interior[i]];
  for (PetscInt b = 0; b < (1 << f->dim); b++) {
    const PetscInt *idx = f->node + pc[b] * nv;
    for (PetscInt i = 0; i < nv; i++) u[i] = idx[i] < 0 ? 0.0 : xa[idx[i]];
    BrickC0IPCellApply(c, u, v, w);
    for (PetscInt d = 0; d < f->dim; d++) {
      const PetscInt up = (b >> d) & 1, nb = f->face[pc[b] * nf + 2 * d + up]; /* the outer face is on the cell's side away from the vertex */
      if (nb < 0) BrickC0IPFaceApply(c, d, up, u, NULL, v, NULL, w);
      else {
        const PetscInt *nidx = f->node + nb * nv;
        for (PetscInt i = 0; i < nv; i++) un[i] = nidx[i] < 0 ? 0.0 : xa[nidx[i]];
        if (up) BrickC0IPFaceApply(c, d, -1, u, un, v, NULL, w);
        else BrickC0IPFaceApply(c, d, -1, un, u, NULL, v, w);
      }
      if (!up) { /* the face inside the patch towards cell b + 2^d: both cells' rows, the other's straight into r */
        const PetscInt  b2 = b | ((PetscInt)1 << d);
        const PetscInt *nidx = f->node + pc[b2] * nv;
        for (PetscInt i = 0; i < nv; i++) {
          un[i] = nidx[i] < 0 ? 0.0 : xa[nidx[i]];
          vn[i] = 0.0;
        }
        BrickC0IPFaceApply(c, d, -1, u, un, v, vn, w);
        for (PetscInt i = 0; i < nv; i++) {
          const PetscInt ii = VPC0IPInterior(c, f->k, b2, i);
          if (ii >= 0) r[ii] -= vn[i];
        }
      }
    }
    for (PetscInt i = 0; i < nv; i++) {
      const PetscInt ii = VPC0IPInterior(c, f->k, b, i);
      if (ii >= 0) r[ii] -= v[i];
    }
  }
}

/* one patch: target[interior] += omega A_p^-1 r, r its local residual from xa and ba, or (xa NULL) the global residual ba */
PetscErrorCode PCVertexPatchForestC0IPPatch(const PC_VertexPatch *vp, PetscInt p, const PetscInt interior[], const PetscScalar *xa, const PetscScalar *ba, PetscScalar *target, PetscScalar *work)
{
  const VPForestC0IP *fc = vp->forestc0ip;
  const PetscInt      ni = vp->op_d.ni, n = vp->op_d.dim == 3 ? ni * ni * ni : ni * ni, q = fc->ppattern[p];
  PetscScalar        *r = work, *delta = r + n, *kw = delta + n;

  PetscFunctionBegin;
  if (xa) VPC0IPPatchResidual(fc, ((DM_Brick *)vp->dm->data)->forest, p, xa, ba, interior, r);
  else
    for (PetscInt i = 0; i < n; i++) r[i] = ba[interior[i]];
  if (fc->factor[q]) { /* mixed pattern, or the dense solver: the exact patch matrix, in double */
    const int info = VPPatchSolveDense(n, fc->factor[q], r);
    PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCVERTEXPATCH: the dense C0IP patch solve failed (LAPACK info %d)", info);
    for (PetscInt i = 0; i < n; i++) target[interior[i]] += vp->omega * r[i];
  } else if (vp->precision == PC_VERTEXPATCH_DOUBLE) {
    VPPatchSolveFDM_d(&vp->op_d, vp->eo_d, fc->cls[q], r, delta, kw);
    for (PetscInt i = 0; i < n; i++) target[interior[i]] += vp->omega * delta[i];
  } else {
    float *rf = (float *)kw, *df = rf + n, *wf = df + n;
    for (PetscInt i = 0; i < n; i++) rf[i] = (float)r[i];
    VPPatchSolveFDM_f(&vp->op_f, vp->eo_f, fc->cls[q], rf, df, wf);
    for (PetscInt i = 0; i < n; i++) target[interior[i]] += vp->omega * (PetscScalar)df[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of the patches [p0, p1): the dense ones two triangular solves and the update, the others the fdm count; with
   the local residual each patch's 2^dim cell terms and their 2 dim faces (12 / 5 contractions of n^(d+1) a cell term,
   about 10 n^d a face side) */
PetscLogDouble PCVertexPatchForestC0IPFlops(const PC_VertexPatch *vp, PetscInt p0, PetscInt p1, PetscBool local)
{
  const VPForestC0IP  *fc = vp->forestc0ip;
  const PetscInt       dim = vp->op_d.dim;
  const PetscLogDouble ni = vp->op_d.ni, n = dim == 3 ? ni * ni * ni : ni * ni, N = fc->cell.n, nv = dim == 3 ? N * N * N : N * N;
  const PetscLogDouble res = local ? 2.0 * (1 << dim) * ((dim == 3 ? 12 : 5) * nv * N + 2 * dim * 20.0 * nv) : 0;
  PetscLogDouble       sum = 0;

  for (PetscInt p = p0; p < p1; p++) sum += res + (fc->factor[fc->ppattern[p]] ? 2 * n * n + 2 * n : vp->flops_per_patch);
  return sum;
}

#if defined(VP_HAVE_CUDA)
/* the CUDA patch step (cuda/vpforestc0ip.cu): the forest's tables, the patterns' classes and factors, and for the local
   residual the cell's 1D pieces and the face table of the cells and ghosts */
PetscErrorCode PCVertexPatchForestC0IPSetUpGPU(PC_VertexPatch *vp)
{
  VPForestC0IP      *fc = vp->forestc0ip;
  const BrickForest *f  = ((DM_Brick *)vp->dm->data)->forest;
  const PetscBool    local = (PetscBool)(vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL);
  const PetscInt     nf = 2 * f->dim, nc = f->ncells + f->nghost;
  int               *node, *pcell, *ppat, *cls, *face = NULL, err;
  VPCudaC0IPCell     cell;

  PetscFunctionBegin;
  if (fc->gpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BrickForestNodeTableInt(f, nc, &node));
  PetscCall(PetscMalloc3(f->npatches * (1 << f->dim) + 1, &pcell, f->npatches + 1, &ppat, 3 * fc->npatterns + 1, &cls));
  for (PetscInt i = 0; i < f->npatches * (1 << f->dim); i++) pcell[i] = (int)f->patchcell[i];
  for (PetscInt p = 0; p < f->npatches; p++) ppat[p] = (int)fc->ppattern[p];
  for (PetscInt q = 0; q < fc->npatterns; q++)
    for (PetscInt d = 0; d < 3; d++) cls[3 * q + d] = fc->cls[q][d];
  if (local) {
    PetscCall(PetscMalloc1(nf * nc + 1, &face));
    for (PetscInt i = 0; i < nf * nc; i++) face[i] = (int)f->face[i];
  }
  BrickC0IPCellToCuda(&fc->cell, &cell);
  err = VPCudaC0IPPatchesCreate(&vp->op_d, &vp->op_f, (int)f->k, (int)f->npatches, pcell, (int)nc, node, local ? face : NULL, &cell, ppat, (int)fc->npatterns, cls, (const double *const *)fc->factor, (VPCudaC0IPPatches *)&fc->gpu);
  PetscCall(PetscFree(node));
  PetscCall(PetscFree(face));
  PetscCall(PetscFree3(pcell, ppat, cls));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaC0IPPatchesCreate (5 (2k-1)^dim doubles of shared memory a block; the local residual: (2k-1)^dim + max(4 (2k-1)^dim, 12 (k+1)^dim)): %s", VPCudaErrorString(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the patches [p0, p1) on the device: target[interior] += omega A_p^-1 r, r the local residual from xa and ba, or (xa
   NULL) the ghosted global residual ba */
PetscErrorCode PCVertexPatchForestC0IPStepGPU(PC_VertexPatch *vp, PetscInt p0, PetscInt p1, const PetscScalar *xa, const PetscScalar *ba, PetscScalar *target)
{
  int err;

  PetscFunctionBegin;
  PetscCall(PCVertexPatchForestC0IPSetUpGPU(vp));
  PetscCheck(!xa || vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a local C0IP patch step without the local residual's tables");
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaC0IPPatchesStep((VPCudaC0IPPatches)vp->forestc0ip->gpu, vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION, (int)p0, (int)p1, xa, ba, target, vp->omega);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the C0IP forest patch step: %s", VPCudaErrorString(err));
  PetscCall(PetscLogGpuFlops(PCVertexPatchForestC0IPFlops(vp, p0, p1, (PetscBool)(xa != NULL))));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
