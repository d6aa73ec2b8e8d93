/* PCVERTEXPATCH on a DG (sipg) brick [CK24, section 3]: the patch of an interior vertex is its 2^d cells, all of their
   values in patch-lexicographic order ((2k+2)^d, the cells' Gauss-Lobatto points; a patch is read from the cell-wise
   vector through one table of offsets shared by all patches). Three local spaces V_j, each a tensor product of a 1D
   space given by a basis E (patch values x m):
     full       all 2k+2 values per direction (E = identity);
     dirichlet  without the two values on the patch boundary (2k);
     clamped    the piecewise polynomials that vanish with their derivative at the two patch ends (2k-2; per cell
                x^2 l_j(x) or (1-x)^2 l_j(x), l_j the Lagrange basis on the k-1 inner Gauss-Lobatto points).
   A patch end on the domain boundary is not constrained (there is no neighbour there, and the boundary values have
   to be smoothed by some patch), so the dimension depends on the patch's class.
   The patch matrix restricted to V_j is the Kronecker sum of E^T A_d E with masses E^T M E, A_d the 1D SIPG form on
   the patch's two cells (BrickDGLine), so its inverse is exact by fast diagonalization [CK24, eq. 10-12]: with the
   generalized eigenvectors S (E^T A E S = E^T M E S Lambda, S^T E^T M E S = identity) and Q = E S,
   A_j^-1 R_j = Q^{(x)d} (sum_d Lambda_d)^-1 (Q^T)^{(x)d}. The 1D data depends on whether the patch touches the lower
   and/or upper boundary in each direction (four classes).

   Residuals. full: the test functions do not vanish on the patch boundary, so the residual needs the face neighbours
   of the patch; it is formed globally, once per color (b - A x, [CK24]: "updating residuals globally"). dirichlet and
   clamped: from the patch cells alone, b_j - A_patch x_j with A_patch the patch matrix (outside values dropped);
   exact for clamped (its test functions and their derivatives vanish on the patch boundary, so the face terms to
   the neighbours vanish), an approximation for dirichlet (the term <[u], {dv/dn}> with the neighbour's u is dropped),
   as in the paper. Patches of one color (vertex parities) share no cell, so their updates commute.

   Forests (brickforest.c): the patches are the forest's, each with its own 2^d cells (value q of a patch at its cell
   qcell[q]'s offset plus qlocal[q]). A patch whose outer faces along each direction are all on the boundary or all
   interior takes the class of a box patch; one with both along some direction (next to a re-entrant edge or corner)
   is "mixed": its matrix is no Kronecker sum, so it has its own dense factor (VPDGMixedSetUp), exact like the others,
   with the full local space and the global residual (with removed cells only the full space covers every value). */
#include "vpimpl.h"
#include <petscblaslapack.h>
#include <limits.h>
#if defined(VP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

#define VPDG_MAX_N (2 * (BRICK_MAX_DEGREE + 1))
#define VPDG_MAX_P (VPDG_MAX_N * VPDG_MAX_N * VPDG_MAX_N)
#define VPDG_ARRAYS 7 /* a thread's scratch of the host patch loop: residual, u, b, correction and three for the kernels */

typedef struct {
  PetscInt  m;                                 /* dimension of the 1D local space */
  PetscReal A[VPDG_MAX_N * VPDG_MAX_N];        /* 1D SIPG form on the patch's two cells (np x np) */
  PetscReal Ares[VPDG_MAX_N * VPDG_MAX_N];     /* the form of the local residual: A without the terms of constrained patch ends */
  PetscReal M[VPDG_MAX_N * VPDG_MAX_N];        /* 1D mass on the two cells */
  PetscReal E[VPDG_MAX_N * VPDG_MAX_N];        /* local basis, np x m */
  PetscReal ET[VPDG_MAX_N * VPDG_MAX_N];       /* m x np */
  PetscReal Q[VPDG_MAX_N * VPDG_MAX_N];        /* E S, np x m */
  PetscReal QT[VPDG_MAX_N * VPDG_MAX_N];       /* m x np */
  PetscReal Ar[VPDG_MAX_N * VPDG_MAX_N];       /* E^T A E (dense local solver) */
  PetscReal Mr[VPDG_MAX_N * VPDG_MAX_N];       /* E^T M E */
  PetscReal lambda[VPDG_MAX_N];
} VPDGLine;

/* A forest patch whose outer faces along some direction are partly boundary, partly interior (next to a re-entrant edge
   or corner): its matrix is not a Kronecker sum, so it gets its own dense factor (see VPDGMixedSetUp) */
typedef struct {
  PetscScalar *L; /* npd x npd: Cholesky factor (LAPACK potrf "U", column-major) of the patch matrix, values in patch order */
} VPDGMixed;

typedef struct {
  PetscInt     dim, n, np, m;   /* dimension, k+1, 2(k+1), local dimension per direction of an interior patch */
  VPDGLine     line[3][4];      /* by direction and class (lower boundary + 2 upper boundary) */
  BrickDGLine  dgl[3];          /* the operator's 1D form per direction (forest: the mixed patches' matrices) */
  PetscBool    localres;        /* residual patch by patch (dirichlet, clamped) or per color globally */
  PetscInt     npatches, ncolors, colorptr[28];
  PetscInt    *qcell, *qlocal;  /* npd: patch value q is value qlocal[q] of the patch's cell qcell[q] (x fastest around the vertex) */
  PetscInt     cellrel[8];      /* box: offset of the patch's cell b from its first cell's first value */
  PetscBool    forest;          /* the patches are the forest's (brickforest.c), each with its own cells */
  PetscInt    *pkey;            /* forest: per patch its class triple (cls[0] + 4 cls[1] + 16 cls[2]) or 64 + its mixed index */
  PetscInt     nmixed;
  VPDGMixed   *mixed;
  PetscLogDouble *colorflops;   /* per color: the flops of its patches */
  VPCudaPatchBox box[9]; /* the owned patches by color, one lattice box each (no per-patch array), and the sentinel */
  PetscInt       nbox;
  PetscInt    *rel;             /* np^d: offset of each patch value from the first value of the patch's first cell (box, the GPU's) */
  PetscInt     gstride[3];      /* cell strides of the ghosted local array */
  PetscScalar *dense[64];       /* Cholesky factors of the restricted patch matrices by class triple (dense solver) */
  PetscInt     pstride;         /* values of a patch, (2(k+1))^d: the length of each scratch array */
  PetscInt     nlanes;          /* host steps: patches per SIMD group of one class triple (BRICK_LANES_D, -pc_vertexpatch_simd) or 1 */
  size_t       workbytes;       /* one thread's scratch: VPDG_ARRAYS arrays of values (lanes: vectors) and a dense solve's */
  char        *work;            /* nthreads scratches, 64-byte aligned (lane vectors) */
  char        *workalloc;
  Vec          ul, bl, dl, rl, r;
  PetscLogDouble flops;         /* per patch */
  void        *gpu;             /* the CUDA steps (VP_HAVE_CUDA: VPCudaDGSmoother), made at the first step on the GPU */
} VPDG;

static inline PetscInt VPDGClass(PetscInt v, PetscInt N)
{
  return (v == 1) + 2 * (v == N - 1);
}

/* The local spaces, as a table of constructions (like PCPATCH's patch constructions): each fills the columns of E
   (np x m, row-major) that belong to one cell c of the patch (0 lower, 1 upper) from column *col on, given whether the
   cell's outer end is constrained. An end is constrained where the patch meets a neighbour cell; on the domain
   boundary it is free (no neighbour's residual is missing there, and the boundary values must be smoothed by some
   patch). */
/* patch p's key (its class triple cls[0] + 4 cls[1] + 16 cls[2], or 64 + its mixed index on a forest), its classes and
   the local-array offset of each of its cells' first value (value q at off[qcell[q]] + qlocal[q]) */
static inline PetscInt VPDGPatchWhere(const VPDG *dg, const DM_Brick *brick, PetscInt p, PetscInt cls[], PetscInt off[])
{
  const PetscInt nchild = 1 << dg->dim;
  PetscInt       key    = 0;

  for (PetscInt d = 0; d < 3; d++) cls[d] = 0;
  if (dg->forest) {
    const BrickForest *f = brick->forest;
    key                  = dg->pkey[p];
    for (PetscInt d = 0; d < dg->dim && key < 64; d++) cls[d] = (key >> (2 * d)) & 3;
    for (PetscInt b = 0; b < nchild; b++) off[b] = f->patchcell[p * nchild + b] * brick->dof;
  } else {
    PetscInt base = 0;
    int      v[3];
    VPCudaPatchVertex(dg->box, (int)dg->nbox, (int)p, v);
    for (PetscInt d = 0; d < dg->dim; d++) {
      cls[d] = VPDGClass(v[d], brick->cells[d]);
      key += cls[d] << (2 * d);
      base += (v[d] - 1 - brick->gstart[d]) * dg->gstride[d];
    }
    for (PetscInt b = 0; b < nchild; b++) off[b] = base * brick->dof + dg->cellrel[b];
  }
  return key;
}

typedef void (*VPDGCellBasis)(PetscInt k, const PetscReal nodes[], PetscInt c, PetscBool fixed, PetscInt m, PetscReal E[], PetscInt *col);

static void VPDGCellAll(PetscInt k, PetscInt c, PetscInt m, PetscReal E[], PetscInt *col)
{
  for (PetscInt i = 0; i <= k; i++) E[(c * (k + 1) + i) * m + (*col)++] = 1.0;
}

/* full: every value of both cells */
static void VPDGBasisFull(PetscInt k, const PetscReal nodes[], PetscInt c, PetscBool fixed, PetscInt m, PetscReal E[], PetscInt *col)
{
  VPDGCellAll(k, c, m, E, col);
}

/* dirichlet: without the value at a constrained patch end (node 0 of the lower cell, node k of the upper) */
static void VPDGBasisDirichlet(PetscInt k, const PetscReal nodes[], PetscInt c, PetscBool fixed, PetscInt m, PetscReal E[], PetscInt *col)
{
  if (!fixed) VPDGCellAll(k, c, m, E, col);
  else
    for (PetscInt i = 0; i <= k; i++)
      if (i != (c == 0 ? 0 : k)) E[(c * (k + 1) + i) * m + (*col)++] = 1.0;
}

/* clamped: at a constrained end, the k-1 functions x^2 l_j(x) (lower cell: zero with its derivative at x = 0) or
   (1-x)^2 l_j(x) (upper cell, at x = 1), l_j the Lagrange polynomials on the inner nodes nodes[1..k-1], in the cell's
   nodal basis (a Hermite-type basis of the polynomials clamped at that end) */
static void VPDGBasisClamped(PetscInt k, const PetscReal nodes[], PetscInt c, PetscBool fixed, PetscInt m, PetscReal E[], PetscInt *col)
{
  if (!fixed) {
    VPDGCellAll(k, c, m, E, col);
    return;
  }
  for (PetscInt j = 0; j < k - 1; j++, (*col)++)
    for (PetscInt i = 0; i <= k; i++) {
      const PetscReal x = nodes[i];
      PetscReal       l = 1.0;
      for (PetscInt q = 0; q < k - 1; q++)
        if (q != j) l *= (x - nodes[q + 1]) / (nodes[j + 1] - nodes[q + 1]);
      E[(c * (k + 1) + i) * m + *col] = (c == 0 ? x * x : (1.0 - x) * (1.0 - x)) * l;
    }
}

/* by PCVertexPatchLocalSpace: the construction and the values a constrained end removes */
static const struct {
  VPDGCellBasis basis;
  PetscInt      removed;
} VPDGSpaces[] = {
  {VPDGBasisFull,      0},
  {VPDGBasisDirichlet, 1},
  {VPDGBasisClamped,   2}
};

static PetscErrorCode VPDGLocalBasis(PCVertexPatchLocalSpace space, PetscInt k, const PetscReal nodes[], PetscInt cls, PetscInt *m, PetscReal E[])
{
  const PetscBool fixed[2] = {(PetscBool)!(cls & 1), (PetscBool)!(cls & 2)};
  PetscInt        col      = 0;

  PetscFunctionBegin;
  *m = 2 * (k + 1) - VPDGSpaces[space].removed * (fixed[0] + fixed[1]);
  PetscCall(PetscArrayzero(E, 2 * (k + 1) * *m));
  for (PetscInt c = 0; c < 2; c++) VPDGSpaces[space].basis(k, nodes, c, fixed[c], *m, E, &col);
  PetscCheck(col == *m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DG local basis: %" PetscInt_FMT " columns for a space of dimension %" PetscInt_FMT, col, *m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = B^T A B (A: p x p, B: p x m, C: m x m; row-major) */
static void VPDGCongruence(PetscInt p, PetscInt m, const PetscReal A[], const PetscReal B[], PetscReal C[])
{
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      PetscReal s = 0.0;
      for (PetscInt a = 0; a < p; a++)
        for (PetscInt b = 0; b < p; b++) s += B[a * m + i] * A[a * p + b] * B[b * m + j];
      C[i * m + j] = s;
    }
}

/* The 1D data of one direction and class: patch matrices, local basis, fast diagonalization. */
static PetscErrorCode VPDGLineSetUp(const DM_Brick *brick, PCVertexPatchLocalSpace space, const BrickDGLine *dl, PetscInt cls, VPDGLine *L)
{
  const PetscInt n = dl->n, np = 2 * n;
  PetscInt       m;
  PetscScalar    a[VPDG_MAX_N * VPDG_MAX_N], b[VPDG_MAX_N * VPDG_MAX_N], work[3 * VPDG_MAX_N * VPDG_MAX_N];
  PetscBLASInt   itype = 1, bm, lwork = 3 * VPDG_MAX_N * VPDG_MAX_N, info;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(L->A, np * np));
  PetscCall(PetscArrayzero(L->M, np * np));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      /* the lower cell's upper face and the upper cell's lower face are the patch's inner face */
      L->A[i * np + j]             = dl->diag[cls & 1][i * n + j];
      L->A[(n + i) * np + n + j]   = dl->diag[2 * (cls >> 1)][i * n + j];
      L->A[i * np + n + j]         = dl->upper[i * n + j];
      L->A[(n + i) * np + j]       = dl->upper[j * n + i];
      L->M[i * np + j]             = dl->mass[i * n + j];
      L->M[(n + i) * np + n + j]   = dl->mass[i * n + j];
    }
  /* the local residual of dirichlet and clamped treats a constrained end as if the jump there vanished: for a test
     function that is zero there, the only face term left is -<[u], {dv/dn}>, of which the patch's own values give
     half; dropping it (not just the neighbour's half) is what [CK24] describes (exact for clamped, whose test
     functions also have zero derivative there) */
  PetscCall(PetscArraycpy(L->Ares, L->A, np * np));
  if (space != PC_VERTEXPATCH_SPACE_FULL)
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) {
        if (!(cls & 1)) L->Ares[i * np + j] -= dl->lowerface[i * n + j];
        if (!(cls & 2)) L->Ares[(n + i) * np + n + j] -= dl->upperface[i * n + j];
      }
  PetscCall(VPDGLocalBasis(space, brick->degree, brick->nodes, cls, &m, L->E));
  L->m = m;
  for (PetscInt i = 0; i < np; i++)
    for (PetscInt j = 0; j < m; j++) L->ET[j * np + i] = L->E[i * m + j];
  VPDGCongruence(np, m, L->A, L->E, L->Ar);
  VPDGCongruence(np, m, L->M, L->E, L->Mr);
  for (PetscInt i = 0; i < m * m; i++) {
    a[i] = L->Ar[i];
    b[i] = L->Mr[i];
  }
  PetscCall(PetscBLASIntCast(m, &bm));
  LAPACKsygv_(&itype, "V", "U", &bm, a, &bm, b, &bm, L->lambda, work, &lwork, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK sygv failed on the DG patch eigenproblem: %d", (int)info);
  /* a holds the eigenvectors column-major: S[i][j] = a[i + j m]; Q = E S */
  for (PetscInt i = 0; i < np; i++)
    for (PetscInt j = 0; j < m; j++) {
      PetscReal s = 0.0;
      for (PetscInt q = 0; q < m; q++) s += L->E[i * m + q] * PetscRealPart(a[q + j * m]);
      L->Q[i * m + j]  = s;
      L->QT[j * np + i] = s;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Cholesky factor of the restricted patch matrix sum_d (x) (Mr .. Ar_d .. Mr) for a class triple (dense solver) */
static PetscErrorCode VPDGDenseFactor(VPDG *dg, const PetscInt cls[], PetscScalar **factor)
{
  const PetscInt dim = dg->dim;
  PetscInt       m[3] = {1, 1, 1}, N = 1;
  PetscScalar   *a;
  PetscBLASInt   bn, info;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < dim; d++) {
    m[d] = dg->line[d][cls[d]].m;
    N *= m[d];
  }
  PetscCall(PetscMalloc1(N * N, &a));
  for (PetscInt r = 0; r < N; r++)
    for (PetscInt c = 0; c < N; c++) {
      const PetscInt ri[3] = {r % m[0], (r / m[0]) % m[1], r / (m[0] * m[1])}, ci[3] = {c % m[0], (c / m[0]) % m[1], c / (m[0] * m[1])};
      PetscReal      sum   = 0.0;
      for (PetscInt d = 0; d < dim; d++) {
        PetscReal p = 1.0;
        for (PetscInt e = 0; e < dim; e++) p *= (e == d ? dg->line[e][cls[e]].Ar : dg->line[e][cls[e]].Mr)[ri[e] * m[e] + ci[e]];
        sum += p;
      }
      a[r + c * N] = sum;
    }
  PetscCall(PetscBLASIntCast(N, &bn));
  LAPACKpotrf_("U", &bn, a, &bn, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK potrf failed on a DG patch matrix: %d", (int)info);
  *factor = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- forest patches ---- */

/* Entry (q, r) of a mixed patch's matrix (patch-lexicographic values; ob[3 b + d]: the outer face of its cell b along d
   lies on the boundary): a cell's block with itself takes the variant of its faces, cells next to each other along d
   couple through their inner face, each term times the masses across */
static PetscReal VPDGMixedEntry(const VPDG *dg, const PetscBool ob[], PetscInt q, PetscInt r)
{
  const PetscInt n = dg->n, np = dg->np, iq[3] = {q % np, (q / np) % np, q / (np * np)}, ir[3] = {r % np, (r / np) % np, r / (np * np)};
  PetscInt       bq = 0, br = 0, diff;
  PetscReal      sum = 0.0;

  for (PetscInt d = 0; d < dg->dim; d++) {
    bq |= (iq[d] / n) << d;
    br |= (ir[d] / n) << d;
  }
  diff = bq ^ br;
  for (PetscInt d = 0; d < dg->dim; d++) {
    const BrickDGLine *L   = &dg->dgl[d];
    const PetscInt     bit = (bq >> d) & 1, i = iq[d] % n, j = ir[d] % n;
    PetscReal          p;
    if (diff && diff != (1 << d)) continue; /* not this direction's neighbour (or not a neighbour at all) */
    if (!diff) p = L->diag[bit ? 2 * ob[3 * bq + d] : ob[3 * bq + d]][i * n + j];
    else p = bit ? L->upper[j * n + i] : L->upper[i * n + j]; /* the upper neighbour: upper (test in q's cell); the lower: upper^T */
    for (PetscInt e = 0; e < dg->dim; e++)
      if (e != d) p *= dg->dgl[e].mass[(iq[e] % n) * n + ir[e] % n];
    sum += p;
  }
  return sum;
}

/* The dense factor of a mixed patch: its local space is all its values (the full space, the only one allowed with
   removed cells, where mixed patches occur), its residual the global one */
static PetscErrorCode VPDGMixedSetUp(const VPDG *dg, const PetscBool ob[], VPDGMixed *mx)
{
  const PetscInt npd = dg->dim == 3 ? dg->np * dg->np * dg->np : dg->np * dg->np;
  PetscBLASInt   bn, info;

  PetscFunctionBegin;
  PetscCheck(!dg->localres, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a mixed DG forest patch with a local residual");
  PetscCall(PetscMalloc1(npd * npd, &mx->L));
  for (PetscInt q = 0; q < npd; q++)
    for (PetscInt r = 0; r < npd; r++) mx->L[q + r * npd] = VPDGMixedEntry(dg, ob, q, r);
  PetscCall(PetscBLASIntCast(npd, &bn));
  LAPACKpotrf_("U", &bn, mx->L, &bn, &info);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK potrf failed on a mixed DG forest patch: %d", (int)info);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The forest's patches (brickforest.c: the rank's interior vertices by color). A patch is separable where along each
   direction its outer faces are all on the boundary or all interior: then it takes the class of the box's patches and
   their fast diagonalization; otherwise (next to a re-entrant edge or corner) it is mixed and gets its own dense data. */
static PetscErrorCode VPDGSetUpForestPatches(PC pc, VPDG *dg)
{
  PC_VertexPatch    *vp     = (PC_VertexPatch *)pc->data;
  const DM_Brick    *brick  = (const DM_Brick *)vp->dm->data;
  const BrickForest *f      = brick->forest;
  const PetscInt     nchild = 1 << f->dim;
  PetscBool         *ob;
  PetscInt           nmixed = 0;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < f->dim; d++)
    PetscCheck(!f->periodic[d] || f->n[d] > 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "PCVERTEXPATCH with -dm_brick_operator sipg on a forest level of 2 cells along the periodic direction %c: a patch's outer faces there are those of its own cells; use at least 3 coarse cells along %c (-dm_brick_cells) or no smoother on that level",
               "xyz"[d], "xyz"[d]);
  /* with removed cells, a cell value at a re-entrant corner or edge lies at a constrained end in every patch but the one
     at that vertex, which does not exist: the dirichlet and clamped spaces would never correct it */
  {
    const char *prefix;
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCheck(brick->nremoved == 0 || vp->space == PC_VERTEXPATCH_SPACE_FULL, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "-%spc_vertexpatch_local_space %s on a forest with removed cells (-dm_brick_remove): the values at re-entrant corners and edges lie in no patch's %s space, so the smoother would never correct them; allowed there: full (the default)",
               prefix ? prefix : "", PCVertexPatchLocalSpaces[vp->space], PCVertexPatchLocalSpaces[vp->space]);
  }
  dg->forest   = PETSC_TRUE;
  dg->npatches = f->npatches;
  dg->ncolors  = f->ncolors;
  PetscCheck(f->ncolors < 28, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " colors", f->ncolors);
  for (PetscInt c = 0; c <= f->ncolors; c++) dg->colorptr[c] = f->colorptr[c];
  PetscCall(PetscMalloc1(f->npatches + 1, &dg->pkey));
  PetscCall(PetscMalloc1(3 * nchild * f->npatches + 1, &ob));
  for (PetscInt p = 0; p < f->npatches; p++) {
    PetscBool sep = PETSC_TRUE;
    PetscInt  key = 0;
    for (PetscInt b = 0; b < nchild; b++)
      for (PetscInt d = 0; d < 3; d++) {
        PetscInt nb[3];
        for (PetscInt e = 0; e < 3; e++) nb[e] = f->ijk[3 * f->patchcell[p * nchild + b] + e];
        nb[d] += ((b >> d) & 1) ? 1 : -1;
        ob[(p * nchild + b) * 3 + d] = (PetscBool)(d < f->dim && !DMBrickForestCellInDomain_Private(brick, f->level, nb));
      }
    for (PetscInt d = 0; d < f->dim; d++)
      for (PetscInt side = 0; side < 2; side++) {
        PetscInt nbound = 0;
        for (PetscInt b = 0; b < nchild; b++)
          if (((b >> d) & 1) == side) nbound += ob[(p * nchild + b) * 3 + d];
        if (nbound && nbound < nchild / 2) sep = PETSC_FALSE;
        else if (nbound) key += (side ? 2 : 1) << (2 * d);
      }
    dg->pkey[p] = sep ? key : 64 + nmixed++;
  }
  dg->nmixed = nmixed;
  PetscCall(PetscInfo(pc, "DG forest level: %" PetscInt_FMT " patches, %" PetscInt_FMT " of them mixed: their dense factors (%.1f MB) are made now, on the host\n", f->npatches, nmixed, (double)nmixed * (dg->dim == 3 ? dg->np * dg->np * dg->np : dg->np * dg->np) * (dg->dim == 3 ? dg->np * dg->np * dg->np : dg->np * dg->np) * sizeof(PetscScalar) / 1e6));
  PetscCall(PetscCalloc1(nmixed + 1, &dg->mixed));
  for (PetscInt p = 0; p < f->npatches; p++)
    if (dg->pkey[p] >= 64) PetscCall(VPDGMixedSetUp(dg, ob + p * nchild * 3, &dg->mixed[dg->pkey[p] - 64]));
  PetscCall(PetscFree(ob));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchDestroyDG(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPDG           *dg = (VPDG *)vp->dg;

  PetscFunctionBegin;
  if (!dg) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(VP_HAVE_CUDA)
  {
    VPCudaDGSmoother sm  = (VPCudaDGSmoother)dg->gpu;
    int              err = VPCudaDGSmootherDestroy(&sm);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaDGSmootherDestroy: %s", VPCudaErrorString(err));
  }
#endif
  PetscCall(PetscFree(dg->rel));
  PetscCall(PetscFree2(dg->qcell, dg->qlocal));
  PetscCall(PetscFree(dg->pkey));
  for (PetscInt i = 0; i < dg->nmixed; i++) PetscCall(PetscFree(dg->mixed[i].L));
  PetscCall(PetscFree(dg->mixed));
  PetscCall(PetscFree(dg->colorflops));
  PetscCall(PetscFree(dg->workalloc));
  for (PetscInt i = 0; i < 64; i++) PetscCall(PetscFree(dg->dense[i]));
  PetscCall(VecDestroy(&dg->ul));
  PetscCall(VecDestroy(&dg->bl));
  PetscCall(VecDestroy(&dg->dl));
  PetscCall(VecDestroy(&dg->rl));
  PetscCall(VecDestroy(&dg->r));
  PetscCall(PetscFree(vp->dg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options that apply to a DG brick, with an error naming the option for those that do not. */
static PetscErrorCode VPDGCheckOptions(PC pc, const DM_Brick *brick)
{
  PC_VertexPatch *vp   = (PC_VertexPatch *)pc->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCheck(vp->space != PC_VERTEXPATCH_SPACE_FULL || !vp->residual_set || vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL, comm, PETSC_ERR_ARG_INCOMP,
             "-pc_vertexpatch_residual local with -pc_vertexpatch_local_space full: the full space's residual reads the patch's face neighbours; allowed: -pc_vertexpatch_residual global (the default), or -pc_vertexpatch_local_space dirichlet|clamped");
  /* per cell, the patches around it give x^2 P_{k-2} and (1-x)^2 P_{k-2} along each direction: all of P_k only for k >= 3
     (for k = 2 the bubble x(1-x) is missing, and the smoother never reduces that part of the error) */
  PetscCheck(vp->space != PC_VERTEXPATCH_SPACE_CLAMPED || brick->degree >= 3, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pc_vertexpatch_local_space clamped with -dm_brick_degree %" PetscInt_FMT ": the clamped patch spaces do not span Q_%" PetscInt_FMT " on a cell (x^2 P_{k-2} + (1-x)^2 P_{k-2} is P_k only for k >= 3), so the smoother cannot converge; allowed: degree >= 3, or -pc_vertexpatch_local_space full|dirichlet",
             brick->degree, brick->degree);
  PetscCheck(vp->schedule == PC_VERTEXPATCH_COLORED, comm, PETSC_ERR_SUP, "-pc_vertexpatch_schedule %s with -dm_brick_operator sipg: allowed: colored", PCVertexPatchSchedules[vp->schedule]);
  PetscCheck(vp->ordering == PC_VERTEXPATCH_LEXICOGRAPHIC, comm, PETSC_ERR_SUP, "-pc_vertexpatch_ordering %s with -dm_brick_operator sipg: patches of a color share no cell, so their order does not matter; allowed: lexicographic", PCVertexPatchOrderings[vp->ordering]);
  PetscCheck(vp->solver != PC_VERTEXPATCH_SEPARABLE_DENSE, comm, PETSC_ERR_SUP, "-pc_vertexpatch_local_solver separable_dense with -dm_brick_operator sipg: the DG patch matrix is separable, so fdm is exact; allowed: fdm, dense");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(VP_HAVE_CUDA)
static PetscErrorCode VPDGGetGPU(PC, VPCudaDGSmoother *);
#endif

PetscErrorCode PCVertexPatchSetUpDG(PC pc)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;
  VPDG           *dg;
  PetscInt        lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, np;

  PetscFunctionBegin;
  PetscCall(VPDGCheckOptions(pc, brick));
  PetscCall(PCVertexPatchDestroyDG(pc));
  PetscCall(PetscNew(&dg));
  vp->dg       = dg;
  dg->dim      = brick->dim;
  dg->n        = brick->degree + 1;
  dg->np       = np = 2 * dg->n;
  dg->localres = (PetscBool)(vp->space != PC_VERTEXPATCH_SPACE_FULL && !(vp->residual_set && vp->residual == PC_VERTEXPATCH_RESIDUAL_GLOBAL));
  for (PetscInt d = 0; d < brick->dim; d++) {
    PetscCall(brick->op.dgline(vp->dm, d, &dg->dgl[d]));
    for (PetscInt c = 0; c < 4; c++) PetscCall(VPDGLineSetUp(brick, vp->space, &dg->dgl[d], c, &dg->line[d][c]));
  }
  dg->m = dg->line[0][0].m; /* an interior patch's */
  if (brick->forest) PetscCall(VPDGSetUpForestPatches(pc, dg));
  else {
    /* owned patches: vertex v belongs to the rank of cell v (its upper neighbour cell); interior vertices 1..N-1 */
    for (PetscInt d = 0; d < brick->dim; d++) {
      lo[d] = PetscMax(brick->cstart[d], 1);
      hi[d] = PetscMin(brick->cend[d] - 1, brick->cells[d] - 1);
    }
    if (brick->cend[0] == brick->cstart[0]) hi[0] = lo[0] - 1; /* an inactive rank */
    dg->ncolors  = 1 << brick->dim;
    dg->npatches = 1;
    for (PetscInt d = 0; d < brick->dim; d++) dg->npatches *= PetscMax(hi[d] - lo[d] + 1, 0);
    /* color: the parity class (x % 2) + 2 (y % 2) + 4 (z % 2); its patches in lexicographic order, one lattice box */
    dg->colorptr[0] = 0;
    dg->nbox        = 0;
    for (PetscInt c = 0; c < dg->ncolors; c++) {
      const PetscInt n = PCVertexPatchLatticeBox(brick->dim, PETSC_FALSE, PETSC_TRUE, c, lo, hi, &dg->box[dg->nbox]);
      if (n) dg->box[dg->nbox++].first = (int)dg->colorptr[c];
      dg->colorptr[c + 1] = dg->colorptr[c] + n;
    }
    PetscCheck(dg->colorptr[dg->ncolors] == dg->npatches, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the DG schedule's boxes hold %" PetscInt_FMT " patches, not %" PetscInt_FMT, dg->colorptr[dg->ncolors], dg->npatches);
    PetscCall(PetscMemzero(&dg->box[dg->nbox], sizeof(VPCudaPatchBox)));
    dg->box[dg->nbox].first = (int)dg->npatches; /* the sentinel */
  }
  /* the patch values relative to the first value of its first cell (cell v-1 in every direction) */
  dg->gstride[0] = 1;
  dg->gstride[1] = brick->gwidth[0];
  dg->gstride[2] = brick->gwidth[0] * brick->gwidth[1];
  {
    const PetscInt n = dg->n, npd = brick->dim == 3 ? np * np * np : np * np;
    PetscCall(PetscMalloc1(npd, &dg->rel));
    for (PetscInt q = 0; q < npd; q++) {
      const PetscInt ii[3] = {q % np, (q / np) % np, q / (np * np)};
      PetscInt       cell = 0, local = 0;
      for (PetscInt d = 0; d < brick->dim; d++) {
        cell += (ii[d] / n) * dg->gstride[d];
        local += (ii[d] % n) * (d == 0 ? 1 : d == 1 ? n : n * n);
      }
      dg->rel[q] = cell * brick->dof + local;
    }
    PetscCall(PetscMalloc2(npd, &dg->qcell, npd, &dg->qlocal));
    for (PetscInt q = 0; q < npd; q++) {
      const PetscInt ii[3] = {q % np, (q / np) % np, q / (np * np)};
      dg->qcell[q]         = 0;
      dg->qlocal[q]        = 0;
      for (PetscInt d = brick->dim - 1; d >= 0; d--) {
        dg->qcell[q] += (ii[d] / n) << d;
        dg->qlocal[q] = dg->qlocal[q] * n + ii[d] % n;
      }
    }
    for (PetscInt b = 0; b < (1 << brick->dim); b++) {
      dg->cellrel[b] = 0;
      for (PetscInt d = 0; d < brick->dim; d++) dg->cellrel[b] += ((b >> d) & 1) * dg->gstride[d] * brick->dof;
    }
    vp->nthreads = vp->threads > 0 ? vp->threads : 1; /* the host steps' threads: the patches of one color */
    dg->pstride  = npd;
    dg->nlanes   = vp->simd ? BRICK_LANES_D : 1; /* the groups are formed as the patches come (VPDGPatchesLanes) */
    /* per thread: the arrays (scalars, or lane vectors) and one lane's dense solve, 64-byte aligned */
    dg->workbytes = ((size_t)VPDG_ARRAYS * npd * (dg->nlanes > 1 ? sizeof(BrickLaneD) : sizeof(PetscScalar)) + (size_t)npd * sizeof(PetscScalar) + 63) / 64 * 64;
    PetscCall(PetscMalloc1(vp->nthreads * dg->workbytes + 64, &dg->workalloc));
    dg->work = dg->workalloc + (64 - (size_t)((uintptr_t)dg->workalloc % 64)) % 64;
    /* flops per patch: the residual (dim 1D products of size np per direction), two times dim contractions of the solve */
    dg->flops = 2.0 * npd * np * brick->dim * (dg->localres ? brick->dim : 0) + 4.0 * npd * np * brick->dim;
  }
  {
    /* per color the flops of its patches; with the dense solver, one factor per class triple that occurs (at most 4^d) */
    PetscBool present[64] = {PETSC_FALSE};
    PetscCall(PetscCalloc1(dg->ncolors, &dg->colorflops));
    for (PetscInt c = 0; c < dg->ncolors; c++)
      for (PetscInt p = dg->colorptr[c]; p < dg->colorptr[c + 1]; p++) {
        PetscInt       cls[3], off[8];
        const PetscInt key = VPDGPatchWhere(dg, brick, p, cls, off);
        if (key < 64) {
          present[key] = PETSC_TRUE;
          dg->colorflops[c] += dg->flops;
        } else {
          const PetscLogDouble npd = (PetscLogDouble)dg->pstride;
          dg->colorflops[c] += 2.0 * npd * npd; /* the two triangular solves */
        }
      }
    if (vp->solver == PC_VERTEXPATCH_DENSE)
      for (PetscInt key = 0; key < 64; key++) {
        PetscInt cls[3] = {key & 3, (key >> 2) & 3, (key >> 4) & 3};
        if (present[key]) PetscCall(VPDGDenseFactor(dg, cls, &dg->dense[key]));
      }
  }
  PetscCall(DMCreateLocalVector(vp->dm, &dg->ul));
  PetscCall(VecDuplicate(dg->ul, &dg->bl));
  PetscCall(VecDuplicate(dg->ul, &dg->dl));
  PetscCall(VecDuplicate(dg->ul, &dg->rl));
  PetscCall(DMCreateGlobalVector(vp->dm, &dg->r));
  vp->npatches = dg->npatches;
  vp->ncolors  = dg->ncolors;
#if defined(VP_HAVE_CUDA)
  {
    /* the device data now, in the set-up, not in the first smoothing step of a solve (a forest's mixed patches move
       their dense factors there) */
    PetscBool        device;
    VPCudaDGSmoother sm;
    PetscCall(DMBrickOnDevice_Private(vp->dm, &device));
    if (device && vp->solver == PC_VERTEXPATCH_FDM) PetscCall(VPDGGetGPU(pc, &sm));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define VPDG_T    PetscScalar
#define VPDG_SUF  _s
#define VPDG_APPLY(d, ext, mout, B, in, out) BrickTensorApply1D(d, ext, mout, B, in, out)
#include "vpdg_template.h"
#define VPDG_T    BrickLaneD
#define VPDG_SUF  _l
#define VPDG_APPLY(d, ext, mout, B, in, out) BrickLaneApply1D(d, ext, mout, 0, (ext)[d], B, in, out)
#include "vpdg_template.h"

/* One patch: its residual (from rl, or from ul and bl), delta = E A_j^-1 E^T r, dl[patch values] += omega delta. Plain C
   (it runs inside OpenMP regions): returns 0, or the LAPACK error code of the dense solve. */
static int VPDGPatch(const PC_VertexPatch *vp, const VPDG *dg, const DM_Brick *brick, PetscInt p, const PetscScalar *ul, const PetscScalar *bl, const PetscScalar *rl, PetscScalar *dl, PetscScalar *work)
{
  const PetscInt P = dg->pstride, np = dg->np, npd = dg->dim == 3 ? np * np * np : np * np;
  PetscScalar   *r = work, *u = work + P, *b = work + 2 * P, *delta = work + 3 * P, *kw = work + 4 * P;
  PetscInt       cls[3], off[8], key;

  key = VPDGPatchWhere(dg, brick, p, cls, off);
  if (dg->localres) {
    for (PetscInt q = 0; q < npd; q++) {
      const PetscInt i = off[dg->qcell[q]] + dg->qlocal[q];
      u[q]             = ul ? ul[i] : 0.0;
      b[q]             = bl[i];
    }
  } else
    for (PetscInt q = 0; q < npd; q++) r[q] = rl[off[dg->qcell[q]] + dg->qlocal[q]];
  if (key >= 64) { /* a mixed patch: its dense factor on the global residual (full local space) */
    const int info = VPPatchSolveDense(npd, dg->mixed[key - 64].L, r);
    if (info) return info;
    for (PetscInt q = 0; q < npd; q++) delta[q] = r[q];
  } else {
    if (dg->localres) {
      if (ul) VPDGLocalResidual_s(dg, cls, u, b, r, kw);
      else
        for (PetscInt q = 0; q < npd; q++) r[q] = b[q];
    }
    if (vp->solver == PC_VERTEXPATCH_DENSE) {
      PetscInt nm = 1;
      int      info;
      for (PetscInt d = 0; d < dg->dim; d++) nm *= dg->line[d][cls[d]].m;
      VPDGTensor_s(dg, 2, cls, r, kw, kw + P);
      info = VPPatchSolveDense(nm, dg->dense[key], kw);
      if (info) return info;
      VPDGTensor_s(dg, 3, cls, kw, delta, kw + P);
    } else VPDGSolveFDM_s(dg, cls, r, delta, kw);
  }
  for (PetscInt q = 0; q < npd; q++) dl[off[dg->qcell[q]] + dg->qlocal[q]] += vp->omega * delta[q];
  return 0;
}

/* VPDGPatch on a SIMD group (grp: nlanes patch indices of one class triple, -1 in empty lanes: zeros, nothing written) */
static int VPDGPatchLanes(const PC_VertexPatch *vp, const VPDG *dg, const DM_Brick *brick, const PetscInt grp[], const PetscScalar *ul, const PetscScalar *bl, const PetscScalar *rl, PetscScalar *dl, char *work)
{
  const PetscInt P = dg->pstride, np = dg->np, npd = dg->dim == 3 ? np * np * np : np * np, W = BRICK_LANES_D;
  BrickLaneD    *r = (BrickLaneD *)work, *u = r + P, *b = r + 2 * P, *delta = r + 3 * P, *kw = r + 4 * P;
  PetscScalar   *dense = (PetscScalar *)(r + VPDG_ARRAYS * P);
  double        *us = (double *)u, *bs = (double *)b, *rs = (double *)r, *ds = (double *)delta;
  PetscInt       cls[3], off[BRICK_LANES_D][8], key;

  for (PetscInt l = 0; l < W; l++) {
    if (grp[l] < 0) {
      for (PetscInt q = 0; q < npd; q++) us[q * W + l] = bs[q * W + l] = rs[q * W + l] = 0.0;
      continue;
    }
    VPDGPatchWhere(dg, brick, grp[l], cls, off[l]);
    for (PetscInt q = 0; q < npd; q++) {
      const PetscInt i = off[l][dg->qcell[q]] + dg->qlocal[q];
      if (dg->localres) {
        us[q * W + l] = ul ? ul[i] : 0.0;
        bs[q * W + l] = bl[i];
      } else rs[q * W + l] = rl[i];
    }
  }
  key = VPDGPatchWhere(dg, brick, grp[0], cls, off[0]); /* the group's class triple (lane 0 is never empty) */
  if (dg->localres) {
    if (ul) VPDGLocalResidual_l(dg, cls, u, b, r, kw);
    else
      for (PetscInt q = 0; q < npd; q++) r[q] = b[q];
  }
  if (vp->solver == PC_VERTEXPATCH_DENSE) {
    PetscInt nm = 1;
    double  *gs = (double *)kw;
    for (PetscInt d = 0; d < dg->dim; d++) nm *= dg->line[d][cls[d]].m;
    VPDGTensor_l(dg, 2, cls, r, kw, kw + P);
    for (PetscInt l = 0; l < W && grp[l] >= 0; l++) {
      int info;
      for (PetscInt q = 0; q < nm; q++) dense[q] = gs[q * W + l];
      info = VPPatchSolveDense(nm, dg->dense[key], dense);
      if (info) return info;
      for (PetscInt q = 0; q < nm; q++) gs[q * W + l] = dense[q];
    }
    VPDGTensor_l(dg, 3, cls, kw, delta, kw + P);
  } else VPDGSolveFDM_l(dg, cls, r, delta, kw);
  for (PetscInt l = 0; l < W && grp[l] >= 0; l++)
    for (PetscInt q = 0; q < npd; q++) dl[off[l][dg->qcell[q]] + dg->qlocal[q]] += vp->omega * ds[q * W + l];
  return 0;
}

/* Patches [p0, p1) of one color in SIMD groups of one class triple: the patches go in order into one pending group per
   triple, which runs when full; the triples' last groups run with empty lanes at the end. No list of groups is kept:
   the grouping does not change any patch's arithmetic. Plain C, for OpenMP regions: returns 0 or LAPACK's error. */
static int VPDGPatchesLanes(const PC_VertexPatch *vp, const VPDG *dg, const DM_Brick *brick, PetscInt p0, PetscInt p1, const PetscScalar *ul, const PetscScalar *bl, const PetscScalar *rl, PetscScalar *dl, char *work)
{
  const PetscInt W = BRICK_LANES_D;
  PetscInt       pending[64][BRICK_LANES_D], count[64] = {0};

  for (PetscInt p = p0; p < p1; p++) {
    PetscInt       cls[3], off[8];
    const PetscInt key = VPDGPatchWhere(dg, brick, p, cls, off);
    if (key >= 64) { /* a mixed forest patch: on its own (the lane work holds one patch's scalar arrays) */
      const int e = VPDGPatch(vp, dg, brick, p, ul, bl, rl, dl, (PetscScalar *)work);
      if (e) return e;
      continue;
    }
    pending[key][count[key]++] = p;
    if (count[key] == W) {
      const int e = VPDGPatchLanes(vp, dg, brick, pending[key], ul, bl, rl, dl, work);
      if (e) return e;
      count[key] = 0;
    }
  }
  for (PetscInt key = 0; key < 64; key++)
    if (count[key]) {
      for (PetscInt l = count[key]; l < W; l++) pending[key][l] = -1;
      const int e = VPDGPatchLanes(vp, dg, brick, pending[key], ul, bl, rl, dl, work);
      if (e) return e;
    }
  return 0;
}

/* The corrections of the patches of color c into dl (zeroed by the caller): from the ghosted residual rl (global
   residual) or from ul and bl (local residual). The patches of one color share no cell, so they run on vp->nthreads
   threads and in SIMD groups with the result of one patch at a time on one thread, bit for bit. */
static PetscErrorCode VPDGPatches(PC pc, PetscInt c, const PetscScalar *ul, const PetscScalar *bl, const PetscScalar *rl, PetscScalar *dl)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  VPDG           *dg    = (VPDG *)vp->dg;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;
  int             info  = 0;

  PetscFunctionBegin;
  if (dg->nlanes > 1) {
    /* each thread a contiguous share of the color, grouped as its patches come */
#if defined(_OPENMP)
  #pragma omp parallel num_threads(vp->nthreads) if (vp->nthreads > 1) reduction(max : info)
    {
      const PetscInt t = omp_get_thread_num(), nt = omp_get_num_threads(), p0 = dg->colorptr[c], n = dg->colorptr[c + 1] - p0;
      const int      e = VPDGPatchesLanes(vp, dg, brick, p0 + n * t / nt, p0 + n * (t + 1) / nt, ul, bl, rl, dl, dg->work + (size_t)t * dg->workbytes);
      if (e > info) info = e;
    }
#else
    info = VPDGPatchesLanes(vp, dg, brick, dg->colorptr[c], dg->colorptr[c + 1], ul, bl, rl, dl, dg->work);
#endif
  } else {
#if defined(_OPENMP)
  #pragma omp parallel for num_threads(vp->nthreads) schedule(static) if (vp->nthreads > 1) reduction(max : info)
#endif
    for (PetscInt p = dg->colorptr[c]; p < dg->colorptr[c + 1]; p++) {
#if defined(_OPENMP)
      char *work = dg->work + (size_t)omp_get_thread_num() * dg->workbytes;
#else
      char *work = dg->work;
#endif
      const int e = VPDGPatch(vp, dg, brick, p, ul, bl, rl, dl, (PetscScalar *)work);
      if (e > info) info = e;
    }
  }
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK potrs failed on a DG patch: %d", info);
  PetscCall(PetscLogFlops(dg->colorflops[c]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - A x (x NULL: r = b) with its ghosts in rl: the in-place local of r (or b) where the brick stores it so
   (-dm_brick_slabs: only the ghosts move), else dg->rl */
static PetscErrorCode VPDGGlobalResidual(PC pc, Vec b, Vec x, Vec *rl)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPDG           *dg = (VPDG *)vp->dg;
  Vec             r  = b;

  PetscFunctionBegin;
  if (x) {
    PetscCall(MatMult(pc->pmat, x, dg->r));
    PetscCall(VecAYPX(dg->r, -1.0, b));
    r = dg->r;
  }
  PetscCall(DMBrickGetInPlaceLocal_Private(vp->dm, r, rl));
  if (!*rl) *rl = dg->rl;
  PetscCall(DMGlobalToLocal(vp->dm, r, INSERT_VALUES, *rl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where a step runs: on the GPU with VECCUDA vectors (dense local solves have no device implementation: an error);
   on the host the patch work is double only. */
static PetscErrorCode VPDGUseGPU(PC pc, Vec b, Vec x, PetscBool *gpu)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  const char     *prefix;

  PetscFunctionBegin;
  PetscCall(DMBrickVecsOnDevice_Private(b, x, gpu));
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  if (*gpu)
    PetscCheck(vp->solver == PC_VERTEXPATCH_FDM, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-%spc_vertexpatch_local_solver %s has no GPU implementation; with VECCUDA vectors (-dm_vec_type cuda) use -%spc_vertexpatch_local_solver fdm",
               prefix ? prefix : "", PCVertexPatchLocalSolvers[vp->solver], prefix ? prefix : "");
  else
    PetscCheck(vp->precision == PC_VERTEXPATCH_DOUBLE, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "-%spc_vertexpatch_precision single with -dm_brick_operator sipg is implemented on the GPU only (-dm_vec_type cuda); on the host allowed: double", prefix ? prefix : "");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(VP_HAVE_CUDA)
/* A forest's patches on the device: their keys and cells' offsets, and the mixed patches' dense factors, concatenated */
static PetscErrorCode VPDGForestGPUCreate(PC pc, const int m[3][4], const double *data, VPCudaDGSmoother *g)
{
  PC_VertexPatch    *vp     = (PC_VertexPatch *)pc->data;
  VPDG              *dg     = (VPDG *)vp->dg;
  const DM_Brick    *brick  = (const DM_Brick *)vp->dm->data;
  const BrickForest *f      = brick->forest;
  const PetscInt     nchild = 1 << dg->dim, npd = dg->pstride;
  int               *key, *cellofs, *qcell, *qlocal, *mixedpatch, err;
  double            *U;

  PetscFunctionBegin;
  PetscCheck(f->nlocal <= (PetscInt)INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "a DG forest level with %" PetscInt_FMT " local values on a rank: the GPU smoother addresses at most 2^31 - 1", f->nlocal);
  PetscCall(PetscMalloc5(dg->npatches + 1, &key, dg->npatches * nchild + 1, &cellofs, npd, &qcell, npd, &qlocal, dg->nmixed + 1, &mixedpatch));
  for (PetscInt p = 0; p < dg->npatches; p++) {
    key[p] = (int)dg->pkey[p];
    if (dg->pkey[p] >= 64) mixedpatch[dg->pkey[p] - 64] = (int)p;
    for (PetscInt b = 0; b < nchild; b++) cellofs[p * nchild + b] = (int)(f->patchcell[p * nchild + b] * brick->dof);
  }
  for (PetscInt q = 0; q < npd; q++) {
    qcell[q]  = (int)dg->qcell[q];
    qlocal[q] = (int)dg->qlocal[q];
  }
  PetscCall(PetscMalloc1((size_t)dg->nmixed * npd * npd + 1, &U));
  for (PetscInt i = 0; i < dg->nmixed; i++) PetscCall(PetscArraycpy(U + (size_t)i * npd * npd, dg->mixed[i].L, npd * npd));
  err = VPCudaDGSmootherCreateForest((int)dg->dim, (int)brick->degree, m, data, (int)dg->npatches, key, cellofs, qcell, qlocal, (int)dg->nmixed, mixedpatch, U, g);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaDGSmootherCreateForest: %s", VPCudaErrorString(err));
  PetscCall(PetscFree5(key, cellofs, qcell, qlocal, mixedpatch));
  PetscCall(PetscFree(U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device copy of the patch data, the patches and their offsets (once per setup) */
static PetscErrorCode VPDGGetGPU(PC pc, VPCudaDGSmoother *sm)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  VPDG           *dg    = (VPDG *)vp->dg;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;

  PetscFunctionBegin;
  if (!dg->gpu) {
    const PetscInt np = dg->np, np2 = np * np, npd = dg->dim == 3 ? np2 * np : np2;
    double        *data;
    int             *rel, grid[3], m[3][4], gstart[3], gstride[3], err;
    VPCudaDGSmoother g;
    PetscCall(PetscCalloc1(3 * 4 * VPC_DG_SLOT, &data));
    for (PetscInt d = 0; d < 3; d++)
      for (PetscInt c = 0; c < 4; c++) {
        const VPDGLine *L    = &dg->line[d][c];
        double         *slot = data + (d * 4 + c) * VPC_DG_SLOT;
        m[d][c]              = d < dg->dim ? (int)L->m : 1;
        if (d >= dg->dim) continue;
        for (PetscInt i = 0; i < np * L->m; i++) {
          slot[i]       = L->Q[i];
          slot[np2 + i] = L->QT[i];
        }
        for (PetscInt i = 0; i < L->m; i++) slot[2 * np2 + i] = L->lambda[i];
        for (PetscInt i = 0; i < np2; i++) {
          slot[2 * np2 + np + i] = L->Ares[i];
          slot[3 * np2 + np + i] = L->M[i];
        }
      }
    for (PetscInt d = 0; d < 3; d++) {
      grid[d]    = (int)brick->cells[d];
      gstart[d]  = (int)brick->gstart[d];
      gstride[d] = (int)dg->gstride[d];
    }
    if (dg->forest) PetscCall(VPDGForestGPUCreate(pc, (const int(*)[4])m, data, &g));
    else {
      PetscCall(PetscMalloc1(npd, &rel));
      for (PetscInt q = 0; q < npd; q++) rel[q] = (int)dg->rel[q];
      err = VPCudaDGSmootherCreate((int)dg->dim, (int)brick->degree, grid, (const int(*)[4])m, data, (int)dg->nbox, dg->box, gstart, gstride, (int)brick->dof, rel, &g);
      PetscCall(PetscFree(rel));
      PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaDGSmootherCreate: %s", VPCudaErrorString(err));
    }
    PetscCall(PetscFree(data));
    dg->gpu = g;
  }
  *sm = (VPCudaDGSmoother)dg->gpu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* patches [p0, p1) on the device: from the ghosted ul/bl (local residual) or rl, into target (atomic: additive) */
static PetscErrorCode VPDGPatchesGPU(PC pc, PetscInt p0, PetscInt p1, PetscBool atomic, Vec ul, Vec bl, Vec rl, Vec target)
{
  PC_VertexPatch    *vp = (PC_VertexPatch *)pc->data;
  VPDG              *dg = (VPDG *)vp->dg;
  VPCudaDGSmoother   sm = NULL;
  const PetscScalar *u = NULL, *b = NULL, *r = NULL;
  PetscScalar       *t;
  int                err;

  PetscFunctionBegin;
  PetscCall(VPDGGetGPU(pc, &sm));
  if (ul) PetscCall(VecCUDAGetArrayRead(ul, &u));
  if (bl) PetscCall(VecCUDAGetArrayRead(bl, &b));
  if (rl) PetscCall(VecCUDAGetArrayRead(rl, &r));
  /* target may be ul itself (one rank, in place): then the patches read and write it through one pointer */
  if (target == ul) {
    PetscCall(VecCUDARestoreArrayRead(ul, &u));
    PetscCall(VecCUDAGetArray(target, &t));
    u = t;
  } else PetscCall(VecCUDAGetArray(target, &t));
  PetscCall(PetscLogGpuTimeBegin());
  err = VPCudaDGSmootherPatches(sm, (int)p0, (int)p1, dg->localres, atomic, vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION, (double)vp->omega, u, b, r, t);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the DG vertex-patch step: %s", VPCudaErrorString(err));
  PetscCall(VecCUDARestoreArray(target, &t));
  if (ul && target != ul) PetscCall(VecCUDARestoreArrayRead(ul, &u));
  if (bl) PetscCall(VecCUDARestoreArrayRead(bl, &b));
  if (rl) PetscCall(VecCUDARestoreArrayRead(rl, &r));
  PetscCall(PetscLogGpuFlops(dg->flops * (p1 - p0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the ghosted local vectors of a sweep with local residuals for b and x: their in-place locals where the brick stores
   them so (-dm_brick_slabs: the global-to-local of each color then fetches only the ghosts), else the smoother's own */
static PetscErrorCode VPDGSweepLocals(PC pc, Vec b, Vec x, Vec *bl, Vec *ul)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPDG           *dg = (VPDG *)vp->dg;

  PetscFunctionBegin;
  PetscCall(DMBrickGetInPlaceLocal_Private(vp->dm, b, bl));
  PetscCall(DMBrickGetInPlaceLocal_Private(vp->dm, x, ul));
  if (!*bl) *bl = dg->bl;
  if (!*ul) *ul = dg->ul;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(VP_HAVE_CUDA)
/* The in-place sweep's ghost stretches (the planes of ul below and above x's owned stretch): !delta: saved into the same
   places of dl; delta: ul there becomes what the color's patches added (ul -= dl), for DMLocalToGlobal(ADD_VALUES) */
static PetscErrorCode VPDGGhostStretches(PC pc, Vec x, Vec ul, PetscBool delta)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPDG           *dg = (VPDG *)vp->dg;
  PetscInt        off, n, nl;
  PetscScalar    *u, *d;
  int             err = 0;

  PetscFunctionBegin;
  PetscCall(DMBrickInPlaceOffset_Private(vp->dm, &off));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetLocalSize(ul, &nl));
  PetscCall(VecCUDAGetArray(ul, &u));
  PetscCall(VecCUDAGetArray(dg->dl, &d));
  {
    const size_t lo[2] = {0, (size_t)(off + n)}, len[2] = {(size_t)off, (size_t)(nl - off - n)};
    for (int s = 0; s < 2 && !err; s++) err = delta ? VPCudaVectorAXPY(len[s], -1.0, d + lo[s], u + lo[s]) : VPCudaVectorCopy(len[s], 0, u + lo[s], d + lo[s]);
  }
  PetscCall(VecCUDARestoreArray(dg->dl, &d));
  PetscCall(VecCUDARestoreArray(ul, &u));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the DG sweep's ghost stretches: %s", VPCudaErrorString(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* One multiplicative sweep on x (zero: x starts from zero), colors in order (reverse: backwards). */
PetscErrorCode PCVertexPatchSmoothDG(PC pc, Vec b, Vec x, PetscBool zero)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPDG           *dg = (VPDG *)vp->dg;

  PetscBool       gpu;

  PetscFunctionBegin;
  PetscCall(VPDGUseGPU(pc, b, x, &gpu));
  PetscCall(PetscLogEventBegin(PC_VertexPatchSmooth, pc, b, x, 0));
  if (zero) PetscCall(VecZeroEntries(x));
#if defined(VP_HAVE_CUDA)
  if (gpu) {
    /* one active rank: the local arrays are the global ones, so the patches work on x in place */
    const PetscBool one = (PetscBool)(((DM_Brick *)vp->dm->data)->nactive == 1);
    Vec             ul, bl, rl = NULL;
    PetscBool       inplace;
    PetscCall(VPDGSweepLocals(pc, b, x, &bl, &ul));
    inplace = (PetscBool)(!one && ul != dg->ul); /* x stored in place: the patches correct it there */
    if (dg->localres && !one) PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, bl));
    for (PetscInt i = 0; i < dg->ncolors; i++) {
      const PetscInt c = vp->reverse ? dg->ncolors - 1 - i : i;
      if (!dg->localres) PetscCall(VPDGGlobalResidual(pc, b, x, &rl));
      if (one) PetscCall(VPDGPatchesGPU(pc, dg->colorptr[c], dg->colorptr[c + 1], PETSC_FALSE, dg->localres ? x : NULL, dg->localres ? b : NULL, rl, x));
      else if (inplace) {
        /* as on one rank, in x itself; the corrections of ghost cells go to their owners as differences (a cell is
           corrected by one patch of a color on all ranks together, so the other holders send zeros). With the global
           residual the patches read only rl, and x's ghosts need no refresh */
        if (dg->localres) PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, ul)); /* the ghosts */
        PetscCall(VPDGGhostStretches(pc, x, ul, PETSC_FALSE));
        PetscCall(VPDGPatchesGPU(pc, dg->colorptr[c], dg->colorptr[c + 1], PETSC_FALSE, dg->localres ? ul : NULL, dg->localres ? bl : NULL, rl, ul));
        PetscCall(VPDGGhostStretches(pc, x, ul, PETSC_TRUE));
        PetscCall(DMLocalToGlobal(vp->dm, ul, ADD_VALUES, x)); /* the in-place local: its ghosts summed into their owners */
      } else {
        if (dg->localres) PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, ul));
        PetscCall(VecZeroEntries(dg->dl));
        PetscCall(VPDGPatchesGPU(pc, dg->colorptr[c], dg->colorptr[c + 1], PETSC_FALSE, dg->localres ? ul : NULL, dg->localres ? bl : NULL, rl, dg->dl));
        PetscCall(DMLocalToGlobal(vp->dm, dg->dl, ADD_VALUES, x));
      }
    }
    PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, x, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  {
    Vec ulv, blv, rlv = NULL;
    PetscCall(VPDGSweepLocals(pc, b, x, &blv, &ulv));
    if (dg->localres) PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, blv));
    for (PetscInt i = 0; i < dg->ncolors; i++) {
      const PetscInt     c     = vp->reverse ? dg->ncolors - 1 - i : i;
      const PetscBool    first = (PetscBool)(zero && i == 0);
      const PetscScalar *ul = NULL, *bl = NULL, *rl = NULL;
      PetscScalar       *dl;
      if (dg->localres) {
        if (!first) PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, ulv));
        if (!first) PetscCall(VecGetArrayRead(ulv, &ul));
        PetscCall(VecGetArrayRead(blv, &bl));
      } else {
        PetscCall(VPDGGlobalResidual(pc, b, first ? NULL : x, &rlv));
        PetscCall(VecGetArrayRead(rlv, &rl));
      }
      PetscCall(VecZeroEntries(dg->dl));
      PetscCall(VecGetArray(dg->dl, &dl));
      PetscCall(VPDGPatches(pc, c, ul, bl, rl, dl));
      PetscCall(VecRestoreArray(dg->dl, &dl));
      if (ul) PetscCall(VecRestoreArrayRead(ulv, &ul));
      if (bl) PetscCall(VecRestoreArrayRead(blv, &bl));
      if (rl) PetscCall(VecRestoreArrayRead(rlv, &rl));
      PetscCall(DMLocalToGlobal(vp->dm, dg->dl, ADD_VALUES, x));
    }
  }
  PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y += sum_j omega E_j A_j^-1 E_j^T (b - A x) (x NULL: zero), all patches from the same residual */
PetscErrorCode PCVertexPatchAdditiveDG(PC pc, Vec b, Vec x, Vec y)
{
  PC_VertexPatch    *vp = (PC_VertexPatch *)pc->data;
  VPDG              *dg = (VPDG *)vp->dg;
  const PetscScalar *ul = NULL, *bl = NULL, *rl = NULL;
  PetscScalar       *dl;
  PetscBool          gpu;
  Vec                rlv = NULL;

  PetscFunctionBegin;
  PetscCall(VPDGUseGPU(pc, b, y, &gpu));
  PetscCall(PetscLogEventBegin(PC_VertexPatchSmooth, pc, b, y, 0));
#if defined(VP_HAVE_CUDA)
  if (gpu) {
    const PetscBool one = (PetscBool)(((DM_Brick *)vp->dm->data)->nactive == 1);
    if (!dg->localres) PetscCall(VPDGGlobalResidual(pc, b, x, &rlv));
    if (one) PetscCall(VPDGPatchesGPU(pc, 0, dg->npatches, PETSC_TRUE, dg->localres ? x : NULL, dg->localres ? b : NULL, rlv, y));
    else {
      Vec ul = dg->ul, bl = dg->bl;
      if (dg->localres) {
        PetscCall(VPDGSweepLocals(pc, b, x ? x : b, &bl, &ul)); /* in-place locals (-dm_brick_slabs): the ghosts only */
        PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, bl));
        if (x) PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, ul));
      }
      PetscCall(VecZeroEntries(dg->dl));
      PetscCall(VPDGPatchesGPU(pc, 0, dg->npatches, PETSC_TRUE, dg->localres && x ? ul : NULL, dg->localres ? bl : NULL, rlv, dg->dl));
      PetscCall(DMLocalToGlobal(vp->dm, dg->dl, ADD_VALUES, y));
    }
    PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (dg->localres) {
    PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, dg->bl));
    PetscCall(VecGetArrayRead(dg->bl, &bl));
    if (x) {
      PetscCall(DMGlobalToLocal(vp->dm, x, INSERT_VALUES, dg->ul));
      PetscCall(VecGetArrayRead(dg->ul, &ul));
    }
  } else {
    PetscCall(VPDGGlobalResidual(pc, b, x, &rlv));
    PetscCall(VecGetArrayRead(rlv, &rl));
  }
  PetscCall(VecZeroEntries(dg->dl));
  PetscCall(VecGetArray(dg->dl, &dl));
  /* color by color (the patches are numbered color by color, so this is the order of one loop): threads inside a color */
  for (PetscInt c = 0; c < dg->ncolors; c++) PetscCall(VPDGPatches(pc, c, ul, bl, rl, dl));
  PetscCall(VecRestoreArray(dg->dl, &dl));
  if (ul) PetscCall(VecRestoreArrayRead(dg->ul, &ul));
  if (bl) PetscCall(VecRestoreArrayRead(dg->bl, &bl));
  if (rl) PetscCall(VecRestoreArrayRead(rlv, &rl));
  PetscCall(DMLocalToGlobal(vp->dm, dg->dl, ADD_VALUES, y));
  PetscCall(PetscLogEventEnd(PC_VertexPatchSmooth, pc, b, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchViewDG(PC pc, PetscViewer viewer)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  VPDG           *dg = (VPDG *)vp->dg;
  PetscInt        total;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %s vertex-patch Schwarz on DG (sipg), local space %s, local solver %s, %s residual, damping %g%s\n", PCVertexPatchTypes[vp->type], PCVertexPatchLocalSpaces[vp->space],
                                   PCVertexPatchLocalSolvers[vp->solver], dg ? (dg->localres ? "local (patch cells)" : "global (per color)") : "-", (double)(vp->damping > 0 ? vp->damping : vp->omega), vp->reverse ? ", reverse order" : ""));
  if (!dg) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Allreduce(&dg->npatches, &total, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " patches in %" PetscInt_FMT " colors, %" PetscInt_FMT " local / %" PetscInt_FMT " patch DoFs per patch, %" PetscInt_FMT " OpenMP thread(s) per color on the host\n", total, dg->ncolors,
                                   dg->dim == 3 ? dg->m * dg->m * dg->m : dg->m * dg->m, dg->dim == 3 ? dg->np * dg->np * dg->np : dg->np * dg->np, vp->nthreads));
  if (dg->nlanes > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  CPU steps in SIMD groups of %" PetscInt_FMT " patches of one class triple (%s)\n", dg->nlanes, BrickSIMDInstructionSet()));
  if (dg->forest) {
    PetscInt nmixed = dg->nmixed;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nmixed, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  forest patches: %" PetscInt_FMT " separable (fast diagonalization or the class's dense factor), %" PetscInt_FMT " mixed (outer faces partly on the boundary, next to a re-entrant edge or corner: a dense factor each, %.1f MB in all, made on the host at set-up)\n", total - nmixed, nmixed,
                                     (double)nmixed * dg->pstride * dg->pstride * sizeof(PetscScalar) / 1e6));
  }
  {
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(vp->dm, &device));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  smoothing runs on the %s in %s, on %d MPI rank(s) of this level\n", device ? "GPU" : "host", vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION ? "float" : "double", ((DM_Brick *)vp->dm->data)->nactive));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
