/* A box of points (CG: full-grid nodes; DG: cells) gathered from a brick's global vector into a sequential vector of
   the box, and summed back: what the grid transfers need of the coarse level. The part of the box this rank owns is a
   block of the global array, copied (a box kernel for device vectors); the rest comes through a PetscSF from its
   owners, found by index arithmetic outside the block only (GPU to GPU for device vectors where
   -dm_brick_gpu_exchange allows). Where the levels are partitioned alike that graph is one layer of points; a
   VecScatter of the whole box instead cost seconds of set-up per level at 1e9 DoFs (its O(N) index sets). */
#include "brickimpl.h"
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#  include <petscdevice_cuda.h>
#endif

/* this rank's owned points in the box's coordinates */
static PetscErrorCode BrickGatherOwnedBox(DM dm, BrickBox *o)
{
  PetscFunctionBegin;
  if (((DM_Brick *)dm->data)->family == DMBRICK_DG) PetscCall(DMBrickOwnedCellBox_Private(dm, o));
  else PetscCall(DMBrickOwnedNodeBox_Private(dm, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscBool BrickBoxEmpty(const BrickBox *b)
{
  return (PetscBool)(b->hi[0] < b->lo[0] || b->hi[1] < b->lo[1] || b->hi[2] < b->lo[2]);
}

/*
   DMBrickBoxGatherCreate_Private - the gather of box (points of dm, dof values each; empty: nothing on this rank) and
   its sequential vector of dm's vector type, zero where the box holds boundary nodes. Collective on dm.
*/
PetscErrorCode DMBrickBoxGatherCreate_Private(DM dm, const BrickBox *box, BrickBoxGather *g)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt dof   = brick->dof;
  BrickBox       o;
  PetscInt       n = 0, *ilocal = NULL, *gidx = NULL, size;
  PetscLayout    layout;
  Vec            v;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  g->dm  = dm;
  g->box = *box;
  if (BrickBoxEmpty(box))
    for (PetscInt d = 0; d < 3; d++) {
      g->box.lo[d] = 0;
      g->box.hi[d] = -1;
    }
  size = BrickBoxEmpty(&g->box) ? 0 : BrickBoxSize(&g->box);
  PetscCall(BrickGatherOwnedBox(dm, &o));
  for (PetscInt d = 0; d < 3; d++) {
    g->own.lo[d] = PetscMax(g->box.lo[d], o.lo[d]);
    g->own.hi[d] = PetscMin(g->box.hi[d], o.hi[d]);
  }
  if (!size || BrickBoxEmpty(&o) || BrickBoxEmpty(&g->own))
    for (PetscInt d = 0; d < 3; d++) {
      g->own.lo[d] = 0;
      g->own.hi[d] = -1;
    }
  g->owncovers = (PetscBool)(BrickBoxEmpty(&o) || (!BrickBoxEmpty(&g->own) && BrickBoxSize(&g->own) == BrickBoxSize(&o)));
  /* the same on every rank: the scatter back zeroes the global vector (a collective call) unless all ranks cover theirs */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &g->owncovers, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)dm)));
  /* two passes over the box outside own: count, then fill */
  for (PetscInt pass = 0; pass < 2; pass++) {
    const PetscBool owned = (PetscBool)!BrickBoxEmpty(&g->own);
    PetscInt        b     = 0;
    n                     = 0;
    for (PetscInt z = g->box.lo[2]; z <= g->box.hi[2] && size; z++)
      for (PetscInt y = g->box.lo[1]; y <= g->box.hi[1]; y++, b += g->box.hi[0] - g->box.lo[0] + 1) {
        const PetscBool inside = (PetscBool)(owned && z >= g->own.lo[2] && z <= g->own.hi[2] && y >= g->own.lo[1] && y <= g->own.hi[1]);
        for (PetscInt x = g->box.lo[0]; x <= g->box.hi[0]; x++) {
          PetscInt p[3], gi;
          if (inside && x == g->own.lo[0]) x = g->own.hi[0] + 1; /* skip the owned stretch of the row */
          if (x > g->box.hi[0]) break;
          p[0] = x;
          p[1] = y;
          p[2] = z;
          gi   = brick->family == DMBRICK_DG ? DMBrickCellGlobalIndex_Private(brick, p) : DMBrickNodeGlobalIndex_Private(brick, p);
          if (gi < 0) continue; /* a boundary node: zero */
          if (pass)
            for (PetscInt c = 0; c < dof; c++) {
              ilocal[n + c] = (b + x - g->box.lo[0]) * dof + c;
              gidx[n + c]   = gi + c;
            }
          n += dof;
        }
      }
    if (!pass) PetscCall(PetscMalloc2(n, &ilocal, n, &gidx));
  }
  PetscCall(VecCreate(PETSC_COMM_SELF, &g->vec));
  PetscCall(VecSetSizes(g->vec, size * dof, PETSC_DETERMINE));
  PetscCall(VecSetType(g->vec, dm->vectype));
  PetscCall(VecZeroEntries(g->vec));
  PetscCall(DMGetGlobalVector(dm, &v));
  PetscCall(VecGetLayout(v, &layout));
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)dm), &g->ghost));
  PetscCall(PetscSFSetGraphLayout(g->ghost, layout, n, ilocal, PETSC_COPY_VALUES, gidx));
  PetscCall(PetscSFSetUp(g->ghost));
  PetscCall(DMRestoreGlobalVector(dm, &v));
  PetscCall(PetscFree2(ilocal, gidx));
  PetscCall(DMBrickSetUpExchange_Private(dm, g->ghost, 1)); /* device vectors: the GPU-to-GPU exchange now */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickBoxGatherDestroy_Private(BrickBoxGather *g)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&g->vec));
  PetscCall(PetscSFDestroy(&g->ghost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block own between the global array (this rank's owned points, x fastest) and the box array (x fastest): to the
   box (tobox) or back, replaced or (add) summed; device arrays with a box kernel, host ones row by row. */
static PetscErrorCode BrickGatherOwnedMove(const BrickBoxGather *g, PetscBool device, PetscBool tobox, const PetscScalar *src, PetscScalar *dst, PetscBool add)
{
  const PetscInt  dof = ((DM_Brick *)g->dm->data)->dof;
  const BrickBox *j = &g->own, *b = &g->box;
  BrickBox        o;
  PetscInt        n[3], boff, goff, brow, bplane, grow, gplane;

  PetscFunctionBegin;
  if (BrickBoxEmpty(j)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BrickGatherOwnedBox(g->dm, &o));
  for (PetscInt d = 0; d < 3; d++) n[d] = j->hi[d] - j->lo[d] + 1;
  n[0] *= dof; /* a row of points is one run of values */
  brow   = (b->hi[0] - b->lo[0] + 1) * dof;
  bplane = brow * (b->hi[1] - b->lo[1] + 1);
  grow   = (o.hi[0] - o.lo[0] + 1) * dof;
  gplane = grow * (o.hi[1] - o.lo[1] + 1);
  boff   = (j->lo[2] - b->lo[2]) * bplane + (j->lo[1] - b->lo[1]) * brow + (j->lo[0] - b->lo[0]) * dof;
  goff   = (j->lo[2] - o.lo[2]) * gplane + (j->lo[1] - o.lo[1]) * grow + (j->lo[0] - o.lo[0]) * dof;
  if (device) {
#if defined(VP_HAVE_CUDA)
    const int err = tobox ? VPCudaBoxMove((int)n[0], (int)n[1], (int)n[2], src + goff, (size_t)grow, (size_t)gplane, dst + boff, (size_t)brow, (size_t)bplane, (int)add)
                          : VPCudaBoxMove((int)n[0], (int)n[1], (int)n[2], src + boff, (size_t)brow, (size_t)bplane, dst + goff, (size_t)grow, (size_t)gplane, (int)add);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the brick's box gather: %s", VPCudaErrorString(err));
    PetscFunctionReturn(PETSC_SUCCESS);
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "device arrays in a build without CUDA");
#endif
  }
  for (PetscInt z = 0; z < n[2]; z++)
    for (PetscInt y = 0; y < n[1]; y++) {
      const PetscScalar *from = src + (tobox ? goff + z * gplane + y * grow : boff + z * bplane + y * brow);
      PetscScalar       *to   = dst + (tobox ? boff + z * bplane + y * brow : goff + z * gplane + y * grow);
      if (add)
        for (PetscInt i = 0; i < n[0]; i++) to[i] += from[i];
      else PetscCall(PetscArraycpy(to, from, n[0]));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DMBrickBoxGather_Private - g->vec = the box's values of the global vector x (boundary nodes keep what g->vec holds:
   zero unless the caller wrote them). Device vectors where both are VECCUDA (device), else host arrays.
*/
PetscErrorCode DMBrickBoxGather_Private(BrickBoxGather *g, PetscBool device, Vec x)
{
  const PetscScalar *xa;
  PetscScalar       *ba;

  PetscFunctionBegin;
  if (device) {
#if defined(VP_HAVE_CUDA)
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArray(g->vec, &ba));
    PetscCall(BrickGatherOwnedMove(g, PETSC_TRUE, PETSC_TRUE, xa, ba, PETSC_FALSE));
    PetscCall(DMBrickSFDevice_Private(g->dm, g->ghost, PETSC_FALSE, xa, ba, PETSC_FALSE));
    PetscCall(VecCUDARestoreArray(g->vec, &ba));
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    PetscFunctionReturn(PETSC_SUCCESS);
#endif
  }
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(g->vec, &ba));
  PetscCall(BrickGatherOwnedMove(g, PETSC_FALSE, PETSC_TRUE, xa, ba, PETSC_FALSE));
  PetscCall(PetscSFBcastBegin(g->ghost, MPIU_SCALAR, xa, ba, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(g->ghost, MPIU_SCALAR, xa, ba, MPI_REPLACE));
  PetscCall(VecRestoreArray(g->vec, &ba));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DMBrickBoxScatterAdd_Private - y = g->vec summed into the global vector y (its old values dropped): the owned
   block written (summed where it is not all of y, which is zeroed first), the other points summed into their owners.
*/
PetscErrorCode DMBrickBoxScatterAdd_Private(BrickBoxGather *g, PetscBool device, Vec y)
{
  const PetscScalar *ba;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (!g->owncovers) PetscCall(VecZeroEntries(y));
  if (device) {
#if defined(VP_HAVE_CUDA)
    PetscCall(VecCUDAGetArrayRead(g->vec, &ba));
    PetscCall(VecCUDAGetArray(y, &ya));
    PetscCall(BrickGatherOwnedMove(g, PETSC_TRUE, PETSC_FALSE, ba, ya, (PetscBool)!g->owncovers));
    PetscCall(DMBrickSFDevice_Private(g->dm, g->ghost, PETSC_TRUE, ba, ya, PETSC_TRUE));
    PetscCall(VecCUDARestoreArray(y, &ya));
    PetscCall(VecCUDARestoreArrayRead(g->vec, &ba));
    PetscFunctionReturn(PETSC_SUCCESS);
#endif
  }
  PetscCall(VecGetArrayRead(g->vec, &ba));
  PetscCall(VecGetArray(y, &ya));
  PetscCall(BrickGatherOwnedMove(g, PETSC_FALSE, PETSC_FALSE, ba, ya, (PetscBool)!g->owncovers));
  PetscCall(PetscSFReduceBegin(g->ghost, MPIU_SCALAR, ba, ya, MPIU_SUM));
  PetscCall(PetscSFReduceEnd(g->ghost, MPIU_SCALAR, ba, ya, MPIU_SUM));
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(g->vec, &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}
