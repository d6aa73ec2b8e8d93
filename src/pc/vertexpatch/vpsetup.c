/* Setup of PCVERTEXPATCH: the patch operator (1D patch matrices, fast diagonalization, optional dense
   factor) and the processing order of the patches (colors, orderings, batches). */
#include "vpimpl.h"
#include "../../mat/brickelement.h"
#include <petscblaslapack.h>
#include <string.h>

_Static_assert(VPC_MAX_TERMS == BRICK_KRON_MAX_TERMS && VPC_KINDS == BRICK_LINE_NKINDS && VPC_MAX_NE == 4 * BRICK_MAX_DEGREE + 1 && VPC_MAX_NI == 2 * BRICK_MAX_DEGREE - 1, "cuda/vpatch_cuda.h and the brick disagree on the patch operator sizes");

/* Generalized eigenproblem K s = lambda M s of the interior 1D matrices (LAPACK sygv): S^T M S = I. */
static PetscErrorCode VPFastDiagonalization(PetscInt ni, const PetscReal K[], const PetscReal M[], PetscReal S[], PetscReal lambda[])
{
  PetscScalar  A[VP_MAX_NI * VP_MAX_NI], B[VP_MAX_NI * VP_MAX_NI], work[3 * VP_MAX_NI * VP_MAX_NI];
  PetscBLASInt itype = 1, n, lwork = 3 * VP_MAX_NI * VP_MAX_NI, info;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(ni, &n));
  for (PetscInt i = 0; i < ni * ni; i++) {
    A[i] = K[i]; /* symmetric: row- and column-major coincide */
    B[i] = M[i];
  }
  LAPACKsygv_(&itype, "V", "U", &n, A, &n, B, &n, lambda, work, &lwork, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK sygv failed on the patch eigenproblem: %d", (int)info);
  /* A holds the eigenvectors column-major: column j is vector j, so S[i][j] (row-major) = A[i + j n] */
  for (PetscInt i = 0; i < ni; i++)
    for (PetscInt j = 0; j < ni; j++) S[i * ni + j] = A[i + j * ni];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Position class of vertex v along a direction with N cells: 0 next to the lower boundary, 2 next to the
   upper one, 1 inside (on a uniform grid all inside patches have the same matrices). */
PetscInt PCVertexPatchClass(PetscInt v, PetscInt N)
{
  return v == 1 ? 0 : (v == N - 1 ? 2 : 1);
}

/* A vertex of each class (class 1 exists from 4 cells on; below it stands in with class 0's vertex). */
static PetscInt VPClassVertex(PetscInt c, PetscInt N)
{
  return c == 0 ? 1 : (c == 2 ? N - 1 : (N >= 4 ? 2 : 1));
}

typedef struct {
  PetscReal full[BRICK_LINE_NKINDS][3][VP_NCLASS][VP_MAX_NI * VP_MAX_NE]; /* interior rows x all closure columns */
  PetscReal interior[BRICK_LINE_NKINDS][3][VP_NCLASS][VP_MAX_NI * VP_MAX_NI];
} VPPatchMatrices;

/* A term of the separable part: the separable kind in one direction, masses in the others. */
static PetscBool VPSeparableTerm(const BrickKronForm *form, PetscInt dim, PetscInt t)
{
  PetscInt nsep = 0, nmass = 0;

  for (PetscInt d = 0; d < dim; d++) {
    nsep += form->kind[t][d] == form->separable;
    nmass += form->kind[t][d] == BRICK_LINE_MASS;
  }
  return (PetscBool)(nsep == 1 && nmass == dim - 1);
}

/* The interior patch matrix of a class triple, sum_t coef_t (x)_d G_d (exact, or only the separable terms),
   column-major, then Cholesky. */
static PetscErrorCode VPDenseFactor(PC_VertexPatch *vp, const BrickKronForm *form, const VPPatchMatrices *pm, const PetscInt cls[], PetscScalar **factor)
{
  const PetscInt ni = vp->op_d.ni, dim = vp->op_d.dim, n = dim == 2 ? ni * ni : ni * ni * ni;
  PetscBLASInt   bn, info;
  PetscScalar   *a;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n * n, &a));
  for (PetscInt row = 0; row < n; row++) {
    const PetscInt ii[3] = {row % ni, (row / ni) % ni, row / (ni * ni)};
    for (PetscInt col = 0; col < n; col++) {
      const PetscInt jj[3] = {col % ni, (col / ni) % ni, col / (ni * ni)};
      PetscReal      sum   = 0.0;
      for (PetscInt t = 0; t < form->nterms; t++) {
        PetscReal p = form->coef[t];
        if (!VPSeparableTerm(form, dim, t) && vp->solver == PC_VERTEXPATCH_SEPARABLE_DENSE) continue;
        for (PetscInt d = 0; d < dim; d++) p *= pm->interior[form->kind[t][d]][d][cls[d]][ii[d] * ni + jj[d]];
        sum += p;
      }
      a[row + col * n] = sum;
    }
  }
  PetscCall(PetscBLASIntCast(n, &bn));
  LAPACKpotrf_("U", &bn, a, &bn, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK potrf failed on the patch matrix (not positive definite?): %d", (int)info);
  *factor = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The patch operator of a level from the brick's Kronecker form: every patch interior has 2k-1 nodes per
   direction; its rows of a 1D matrix depend only on the patch's position class (boundary faces of the
   C0IP form), so a level needs at most three sets of 1D data per direction. */
PetscErrorCode PCVertexPatchSetUpPatchOperator(PC pc)
{
  PC_VertexPatch  *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick        *brick = (DM_Brick *)vp->dm->data;
  const PetscInt   k = brick->degree, g = brick->op.ghost_cells, ne = 2 * g * k + 1, ni = 2 * k - 1, dim = brick->dim;
  BrickKronForm    form;
  BrickLine        lines[3];
  VPPatchMatrices *pm;
  PetscBool        used[BRICK_LINE_NKINDS] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCheck(brick->op.kronecker, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVERTEXPATCH: -dm_brick_operator %s has no Kronecker form; allowed: laplace, c0ip", brick->opname);
  PetscCheck(ne <= VP_MAX_NE, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCVERTEXPATCH: patch closure of %" PetscInt_FMT " nodes exceeds %d", ne, VP_MAX_NE);
  PetscCall(brick->op.kronecker(vp->dm, &form, lines));
  PetscCall(PetscNew(&pm));
  vp->op_d.dim = vp->op_f.dim = (int)dim;
  vp->op_d.ne = vp->op_f.ne = (int)ne;
  vp->op_d.ni = vp->op_f.ni = (int)ni;
  vp->op_d.nterms = vp->op_f.nterms = (int)form.nterms;
  vp->op_d.inner_lo = vp->op_f.inner_lo = (int)((g - 1) * k);
  vp->op_d.inner_hi = vp->op_f.inner_hi = (int)((g + 1) * k);
  for (PetscInt t = 0; t < form.nterms; t++) {
    vp->op_d.coef[t] = form.coef[t];
    vp->op_f.coef[t] = (float)form.coef[t];
    for (PetscInt d = 0; d < 3; d++) vp->op_d.kind[t][d] = vp->op_f.kind[t][d] = (int)form.kind[t][d];
    for (PetscInt d = 0; d < dim; d++) used[form.kind[t][d]] = PETSC_TRUE;
  }
  used[BRICK_LINE_MASS] = used[form.separable] = PETSC_TRUE;

  /* rows (v-1)k+1 .. (v+1)k-1 and columns (v-g)k .. (v+g)k of the 1D matrices; the column span each kind
     reaches (over directions and classes) is what the residual contracts */
  for (PetscInt kind = 0; kind < BRICK_LINE_NKINDS; kind++) {
    PetscInt lo = ne, hi = -1;
    if (!used[kind]) {
      vp->op_d.coloff[kind] = vp->op_f.coloff[kind] = 0;
      vp->op_d.ncols[kind] = vp->op_f.ncols[kind] = 0;
      continue;
    }
    for (PetscInt d = 0; d < dim; d++)
      for (PetscInt c = 0; c < VP_NCLASS; c++) {
        const PetscInt v = VPClassVertex(c, brick->cells[d]);
        for (PetscInt i = 0; i < ni; i++)
          for (PetscInt j = 0; j < ne; j++) {
            const PetscReal a                = BrickLineEntry(&lines[d], (BrickLineKind)kind, (v - 1) * k + 1 + i, (v - g) * k + j);
            pm->full[kind][d][c][i * ne + j] = a;
            if (a != 0.0) {
              lo = PetscMin(lo, j);
              hi = PetscMax(hi, j);
            }
            if (j >= (g - 1) * k + 1 && j < (g + 1) * k) pm->interior[kind][d][c][i * ni + j - (g - 1) * k - 1] = a;
          }
      }
    if (hi < lo) lo = hi = 0;
    vp->op_d.coloff[kind] = vp->op_f.coloff[kind] = (int)lo;
    vp->op_d.ncols[kind] = vp->op_f.ncols[kind] = (int)(hi - lo + 1);
    for (PetscInt d = 0; d < dim; d++)
      for (PetscInt c = 0; c < VP_NCLASS; c++)
        for (PetscInt i = 0; i < ni; i++)
          for (PetscInt j = lo; j <= hi; j++) {
            vp->op_d.R[kind][d][c][i * (hi - lo + 1) + j - lo] = pm->full[kind][d][c][i * ne + j];
            vp->op_f.R[kind][d][c][i * (hi - lo + 1) + j - lo] = (float)pm->full[kind][d][c][i * ne + j];
          }
  }
  for (PetscInt d = 0; d < 3; d++) PetscCall(BrickLineDestroy(&lines[d]));

  /* fast diagonalization of the separable part, per direction and class; classes with equal matrices share */
  for (PetscInt d = 0; d < dim; d++)
    for (PetscInt c = 0; c < VP_NCLASS; c++) {
      PetscReal S[VP_MAX_NI * VP_MAX_NI], lambda[VP_MAX_NI];
      PetscCall(VPFastDiagonalization(ni, pm->interior[form.separable][d][c], pm->interior[BRICK_LINE_MASS][d][c], S, lambda));
      for (PetscInt i = 0; i < ni; i++) {
        vp->op_d.lambda[d][c][i] = lambda[i];
        vp->op_f.lambda[d][c][i] = (float)lambda[i];
        for (PetscInt j = 0; j < ni; j++) {
          vp->op_d.S[d][c][i * ni + j]  = S[i * ni + j];
          vp->op_d.St[d][c][i * ni + j] = S[j * ni + i];
          vp->op_f.S[d][c][i * ni + j]  = (float)S[i * ni + j];
          vp->op_f.St[d][c][i * ni + j] = (float)S[j * ni + i];
        }
      }
      vp->clsmap[d][c] = c;
      for (PetscInt c2 = 0; c2 < c; c2++) {
        PetscBool same = PETSC_TRUE;
        for (PetscInt kind = 0; kind < BRICK_LINE_NKINDS && same; kind++)
          if (used[kind]) same = (PetscBool)!memcmp(pm->interior[kind][d][c], pm->interior[kind][d][c2], sizeof(PetscReal) * ni * ni);
        if (same) {
          vp->clsmap[d][c] = vp->clsmap[d][c2];
          break;
        }
      }
    }
  for (PetscInt d = dim; d < 3; d++)
    for (PetscInt c = 0; c < VP_NCLASS; c++) vp->clsmap[d][c] = 0;

  {
    /* flops of one patch: the rectangular residual contractions, the fast-diagonalization solve (2 dim
       contractions of ni x ni), or the dense triangular solves, and the update */
    const PetscLogDouble NE = (PetscLogDouble)ne, NI = (PetscLogDouble)ni, nint = dim == 2 ? NI * NI : NI * NI * NI;
    PetscLogDouble       res                      = 0;
    PetscBool            xdone[BRICK_LINE_NKINDS] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
    for (PetscInt t = 0; t < form.nterms; t++) {
      const PetscLogDouble cx = vp->op_d.ncols[form.kind[t][0]], cy = vp->op_d.ncols[form.kind[t][1]], cz = dim == 3 ? vp->op_d.ncols[form.kind[t][2]] : 1;
      if (!xdone[form.kind[t][0]]) res += 2 * NI * cx * NE * (dim == 3 ? NE : 1);
      xdone[form.kind[t][0]] = PETSC_TRUE;
      res += 2 * NI * NI * cy * (dim == 3 ? NE : 1) + (dim == 3 ? 2 * NI * NI * NI * cz : 0) + 2 * nint;
    }
    vp->residual_flops  = vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL ? res : 0;
    vp->flops_per_patch = vp->residual_flops + (vp->solver == PC_VERTEXPATCH_FDM ? 2 * dim * 2 * nint * NI + nint : 2 * nint * nint) + 2 * nint;
  }

  for (PetscInt i = 0; i < 27; i++) PetscCall(PetscFree(vp->dense[i]));
  if (vp->solver != PC_VERTEXPATCH_FDM) {
    /* one factor per (mapped) class triple that occurs among this rank's patches */
    PetscBool present[3][VP_NCLASS];
    for (PetscInt d = 0; d < 3; d++)
      for (PetscInt c = 0; c < VP_NCLASS; c++) present[d][c] = (PetscBool)(d >= dim && c == 0);
    for (PetscInt d = 0; d < dim; d++) {
      const PetscInt lo = PetscMax(brick->cstart[d], 1), hi = PetscMin(brick->cend[d], brick->cells[d]) - 1;
      if (brick->forest) present[d][vp->clsmap[d][1]] = PETSC_TRUE; /* a forest's patches all take the interior class */
      for (PetscInt v = lo; v <= hi; v++) present[d][vp->clsmap[d][PCVertexPatchClass(v, brick->cells[d])]] = PETSC_TRUE;
    }
    for (PetscInt c2 = 0; c2 < VP_NCLASS; c2++)
      for (PetscInt c1 = 0; c1 < VP_NCLASS; c1++)
        for (PetscInt c0 = 0; c0 < VP_NCLASS; c0++) {
          const PetscInt cls[3] = {c0, c1, c2};
          if (present[0][c0] && present[1][c1] && present[2][c2]) PetscCall(VPDenseFactor(vp, &form, pm, cls, &vp->dense[c0 + 3 * c1 + 9 * c2]));
        }
  }
  PetscCall(PetscFree(pm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Morton (Z-curve) key of a vertex: bits of x, y, z interleaved (18 bits per direction: 54 bits) */
static PetscInt64 VPMortonKey(const PetscInt v[3])
{
  PetscInt64 key = 0;

  for (int bit = 0; bit < 18; bit++)
    for (int d = 0; d < 3; d++) key |= (PetscInt64)((v[d] >> bit) & 1) << (3 * bit + d);
  return key;
}

/* Color of a vertex: patches of one parity class (v mod 2 per direction) have disjoint cells. With
   operators that read face neighbours (C0IP), a patch's residual also depends on the cells next to it, so
   the parity classes are split red-black by the parity of sum_d floor(v_d/2) (seed 000, Fig. 1): two
   patches of one color then differ by 2 in at least two directions, or by 4 or more in one, and neither's
   update enters the other's residual. 2^d colors, or 2^(d+1) with red-black. */
static PetscInt VPColor(const DM_Brick *brick, const PetscInt v[3])
{
  PetscInt color = (v[0] & 1) | ((v[1] & 1) << 1) | ((v[2] & 1) << 2);

  if (brick->op.redblack) color |= (((v[0] >> 1) + (v[1] >> 1) + (v[2] >> 1)) & 1) << brick->dim;
  return color;
}

typedef struct {
  PetscInt64 key;
  PetscInt   index;
} VPSortItem;

/* Sorts by key, ties in index order (the items come in index order): a stable LSD radix sort on 16-bit digits of the
   non-negative keys, skipping digits all keys share. O(n): the finest level of a 10^8-DoF problem has 10^7 patches,
   where qsort took seconds of the setup. */
static PetscErrorCode VPSortItemsByKey(PetscInt n, VPSortItem items[])
{
  VPSortItem *tmp, *src = items, *dst;
  PetscInt   *count;

  PetscFunctionBegin;
  if (n < 2) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(n, &tmp));
  PetscCall(PetscMalloc1(65536, &count));
  dst = tmp;
  for (int shift = 0; shift < 64; shift += 16) {
    PetscInt first = (PetscInt)((src[0].key >> shift) & 0xFFFF), sum = 0;
    PetscCall(PetscArrayzero(count, 65536));
    for (PetscInt i = 0; i < n; i++) count[(src[i].key >> shift) & 0xFFFF]++;
    if (count[first] == n) continue; /* one digit value: this pass would not move anything */
    for (PetscInt d = 0; d < 65536; d++) {
      const PetscInt c = count[d];
      count[d]         = sum;
      sum += c;
    }
    for (PetscInt i = 0; i < n; i++) dst[count[(src[i].key >> shift) & 0xFFFF]++] = src[i];
    {
      VPSortItem *t = src;
      src           = dst;
      dst           = t;
    }
  }
  if (src != items) PetscCall(PetscArraycpy(items, src, n));
  PetscCall(PetscFree(count));
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The split schedule's inner box [in[0], in[1]] of the owned patches' vertices [lo, hi]: those whose closure stays
   clear of the bands of the owned box's faces toward other ranks (see VPScheduleBoxes). Per direction an interval,
   since the others lie near such a face; without the split schedule the whole box. Returns whether it is empty. */
static PetscBool VPScheduleInner(const PC_VertexPatch *vp, const DM_Brick *brick, const PetscInt lo[], const PetscInt hi[], PetscInt in[2][3])
{
  const PetscInt g = brick->op.ghost_cells, k = brick->degree, w = g * k;
  PetscBool      empty = PETSC_FALSE;

  for (PetscInt d = 0; d < 3; d++) {
    const PetscBool below = (PetscBool)(d < brick->dim && vp->split && brick->cstart[d] > 0), above = (PetscBool)(d < brick->dim && vp->split && brick->cend[d] < brick->cells[d]);
    PetscInt       *a = &in[0][d], *b = &in[1][d];
    /* the closure along d, interior numbering: (v - g) k - 1 .. (v + g) k - 1, against the bands of the owned box's
       faces that have a rank beyond them (a diagonal neighbour lies beyond a face too) */
    *a = lo[d];
    *b = hi[d];
    while (*a <= hi[d] && below && (*a - g) * k - 1 < brick->ostart[d] + w) (*a)++;
    while (*b >= *a && above && (*b + g) * k - 1 > brick->ostart[d] + brick->owidth[d] - 1 - w) (*b)--;
    if (*a > *b) empty = PETSC_TRUE;
  }
  return empty;
}

/* The patches of color `color` (colored: its parity class v mod 2 in the dim directions, and with red-black the parity
   of sum_d floor(v_d/2) as bit dim, VPColor; not colored: every vertex) among the vertices of the box [a, b] (a = b = 0
   beyond dim): one lattice box (cuda/vpatch_cuda.h), in lexicographic order. Returns its patch count; box->first is the
   caller's. */
PetscInt PCVertexPatchLatticeBox(PetscInt dim, PetscBool redblack, PetscBool colored, PetscInt color, const PetscInt a[3], const PetscInt b[3], VPCudaPatchBox *box)
{
  PetscInt half = 0;

  box->cb = -1;
  if (!colored) {
    box->step = 1;
    for (PetscInt d = 0; d < 3; d++) box->lo[d] = (int)a[d], box->n[d] = (int)PetscMax(b[d] - a[d] + 1, 0);
    return (PetscInt)box->n[0] * box->n[1] * box->n[2];
  }
  box->step = 2;
  for (PetscInt d = 0; d < 3; d++) {
    const PetscInt par = d < dim ? (color >> d) & 1 : 0, o = a[d] + ((par + a[d]) & 1); /* the class's first vertex */
    box->lo[d] = (int)o;
    box->n[d]  = (int)(o <= b[d] ? (b[d] - o) / 2 + 1 : 0);
    half += o / 2;
  }
  /* floor(v_d/2) = floor(lo_d/2) + i_d on the lattice: the red-black bit is that of half + i + j + l */
  if (redblack) box->cb = (int)(((color >> dim) + half) & 1);
  return box->n[0] && box->n[1] && box->n[2] ? VPCudaPatchBoxCount(box) : 0;
}

/* The schedule's boxes: per color (and per batch of the split schedule) the lattice boxes of its patches, with colorptr
   and, for the split schedule, batchptr; vp->box ends with the sentinel. Index arithmetic only: at most 7 boxes per
   color for any number of patches.
   The split schedule (several ranks, colored): each color's patches whose closure reaches a shared node (a ghost, or an
   owned node within the ghost width of a face toward another rank: what the ghost exchange writes or sends) first, as
   batch 0, the others as batch 1. The host sweep starts a color's exchange after batch 0 and works on batch 1 while the
   messages travel; batch 1 neither reads nor writes anything the exchange touches. Batch 1 is the inner box of
   VPScheduleInner, batch 0 the owned box minus it, as up to six slabs. The order inside a color does not change the
   result (a color's patches have disjoint interiors and read none of each other's). */
static PetscErrorCode VPScheduleBoxes(PC_VertexPatch *vp, const DM_Brick *brick, const PetscInt lo[], const PetscInt hi[])
{
  const PetscBool colored = (PetscBool)(vp->schedule != PC_VERTEXPATCH_SINGLE);
  PetscInt        in[2][3], p = 0;
  const PetscBool empty = VPScheduleInner(vp, brick, lo, hi, in);

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(7 * vp->ncolors + 1, &vp->box));
  PetscCall(PetscMalloc1(vp->ncolors + 1, &vp->colorptr));
  if (vp->split) PetscCall(PetscMalloc1(3 * vp->ncolors, &vp->batchptr));
  vp->nbox = 0;
  for (PetscInt c = 0; c < vp->ncolors; c++) {
    PetscInt region[7][2][3], nregion = 0;
    vp->colorptr[c] = p;
    if (!vp->split) {
      for (PetscInt d = 0; d < 3; d++) region[0][0][d] = lo[d], region[0][1][d] = hi[d];
      nregion = 1;
    } else if (empty) { /* every patch is shared: batch 1 is empty */
      for (PetscInt d = 0; d < 3; d++) region[0][0][d] = lo[d], region[0][1][d] = hi[d];
      nregion = 1;
    } else {
      /* the slabs of the owned box around the inner one: below in z (whole xy planes), within the inner z range below
         in y (whole x rows), within the inner y and z ranges below in x, then above in x, y and z; then the inner box */
      const PetscInt slab[6][2] = {{2, 0}, {1, 0}, {0, 0}, {0, 1}, {1, 1}, {2, 1}};
      for (PetscInt s = 0; s < 6; s++) {
        const PetscInt d = slab[s][0], above = slab[s][1];
        for (PetscInt e = 0; e < 3; e++) {
          region[s][0][e] = e < d ? lo[e] : in[0][e];
          region[s][1][e] = e < d ? hi[e] : in[1][e];
        }
        region[s][0][d] = above ? in[1][d] + 1 : lo[d];
        region[s][1][d] = above ? hi[d] : in[0][d] - 1;
      }
      for (PetscInt d = 0; d < 3; d++) region[6][0][d] = in[0][d], region[6][1][d] = in[1][d];
      nregion = 7;
    }
    for (PetscInt r = 0; r < nregion; r++) {
      VPCudaPatchBox *box = &vp->box[vp->nbox];
      PetscInt        n;
      if (vp->split && !empty && r == 6) vp->batchptr[3 * c + 1] = p; /* batch 1: the inner box */
      n = PCVertexPatchLatticeBox(brick->dim, brick->op.redblack, colored, c, region[r][0], region[r][1], box);
      if (!n) continue;
      box->first = (int)p;
      p += n;
      vp->nbox++;
    }
    if (vp->split && empty) vp->batchptr[3 * c + 1] = p; /* every patch is in batch 0 */
    if (vp->split) vp->batchptr[3 * c] = vp->colorptr[c], vp->batchptr[3 * c + 2] = p;
  }
  vp->colorptr[vp->ncolors] = p;
  PetscCheck(p == vp->npatches, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the schedule's boxes hold %" PetscInt_FMT " patches, not the %" PetscInt_FMT " owned ones", p, vp->npatches);
  PetscCall(PetscMemzero(&vp->box[vp->nbox], sizeof(VPCudaPatchBox)));
  vp->box[vp->nbox].first = (int)p; /* the sentinel */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Z-curve and hierarchical orderings of the patches, a permutation index arithmetic does not give: the explicit
   list vp->vertex, each color's patches (the ranges colorptr of the boxes) sorted by their key, and for the split
   schedule each color's shared patches first, as the boxes have them. */
static PetscErrorCode VPScheduleSorted(PC_VertexPatch *vp, const DM_Brick *brick, const PetscInt lo[], const PetscInt hi[])
{
  const PetscInt n = vp->npatches;
  PetscInt       p = 0, *vtx, in[2][3];
  VPSortItem    *items;

  PetscFunctionBegin;
  (void)VPScheduleInner(vp, brick, lo, hi, in);
  PetscCall(PetscMalloc1(3 * n, &vtx));
  PetscCall(PetscMalloc1(n, &items));
  for (PetscInt z = lo[2]; z <= hi[2]; z++)
    for (PetscInt y = lo[1]; y <= hi[1]; y++)
      for (PetscInt x = lo[0]; x <= hi[0]; x++, p++) {
        const PetscInt v[3]  = {x, y, z};
        PetscInt64     key   = 0;
        PetscBool      inner = PETSC_TRUE;
        vtx[3 * p]           = x;
        vtx[3 * p + 1]       = y;
        vtx[3 * p + 2]       = z;
        if (vp->ordering == PC_VERTEXPATCH_ZCURVE) key = VPMortonKey(v);
        else { /* hierarchical: vertices that exist on coarser levels first (more trailing zero bits), Z-curve within a level */ PetscInt tz = 31;
          for (PetscInt d = 0; d < brick->dim; d++) {
            PetscInt t = 0;
            while (t < 31 && !((v[d] >> t) & 1)) t++;
            tz = PetscMin(tz, t);
          }
          key = ((PetscInt64)(31 - tz) << 54) | VPMortonKey(v); /* level in bits 54..58 */
        }
        for (PetscInt d = 0; d < 3; d++) inner = (PetscBool)(inner && v[d] >= in[0][d] && v[d] <= in[1][d]);
        if (vp->split && inner) key |= (PetscInt64)1 << 59;                                         /* after the color's shared patches */
        if (vp->schedule != PC_VERTEXPATCH_SINGLE) key = (PetscInt64)VPColor(brick, v) << 60 | key; /* color in bits 60..63, above every ordering key */
        items[p].key   = key;
        items[p].index = p;
      }
  PetscCall(VPSortItemsByKey(n, items));
  PetscCall(PetscMalloc1(3 * n, &vp->vertex));
  for (PetscInt q = 0; q < n; q++)
    for (PetscInt d = 0; d < 3; d++) vp->vertex[3 * q + d] = vtx[3 * items[q].index + d];
  PetscCall(PetscFree(items));
  PetscCall(PetscFree(vtx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owned vertices (patches) in the processing order of the schedule: grouped by color (not for the single loop), then
   cut into batches; within a color (a batch of the split schedule) lexicographic, or ordered by -pc_vertexpatch_ordering.
   The lexicographic order is the boxes of index arithmetic alone; the GPU steps take the boxes for every ordering (they
   run colors, and the order within a color does not change the iterates). */
PetscErrorCode PCVertexPatchSetUpSchedule(PC pc)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;
  PetscInt        lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, n = 1, maxbatches = 0;

  PetscFunctionBegin;
  /* vertex v (interior: 1..N-1) belongs to the rank that owns its node v k, i.e. owns cell v */
  for (PetscInt d = 0; d < brick->dim; d++) {
    lo[d] = PetscMax(brick->cstart[d], 1);
    hi[d] = PetscMin(brick->cend[d], brick->cells[d]) - 1;
    n *= PetscMax(hi[d] - lo[d] + 1, 0);
  }
  PetscCheck((PetscInt64)n < 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCVERTEXPATCH: %" PetscInt_FMT " patches on one rank; the schedule numbers them in int: use more ranks", n);
  vp->npatches = n;
  vp->ncolors  = vp->schedule == PC_VERTEXPATCH_SINGLE ? 1 : (PetscInt)1 << (brick->dim + (brick->op.redblack ? 1 : 0));
  vp->split    = (PetscBool)(vp->overlap && vp->schedule == PC_VERTEXPATCH_COLORED && brick->nactive > 1);
  PetscCall(PetscFree(vp->vertex));
  PetscCall(PetscFree(vp->box));
  PetscCall(PetscFree(vp->colorptr));
  PetscCall(PetscFree(vp->batchptr));
  PetscCall(VPScheduleBoxes(vp, brick, lo, hi));
  if (vp->ordering != PC_VERTEXPATCH_LEXICOGRAPHIC) PetscCall(VPScheduleSorted(vp, brick, lo, hi));
  if (vp->split) {
    vp->nbatches = 2;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* batches of batch_size patches per color; batch b of every color is processed before batch b+1 */
  vp->nbatches = 1;
  if (vp->schedule == PC_VERTEXPATCH_BATCHED) {
    const PetscInt bs = PetscMax(PetscMin(vp->batch_size, n), 1); /* larger batches are whole colors */
    for (PetscInt c = 0; c < vp->ncolors; c++) {
      const PetscInt count = vp->colorptr[c + 1] - vp->colorptr[c];
      maxbatches           = PetscMax(maxbatches, count / bs + (count % bs != 0));
    }
    vp->nbatches = PetscMax(maxbatches, 1);
  }
  PetscCall(PetscMalloc1(vp->ncolors * (vp->nbatches + 1), &vp->batchptr));
  for (PetscInt c = 0; c < vp->ncolors; c++)
    for (PetscInt b = 0; b <= vp->nbatches; b++) {
      const PetscInt count                     = vp->colorptr[c + 1] - vp->colorptr[c];
      const PetscInt start                     = vp->colorptr[c] + (vp->schedule == PC_VERTEXPATCH_BATCHED ? PetscMin(b * PetscMax(PetscMin(vp->batch_size, n), 1), count) : (b ? count : 0));
      vp->batchptr[c * (vp->nbatches + 1) + b] = PetscMin(start, vp->colorptr[c + 1]);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
