static const char help[] = "Checks PCVERTEXPATCH on one rank against explicit dense formulas on a tiny mesh: every schedule, ordering,\n"
                           "residual and local solver equals the sequential patch-by-patch Gauss-Seidel sweep (or the additive sum) in\n"
                           "the same patch order, computed with the assembled matrix and Gaussian elimination on each patch.\n"
                           "With -dm_brick_operator c0ip the exact (dense) local solver is checked that way, and the fast-diagonalization\n"
                           "solver against the dense factorization of the separable patch matrix (seed 000, eq. 28/29).\n"
                           "Options: -dim 2|3, -degree k, -cells Nx,Ny[,Nz].\n";

#include "checks.h"
#include "pc/vertexpatch/vpimpl.h" /* the processing order the setup made (CheckProcessingOrder) */
#include <string.h>

typedef struct {
  PetscInt     dim, k, N[3], M[3], nv, (*v)[3]; /* cells, interior nodes, vertices */
  PetscInt     n;                               /* DoFs */
  PetscScalar *A;                               /* dense operator, row-major */
} Dense;

/* cells, interior nodes and interior vertices of a dim-D grid of Q_k cells */
static void DenseSizes(Dense *D, PetscInt dim, PetscInt k, const PetscInt cells[])
{
  D->dim = dim;
  D->k   = k;
  D->nv  = 1;
  for (PetscInt d = 0; d < 3; d++) {
    D->N[d] = d < dim ? cells[d] : 1;
    D->M[d] = d < dim ? k * cells[d] - 1 : 1;
    if (d < dim) D->nv *= cells[d] - 1;
  }
}

/* global (natural = one-rank DMDA) index of full-grid node f */
static PetscInt NodeIndex(const Dense *D, const PetscInt f[3])
{
  return (f[0] - 1) + D->M[0] * ((f[1] - 1) + (D->dim == 3 ? D->M[1] * (f[2] - 1) : 0));
}

/* interior DoFs of the patch of vertex v */
static PetscInt PatchDofs(const Dense *D, const PetscInt v[3], PetscInt idx[])
{
  PetscInt n = 0, k = D->k, zlo = D->dim == 3 ? (v[2] - 1) * k + 1 : 1, zhi = D->dim == 3 ? (v[2] + 1) * k - 1 : 1;

  for (PetscInt z = zlo; z <= zhi; z++)
    for (PetscInt y = (v[1] - 1) * k + 1; y <= (v[1] + 1) * k - 1; y++)
      for (PetscInt x = (v[0] - 1) * k + 1; x <= (v[0] + 1) * k - 1; x++) {
        const PetscInt f[3] = {x, y, z};
        idx[n++]            = NodeIndex(D, f);
      }
  return n;
}

/* delta = omega A_JJ^-1 (b - A x)_J for the patch of vertex v */
static void PatchCorrection(const Dense *D, const PetscInt v[3], const PetscScalar *x, const PetscScalar *b, PetscReal omega, PetscInt idx[], PetscScalar delta[], PetscInt *m)
{
  PetscScalar S[125 * 125];

  *m = PatchDofs(D, v, idx);
  for (PetscInt i = 0; i < *m; i++) {
    PetscScalar r = b[idx[i]];
    for (PetscInt j = 0; j < D->n; j++) r -= D->A[idx[i] * D->n + j] * x[j];
    delta[i] = r;
    for (PetscInt j = 0; j < *m; j++) S[i * *m + j] = D->A[idx[i] * D->n + idx[j]];
  }
  GaussSolve(*m, S, delta);
  for (PetscInt i = 0; i < *m; i++) delta[i] *= omega;
}

/* x <- the sequential sweep over the patches in the given order */
static void Sweep(const Dense *D, const PetscInt order[], PetscInt norder, const PetscScalar *b, PetscReal omega, PetscScalar *x)
{
  PetscInt    idx[125], m;
  PetscScalar delta[125];

  for (PetscInt p = 0; p < norder; p++) {
    PatchCorrection(D, D->v[order[p]], x, b, omega, idx, delta, &m);
    for (PetscInt i = 0; i < m; i++) x[idx[i]] += delta[i];
  }
}

/* y <- x + omega sum_j R_j^T A_JJ^-1 R_j (b - A x) */
static void Additive(const Dense *D, const PetscScalar *b, PetscReal omega, const PetscScalar *x, PetscScalar *y)
{
  PetscInt    idx[125], m;
  PetscScalar delta[125];

  for (PetscInt i = 0; i < D->n; i++) y[i] = x[i];
  for (PetscInt p = 0; p < D->nv; p++) {
    PatchCorrection(D, D->v[p], x, b, omega, idx, delta, &m);
    for (PetscInt i = 0; i < m; i++) y[idx[i]] += delta[i];
  }
}

/* the smoother's coloring, written out: parity classes, split red-black for operators reading face
   neighbours (c0ip) */
static PetscInt redblack_dim = 0; /* dim when the operator needs red-black, else 0 */

static PetscInt Color(const PetscInt v[3])
{
  PetscInt c = (v[0] & 1) | ((v[1] & 1) << 1) | ((v[2] & 1) << 2);
  if (redblack_dim) c |= (((v[0] / 2) + (v[1] / 2) + (v[2] / 2)) % 2) << redblack_dim;
  return c;
}

static PetscInt64 Morton(const PetscInt v[3])
{
  PetscInt64 key = 0;
  for (int bit = 0; bit < 20; bit++)
    for (int d = 0; d < 3; d++) key |= (PetscInt64)((v[d] >> bit) & 1) << (3 * bit + d);
  return key;
}

static PetscInt TrailingZeros(const Dense *D, const PetscInt v[3])
{
  PetscInt tz = 62;
  for (PetscInt d = 0; d < D->dim; d++) {
    PetscInt t = 0;
    while (!((v[d] >> t) & 1)) t++;
    tz = PetscMin(tz, t);
  }
  return tz;
}

/* patch orders by name: "lex", "colored-lex", "colored-zcurve", "zcurve", "hierarchical", "batched-2" */
static PetscInt64 OrderKey(const Dense *D, const char *name, PetscInt p)
{
  const PetscInt *v = D->v[p];
  PetscBool       is;

  PetscCall(PetscStrbeginswith(name, "zcurve", &is));
  if (is) return Morton(v);
  PetscCall(PetscStrcmp(name, "hierarchical", &is));
  if (is) return ((PetscInt64)(62 - TrailingZeros(D, v)) << 56) | Morton(v);
  PetscCall(PetscStrbeginswith(name, "colored-hierarchical", &is));
  if (is) return ((PetscInt64)Color(v) << 59) | ((PetscInt64)(31 - TrailingZeros(D, v)) << 54) | Morton(v);
  PetscCall(PetscStrcmp(name, "colored-zcurve", &is));
  if (is) return ((PetscInt64)Color(v) << 58) | Morton(v);
  PetscCall(PetscStrbeginswith(name, "colored-lex", &is));
  if (is) return ((PetscInt64)Color(v) << 58) | p;
  return p; /* lex */
}

static void MakeOrder(const Dense *D, const char *name, PetscInt order[])
{
  PetscInt64 *keys = (PetscInt64 *)malloc(sizeof(PetscInt64) * D->nv);
  PetscBool   batched;

  for (PetscInt p = 0; p < D->nv; p++) {
    order[p] = p;
    PetscCallVoid(PetscStrbeginswith(name, "batched", &batched));
    keys[p] = OrderKey(D, batched ? (strstr(name, "hierarchical") ? "colored-hierarchical" : "colored-lex") : name, p);
  }
  for (PetscInt i = 1; i < D->nv; i++) /* insertion sort: stable */
    for (PetscInt j = i; j > 0 && keys[order[j - 1]] > keys[order[j]]; j--) {
      PetscInt t   = order[j];
      order[j]     = order[j - 1];
      order[j - 1] = t;
    }
  {
    PetscBool reverse;
    PetscCallVoid(PetscStrendswith(name, "-reverse", &reverse));
    if (reverse)
      for (PetscInt i = 0; i < D->nv / 2; i++) {
        PetscInt t           = order[i];
        order[i]             = order[D->nv - 1 - i];
        order[D->nv - 1 - i] = t;
      }
  }
  if (batched) { /* batches of 2 patches per color; batch b of all colors before batch b+1 */
    PetscInt *tmp = (PetscInt *)malloc(sizeof(PetscInt) * D->nv), n = 0, start[17] = {0}, ncolors = 1 << (D->dim + (redblack_dim ? 1 : 0));
    for (PetscInt p = 0; p < D->nv; p++) start[Color(D->v[order[p]]) + 1]++;
    for (PetscInt c = 0; c < ncolors; c++) start[c + 1] += start[c];
    for (PetscInt b = 0; n < D->nv; b++)
      for (PetscInt c = 0; c < ncolors; c++)
        for (PetscInt p = start[c] + 2 * b; p < PetscMin(start[c] + 2 * b + 2, start[c + 1]); p++) tmp[n++] = order[p];
    for (PetscInt p = 0; p < D->nv; p++) order[p] = tmp[p];
    free(tmp);
  }
  free(keys);
}

static PetscErrorCode SetOptions(const char *opts)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_schedule"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_ordering"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_residual"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_local_solver"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_damping"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_batch_size"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_precision"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vertexpatch_reverse"));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscFunctionReturn(0);
}

/* The order the setup puts the patches in. Within a color of the colored schedule the order does not change the
   result (the patches of a color are independent), so the sweeps cannot see it: check it directly, on a brick
   with enough patches per color (9 x 9 or 7 x 7 x 7 cells) that the orderings differ. */
/* The lattice boxes of the schedule (cuda/vpatch_cuda.h) against a brute-force enumeration: every size 0..5 per
   direction, step 1 and 2, all points and both checkerboard halves: the count, and the vertex of each position in
   lexicographic order. */
static PetscErrorCode CheckPatchBoxes(void)
{
  PetscInt boxes = 0, bad = 0;

  PetscFunctionBeginUser;
  for (int n2 = 0; n2 <= 5; n2++)
    for (int n1 = 0; n1 <= 5; n1++)
      for (int n0 = 0; n0 <= 5; n0++)
        for (int cb = -1; cb <= 1; cb++)
          for (int step = 1; step <= 2; step++) {
            const VPCudaPatchBox box = {7, {3, 1, 2}, step, {n0, n1, n2}, cb};
            int                  q   = 0;
            for (int l = 0; l < n2; l++)
              for (int j = 0; j < n1; j++)
                for (int i = 0; i < n0; i++) {
                  int v[3];
                  if (cb >= 0 && (i + j + l) % 2 != cb) continue;
                  VPCudaPatchBoxVertex(&box, q++, v);
                  bad += v[0] != 3 + step * i || v[1] != 1 + step * j || v[2] != 2 + step * l;
                }
            bad += q != (n0 && n1 && n2 ? VPCudaPatchBoxCount(&box) : 0);
            boxes++;
          }
  {
    /* a list of four boxes and the sentinel (a checkerboard with rows of no point among them): patch p of the list is
       in its box, and a cursor started anywhere walks the same vertices */
    VPCudaPatchBox list[5] = {{0, {1, 1, 0}, 2, {3, 2, 1}, -1}, {0, {2, 1, 3}, 2, {4, 3, 5}, 1}, {0, {4, 2, 1}, 1, {5, 2, 1}, 0}, {0, {1, 1, 1}, 2, {1, 3, 2}, 1}, {0, {0, 0, 0}, 0, {0, 0, 0}, 0}};
    int            np = 0, at[4] = {0, 0, 0, 0};
    for (int b = 0; b < 4; b++) {
      list[b].first = at[b] = np;
      np += VPCudaPatchBoxCount(&list[b]);
    }
    list[4].first = np;
    bad += np != 44;
    for (int p = 0; p < np; p++) {
      int v[3], w[3], b = 3;
      while (at[b] > p) b--;
      VPCudaPatchVertex(list, 4, p, v);
      VPCudaPatchBoxVertex(&list[b], p - at[b], w);
      bad += v[0] != w[0] || v[1] != w[1] || v[2] != w[2];
    }
    for (int p0 = 0; p0 < np; p0 += 5) {
      VPCudaPatchCursor c;
      VPCudaPatchCursorInit(&c, list, 4, p0);
      for (int p = p0; p < np; p++, VPCudaPatchCursorNext(&c)) {
        int v[3];
        VPCudaPatchVertex(list, 4, p, v);
        bad += v[0] != c.v[0] || v[1] != c.v[1] || v[2] != c.v[2];
      }
      bad += c.b != 4; /* on the sentinel */
    }
  }
  PetscCall(CheckTrue(bad ? "patch boxes: wrong vertices or counts" : "patch boxes: counts and vertices of every box of up to 5 points per direction = brute force; a list and its cursor", (PetscBool)(bad == 0)));
  (void)boxes;
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckProcessingOrder(PetscInt dim, PetscInt k, const char *opts, const char *order)
{
  const PetscInt  cells[3] = {9, 9, 7};
  const PetscReal lo[3] = {0, 0, 0}, up[3] = {1, 1, 1};
  DM              dm;
  Mat             A;
  PC              pc;
  PC_VertexPatch *vp;
  Dense           D;
  PetscInt       *ord, *lex, wrong = 0, differ = 0, p = 0;
  char            what[256];

  PetscFunctionBeginUser;
  PetscCall(SetOptions(opts));
  PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMBrickSetDimension(dm, dim));
  PetscCall(DMBrickSetCells(dm, cells));
  PetscCall(DMBrickSetDomain(dm, lo, up));
  PetscCall(DMBrickSetDegree(dm, k));
  PetscCall(DMSetFromOptions(dm)); /* -dm_brick_operator */
  PetscCall(DMSetUp(dm));
  PetscCall(DMBrickCreateOperator(dm, MATSHELL, &A));
  PetscCall(PetscMemzero(&D, sizeof(D)));
  DenseSizes(&D, dim, k, cells);
  PetscCall(PetscMalloc3(D.nv, &D.v, D.nv, &ord, D.nv, &lex));
  for (PetscInt z = 1; z < (dim == 3 ? cells[2] : 2); z++)
    for (PetscInt y = 1; y < cells[1]; y++)
      for (PetscInt x = 1; x < cells[0]; x++, p++) {
        D.v[p][0] = x;
        D.v[p][1] = y;
        D.v[p][2] = dim == 3 ? z : 0;
      }
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, "vertexpatch"));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  vp = (PC_VertexPatch *)pc->data;
  MakeOrder(&D, order, ord);
  MakeOrder(&D, "colored-lex", lex);
  for (p = 0; p < D.nv; p++) {
    differ += ord[p] != lex[p];
    PetscInt v[3];
    PCVertexPatchGetVertex(vp, p, v);
    for (PetscInt d = 0; d < dim; d++) wrong += v[d] != D.v[ord[p]][d];
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " [%s] processes the %" PetscInt_FMT " patches in %s order (wrong coordinates: %" PetscInt_FMT ")", dim, k, opts, D.nv, order, wrong));
  PetscCall(CheckTrue(what, (PetscBool)(vp->npatches == D.nv && wrong == 0)));
  if (strcmp(order, "colored-lex")) {
    /* the check can fail: on this mesh the expected order is not the default one */
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " %s order differs from colored-lex at %" PetscInt_FMT " of %" PetscInt_FMT " positions", dim, k, order, differ, D.nv));
    PetscCall(CheckTrue(what, (PetscBool)(differ > 0)));
  }
  PetscCall(PetscFree3(D.v, ord, lex));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

/* one PC configuration: PCApply (a sweep from zero) and PCApplyRichardson (one sweep from x0) vs the formulas */
static PetscErrorCode CheckVariant(DM dm, Mat A, const Dense *D, const char *opts, const char *order, PetscReal omega, PetscBool additive, PetscReal tol, Vec b, Vec x0, PetscErrorCode (*configure)(PC))
{
  PC                          pc;
  Vec                         y, w, e;
  PetscScalar                *ref, *ya, *xz;
  const PetscScalar          *ba, *xa;
  PetscInt                   *ord;
  PetscReal                   err = 0.0, nrm;
  char                        what[256];
  PCRichardsonConvergedReason reason;
  PetscInt                    its;

  PetscFunctionBeginUser;
  PetscCall(SetOptions(opts));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, "vertexpatch"));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCSetFromOptions(pc));
  if (configure) PetscCall((*configure)(pc)); /* the same configuration through the PCVertexPatchSet* functions */
  PetscCall(PCSetUp(pc));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecDuplicate(b, &w));
  PetscCall(VecDuplicate(b, &e));
  PetscCall(PetscMalloc3(D->n, &ref, D->n, &xz, D->nv, &ord));
  MakeOrder(D, order, ord);
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArrayRead(x0, &xa));
  for (PetscInt r = 0; r < 2; r++) {
    /* r = 0: PCApply, a sweep from zero; r = 1: one Richardson sweep from x0 */
    for (PetscInt i = 0; i < D->n; i++) xz[i] = r ? xa[i] : 0.0;
    if (additive) Additive(D, ba, omega, xz, ref);
    else {
      for (PetscInt i = 0; i < D->n; i++) ref[i] = xz[i];
      Sweep(D, ord, D->nv, ba, omega, ref);
    }
    if (r == 0) PetscCall(PCApply(pc, b, y));
    else {
      PetscCall(VecCopy(x0, y));
      PetscCall(PCApplyRichardson(pc, b, y, w, 0.0, 0.0, 0.0, 1, PETSC_FALSE, &its, &reason));
    }
    PetscCall(VecGetArray(e, &ya));
    for (PetscInt i = 0; i < D->n; i++) ya[i] = ref[i];
    PetscCall(VecRestoreArray(e, &ya));
    PetscCall(RelativeDifference(y, e, &err));
    PetscCall(VecNorm(e, NORM_2, &nrm));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " %s [%s] = explicit %s order, %s", D->dim, D->k, r ? "PCApplyRichardson" : "PCApply", configure ? "PCVertexPatchSet* functions" : opts, order,
                            additive ? "additive sum" : "sequential sweep"));
    PetscCall(CheckLessThan(what, err, tol));
  }
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(VecRestoreArrayRead(x0, &xa));
  PetscCall(PetscFree3(ref, xz, ord));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&e));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(0);
}

/* settings changed after setup take effect: set up with the defaults, then switch to dense and damping 0.5,
   through the options database or through the PCVertexPatchSet* functions */
static PetscErrorCode CheckReconfigure(DM dm, Mat A, const Dense *D, Vec b, PetscBool api)
{
  PC                 pc;
  Vec                y, e;
  PetscScalar       *ref, *ea;
  const PetscScalar *ba;
  PetscInt          *ord;
  PetscReal          err = 0.0;

  PetscFunctionBeginUser;
  PetscCall(SetOptions(""));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, "vertexpatch"));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  if (api) {
    PetscCall(PCVertexPatchSetLocalSolver(pc, PC_VERTEXPATCH_DENSE));
    PetscCall(PCVertexPatchSetDamping(pc, 0.5));
  } else {
    PetscCall(SetOptions("-pc_vertexpatch_local_solver dense -pc_vertexpatch_damping 0.5"));
    PetscCall(PCSetFromOptions(pc));
  }
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecDuplicate(b, &e));
  PetscCall(PCApply(pc, b, y));
  PetscCall(PetscMalloc2(D->n, &ref, D->nv, &ord));
  MakeOrder(D, "colored-lex", ord);
  for (PetscInt i = 0; i < D->n; i++) ref[i] = 0.0;
  PetscCall(VecGetArrayRead(b, &ba));
  Sweep(D, ord, D->nv, ba, 0.5, ref);
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(VecGetArray(e, &ea));
  for (PetscInt i = 0; i < D->n; i++) ea[i] = ref[i];
  PetscCall(VecRestoreArray(e, &ea));
  PetscCall(RelativeDifference(y, e, &err));
  PetscCall(CheckLessThan(api ? "PCVertexPatchSetLocalSolver/SetDamping after PCSetUp (dense, damping 0.5) take effect" : "options changed after PCSetUp (dense, damping 0.5) take effect", err, 1e-12));
  PetscCall(PetscFree2(ref, ord));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&e));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(0);
}

/* configurations through the API, each equal to an options string checked above */
static PetscErrorCode ApiAdditiveGlobal(PC pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCVertexPatchSetType(pc, PC_VERTEXPATCH_ADDITIVE));
  PetscCall(PCVertexPatchSetResidual(pc, PC_VERTEXPATCH_RESIDUAL_GLOBAL));
  PetscCall(PCVertexPatchSetDamping(pc, 0.3));
  PetscFunctionReturn(0);
}
static PetscErrorCode ApiSingleZcurveReverse(PC pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCVertexPatchSetSchedule(pc, PC_VERTEXPATCH_SINGLE, PETSC_DEFAULT));
  PetscCall(PCVertexPatchSetOrdering(pc, PC_VERTEXPATCH_ZCURVE));
  PetscCall(PCVertexPatchSetReverse(pc, PETSC_TRUE));
  PetscFunctionReturn(0);
}
static PetscErrorCode ApiBatchedHierarchical(PC pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCVertexPatchSetSchedule(pc, PC_VERTEXPATCH_BATCHED, 2));
  PetscCall(PCVertexPatchSetOrdering(pc, PC_VERTEXPATCH_HIERARCHICAL));
  PetscFunctionReturn(0);
}
static PetscErrorCode ApiSinglePrecision(PC pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCVertexPatchSetPrecision(pc, PC_VERTEXPATCH_SINGLE_PRECISION));
  PetscCall(PCVertexPatchSetLocalSolver(pc, PC_VERTEXPATCH_FDM));
  PetscFunctionReturn(0);
}

/* PCApply and one Richardson sweep of two configurations agree (the fdm solver vs the dense factorization of
   the same separable patch matrix) */
static PetscErrorCode CheckSame(DM dm, Mat A, const char *opts1, const char *opts2, PetscReal tol, Vec b, Vec x0)
{
  PC       pc[2];
  Vec      y[2], w;
  PetscInt its;
  char     what[256];

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &w));
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(SetOptions(i ? opts2 : opts1));
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc[i]));
    PetscCall(PCSetType(pc[i], "vertexpatch"));
    PetscCall(PCSetOperators(pc[i], A, A));
    PetscCall(PCSetDM(pc[i], dm));
    PetscCall(PCSetFromOptions(pc[i]));
    PetscCall(PCSetUp(pc[i]));
    PetscCall(VecDuplicate(b, &y[i]));
  }
  for (PetscInt r = 0; r < 2; r++) {
    PetscReal                   err;
    PCRichardsonConvergedReason reason;
    for (PetscInt i = 0; i < 2; i++) {
      if (r == 0) PetscCall(PCApply(pc[i], b, y[i]));
      else {
        PetscCall(VecCopy(x0, y[i]));
        PetscCall(PCApplyRichardson(pc[i], b, y[i], w, 0.0, 0.0, 0.0, 1, PETSC_FALSE, &its, &reason));
      }
    }
    PetscCall(RelativeDifference(y[0], y[1], &err));
    PetscCall(PetscSNPrintf(what, sizeof(what), "c0ip %s [%s] = [%s]", r ? "PCApplyRichardson" : "PCApply", opts1, opts2));
    PetscCall(CheckLessThan(what, err, tol));
  }
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(PCDestroy(&pc[i]));
    PetscCall(VecDestroy(&y[i]));
  }
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(0);
}

/* The C0IP operator: exact patches (dense) against the explicit sweeps in every schedule, with the
   2^(d+1) red-black colors; fdm against the dense separable matrix; and fdm is not the exact solver. */
static PetscErrorCode CheckC0IP(DM dm, Mat A, const Dense *D, Vec b, Vec x0)
{
  const PetscReal mdef = D->dim == 3 ? 0.7 : 1.0, w = 1.0 / (1 << D->dim);
  char            opts[256];
  struct {
    const char *opts, *order;
    PetscReal   omega;
    PetscBool   additive;
  } cases[] = {
      {"", "colored-lex", mdef, PETSC_FALSE},
      {"-pc_vertexpatch_residual global", "colored-lex", mdef, PETSC_FALSE},
      {"-pc_vertexpatch_ordering zcurve", "colored-lex", mdef, PETSC_FALSE},
      {"-pc_vertexpatch_ordering hierarchical -pc_vertexpatch_damping 0.9", "colored-lex", 0.9, PETSC_FALSE},
      {"-pc_vertexpatch_schedule single", "lex", mdef, PETSC_FALSE},
      {"-pc_vertexpatch_reverse", "colored-lex-reverse", mdef, PETSC_FALSE},
      {"-pc_vertexpatch_schedule single -pc_vertexpatch_ordering zcurve -pc_vertexpatch_reverse", "zcurve-reverse", mdef, PETSC_FALSE},
      {"-pc_vertexpatch_schedule batched -pc_vertexpatch_batch_size 2", "batched-2", mdef, PETSC_FALSE},
      {"-pc_vertexpatch_schedule batched -pc_vertexpatch_batch_size 2 -pc_vertexpatch_ordering hierarchical", "batched-2-hierarchical", mdef, PETSC_FALSE},
      {"-pc_vertexpatch_type additive", "lex", w, PETSC_TRUE},
      {"-pc_vertexpatch_type additive -pc_vertexpatch_residual global", "lex", w, PETSC_TRUE},
      {"-pc_vertexpatch_type additive -pc_vertexpatch_damping 0.3", "lex", 0.3, PETSC_TRUE},
  };

  PetscFunctionBeginUser;
  redblack_dim = D->dim;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -pc_vertexpatch_local_solver dense", cases[i].opts));
    /* 1e-10: the biharmonic patch matrices are worse conditioned (h^-4), and the references use different
       eliminations (partial pivoting here, Cholesky in the smoother) */
    PetscCall(CheckVariant(dm, A, D, opts, cases[i].order, cases[i].omega, cases[i].additive, 1e-10, b, x0, NULL));
  }
  PetscCall(CheckReconfigure(dm, A, D, b, PETSC_TRUE));
  PetscCall(CheckSame(dm, A, "-pc_vertexpatch_local_solver fdm", "-pc_vertexpatch_local_solver separable_dense", 1e-12, b, x0));
  PetscCall(CheckSame(dm, A, "-pc_vertexpatch_local_solver fdm -pc_vertexpatch_residual global", "-pc_vertexpatch_local_solver separable_dense -pc_vertexpatch_residual global", 1e-12, b, x0));
  PetscCall(CheckSame(dm, A, "-pc_vertexpatch_type additive", "-pc_vertexpatch_type additive -pc_vertexpatch_local_solver separable_dense", 1e-12, b, x0));
  PetscCall(CheckSame(dm, A, "-pc_vertexpatch_precision single", "-pc_vertexpatch_local_solver separable_dense", 2e-4, b, x0)); /* float vs double on patches of condition ~1e4 */
  PetscCall(CheckSame(dm, A, "-pc_vertexpatch_precision single -pc_vertexpatch_type additive", "-pc_vertexpatch_type additive -pc_vertexpatch_local_solver separable_dense", 2e-4, b, x0));
  {
    /* the separable part is an approximation: the fdm sweep must differ from the exact one (else the mixed
       terms were lost in the exact patch matrix or kept in the separable one) */
    PC        pc[2];
    Vec       y[2];
    PetscReal err;
    for (PetscInt i = 0; i < 2; i++) {
      PetscCall(SetOptions(i ? "-pc_vertexpatch_local_solver dense" : ""));
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pc[i]));
      PetscCall(PCSetType(pc[i], "vertexpatch"));
      PetscCall(PCSetOperators(pc[i], A, A));
      PetscCall(PCSetDM(pc[i], dm));
      PetscCall(PCSetFromOptions(pc[i]));
      PetscCall(VecDuplicate(b, &y[i]));
      PetscCall(PCApply(pc[i], b, y[i]));
    }
    PetscCall(RelativeDifference(y[0], y[1], &err));
    PetscCall(CheckTrue("c0ip fdm (separable, eq. 28/29) differs from the exact patch solve by more than 1e-3", (PetscBool)(err > 1e-3)));
    for (PetscInt i = 0; i < 2; i++) {
      PetscCall(PCDestroy(&pc[i]));
      PetscCall(VecDestroy(&y[i]));
    }
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, k = 2, cells[3] = {4, 3, 3}, n = 3;
  DM          dm;
  Mat         A, Aaij, Ad;
  Vec         b, x0;
  PetscRandom rnd;
  Dense       D;
  PetscReal   lower[3] = {0.0, -0.5, 0.0}, upper[3] = {2.0, 0.5, 0.75}, w;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  {
    /* -no_brick: the smoother on a matrix that does not come from a brick must stop with a clear error */
    PetscBool nobrick = PETSC_FALSE, foreign = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-no_brick", &nobrick, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-foreign_pmat", &foreign, NULL));
    {
      PetscBool badsetter = PETSC_FALSE;
      PetscCall(PetscOptionsGetBool(NULL, NULL, "-bad_setter", &badsetter, NULL));
      if (badsetter) {
        PC pc;
        PetscCall(VPatchInitializePackage());
        PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
        PetscCall(PCSetType(pc, PCVERTEXPATCH));
        PetscCall(PCVertexPatchSetOrdering(pc, (PCVertexPatchOrdering)7));
        PetscCall(PCDestroy(&pc));
        PetscCall(PetscFinalize());
        return 0;
      }
    }
    if (foreign) { /* a copy of the brick's assembled operator, scaled: not the brick's operator */
      DM        dmf;
      Mat       Af, B;
      PC        pc;
      PetscInt  c2[3] = {3, 3, 1};
      PetscReal lo[3] = {0, 0, 0}, up[3] = {1, 1, 1};
      PetscCall(CreateBrick(2, c2, lo, up, 2, 0, &dmf));
      PetscCall(DMBrickCreateOperator(dmf, MATAIJ, &Af));
      PetscCall(MatDuplicate(Af, MAT_COPY_VALUES, &B));
      PetscCall(MatScale(B, 2.0));
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
      PetscCall(PCSetType(pc, "vertexpatch"));
      PetscCall(PCSetOperators(pc, B, B));
      PetscCall(PCSetDM(pc, dmf));
      PetscCall(PCSetUp(pc));
      PetscCall(PCDestroy(&pc));
      PetscCall(MatDestroy(&B));
      PetscCall(MatDestroy(&Af));
      PetscCall(DMDestroy(&dmf));
      PetscCall(PetscFinalize());
      return 0;
    }
    if (nobrick) {
      Mat B;
      PC  pc;
      PetscCall(VPatchInitializePackage());
      PetscCall(MatCreateConstantDiagonal(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 10, 10, 1.0, &B));
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
      PetscCall(PCSetType(pc, "vertexpatch"));
      PetscCall(PCSetOperators(pc, B, B));
      PetscCall(PCSetUp(pc));
      PetscCall(PCDestroy(&pc));
      PetscCall(MatDestroy(&B));
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-degree", &k, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &n, NULL));
  PetscCheck((dim == 2 ? (2 * k - 1) * (2 * k - 1) : (2 * k - 1) * (2 * k - 1) * (2 * k - 1)) <= 125, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-degree %" PetscInt_FMT ": the explicit reference sweeps handle patches of at most 125 DoFs (2D k <= 6, 3D k <= 3)", k);
  PetscCall(CreateBrick(dim, cells, lower, upper, k, 0, &dm));
  PetscCall(DMBrickCreateOperator(dm, MATSHELL, &A));
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &Aaij));
  PetscCall(MatConvert(Aaij, MATSEQDENSE, MAT_INITIAL_MATRIX, &Ad));

  DenseSizes(&D, dim, k, cells);
  D.n = D.M[0] * D.M[1] * D.M[2];
  PetscCall(PetscMalloc2(D.n * D.n, &D.A, D.nv, &D.v));
  {
    PetscScalar *a;
    PetscInt     p = 0;
    PetscCall(MatDenseGetArray(Ad, &a)); /* column-major */
    for (PetscInt i = 0; i < D.n; i++)
      for (PetscInt j = 0; j < D.n; j++) D.A[i * D.n + j] = a[i + j * D.n];
    PetscCall(MatDenseRestoreArray(Ad, &a));
    for (PetscInt z = 1; z <= (dim == 3 ? cells[2] - 1 : 1); z++)
      for (PetscInt y = 1; y < cells[1]; y++)
        for (PetscInt x = 1; x < cells[0]; x++, p++) {
          D.v[p][0] = x;
          D.v[p][1] = y;
          D.v[p][2] = dim == 3 ? z : 0;
        }
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x0));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecSetRandom(x0, rnd));

  w = 1.0 / (1 << dim);
  {
    const char *op;
    PetscBool   c0ip;
    PetscCall(DMBrickGetOperator(dm, &op));
    PetscCall(PetscStrcmp(op, "c0ip", &c0ip));
    redblack_dim = c0ip ? dim : 0;
    PetscCall(CheckPatchBoxes());
    PetscCall(CheckProcessingOrder(dim, k, "", "colored-lex"));
    PetscCall(CheckProcessingOrder(dim, k, "-pc_vertexpatch_schedule single", "lex"));
    PetscCall(CheckProcessingOrder(dim, k, "-pc_vertexpatch_ordering zcurve", "colored-zcurve"));
    PetscCall(CheckProcessingOrder(dim, k, "-pc_vertexpatch_ordering hierarchical", "colored-hierarchical"));
    PetscCall(CheckProcessingOrder(dim, k, "-pc_vertexpatch_schedule single -pc_vertexpatch_ordering zcurve", "zcurve"));
    PetscCall(CheckProcessingOrder(dim, k, "-pc_vertexpatch_schedule single -pc_vertexpatch_ordering hierarchical", "hierarchical"));
    if (c0ip) {
      PetscCall(CheckC0IP(dm, A, &D, b, x0));
      goto finish;
    }
  }
  PetscCall(CheckVariant(dm, A, &D, "", "colored-lex", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_local_solver dense", "colored-lex", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_residual global", "colored-lex", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_ordering zcurve", "colored-lex", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_ordering hierarchical -pc_vertexpatch_damping 0.7", "colored-lex", 0.7, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_schedule single", "lex", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_reverse", "colored-lex-reverse", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_schedule single -pc_vertexpatch_ordering zcurve -pc_vertexpatch_reverse", "zcurve-reverse", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_schedule single -pc_vertexpatch_ordering zcurve", "zcurve", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_schedule single -pc_vertexpatch_ordering hierarchical", "hierarchical", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_schedule batched -pc_vertexpatch_batch_size 2", "batched-2", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_schedule batched -pc_vertexpatch_batch_size 2 -pc_vertexpatch_ordering hierarchical", "batched-2-hierarchical", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_schedule batched -pc_vertexpatch_batch_size 2147483647", "colored-lex", 1.0, PETSC_FALSE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "", "lex", 0.3, PETSC_TRUE, 1e-12, b, x0, ApiAdditiveGlobal));
  PetscCall(CheckVariant(dm, A, &D, "", "zcurve-reverse", 1.0, PETSC_FALSE, 1e-12, b, x0, ApiSingleZcurveReverse));
  PetscCall(CheckVariant(dm, A, &D, "", "batched-2-hierarchical", 1.0, PETSC_FALSE, 1e-12, b, x0, ApiBatchedHierarchical));
  PetscCall(CheckVariant(dm, A, &D, "", "colored-lex", 1.0, PETSC_FALSE, 1e-5, b, x0, ApiSinglePrecision));
  PetscCall(CheckReconfigure(dm, A, &D, b, PETSC_FALSE));
  PetscCall(CheckReconfigure(dm, A, &D, b, PETSC_TRUE));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_type additive", "lex", w, PETSC_TRUE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_type additive -pc_vertexpatch_residual global -pc_vertexpatch_local_solver dense", "lex", w, PETSC_TRUE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_type additive -pc_vertexpatch_damping 0.3", "lex", 0.3, PETSC_TRUE, 1e-12, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_precision single", "colored-lex", 1.0, PETSC_FALSE, 1e-5, b, x0, NULL));
  PetscCall(CheckVariant(dm, A, &D, "-pc_vertexpatch_precision single -pc_vertexpatch_type additive", "lex", w, PETSC_TRUE, 1e-5, b, x0, NULL));

finish:
  PetscCall(PetscFree2(D.A, D.v));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aaij));
  PetscCall(MatDestroy(&Ad));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
