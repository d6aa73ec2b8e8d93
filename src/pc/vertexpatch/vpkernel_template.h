/* Per-patch kernels of the vertex-patch smoother, written once for a scalar type VP_T and instantiated by
   vpkernels.c for double (suffix _d) and float (suffix _f); VP_APPLY is the brick's 1D contraction in that
   precision. Plain arrays only: the CUDA backend mirrors
   these and the CPU versions stay its reference.

   Layout: a patch closure holds np = 2k+1 nodes per direction, its interior ni = 2k-1, x fastest. */
#define VP_CAT_(a, b) a##b
#define VP_CAT(a, b)  VP_CAT_(a, b)
#define VP_FN(name)   VP_CAT(name, VP_SUF)

/* Local residual r = b - (A_bar xbar) restricted to the patch interior. A_bar on the closure is the
   Kronecker sum of the 1D patch matrices; restricting its rows to the interior restricts the rows of the
   1D factors, so the whole evaluation is rectangular sum factorization (closure in, interior out).
   work: 6 np^dim values. */
void VP_FN(VPPatchResidual)(const VP_FN(VPPatchOp) *op, const VP_T *xbar, const VP_T *b, VP_T *r, VP_T *work)
{
  const PetscInt np = op->np, ni = op->ni, big = np * np * (op->dim == 3 ? np : 1);
  PetscInt       ext[3] = {np, np, op->dim == 3 ? np : 1};
  VP_T          *mx = work, *kx = work + big, *t1 = work + 2 * big, *t2 = work + 3 * big, *t3 = work + 4 * big, *y = work + 5 * big;
  PetscInt       nint;

  VP_APPLY(0, ext, ni, op->Mr[0], xbar, mx);
  VP_APPLY(0, ext, ni, op->Kr[0], xbar, kx);
  ext[0] = ni;
  if (op->dim == 2) {
    VP_APPLY(1, ext, ni, op->Mr[1], kx, y);
    VP_APPLY(1, ext, ni, op->Kr[1], mx, t1);
    nint = ni * ni;
    for (PetscInt i = 0; i < nint; i++) r[i] = b[i] - (y[i] + t1[i]);
    return;
  }
  VP_APPLY(1, ext, ni, op->Mr[1], kx, t1); /* M_y K_x */
  VP_APPLY(1, ext, ni, op->Kr[1], mx, t2); /* K_y M_x */
  VP_APPLY(1, ext, ni, op->Mr[1], mx, t3); /* M_y M_x */
  ext[1] = ni;
  nint   = ni * ni * np;
  for (PetscInt i = 0; i < nint; i++) t1[i] += t2[i];
  VP_APPLY(2, ext, ni, op->Mr[2], t1, y);
  VP_APPLY(2, ext, ni, op->Kr[2], t3, t2);
  nint = ni * ni * ni;
  for (PetscInt i = 0; i < nint; i++) r[i] = b[i] - (y[i] + t2[i]);
}

/* Exact interior solve by fast diagonalization: delta = (S (x) S (x) S) Lambda^-1 (S (x) S (x) S)^T r, with
   S the M-orthonormal generalized eigenvectors of (K, M) per direction. work: 2 ni^dim values. */
void VP_FN(VPPatchSolveFDM)(const VP_FN(VPPatchOp) *op, const VP_T *r, VP_T *delta, VP_T *work)
{
  const PetscInt ni = op->ni, dim = op->dim, n = ni * ni * (dim == 3 ? ni : 1);
  const PetscInt ext[3] = {ni, ni, dim == 3 ? ni : 1};
  VP_T          *a = work, *b = work + n;

  /* forward transform: a = S^T r */
  VP_APPLY(0, ext, ni, op->St[0], r, a);
  VP_APPLY(1, ext, ni, op->St[1], a, b);
  if (dim == 3) VP_APPLY(2, ext, ni, op->St[2], b, a);
  else
    for (PetscInt i = 0; i < n; i++) a[i] = b[i];
  for (PetscInt l = 0; l < ext[2]; l++)
    for (PetscInt j = 0; j < ni; j++)
      for (PetscInt i = 0; i < ni; i++) {
        const VP_T lam = op->lambda[0][i] + op->lambda[1][j] + (dim == 3 ? op->lambda[2][l] : 0);
        a[(l * ni + j) * ni + i] /= lam;
      }
  /* backward transform: delta = S a */
  VP_APPLY(0, ext, ni, op->S[0], a, b);
  if (dim == 3) {
    VP_APPLY(1, ext, ni, op->S[1], b, a);
    VP_APPLY(2, ext, ni, op->S[2], a, delta);
  } else VP_APPLY(1, ext, ni, op->S[1], b, delta);
}

#undef VP_FN
#undef VP_CAT
#undef VP_CAT_
