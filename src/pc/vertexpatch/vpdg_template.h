/* The per-patch kernels of the DG smoother (vpdg.c), written once for a value type VPDG_T and instantiated for one patch
   (VPDG_T = PetscScalar, VPDG_APPLY = BrickTensorApply1D) and for a SIMD group of patches of one class triple, one per
   lane (VPDG_T = BrickLaneD, VPDG_APPLY = BrickLaneApply1D): every lane does the operations of one patch in the same
   order. work: arrays of dg->pstride values (the patch's (2(k+1))^d). */
#define VPDG_CAT_(a, b) a##b
#define VPDG_CAT(a, b)  VPDG_CAT_(a, b)
#define VPDG_FN(name)   VPDG_CAT(name, VPDG_SUF)

/* out = (x)_d B_d in, B_d of direction d's class: QT or ET (which 0, 2: patch values -> local space), Q or E (1, 3:
   local space -> patch values). in and out may not overlap; work holds two arrays. */
static void VPDG_FN(VPDGTensor)(const VPDG *dg, PetscInt which, const PetscInt cls[], const VPDG_T in[], VPDG_T out[], VPDG_T work[])
{
  const PetscBool tolocal = (PetscBool)(which == 0 || which == 2);
  PetscInt        ext[3]  = {1, 1, 1};
  const VPDG_T   *src     = in;
  VPDG_T         *bufs[2] = {work, work + dg->pstride};

  for (PetscInt d = 0; d < dg->dim; d++) ext[d] = tolocal ? dg->np : dg->line[d][cls[d]].m;
  for (PetscInt d = 0; d < dg->dim; d++) {
    const VPDGLine  *L    = &dg->line[d][cls[d]];
    const PetscReal *B    = which == 0 ? L->QT : which == 1 ? L->Q : which == 2 ? L->ET : L->E;
    const PetscInt   mout = tolocal ? L->m : dg->np;
    VPDG_T          *dst  = d == dg->dim - 1 ? out : bufs[d % 2];
    VPDG_APPLY(d, ext, mout, B, src, dst);
    ext[d] = mout;
    src    = dst;
  }
}

/* delta = E A_j^-1 E^T r by fast diagonalization (exact: the DG patch matrix is separable); work: three arrays */
static void VPDG_FN(VPDGSolveFDM)(const VPDG *dg, const PetscInt cls[], const VPDG_T r[], VPDG_T delta[], VPDG_T work[])
{
  const PetscInt dim = dg->dim;
  VPDG_T        *g = work, *tw = work + dg->pstride;
  PetscInt       m[3] = {1, 1, 1}, nm = 1;

  for (PetscInt d = 0; d < dim; d++) {
    m[d] = dg->line[d][cls[d]].m;
    nm *= m[d];
  }
  VPDG_FN(VPDGTensor)(dg, 0, cls, r, g, tw);
  for (PetscInt q = 0; q < nm; q++) {
    const PetscInt ii[3] = {q % m[0], (q / m[0]) % m[1], q / (m[0] * m[1])};
    PetscReal      lam   = 0.0;
    for (PetscInt d = 0; d < dim; d++) lam += dg->line[d][cls[d]].lambda[ii[d]];
    g[q] /= lam;
  }
  VPDG_FN(VPDGTensor)(dg, 1, cls, g, delta, tw);
}

/* r = b - A_patch u on the patch values (A_patch: the Kronecker sum of the two-cell 1D forms); work: two arrays */
static void VPDG_FN(VPDGLocalResidual)(const VPDG *dg, const PetscInt cls[], const VPDG_T u[], const VPDG_T b[], VPDG_T r[], VPDG_T work[])
{
  const PetscInt np = dg->np, dim = dg->dim, npd = dim == 3 ? np * np * np : np * np, ext[3] = {np, np, dim == 3 ? np : 1};
  VPDG_T        *t = work, *s = work + dg->pstride;

  for (PetscInt q = 0; q < npd; q++) r[q] = b[q];
  for (PetscInt d = 0; d < dim; d++) {
    const VPDG_T *src = u;
    for (PetscInt e = 0; e < dim; e++) {
      const PetscReal *B   = e == d ? dg->line[e][cls[e]].Ares : dg->line[e][cls[e]].M;
      VPDG_T          *dst = (e % 2) ? s : t;
      VPDG_APPLY(e, ext, np, B, src, dst);
      src = dst;
    }
    for (PetscInt q = 0; q < npd; q++) r[q] -= src[q];
  }
}

#undef VPDG_FN
#undef VPDG_CAT
#undef VPDG_CAT_
#undef VPDG_T
#undef VPDG_SUF
#undef VPDG_APPLY
