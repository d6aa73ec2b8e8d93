/* Global vectors stored in place in a ghosted local array. When the ranks of a level are split along its last direction
   only (-dm_brick_slabs), each rank owns whole x (and y) rows of the ghosted box, and its owned block is one stretch
   of the ghosted local array, after the lower ghost planes. A global vector then needs no storage of its own: the brick
   makes a ghosted local vector (its "in-place local") and a global vector on the owned stretch of the same array, the
   local one composed with the global one (and freed with it). DMGlobalToLocal() into that local vector only fetches the
   ghost planes, and DMLocalToGlobal() from it moves nothing: the vertex-patch sweep and the products of several ranks
   then work on the global vectors without the two copies of the level per use (each 1.7 ms for the 451M DoFs of one
   H200). DMBrickGetInPlaceLocal_Private() finds the local vector of a global one; the code that uses it keeps the
   ordinary path for any other vector. */
#include "brickimpl.h"
#include <petsc/private/vecimpl.h>
#if defined(VP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

static const char BrickInPlaceKey[] = "DMBrick_InPlaceLocal";

/* whether this level's global vectors are made in place: several active ranks on a process grid of one rank in every
   direction but the last (so the ghosted box holds whole rows and planes of the owned one), and a vector type whose
   arrays the brick can share (host, CUDA) */
PetscErrorCode DMBrickSetUpInPlace_Private(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  PetscBool known;

  PetscFunctionBegin;
  brick->inplace = PETSC_FALSE;
  if (!brick->slabs || brick->nactive < 2) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < brick->dim - 1; d++)
    if (brick->procs[d] != 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrInList(dm->vectype, "standard,mpi,cuda,mpicuda", ',', &known));
  if (!known) PetscFunctionReturn(PETSC_SUCCESS);
  if (brick->activecomm != MPI_COMM_NULL)
    for (PetscInt d = 0; d < brick->dim - 1; d++)
      PetscCheck(brick->gstart[d] == brick->ostart[d] && brick->gwidth[d] == brick->owidth[d], PETSC_COMM_SELF, PETSC_ERR_PLIB, "a slab whose ghosted box is wider than its owned box along %c", "xyz"[d]);
  brick->inplace = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* entries of the ghosted local array before the owned block (the lower ghost planes) */
static PetscInt BrickInPlaceOffset(const DM_Brick *brick)
{
  const PetscInt last = brick->dim - 1;
  PetscInt       plane = brick->dof;

  if (brick->activecomm == MPI_COMM_NULL) return 0;
  for (PetscInt d = 0; d < last; d++) plane *= brick->gwidth[d];
  return (brick->ostart[last] - brick->gstart[last]) * plane;
}

/* the entries of an in-place local vector before its owned stretch (those after it are the rest of its ghosts) */
PetscErrorCode DMBrickInPlaceOffset_Private(DM dm, PetscInt *off)
{
  PetscFunctionBegin;
  *off = BrickInPlaceOffset((DM_Brick *)dm->data);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDuplicate_BrickInPlace(Vec, Vec *);
static PetscErrorCode VecDuplicateVecs_BrickInPlace(Vec, PetscInt, Vec *[]);
static PetscErrorCode VecDestroyVecs_BrickInPlace(PetscInt, Vec[]);

/* the pair: a ghosted local vector, zero, and the global vector on its owned stretch (not yet composed) */
static PetscErrorCode BrickInPlacePair(DM dm, Vec *g, Vec *l)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  const PetscInt n = brick->owidth[0] * brick->owidth[1] * brick->owidth[2] * brick->dof, nl = brick->gwidth[0] * brick->gwidth[1] * brick->gwidth[2] * brick->dof, off = BrickInPlaceOffset(brick);
  PetscBool   device;
  PetscScalar *a, *base;

  PetscFunctionBegin;
  PetscCall(DMBrickOnDevice_Private(dm, &device));
  if (device) {
#if defined(VP_HAVE_CUDA)
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, nl, l));
    PetscCall(VecZeroEntries(*l)); /* its device array now: the global vector is made on it */
    PetscCall(VecCUDAGetArray(*l, &a));
    base = a;
    PetscCall(VecCUDARestoreArray(*l, &a));
    /* no host array: it is made (pinned) when the host first reads the vector, as for the brick's other device vectors */
    PetscCall(VecCreateMPICUDAWithArrays(PetscObjectComm((PetscObject)dm), 1, n, PETSC_DETERMINE, NULL, nl ? base + off : NULL, g));
#endif
  } else {
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, nl, l));
    PetscCall(VecZeroEntries(*l));
    PetscCall(VecGetArray(*l, &a));
    base = a; /* (the restore forgets a) */
    PetscCall(VecRestoreArray(*l, &a));
    PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)dm), 1, n, PETSC_DETERMINE, nl ? base + off : NULL, g));
  }
  (*g)->ops->duplicate     = VecDuplicate_BrickInPlace;
  (*g)->ops->duplicatevecs = VecDuplicateVecs_BrickInPlace;
  (*g)->ops->destroyvecs   = VecDestroyVecs_BrickInPlace;
  PetscCall(DMBrickVecSetView_Private(*g)); /* VTK output */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A global vector of this level stored in place (DMCreateGlobalVector() when brick->inplace), zero */
PetscErrorCode DMBrickCreateInPlaceVector_Private(DM dm, Vec *g)
{
  Vec l;

  PetscFunctionBegin;
  PetscCall(BrickInPlacePair(dm, g, &l));
  PetscCall(PetscObjectCompose((PetscObject)*g, BrickInPlaceKey, (PetscObject)l));
  PetscCall(VecDestroy(&l));
  PetscCall(VecSetDM(*g, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecDuplicate(): another pair (PETSc's own duplicate would copy the composed local vector along with the DM, and the
   copy would claim the original's storage) */
static PetscErrorCode VecDuplicate_BrickInPlace(Vec v, Vec *y)
{
  DM  dm;
  Vec l;

  PetscFunctionBegin;
  PetscCall(VecGetDM(v, &dm));
  PetscCheck(dm, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_WRONGSTATE, "a brick vector stored in place without its brick");
  PetscCall(BrickInPlacePair(dm, y, &l));
  PetscCall(PetscObjectListDuplicate(((PetscObject)v)->olist, &((PetscObject)*y)->olist)); /* its DM, as PETSc's duplicate */
  PetscCall(PetscFunctionListDuplicate(((PetscObject)v)->qlist, &((PetscObject)*y)->qlist));
  PetscCall(PetscObjectCompose((PetscObject)*y, BrickInPlaceKey, (PetscObject)l)); /* replaces v's */
  PetscCall(VecDestroy(&l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDuplicateVecs_BrickInPlace(Vec v, PetscInt m, Vec *V[])
{
  PetscFunctionBegin;
  PetscCheck(m > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "m must be > 0: m = %" PetscInt_FMT, m);
  PetscCall(PetscMalloc1(m, V));
  for (PetscInt i = 0; i < m; i++) PetscCall(VecDuplicate(v, *V + i));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDestroyVecs_BrickInPlace(PetscInt m, Vec V[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) PetscCall(VecDestroy(&V[i]));
  PetscCall(PetscFree(V));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DMBrickGetInPlaceLocal_Private - the ghosted local vector whose owned stretch stores the global vector g, or NULL:
   g is not stored in place on this level, or its array was moved (VecPlaceArray() and the like), which the pointers
   tell. The local vector is g's (not a new reference). Not collective; every rank gets the same answer for the same g,
   since the brick makes all ranks' vectors the same way.
*/
PetscErrorCode DMBrickGetInPlaceLocal_Private(DM dm, Vec g, Vec *l)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  PetscObject obj;
  PetscBool   device;

  PetscFunctionBegin;
  *l = NULL;
  if (!brick->inplace) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectQuery((PetscObject)g, BrickInPlaceKey, &obj));
  if (!obj) PetscFunctionReturn(PETSC_SUCCESS);
  {
    const PetscInt     off = BrickInPlaceOffset(brick);
    const PetscScalar *ga, *la;
    PetscInt           n, nl;
    PetscBool          same;
    PetscCall(VecGetLocalSize(g, &n));
    PetscCall(VecGetLocalSize((Vec)obj, &nl));
    if (!nl) { /* an inactive rank: nothing stored either way */
      *l = (Vec)obj;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(DMBrickVecsOnDevice_Private(g, (Vec)obj, &device));
#if defined(VP_HAVE_CUDA)
    if (device) {
      /* reading g on the device brings a newer host copy to the shared device array first */
      PetscCall(VecCUDAGetArrayRead(g, &ga));
      PetscCall(VecCUDAGetArrayRead((Vec)obj, &la));
      same = (PetscBool)(ga == la + off);
      PetscCall(VecCUDARestoreArrayRead((Vec)obj, &la));
      PetscCall(VecCUDARestoreArrayRead(g, &ga));
    } else
#endif
    {
      PetscCall(VecGetArrayRead(g, &ga));
      PetscCall(VecGetArrayRead((Vec)obj, &la));
      same = (PetscBool)(ga == la + off);
      PetscCall(VecRestoreArrayRead((Vec)obj, &la));
      PetscCall(VecRestoreArrayRead(g, &ga));
    }
    if (same && nl >= n + off) *l = (Vec)obj;
    else PetscCall(PetscInfo(dm, "level %" PetscInt_FMT ": a global vector made in place no longer has its storage there; the ordinary copies serve it\n", brick->level));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
