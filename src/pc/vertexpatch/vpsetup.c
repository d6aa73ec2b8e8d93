/* Setup of PCVERTEXPATCH: the patch operator (1D patch matrices, fast diagonalization, optional dense
   factor) and the processing order of the patches (colors, orderings, batches). */
#include "vpimpl.h"
#include "../../mat/brickelement.h"
#include <petscblaslapack.h>

/* 1D matrices of a patch along one direction: the two cells of width h around the vertex assembled into
   (2k+1) x (2k+1) closure matrices, stiffness Kp = L/h and mass Mp = h M (reference L, M on [0,1]). */
static void VPPatchMatrices1D(PetscInt k, PetscReal h, const PetscReal Mref[], const PetscReal Lref[], PetscReal Kp[], PetscReal Mp[])
{
  const PetscInt n = k + 1, np = 2 * k + 1;

  for (PetscInt i = 0; i < np * np; i++) Kp[i] = Mp[i] = 0.0;
  for (PetscInt c = 0; c < 2; c++)
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) {
        Kp[(c * k + i) * np + c * k + j] += Lref[i * n + j] / h;
        Mp[(c * k + i) * np + c * k + j] += h * Mref[i * n + j];
      }
}

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

PetscErrorCode PCVertexPatchSetUpPatchOperator(PC pc)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;
  const PetscInt  k = brick->degree, np = 2 * k + 1, ni = 2 * k - 1, dim = brick->dim;
  PetscReal       Mref[BRICK_MAX_N * BRICK_MAX_N], Lref[BRICK_MAX_N * BRICK_MAX_N], h[3];
  PetscReal       Ki[3][VP_MAX_NI * VP_MAX_NI], Mi[3][VP_MAX_NI * VP_MAX_NI];

  PetscFunctionBegin;
  PetscCall(BrickElementMatrices1D(k, brick->nodes, Mref, Lref));
  PetscCall(DMBrickCellSize_Private(vp->dm, h));
  vp->op_d.dim = vp->op_f.dim = (int)dim;
  vp->op_d.np = vp->op_f.np = (int)np;
  vp->op_d.ni = vp->op_f.ni = (int)ni;
  for (PetscInt d = 0; d < dim; d++) {
    PetscReal Kp[VP_MAX_NP * VP_MAX_NP], Mp[VP_MAX_NP * VP_MAX_NP], S[VP_MAX_NI * VP_MAX_NI], lambda[VP_MAX_NI];
    VPPatchMatrices1D(k, h[d], Mref, Lref, Kp, Mp);
    for (PetscInt i = 0; i < ni; i++) {
      for (PetscInt j = 0; j < np; j++) {
        vp->op_d.Kr[d][i * np + j] = Kp[(i + 1) * np + j];
        vp->op_d.Mr[d][i * np + j] = Mp[(i + 1) * np + j];
      }
      for (PetscInt j = 0; j < ni; j++) {
        Ki[d][i * ni + j] = Kp[(i + 1) * np + j + 1];
        Mi[d][i * ni + j] = Mp[(i + 1) * np + j + 1];
      }
    }
    PetscCall(VPFastDiagonalization(ni, Ki[d], Mi[d], S, lambda));
    for (PetscInt i = 0; i < ni; i++) {
      vp->op_d.lambda[d][i] = lambda[i];
      for (PetscInt j = 0; j < ni; j++) {
        vp->op_d.S[d][i * ni + j]  = S[i * ni + j];
        vp->op_d.St[d][i * ni + j] = S[j * ni + i];
      }
    }
  }
  /* the single-precision copy is a rounding of the double one */
  for (PetscInt d = 0; d < dim; d++) {
    for (PetscInt i = 0; i < ni * np; i++) {
      vp->op_f.Kr[d][i] = (float)vp->op_d.Kr[d][i];
      vp->op_f.Mr[d][i] = (float)vp->op_d.Mr[d][i];
    }
    for (PetscInt i = 0; i < ni * ni; i++) {
      vp->op_f.S[d][i]  = (float)vp->op_d.S[d][i];
      vp->op_f.St[d][i] = (float)vp->op_d.St[d][i];
    }
    for (PetscInt i = 0; i < ni; i++) vp->op_f.lambda[d][i] = (float)vp->op_d.lambda[d][i];
  }

  {
    /* flops of one patch: the rectangular residual (two contractions per term and direction, plus the update)
       and the fast-diagonalization solve (2 dim contractions of ni x ni), or the dense triangular solves */
    const PetscLogDouble NP = (PetscLogDouble)np, NI = (PetscLogDouble)ni, nint = dim == 2 ? NI * NI : NI * NI * NI;
    const PetscLogDouble res = dim == 2 ? 2 * (2 * NI * NP * NP + 2 * NI * NI * NP) : 2 * (2 * NI * NP * NP * NP + 3 * NI * NI * NP * NP + 2 * NI * NI * NI * NP);
    const PetscLogDouble fdm = 2 * dim * 2 * nint * NI + nint;
    vp->flops_per_patch      = (vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL ? res : 0) + (vp->solver == PC_VERTEXPATCH_FDM ? fdm : 2 * nint * nint) + 2 * nint;
  }
  PetscCall(PetscFree(vp->dense));
  vp->op_d.dense = NULL;
  if (vp->solver == PC_VERTEXPATCH_DENSE) {
    /* the interior patch matrix, sum over d of the Kronecker products with K in direction d, then Cholesky */
    const PetscInt n = dim == 2 ? ni * ni : ni * ni * ni;
    PetscBLASInt   bn, info;
    PetscCall(PetscMalloc1(n * n, &vp->dense));
    for (PetscInt row = 0; row < n; row++) {
      const PetscInt ii[3] = {row % ni, (row / ni) % ni, row / (ni * ni)};
      for (PetscInt col = 0; col < n; col++) {
        const PetscInt jj[3] = {col % ni, (col / ni) % ni, col / (ni * ni)};
        PetscReal      sum   = 0.0;
        for (PetscInt d = 0; d < dim; d++) {
          PetscReal p = 1.0;
          for (PetscInt e = 0; e < dim; e++) p *= (e == d ? Ki[e] : Mi[e])[ii[e] * ni + jj[e]];
          sum += p;
        }
        vp->dense[row + col * n] = sum;
      }
    }
    PetscCall(PetscBLASIntCast(n, &bn));
    LAPACKpotrf_("U", &bn, vp->dense, &bn, &info);
    PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK potrf failed on the patch matrix: %d", (int)info);
    vp->op_d.dense = vp->dense;
  }
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

typedef struct {
  PetscInt64 key;
  PetscInt   index;
} VPSortItem;

static int VPCompareItems(const void *a, const void *b)
{
  const VPSortItem *x = (const VPSortItem *)a, *y = (const VPSortItem *)b;

  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
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
  vp->ncolors  = vp->schedule == PC_VERTEXPATCH_SINGLE ? 1 : (PetscInt)1 << brick->dim;
  PetscCall(PetscFree(vp->vertex));
  PetscCall(PetscFree(vp->colorptr));
  PetscCall(PetscFree(vp->batchptr));
  PetscCall(PetscMalloc1(3 * n, &vtx));
  PetscCall(PetscMalloc1(n, &items));
  {
    PetscInt p = 0;
    for (PetscInt z = lo[2]; z <= hi[2]; z++)
      for (PetscInt y = lo[1]; y <= hi[1]; y++)
        for (PetscInt x = lo[0]; x <= hi[0]; x++, p++) {
          const PetscInt v[3] = {x, y, z};
          PetscInt64     key  = 0;
          vtx[3 * p]          = x;
          vtx[3 * p + 1]      = y;
          vtx[3 * p + 2]      = z;
          switch (vp->ordering) {
          case PC_VERTEXPATCH_LEXICOGRAPHIC:
            key = p;
            break;
          case PC_VERTEXPATCH_ZCURVE:
            key = VPMortonKey(v);
            break;
          case PC_VERTEXPATCH_HIERARCHICAL: {
            /* vertices that exist on coarser levels first (more trailing zero bits), Z-curve within a level */
            PetscInt tz = 31;
            for (PetscInt d = 0; d < brick->dim; d++) {
              PetscInt t = 0;
              while (t < 31 && !((v[d] >> t) & 1)) t++;
              tz = PetscMin(tz, t);
            }
            key = ((PetscInt64)(31 - tz) << 54) | VPMortonKey(v); /* level in bits 54..58 */
          } break;
          }
          if (vp->schedule != PC_VERTEXPATCH_SINGLE) {
            const PetscInt color = (x & 1) | ((y & 1) << 1) | ((z & 1) << 2);
            key                  = (PetscInt64)color << 59 | key; /* color in bits 59..61, above every ordering key */
          }
          items[p].key   = key;
          items[p].index = p;
        }
  }
  qsort(items, (size_t)n, sizeof(VPSortItem), VPCompareItems);
  PetscCall(PetscMalloc1(3 * n, &vp->vertex));
  PetscCall(PetscCalloc1(vp->ncolors + 1, &vp->colorptr));
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt *v = &vtx[3 * items[p].index];
    for (PetscInt d = 0; d < 3; d++) vp->vertex[3 * p + d] = v[d];
    if (vp->schedule != PC_VERTEXPATCH_SINGLE) vp->colorptr[((v[0] & 1) | ((v[1] & 1) << 1) | ((v[2] & 1) << 2)) + 1]++;
    else vp->colorptr[1]++;
  }
  for (PetscInt c = 0; c < vp->ncolors; c++) vp->colorptr[c + 1] += vp->colorptr[c];
  PetscCall(PetscFree(items));
  PetscCall(PetscFree(vtx));

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
