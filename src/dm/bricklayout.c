/* DMSetUp for DMBRICK: checks the description, distributes the cells over the ranks, computes the boxes of interior
   Gauss-Lobatto nodes (DG: cells) and the halo graph, and the vector and scatter helpers on top of them. */
#include "brickimpl.h"
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#  include <petscdevice_cuda.h>
#endif

PETSC_INTERN PetscErrorCode DMBrickOperatorSetUp_Private(DM);
PETSC_INTERN PetscErrorCode DMBrickSetUpPartition_Private(DM);
PETSC_INTERN PetscErrorCode DMBrickCreateBoxes_Private(DM);

static const char dirname[] = "xyz";

static PetscErrorCode BrickCheckDescription(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  MPI_Comm  comm  = PetscObjectComm((PetscObject)dm);

  PetscFunctionBegin;
  PetscCheck(brick->dim == 2 || brick->dim == 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_dim %" PetscInt_FMT ": allowed 2 or 3", brick->dim);
  PetscCheck(brick->degree >= 1 && brick->degree <= BRICK_MAX_DEGREE, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_degree %" PetscInt_FMT ": allowed 1..%d", brick->degree, BRICK_MAX_DEGREE);
  for (PetscInt d = 0; d < brick->dim; d++) {
    PetscCheck(brick->cells0[d] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_cells: %" PetscInt_FMT " cells along %c; allowed: a positive number per direction", brick->cells0[d], dirname[d]);
    PetscCheck(!PetscIsInfOrNanReal(brick->lower[d]) && !PetscIsInfOrNanReal(brick->upper[d]), comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_domain: along %c the ends must be finite numbers", dirname[d]);
    PetscCheck(brick->upper[d] > brick->lower[d], comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_domain: along %c the upper end %g is not above the lower end %g; allowed: %c1 > %c0", dirname[d], (double)brick->upper[d], (double)brick->lower[d],
               dirname[d], dirname[d]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix type named by an option must exist: try it on a 1 x 1 matrix, quietly, and name the option. */
static PetscErrorCode BrickCheckMatType(MatType type, const char option[])
{
  Mat            M;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, &M));
  PetscCall(MatSetSizes(M, 1, 1, 1, 1));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetType(M, type);
  PetscCall(PetscPopErrorHandler());
  PetscCall(MatDestroy(&M));
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s %s: not a matrix type; use shell (matrix-free) or an assembled type such as aij", option, type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMSetUp_Brick(DM dm)
{
  DM_Brick *brick                                     = (DM_Brick *)dm->data;
  PetscErrorCode (*computeops)(KSP, Mat, Mat, void *) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_Setup, dm, 0, 0, 0));
  PetscCall(BrickCheckDescription(dm));
  PetscCall(BrickCheckMatType(dm->mattype, "-dm_mat_type"));
  PetscCall(BrickCheckMatType(brick->coarse_mattype, "-dm_brick_coarse_mat_type"));
  PetscCall(DMBrickOperatorSetUp_Private(dm));
  {
    /* the operator decides the family: sipg is DG, laplace and c0ip are CG; a family set by the user must agree */
    const DMBrickFamily family = brick->op.dg ? DMBRICK_DG : DMBRICK_CG;
    PetscCheck(!brick->family_set || brick->family == family, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_INCOMP,
               "-dm_brick_family %s with -dm_brick_operator %s: the operator is a %s discretization; allowed: -dm_brick_family %s (or leave it out)", DMBrickFamilies[brick->family], brick->opname, DMBrickFamilies[family], DMBrickFamilies[family]);
    brick->family = family;
  }
  PetscCheck(brick->degree >= brick->op.min_degree, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_degree %" PetscInt_FMT " with -dm_brick_operator %s: allowed degrees %" PetscInt_FMT "..%d", brick->degree, brick->opname,
             brick->op.min_degree, BRICK_MAX_DEGREE);
  PetscCall(DMBrickCheckDomain_Private(dm));
  PetscCall(BrickBasisNodes(brick->degree, brick->nodes));
  if (brick->partition == DMBRICK_PARTITION_P4EST) {
    PetscCall(DMBrickSetUpForest_Private(dm));
    PetscCall(DMSetDimension(dm, brick->dim));
    PetscCall(DMKSPGetComputeOperators(dm, &computeops, NULL));
    if (!computeops) PetscCall(DMKSPSetComputeOperators(dm, DMBrickComputeOperators_Private, NULL));
    PetscCall(PetscLogEventEnd(DMBRICK_Setup, dm, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMBrickSetUpBelow_Private(dm));
  PetscCall(DMBrickSetUpPartition_Private(dm));
  PetscCall(DMBrickCreateBoxes_Private(dm));
  PetscCall(DMBrickSetUpInPlace_Private(dm));
  PetscCall(BrickBasisNodes(brick->degree, brick->nodes));
  PetscCall(DMSetDimension(dm, brick->dim));
  PetscCall(DMKSPGetComputeOperators(dm, &computeops, NULL));
  if (!computeops) PetscCall(DMKSPSetComputeOperators(dm, DMBrickComputeOperators_Private, NULL));
  PetscCall(PetscLogEventEnd(DMBRICK_Setup, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(VP_HAVE_CUDA)
static PetscErrorCode VecDuplicate_BrickDevice(Vec, Vec *);

/* a device vector of n local entries on comm, its device array zeroed (allocated) now, duplicated as it was made */
static PetscErrorCode BrickDeviceVectorCreate(MPI_Comm comm, PetscInt n, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(VecCreateMPICUDAWithArrays(comm, 1, n, PETSC_DETERMINE, NULL, NULL, v));
  PetscCall(VecZeroEntries(*v)); /* the device array now, so that a first read does not allocate in a timed phase */
  PetscCall(VecSetOperation(*v, VECOP_DUPLICATE, (void (*)(void))VecDuplicate_BrickDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecDuplicate() of the brick's device vectors on several ranks: PETSc's duplicate makes the device array at the first
   use, which for PCMG's and the KSP's work vectors falls into the first solve; this one makes another such vector, its
   device array zeroed now */
static PetscErrorCode VecDuplicate_BrickDevice(Vec v, Vec *y)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(BrickDeviceVectorCreate(PetscObjectComm((PetscObject)v), n, y));
  PetscCall(PetscObjectListDuplicate(((PetscObject)v)->olist, &((PetscObject)*y)->olist)); /* its DM, as PETSc's duplicate */
  PetscCall(PetscFunctionListDuplicate(((PetscObject)v)->qlist, &((PetscObject)*y)->qlist));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* A vector of the brick's global layout with n local entries on comm, zero. Device vectors on several ranks are made
   without PETSc's host copy: VecSetType(VECMPICUDA) (PETSc 3.22) allocates a pinned host array of the whole local size and
   zeroes it, besides the device array, and frees it again at VecDestroy(); at 2.5e8 DoFs per GPU that was about 0.3 s per
   vector each way, most of the several-GPU set-up and, for the two vectors KSPSetUp() makes from the DM and KSPSolve()
   destroys, 0.6 s at the start of the first solve. The brick's vectors live on the device: their host array is made
   (pinned) when the host first reads them. VECSEQCUDA makes neither array before its first use. */
PetscErrorCode DMBrickCreateVector_Private(DM dm, MPI_Comm comm, PetscInt n, Vec *v)
{
  PetscMPIInt size;
  PetscBool   device, seq = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMBrickOnDevice_Private(dm, &device));
  if (device) PetscCall(PetscStrcmp(dm->vectype, "seqcuda", &seq)); /* seqcuda on several ranks: VecSetType's error */
  if (device && size > 1 && !seq) {
#if defined(VP_HAVE_CUDA)
    PetscCall(BrickDeviceVectorCreate(comm, n, v));
#endif
  } else {
    PetscCall(VecCreate(comm, v));
    PetscCall(VecSetSizes(*v, n, PETSC_DETERMINE));
    PetscCall(VecSetType(*v, dm->vectype));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCreateGlobalVector_Brick(DM dm, Vec *v)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() on the brick first");
  PetscCall(DMBrickCheckDeviceVectorLength_Private(dm, PetscObjectComm((PetscObject)dm), brick->gwidth[0] * brick->gwidth[1] * brick->gwidth[2] * brick->dof));
  if (brick->inplace) { /* slabs: inside a ghosted local array (brickinplace.c) */
    PetscCall(DMBrickCreateInPlaceVector_Private(dm, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMBrickCreateVector_Private(dm, PetscObjectComm((PetscObject)dm), brick->owidth[0] * brick->owidth[1] * brick->owidth[2] * brick->dof, v));
  PetscCall(VecSetDM(*v, dm));
  PetscCall(DMBrickVecSetView_Private(*v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCreateLocalVector_Brick(DM dm, Vec *v)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() on the brick first");
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, brick->gwidth[0] * brick->gwidth[1] * brick->gwidth[2] * brick->dof, PETSC_DETERMINE));
  PetscCall(VecSetType(*v, dm->vectype));
  PetscCall(VecSetDM(*v, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One rank holds the level: local and global vectors have the same layout, so a scatter is a copy (or a sum) of the
   arrays: on the device when both vectors are device vectors, else on the host (a host vector and a device one, as
   when a host reference is computed with a device brick, go through the host like the DMDA's scatter did). */
static PetscErrorCode BrickSingleBoxScatter(Vec from, InsertMode mode, Vec to)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n, nto;
  PetscBool          device;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(VecGetLocalSize(to, &nto));
  PetscCheck(n == nto, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "local and global vectors of the brick differ in size: %" PetscInt_FMT " and %" PetscInt_FMT, n, nto);
  PetscCall(DMBrickVecsOnDevice_Private(from, to, &device));
  if (device) {
    PetscMemType ma, mb;
    PetscCall(VecGetArrayReadAndMemType(from, &a, &ma));
    if (mode == INSERT_VALUES) PetscCall(VecGetArrayWriteAndMemType(to, &b, &mb));
    else PetscCall(VecGetArrayAndMemType(to, &b, &mb));
    PetscCheck(PetscMemTypeDevice(ma) && PetscMemTypeDevice(mb), PETSC_COMM_SELF, PETSC_ERR_PLIB, "device vectors without device arrays");
    PetscCall(DMBrickDeviceCopy_Private(n, (PetscBool)(mode == ADD_VALUES), a, b));
    PetscCall(VecRestoreArrayReadAndMemType(from, &a));
    if (mode == INSERT_VALUES) PetscCall(VecRestoreArrayWriteAndMemType(to, &b));
    else PetscCall(VecRestoreArrayAndMemType(to, &b));
  } else {
    PetscCall(VecGetArrayRead(from, &a));
    if (mode == INSERT_VALUES) {
      PetscCall(VecGetArrayWrite(to, &b));
      PetscCall(PetscArraycpy(b, a, n));
      PetscCall(VecRestoreArrayWrite(to, &b));
    } else {
      PetscCall(VecGetArray(to, &b));
      for (PetscInt i = 0; i < n; i++) b[i] += a[i];
      PetscCall(VecRestoreArray(to, &b));
    }
    PetscCall(VecRestoreArrayRead(from, &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks hold the level. To local: the owned block is copied into its place in the ghosted local array (x rows
   at a time) and the ghost shell comes through the halo graph (a Bcast); to global: with ADD_VALUES the ghost shell is
   summed into its owners (a Reduce), then the owned block is copied or summed back. On the device when both vectors
   are device vectors (a box kernel; the halo GPU to GPU where -dm_brick_gpu_exchange allows, brickexchange.c), else
   on the host. */
static PetscErrorCode BrickHaloScatter(DM dm, Vec from, Vec to, PetscBool toglobal, InsertMode mode)
{
  DM_Brick          *brick = (DM_Brick *)dm->data;
  const PetscBool    add   = (PetscBool)(mode == ADD_VALUES);
  const PetscInt     dof = brick->dof, *os = brick->ostart, *ow = brick->owidth, *gs = brick->gstart, *gw = brick->gwidth;
  const PetscInt     row = ow[0] * dof, loff = (((os[2] - gs[2]) * gw[1] + (os[1] - gs[1])) * gw[0] + (os[0] - gs[0])) * dof;
  const PetscInt     lrow = gw[0] * dof, lplane = gw[0] * gw[1] * dof, grow = ow[0] * dof, gplane = ow[0] * ow[1] * dof;
  const PetscScalar *a;
  PetscScalar       *b;
  PetscBool          device;

  PetscFunctionBegin;
  PetscCall(DMBrickVecsOnDevice_Private(from, to, &device));
#if defined(VP_HAVE_CUDA)
  if (device) {
    int err = 0;
    PetscCall(VecCUDAGetArrayRead(from, &a));
    PetscCall(VecCUDAGetArray(to, &b));
    if (toglobal) {
      if (add) PetscCall(DMBrickSFDevice_Private(dm, brick->halo, PETSC_TRUE, a, b, PETSC_TRUE));
      err = VPCudaBoxMove((int)row, (int)ow[1], (int)ow[2], a + loff, (size_t)lrow, (size_t)lplane, b, (size_t)grow, (size_t)gplane, (int)add);
    } else {
      err = VPCudaBoxMove((int)row, (int)ow[1], (int)ow[2], a, (size_t)grow, (size_t)gplane, b + loff, (size_t)lrow, (size_t)lplane, (int)add);
      if (!err) PetscCall(DMBrickSFDevice_Private(dm, brick->halo, PETSC_FALSE, a, b, add));
    }
    PetscCall(VecCUDARestoreArray(to, &b));
    PetscCall(VecCUDARestoreArrayRead(from, &a));
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the brick's owned-block copy: %s", VPCudaErrorString(err));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  (void)device;
  PetscCall(VecGetArrayRead(from, &a));
  PetscCall(VecGetArray(to, &b));
  if (toglobal && add) {
    PetscCall(PetscSFReduceBegin(brick->halo, MPIU_SCALAR, a, b, MPIU_SUM));
    PetscCall(PetscSFReduceEnd(brick->halo, MPIU_SCALAR, a, b, MPIU_SUM));
  }
  for (PetscInt z = 0; z < ow[2]; z++)
    for (PetscInt y = 0; y < ow[1]; y++) {
      const PetscScalar *src = toglobal ? a + loff + z * lplane + y * lrow : a + z * gplane + y * grow;
      PetscScalar       *dst = toglobal ? b + z * gplane + y * grow : b + loff + z * lplane + y * lrow;
      if (add)
        for (PetscInt i = 0; i < row; i++) dst[i] += src[i];
      else PetscCall(PetscArraycpy(dst, src, row));
    }
  if (!toglobal) {
    PetscCall(PetscSFBcastBegin(brick->halo, MPIU_SCALAR, a, b, add ? MPIU_SUM : MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(brick->halo, MPIU_SCALAR, a, b, add ? MPIU_SUM : MPI_REPLACE));
  }
  PetscCall(VecRestoreArray(to, &b));
  PetscCall(VecRestoreArrayRead(from, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A global vector and its in-place local (brickinplace.c): the owned values are shared, so to local only the ghosts come
   (INSERT_VALUES), and to global INSERT_VALUES moves nothing (g is marked as changed: its device values are the new
   ones) while ADD_VALUES sums the ghosts into their owners. */
static PetscErrorCode BrickInPlaceScatter(DM dm, Vec from, Vec to, PetscBool toglobal, InsertMode mode)
{
  DM_Brick          *brick = (DM_Brick *)dm->data;
  const PetscBool    add   = (PetscBool)(mode == ADD_VALUES);
  const PetscScalar *a;
  PetscScalar       *b;
  PetscBool          device;

  PetscFunctionBegin;
  PetscCheck(toglobal || !add, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMGlobalToLocal() with ADD_VALUES into the in-place local vector of the same global vector");
  if (!toglobal && !brick->inplace_said) {
    PetscCall(PetscInfo(dm, "level %" PetscInt_FMT ": global vectors stored in place (-dm_brick_slabs): DMGlobalToLocal() into their own local vectors fetches the ghosts only\n", brick->level));
    brick->inplace_said = PETSC_TRUE;
  }
  PetscCall(DMBrickVecsOnDevice_Private(from, to, &device));
#if defined(VP_HAVE_CUDA)
  if (device) {
    if (toglobal && !add) { /* write access without a transfer: a stale host copy must not come back over the values */
      PetscCall(VecCUDAGetArrayWrite(to, &b));
      PetscCall(VecCUDARestoreArrayWrite(to, &b));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(VecCUDAGetArrayRead(from, &a));
    PetscCall(VecCUDAGetArray(to, &b));
    PetscCall(DMBrickSFDevice_Private(dm, brick->halo, toglobal, a, b, add));
    PetscCall(VecCUDARestoreArray(to, &b));
    PetscCall(VecCUDARestoreArrayRead(from, &a));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  (void)device;
  if (toglobal && !add) {
    PetscCall(VecGetArrayWrite(to, &b));
    PetscCall(VecRestoreArrayWrite(to, &b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(from, &a));
  PetscCall(VecGetArray(to, &b));
  if (toglobal) {
    PetscCall(PetscSFReduceBegin(brick->halo, MPIU_SCALAR, a, b, MPIU_SUM));
    PetscCall(PetscSFReduceEnd(brick->halo, MPIU_SCALAR, a, b, MPIU_SUM));
  } else {
    PetscCall(PetscSFBcastBegin(brick->halo, MPIU_SCALAR, a, b, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(brick->halo, MPIU_SCALAR, a, b, MPI_REPLACE));
  }
  PetscCall(VecRestoreArray(to, &b));
  PetscCall(VecRestoreArrayRead(from, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Global to local and back. Several ranks: the owned block as a copy, the ghosts through the halo graph (what a DMDA's
   scatter does, without its O(N) index arrays); local to global with INSERT_VALUES moves the owned values only, with
   ADD_VALUES also sums the ghosts into their owners. A global vector and its in-place local: the ghosts only. One
   rank: a copy (the brick's vectors have the same layout there and are empty elsewhere); an inactive rank has nothing
   to send or receive. All the work is done in the Begin half. */
static PetscErrorCode BrickScatter(DM dm, Vec from, InsertMode mode, Vec to, PetscBool toglobal)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCheck(mode == INSERT_VALUES || mode == ADD_VALUES, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "brick scatters support INSERT_VALUES and ADD_VALUES, not mode %d", (int)mode);
  if (brick->halo) {
    Vec inplace;
    PetscCall(DMBrickGetInPlaceLocal_Private(dm, toglobal ? to : from, &inplace));
    if (inplace && inplace == (toglobal ? from : to)) PetscCall(BrickInPlaceScatter(dm, from, to, toglobal, mode));
    else PetscCall(BrickHaloScatter(dm, from, to, toglobal, mode));
  }
  else if (brick->activecomm != MPI_COMM_NULL) PetscCall(BrickSingleBoxScatter(from, mode, to));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The local mirror (several ranks, device vectors): the vertex-patch sweep works in a ghosted local vector and ends by
   copying its owned values into the global vector x; PCMG's residual then takes the product of that same x, whose
   DMGlobalToLocal() would copy the owned values back into the operator's own local vector. Instead the product reads the
   sweep's vector and only its ghosts are refreshed (the halo exchange): one copy of the level less per V-cycle (1.7 ms of
   a finest level of 451M DoFs on an H200). Identity and object states guard it: any change of x or of the local vector
   since the record makes the product take the ordinary path. */
PetscErrorCode DMBrickSetLocalMirror_Private(DM dm, Vec g, Vec l)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)g, &brick->mirror.gid));
  PetscCall(PetscObjectStateGet((PetscObject)g, &brick->mirror.gstate));
  PetscCall(PetscObjectStateGet((PetscObject)l, &brick->mirror.lstate));
  brick->mirror.l = l;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* forgets l (before its owner destroys it) */
PetscErrorCode DMBrickClearLocalMirror_Private(DM dm, Vec l)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  if (brick->mirror.l == l) brick->mirror.l = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ghosted local form of g for a product: g's in-place local, or the mirror, with refreshed ghosts, else own filled by
   DMGlobalToLocal() */
PetscErrorCode DMBrickGlobalToLocalMirror_Private(DM dm, Vec g, Vec own, Vec *used)
{
  Vec inplace;

  PetscFunctionBegin;
  *used = own;
  PetscCall(DMBrickGetInPlaceLocal_Private(dm, g, &inplace)); /* g stored in place: its own local vector, ghosts fetched */
  if (inplace) {
    PetscCall(DMGlobalToLocal(dm, g, INSERT_VALUES, inplace));
    *used = inplace;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(VP_HAVE_CUDA)
  DM_Brick *brick = (DM_Brick *)dm->data;
  if (brick->mirror.l && brick->halo) {
    PetscObjectId    gid;
    PetscObjectState gs, ls;
    PetscBool        device;
    PetscCall(PetscObjectGetId((PetscObject)g, &gid));
    PetscCall(PetscObjectStateGet((PetscObject)g, &gs));
    PetscCall(PetscObjectStateGet((PetscObject)brick->mirror.l, &ls));
    PetscCall(DMBrickVecsOnDevice_Private(g, brick->mirror.l, &device));
    if (device && gid == brick->mirror.gid && gs == brick->mirror.gstate && ls == brick->mirror.lstate) {
      const PetscScalar *a;
      PetscScalar       *b;
      PetscCall(VecCUDAGetArrayRead(g, &a));
      PetscCall(VecCUDAGetArray(brick->mirror.l, &b));
      PetscCall(DMBrickSFDevice_Private(dm, brick->halo, PETSC_FALSE, a, b, PETSC_FALSE)); /* the ghosts only */
      PetscCall(VecCUDARestoreArray(brick->mirror.l, &b));
      PetscCall(VecCUDARestoreArrayRead(g, &a));
      PetscCall(PetscObjectStateGet((PetscObject)brick->mirror.l, &brick->mirror.lstate)); /* its owned values still hold g */
      PetscCall(PetscInfo(dm, "level %" PetscInt_FMT ": the product reads the sweep's ghosted vector (ghosts refreshed only)\n", brick->level));
      *used = brick->mirror.l;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(DMGlobalToLocal(dm, g, INSERT_VALUES, own));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalBegin_Brick(DM dm, Vec g, InsertMode mode, Vec l)
{
  PetscFunctionBegin;
  PetscCall(BrickScatter(dm, g, mode, l, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalEnd_Brick(DM dm, Vec g, InsertMode mode, Vec l)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalBegin_Brick(DM dm, Vec l, InsertMode mode, Vec g)
{
  PetscFunctionBegin;
  PetscCall(BrickScatter(dm, l, mode, g, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalEnd_Brick(DM dm, Vec l, InsertMode mode, Vec g)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  /* g changed on the active ranks: its state must change on every rank, or an inactive rank would answer a later
     VecNorm() from its cached value and skip the reduction the others enter */
  if (brick->activecomm == MPI_COMM_NULL) PetscCall(PetscObjectStateIncrease((PetscObject)g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGetLocalToGlobalMapping_Brick(DM dm)
{
  ISLocalToGlobalMapping map;

  PetscFunctionBegin;
  PetscCall(DMBrickGetLocalToGlobal_Private(dm, &map));
  PetscCall(PetscObjectReference((PetscObject)map));
  dm->ltogmap = map;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickCreateOperator - the brick's operator as a matrix of the given type, whatever the level

   Collective

   Input Parameters:
+  dm   - the brick
-  type - `MATSHELL` (matrix-free) or an assembled type such as `MATAIJ`

   Output Parameter:
.  A - the operator

   Note:
   `DMCreateMatrix()` calls this with `-dm_mat_type` on levels above the coarse grid and with
   `-dm_brick_coarse_mat_type` on the coarse grid and below.

   Level: intermediate

.seealso: `DMBRICK`, `DMCreateMatrix()`
@*/
PetscErrorCode DMBrickCreateOperator(DM dm, MatType type, Mat *A)
{
  DM_Brick *brick;
  PetscBool isshell;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() first");
  PetscCall(PetscStrcmp(type, MATSHELL, &isshell));
  if (isshell) {
    PetscCall(brick->op.createshell(dm, A));
  } else {
    /* exact preallocation: a MATPREALLOCATOR pass over the same element loop (the DMDA's box stencil would
       store up to ((2k+1)/(k+2))^dim times more entries, all explicit zeros) */
    Mat      pre;
    Vec      v;
    PetscInt n, N;
    PetscCall(DMGetGlobalVector(dm, &v));
    PetscCall(VecGetLocalSize(v, &n));
    PetscCall(VecGetSize(v, &N));
    PetscCall(DMRestoreGlobalVector(dm, &v));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), &pre));
    PetscCall(MatSetType(pre, MATPREALLOCATOR));
    PetscCall(MatSetSizes(pre, n, n, N, N));
    PetscCall(MatSetUp(pre));
    PetscCall(brick->op.assemble(dm, pre));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), A));
    PetscCall(MatSetType(*A, type));
    PetscCall(MatSetSizes(*A, n, n, N, N));
    PetscCall(MatPreallocatorPreallocate(pre, PETSC_TRUE, *A));
    PetscCall(MatDestroy(&pre));
    PetscCall(brick->op.assemble(dm, *A));
    PetscCall(MatSetDM(*A, dm));
  }
  /* lets a consumer (PCVERTEXPATCH) check that a matrix is this brick's operator (the DM does not hold the
     matrix, so the reference makes no cycle) */
  PetscCall(PetscObjectCompose((PetscObject)*A, "DMBrick_operator_of", (PetscObject)dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coarsest level of the hierarchy (or one below it) uses the coarse type when its problem is small enough for an
   exact solve (-dm_brick_coarse_direct_max), so that PCMG's default coarse solver (LU) finds an assembled matrix; every
   other level stays matrix-free, and so does a coarse problem over the bound (brickcoarse.c gives it Chebyshev/Jacobi). */
PetscErrorCode DMCreateMatrix_Brick(DM dm, Mat *A)
{
  DM_Brick *brick  = (DM_Brick *)dm->data;
  PetscBool direct = PETSC_FALSE;

  PetscFunctionBegin;
  if (brick->level <= -brick->below) PetscCall(DMBrickCoarseDirect_Private(dm, &direct));
  if (brick->forest) PetscCall(DMBrickForestCheckOperator_Private(dm, "-dm_brick_operator"));
  PetscCall(DMBrickCreateOperator(dm, direct ? brick->coarse_mattype : dm->mattype, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- boxes of full-grid nodes ---- */

PetscErrorCode DMBrickOwnedCellBox_Private(DM dm, BrickBox *box)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    box->lo[d] = brick->cstart[d];
    box->hi[d] = brick->cend[d] - 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickOwnedNodeBox_Private(DM dm, BrickBox *box)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    if (brick->cend[0] == brick->cstart[0]) { /* an inactive rank: the empty box */
      box->lo[d] = 0;
      box->hi[d] = -1;
    } else if (d < brick->dim) {
      box->lo[d] = PetscMax(brick->cstart[d] * brick->degree, 1);
      box->hi[d] = brick->cend[d] * brick->degree - 1;
    } else box->lo[d] = box->hi[d] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum {
  BOX_FROM_ARRAY,
  BOX_INSERT_TO_ARRAY
} BoxCopyMode;

/* Copies between a box of full-grid nodes and a DMDA array with corner start[] and width[] (interior numbering: full-grid
   node - 1), the owned or the ghosted one; boundary nodes read as zero and are not written. Along each direction the box's
   interior nodes are one contiguous range [in0, in1), so a row of the box is zeros, one contiguous run of the array, zeros:
   no index arrays, no allocation (the c0ip product and the transfers call this in every application). */
static PetscErrorCode BrickBoxCopy(DM dm, PetscBool ghosted, const BrickBox *box, BoxCopyMode mode, PetscScalar boxv[], PetscScalar array[])
{
  DM_Brick       *brick = (DM_Brick *)dm->data;
  const PetscInt *start = ghosted ? brick->gstart : brick->ostart, *width = ghosted ? brick->gwidth : brick->owidth;
  PetscInt        n[3], in0[3], in1[3], stride[3], s = 1, b = 0;

  PetscFunctionBegin;
  if (BrickBoxSize(box) <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < 3; d++) {
    n[d]      = box->hi[d] - box->lo[d] + 1;
    stride[d] = s;
    s *= width[d];
    if (d >= brick->dim) {
      in0[d] = 0;
      in1[d] = n[d];
      continue;
    }
    in0[d] = PetscMax(box->lo[d], 1) - box->lo[d];
    in1[d] = PetscMin(box->hi[d], brick->degree * brick->cells[d] - 1) - box->lo[d] + 1;
    if (in1[d] < in0[d]) in1[d] = in0[d];
    PetscCheck(in1[d] == in0[d] || (box->lo[d] + in0[d] - 1 >= start[d] && box->lo[d] + in1[d] - 2 < start[d] + width[d]), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Brick box nodes %" PetscInt_FMT "..%" PetscInt_FMT " along %c outside the array [%" PetscInt_FMT ", %" PetscInt_FMT ")", box->lo[d] + in0[d], box->lo[d] + in1[d] - 1, dirname[d], start[d] + 1, start[d] + width[d] + 1);
  }
  for (PetscInt iz = 0; iz < n[2]; iz++) {
    for (PetscInt iy = 0; iy < n[1]; iy++, b += n[0]) {
      const PetscBool inside = (PetscBool)(iz >= in0[2] && iz < in1[2] && iy >= in0[1] && iy < in1[1]);
      PetscScalar    *row    = boxv + b;
      PetscInt        o;

      if (!inside || in1[0] == in0[0]) {
        if (mode == BOX_FROM_ARRAY)
          for (PetscInt ix = 0; ix < n[0]; ix++) row[ix] = 0.0;
        continue;
      }
      o = (box->lo[0] + in0[0] - 1 - start[0]) * stride[0];
      if (brick->dim > 1) o += (box->lo[1] + iy - 1 - start[1]) * stride[1];
      if (brick->dim > 2) o += (box->lo[2] + iz - 1 - start[2]) * stride[2];
      if (mode == BOX_FROM_ARRAY) {
        for (PetscInt ix = 0; ix < in0[0]; ix++) row[ix] = 0.0;
        PetscCall(PetscArraycpy(row + in0[0], array + o, in1[0] - in0[0]));
        for (PetscInt ix = in1[0]; ix < n[0]; ix++) row[ix] = 0.0;
      } else PetscCall(PetscArraycpy(array + o, row + in0[0], in1[0] - in0[0]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Box values from a local (ghosted) array; boundary nodes read as zero. */
PetscErrorCode DMBrickLocalToBox_Private(DM dm, const PetscScalar local[], const BrickBox *box, PetscScalar boxv[])
{
  PetscFunctionBegin;
  PetscCall(BrickBoxCopy(dm, PETSC_TRUE, box, BOX_FROM_ARRAY, boxv, (PetscScalar *)local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Box values from the owned part of a global array (the box must lie in the owned nodes). */
PetscErrorCode DMBrickGlobalToBox_Private(DM dm, const PetscScalar global[], const BrickBox *box, PetscScalar boxv[])
{
  PetscFunctionBegin;
  PetscCall(BrickBoxCopy(dm, PETSC_FALSE, box, BOX_FROM_ARRAY, boxv, (PetscScalar *)global));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Writes box values into the owned part of a global array. */
PetscErrorCode DMBrickBoxToGlobal_Private(DM dm, const BrickBox *box, const PetscScalar boxv[], PetscScalar global[])
{
  PetscFunctionBegin;
  PetscCall(BrickBoxCopy(dm, PETSC_FALSE, box, BOX_INSERT_TO_ARRAY, (PetscScalar *)boxv, global));
  PetscFunctionReturn(PETSC_SUCCESS);
}
