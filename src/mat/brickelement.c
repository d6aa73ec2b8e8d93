/* 1D element matrices and quadrature for the brick operators. */
#include "brickelement.h"

/* BrickElementMatrices1D - mass M[i][j] = int_0^1 phi_i phi_j and stiffness L[i][j] = int_0^1 phi_i' phi_j'
   on the reference interval, integrated exactly with k+1 Gauss points. A cell of width h has h*M and L/h. */
PetscErrorCode BrickElementMatrices1D(PetscInt k, const PetscReal nodes[], PetscReal M[], PetscReal L[])
{
  const PetscInt n = k + 1;
  PetscReal      x[BRICK_MAX_N], w[BRICK_MAX_N], val[BRICK_MAX_N * BRICK_MAX_N], der[BRICK_MAX_N * BRICK_MAX_N];

  PetscFunctionBegin;
  PetscCall(PetscDTGaussQuadrature(n, 0.0, 1.0, x, w));
  PetscCall(BrickBasisEvaluate(k, nodes, n, x, val, der));
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt j = 0; j < n; j++) {
      PetscReal m = 0.0, l = 0.0;
      for (PetscInt q = 0; q < n; q++) {
        m += w[q] * val[q * n + i] * val[q * n + j];
        l += w[q] * der[q * n + i] * der[q * n + j];
      }
      M[i * n + j] = m;
      L[i * n + j] = l;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BrickElementQuadrature - nq Gauss points x and weights w on [0,1], and B[q*(k+1)+j] = phi_j(x_q). */
PetscErrorCode BrickElementQuadrature(PetscInt k, const PetscReal nodes[], PetscInt nq, PetscReal x[], PetscReal w[], PetscReal B[])
{
  PetscFunctionBegin;
  PetscCall(PetscDTGaussQuadrature(nq, 0.0, 1.0, x, w));
  PetscCall(BrickBasisEvaluate(k, nodes, nq, x, B, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BrickCellLocalIndices - for the cell with index cell[] (owned by this rank), the position of each of
   its (k+1)^dim nodes (x fastest) in the local ghosted vector, or -1 for a boundary node (CG; DG has none). */
PetscErrorCode BrickCellLocalIndices(DM dm, const PetscInt cell[], PetscInt idx[])
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt k = brick->degree, n = k + 1;
  PetscInt       gs[3], gw[3], off[3][BRICK_MAX_N], m[3], c = 0;

  PetscFunctionBegin;
  if (brick->family == DMBRICK_DG) { /* the cell's own values, contiguous in the ghosted array */
    const PetscInt p = (cell[0] - brick->gstart[0]) + brick->gwidth[0] * ((cell[1] - brick->gstart[1]) + brick->gwidth[1] * (cell[2] - brick->gstart[2]));
    for (PetscInt i = 0; i < brick->dof; i++) idx[i] = p * brick->dof + i;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt d = 0; d < 3; d++) {
    gs[d] = brick->gstart[d];
    gw[d] = brick->gwidth[d];
  }
  for (PetscInt d = 0, stride = 1; d < 3; d++) {
    m[d] = d < brick->dim ? n : 1;
    for (PetscInt i = 0; i < m[d]; i++) {
      const PetscInt f = cell[d] * k + i;
      if (d >= brick->dim) off[d][i] = 0;
      else if (f <= 0 || f >= k * brick->cells[d]) off[d][i] = -1;
      else off[d][i] = (f - 1 - gs[d]) * stride;
    }
    stride *= gw[d];
  }
  for (PetscInt a = 0; a < m[2]; a++)
    for (PetscInt b = 0; b < m[1]; b++)
      for (PetscInt i = 0; i < m[0]; i++, c++) idx[c] = (off[0][i] < 0 || off[1][b] < 0 || off[2][a] < 0) ? -1 : off[0][i] + off[1][b] + off[2][a];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BrickElementSecondDerivatives - the reference quantities of the C0IP operator on [0,1]:
   H[i][j] = int_0^1 phi_i'' phi_j'' (exact with k Gauss points: degree 2k-4), and the end values
   d1[e][i] = phi_i'(e), d2[e][i] = phi_i''(e) at e = 0 and 1. Second derivatives come from the
   differentiation matrix D[a][j] = phi_j'(x_a) on the nodes: phi_j'' = sum_a phi_a' D[a][j], exact since
   phi_j' is a polynomial of degree k-1. */
PetscErrorCode BrickElementSecondDerivatives(PetscInt k, const PetscReal nodes[], PetscReal H[], PetscReal d1[2][BRICK_MAX_N], PetscReal d2[2][BRICK_MAX_N])
{
  const PetscInt n = k + 1;
  PetscReal      D[BRICK_MAX_N * BRICK_MAX_N], x[BRICK_MAX_N + 2], w[BRICK_MAX_N + 2], der[(BRICK_MAX_N + 2) * BRICK_MAX_N], sec[(BRICK_MAX_N + 2) * BRICK_MAX_N], val[(BRICK_MAX_N + 2) * BRICK_MAX_N];
  const PetscInt nq = n;

  PetscFunctionBegin;
  PetscCall(BrickBasisEvaluate(k, nodes, n, nodes, val, D));
  /* quadrature points followed by the two end points */
  PetscCall(PetscDTGaussQuadrature(nq, 0.0, 1.0, x, w));
  x[nq]     = 0.0;
  x[nq + 1] = 1.0;
  PetscCall(BrickBasisEvaluate(k, nodes, nq + 2, x, val, der));
  for (PetscInt q = 0; q < nq + 2; q++)
    for (PetscInt j = 0; j < n; j++) {
      PetscReal s = 0.0;
      for (PetscInt a = 0; a < n; a++) s += der[q * n + a] * D[a * n + j];
      sec[q * n + j] = s;
    }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscReal s = 0.0;
      for (PetscInt q = 0; q < nq; q++) s += w[q] * sec[q * n + i] * sec[q * n + j];
      H[i * n + j] = s;
    }
  for (PetscInt e = 0; e < 2; e++)
    for (PetscInt i = 0; i < n; i++) {
      d1[e][i] = der[(nq + e) * n + i];
      d2[e][i] = sec[(nq + e) * n + i];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The view of every brick operator's MATSHELL: the operator's own line (op.describe), then where its level lives. */
static PetscErrorCode MatView_BrickShell(Mat A, PetscViewer viewer)
{
  DM        dm;
  DM_Brick *brick;
  PetscBool isascii;
  char      line[256] = "";

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetDM(A, &dm));
  brick = (DM_Brick *)dm->data;
  if (brick->op.describe) PetscCall(brick->op.describe(dm, line, sizeof(line)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "brick %s: %s\n", brick->opname, line));
  PetscCall(DMBrickViewLevel_Private(dm, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCreateVecs() of a brick operator: the brick's own global vectors (for device vectors on several ranks without the
   host copy MATSHELL's vectors of the same type would get, see DMCreateGlobalVector_Brick()) */
static PetscErrorCode MatCreateVecs_BrickShell(Mat A, Vec *right, Vec *left)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(MatGetDM(A, &dm));
  PetscCheck(dm, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "a brick operator without its brick (MatSetDM() was undone)");
  if (right) PetscCall(DMCreateGlobalVector(dm, right));
  if (left) PetscCall(DMCreateGlobalVector(dm, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BrickShellCreate - the MATSHELL of a symmetric positive definite brick operator: sizes from the brick's global
   vectors, product (also as transpose), diagonal and view (the operator's op.describe line), the brick's vectors,
   and the brick as its DM. */
PetscErrorCode BrickShellCreate(DM dm, void *ctx, PetscErrorCode (*destroy)(void *), PetscErrorCode (*mult)(Mat, Vec, Vec), PetscErrorCode (*diagonal)(Mat, Vec), Mat *A)
{
  Vec      v;
  PetscInt m, M;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(dm, &v));
  PetscCall(VecGetLocalSize(v, &m));
  PetscCall(VecGetSize(v, &M));
  PetscCall(DMRestoreGlobalVector(dm, &v));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dm), m, m, M, M, ctx, A));
  PetscCall(MatShellSetContextDestroy(*A, destroy));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))mult));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (void (*)(void))mult));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (void (*)(void))diagonal));
  PetscCall(MatShellSetOperation(*A, MATOP_VIEW, (void (*)(void))MatView_BrickShell));
  PetscCall(MatShellSetVecType(*A, dm->vectype));
  PetscCall(MatShellSetOperation(*A, MATOP_CREATE_VECS, (void (*)(void))MatCreateVecs_BrickShell));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatSetDM(*A, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
