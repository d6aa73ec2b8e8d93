/* Inhomogeneous Dirichlet data: for the laplace operator (CG) by lifting, for sipg (DG) weakly through the boundary
   faces as the SIPG form takes them, for c0ip by lifting through the operator (c0ip.c, c0ipforest.c). The brick's unknowns stay the free nodes (DG: all values) and its operator,
   multigrid and smoothers stay the homogeneous problem's. For laplace the boundary values g enter three places:

     the load vector:  b_I = (f, phi_I) - a(u_g, phi_I), u_g the interpolant of g on the Dirichlet nodes (zero on the
                       free ones): each cell with Dirichlet nodes subtracts its stiffness matrix times their values;
     the L2 error and the VTK output: the finite element function is u_I on the free nodes and g on the Dirichlet ones.

   The cell's stiffness is the Kronecker sum of the 1D stiffness and mass matrices (the laplace operator of laplace.c
   in element form). */
#include "brickelement.h"

/*@C
   DMBrickSetBoundaryFunction - sets Dirichlet data u = g on the boundary: the load vector
   (`DMBrickComputeLoadVector()`, `DMBrickComputeLoadVectorSeparable()`) then takes it (laplace: lifted, and the L2 error
   and the VTK output take g at the Dirichlet nodes; sipg: weakly, through the boundary faces)

   Logically Collective

   Input Parameters:
+  dm  - the brick
.  g   - the boundary values (NULL: zero, the default)
-  ctx - its context

   Notes:
   The unknowns, the operator, the multigrid hierarchy and the smoothers are those of zero boundary values; only the
   right-hand side changes (laplace, lifting: b_I = (f, phi_I) - a(u_g, phi_I), u_g the nodal interpolant of g on the
   boundary; sipg: b_i += int_F g (sigma_b phi_i - dphi_i/dn) on every boundary face, the consistent SIPG data term). On
   a forest the boundary includes the faces of removed cells; periodic directions have none. c0ip (the clamped plate):
   the values are lifted through the operator itself (b_I -= A u_g: on a box its Kronecker form over the full grid, on a
   forest its cell and face terms) and the slope du/dn = grad w . n is added by `DMBrickC0IPAddNormalDerivative()`.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickComputeLoadVector()`, `DMBrickComputeL2Error()`, `DMBrickC0IPAddNormalDerivative()`
@*/
PetscErrorCode DMBrickSetBoundaryFunction(DM dm, DMBrickPointFunction g, void *ctx)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  brick->bc    = g;
  brick->bcctx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* g at the Dirichlet nodes of a cell (idx < 0), zero at its free ones; *any: whether the cell has Dirichlet nodes */
PetscErrorCode DMBrickBoundaryCellValues_Private(DM dm, const PetscReal h[], const PetscInt cell[], const PetscInt idx[], PetscScalar g[], PetscBool *any)
{
  const DM_Brick *brick = (const DM_Brick *)dm->data;
  const PetscInt  n = brick->degree + 1, nv = brick->dim == 3 ? n * n * n : n * n;

  PetscFunctionBegin;
  *any = PETSC_FALSE;
  for (PetscInt i = 0; i < nv; i++) {
    const PetscInt ii[3] = {i % n, (i / n) % n, i / (n * n)};
    PetscReal      X[3]  = {0, 0, 0};
    g[i]                 = 0.0;
    if (idx[i] >= 0 || !brick->bc) continue;
    for (PetscInt d = 0; d < brick->dim; d++) X[d] = brick->lower[d] + h[d] * (cell[d] + brick->nodes[ii[d]]);
    PetscCall((*brick->bc)(brick->dim, X, &g[i], brick->bcctx));
    *any = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SIPG (DG): the data enter weakly, as the operator's boundary faces take them: b_i += int_F g (sigma_b phi_i -
   dphi_i/dn) on every boundary face F (the box's ends, a forest's faces without a neighbour), by k + 2 Gauss points a
   tangential direction; sigma_b the operator's boundary penalty (twice the interior one, sipg.c) */
static PetscErrorCode DMBrickAddSIPGBoundaryData(DM dm, Vec b)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt k = brick->degree, n = k + 1, nq = k + 2, dim = brick->dim, nv = dim == 3 ? n * n * n : n * n;
  BrickBox       cells;
  Vec            bl;
  PetscScalar   *bla, be[729];
  PetscReal      h[3], qx[BRICK_MAX_N + 2], qw[BRICK_MAX_N + 2], B[(BRICK_MAX_N + 2) * BRICK_MAX_N], ends[2] = {0.0, 1.0}, val[2 * BRICK_MAX_N], der[2 * BRICK_MAX_N];
  PetscInt       idx[729];

  PetscFunctionBegin;
  PetscCall(DMBrickCellSize_Private(dm, h));
  PetscCall(BrickElementQuadrature(k, brick->nodes, nq, qx, qw, B));
  PetscCall(BrickBasisEvaluate(k, brick->nodes, 2, ends, val, der)); /* the basis and its derivative at the cell's two ends */
  PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(VecZeroEntries(bl));
  PetscCall(VecGetArray(bl, &bla));
  for (PetscInt c = 0; c < BrickFECellCount(brick, &cells); c++) {
    PetscInt  cell[3];
    PetscBool any = PETSC_FALSE;
    PetscCall(BrickFECell(dm, &cells, c, cell, idx));
    for (PetscInt i = 0; i < nv; i++) be[i] = 0.0;
    for (PetscInt d = 0; d < dim; d++)
      for (PetscInt side = 0; side < 2; side++) {
        const PetscReal sigmab = 2.0 * brick->op.penalty * (PetscReal)(k * (k + 1)) / h[d];
        const PetscInt  t0 = (d + 1) % dim, t1 = (d + 2) % dim, nt1 = dim == 3 ? nq : 1; /* the tangential directions */
        PetscReal       area = 1.0;
        PetscBool       boundary;
        if (brick->forest) boundary = (PetscBool)(brick->forest->face[c * 2 * dim + 2 * d + side] < 0);
        else boundary = (PetscBool)(side ? cell[d] == brick->cells[d] - 1 : cell[d] == 0);
        if (!boundary) continue;
        any = PETSC_TRUE;
        for (PetscInt e = 0; e < dim; e++)
          if (e != d) area *= h[e];
        for (PetscInt q0 = 0; q0 < nq; q0++)
          for (PetscInt q1 = 0; q1 < nt1; q1++) {
            PetscReal   X[3] = {0, 0, 0}, w = area * qw[q0] * (dim == 3 ? qw[q1] : 1.0);
            PetscScalar g;
            X[d]  = brick->lower[d] + h[d] * (cell[d] + side);
            X[t0] = brick->lower[t0] + h[t0] * (cell[t0] + qx[q0]);
            if (dim == 3) X[t1] = brick->lower[t1] + h[t1] * (cell[t1] + qx[q1]);
            PetscCall((*brick->bc)(dim, X, &g, brick->bcctx));
            for (PetscInt i = 0; i < nv; i++) {
              const PetscInt  ii[3] = {i % n, (i / n) % n, i / (n * n)};
              const PetscReal e = val[side * n + ii[d]], de = der[side * n + ii[d]] / h[d];
              /* sigma_b phi - dphi/dn: the outer normal is -x_d on the lower face, +x_d on the upper one */
              PetscReal phi = sigmab * e + (side ? -de : de);
              phi *= B[q0 * n + ii[t0]];
              if (dim == 3) phi *= B[q1 * n + ii[t1]];
              be[i] += w * g * phi;
            }
          }
      }
    if (!any) continue;
    for (PetscInt i = 0; i < nv; i++) bla[idx[i]] += be[i];
  }
  PetscCall(VecRestoreArray(bl, &bla));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b -= a(u_g, phi_I): each cell with Dirichlet nodes, its stiffness times their values, summed into the free nodes
   (laplace); sipg: the boundary faces' data terms */
PetscErrorCode DMBrickSubtractBoundaryLift_Private(DM dm, Vec b)
{
  DM_Brick      *brick;
  BrickBox       cells;
  Vec            bl;
  PetscScalar   *bla, g[729], t1[729], t2[729], kg[729];
  PetscReal      h[3], Mref[BRICK_MAX_N * BRICK_MAX_N], Lref[BRICK_MAX_N * BRICK_MAX_N], M[3][BRICK_MAX_N * BRICK_MAX_N], L[3][BRICK_MAX_N * BRICK_MAX_N];
  PetscInt       idx[729], n, nv;
  PetscBool      laplace, sipg, c0ip;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  if (!brick->bc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrcmp(brick->opname, "laplace", &laplace));
  PetscCall(PetscStrcmp(brick->opname, "sipg", &sipg));
  PetscCall(PetscStrcmp(brick->opname, "c0ip", &c0ip));
  {
    PetscBool device;
    PetscCall(DMBrickVecsOnDevice_Private(b, NULL, &device));
    PetscCall(PetscInfo(dm, "boundary data: %s on the host%s\n", sipg ? "the SIPG boundary faces' data terms" : (c0ip ? "the lifting of the boundary nodes' values through the C0IP Kronecker form" : "the lifting of the Dirichlet nodes' values"), device ? " (device vector: read and written through its host copy, once per load vector)" : ""));
  }
  if (sipg) {
    PetscCall(DMBrickAddSIPGBoundaryData(dm, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (c0ip) {
    PetscCall(BrickC0IPSubtractBoundaryLift_Private(dm, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(laplace, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "Boundary data (DMBrickSetBoundaryFunction(), -bc) with -dm_brick_operator %s: the brick applies boundary data for its own operators only (a registered operator's boundary terms are unknown to it); allowed: laplace, sipg, c0ip", brick->opname);
  n  = brick->degree + 1;
  nv = brick->dim == 3 ? n * n * n : n * n;
  PetscCall(DMBrickCellSize_Private(dm, h));
  PetscCall(BrickElementMatrices1D(brick->degree, brick->nodes, Mref, Lref));
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt i = 0; i < n * n; i++) {
      M[d][i] = d < brick->dim ? h[d] * Mref[i] : 1.0;
      L[d][i] = d < brick->dim ? Lref[i] / h[d] : 0.0;
    }
  PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(VecZeroEntries(bl));
  PetscCall(VecGetArray(bl, &bla));
  for (PetscInt c = 0; c < BrickFECellCount(brick, &cells); c++) {
    PetscInt  cell[3], ext[3] = {n, n, brick->dim == 3 ? n : 1};
    PetscBool any;
    PetscCall(BrickFECell(dm, &cells, c, cell, idx));
    PetscCall(DMBrickBoundaryCellValues_Private(dm, h, cell, idx, g, &any));
    if (!any) continue;
    /* kg = sum_d (L_d along d, M along the others) g, one direction's term at a time */
    for (PetscInt i = 0; i < nv; i++) kg[i] = 0.0;
    for (PetscInt d = 0; d < brick->dim; d++) {
      BrickTensorApply1D(0, ext, n, d == 0 ? L[0] : M[0], g, t1);
      BrickTensorApply1D(1, ext, n, d == 1 ? L[1] : M[1], t1, t2);
      if (brick->dim == 3) BrickTensorApply1D(2, ext, n, d == 2 ? L[2] : M[2], t2, t1);
      for (PetscInt i = 0; i < nv; i++) kg[i] += brick->dim == 3 ? t1[i] : t2[i];
    }
    for (PetscInt i = 0; i < nv; i++)
      if (idx[i] >= 0) bla[idx[i]] -= kg[i];
  }
  PetscCall(VecRestoreArray(bl, &bla));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
