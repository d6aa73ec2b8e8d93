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

/* The even-odd contraction (VPEOMat, vpimpl.h) along dir of a tensor of extents ext (x fastest): input nodes [off, off +
   B->nin) of ext[dir], output B->nout nodes in place of ext[dir]. Every lane does the operations of one patch in the
   same order. */
static inline __attribute__((always_inline)) void VPL_FN(VPEOBody)(PetscInt nin, PetscInt n, PetscInt off, PetscInt inner, PetscInt outer, const VPL_EOMAT *B, const VPL_V *in, VPL_V *out)
{
  const PetscInt ce = (nin + 1) / 2, co = nin / 2, nout = B->nout, re = (nout + 1) / 2, ro = nout / 2;

  for (PetscInt o = 0; o < outer; o++)
    for (PetscInt a = 0; a < inner; a++) {
      const VPL_V *x = in + (o * n + off) * inner + a;
      VPL_V       *y = out + o * nout * inner + a;
      VPL_V        e[(VP_MAX_NE + 1) / 2], d[(VP_MAX_NE + 1) / 2];
      if (B->split) {
        for (PetscInt j = 0; j < co; j++) {
          e[j] = x[j * inner] + x[(nin - 1 - j) * inner];
          d[j] = x[j * inner] - x[(nin - 1 - j) * inner];
        }
        if (ce > co) e[co] = x[co * inner];
      } else {
        for (PetscInt j = 0; j < ce; j++) e[j] = x[j * inner];
        for (PetscInt j = 0; j < co; j++) d[j] = x[(ce + j) * inner];
      }
      for (PetscInt i = 0; i < re; i++) {
        const VPL_S *E = B->E + i * ce;
        VPL_V        p = e[0] * E[0];
        for (PetscInt j = 1; j < ce; j++) p += e[j] * E[j];
        if (i < ro) {
          const VPL_S *O = B->O + i * co;
          VPL_V        q = d[0] * O[0];
          for (PetscInt j = 1; j < co; j++) q += d[j] * O[j];
          if (B->combine) {
            y[i * inner]              = p + q;
            y[(nout - 1 - i) * inner] = p - q;
          } else {
            y[i * inner]        = p;
            y[(re + i) * inner] = q;
          }
        } else y[i * inner] = p; /* the middle row (nout odd): its odd part is zero */
      }
    }
}

static void VPL_FN(VPEOApply)(PetscInt dir, const PetscInt ext[], PetscInt off, const VPL_EOMAT *B, const VPL_V *in, VPL_V *out)
{
  PetscInt inner, outer;

  BrickTensorLines(dir, ext, &inner, &outer);
  switch (B->nin) { /* the input length as a literal, so that the sums unroll */
#define VPL_EOCASE(N) \
  case N: \
    VPL_FN(VPEOBody)(N, ext[dir], off, inner, outer, B, in, out); \
    return;
    VPL_EOCASE(3) VPL_EOCASE(5) VPL_EOCASE(7) VPL_EOCASE(9) VPL_EOCASE(11) VPL_EOCASE(13) VPL_EOCASE(15) VPL_EOCASE(17) VPL_EOCASE(21)
#undef VPL_EOCASE
  default:
    VPL_FN(VPEOBody)(B->nin, ext[dir], off, inner, outer, B, in, out);
  }
}

/* Local residual r = b - (A xbar) on the patch interior: A is the brick's Kronecker form, whose rows of the interior are,
   per term, Kronecker products of the rows of the 1D factors; so the evaluation is rectangular sum factorization
   (closure in, interior out), the x contraction shared by the terms with the same x kind. work: the kernel part of
   PCVertexPatchWorkSize (values). */
void VPL_FN(VPPatchResidual)(const VPL_OP *op, const VPL_EO *eo, const int cls[], const VPL_V *xbar, const VPL_V *b, VPL_V *r, VPL_V *work)
{
  const PetscInt ne = op->ne, ni = op->ni, dim = op->dim, nx = ni * ne * (dim == 3 ? ne : 1), nint = ni * ni * (dim == 3 ? ni : 1);
  VPL_V         *X[BRICK_LINE_NKINDS] = {work, work + nx, work + 2 * nx}, *XY = work + 3 * nx, *Z = XY + ni * ni * ne;
  int            done[BRICK_LINE_NKINDS] = {0, 0, 0};

  for (PetscInt i = 0; i < nint; i++) r[i] = b[i];
  for (PetscInt t = 0; t < op->nterms; t++) {
    const int a = op->kind[t][0], bk = op->kind[t][1], c = op->kind[t][2];
    PetscInt  ext[3] = {ne, ne, dim == 3 ? ne : 1};
/* the interior class's rows in even-odd form where they have it, else the full rows */
#define VPL_RES(dir, kd, in, out) \
  do { \
    if (eo && cls[dir] == 1 && eo->res[kd][dir]) VPL_FN(VPEOApply)(dir, ext, op->coloff[kd], &eo->R[kd][dir], in, out); \
    else VPL_APPLY(dir, ext, ni, op->coloff[kd], op->ncols[kd], op->R[kd][dir][cls[dir]], in, out); \
  } while (0)
    if (!done[a]) {
      VPL_RES(0, a, xbar, X[a]);
      done[a] = 1;
    }
    ext[0] = ni;
    if (dim == 2) VPL_RES(1, bk, X[a], Z);
    else {
      VPL_RES(1, bk, X[a], XY);
      ext[1] = ni;
      VPL_RES(2, c, XY, Z);
    }
#undef VPL_RES
    for (PetscInt i = 0; i < nint; i++) r[i] -= op->coef[t] * Z[i];
  }
}

/* Interior solve by fast diagonalization of the separable part: delta = (S (x) S (x) S) Lambda^-1 (S (x) S (x) S)^T r,
   S the M-orthonormal generalized eigenvectors of (G^separable, M) per direction and class. Exact for the Laplacian; for
   the C0IP biharmonic it drops the mixed L (x) L terms (seed 000, eq. 28/29). work: 2 ni^dim values. */
void VPL_FN(VPPatchSolveFDM)(const VPL_OP *op, const VPL_EO *eo, const int cls[], const VPL_V *r, VPL_V *delta, VPL_V *work)
{
  const PetscInt ni = op->ni, dim = op->dim, n = ni * ni * (dim == 3 ? ni : 1);
  const PetscInt ext[3] = {ni, ni, dim == 3 ? ni : 1};
  VPL_V         *a = work, *b = work + n;
  int            use[3] = {0, 0, 0}; /* direction d in the even-odd eigenbasis (eigenvalues in its order) */
  const VPL_S   *lam[3];

  for (PetscInt d = 0; d < 3; d++) {
    const int c = d < dim ? cls[d] : 0;
    use[d]      = eo && d < dim && c == 1 && eo->fdm[d];
    lam[d]      = use[d] ? eo->lambda[d] : op->lambda[d][c];
  }
/* S^T (to the eigenbasis: which 0) or S (back: which 1) along dir */
#define VPL_FDM(dir, which, in, out) \
  do { \
    if (use[dir]) VPL_FN(VPEOApply)(dir, ext, 0, which ? &eo->S[dir] : &eo->St[dir], in, out); \
    else VPL_APPLY(dir, ext, ni, 0, ni, which ? op->S[dir][cls[dir]] : op->St[dir][cls[dir]], in, out); \
  } while (0)
  const VPL_S *l0 = lam[0], *l1 = lam[1], *l2 = lam[2];

  VPL_FDM(0, 0, r, a);
  VPL_FDM(1, 0, a, b);
  if (dim == 3) VPL_FDM(2, 0, b, a);
  else
    for (PetscInt i = 0; i < n; i++) a[i] = b[i];
  for (PetscInt l = 0; l < ext[2]; l++)
    for (PetscInt j = 0; j < ni; j++)
      for (PetscInt i = 0; i < ni; i++) {
        const VPL_S lam = l0[i] + l1[j] + (dim == 3 ? l2[l] : 0);
        a[(l * ni + j) * ni + i] /= lam;
      }
  VPL_FDM(0, 1, a, b);
  if (dim == 3) {
    VPL_FDM(1, 1, b, a);
    VPL_FDM(2, 1, a, delta);
  } else VPL_FDM(1, 1, b, delta);
#undef VPL_FDM
}

#undef VPL_FN
#undef VPL_CAT
#undef VPL_CAT_
/* the parameters of this instantiation, so that the next one defines its own */
#undef VPL_V
#undef VPL_S
#undef VPL_OP
#undef VPL_EO
#undef VPL_EOMAT
#undef VPL_SUF
#undef VPL_APPLY
