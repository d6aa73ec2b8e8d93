/* DMRefine and DMCoarsen for DMBRICK: a new brick with the same description, one level up or down. Each level
   chooses its own partition (brickpartition.c); levels on the same process grid are nested rank by rank. */
#include "brickimpl.h"

static PetscErrorCode DMBrickCreateLevel(DM dm, MPI_Comm comm, PetscInt delta, DM *newdm)
{
  DM_Brick   *brick = (DM_Brick *)dm->data, *nb;
  PetscInt    refine, coarsen;
  const char *prefix;

  PetscFunctionBegin;
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() on the brick before DMRefine() or DMCoarsen()");
  if (comm == MPI_COMM_NULL) comm = PetscObjectComm((PetscObject)dm);
  PetscCall(DMBrickCreate(comm, newdm));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)dm, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*newdm, prefix));
  nb         = (DM_Brick *)(*newdm)->data;
  nb->dim    = brick->dim;
  nb->degree = brick->degree;
  nb->family = brick->family;
  /* the levels below a brick compute in its multigrid precision */
  nb->mg_precision       = brick->mg_precision;
  nb->verify_convergence = brick->verify_convergence;
  nb->device_memory_check = delta < 0 ? PETSC_FALSE : brick->device_memory_check; /* a coarser level: counted in the finest brick's estimate */
  nb->threads            = brick->threads;
  nb->simd               = brick->simd;
  nb->gpu_exchange       = brick->gpu_exchange;
  nb->rank_min_dofs      = brick->rank_min_dofs;
  nb->slabs              = brick->slabs;
  nb->slabs_set          = brick->slabs_set;
  nb->slabs_auto         = brick->slabs_auto;
  nb->coarsen_below      = brick->coarsen_below;
  nb->below              = brick->below; /* already counted in the refine level given below */
  nb->below_set          = PETSC_TRUE;
  nb->jacobi_for_sor     = brick->jacobi_for_sor;
  nb->coarse_direct_max  = brick->coarse_direct_max;
  nb->coarse_cheby_its   = brick->coarse_cheby_its;
  nb->precision          = delta < 0 ? brick->mg_precision : brick->precision;
  nb->partition          = brick->partition;
  nb->partition_set      = brick->partition_set;
  for (PetscInt d = 0; d < 3; d++) nb->periodic[d] = brick->periodic[d];
  nb->nremoved = brick->nremoved;
  PetscCall(PetscFree(nb->removed));
  PetscCall(PetscMalloc1(3 * brick->nremoved + 1, &nb->removed));
  for (PetscInt i = 0; i < 3 * brick->nremoved; i++) nb->removed[i] = brick->removed[i];
  PetscCall(PetscStrncpy(nb->opname, brick->opname, sizeof(nb->opname)));
  for (PetscInt d = 0; d < 3; d++) {
    nb->cells0[d] = brick->cells0[d];
    nb->lower[d]  = brick->lower[d];
    nb->upper[d]  = brick->upper[d];
  }
  PetscCall(PetscFree(nb->coarse_mattype));
  PetscCall(PetscStrallocpy(brick->coarse_mattype, &nb->coarse_mattype));
  PetscCall(DMSetMatType(*newdm, dm->mattype));
  PetscCall(DMSetVecType(*newdm, dm->vectype));
  /* DMRefine()/DMCoarsen() set the same levels again after we return; the layout needs them now */
  PetscCall(DMGetRefineLevel(dm, &refine));
  PetscCall(DMGetCoarsenLevel(dm, &coarsen));
  if (delta > 0) PetscCall(DMSetRefineLevel(*newdm, refine + 1));
  else PetscCall(DMSetRefineLevel(*newdm, refine));
  PetscCall(DMSetCoarsenLevel(*newdm, delta < 0 ? coarsen + 1 : coarsen));
  PetscCall(DMSetUp(*newdm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMRefine_Brick(DM dm, MPI_Comm comm, DM *dmf)
{
  PetscFunctionBegin;
  PetscCall(DMBrickCreateLevel(dm, comm, +1, dmf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCoarsen_Brick(DM dm, MPI_Comm comm, DM *dmc)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() on the brick before DMCoarsen()");
  PetscCheck(!brick->forest || brick->level > 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE,
             "Cannot coarsen the forest brick below its trees (the -dm_brick_cells grid, level 0): use fewer -pc_mg_levels (at most -dm_brick_refine + 1)");
  for (PetscInt d = 0; d < brick->dim; d++) {
    PetscCheck(brick->cells[d] % 2 == 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE,
               "Cannot coarsen the brick on level %" PetscInt_FMT ": %" PetscInt_FMT " cells along %c cannot be halved; use fewer -pc_mg_levels or a -dm_brick_cells coarse grid divisible by 2^(levels-1-refine)", brick->level, brick->cells[d],
               "xyz"[d]);
  }
  PetscCall(DMBrickCreateLevel(dm, comm, -1, dmc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
