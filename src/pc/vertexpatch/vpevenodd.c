/* The even-odd form of the interior class's 1D patch matrices for the host kernels (VPEvenOdd, vpimpl.h;
   vplane_template.h applies it). On a uniform grid the patch of an interior vertex is symmetric under the reflection of
   each direction: its residual rows R (interior rows x closure columns, the window [coloff, coloff + ncols) centred) are
   centro-symmetric, and the generalized eigenvectors of its separable pencil are each even or odd. Both properties are
   checked here on the matrices themselves, to a tolerance far above rounding and far below any real asymmetry; a
   matrix that fails keeps its full form. The GPU kernels keep the full matrices. */
#include "vpimpl.h"

#define VP_EO_TOL 1e-10 /* relative: the matrices come out symmetric to about 1e-15 */

/* R (nout x nin, row-major) centro-symmetric: E = the even halves, O = the odd ones, from the rows i < ceil(nout/2) */
static PetscBool VPEOFromCentroSymmetric(PetscInt nout, PetscInt nin, const PetscReal R[], VPEOMat_d *B)
{
  const PetscInt ce = (nin + 1) / 2, co = nin / 2, re = (nout + 1) / 2, ro = nout / 2;
  PetscReal      big = 0.0, diff = 0.0;

  for (PetscInt i = 0; i < nout * nin; i++) big = PetscMax(big, PetscAbsReal(R[i]));
  for (PetscInt i = 0; i < nout; i++)
    for (PetscInt j = 0; j < nin; j++) diff = PetscMax(diff, PetscAbsReal(R[i * nin + j] - R[(nout - 1 - i) * nin + nin - 1 - j]));
  if (!(big > 0) || diff > VP_EO_TOL * big || nin < 3 || nout < 3) return PETSC_FALSE;
  B->nin     = (int)nin;
  B->nout    = (int)nout;
  B->split   = 1;
  B->combine = 1;
  for (PetscInt i = 0; i < re; i++)
    for (PetscInt j = 0; j < ce; j++) B->E[i * ce + j] = j < co ? 0.5 * (R[i * nin + j] + R[i * nin + nin - 1 - j]) : R[i * nin + j];
  for (PetscInt i = 0; i < ro; i++)
    for (PetscInt j = 0; j < co; j++) B->O[i * co + j] = 0.5 * (R[i * nin + j] - R[i * nin + nin - 1 - j]);
  return PETSC_TRUE;
}

/* S (n x n, row-major, column v the eigenvector v): each column even or odd, ceil(n/2) even ones. St maps values to the
   coefficients [even | odd] (split, blocks), S the coefficients back (blocks, combine); lambda in the same order. */
static PetscBool VPEOFromEigenvectors(PetscInt n, const PetscReal S[], const PetscReal lambda[], VPEOMat_d *St, VPEOMat_d *Sb, PetscReal lam[])
{
  const PetscInt h = (n + 1) / 2, m = n / 2;
  PetscInt       even[VP_MAX_NI], odd[VP_MAX_NI], ne = 0, no = 0;
  PetscReal      big = 0.0;

  if (n < 3) return PETSC_FALSE;
  for (PetscInt i = 0; i < n * n; i++) big = PetscMax(big, PetscAbsReal(S[i]));
  for (PetscInt v = 0; v < n; v++) {
    PetscReal de = 0.0, dodd = 0.0;
    for (PetscInt i = 0; i < n; i++) {
      de   = PetscMax(de, PetscAbsReal(S[(n - 1 - i) * n + v] - S[i * n + v]));
      dodd = PetscMax(dodd, PetscAbsReal(S[(n - 1 - i) * n + v] + S[i * n + v]));
    }
    if (de <= VP_EO_TOL * big && ne < h) even[ne++] = v;
    else if (dodd <= VP_EO_TOL * big && no < m) odd[no++] = v;
    else return PETSC_FALSE; /* a vector of neither parity (a multiple eigenvalue mixes them): keep the full matrices */
  }
  St->nin = St->nout = Sb->nin = Sb->nout = (int)n;
  St->split = 1;
  St->combine = 0;
  Sb->split = 0;
  Sb->combine = 1;
  for (PetscInt j = 0; j < h; j++) {
    lam[j] = lambda[even[j]];
    for (PetscInt i = 0; i < h; i++) St->E[j * h + i] = S[i * n + even[j]]; /* row j: e_i = r_i + r_{n-1-i}, e_m = r_m */
    for (PetscInt i = 0; i < h; i++) Sb->E[i * h + j] = S[i * n + even[j]]; /* rows i <= the middle */
  }
  for (PetscInt j = 0; j < m; j++) {
    lam[h + j] = lambda[odd[j]];
    for (PetscInt i = 0; i < m; i++) St->O[j * m + i] = S[i * n + odd[j]];
    for (PetscInt i = 0; i < m; i++) Sb->O[i * m + j] = S[i * n + odd[j]];
  }
  return PETSC_TRUE;
}

static void VPEOToFloat(const VPEOMat_d *a, VPEOMat_f *b)
{
  b->nin     = a->nin;
  b->nout    = a->nout;
  b->split   = a->split;
  b->combine = a->combine;
  for (PetscInt i = 0; i < VP_MAX_NI * VP_MAX_NE; i++) {
    b->E[i] = (float)a->E[i];
    b->O[i] = (float)a->O[i];
  }
}

/* flops of one line of a contraction, nout x nin: the full matrix, or (eo) its even-odd form */
static PetscLogDouble VPEOLineFlops(PetscInt nout, PetscInt nin, PetscBool eo)
{
  const PetscInt ce = (nin + 1) / 2, co = nin / 2, re = (nout + 1) / 2, ro = nout / 2;

  if (!eo) return 2.0 * nout * nin;
  return 2.0 * co + 2.0 * re * ce + 2.0 * ro * co + 2.0 * ro; /* sums and differences, E, O, the mirrored pairs */
}

/*
   PCVertexPatchFlops - the flops of one patch of position classes cls[] (for -log_view): the residual's contractions
   (local residual), the fast-diagonalization solve or the dense triangular solves, and the update; each contraction in
   the form the host kernels use for it (vp->eo_d)
*/
PetscLogDouble PCVertexPatchFlops(const PC_VertexPatch *vp, const int cls[])
{
  const VPPatchOp_d  *op = &vp->op_d;
  const VPEvenOdd_d  *eo = vp->eo_d;
  const PetscInt      ne = op->ne, ni = op->ni, dim = op->dim, nint = dim == 3 ? ni * ni * ni : ni * ni;
  PetscLogDouble      f  = 2.0 * nint; /* the update */
  PetscBool           xdone[BRICK_LINE_NKINDS] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
#define VP_EO(kd, d) ((PetscBool)(eo && cls[d] == 1 && eo->res[kd][d]))

  if (vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL)
    for (PetscInt t = 0; t < op->nterms; t++) {
      const int a = op->kind[t][0], b = op->kind[t][1], c = op->kind[t][2];
      if (!xdone[a]) f += (dim == 3 ? ne * ne : ne) * VPEOLineFlops(ni, op->ncols[a], VP_EO(a, 0));
      xdone[a] = PETSC_TRUE;
      f += (dim == 3 ? ni * ne : ni) * VPEOLineFlops(ni, op->ncols[b], VP_EO(b, 1));
      if (dim == 3) f += ni * ni * VPEOLineFlops(ni, op->ncols[c], VP_EO(c, 2));
      f += 2.0 * nint;
    }
#undef VP_EO
  if (vp->solver == PC_VERTEXPATCH_FDM) {
    for (PetscInt d = 0; d < dim; d++) f += 2 * (nint / ni) * VPEOLineFlops(ni, ni, (PetscBool)(eo && cls[d] == 1 && eo->fdm[d]));
    f += nint;
  } else f += 2.0 * nint * nint;
  return f;
}

/*
   PCVertexPatchSetUpEvenOdd - the even-odd form of class 1 (interior patches) of the patch operator in double and
   float, for the host kernels; nothing with -pc_vertexpatch_even_odd false. Called after the patch operator is made.
*/
PetscErrorCode PCVertexPatchSetUpEvenOdd(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  const PetscInt  ni = vp->op_d.ni, ne = vp->op_d.ne, dim = vp->op_d.dim;
  VPEvenOdd_d    *eo;
  PetscBool       any = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscFree(vp->eo_d));
  PetscCall(PetscFree(vp->eo_f));
  if (!vp->evenodd) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&vp->eo_d));
  eo = vp->eo_d;
  for (PetscInt d = 0; d < dim; d++) {
    for (PetscInt a = 0; a < BRICK_LINE_NKINDS; a++) {
      PetscBool used = PETSC_FALSE;
      for (PetscInt t = 0; t < vp->op_d.nterms; t++) used = (PetscBool)(used || vp->op_d.kind[t][d] == a);
      /* the column window must be centred in the closure for the reflection to map it onto itself */
      if (!used || 2 * vp->op_d.coloff[a] + vp->op_d.ncols[a] != ne) continue;
      eo->res[a][d] = VPEOFromCentroSymmetric(ni, vp->op_d.ncols[a], vp->op_d.R[a][d][1], &eo->R[a][d]);
      any           = (PetscBool)(any || eo->res[a][d]);
    }
    eo->fdm[d] = VPEOFromEigenvectors(ni, vp->op_d.S[d][1], vp->op_d.lambda[d][1], &eo->St[d], &eo->S[d], eo->lambda[d]);
    any        = (PetscBool)(any || eo->fdm[d]);
  }
  if (!any) { /* no interior class (fewer than 4 cells in every direction) or k = 1 */
    PetscCall(PetscFree(vp->eo_d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscNew(&vp->eo_f));
  for (PetscInt d = 0; d < dim; d++) {
    for (PetscInt a = 0; a < BRICK_LINE_NKINDS; a++) {
      vp->eo_f->res[a][d] = eo->res[a][d];
      if (eo->res[a][d]) VPEOToFloat(&eo->R[a][d], &vp->eo_f->R[a][d]);
    }
    vp->eo_f->fdm[d] = eo->fdm[d];
    if (eo->fdm[d]) {
      VPEOToFloat(&eo->St[d], &vp->eo_f->St[d]);
      VPEOToFloat(&eo->S[d], &vp->eo_f->S[d]);
      for (PetscInt i = 0; i < ni; i++) vp->eo_f->lambda[d][i] = (float)eo->lambda[d][i];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
