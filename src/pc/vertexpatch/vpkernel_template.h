/* Per-patch kernels of the vertex-patch smoother, written once for a scalar type VP_T and instantiated by
   vpkernels.c for double (suffix _d) and float (suffix _f); VP_APPLY is the brick's 1D contraction in that
   precision. Plain arrays only: the CUDA backend mirrors
   these and the CPU versions stay its reference. VP_APPLY_RANGE is the same contraction on a range of nodes (the closure's
   columns of the residual's rectangular 1D factors).

   Layout: a patch closure holds ne = 2gk+1 nodes per direction (g = 1 for the Laplacian, 2 for C0IP), its
   interior ni = 2k-1, x fastest. */
#define VP_CAT_(a, b) a##b
#define VP_CAT(a, b)  VP_CAT_(a, b)
#define VP_FN(name)   VP_CAT(name, VP_SUF)

/* Local residual r = b - (A xbar) on the patch interior: A is the brick's Kronecker form, whose rows of the
   interior are, per term, Kronecker products of the rows of the 1D factors; so the evaluation is
   rectangular sum factorization (closure in, interior out), the x contraction shared by the terms with the
   same x kind. work: PCVertexPatchWorkSize. */
void VP_FN(VPPatchResidual)(const VP_FN(VPPatchOp) *op, const int cls[], const VP_T *xbar, const VP_T *b, VP_T *r, VP_T *work)
{
  const PetscInt ne = op->ne, ni = op->ni, dim = op->dim, nx = ni * ne * (dim == 3 ? ne : 1), nint = ni * ni * (dim == 3 ? ni : 1);
  VP_T          *X[BRICK_LINE_NKINDS] = {work, work + nx, work + 2 * nx}, *XY = work + 3 * nx, *Z = XY + ni * ni * ne;
  int            done[BRICK_LINE_NKINDS] = {0, 0, 0};

  for (PetscInt i = 0; i < nint; i++) r[i] = b[i];
  for (PetscInt t = 0; t < op->nterms; t++) {
    const int a = op->kind[t][0], bk = op->kind[t][1], c = op->kind[t][2];
    PetscInt  ext[3] = {ne, ne, dim == 3 ? ne : 1};
    if (!done[a]) {
      VP_APPLY_RANGE(0, ext, ni, op->coloff[a], op->ncols[a], op->R[a][0][cls[0]], xbar, X[a]);
      done[a] = 1;
    }
    ext[0] = ni;
    if (dim == 2) VP_APPLY_RANGE(1, ext, ni, op->coloff[bk], op->ncols[bk], op->R[bk][1][cls[1]], X[a], Z);
    else {
      VP_APPLY_RANGE(1, ext, ni, op->coloff[bk], op->ncols[bk], op->R[bk][1][cls[1]], X[a], XY);
      ext[1] = ni;
      VP_APPLY_RANGE(2, ext, ni, op->coloff[c], op->ncols[c], op->R[c][2][cls[2]], XY, Z);
    }
    for (PetscInt i = 0; i < nint; i++) r[i] -= op->coef[t] * Z[i];
  }
}

/* Interior solve by fast diagonalization of the separable part: delta = (S (x) S (x) S) Lambda^-1 (S (x) S (x) S)^T r,
   S the M-orthonormal generalized eigenvectors of (G^separable, M) per direction and class. Exact for the
   Laplacian; for the C0IP biharmonic it drops the mixed L (x) L terms (seed 000, eq. 28/29).
   work: 2 ni^dim values. */
void VP_FN(VPPatchSolveFDM)(const VP_FN(VPPatchOp) *op, const int cls[], const VP_T *r, VP_T *delta, VP_T *work)
{
  const PetscInt ni = op->ni, dim = op->dim, n = ni * ni * (dim == 3 ? ni : 1);
  const PetscInt ext[3] = {ni, ni, dim == 3 ? ni : 1};
  VP_T          *a = work, *b = work + n;
  const VP_T    *l0 = op->lambda[0][cls[0]], *l1 = op->lambda[1][cls[1]], *l2 = op->lambda[2][dim == 3 ? cls[2] : 0];

  /* forward transform: a = S^T r */
  VP_APPLY(0, ext, ni, op->St[0][cls[0]], r, a);
  VP_APPLY(1, ext, ni, op->St[1][cls[1]], a, b);
  if (dim == 3) VP_APPLY(2, ext, ni, op->St[2][cls[2]], b, a);
  else
    for (PetscInt i = 0; i < n; i++) a[i] = b[i];
  for (PetscInt l = 0; l < ext[2]; l++)
    for (PetscInt j = 0; j < ni; j++)
      for (PetscInt i = 0; i < ni; i++) {
        const VP_T lam = l0[i] + l1[j] + (dim == 3 ? l2[l] : 0);
        a[(l * ni + j) * ni + i] /= lam;
      }
  /* backward transform: delta = S a */
  VP_APPLY(0, ext, ni, op->S[0][cls[0]], a, b);
  if (dim == 3) {
    VP_APPLY(1, ext, ni, op->S[1][cls[1]], b, a);
    VP_APPLY(2, ext, ni, op->S[2][cls[2]], a, delta);
  } else VP_APPLY(1, ext, ni, op->S[1][cls[1]], b, delta);
}

#undef VP_FN
#undef VP_CAT
#undef VP_CAT_
