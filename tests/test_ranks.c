static const char help[] = "Prints partition-independent fingerprints of one application of each brick operation on any number of ranks:\n"
                           "the operator, the grid transfer both ways, one multiplicative and one additive vertex-patch step from a nonzero\n"
                           "iterate. tests/run.sh compares the lines of runs on different rank counts (relative 1e-12): every operation must\n"
                           "give the one-rank vector to round-off, whatever the partition (also agglomerated coarse levels).\n"
                           "Options: -dim 2|3, -degree k, -cells (coarse grid), -refine (of the fine level), and -dm_brick_*.\n";

#include "checks.h"
#include "pc/vertexpatch/vpimpl.h" /* the processing order the setup made (CheckSchedule) */
#if defined(VP_HAVE_CUDA)
#  include <petsc/private/vecimpl.h> /* pinned_memory: whether PETSc made a pinned host copy of a device vector */
#endif

/* MatCreateVecs(M): its right and left vectors have the local sizes rn, ln and belong to the bricks rdm, ldm */
static PetscErrorCode CheckCreateVecs(const char what[], Mat M, DM rdm, PetscInt rn, DM ldm, PetscInt ln)
{
  Vec      r, l;
  DM       rd, ld;
  PetscInt rs, ls;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(M, &r, &l));
  PetscCall(VecGetLocalSize(r, &rs));
  PetscCall(VecGetLocalSize(l, &ls));
  PetscCall(VecGetDM(r, &rd));
  PetscCall(VecGetDM(l, &ld));
  PetscCall(CheckTrue(what, (PetscBool)(rs == rn && ls == ln && rd == rdm && ld == ldm)));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&l));
  PetscFunctionReturn(0);
}

/* smooth and rough parts, the same function of the coordinates on every partition */
static PetscErrorCode Wavy(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  const PetscReal s = *(PetscReal *)ctx;

  *u = PetscSinReal(3.1 * x[0] + 1.3 * s) * PetscCosReal(2.3 * x[1] - s) + 0.3 * PetscSinReal(41.0 * x[0] + 29.0 * x[1] + s);
  if (dim == 3) *u *= PetscCosReal(1.7 * x[2] + 0.5 * s) + 0.2 * PetscSinReal(37.0 * x[2]);
  return 0;
}

/* ||y|| and (y, w) with w a fixed function: partition-independent numbers */
static PetscErrorCode Fingerprint(DM dm, const char what[], Vec y)
{
  Vec       w;
  PetscReal nrm, seed = 0.77;
  PetscScalar dot;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(dm, &w));
  PetscCall(DMBrickInterpolateFunction(dm, Wavy, &seed, w));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(VecDot(y, w, &dot));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fingerprint %s norm %.16e dot %.16e\n", what, (double)nrm, (double)PetscRealPart(dot)));
  PetscCall(DMRestoreGlobalVector(dm, &w));
  PetscFunctionReturn(0);
}

/* The schedule of a set-up PCVERTEXPATCH on this partition, against the definitions: every owned vertex (the rank of
   cell v owns vertex v) is one patch, once; the patches of color c (a range of the processing order) have that color
   (parity class v mod 2, and with red-black the parity of sum_d floor(v_d/2)); the split schedule of several ranks has
   a color's patches whose closure reaches a shared layer first, then the others. */
static PetscErrorCode CheckSchedule(PC pc)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;
  const PetscInt  g = brick->op.ghost_cells, k = brick->degree, w = g * k;
  PetscInt        lo[3] = {0, 0, 0}, n[3] = {1, 1, 1}, owned = 1, bad = 0, all[2];
  char           *seen, what[256];

  PetscFunctionBeginUser;
  if (vp->dg) PetscFunctionReturn(0); /* DG: one lattice box per color, checked by the DG solves */
  for (PetscInt d = 0; d < brick->dim; d++) {
    lo[d] = PetscMax(brick->cstart[d], 1);
    n[d]  = PetscMax(PetscMin(brick->cend[d], brick->cells[d]) - lo[d], 0);
    owned *= n[d];
  }
  bad += vp->npatches != owned;
  PetscCall(PetscCalloc1(owned + 1, &seen));
  for (PetscInt c = 0; c < vp->ncolors; c++)
    for (PetscInt p = vp->colorptr[c]; p < vp->colorptr[c + 1]; p++) {
      PetscInt v[3], color = 0, in = 1, idx = 0, shared = 0;
      PCVertexPatchGetVertex(vp, p, v);
      for (PetscInt d = 2; d >= 0; d--) {
        in  = in && v[d] >= lo[d] && v[d] < lo[d] + n[d];
        idx = idx * n[d] + (v[d] - lo[d]);
      }
      if (!in || p >= owned) {
        bad++;
        continue;
      }
      bad += seen[idx]++ != 0;
      for (PetscInt d = 0; d < brick->dim; d++) color |= (v[d] & 1) << d;
      if (brick->op.redblack) color |= (((v[0] >> 1) + (v[1] >> 1) + (v[2] >> 1)) & 1) << brick->dim;
      bad += vp->ncolors > 1 && color != c;
      for (PetscInt d = 0; d < brick->dim; d++)
        if ((brick->cstart[d] > 0 && (v[d] - g) * k - 1 < brick->ostart[d] + w) || (brick->cend[d] < brick->cells[d] && (v[d] + g) * k - 1 > brick->ostart[d] + brick->owidth[d] - 1 - w)) shared = 1;
      if (vp->split) bad += shared != (p < vp->batchptr[c * (vp->nbatches + 1) + 1]);
    }
  all[0] = bad;
  all[1] = vp->split;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, all, 2, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)pc)));
  PetscCall(PetscSNPrintf(what, sizeof(what), "schedule of the %s step: every owned vertex one patch of its color%s (index arithmetic, %" PetscInt_FMT " boxes on rank 0)", vp->type == PC_VERTEXPATCH_ADDITIVE ? "additive" : "multiplicative",
                          all[1] ? ", the shared ones first" : "", vp->nbox));
  PetscCall(CheckTrue(what, (PetscBool)(all[0] == 0)));
  PetscCall(PetscFree(seen));
  PetscFunctionReturn(0);
}

static PetscErrorCode SmoothStep(DM dm, Mat A, const char type[], Vec b, Vec x0, Vec y)
{
  PC                          pc;
  Vec                         w;
  PetscInt                    its;
  PCRichardsonConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCVERTEXPATCH));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCVertexPatchSetType(pc, strcmp(type, "additive") ? PC_VERTEXPATCH_MULTIPLICATIVE : PC_VERTEXPATCH_ADDITIVE));
  PetscCall(PCSetUp(pc));
  PetscCall(CheckSchedule(pc));
  PetscCall(VecDuplicate(b, &w));
  PetscCall(VecCopy(x0, y));
  PetscCall(PCApplyRichardson(pc, b, y, w, 0.0, 0.0, 0.0, 1, PETSC_FALSE, &its, &reason));
  if (!strcmp(type, "multiplicative")) {
    /* the product of the step's result (on several GPUs from the sweep's ghosted vector, ghosts refreshed: -info says
       so) against the product of a copy of it (the ordinary global-to-local path) */
    Vec       c, z1, z2;
    PetscReal d, n;
    PetscCall(VecDuplicate(y, &c));
    PetscCall(VecDuplicate(y, &z1));
    PetscCall(VecDuplicate(y, &z2));
    PetscCall(MatMult(A, y, z1));
    PetscCall(VecCopy(y, c));
    PetscCall(MatMult(A, c, z2));
    PetscCall(VecNorm(z2, NORM_2, &n));
    PetscCall(VecAXPY(z1, -1.0, z2));
    PetscCall(VecNorm(z1, NORM_2, &d));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "product after the step against the product of a copy: relative difference %.3e\n", (double)(d / n)));
    PetscCall(VecDestroy(&c));
    PetscCall(VecDestroy(&z1));
    PetscCall(VecDestroy(&z2));
  }
  PetscCall(VecDestroy(&w));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt        dim = 2, degree = 2, refine = 2, cells[3] = {2, 2, 2};
  const PetscReal lower[3] = {0.0, -0.5, 0.25}, upper[3] = {1.5, 1.0, 1.0};
  DM              dm, dmc;
  Mat             A, P;
  Vec             b, x0, y, yc, xc;
  PetscReal       s1 = 0.1, s2 = 1.9;
  PetscMPIInt     size;
  char            what[128];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-degree", &degree, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(CreateBrick(dim, cells, lower, upper, degree, refine, &dm));
  PetscCall(DMCoarsen(dm, MPI_COMM_NULL, &dmc));
  PetscCall(DMView(dm, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMView(dmc, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(DMBrickCreateOperator(dm, MATSHELL, &A));
  PetscCall(DMBrickCreateInterpolation(dmc, dm, MATSHELL, &P));
  PetscCall(DMCreateGlobalVector(dm, &b));
#if defined(VP_HAVE_CUDA)
  {
    /* device vectors of the brick have no host copy until the host reads them (gpu_check asserts it on several ranks:
       VECMPICUDA's own creation pins and zeroes a host array of the whole size) */
    PetscBool        device;
    PetscOffloadMask mask;
    PetscMPIInt      rank;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &device, VECSEQCUDA, VECMPICUDA, ""));
    if (device) {
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      PetscCall(VecGetOffloadMask(b, &mask));
      PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "new global vector on rank %d: offload mask %s, pinned host copy %d\n", rank, PetscOffloadMaskToString(mask), (int)b->pinned_memory));
      {
        /* and its VecDuplicate() (PCMG's and the KSP's work vectors): the same, with the brick still attached */
        Vec d;
        DM  ddm;
        PetscCall(VecDuplicate(b, &d));
        PetscCall(VecGetOffloadMask(d, &mask));
        PetscCall(VecGetDM(d, &ddm));
        PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "duplicated global vector on rank %d: offload mask %s, pinned host copy %d, DM %s\n", rank, PetscOffloadMaskToString(mask), (int)d->pinned_memory, ddm == dm ? "the brick" : "lost"));
        PetscCall(VecDestroy(&d));
      }
      PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
    }
  }
#endif
  {
    /* MatCreateVecs() of the operator and of the transfer: the bricks' own global vectors (layout and DM) */
    PetscInt bn, cn;
    PetscCall(DMCreateGlobalVector(dmc, &xc));
    PetscCall(VecGetLocalSize(b, &bn));
    PetscCall(VecGetLocalSize(xc, &cn));
    PetscCall(CheckCreateVecs("operator's MatCreateVecs: the fine brick's vectors", A, dm, bn, dm, bn));
    PetscCall(CheckCreateVecs("transfer's MatCreateVecs: coarse right, fine left", P, dmc, cn, dm, bn));
  }
  {
    /* duplicates have storage of their own (with -dm_brick_slabs the brick's global vectors share ghosted local arrays,
       and PETSc's own duplicate would hand the original's to the copy) */
    Vec      *d;
    PetscReal n[3];
    PetscInt  N;
    PetscCall(VecGetSize(b, &N));
    PetscCall(VecSet(b, 1.0));
    PetscCall(VecDuplicateVecs(b, 2, &d));
    PetscCall(VecSet(d[0], 2.0));
    PetscCall(VecSet(d[1], 3.0));
    PetscCall(VecNorm(b, NORM_1, &n[0]));
    PetscCall(VecNorm(d[0], NORM_1, &n[1]));
    PetscCall(VecNorm(d[1], NORM_1, &n[2]));
    PetscCall(CheckTrue("VecDuplicateVecs(): each vector its own storage", (PetscBool)(n[0] == N && n[1] == 2.0 * N && n[2] == 3.0 * N)));
    PetscCall(VecDestroyVecs(2, &d));
    PetscCall(VecDestroy(&xc));
  }
  PetscCall(VecDuplicate(b, &x0));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(DMCreateGlobalVector(dmc, &xc));
  PetscCall(VecDuplicate(xc, &yc));
  PetscCall(DMBrickInterpolateFunction(dm, Wavy, &s1, b));
  PetscCall(DMBrickInterpolateFunction(dm, Wavy, &s2, x0));
  PetscCall(DMBrickInterpolateFunction(dmc, Wavy, &s2, xc));

  PetscCall(MatMult(A, x0, y));
  PetscCall(Fingerprint(dm, "operator", y));
  {
    /* a vector whose array was moved (VecPlaceArray()) no longer lies in its ghosted local array (-dm_brick_slabs): the
       product takes the ordinary copies and gives the same vector (host vectors: a device vector's placed array is a
       host one, copied into the same device storage) */
    PetscBool device;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x0, &device, VECSEQCUDA, VECMPICUDA, ""));
    if (!device) {
      Vec                xp, yp;
      PetscScalar       *arr;
      const PetscScalar *xa;
      PetscInt           n;
      PetscReal          rel = 1.0; /* (a failure if never set) */
      PetscCall(VecGetLocalSize(x0, &n));
      PetscCall(PetscMalloc1(n + 1, &arr));
      PetscCall(VecGetArrayRead(x0, &xa));
      PetscCall(PetscArraycpy(arr, xa, n));
      PetscCall(VecRestoreArrayRead(x0, &xa));
      PetscCall(VecDuplicate(x0, &xp));
      PetscCall(VecDuplicate(y, &yp));
      PetscCall(VecPlaceArray(xp, arr));
      PetscCall(MatMult(A, xp, yp));
      PetscCall(RelativeDifference(yp, y, &rel));
      PetscCall(CheckLessThan("product of a vector with a placed array against the vector's own", rel, 1e-14));
      PetscCall(VecResetArray(xp));
      PetscCall(VecDestroy(&xp));
      PetscCall(VecDestroy(&yp));
      PetscCall(PetscFree(arr));
    }
  }
  PetscCall(MatMult(P, xc, y));
  PetscCall(Fingerprint(dm, "prolongation", y));
  PetscCall(MatMultTranspose(P, x0, yc));
  PetscCall(Fingerprint(dmc, "restriction", yc));
  PetscCall(SmoothStep(dm, A, "multiplicative", b, x0, y));
  PetscCall(Fingerprint(dm, "multiplicative_step", y));
  PetscCall(SmoothStep(dm, A, "additive", b, x0, y));
  PetscCall(Fingerprint(dm, "additive_step", y));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(what, sizeof(what), "ran on %d rank(s)", size));
  PetscCall(CheckTrue(what, PETSC_TRUE));

  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&yc));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(DMDestroy(&dmc));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
