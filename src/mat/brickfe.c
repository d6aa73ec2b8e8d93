/* Finite element utilities on a brick: nodal interpolation of a function, the load vector of a right-hand
   side, and the L2 error against an exact solution. Quadrature: k+2 Gauss points per direction. */
#include "brickelement.h"

/* Physical coordinate of full-grid node f along d. */
static inline PetscReal BrickNodeCoordinate(const DM_Brick *brick, const PetscReal h[], PetscInt d, PetscInt f)
{
  const PetscInt c = PetscMin(f / brick->degree, brick->cells[d] - 1);
  return brick->lower[d] + h[d] * (c + brick->nodes[f - c * brick->degree]);
}

/*@C
   DMBrickInterpolateFunction - sets a global vector to the nodal interpolant of a function

   Collective

   Input Parameters:
+  dm  - the brick
.  f   - the function
-  ctx - its context

   Output Parameter:
.  u - the global vector of nodal values (CG: interior nodes; DG: every cell's Gauss-Lobatto points)

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickComputeL2Error()`
@*/
PetscErrorCode DMBrickInterpolateFunction(DM dm, DMBrickPointFunction f, void *ctx, Vec u)
{
  DM_Brick    *brick;
  BrickBox     box;
  PetscScalar *vals, *ua;
  PetscReal    h[3];
  PetscInt     b = 0;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(DMBrickCellSize_Private(dm, h));
  if (brick->family == DMBRICK_DG && !brick->forest) { /* cell by cell: the values at the cell's own Gauss-Lobatto points */
    const PetscInt n = brick->degree + 1;
    BrickBox       cells;
    PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
    PetscCall(VecGetArray(u, &ua));
    for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
      for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
        for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++) {
          const PetscInt cell[3] = {cx, cy, cz};
          for (PetscInt i = 0; i < brick->dof; i++, b++) {
            const PetscInt ii[3] = {i % n, (i / n) % n, i / (n * n)};
            PetscReal      X[3]  = {0, 0, 0};
            for (PetscInt d = 0; d < brick->dim; d++) X[d] = brick->lower[d] + h[d] * (cell[d] + brick->nodes[ii[d]]);
            PetscCall((*f)(brick->dim, X, &ua[b], ctx));
          }
        }
    PetscCall(VecRestoreArray(u, &ua));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (brick->forest) { /* every owned node is a node of one of the rank's cells (DG: a value of one) */
    const BrickForest *fo = brick->forest;
    const PetscInt     n  = brick->degree + 1;
    PetscCall(VecGetArray(u, &ua));
    for (PetscInt c = 0; c < fo->ncells; c++)
      for (PetscInt i = 0; i < fo->nv; i++) {
        const PetscInt ln = fo->node[c * fo->nv + i], ii[3] = {i % n, (i / n) % n, i / (n * n)};
        PetscReal      X[3] = {0, 0, 0};
        if (ln < 0 || ln >= fo->nowned) continue;
        for (PetscInt d = 0; d < brick->dim; d++) X[d] = brick->lower[d] + h[d] * (fo->ijk[3 * c + d] + brick->nodes[ii[d]]);
        PetscCall((*f)(brick->dim, X, &ua[ln], ctx));
      }
    PetscCall(VecRestoreArray(u, &ua));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMBrickOwnedNodeBox_Private(dm, &box));
  PetscCall(PetscMalloc1(BrickBoxSize(&box), &vals));
  for (PetscInt z = box.lo[2]; z <= box.hi[2]; z++)
    for (PetscInt y = box.lo[1]; y <= box.hi[1]; y++)
      for (PetscInt x = box.lo[0]; x <= box.hi[0]; x++, b++) {
        const PetscInt F[3] = {x, y, z};
        PetscReal      X[3] = {0, 0, 0};
        for (PetscInt d = 0; d < brick->dim; d++) X[d] = BrickNodeCoordinate(brick, h, d, F[d]);
        PetscCall((*f)(brick->dim, X, &vals[b], ctx));
      }
  PetscCall(VecGetArray(u, &ua));
  PetscCall(DMBrickBoxToGlobal_Private(dm, &box, vals, ua));
  PetscCall(VecRestoreArray(u, &ua));
  PetscCall(PetscFree(vals));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Quadrature data of one cell: physical points X[q][d] and weights, x fastest. */
typedef struct {
  PetscInt  nq, npts;
  PetscReal x[BRICK_MAX_N + 2], w[BRICK_MAX_N + 2], B[(BRICK_MAX_N + 2) * BRICK_MAX_N], Bt[BRICK_MAX_N * (BRICK_MAX_N + 2)];
  PetscReal h[3];
} BrickQuadrature;

static PetscErrorCode BrickQuadratureSetUp(DM dm, BrickQuadrature *q)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt n     = brick->degree + 1;

  PetscFunctionBegin;
  q->nq = brick->degree + 2;
  PetscCall(BrickElementQuadrature(brick->degree, brick->nodes, q->nq, q->x, q->w, q->B));
  for (PetscInt i = 0; i < q->nq; i++)
    for (PetscInt j = 0; j < n; j++) q->Bt[j * q->nq + i] = q->B[i * n + j];
  q->npts = brick->dim == 2 ? q->nq * q->nq : q->nq * q->nq * q->nq;
  PetscCall(DMBrickCellSize_Private(dm, q->h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Point p of the cell's quadrature: coordinates and weight times the cell volume. */
static inline void BrickQuadraturePoint(const DM_Brick *brick, const BrickQuadrature *q, const PetscInt cell[], PetscInt p, PetscReal X[], PetscReal *wJ)
{
  const PetscInt i[3] = {p % q->nq, (p / q->nq) % q->nq, p / (q->nq * q->nq)};

  *wJ  = 1.0;
  X[2] = 0.0;
  for (PetscInt d = 0; d < brick->dim; d++) {
    X[d] = brick->lower[d] + q->h[d] * (cell[d] + q->x[i[d]]);
    *wJ *= q->w[i[d]] * q->h[d];
  }
}

/* The rank's cells one by one, on a box or a forest: cell c's lattice position and its nodes' local indices */
PetscInt BrickFECellCount(const DM_Brick *brick, const BrickBox *cells)
{
  return brick->forest ? brick->forest->ncells : PetscMax(BrickBoxSize(cells), 0);
}

PetscErrorCode BrickFECell(DM dm, const BrickBox *cells, PetscInt c, PetscInt cell[], PetscInt idx[])
{
  const DM_Brick *brick = (const DM_Brick *)dm->data;

  PetscFunctionBegin;
  if (brick->forest) {
    for (PetscInt d = 0; d < 3; d++) cell[d] = brick->forest->ijk[3 * c + d];
    PetscCall(PetscArraycpy(idx, brick->forest->node + c * brick->forest->nv, brick->forest->nv));
  } else {
    const PetscInt w0 = cells->hi[0] - cells->lo[0] + 1, w1 = cells->hi[1] - cells->lo[1] + 1;
    cell[0] = cells->lo[0] + c % w0;
    cell[1] = cells->lo[1] + (c / w0) % w1;
    cell[2] = cells->lo[2] + c / (w0 * w1);
    PetscCall(BrickCellLocalIndices(dm, cell, idx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   DMBrickComputeLoadVector - the load vector b_i = int f phi_i of a right-hand side f

   Collective

   Input Parameters:
+  dm  - the brick
.  f   - the right-hand side
-  ctx - its context

   Output Parameter:
.  b - the global load vector

   Note:
   f is called at every Gauss point on the host; for a right-hand side that is a sum of products of 1D functions
   `DMBrickComputeLoadVectorSeparable()` is much cheaper, and runs on the GPU for VECCUDA vectors.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickComputeL2Error()`, `DMBrickComputeLoadVectorSeparable()`
@*/
PetscErrorCode DMBrickComputeLoadVector(DM dm, DMBrickPointFunction f, void *ctx, Vec b)
{
  DM_Brick       *brick;
  BrickQuadrature q;
  BrickBox        cells;
  Vec             bl;
  PetscScalar    *bla, F[1000], t1[1000], t2[1000], be[1000];
  PetscInt        idx[729], n;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(BrickQuadratureSetUp(dm, &q));
  PetscCall(PetscLogEventBegin(DMBRICK_LoadVector, dm, b, 0, 0));
  n = brick->degree + 1;
  PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(VecZeroEntries(bl));
  PetscCall(VecGetArray(bl, &bla));
  for (PetscInt ci = 0; ci < BrickFECellCount(brick, &cells); ci++) {
        PetscInt cell[3];
        PetscInt       ext[3]  = {q.nq, q.nq, brick->dim == 3 ? q.nq : 1}, nloc;
        PetscCall(BrickFECell(dm, &cells, ci, cell, idx));
        for (PetscInt p = 0; p < q.npts; p++) {
          PetscReal X[3], wJ;
          BrickQuadraturePoint(brick, &q, cell, p, X, &wJ);
          PetscCall((*f)(brick->dim, X, &F[p], ctx));
          F[p] *= wJ;
        }
        /* be = (B^T (x) B^T (x) B^T) F, one direction at a time */
        BrickTensorApply1D(0, ext, n, q.Bt, F, t1);
        ext[0] = n;
        BrickTensorApply1D(1, ext, n, q.Bt, t1, brick->dim == 2 ? be : t2);
        ext[1] = n;
        if (brick->dim == 3) BrickTensorApply1D(2, ext, n, q.Bt, t2, be);
        nloc = brick->dim == 2 ? n * n : n * n * n;
        for (PetscInt i = 0; i < nloc; i++)
          if (idx[i] >= 0) bla[idx[i]] += be[i];
  }
  PetscCall(VecRestoreArray(bl, &bla));
  PetscCall(VecZeroEntries(b));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscCall(DMBrickSubtractBoundaryLift_Private(dm, b)); /* boundary data (DMBrickSetBoundaryFunction()): lifted */
  PetscCall(PetscLogEventEnd(DMBRICK_LoadVector, dm, b, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rank's part of || u_h - u ||^2 over its owned cells. The exact solution is either a point function or
   (exact NULL) nterms separable terms tabulated at the Gauss points of the owned cells (brickseparable.c). */
PetscErrorCode DMBrickL2ErrorSum_Private(DM dm, Vec uh, DMBrickPointFunction exact, void *ctx, PetscInt nterms, const PetscScalar tab[], PetscReal *error2)
{
  DM_Brick          *brick;
  BrickQuadrature    q;
  BrickBox           cells;
  Vec                ul;
  const PetscScalar *ula;
  PetscScalar        ue[729], t1[1000], t2[1000], uq[1000];
  PetscInt           idx[729], n, len[3] = {1, 1, 1};
  PetscReal          sum = 0.0;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(BrickQuadratureSetUp(dm, &q));
  n = brick->degree + 1;
  PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
  for (PetscInt d = 0; d < brick->dim; d++) len[d] = (cells.hi[d] - cells.lo[d] + 1) * q.nq;
  PetscCall(DMGetLocalVector(dm, &ul));
  PetscCall(DMGlobalToLocal(dm, uh, INSERT_VALUES, ul));
  PetscCall(VecGetArrayRead(ul, &ula));
  PetscCheck(exact || !brick->forest, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "The separable L2 error is not implemented on forests yet: use DMBrickComputeL2Error() with a point function");
  for (PetscInt ci = 0; ci < BrickFECellCount(brick, &cells); ci++) {
        PetscInt cell[3];
        PetscInt       ext[3] = {n, n, brick->dim == 3 ? n : 1}, nloc = brick->dim == 2 ? n * n : n * n * n;
        PetscBool any;
        PetscCall(BrickFECell(dm, &cells, ci, cell, idx));
        PetscCall(DMBrickBoundaryCellValues_Private(dm, q.h, cell, idx, ue, &any)); /* g (or zero) at the Dirichlet nodes */
        for (PetscInt i = 0; i < nloc; i++)
          if (idx[i] >= 0) ue[i] = ula[idx[i]];
        BrickTensorApply1D(0, ext, q.nq, q.B, ue, t1);
        ext[0] = q.nq;
        BrickTensorApply1D(1, ext, q.nq, q.B, t1, brick->dim == 2 ? uq : t2);
        ext[1] = q.nq;
        if (brick->dim == 3) BrickTensorApply1D(2, ext, q.nq, q.B, t2, uq);
        for (PetscInt p = 0; p < q.npts; p++) {
          PetscReal   X[3], wJ;
          PetscScalar u = 0.0;
          BrickQuadraturePoint(brick, &q, cell, p, X, &wJ);
          if (exact) PetscCall((*exact)(brick->dim, X, &u, ctx));
          else {
            const PetscInt qi[3] = {p % q.nq, (p / q.nq) % q.nq, p / (q.nq * q.nq)};
            for (PetscInt t = 0; t < nterms; t++) {
              PetscScalar prod = 1.0;
              for (PetscInt d = 0; d < brick->dim; d++) prod *= tab[BrickSeparableOffset(len, t, d) + (cell[d] - cells.lo[d]) * q.nq + qi[d]];
              u += prod;
            }
          }
          sum += wJ * PetscRealPart((uq[p] - u) * PetscConj(uq[p] - u));
        }
  }
  PetscCall(VecRestoreArrayRead(ul, &ula));
  PetscCall(DMRestoreLocalVector(dm, &ul));
  *error2 = sum;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   DMBrickComputeL2Error - the L2 norm of u_h - u over the domain, for the finite element function u_h of a
   global vector and an exact solution u

   Collective

   Input Parameters:
+  dm    - the brick
.  uh    - the global vector (interior nodal values; boundary values are zero)
.  exact - the exact solution
-  ctx   - its context

   Output Parameter:
.  error - || u_h - u ||_L2

   Note:
   The exact solution is called at every Gauss point on the host; for one that is a sum of products of 1D functions
   `DMBrickComputeL2ErrorSeparable()` is much cheaper, and runs on the GPU for VECCUDA vectors.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickComputeLoadVector()`, `DMBrickComputeL2ErrorSeparable()`
@*/
PetscErrorCode DMBrickComputeL2Error(DM dm, Vec uh, DMBrickPointFunction exact, void *ctx, PetscReal *error)
{
  PetscReal sum;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_L2Error, dm, uh, 0, 0));
  PetscCall(DMBrickL2ErrorSum_Private(dm, uh, exact, ctx, 0, NULL, &sum));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)dm)));
  *error = PetscSqrtReal(sum);
  PetscCall(PetscLogEventEnd(DMBRICK_L2Error, dm, uh, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   DMBrickComputeBrokenH2Error - the broken H2 seminorm of u_h - u, ( sum_K || D^2 (u_h - u) ||_{L2(K)}^2 )^(1/2), the
   cell part of the C0IP energy norm (it converges like h^(k-1) for smooth u)

   Collective

   Input Parameters:
+  dm      - the brick
.  uh      - the global vector (interior nodal values; boundary values are zero)
.  hessian - the Hessian of the exact solution
-  ctx     - its context

   Output Parameter:
.  error - the broken H2 seminorm of the error

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickComputeL2Error()`
@*/
PetscErrorCode DMBrickComputeBrokenH2Error(DM dm, Vec uh, DMBrickHessianFunction hessian, void *ctx, PetscReal *error)
{
  DM_Brick          *brick;
  BrickQuadrature    q;
  BrickBox           cells;
  Vec                ul;
  const PetscScalar *ula;
  PetscScalar        ue[729], t1[1000], t2[1000], dq[6][1000];
  PetscReal          D[BRICK_MAX_N * BRICK_MAX_N], val[(BRICK_MAX_N + 2) * BRICK_MAX_N], der[(BRICK_MAX_N + 2) * BRICK_MAX_N], B1[3][(BRICK_MAX_N + 2) * BRICK_MAX_N], B2[3][(BRICK_MAX_N + 2) * BRICK_MAX_N];
  PetscInt           idx[729], n, pairs[6][2], npairs = 0;
  PetscReal          sum = 0.0;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(!brick->forest, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMBrickComputeBrokenH2Error() works on a box brick, not yet on a forest (-dm_brick_remove, -dm_brick_periodic, -dm_brick_partition p4est); DMBrickComputeL2Error() works on both");
  PetscCall(BrickQuadratureSetUp(dm, &q));
  n = brick->degree + 1;
  /* first and second derivatives of the basis at the quadrature points, per direction (1/h and 1/h^2):
     phi_j'' = sum_a phi_a' D[a][j], with D[a][j] = phi_j'(x_a) on the nodes */
  PetscCall(BrickBasisEvaluate(brick->degree, brick->nodes, n, brick->nodes, val, D));
  PetscCall(BrickBasisEvaluate(brick->degree, brick->nodes, q.nq, q.x, val, der));
  for (PetscInt d = 0; d < brick->dim; d++)
    for (PetscInt i = 0; i < q.nq; i++)
      for (PetscInt j = 0; j < n; j++) {
        PetscReal s = 0.0;
        for (PetscInt a = 0; a < n; a++) s += der[i * n + a] * D[a * n + j];
        B1[d][i * n + j] = der[i * n + j] / q.h[d];
        B2[d][i * n + j] = s / (q.h[d] * q.h[d]);
      }
  for (PetscInt d = 0; d < brick->dim; d++)
    for (PetscInt e = d; e < brick->dim; e++) {
      pairs[npairs][0] = d;
      pairs[npairs][1] = e;
      npairs++;
    }
  PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
  PetscCall(DMGetLocalVector(dm, &ul));
  PetscCall(DMGlobalToLocal(dm, uh, INSERT_VALUES, ul));
  PetscCall(VecGetArrayRead(ul, &ula));
  for (PetscInt cz = cells.lo[2]; cz <= cells.hi[2]; cz++)
    for (PetscInt cy = cells.lo[1]; cy <= cells.hi[1]; cy++)
      for (PetscInt cx = cells.lo[0]; cx <= cells.hi[0]; cx++) {
        const PetscInt cell[3] = {cx, cy, cz}, nloc = brick->dim == 2 ? n * n : n * n * n;
        PetscBool      any;
        PetscCall(BrickCellLocalIndices(dm, cell, idx));
        PetscCall(DMBrickBoundaryCellValues_Private(dm, q.h, cell, idx, ue, &any)); /* g (or zero) at the Dirichlet nodes */
        for (PetscInt i = 0; i < nloc; i++)
          if (idx[i] >= 0) ue[i] = ula[idx[i]];
        for (PetscInt p = 0; p < npairs; p++) {
          /* d^2 u_h / dx_d dx_e: the second-derivative matrix in d if d = e, first derivatives in d and e otherwise */
          PetscInt         ext[3] = {n, n, brick->dim == 3 ? n : 1};
          const PetscReal *Bdir[3];
          for (PetscInt d = 0; d < 3; d++) Bdir[d] = q.B;
          if (pairs[p][0] == pairs[p][1]) Bdir[pairs[p][0]] = B2[pairs[p][0]];
          else Bdir[pairs[p][0]] = B1[pairs[p][0]], Bdir[pairs[p][1]] = B1[pairs[p][1]];
          BrickTensorApply1D(0, ext, q.nq, Bdir[0], ue, t1);
          ext[0] = q.nq;
          BrickTensorApply1D(1, ext, q.nq, Bdir[1], t1, brick->dim == 2 ? dq[p] : t2);
          ext[1] = q.nq;
          if (brick->dim == 3) BrickTensorApply1D(2, ext, q.nq, Bdir[2], t2, dq[p]);
        }
        for (PetscInt pt = 0; pt < q.npts; pt++) {
          PetscReal   X[3], wJ;
          PetscScalar H[9];
          BrickQuadraturePoint(brick, &q, cell, pt, X, &wJ);
          PetscCall((*hessian)(brick->dim, X, H, ctx));
          for (PetscInt p = 0; p < npairs; p++) {
            const PetscScalar e = dq[p][pt] - H[pairs[p][0] * brick->dim + pairs[p][1]];
            sum += (pairs[p][0] == pairs[p][1] ? 1.0 : 2.0) * wJ * PetscRealPart(e * PetscConj(e));
          }
        }
      }
  PetscCall(VecRestoreArrayRead(ul, &ula));
  PetscCall(DMRestoreLocalVector(dm, &ul));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)dm)));
  *error = PetscSqrtReal(sum);
  PetscFunctionReturn(PETSC_SUCCESS);
}
