/* SIMD across patches on the CPU: the host sweeps of the colored and batched schedules take the patches of one color (or
   batch) in groups of one position class and run a group's patches in the lanes of GCC vectors, as deal.II's matrix-free
   operators vectorize across cells. The groups are made once at setup (PCVertexPatchSetUpLanes); VPProcessLanes is
   VPProcessPatch (vpapply.c) on a group. Patches of one color write disjoint nodes and read none that another patch of the
   color writes, so processing them in groups gives what the one-patch loop gives, bit for bit in the portable build
   (tests vp_simd_*). */
#include "vpimpl.h"

#define VPL_V   VPLaneD
#define VPL_S   double
#define VPL_OP  VPPatchOp_d
#define VPL_EO    VPEvenOdd_d
#define VPL_EOMAT VPEOMat_d
#define VPL_SUF Lanes_d
#define VPL_APPLY BrickLaneApply1D
#include "vplane_template.h"

#define VPL_V   VPLaneF
#define VPL_S   float
#define VPL_OP  VPPatchOp_f
#define VPL_EO    VPEvenOdd_f
#define VPL_EOMAT VPEOMat_f
#define VPL_SUF Lanes_f
#define VPL_APPLY BrickLaneApply1D_f
#include "vplane_template.h"

/* vectors of the group's scratch: closure, interior right-hand side, residual, correction, and the kernels' work (the
   residual's contractions, then the solve's two arrays) */
static PetscInt VPLaneVectors(const PC_VertexPatch *vp, PetscInt *nc, PetscInt *n)
{
  const PetscInt ne = vp->op_d.ne, ni = vp->op_d.ni, dim = vp->op_d.dim;
  const PetscInt nx = dim == 3 ? ni * ne * ne : ni * ne, kernel = BRICK_LINE_NKINDS * nx + ni * ni * ne + 3 * (dim == 3 ? ni * ni * ni : ni * ni);

  *nc = dim == 3 ? ne * ne * ne : ne * ne;
  *n  = dim == 3 ? ni * ni * ni : ni * ni;
  return *nc + 3 * *n + kernel;
}

/* bytes of one thread's scratch of VPProcessLanes: the vectors and one lane's dense solve */
size_t PCVertexPatchLaneWorkBytes(const PC_VertexPatch *vp)
{
  PetscInt     nc, n;
  const size_t vecs  = (size_t)VPLaneVectors(vp, &nc, &n) * sizeof(VPLaneD);
  const size_t dense = (size_t)n * sizeof(PetscScalar);

  return (vecs + dense + 63) / 64 * 64;
}

/* Gathers the group's patches into the lanes of W-wide arrays of scalar type T (an empty lane gets zeros, works on them
   and writes nothing): each patch's interior right-hand side and (local residual) its closure, the values VPProcessPatch
   gathers. Row by row along x, where the local array is contiguous: the interior is a
   box of the local array (its nodes are never on the domain boundary); a closure row is zero where it lies outside the patch
   cells in two directions, and outside the patch cells in x where it lies outside in y or z, and at domain boundary nodes,
   which lie at the ends of a row. */
#define VP_GATHER_LANES(T) \
  for (PetscInt l = 0; l < W; l++) { \
    const PetscInt s1 = L->gw[0], s2 = L->gw[0] * L->gw[1]; \
    if (grp[l][0] < 0) { \
      for (PetscInt i = 0; i < n; i++) bs[i * W + l] = 0; \
      if (local) \
        for (PetscInt i = 0; i < nc; i++) xs[i * W + l] = 0; \
      continue; \
    } \
    VPClosureOffsets(L, grp[l], off, m); \
    ibase[l] = off[0][first] + off[1][first] + (dim == 3 ? off[2][first] : 0); \
    for (PetscInt z = 0, i = 0; z < (dim == 3 ? ni : 1); z++) \
      for (PetscInt y = 0; y < ni; y++) { \
        const PetscScalar *row = ba + ibase[l] + y * s1 + z * s2; \
        for (PetscInt x = 0; x < ni; x++, i++) bs[i * W + l] = (T)row[x]; \
      } \
    if (local) { \
      PetscInt xlo = 0, xhi = m[0] - 1, c = 0; \
      while (off[0][xlo] < 0) xlo++; \
      while (off[0][xhi] < 0) xhi--; \
      for (PetscInt z = 0; z < m[2]; z++) \
        for (PetscInt y = 0; y < m[1]; y++, c += m[0]) { \
          const PetscInt out = (y < ilo || y > ihi) + (dim == 3 && (z < ilo || z > ihi)); \
          PetscInt       x0 = out ? PetscMax(xlo, ilo) : xlo, x1 = out ? PetscMin(xhi, ihi) : xhi; \
          if (out > 1 || off[1][y] < 0 || off[2][z] < 0) x1 = -1; \
          for (PetscInt x = 0; x < m[0]; x++) xs[(c + x) * W + l] = 0; \
          if (x1 >= x0) { \
            const PetscScalar *row = xa + off[0][x0] + off[1][y] + off[2][z]; \
            for (PetscInt x = x0; x <= x1; x++) xs[(c + x) * W + l] = (T)row[x - x0]; \
          } \
        } \
    } \
  }

/* target[interior of lane l] += omega ds[lane l], row by row */
#define VP_SCATTER_LANE() \
  do { \
    const PetscInt s1 = L->gw[0], s2 = L->gw[0] * L->gw[1]; \
    for (PetscInt z = 0, i = 0; z < (dim == 3 ? ni : 1); z++) \
      for (PetscInt y = 0; y < ni; y++) { \
        PetscScalar *row = target + ibase[l] + y * s1 + z * s2; \
        for (PetscInt x = 0; x < ni; x++, i++) row[x] += vp->omega * (PetscScalar)ds[i * W + l]; \
      } \
  } while (0)

/* One group (grp: the vertices of vp->nlanes patches of one class, grp[l][0] = -1 in empty lanes): r = local residual
   (or R_j of the global residual in ba), delta = A_j^-1 r, target[interior] += omega delta, for every patch of the
   group. Plain C, for OpenMP regions: returns 0 or LAPACK's error code of a dense solve. */
int VPProcessLanes(const PC_VertexPatch *vp, const VPLayout *L, const PetscInt grp[][3], const PetscScalar *xa, const PetscScalar *ba, PetscBool local, PetscScalar *target, char *work)
{
  const PetscInt ni = 2 * L->k - 1, dim = L->dim, ilo = vp->op_d.inner_lo, ihi = vp->op_d.inner_hi, first = (L->g - 1) * L->k + 1, W = vp->nlanes;
  PetscInt       nc, n, off[3][VP_MAX_NE], m[3];
  const PetscInt nvec = VPLaneVectors(vp, &nc, &n);
  PetscScalar   *dense = (PetscScalar *)(work + (size_t)nvec * sizeof(VPLaneD));
  PetscInt       ibase[VP_LANES_F];
  int            cls[3] = {0, 0, 0};

  for (PetscInt d = 0; d < dim; d++) cls[d] = (int)PCVertexPatchClass(grp[0][d], L->nk[d] / L->k);
  if (vp->precision == PC_VERTEXPATCH_DOUBLE) {
    VPLaneD *xbar = (VPLaneD *)work, *bint = xbar + nc, *r = bint + n, *delta = r + n, *kw = delta + n;
    double  *xs = (double *)xbar, *bs = (double *)bint, *ds = (double *)delta;

    VP_GATHER_LANES(double);
    if (local) VPPatchResidualLanes_d(&vp->op_d, vp->eo_d, cls, xbar, bint, r, kw);
    else
      for (PetscInt i = 0; i < n; i++) r[i] = bint[i];
    if (vp->solver == PC_VERTEXPATCH_FDM) VPPatchSolveFDMLanes_d(&vp->op_d, vp->eo_d, cls, r, delta, kw);
    else {
      const PetscInt key = vp->clsmap[0][cls[0]] + 3 * vp->clsmap[1][cls[1]] + 9 * vp->clsmap[2][cls[2]];
      const double  *rs  = (const double *)r;
      for (PetscInt l = 0; l < W && grp[l][0] >= 0; l++) {
        int info;
        for (PetscInt i = 0; i < n; i++) dense[i] = rs[i * W + l];
        info = VPPatchSolveDense(n, vp->dense[key], dense);
        if (info) return info;
        for (PetscInt i = 0; i < n; i++) ds[i * W + l] = dense[i];
      }
    }
    for (PetscInt l = 0; l < W && grp[l][0] >= 0; l++) VP_SCATTER_LANE();
  } else {
    /* single precision: each patch rounded to float, worked on in float, its correction added in double */
    VPLaneF *xbar = (VPLaneF *)work, *bint = xbar + nc, *r = bint + n, *delta = r + n, *kw = delta + n;
    float   *xs = (float *)xbar, *bs = (float *)bint, *ds = (float *)delta;

    VP_GATHER_LANES(float);
    if (local) VPPatchResidualLanes_f(&vp->op_f, vp->eo_f, cls, xbar, bint, r, kw);
    else
      for (PetscInt i = 0; i < n; i++) r[i] = bint[i];
    VPPatchSolveFDMLanes_f(&vp->op_f, vp->eo_f, cls, r, delta, kw);
    for (PetscInt l = 0; l < W && grp[l][0] >= 0; l++) VP_SCATTER_LANE();
  }
  return 0;
}

/* The patches [start, end) of one batch (they write disjoint nodes) in SIMD groups of one position class each: the
   patches go in processing order into one pending group per class, and a group runs when it is full; the classes'
   last groups run with empty lanes at the end. No list of groups is kept: the grouping does not change any patch's
   arithmetic, so every grouping gives the same iterate. Plain C, for OpenMP regions: returns 0 or LAPACK's error. */
int VPProcessLanesRange(const PC_VertexPatch *vp, const VPLayout *L, PetscInt start, PetscInt end, const PetscScalar *xa, const PetscScalar *ba, PetscBool local, PetscScalar *target, char *work)
{
  const PetscInt W = vp->nlanes;
  PetscInt       pending[27][VP_LANES_F][3], count[27] = {0};
  VPPatchWalk    w;

  VPPatchWalkInit(&w, vp, start);
  for (PetscInt p = start; p < end; p++, VPPatchWalkNext(&w)) {
    PetscInt key = 0, v[3];
    VPPatchWalkVertex(&w, v);
    for (PetscInt d = L->dim - 1; d >= 0; d--) key = 3 * key + PCVertexPatchClass(v[d], L->nk[d] / L->k);
    for (PetscInt d = 0; d < 3; d++) pending[key][count[key]][d] = v[d];
    count[key]++;
    if (count[key] == W) {
      const int e = VPProcessLanes(vp, L, pending[key], xa, ba, local, target, work);
      if (e) return e;
      count[key] = 0;
    }
  }
  for (PetscInt key = 0; key < 27; key++)
    if (count[key]) {
      for (PetscInt l = count[key]; l < W; l++) pending[key][l][0] = -1; /* an empty lane */
      const int e = VPProcessLanes(vp, L, pending[key], xa, ba, local, target, work);
      if (e) return e;
    }
  return 0;
}

/* The SIMD groups' lane count and per-thread scratch of the host steps of the colored and batched schedules when
   -pc_vertexpatch_simd is on (the groups themselves are formed as the patches come, VPProcessLanesRange): made by the
   host steps' setup (make true; false: the setup's reset, freed) or their first step, never for a level whose steps all
   run on the GPU. */
PetscErrorCode PCVertexPatchSetUpLanes(PC_VertexPatch *vp, PetscBool make)
{
  PetscFunctionBegin;
  if (make && vp->lanes_ready) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(vp->lanework_alloc));
  vp->lanework    = NULL;
  vp->nlanes      = 1;
  vp->lanes_ready = make;
  if (!make || !vp->simd || vp->schedule == PC_VERTEXPATCH_SINGLE) PetscFunctionReturn(PETSC_SUCCESS);
  vp->nlanes         = vp->precision == PC_VERTEXPATCH_DOUBLE ? VP_LANES_D : VP_LANES_F;
  vp->lanework_bytes = PCVertexPatchLaneWorkBytes(vp);
  PetscCall(PetscMalloc1(vp->nthreads * vp->lanework_bytes + 64, &vp->lanework_alloc));
  vp->lanework = vp->lanework_alloc + (64 - (size_t)((uintptr_t)vp->lanework_alloc % 64)) % 64; /* the lane vectors' alignment */
  PetscFunctionReturn(PETSC_SUCCESS);
}
