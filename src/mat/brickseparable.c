/* The load vector and the L2 error for functions that are sums of products of 1D factors,
   f(x) = sum_t prod_d f_td(x_d). On a Cartesian brick the basis functions and the cell quadrature are tensor
   products, so the load vector of such an f is sum_t (b_t0 (x) b_t1 (x) b_t2) with 1D load vectors b_td: the
   factors are called O(cells per direction) times instead of once per quadrature point, and the N entries are
   products of tabulated numbers, formed on the GPU for VECCUDA vectors. The L2 error uses the same tables at the
   Gauss points. Quadrature and results equal DMBrickComputeLoadVector() and DMBrickComputeL2Error() (k + 2 Gauss
   points per direction) up to rounding. */
#include "brickelement.h"
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#  include <petscdevice_cuda.h>
#endif

typedef struct {
  PetscInt  k, n, nq;
  PetscReal x[BRICK_MAX_N + 2], w[BRICK_MAX_N + 2], B[(BRICK_MAX_N + 2) * BRICK_MAX_N], h[3];
} BrickSeparableQuadrature;

static PetscErrorCode BrickSeparableQuadratureSetUp(DM dm, BrickSeparableQuadrature *q)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  q->k  = brick->degree;
  q->n  = brick->degree + 1;
  q->nq = brick->degree + 2;
  PetscCall(BrickElementQuadrature(q->k, brick->nodes, q->nq, q->x, q->w, q->B));
  PetscCall(DMBrickCellSize_Private(dm, q->h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor (t, d) times the quadrature weight and cell width at the Gauss points of cell c: v[q] */
static PetscErrorCode BrickSeparableCellValues(DM dm, const BrickSeparableQuadrature *q, DMBrickSeparableFunction f, void *ctx, PetscInt t, PetscInt d, PetscInt c, PetscBool weighted, PetscScalar v[])
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < q->nq; i++) {
    PetscCall((*f)(t, d, brick->lower[d] + q->h[d] * (c + q->x[i]), &v[i], ctx));
    if (weighted) v[i] *= q->w[i] * q->h[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickSeparableCheck(DM dm, PetscInt nterms, DMBrickSeparableFunction f)
{
  PetscFunctionBegin;
  PetscCheck(nterms >= 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "nterms %" PetscInt_FMT ": a separable function needs at least one term", nterms);
  PetscCheck(f, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_NULL, "the separable function is NULL");
  PetscCheck(!((DM_Brick *)dm->data)->forest, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "The separable load vector and L2 error are not implemented on forests (-dm_brick_remove, -dm_brick_periodic, -dm_brick_partition p4est) yet: use DMBrickComputeLoadVector() and DMBrickComputeL2Error() with a point function");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   DMBrickComputeLoadVectorSeparable - the load vector b_i = int f phi_i of a right-hand side that is a sum of products
   of 1D functions, f(x) = sum_{t < nterms} prod_{d < dim} f(t, d, x_d)

   Collective

   Input Parameters:
+  dm     - the brick (CG or DG)
.  nterms - the number of terms (at least 1)
.  f      - the factors: f(t, d, x_d, &value, ctx) is the factor of term t along direction d
-  ctx    - their context

   Output Parameter:
.  b - the global load vector

   Notes:
   The same vector as `DMBrickComputeLoadVector()` (k + 2 Gauss points per direction) up to rounding, at the cost of
   O(nterms cells^(1/dim)) calls of f and O(nterms N) products. For VECCUDA vectors the products are formed on the
   GPU and only the 1D tables are copied to it.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickComputeLoadVector()`, `DMBrickComputeL2ErrorSeparable()`
@*/
PetscErrorCode DMBrickComputeLoadVectorSeparable(DM dm, PetscInt nterms, DMBrickSeparableFunction f, void *ctx, Vec b)
{
  DM_Brick                *brick;
  BrickSeparableQuadrature q;
  PetscInt                 W[3] = {1, 1, 1}, first[3] = {0, 0, 0}, len[3] = {1, 1, 1}, np, nloc, n;
  PetscScalar             *tab, v[BRICK_MAX_N + 2];
  PetscBool                dg, device;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscValidHeaderSpecific(b, VEC_CLASSID, 5);
  PetscCall(BrickSeparableCheck(dm, nterms, f));
  PetscCall(PetscLogEventBegin(DMBRICK_LoadVector, dm, b, 0, 0));
  PetscCall(BrickSeparableQuadratureSetUp(dm, &q));
  dg = (PetscBool)(brick->family == DMBRICK_DG);
  n  = dg ? q.n : 1; /* table entries per cell (DG) or per node (CG) */
  if (brick->cend[0] > brick->cstart[0]) {
    for (PetscInt d = 0; d < brick->dim; d++) {
      /* DG: the owned cells; CG: the owned nodes (the DMDA's), full-grid indices first[d] .. first[d] + W[d] - 1 */
      first[d] = dg ? brick->cstart[d] : brick->ostart[d] + 1;
      W[d]     = dg ? brick->cend[d] - brick->cstart[d] : brick->owidth[d];
      len[d]   = W[d] * n;
    }
  } else W[0] = W[1] = W[2] = 0;
  np = brick->dim == 3 ? n * n * n : n * n;
  PetscCall(VecGetLocalSize(b, &nloc));
  PetscCheck(nloc == W[0] * W[1] * W[2] * np, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "the vector has %" PetscInt_FMT " local entries, the brick %" PetscInt_FMT ": pass a global vector of this brick", nloc, W[0] * W[1] * W[2] * np);
  PetscCall(PetscCalloc1(nterms * (len[0] + len[1] + len[2]), &tab));
  for (PetscInt t = 0; t < nterms; t++) {
    if (brick->dim == 2) tab[BrickSeparableOffset(len, t, 2)] = 1.0;
    for (PetscInt d = 0; d < brick->dim && W[0]; d++) {
      PetscScalar   *td = tab + BrickSeparableOffset(len, t, d);
      const PetscInt c0 = dg ? first[d] : (first[d] - 1) / q.k, c1 = dg ? first[d] + W[d] - 1 : PetscMin((first[d] + W[d] - 1) / q.k, brick->cells[d] - 1);
      for (PetscInt c = c0; c <= c1; c++) {
        PetscCall(BrickSeparableCellValues(dm, &q, f, ctx, t, d, c, PETSC_TRUE, v));
        for (PetscInt j = 0; j < q.n; j++) {
          /* the cell's 1D load on its node j: DG its own entry, CG the shared node c k + j if this rank owns it */
          const PetscInt e = dg ? (c - first[d]) * n + j : c * q.k + j - first[d];
          PetscScalar    s = 0.0;
          if (!dg && (e < 0 || e >= W[d])) continue;
          for (PetscInt i = 0; i < q.nq; i++) s += v[i] * q.B[i * q.n + j];
          td[e] += s;
        }
      }
    }
  }
  PetscCall(DMBrickVecsOnDevice_Private(b, NULL, &device));
  if (device) {
#if defined(VP_HAVE_CUDA)
    PetscScalar *ba;
    int          Wi[3] = {(int)W[0], (int)W[1], (int)W[2]}, err;
    PetscCall(VecCUDAGetArrayWrite(b, &ba));
    err = VPCudaSeparableFill((int)brick->dim, (int)n, Wi, (int)nterms, tab, ba);
    PetscCall(VecCUDARestoreArrayWrite(b, &ba));
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaSeparableFill: %s", VPCudaErrorString(err));
#endif
  } else {
    PetscScalar *ba;
    PetscInt     e = 0;
    PetscCall(VecGetArrayWrite(b, &ba));
    for (PetscInt cz = 0; cz < W[2]; cz++)
      for (PetscInt cy = 0; cy < W[1]; cy++)
        for (PetscInt cx = 0; cx < W[0]; cx++)
          for (PetscInt p = 0; p < np; p++, e++) {
            const PetscInt c[3] = {cx, cy, cz}, i[3] = {p % n, (p / n) % n, p / (n * n)};
            PetscScalar    s    = 0.0;
            for (PetscInt t = 0; t < nterms; t++) {
              PetscScalar prod = 1.0;
              for (PetscInt d = 0; d < brick->dim; d++) prod *= tab[BrickSeparableOffset(len, t, d) + c[d] * n + i[d]];
              s += prod;
            }
            ba[e] = s;
          }
    PetscCall(VecRestoreArrayWrite(b, &ba));
  }
  PetscCall(PetscFree(tab));
  PetscCall(DMBrickSubtractBoundaryLift_Private(dm, b)); /* boundary data (DMBrickSetBoundaryFunction()): lifted on the host */
  PetscCall(PetscLogEventEnd(DMBRICK_LoadVector, dm, b, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   DMBrickComputeL2ErrorSeparable - the L2 norm of u_h - u for an exact solution that is a sum of products of 1D
   functions, u(x) = sum_{t < nterms} prod_{d < dim} u(t, d, x_d)

   Collective

   Input Parameters:
+  dm     - the brick (CG or DG)
.  uh     - the global vector
.  nterms - the number of terms (at least 1)
.  u      - the factors: u(t, d, x_d, &value, ctx) is the factor of term t along direction d
-  ctx    - their context

   Output Parameter:
.  error - || u_h - u ||_L2

   Notes:
   The same quadrature as `DMBrickComputeL2Error()` (k + 2 Gauss points per direction), with the factors called
   O(nterms cells^(1/dim)) times. For VECCUDA vectors the cells are summed on the GPU.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickComputeL2Error()`, `DMBrickComputeLoadVectorSeparable()`
@*/
PetscErrorCode DMBrickComputeL2ErrorSeparable(DM dm, Vec uh, PetscInt nterms, DMBrickSeparableFunction u, void *ctx, PetscReal *error)
{
  DM_Brick                *brick;
  BrickSeparableQuadrature q;
  PetscInt                 W[3] = {0, 0, 0}, len[3] = {1, 1, 1};
  PetscScalar             *tab;
  PetscReal                sum = 0.0;
  PetscBool                device;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscValidHeaderSpecific(uh, VEC_CLASSID, 2);
  PetscCall(BrickSeparableCheck(dm, nterms, u));
  PetscCall(PetscLogEventBegin(DMBRICK_L2Error, dm, uh, 0, 0));
  PetscCall(BrickSeparableQuadratureSetUp(dm, &q));
  if (brick->cend[0] > brick->cstart[0])
    for (PetscInt d = 0; d < brick->dim; d++) {
      W[d]   = brick->cend[d] - brick->cstart[d];
      len[d] = W[d] * q.nq;
    }
  /* the factors (unweighted) at the Gauss points of the owned cells */
  PetscCall(PetscCalloc1(nterms * (len[0] + len[1] + len[2]), &tab));
  for (PetscInt t = 0; t < nterms; t++) {
    if (brick->dim == 2) tab[BrickSeparableOffset(len, t, 2)] = 1.0;
    for (PetscInt d = 0; d < brick->dim; d++)
      for (PetscInt c = 0; c < W[d]; c++) PetscCall(BrickSeparableCellValues(dm, &q, u, ctx, t, d, brick->cstart[d] + c, PETSC_FALSE, tab + BrickSeparableOffset(len, t, d) + c * q.nq));
  }
  PetscCall(DMBrickVecsOnDevice_Private(uh, NULL, &device));
  PetscCheck(!device || !brick->bc, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMBrickComputeL2ErrorSeparable() of device vectors with boundary data (DMBrickSetBoundaryFunction(), -bc): not implemented on the GPU yet; use DMBrickComputeL2Error() (host), or host vectors");
  if (device) {
#if defined(VP_HAVE_CUDA)
    VPCudaSeparableL2Data g;
    const PetscScalar    *ua;
    Vec                   ul = NULL;
    double                s;
    int                   err;
    PetscCall(PetscMemzero(&g, sizeof(g)));
    g.dim    = (int)brick->dim;
    g.k      = (int)q.k;
    g.nterms = (int)nterms;
    g.dg     = brick->family == DMBRICK_DG;
    for (PetscInt d = 0; d < 3; d++) {
      const PetscBool ghosted = (PetscBool)(brick->nactive > 1);
      g.cells[d]              = d < brick->dim ? (int)W[d] : 1;
      g.c0[d]                 = d < brick->dim ? (int)brick->cstart[d] : 0;
      g.gcells[d]             = d < brick->dim ? (int)brick->cells[d] : 1;
      g.lo[d]                 = d < brick->dim ? (int)(ghosted ? brick->gstart[d] : brick->ostart[d]) : 0;
      g.m[d]                  = d < brick->dim ? (int)(ghosted ? brick->gwidth[d] : brick->owidth[d]) : 1;
      for (PetscInt i = 0; i < q.nq; i++) g.w[d][i] = d < brick->dim ? q.w[i] * q.h[d] : 1.0;
    }
    for (PetscInt i = 0; i < q.nq * q.n; i++) g.B[i] = q.B[i];
    if (!g.dg && brick->nactive > 1) { /* CG on several ranks: the cells need the ghost nodes */
      PetscCall(DMGetLocalVector(dm, &ul));
      PetscCall(DMGlobalToLocal(dm, uh, INSERT_VALUES, ul));
    }
    PetscCall(VecCUDAGetArrayRead(ul ? ul : uh, &ua));
    err = W[0] ? VPCudaSeparableL2Error(&g, ua, tab, &s) : 0;
    PetscCall(VecCUDARestoreArrayRead(ul ? ul : uh, &ua));
    if (ul) PetscCall(DMRestoreLocalVector(dm, &ul));
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaSeparableL2Error: %s", VPCudaErrorString(err));
    sum = W[0] ? (PetscReal)s : 0.0;
#endif
  } else PetscCall(DMBrickL2ErrorSum_Private(dm, uh, NULL, NULL, nterms, tab, &sum));
  PetscCall(PetscFree(tab));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)dm)));
  *error = PetscSqrtReal(sum);
  PetscCall(PetscLogEventEnd(DMBRICK_L2Error, dm, uh, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
