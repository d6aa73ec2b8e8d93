/* Per-patch kernels of the vertex-patch smoother, written once for a scalar type VP_T and instantiated by
   vpkernels.c for double (suffix _d) and float (suffix _f); VP_APPLY is the brick's 1D contraction in that
   precision. Plain arrays only: the CUDA backend mirrors
   these and the CPU versions stay its reference.

   Layout: a patch closure holds ne = 2gk+1 nodes per direction (g = 1 for the Laplacian, 2 for C0IP), its
   interior ni = 2k-1, x fastest. */
#define VP_CAT_(a, b) a##b
#define VP_CAT(a, b)  VP_CAT_(a, b)
#define VP_FN(name)   VP_CAT(name, VP_SUF)

/* out = A (nrows x ncols, row-major) applied along dir to the nodes [off, off + ncols) of in; in has extents
   ext[] (x fastest), out the same with nrows along dir. The body is inlined with the contraction length ncols as a literal
   (VPContract dispatches on it), so the sums are fixed-length code the compiler unrolls and vectorizes; entries of A that
   are zero are multiplied like the others, in the same order, so the portable build's results do not change. */
static inline __attribute__((always_inline)) void VP_FN(VPContractBody)(PetscInt n, PetscInt inner, PetscInt outer, PetscInt nrows, PetscInt off, PetscInt ncols, const VP_T *A, const VP_T *in, VP_T *out)
{
  if (inner == 1) {
    for (PetscInt o = 0; o < outer; o++) {
      const VP_T *src = in + o * n + off;
      VP_T       *dst = out + o * nrows;
      for (PetscInt i = 0; i < nrows; i++) {
        VP_T s = 0;
        for (PetscInt j = 0; j < ncols; j++) s += A[i * ncols + j] * src[j];
        dst[i] = s;
      }
    }
    return;
  }
  for (PetscInt o = 0; o < outer; o++) {
    const VP_T *src = in + (o * n + off) * inner;
    VP_T       *dst = out + o * nrows * inner;
    for (PetscInt i = 0; i < nrows; i++) {
      VP_T *row = dst + i * inner;
      for (PetscInt s = 0; s < inner; s++) row[s] = 0;
      for (PetscInt j = 0; j < ncols; j++) {
        const VP_T  a    = A[i * ncols + j];
        const VP_T *line = src + j * inner;
        for (PetscInt s = 0; s < inner; s++) row[s] += a * line[s];
      }
    }
  }
}

static void VP_FN(VPContract)(PetscInt dir, const PetscInt ext[], PetscInt nrows, PetscInt off, PetscInt ncols, const VP_T *A, const VP_T *in, VP_T *out)
{
  const PetscInt n = ext[dir];
  PetscInt       inner = 1, outer = 1;

  for (PetscInt d = 0; d < dir; d++) inner *= ext[d];
  for (PetscInt d = dir + 1; d < 3; d++) outer *= ext[d];
  switch (ncols) {
#define VP_CONTRACT_CASE(N) \
  case N: \
    VP_FN(VPContractBody)(n, inner, outer, nrows, off, N, A, in, out); \
    return;
    VP_CONTRACT_CASE(2)
    VP_CONTRACT_CASE(3)
    VP_CONTRACT_CASE(4)
    VP_CONTRACT_CASE(5)
    VP_CONTRACT_CASE(6)
    VP_CONTRACT_CASE(7)
    VP_CONTRACT_CASE(8)
    VP_CONTRACT_CASE(9)
    VP_CONTRACT_CASE(10)
    VP_CONTRACT_CASE(11)
    VP_CONTRACT_CASE(12)
    VP_CONTRACT_CASE(13)
    VP_CONTRACT_CASE(14)
    VP_CONTRACT_CASE(15)
    VP_CONTRACT_CASE(16)
    VP_CONTRACT_CASE(17)
    VP_CONTRACT_CASE(18)
    VP_CONTRACT_CASE(19)
    VP_CONTRACT_CASE(20)
    VP_CONTRACT_CASE(21)
#undef VP_CONTRACT_CASE
  default:
    break;
  }
  VP_FN(VPContractBody)(n, inner, outer, nrows, off, ncols, A, in, out);
}

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
      VP_FN(VPContract)(0, ext, ni, op->coloff[a], op->ncols[a], op->R[a][0][cls[0]], xbar, X[a]);
      done[a] = 1;
    }
    ext[0] = ni;
    if (dim == 2) VP_FN(VPContract)(1, ext, ni, op->coloff[bk], op->ncols[bk], op->R[bk][1][cls[1]], X[a], Z);
    else {
      VP_FN(VPContract)(1, ext, ni, op->coloff[bk], op->ncols[bk], op->R[bk][1][cls[1]], X[a], XY);
      ext[1] = ni;
      VP_FN(VPContract)(2, ext, ni, op->coloff[c], op->ncols[c], op->R[c][2][cls[2]], XY, Z);
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
