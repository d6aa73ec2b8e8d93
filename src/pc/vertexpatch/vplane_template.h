/* Per-patch kernels of the vertex-patch smoother, written once for a value type VPL_V of scalar type VPL_S and instantiated
   by vpkernels.c for one patch (VPL_V = VPL_S = double, suffix _d; float, _f) and by vplanes.c for a SIMD group of
   patches of one position class, one per lane (VPL_V a GCC vector, suffixes Lanes_d and Lanes_f). VPL_APPLY is the
   matching 1D contraction (BrickTensorApply1DRange, or BrickLaneApply1D on lanes). So every lane does what one patch does,
   in the same order, and in the portable build a lane's result equals the one-patch result bit for bit. Plain arrays
   only: the CUDA backend mirrors these and the CPU versions stay its reference.

   Layout: a patch closure holds ne = 2gk+1 nodes per direction (g = 1 for the Laplacian, 2 for C0IP), its interior
   ni = 2k-1, x fastest; on lanes, value i of lane l at [i][l] (value i is one VPL_V). */
#define VPL_CAT_(a, b) a##b
#define VPL_CAT(a, b)  VPL_CAT_(a, b)
#define VPL_FN(name)   VPL_CAT(name, VPL_SUF)

/* Local residual r = b - (A xbar) on the patch interior: A is the brick's Kronecker form, whose rows of the interior are,
   per term, Kronecker products of the rows of the 1D factors; so the evaluation is rectangular sum factorization
   (closure in, interior out), the x contraction shared by the terms with the same x kind. work: the kernel part of
   PCVertexPatchWorkSize (values). */
void VPL_FN(VPPatchResidual)(const VPL_OP *op, const int cls[], const VPL_V *xbar, const VPL_V *b, VPL_V *r, VPL_V *work)
{
  const PetscInt ne = op->ne, ni = op->ni, dim = op->dim, nx = ni * ne * (dim == 3 ? ne : 1), nint = ni * ni * (dim == 3 ? ni : 1);
  VPL_V         *X[BRICK_LINE_NKINDS] = {work, work + nx, work + 2 * nx}, *XY = work + 3 * nx, *Z = XY + ni * ni * ne;
  int            done[BRICK_LINE_NKINDS] = {0, 0, 0};

  for (PetscInt i = 0; i < nint; i++) r[i] = b[i];
  for (PetscInt t = 0; t < op->nterms; t++) {
    const int a = op->kind[t][0], bk = op->kind[t][1], c = op->kind[t][2];
    PetscInt  ext[3] = {ne, ne, dim == 3 ? ne : 1};
    if (!done[a]) {
      VPL_APPLY(0, ext, ni, op->coloff[a], op->ncols[a], op->R[a][0][cls[0]], xbar, X[a]);
      done[a] = 1;
    }
    ext[0] = ni;
    if (dim == 2) VPL_APPLY(1, ext, ni, op->coloff[bk], op->ncols[bk], op->R[bk][1][cls[1]], X[a], Z);
    else {
      VPL_APPLY(1, ext, ni, op->coloff[bk], op->ncols[bk], op->R[bk][1][cls[1]], X[a], XY);
      ext[1] = ni;
      VPL_APPLY(2, ext, ni, op->coloff[c], op->ncols[c], op->R[c][2][cls[2]], XY, Z);
    }
    for (PetscInt i = 0; i < nint; i++) r[i] -= op->coef[t] * Z[i];
  }
}

/* Interior solve by fast diagonalization of the separable part: delta = (S (x) S (x) S) Lambda^-1 (S (x) S (x) S)^T r,
   S the M-orthonormal generalized eigenvectors of (G^separable, M) per direction and class. Exact for the Laplacian; for
   the C0IP biharmonic it drops the mixed L (x) L terms (seed 000, eq. 28/29). work: 2 ni^dim values. */
void VPL_FN(VPPatchSolveFDM)(const VPL_OP *op, const int cls[], const VPL_V *r, VPL_V *delta, VPL_V *work)
{
  const PetscInt ni = op->ni, dim = op->dim, n = ni * ni * (dim == 3 ? ni : 1);
  const PetscInt ext[3] = {ni, ni, dim == 3 ? ni : 1};
  VPL_V         *a = work, *b = work + n;
  const VPL_S   *l0 = op->lambda[0][cls[0]], *l1 = op->lambda[1][cls[1]], *l2 = op->lambda[2][dim == 3 ? cls[2] : 0];

  VPL_APPLY(0, ext, ni, 0, ni, op->St[0][cls[0]], r, a);
  VPL_APPLY(1, ext, ni, 0, ni, op->St[1][cls[1]], a, b);
  if (dim == 3) VPL_APPLY(2, ext, ni, 0, ni, op->St[2][cls[2]], b, a);
  else
    for (PetscInt i = 0; i < n; i++) a[i] = b[i];
  for (PetscInt l = 0; l < ext[2]; l++)
    for (PetscInt j = 0; j < ni; j++)
      for (PetscInt i = 0; i < ni; i++) {
        const VPL_S lam = l0[i] + l1[j] + (dim == 3 ? l2[l] : 0);
        a[(l * ni + j) * ni + i] /= lam;
      }
  VPL_APPLY(0, ext, ni, 0, ni, op->S[0][cls[0]], a, b);
  if (dim == 3) {
    VPL_APPLY(1, ext, ni, 0, ni, op->S[1][cls[1]], b, a);
    VPL_APPLY(2, ext, ni, 0, ni, op->S[2][cls[2]], a, delta);
  } else VPL_APPLY(1, ext, ni, 0, ni, op->S[1][cls[1]], b, delta);
}

#undef VPL_FN
#undef VPL_CAT
#undef VPL_CAT_
