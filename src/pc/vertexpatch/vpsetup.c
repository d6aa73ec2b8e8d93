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

/* The lexicographic order grouped by color: the sort of the other orderings would be a stable split by color, so two
   passes do it, one counting the patches of each color and one placing them. */
static PetscErrorCode VPScheduleLexicographic(PC_VertexPatch *vp, const DM_Brick *brick, const PetscInt lo[], const PetscInt hi[])
{
  PetscInt *next;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(3 * vp->npatches, &vp->vertex));
  PetscCall(PetscCalloc1(vp->ncolors + 1, &vp->colorptr));
  PetscCall(PetscMalloc1(vp->ncolors, &next));
  for (PetscInt z = lo[2]; z <= hi[2]; z++)
    for (PetscInt y = lo[1]; y <= hi[1]; y++)
      for (PetscInt x = lo[0]; x <= hi[0]; x++) {
        const PetscInt v[3] = {x, y, z};
        vp->colorptr[(vp->schedule != PC_VERTEXPATCH_SINGLE ? VPColor(brick, v) : 0) + 1]++;
      }
  for (PetscInt c = 0; c < vp->ncolors; c++) {
    vp->colorptr[c + 1] += vp->colorptr[c];
    next[c] = vp->colorptr[c];
  }
  for (PetscInt z = lo[2]; z <= hi[2]; z++)
    for (PetscInt y = lo[1]; y <= hi[1]; y++)
      for (PetscInt x = lo[0]; x <= hi[0]; x++) {
        const PetscInt v[3] = {x, y, z};
        const PetscInt q    = next[vp->schedule != PC_VERTEXPATCH_SINGLE ? VPColor(brick, v) : 0]++;
        for (PetscInt d = 0; d < 3; d++) vp->vertex[3 * q + d] = v[d];
      }
  PetscCall(PetscFree(next));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks, colored schedule: each color's patches whose closure reaches a shared node (a ghost, or an owned node
   within the ghost width of a face toward another rank: what the ghost exchange writes or sends) first, as batch 0,
   the others as batch 1, each part in the ordering's order. The host sweep starts a color's exchange after batch 0
   and works on batch 1 while the messages travel; batch 1 neither reads nor writes anything the exchange touches. The
   order inside a color does not change the result (a color's patches have disjoint interiors and read none of each
   other's). */
static PetscErrorCode VPScheduleSplitShared(PC_VertexPatch *vp, const DM_Brick *brick)
{
  const PetscInt g = brick->op.ghost_cells, k = brick->degree, w = g * k;
  PetscInt      *tmp;

  PetscFunctionBegin;
  vp->nbatches = 2;
  PetscCall(PetscMalloc1(3 * vp->ncolors, &vp->batchptr));
  PetscCall(PetscMalloc1(3 * PetscMax(vp->npatches, 1), &tmp));
  for (PetscInt c = 0; c < vp->ncolors; c++) {
    PetscInt nb = vp->colorptr[c], ni = 0;
    for (PetscInt pass = 0; pass < 2; pass++)
      for (PetscInt p = vp->colorptr[c]; p < vp->colorptr[c + 1]; p++) {
        const PetscInt *v      = &vp->vertex[3 * p];
        PetscBool       shared = PETSC_FALSE;
        /* the closure along d, interior numbering: (v - g) k - 1 .. (v + g) k - 1, against the bands of the owned box's
           faces that have a rank beyond them (a diagonal neighbour lies beyond a face too) */
        for (PetscInt d = 0; d < brick->dim; d++) {
          const PetscBool below = (PetscBool)(brick->cstart[d] > 0), above = (PetscBool)(brick->cend[d] < brick->cells[d]);
          if ((below && (v[d] - g) * k - 1 < brick->ostart[d] + w) || (above && (v[d] + g) * k - 1 > brick->ostart[d] + brick->owidth[d] - 1 - w)) shared = PETSC_TRUE;
        }
        if (shared != (PetscBool)(pass == 0)) continue;
        for (PetscInt d = 0; d < 3; d++) tmp[3 * (pass ? ni + nb : nb) + d] = v[d];
        if (pass) ni++;
        else nb++;
      }
    vp->batchptr[3 * c]     = vp->colorptr[c];
    vp->batchptr[3 * c + 1] = nb;
    vp->batchptr[3 * c + 2] = vp->colorptr[c + 1];
  }
  PetscCall(PetscArraycpy(vp->vertex, tmp, 3 * vp->npatches));
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owned vertices (patches) in the processing order of the schedule: ordered by -pc_vertexpatch_ordering,
   then grouped by color keeping that order (not for the single loop), then cut into batches. */
PetscErrorCode PCVertexPatchSetUpSchedule(PC pc)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;
  PetscInt        lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, n = 1, *vtx, maxbatches = 0;
  VPSortItem     *items;

  PetscFunctionBegin;
  /* vertex v (interior: 1..N-1) belongs to the rank that owns its node v k, i.e. owns cell v */
  for (PetscInt d = 0; d < brick->dim; d++) {
    lo[d] = PetscMax(brick->cstart[d], 1);
    hi[d] = PetscMin(brick->cend[d], brick->cells[d]) - 1;
    n *= PetscMax(hi[d] - lo[d] + 1, 0);
  }
  vp->npatches = n;
  vp->ncolors  = vp->schedule == PC_VERTEXPATCH_SINGLE ? 1 : (PetscInt)1 << (brick->dim + (brick->op.redblack ? 1 : 0));
  PetscCall(PetscFree(vp->vertex));
  PetscCall(PetscFree(vp->colorptr));
  PetscCall(PetscFree(vp->batchptr));
  if (vp->ordering == PC_VERTEXPATCH_LEXICOGRAPHIC) PetscCall(VPScheduleLexicographic(vp, brick, lo, hi));
  else {
    PetscInt p = 0;
    PetscCall(PetscMalloc1(3 * n, &vtx));
    PetscCall(PetscMalloc1(n, &items));
    for (PetscInt z = lo[2]; z <= hi[2]; z++)
      for (PetscInt y = lo[1]; y <= hi[1]; y++)
        for (PetscInt x = lo[0]; x <= hi[0]; x++, p++) {
          const PetscInt v[3] = {x, y, z};
          PetscInt64     key  = 0;
          vtx[3 * p]          = x;
          vtx[3 * p + 1]      = y;
          vtx[3 * p + 2]      = z;
          if (vp->ordering == PC_VERTEXPATCH_ZCURVE) key = VPMortonKey(v);
          else { /* hierarchical: vertices that exist on coarser levels first (more trailing zero bits), Z-curve within a level */
            PetscInt tz = 31;
            for (PetscInt d = 0; d < brick->dim; d++) {
              PetscInt t = 0;
              while (t < 31 && !((v[d] >> t) & 1)) t++;
              tz = PetscMin(tz, t);
            }
            key = ((PetscInt64)(31 - tz) << 54) | VPMortonKey(v); /* level in bits 54..58 */
          }
          if (vp->schedule != PC_VERTEXPATCH_SINGLE) key = (PetscInt64)VPColor(brick, v) << 59 | key; /* color in bits 59..62, above every ordering key */
          items[p].key   = key;
          items[p].index = p;
        }
    PetscCall(VPSortItemsByKey(n, items));
    PetscCall(PetscMalloc1(3 * n, &vp->vertex));
    PetscCall(PetscCalloc1(vp->ncolors + 1, &vp->colorptr));
    for (PetscInt p = 0; p < n; p++) {
      const PetscInt *v = &vtx[3 * items[p].index];
      for (PetscInt d = 0; d < 3; d++) vp->vertex[3 * p + d] = v[d];
      if (vp->schedule != PC_VERTEXPATCH_SINGLE) vp->colorptr[VPColor(brick, v) + 1]++;
      else vp->colorptr[1]++;
    }
    for (PetscInt c = 0; c < vp->ncolors; c++) vp->colorptr[c + 1] += vp->colorptr[c];
    PetscCall(PetscFree(items));
    PetscCall(PetscFree(vtx));
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
  vp->split = (PetscBool)(vp->overlap && vp->schedule == PC_VERTEXPATCH_COLORED && brick->nactive > 1);
  if (vp->split) {
    PetscCall(VPScheduleSplitShared(vp, brick));
    PetscFunctionReturn(PETSC_SUCCESS);
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
