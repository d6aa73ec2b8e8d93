/* Per-patch kernels of the vertex-patch smoother, written once for a scalar type T and instantiated by
   vpkernels.c for double (suffix _d) and float (suffix _f). Plain arrays only: the CUDA backend mirrors
   these and the CPU versions stay its reference.

   Layout: a patch closure holds np = 2k+1 nodes per direction, its interior ni = 2k-1, x fastest. */
#define VP_CAT_(a, b) a##b
#define VP_CAT(a, b)  VP_CAT_(a, b)
#define VP_FN(name)   VP_CAT(name, VP_SUF)

/* out = B applied along direction dir of in (extents ext, x fastest); B is mout x ext[dir], row-major */
static void VP_FN(VPApply1D)(int dir, const int ext[3], int mout, const VP_T *B, const VP_T *in, VP_T *out)
{
  const int n = ext[dir];
  int       inner = 1, outer = 1;

  for (int d = 0; d < dir; d++) inner *= ext[d];
  for (int d = dir + 1; d < 3; d++) outer *= ext[d];
  for (int o = 0; o < outer; o++) {
    const VP_T *src = in + (size_t)o * n * inner;
    VP_T       *dst = out + (size_t)o * mout * inner;
    for (int i = 0; i < mout; i++) {
      VP_T *row = dst + i * inner;
      for (int a = 0; a < inner; a++) row[a] = 0;
      for (int j = 0; j < n; j++) {
        const VP_T  b    = B[i * n + j];
        const VP_T *line = src + j * inner;
        for (int a = 0; a < inner; a++) row[a] += b * line[a];
      }
    }
  }
}

/* Local residual r = b - (A_bar xbar) restricted to the patch interior. A_bar on the closure is the
   Kronecker sum of the 1D patch matrices; restricting its rows to the interior restricts the rows of the
   1D factors, so the whole evaluation is rectangular sum factorization (closure in, interior out).
   work: 6 np^dim values. */
void VP_FN(VPPatchResidual)(const VP_FN(VPPatchOp) *op, const VP_T *xbar, const VP_T *b, VP_T *r, VP_T *work)
{
  const int np = op->np, ni = op->ni, big = np * np * (op->dim == 3 ? np : 1);
  int       ext[3] = {np, np, op->dim == 3 ? np : 1};
  VP_T     *mx = work, *kx = work + big, *t1 = work + 2 * big, *t2 = work + 3 * big, *t3 = work + 4 * big, *y = work + 5 * big;
  int       nint;

  VP_FN(VPApply1D)(0, ext, ni, op->Mr[0], xbar, mx);
  VP_FN(VPApply1D)(0, ext, ni, op->Kr[0], xbar, kx);
  ext[0] = ni;
  if (op->dim == 2) {
    VP_FN(VPApply1D)(1, ext, ni, op->Mr[1], kx, y);
    VP_FN(VPApply1D)(1, ext, ni, op->Kr[1], mx, t1);
    nint = ni * ni;
    for (int i = 0; i < nint; i++) r[i] = b[i] - (y[i] + t1[i]);
    return;
  }
  VP_FN(VPApply1D)(1, ext, ni, op->Mr[1], kx, t1); /* M_y K_x */
  VP_FN(VPApply1D)(1, ext, ni, op->Kr[1], mx, t2); /* K_y M_x */
  VP_FN(VPApply1D)(1, ext, ni, op->Mr[1], mx, t3); /* M_y M_x */
  ext[1] = ni;
  nint   = ni * ni * np;
  for (int i = 0; i < nint; i++) t1[i] += t2[i];
  VP_FN(VPApply1D)(2, ext, ni, op->Mr[2], t1, y);
  VP_FN(VPApply1D)(2, ext, ni, op->Kr[2], t3, t2);
  nint = ni * ni * ni;
  for (int i = 0; i < nint; i++) r[i] = b[i] - (y[i] + t2[i]);
}

/* Exact interior solve by fast diagonalization: delta = (S (x) S (x) S) Lambda^-1 (S (x) S (x) S)^T r, with
   S the M-orthonormal generalized eigenvectors of (K, M) per direction. work: 2 ni^dim values. */
void VP_FN(VPPatchSolveFDM)(const VP_FN(VPPatchOp) *op, const VP_T *r, VP_T *delta, VP_T *work)
{
  const int ni = op->ni, dim = op->dim, n = ni * ni * (dim == 3 ? ni : 1);
  const int ext[3] = {ni, ni, dim == 3 ? ni : 1};
  VP_T     *a = work, *b = work + n;

  /* forward transform: a = S^T r */
  VP_FN(VPApply1D)(0, ext, ni, op->St[0], r, a);
  VP_FN(VPApply1D)(1, ext, ni, op->St[1], a, b);
  if (dim == 3) VP_FN(VPApply1D)(2, ext, ni, op->St[2], b, a);
  else
    for (int i = 0; i < n; i++) a[i] = b[i];
  for (int l = 0; l < ext[2]; l++)
    for (int j = 0; j < ni; j++)
      for (int i = 0; i < ni; i++) {
        const VP_T lam = op->lambda[0][i] + op->lambda[1][j] + (dim == 3 ? op->lambda[2][l] : 0);
        a[(l * ni + j) * ni + i] /= lam;
      }
  /* backward transform: delta = S a */
  VP_FN(VPApply1D)(0, ext, ni, op->S[0], a, b);
  if (dim == 3) {
    VP_FN(VPApply1D)(1, ext, ni, op->S[1], b, a);
    VP_FN(VPApply1D)(2, ext, ni, op->S[2], a, delta);
  } else VP_FN(VPApply1D)(1, ext, ni, op->S[1], b, delta);
}

#undef VP_FN
#undef VP_CAT
#undef VP_CAT_
