/* The 1D matrices of the brick operators' Kronecker forms, and the matrix-free application of a
   Kronecker form on a box of nodes. On the brick's Cartesian mesh every operator with constant
   coefficients is a short sum of Kronecker products of 1D matrices over the whole 1D grids (mass,
   stiffness, and for the C0IP biharmonic a 1D "bulk plus faces" matrix), see BrickKronForm. */
#include "brickelement.h"

/*
   BrickC0IPPenalty - the C0IP penalty factor gamma of degree k: gamma/h_e on interior faces, 2 gamma/h
   on boundary faces (the boundary face counts as a face to a mirrored cell). gamma = k(k+1) is the
   usual inverse-trace scaling of the normal second derivative (it grows like k^2); it is large enough
   for coercivity for every k = 2..8: tests/test_c0ip.c checks that the assembled operator is positive
   definite.
*/
PetscReal BrickC0IPPenalty(PetscInt k)
{
  return (PetscReal)(k * (k + 1));
}

/* BrickLineCreate - the 1D matrices of direction d over the full 1D grid of the brick (nodes 0..kN):
   mass h M, stiffness L/h, and, with biharmonic, the 1D C0IP matrix: H/h^3 per cell plus, at every cell
   boundary point, sigma J J^T - J A^T - A J^T with J the normal-derivative jump functional, A the mean of
   the second derivatives (1/2 per side inside, the one-sided value on the boundary) and sigma the penalty. */
PetscErrorCode BrickLineCreate(DM dm, PetscInt d, PetscBool biharmonic, BrickLine *L)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt k = brick->degree, n = k + 1, N = brick->cells[d];
  PetscReal      Mref[BRICK_MAX_N * BRICK_MAX_N], Lref[BRICK_MAX_N * BRICK_MAX_N], H[BRICK_MAX_N * BRICK_MAX_N], d1[2][BRICK_MAX_N], d2[2][BRICK_MAX_N], h[3];
  PetscInt       w;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(L, sizeof(*L)));
  PetscCall(DMBrickCellSize_Private(dm, h));
  PetscCall(BrickElementMatrices1D(k, brick->nodes, Mref, Lref));
  L->n  = k * N + 1;
  L->bw = biharmonic ? 2 * k : k;
  w     = 2 * L->bw + 1;
  PetscCall(PetscCalloc1(L->n * w, &L->a[BRICK_LINE_MASS]));
  PetscCall(PetscCalloc1(L->n * w, &L->a[BRICK_LINE_STIFFNESS]));
  if (biharmonic) {
    PetscCall(PetscCalloc1(L->n * w, &L->a[BRICK_LINE_BIHARMONIC]));
    PetscCall(BrickElementSecondDerivatives(k, brick->nodes, H, d1, d2));
  }
#define ENTRY(kind, i, j) L->a[kind][(i)*w + (j) - (i) + L->bw]
  for (PetscInt c = 0; c < N; c++)
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) {
        ENTRY(BRICK_LINE_MASS, c * k + i, c * k + j) += h[d] * Mref[i * n + j];
        ENTRY(BRICK_LINE_STIFFNESS, c * k + i, c * k + j) += Lref[i * n + j] / h[d];
        if (biharmonic) ENTRY(BRICK_LINE_BIHARMONIC, c * k + i, c * k + j) += H[i * n + j] / (h[d] * h[d] * h[d]);
      }
  if (biharmonic) {
    const PetscReal gamma = BrickC0IPPenalty(k);
    for (PetscInt f = 0; f <= N; f++) {
      /* J and A over the nodes [(f-1)k, (f+1)k] of the cells left (f-1) and right (f) of point f k */
      PetscReal       J[2 * BRICK_MAX_DEGREE + 1] = {0}, A[2 * BRICK_MAX_DEGREE + 1] = {0}, sigma;
      const PetscInt  first = (f - 1) * k;
      const PetscInt  inner = (f > 0 && f < N);
      const PetscReal mean  = inner ? 0.5 : 1.0;
      if (f > 0) /* left cell, outward normal +1, its end point 1 */
        for (PetscInt i = 0; i < n; i++) {
          J[i] += d1[1][i] / h[d];
          A[i] += mean * d2[1][i] / (h[d] * h[d]);
        }
      if (f < N) /* right cell, outward normal -1, its end point 0 */
        for (PetscInt i = 0; i < n; i++) {
          J[k + i] -= d1[0][i] / h[d];
          A[k + i] += mean * d2[0][i] / (h[d] * h[d]);
        }
      sigma = (inner ? gamma : 2.0 * gamma) / h[d]; /* h_e: harmonic mean of the two (equal) cell widths */
      for (PetscInt a = 0; a <= 2 * k; a++)
        for (PetscInt b = 0; b <= 2 * k; b++) {
          const PetscInt ia = first + a, ib = first + b;
          if (ia < 0 || ib < 0 || ia >= L->n || ib >= L->n) continue;
          ENTRY(BRICK_LINE_BIHARMONIC, ia, ib) += sigma * J[a] * J[b] - J[a] * A[b] - A[a] * J[b];
        }
    }
  }
#undef ENTRY
  /* the diagonals, for the contractions along x (vectorized along the row) */
  for (PetscInt t = 0; t < BRICK_LINE_NKINDS; t++) {
    if (!L->a[t]) continue;
    PetscCall(PetscCalloc1(L->n * w, &L->diag[t]));
    for (PetscInt i = 0; i < L->n; i++)
      for (PetscInt o = -L->bw; o <= L->bw; o++) {
        const PetscReal c = L->a[t][i * w + o + L->bw];
        L->diag[t][(o + L->bw) * L->n + i] = c;
        if (c != 0.0) L->hb[t] = PetscMax(L->hb[t], PetscAbsInt(o));
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BrickLineDestroy(BrickLine *L)
{
  PetscFunctionBegin;
  for (PetscInt t = 0; t < BRICK_LINE_NKINDS; t++) {
    PetscCall(PetscFree(L->a[t]));
    PetscCall(PetscFree(L->diag[t]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry (i, j) of a Kronecker form, i and j full-grid node indices. */
PetscReal BrickKronEntry(PetscInt dim, const BrickKronForm *form, const BrickLine lines[], const PetscInt i[], const PetscInt j[])
{
  PetscReal sum = 0.0;

  for (PetscInt t = 0; t < form->nterms; t++) {
    PetscReal p = form->coef[t];
    for (PetscInt d = 0; d < dim && p != 0.0; d++) p *= BrickLineEntry(&lines[d], form->kind[t][d], i[d], j[d]);
    sum += p;
  }
  return sum;
}

/* out = (rows olo.. of the 1D matrix) applied along dir to in, whose nodes along dir start at ilo;
   extents of in are iext[], out has on in place of iext[dir]. Only the band is visited. Each (line, row) pair writes its
   own output row, so the pairs run on nthreads OpenMP threads with the result of one. */
static void BrickLineContract(const BrickLine *L, BrickLineKind kind, PetscInt dir, PetscInt ilo, const PetscInt iext[], PetscInt olo, PetscInt on, const PetscScalar in[], PetscScalar out[], PetscInt nthreads)
{
  const PetscInt   n = iext[dir], w = 2 * L->bw + 1;
  const PetscReal *a = L->a[kind];
  PetscInt         inner, outer;

  BrickTensorLines(dir, iext, &inner, &outer);
  (void)nthreads;
  if (inner == 1) {
    /* along x a line is contiguous: diagonal by diagonal, each a multiply-add along the row that the compiler vectorizes;
       per output the terms still come in column order, and the zero entries the band loop below skips add zero */
    const PetscInt glo = PetscMax(ilo, 0), ghi = PetscMin(ilo + n - 1, L->n - 1), hb = L->hb[kind];
#if defined(_OPENMP)
  #pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
#endif
    for (PetscInt o = 0; o < outer; o++) {
      const PetscScalar *src = in + o * n - ilo; /* src[g]: column g */
      PetscScalar       *dst = out + o * on - olo; /* dst[f]: row f */
      for (PetscInt f = olo; f < olo + on; f++) dst[f] = 0.0;
      for (PetscInt t = -hb; t <= hb; t++) {
        const PetscReal *D = L->diag[kind] + (t + L->bw) * L->n;
        const PetscInt   f0 = PetscMax(olo, glo - t), f1 = PetscMin(olo + on - 1, ghi - t);
        for (PetscInt f = f0; f <= f1; f++) dst[f] += D[f] * src[f + t];
      }
    }
    return;
  }
#if defined(_OPENMP)
  #pragma omp parallel for collapse(2) num_threads(nthreads) schedule(static) if (nthreads > 1)
#endif
  for (PetscInt o = 0; o < outer; o++) {
    for (PetscInt i = 0; i < on; i++) {
      const PetscScalar *src = in + o * n * inner;
      PetscScalar       *row = out + (o * on + i) * inner;
      const PetscInt     f = olo + i, jlo = PetscMax(PetscMax(f - L->bw, ilo), 0), jhi = PetscMin(PetscMin(f + L->bw, ilo + n - 1), L->n - 1);
      for (PetscInt s = 0; s < inner; s++) row[s] = 0.0;
      for (PetscInt g = jlo; g <= jhi; g++) {
        const PetscReal    c    = a[f * w + g - f + L->bw];
        const PetscScalar *line = src + (g - ilo) * inner;
        if (c == 0.0) continue;
        for (PetscInt s = 0; s < inner; s++) row[s] += c * line[s];
      }
    }
  }
}

PetscInt BrickKronApplyWorkSize(PetscInt dim, const BrickBox *ibox, const BrickBox *obox)
{
  PetscInt ie[3], oe[3];

  for (PetscInt d = 0; d < 3; d++) {
    ie[d] = ibox->hi[d] - ibox->lo[d] + 1;
    oe[d] = obox->hi[d] - obox->lo[d] + 1;
  }
  return BRICK_LINE_NKINDS * oe[0] * ie[1] * ie[2] + oe[0] * oe[1] * ie[2] + oe[0] * oe[1] * oe[2];
}

/* BrickKronApplyBox - out = A in for the rows of the nodes of obox, from the values in on the nodes of
   ibox (which must hold every column the rows reach, zeros where the grid has no unknown). Sum
   factorization: the x contraction is shared by the terms with the same x kind. nthreads: OpenMP threads of each
   contraction (any count gives the result of one). */
PetscErrorCode BrickKronApplyBox(PetscInt dim, const BrickKronForm *form, const BrickLine lines[], const BrickBox *ibox, const PetscScalar in[], const BrickBox *obox, PetscScalar out[], PetscScalar work[], PetscInt nthreads)
{
  PetscInt     ie[3], oe[3], nx, nxy, nout;
  PetscScalar *X[BRICK_LINE_NKINDS], *XY, *Z;
  PetscBool    done[BRICK_LINE_NKINDS] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  if (BrickBoxSize(obox) <= 0) PetscFunctionReturn(PETSC_SUCCESS); /* a rank without cells on this level */
  for (PetscInt d = 0; d < 3; d++) {
    ie[d] = ibox->hi[d] - ibox->lo[d] + 1;
    oe[d] = obox->hi[d] - obox->lo[d] + 1;
  }
  nx   = oe[0] * ie[1] * ie[2];
  nxy  = oe[0] * oe[1] * ie[2];
  nout = oe[0] * oe[1] * oe[2];
  for (PetscInt t = 0; t < BRICK_LINE_NKINDS; t++) X[t] = work + t * nx;
  XY = work + BRICK_LINE_NKINDS * nx;
  Z  = XY + nxy;
  for (PetscInt i = 0; i < nout; i++) out[i] = 0.0;
  for (PetscInt t = 0; t < form->nterms; t++) {
    const BrickLineKind kx     = form->kind[t][0];
    PetscInt            ext[3] = {ie[0], ie[1], ie[2]};
    if (!done[kx]) {
      BrickLineContract(&lines[0], kx, 0, ibox->lo[0], ext, obox->lo[0], oe[0], in, X[kx], nthreads);
      done[kx] = PETSC_TRUE;
    }
    ext[0] = oe[0];
    if (dim == 2) {
      BrickLineContract(&lines[1], form->kind[t][1], 1, ibox->lo[1], ext, obox->lo[1], oe[1], X[kx], Z, nthreads);
    } else {
      BrickLineContract(&lines[1], form->kind[t][1], 1, ibox->lo[1], ext, obox->lo[1], oe[1], X[kx], XY, nthreads);
      ext[1] = oe[1];
      BrickLineContract(&lines[2], form->kind[t][2], 2, ibox->lo[2], ext, obox->lo[2], oe[2], XY, Z, nthreads);
    }
    {
      const PetscReal coef = form->coef[t];
#if defined(_OPENMP)
  #pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
#endif
      for (PetscInt i = 0; i < nout; i++) out[i] += coef * Z[i];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
