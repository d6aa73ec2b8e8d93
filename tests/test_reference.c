static const char help[] = "Checks the brick's operators against a reference assembled here, element by element and face by face, by\n"
                           "quadrature of the Lagrange basis on Gauss-Lobatto nodes in d dimensions: no sum factorization, no Kronecker\n"
                           "form, nothing from src/mat. Compares the matrix-free operator (products with random vectors), its diagonal,\n"
                           "and the assembled matrix (-dm_mat_type aij) with the reference, one rank, on a non-square box.\n"
                           "Options: -dim 2|3, -kmin, -kmax, -cells (coarse grid; the operator is on its first refinement, a shell).\n";

#include "checks.h"
#include <petscdt.h>

#define RMAXK 8

typedef struct {
  PetscInt  k;
  PetscReal x[RMAXK + 1]; /* Gauss-Lobatto nodes on [0, 1] */
} Basis1D;

/* l_i(t), l_i'(t), l_i''(t) of the Lagrange basis on the nodes, from the product formula */
static void Lagrange(const Basis1D *B, PetscInt i, PetscReal t, PetscReal v[3])
{
  const PetscInt   n = B->k + 1;
  const PetscReal *x = B->x;

  v[0] = 1.0;
  v[1] = v[2] = 0.0;
  for (PetscInt m = 0; m < n; m++)
    if (m != i) v[0] *= (t - x[m]) / (x[i] - x[m]);
  for (PetscInt j = 0; j < n; j++) {
    PetscReal p;
    if (j == i) continue;
    p = 1.0 / (x[i] - x[j]);
    for (PetscInt m = 0; m < n; m++)
      if (m != i && m != j) p *= (t - x[m]) / (x[i] - x[m]);
    v[1] += p;
    for (PetscInt l = 0; l < n; l++) {
      PetscReal q;
      if (l == i || l == j) continue;
      q = 1.0 / ((x[i] - x[j]) * (x[i] - x[l]));
      for (PetscInt m = 0; m < n; m++)
        if (m != i && m != j && m != l) q *= (t - x[m]) / (x[i] - x[m]);
      v[2] += q;
    }
  }
}

typedef struct {
  PetscInt  dim, k, N[3], nint[3], n; /* cells, interior nodes per direction, DoFs */
  PetscReal h[3];
  Basis1D   B;
  PetscReal *A; /* dense reference on the interior nodes, row-major */
} Reference;

/* basis function a (local multi-index a[d] in 0..k) of a cell: value, gradient, Hessian at reference point t */
static void CellBasis(const Reference *R, const PetscInt a[3], const PetscReal t[3], PetscReal *val, PetscReal g[3], PetscReal H[3][3])
{
  PetscReal l[3][3];

  for (PetscInt d = 0; d < 3; d++) {
    if (d < R->dim) Lagrange(&R->B, a[d], t[d], l[d]);
    else l[d][0] = 1.0, l[d][1] = l[d][2] = 0.0;
  }
  *val = l[0][0] * l[1][0] * l[2][0];
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt e = 0; e < 3; e++) {
      PetscReal p = 1.0;
      for (PetscInt c = 0; c < 3; c++) p *= l[c][(c == d) + (c == e)];
      H[d][e] = p / (R->h[d] * R->h[e]);
    }
  for (PetscInt d = 0; d < 3; d++) {
    PetscReal p = 1.0;
    for (PetscInt c = 0; c < 3; c++) p *= l[c][c == d];
    g[d] = p / R->h[d];
  }
}

/* interior-DoF index of full-grid node f (boundary nodes: -1) */
static PetscInt DofIndex(const Reference *R, const PetscInt f[3])
{
  for (PetscInt d = 0; d < R->dim; d++)
    if (f[d] <= 0 || f[d] >= R->k * R->N[d]) return -1;
  return (f[0] - 1) + R->nint[0] * ((f[1] - 1) + (R->dim == 3 ? R->nint[1] * (f[2] - 1) : 0));
}

static void LocalIndex(const Reference *R, PetscInt i, PetscInt a[3])
{
  const PetscInt n = R->k + 1;
  a[0]             = i % n;
  a[1]             = (i / n) % n;
  a[2]             = R->dim == 3 ? i / (n * n) : 0;
}

/* adds the local matrix Kloc (nloc x nloc) of the DoFs with full-grid nodes f[] into the reference */
static void Scatter(Reference *R, PetscInt nloc, const PetscInt (*f)[3], const PetscReal *Kloc)
{
  for (PetscInt i = 0; i < nloc; i++) {
    const PetscInt gi = DofIndex(R, f[i]);
    if (gi < 0) continue;
    for (PetscInt j = 0; j < nloc; j++) {
      const PetscInt gj = DofIndex(R, f[j]);
      if (gj >= 0) R->A[gi * R->n + gj] += Kloc[i * nloc + j];
    }
  }
}

/* The cell matrix (the same for every cell of the uniform mesh): int grad u . grad v (laplace) or int D^2 u : D^2 v
   (c0ip), by Gauss quadrature with k+2 points per direction. */
static PetscErrorCode CellMatrix(const Reference *R, PetscBool c0ip, PetscReal *K)
{
  const PetscInt nq = R->k + 2, nb = R->dim == 3 ? (R->k + 1) * (R->k + 1) * (R->k + 1) : (R->k + 1) * (R->k + 1), nqd = R->dim == 3 ? nq * nq * nq : nq * nq;
  PetscReal      qx[RMAXK + 2], qw[RMAXK + 2], detJ = 1.0, *D;
  const PetscInt ncomp = c0ip ? 9 : 3;

  PetscFunctionBeginUser;
  PetscCall(PetscDTGaussQuadrature(nq, 0.0, 1.0, qx, qw));
  for (PetscInt d = 0; d < R->dim; d++) detJ *= R->h[d];
  PetscCall(PetscMalloc1(nb * ncomp, &D));
  PetscCall(PetscArrayzero(K, nb * nb));
  for (PetscInt q = 0; q < nqd; q++) {
    const PetscInt  qi[3] = {q % nq, (q / nq) % nq, q / (nq * nq)};
    const PetscReal t[3]  = {qx[qi[0]], qx[qi[1]], R->dim == 3 ? qx[qi[2]] : 0.0};
    PetscReal       w     = detJ * qw[qi[0]] * qw[qi[1]] * (R->dim == 3 ? qw[qi[2]] : 1.0);
    for (PetscInt i = 0; i < nb; i++) {
      PetscInt  a[3];
      PetscReal v, g[3], H[3][3];
      LocalIndex(R, i, a);
      CellBasis(R, a, t, &v, g, H);
      for (PetscInt c = 0; c < ncomp; c++) D[i * ncomp + c] = c0ip ? H[c / 3][c % 3] : g[c];
    }
    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt j = 0; j < nb; j++) {
        PetscReal s = 0.0;
        for (PetscInt c = 0; c < ncomp; c++) s += D[i * ncomp + c] * D[j * ncomp + c];
        K[i * nb + j] += w * s;
      }
  }
  PetscCall(PetscFree(D));
  PetscFunctionReturn(0);
}

/* The C0IP face terms of one face normal to direction d: sigma [d_n u][d_n v] - {d_nn u}[d_n v] - [d_n u]{d_nn v}, with
   [d_n u] the sum of the outward normal derivatives of the sides and {.} their mean (one side on the boundary),
   sigma = k(k+1)/h_d inside and 2 k(k+1)/h_d on the boundary (the brick's penalty). lo/hi: whether the cells below and
   above the face exist; cell: the index of the cell above (or below, without one above). */
static void FaceTerms(Reference *R, PetscInt d, const PetscInt cell[3], PetscBool below, PetscBool above, const PetscReal qx[], const PetscReal qw[], PetscInt nq, PetscReal *Kf, PetscInt (*f)[3])
{
  const PetscInt  n1 = R->k + 1, nb = R->dim == 3 ? n1 * n1 * n1 : n1 * n1, nside = (below ? 1 : 0) + (above ? 1 : 0), nloc = nside * nb;
  const PetscInt  nqf = R->dim == 3 ? nq * nq : nq;
  const PetscReal gamma = R->k * (R->k + 1) * (nside == 2 ? 1.0 : 2.0), sigma = gamma / R->h[d];
  PetscReal       area = 1.0, J[2 * (RMAXK + 1) * (RMAXK + 1) * (RMAXK + 1)], Av[2 * (RMAXK + 1) * (RMAXK + 1) * (RMAXK + 1)];

  for (PetscInt e = 0; e < R->dim; e++)
    if (e != d) area *= R->h[e];
  /* local DoFs: side 0 = the cell below (t_d = 1 on the face), side 1 = the cell above (t_d = 0) */
  for (PetscInt s = 0, l = 0; s < 2; s++) {
    if ((s == 0 && !below) || (s == 1 && !above)) continue;
    for (PetscInt i = 0; i < nb; i++, l++) {
      PetscInt a[3];
      LocalIndex(R, i, a);
      for (PetscInt e = 0; e < 3; e++) f[l][e] = (cell[e] - (s == 0 && e == d)) * R->k + a[e];
    }
  }
  for (PetscInt i = 0; i < nloc * nloc; i++) Kf[i] = 0.0;
  for (PetscInt q = 0; q < nqf; q++) {
    PetscReal t[3], w = area;
    PetscInt  c = 0;
    for (PetscInt e = 0; e < R->dim; e++) {
      if (e == d) continue;
      const PetscInt qe = c == 0 ? q % nq : q / nq;
      t[e]              = qx[qe];
      w *= qw[qe];
      c++;
    }
    for (PetscInt s = 0, l = 0; s < 2; s++) {
      if ((s == 0 && !below) || (s == 1 && !above)) continue;
      t[d] = s == 0 ? 1.0 : 0.0;
      if (R->dim == 2) t[2] = 0.0;
      for (PetscInt i = 0; i < nb; i++, l++) {
        PetscInt  a[3];
        PetscReal v, g[3], H[3][3];
        LocalIndex(R, i, a);
        CellBasis(R, a, t, &v, g, H);
        J[l]  = (s == 0 ? 1.0 : -1.0) * g[d]; /* outward normal of the cell below is +e_d, of the cell above -e_d */
        Av[l] = (nside == 2 ? 0.5 : 1.0) * H[d][d];
      }
    }
    for (PetscInt i = 0; i < nloc; i++)
      for (PetscInt j = 0; j < nloc; j++) Kf[i * nloc + j] += w * (sigma * J[i] * J[j] - Av[j] * J[i] - J[j] * Av[i]);
  }
  Scatter(R, nloc, (const PetscInt(*)[3])f, Kf);
}

static PetscErrorCode BuildReference(Reference *R, PetscBool c0ip)
{
  const PetscInt n1 = R->k + 1, nb = R->dim == 3 ? n1 * n1 * n1 : n1 * n1;
  PetscReal     *K, *Kf, gx[RMAXK + 1], gw[RMAXK + 1], qx[RMAXK + 2], qw[RMAXK + 2];
  PetscInt(*f)[3];

  PetscFunctionBeginUser;
  /* PETSc's Gauss-Lobatto nodes on [-1, 1], mapped to [0, 1] */
  PetscCall(PetscDTGaussLobattoLegendreQuadrature(n1, PETSCGAUSSLOBATTOLEGENDRE_VIA_NEWTON, gx, gw));
  R->B.k = R->k;
  for (PetscInt i = 0; i < n1; i++) R->B.x[i] = 0.5 * (gx[i] + 1.0);
  PetscCall(PetscCalloc1(R->n * R->n, &R->A));
  PetscCall(PetscMalloc3(nb * nb, &K, 4 * nb * nb, &Kf, 2 * nb, &f));
  PetscCall(CellMatrix(R, c0ip, K));
  for (PetscInt cz = 0; cz < (R->dim == 3 ? R->N[2] : 1); cz++)
    for (PetscInt cy = 0; cy < R->N[1]; cy++)
      for (PetscInt cx = 0; cx < R->N[0]; cx++) {
        const PetscInt cell[3] = {cx, cy, cz};
        for (PetscInt i = 0; i < nb; i++) {
          PetscInt a[3];
          LocalIndex(R, i, a);
          for (PetscInt e = 0; e < 3; e++) f[i][e] = cell[e] * R->k + a[e];
        }
        Scatter(R, nb, (const PetscInt(*)[3])f, K);
      }
  if (c0ip) {
    PetscCall(PetscDTGaussQuadrature(R->k + 2, 0.0, 1.0, qx, qw));
    for (PetscInt d = 0; d < R->dim; d++)
      for (PetscInt cz = 0; cz < (R->dim == 3 ? R->N[2] : 1) + (d == 2); cz++)
        for (PetscInt cy = 0; cy < R->N[1] + (d == 1); cy++)
          for (PetscInt cx = 0; cx < R->N[0] + (d == 0); cx++) {
            /* the face at the lower side of cell (cx, cy, cz) along d; the last one has no cell above */
            const PetscInt  cell[3] = {cx, cy, cz};
            const PetscBool below = (PetscBool)(cell[d] > 0), above = (PetscBool)(cell[d] < R->N[d]);
            FaceTerms(R, d, cell, below, above, qx, qw, R->k + 2, Kf, f);
          }
  }
  PetscCall(PetscFree3(K, Kf, f));
  PetscFunctionReturn(0);
}

/* y = A_ref x on the natural (one-rank) ordering */
static PetscErrorCode ReferenceMult(const Reference *R, Vec x, Vec y)
{
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  for (PetscInt i = 0; i < R->n; i++) {
    PetscScalar s = 0.0;
    for (PetscInt j = 0; j < R->n; j++) s += R->A[i * R->n + j] * xa[j];
    ya[i] = s;
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 8;
  PetscMPIInt size;
  PetscRandom rnd;
  PetscBool   c0ip;
  const char *opname;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "test_reference runs on one rank (the reference uses the natural node ordering)");
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt k = kmin; k <= kmax; k++) {
    const PetscInt  cells[3] = {3, 2, 1}; /* 3D: 2 x 1 x 1 (below), fine grid 4 x 2 x 2 */
    const PetscReal lower[3] = {-0.5, 0.0, 0.25}, upper[3] = {1.0, 0.75, 1.0};
    DM              dm;
    Mat             Ashell, Aaij;
    Vec             x, yr, ys, ya, dr, ds, da;
    Reference       R;
    PetscReal       rel;
    PetscBool       isshell;
    char            what[192];

    const PetscInt  cells3[3] = {2, 1, 1};

    PetscCall(CreateBrick(dim, dim == 3 ? cells3 : cells, lower, upper, k, 1, &dm));
    PetscCall(DMBrickGetOperator(dm, &opname));
    PetscCall(PetscStrcmp(opname, "c0ip", &c0ip));
    PetscCall(PetscMemzero(&R, sizeof(R)));
    R.dim = dim;
    R.k   = k;
    PetscCall(DMBrickGetInfo(dm, NULL, R.N, NULL, NULL));
    R.n = 1;
    for (PetscInt d = 0; d < 3; d++) {
      if (d >= dim) R.N[d] = 1;
      R.nint[d] = d < dim ? k * R.N[d] - 1 : 1;
      R.h[d]    = d < dim ? (upper[d] - lower[d]) / R.N[d] : 1.0;
      R.n *= R.nint[d];
    }
    PetscCall(BuildReference(&R, c0ip));

    PetscCall(DMCreateMatrix(dm, &Ashell));
    PetscCall(PetscObjectTypeCompare((PetscObject)Ashell, MATSHELL, &isshell));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " %s: DMCreateMatrix on level 1 is matrix-free (MATSHELL)", dim, k, opname));
    PetscCall(CheckTrue(what, isshell));
    PetscCall(DMSetMatType(dm, MATAIJ));
    PetscCall(DMCreateMatrix(dm, &Aaij));
    PetscCall(DMCreateGlobalVector(dm, &x));
    PetscCall(VecDuplicate(x, &yr));
    PetscCall(VecDuplicate(x, &ys));
    PetscCall(VecDuplicate(x, &ya));
    PetscCall(VecDuplicate(x, &dr));
    PetscCall(VecDuplicate(x, &ds));
    PetscCall(VecDuplicate(x, &da));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(VecSetRandom(x, rnd));
      PetscCall(ReferenceMult(&R, x, yr));
      PetscCall(MatMult(Ashell, x, ys));
      PetscCall(MatMult(Aaij, x, ya));
      PetscCall(RelativeDifference(ys, yr, &rel));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " %s: matrix-free vs element-by-element reference, random vector %" PetscInt_FMT, dim, k, opname, t));
      PetscCall(CheckLessThan(what, rel, 1e-12));
      PetscCall(RelativeDifference(ya, yr, &rel));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " %s: assembled vs element-by-element reference, random vector %" PetscInt_FMT, dim, k, opname, t));
      PetscCall(CheckLessThan(what, rel, 1e-12));
    }
    {
      PetscScalar *a;
      PetscCall(VecGetArray(dr, &a));
      for (PetscInt i = 0; i < R.n; i++) a[i] = R.A[i * R.n + i];
      PetscCall(VecRestoreArray(dr, &a));
    }
    PetscCall(MatGetDiagonal(Ashell, ds));
    PetscCall(MatGetDiagonal(Aaij, da));
    PetscCall(RelativeDifference(ds, dr, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " %s: diagonal of the matrix-free operator vs reference", dim, k, opname));
    PetscCall(CheckLessThan(what, rel, 1e-12));
    PetscCall(RelativeDifference(da, dr, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "D Q%" PetscInt_FMT " %s: diagonal of the assembled matrix vs reference", dim, k, opname));
    PetscCall(CheckLessThan(what, rel, 1e-12));

    PetscCall(PetscFree(R.A));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&yr));
    PetscCall(VecDestroy(&ys));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&dr));
    PetscCall(VecDestroy(&ds));
    PetscCall(VecDestroy(&da));
    PetscCall(MatDestroy(&Ashell));
    PetscCall(MatDestroy(&Aaij));
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
