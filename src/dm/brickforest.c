/* Forest domains of DMBRICK: the description (removed coarse cells, periodic directions, partition), its checks, and the
   layout of a level on a p4est forest (brickp4est.c meshes it): the rank's cells as a list, the local vector (CG: owned
   nodes, then the ghost nodes of the rank's cells and of its ghost layer; DG: the rank's cells' values, then its ghost
   cells'), the halo PetscSF, DG's face table, and the vertex patches with their colors. The operators, transfers and smoothers read a forest level through BrickForest (brickimpl.h). */
#include "brickimpl.h"

const char *const DMBrickPartitions[] = {"p4est", "grid", "slabs", "DMBrickPartition", "DMBRICK_PARTITION_", NULL};

/*@
   DMBrickSetRemovedCells - removes coarse cells from the brick's box: the domain is the union of the others

   Logically Collective

   Input Parameters:
+  dm    - the brick (not set up)
.  n     - number of removed cells
-  cells - their integer positions on the coarse grid (-dm_brick_cells), dim numbers each: i0,j0[,k0],i1,j1[,k1],...

   Options Database Key:
.  -dm_brick_remove <i0,j0[,k0],...> - the removed cells

   Notes:
   Every cell stays congruent and axis-aligned, so the operators and smoothers stay exact tensor-product ones (laplace and
   sipg; a DG vertex patch next to a re-entrant edge or corner gets a dense local solver of its own). The brick becomes a
   p4est forest whose trees are the remaining cells (-dm_brick_partition p4est). The faces of the removed cells carry
   homogeneous Dirichlet data like the box's boundary. The remaining cells must be face-connected; at least one must
   remain.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickSetPeriodic()`, `DMBrickSetPartition()`
@*/
PetscErrorCode DMBrickSetRemovedCells(DM dm, PetscInt n, const PetscInt cells[])
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "DMBrickSetRemovedCells() must be called before DMSetUp()");
  PetscCheck(n >= 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_remove: %" PetscInt_FMT " cells; allowed >= 0", n);
  PetscCall(PetscFree(brick->removed));
  brick->nremoved = n;
  PetscCall(PetscCalloc1(3 * n + 1, &brick->removed));
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt d = 0; d < brick->dim; d++) brick->removed[3 * c + d] = cells[brick->dim * c + d];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetPeriodic - makes directions of the brick periodic (their two ends identified)

   Logically Collective

   Input Parameters:
+  dm       - the brick (not set up)
-  periodic - one flag per direction

   Options Database Key:
.  -dm_brick_periodic <px,py[,pz]> - 0 or 1 per direction

   Note:
   A periodic direction needs at least 2 coarse cells (a vertex patch spans two cells along it). The brick becomes a p4est
   forest (-dm_brick_partition p4est); its hierarchy starts at the -dm_brick_cells grid.

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickSetRemovedCells()`
@*/
PetscErrorCode DMBrickSetPeriodic(DM dm, const PetscBool periodic[])
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "DMBrickSetPeriodic() must be called before DMSetUp()");
  for (PetscInt d = 0; d < 3; d++) brick->periodic[d] = d < brick->dim ? periodic[d] : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickSetPartition - how the ranks split the brick's cells

   Logically Collective

   Input Parameters:
+  dm        - the brick (not set up)
-  partition - `DMBRICK_PARTITION_P4EST`, `DMBRICK_PARTITION_GRID` or `DMBRICK_PARTITION_SLABS`

   Options Database Key:
.  -dm_brick_partition <p4est|grid|slabs> - the partition

   Note:
   Without this call a full box without periodic directions uses the process grid (or slabs: `DMBrickSetSlabs()`), and any
   other domain p4est's space-filling curve. p4est on a full box gives the forest layout on the box (for comparison).

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickPartition`, `DMBrickSetRemovedCells()`, `DMBrickSetPeriodic()`, `DMBrickSetSlabs()`
@*/
PetscErrorCode DMBrickSetPartition(DM dm, DMBrickPartition partition)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "DMBrickSetPartition() must be called before DMSetUp()");
  brick->partition     = partition;
  brick->partition_set = PETSC_TRUE;
  if (partition != DMBRICK_PARTITION_P4EST) PetscCall(DMBrickSetSlabs(dm, (PetscBool)(partition == DMBRICK_PARTITION_SLABS)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   DMBrickGetForestInfo - whether the brick is a forest, and its sizes

   Collective

   Input Parameter:
.  dm - the brick (set up)

   Output Parameters:
+  forest   - `PETSC_TRUE` on a p4est forest (cells removed, periodic directions, or -dm_brick_partition p4est)
.  ncells   - cells of the level in the domain (all ranks)
.  nlocal   - this rank's cells
-  npatches - this rank's vertex patches

   Level: intermediate

.seealso: `DMBRICK`, `DMBrickSetRemovedCells()`
@*/
PetscErrorCode DMBrickGetForestInfo(DM dm, PetscBool *forest, PetscInt64 *ncells, PetscInt *nlocal, PetscInt *npatches)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Call DMSetUp() first");
  if (forest) *forest = (PetscBool)(brick->forest != NULL);
  if (ncells) *ncells = brick->forest ? brick->forest->ncellsglobal : (PetscInt64)brick->cells[0] * brick->cells[1] * (brick->dim == 3 ? brick->cells[2] : 1);
  if (nlocal) *nlocal = brick->forest ? brick->forest->ncells : (brick->cend[0] - brick->cstart[0]) * (brick->cend[1] - brick->cstart[1]) * (brick->dim == 3 ? brick->cend[2] - brick->cstart[2] : 1);
  if (npatches) *npatches = brick->forest ? brick->forest->npatches : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether lattice cell c of level `level` lies in the domain (periodic directions wrapped) */
PetscBool DMBrickForestCellInDomain_Private(const DM_Brick *brick, PetscInt level, const PetscInt c[])
{
  PetscInt coarse = 0;

  for (PetscInt d = brick->dim - 1; d >= 0; d--) {
    const PetscInt n = brick->cells0[d] << level;
    PetscInt       x = c[d];
    if (brick->periodic[d]) x = ((x % n) + n) % n;
    else if (x < 0 || x >= n) return PETSC_FALSE;
    coarse = coarse * brick->cells0[d] + (x >> level);
  }
  return (PetscBool)(brick->forest->tree[coarse] >= 0);
}

/* Is the node at lattice position p (level lattice of nodes, k per cell; periodic coordinates wrapped) free: are all the
   cells that touch it in the domain? */
PetscBool DMBrickForestNodeFree_Private(const DM_Brick *brick, const PetscInt p[])
{
  const PetscInt k = brick->degree;
  PetscInt       lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};

  for (PetscInt d = 0; d < brick->dim; d++) {
    hi[d] = p[d] / k;
    lo[d] = p[d] % k == 0 ? hi[d] - 1 : hi[d];
  }
  for (PetscInt z = lo[2]; z <= hi[2]; z++)
    for (PetscInt y = lo[1]; y <= hi[1]; y++)
      for (PetscInt x = lo[0]; x <= hi[0]; x++) {
        const PetscInt c[3] = {x, y, z};
        if (!DMBrickForestCellInDomain_Private(brick, brick->forest->level, c)) return PETSC_FALSE;
      }
  return PETSC_TRUE;
}

PetscInt64 BrickForestCurveIndex(const BrickForest *f, const PetscInt cells0[], const PetscInt c[], PetscInt level)
{
  PetscInt   coarse = 0;
  PetscInt64 morton = 0;

  for (PetscInt d = f->dim - 1; d >= 0; d--) coarse = coarse * cells0[d] + (c[d] >> level);
  if (f->tree[coarse] < 0) return -1;
  for (PetscInt b = 0; b < level; b++)
    for (PetscInt d = 0; d < f->dim; d++) morton |= (PetscInt64)((c[d] >> b) & 1) << (f->dim * b + d);
  return ((PetscInt64)f->tree[coarse] << (f->dim * level)) + morton;
}

/* The description's checks, with the option each concerns. Called by DMSetUp on every brick. */
PetscErrorCode DMBrickCheckDomain_Private(DM dm)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  MPI_Comm       comm  = PetscObjectComm((PetscObject)dm);
  const PetscInt dim = brick->dim, n0 = brick->cells0[0] * brick->cells0[1] * (dim == 3 ? brick->cells0[2] : 1);
  PetscBool      periodic = PETSC_FALSE;
  PetscInt      *keep, *queue, nkeep = 0, nreached = 0;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < dim; d++) {
    periodic = (PetscBool)(periodic || brick->periodic[d]);
    PetscCheck(!brick->periodic[d] || brick->cells0[d] >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-dm_brick_periodic along %c needs at least 2 coarse cells there (a vertex patch spans two cells across the periodic end); got -dm_brick_cells %" PetscInt_FMT " along %c", "xyz"[d], brick->cells0[d], "xyz"[d]);
  }
  if (!brick->nremoved && !periodic && brick->partition != DMBRICK_PARTITION_P4EST) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!brick->partition_set || brick->partition == DMBRICK_PARTITION_P4EST, comm, PETSC_ERR_ARG_INCOMP,
             "-dm_brick_partition %s splits full boxes only; a domain with %s needs -dm_brick_partition p4est (or leave the option out)", DMBrickPartitions[brick->partition], brick->nremoved ? "removed cells (-dm_brick_remove)" : "periodic directions (-dm_brick_periodic)");
  PetscCheck(!brick->slabs_set || !brick->slabs || brick->slabs_auto, comm, PETSC_ERR_ARG_INCOMP, "-dm_brick_slabs splits full boxes only; leave it out with -dm_brick_remove, -dm_brick_periodic or -dm_brick_partition p4est");
  brick->partition = DMBRICK_PARTITION_P4EST;
  PetscCall(PetscMalloc2(n0, &keep, n0, &queue));
  for (PetscInt c = 0; c < n0; c++) keep[c] = 1;
  for (PetscInt r = 0; r < brick->nremoved; r++) {
    PetscInt c = 0;
    for (PetscInt d = dim - 1; d >= 0; d--) {
      const PetscInt x = brick->removed[3 * r + d];
      PetscCheck(x >= 0 && x < brick->cells0[d], comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_remove: cell %" PetscInt_FMT " (%" PetscInt_FMT ",%" PetscInt_FMT "%s%s) lies outside the %" PetscInt_FMT " x %" PetscInt_FMT "%s%s coarse grid: position %c must be 0..%" PetscInt_FMT, r,
                 brick->removed[3 * r], brick->removed[3 * r + 1], dim == 3 ? "," : "", dim == 3 ? "z" : "", brick->cells0[0], brick->cells0[1], dim == 3 ? " x " : "", dim == 3 ? "Nz" : "", "xyz"[d], brick->cells0[d] - 1);
      c = c * brick->cells0[d] + x;
    }
    keep[c] = 0;
  }
  for (PetscInt c = 0; c < n0; c++) nkeep += keep[c];
  PetscCheck(nkeep > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_remove removes every one of the %" PetscInt_FMT " coarse cells: keep at least one", n0);
  {
    /* face-connected: a breadth-first walk over the kept cells (across periodic ends too) reaches them all */
    PetscInt head = 0, first = 0;
    while (!keep[first]) first++;
    keep[first]       = 2;
    queue[nreached++] = first;
    while (head < nreached) {
      const PetscInt c = queue[head++], cc[3] = {c % brick->cells0[0], (c / brick->cells0[0]) % brick->cells0[1], c / (brick->cells0[0] * brick->cells0[1])};
      for (PetscInt d = 0; d < dim; d++)
        for (PetscInt s = -1; s <= 1; s += 2) {
          PetscInt nb[3] = {cc[0], cc[1], cc[2]}, m;
          nb[d] += s;
          if (brick->periodic[d]) nb[d] = (nb[d] + brick->cells0[d]) % brick->cells0[d];
          else if (nb[d] < 0 || nb[d] >= brick->cells0[d]) continue;
          m = nb[0] + brick->cells0[0] * (nb[1] + brick->cells0[1] * nb[2]);
          if (keep[m] == 1) {
            keep[m]           = 2;
            queue[nreached++] = m;
          }
        }
    }
  }
  PetscCheck(nreached == nkeep, comm, PETSC_ERR_ARG_INCOMP, "-dm_brick_remove leaves a disconnected domain: %" PetscInt_FMT " of the %" PetscInt_FMT " remaining coarse cells are not face-connected to the others; the brick solves on one connected domain", nkeep - nreached, nkeep);
  PetscCall(PetscFree2(keep, queue));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- vectors and their ghosts ---- */

static PetscErrorCode DMCreateGlobalVector_BrickForest(DM dm, Vec *v)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMBrickCheckDeviceVectorLength_Private(dm, PetscObjectComm((PetscObject)dm), brick->forest->nlocal));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)dm), v));
  PetscCall(VecSetSizes(*v, brick->forest->nowned, PETSC_DETERMINE));
  PetscCall(VecSetType(*v, dm->vectype));
  PetscCall(VecSetDM(*v, dm));
  PetscCall(DMBrickVecSetView_Private(*v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMCreateLocalVector_BrickForest(DM dm, Vec *v)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, brick->forest->nlocal, PETSC_DETERMINE));
  PetscCall(VecSetType(*v, dm->vectype));
  PetscCall(VecSetDM(*v, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the owned block copied, the ghosts through the halo; device vectors stay on the device (PetscSF with their memory
   type: through the host only where MPI is not GPU-aware) */
static PetscErrorCode DMGlobalToLocalBegin_BrickForest(DM dm, Vec g, InsertMode mode, Vec l)
{
  BrickForest       *f = ((DM_Brick *)dm->data)->forest;
  const PetscScalar *ga;
  PetscScalar       *la;
  PetscMemType       gmt, lmt;

  PetscFunctionBegin;
  PetscCheck(mode == INSERT_VALUES, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMGlobalToLocal() on a forest brick: INSERT_VALUES only");
  PetscCall(VecGetArrayReadAndMemType(g, &ga, &gmt));
  PetscCall(VecGetArrayAndMemType(l, &la, &lmt));
  if (PetscMemTypeDevice(gmt) && PetscMemTypeDevice(lmt)) {
    /* device to device: the halo through CUDA IPC where the ranks share a host (-dm_brick_gpu_exchange), else PetscSF */
    PetscCall(DMBrickDeviceCopy_Private(f->nowned, PETSC_FALSE, ga, la));
    PetscCall(DMBrickSFDevice_Private(dm, f->halo, PETSC_FALSE, ga, la + f->nowned, PETSC_FALSE));
  } else {
    PetscCheck(PetscMemTypeHost(gmt) && PetscMemTypeHost(lmt), PETSC_COMM_SELF, PETSC_ERR_SUP, "DMGlobalToLocal() on a forest brick: a host and a device vector; use vectors of the brick's -dm_vec_type");
    PetscCall(PetscArraycpy(la, ga, f->nowned));
    PetscCall(PetscSFBcastBegin(f->halo, MPIU_SCALAR, ga, la + f->nowned, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(f->halo, MPIU_SCALAR, ga, la + f->nowned, MPI_REPLACE));
  }
  PetscCall(VecRestoreArrayAndMemType(l, &la));
  PetscCall(VecRestoreArrayReadAndMemType(g, &ga));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMGlobalToLocalEnd_BrickForest(DM dm, Vec g, InsertMode mode, Vec l)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ADD_VALUES: the owned block added, the ghosts summed into their owners; INSERT_VALUES: the owned block */
static PetscErrorCode DMLocalToGlobalBegin_BrickForest(DM dm, Vec l, InsertMode mode, Vec g)
{
  BrickForest       *f = ((DM_Brick *)dm->data)->forest;
  const PetscScalar *la;
  PetscScalar       *ga;
  PetscMemType       gmt, lmt;
  PetscBool          device;

  PetscFunctionBegin;
  PetscCheck(mode == INSERT_VALUES || mode == ADD_VALUES, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMLocalToGlobal() on a forest brick: INSERT_VALUES or ADD_VALUES");
  PetscCall(VecGetArrayReadAndMemType(l, &la, &lmt));
  PetscCall(VecGetArrayAndMemType(g, &ga, &gmt));
  device = (PetscBool)(PetscMemTypeDevice(gmt) && PetscMemTypeDevice(lmt));
  PetscCheck(device || (PetscMemTypeHost(gmt) && PetscMemTypeHost(lmt)), PETSC_COMM_SELF, PETSC_ERR_SUP, "DMLocalToGlobal() on a forest brick: a host and a device vector; use vectors of the brick's -dm_vec_type");
  if (device) PetscCall(DMBrickDeviceCopy_Private(f->nowned, (PetscBool)(mode == ADD_VALUES), la, ga));
  else if (mode == INSERT_VALUES) PetscCall(PetscArraycpy(ga, la, f->nowned));
  else
    for (PetscInt i = 0; i < f->nowned; i++) ga[i] += la[i];
  if (mode == ADD_VALUES && device) PetscCall(DMBrickSFDevice_Private(dm, f->halo, PETSC_TRUE, la + f->nowned, ga, PETSC_TRUE));
  else if (mode == ADD_VALUES) {
    PetscCall(PetscSFReduceBegin(f->halo, MPIU_SCALAR, la + f->nowned, ga, MPI_SUM));
    PetscCall(PetscSFReduceEnd(f->halo, MPIU_SCALAR, la + f->nowned, ga, MPI_SUM));
  }
  PetscCall(VecRestoreArrayAndMemType(g, &ga));
  PetscCall(VecRestoreArrayReadAndMemType(l, &la));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMLocalToGlobalEnd_BrickForest(DM dm, Vec l, InsertMode mode, Vec g)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMGetLocalToGlobalMapping_BrickForest(DM dm)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)brick->ltog));
  PetscCall(ISLocalToGlobalMappingDestroy(&dm->ltogmap));
  dm->ltogmap = brick->ltog;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the level's layout ---- */

typedef struct {
  PetscInt64 key;
  PetscInt   cell;
} BrickCellKey;

static int BrickCellKeyCompare(const void *a, const void *b)
{
  const PetscInt64 x = ((const BrickCellKey *)a)->key, y = ((const BrickCellKey *)b)->key;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* the cell at lattice position c (wrapped), among the rank's cells and its ghosts, or -1 */
static PetscInt BrickForestFindCell(const BrickForest *f, const BrickCellKey *sorted, PetscInt n, const PetscInt c[])
{
  BrickCellKey want = {0, -1}, *hit;

  for (PetscInt d = f->dim - 1; d >= 0; d--) {
    PetscInt x = c[d];
    if (f->periodic[d]) x = ((x % f->n[d]) + f->n[d]) % f->n[d];
    if (x < 0 || x >= f->n[d]) return -1;
    want.key = want.key * f->n[d] + x;
  }
  hit = (BrickCellKey *)bsearch(&want, sorted, (size_t)n, sizeof(BrickCellKey), BrickCellKeyCompare);
  return hit ? hit->cell : -1;
}

/* the rank's cells and ghosts sorted by their lattice position (for BrickForestFindCell) */
static PetscErrorCode BrickForestSortCells(const BrickForest *f, BrickCellKey **sorted)
{
  const PetscInt nc = f->ncells + f->nghost;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nc, sorted));
  for (PetscInt c = 0; c < nc; c++) {
    (*sorted)[c].cell = c;
    (*sorted)[c].key  = 0;
    for (PetscInt d = f->dim - 1; d >= 0; d--) (*sorted)[c].key = (*sorted)[c].key * f->n[d] + f->ijk[3 * c + d];
  }
  qsort(*sorted, (size_t)nc, sizeof(BrickCellKey), BrickCellKeyCompare);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DG and C0IP: the face neighbours of the rank's cells (2 dim per cell, lower then upper along x, y, z: an index among the cells
   and ghosts, -1 on the boundary). A face neighbour shares a corner, so it is the rank's or in its ghost layer. C0IP
   (two ghost layers on several ranks): the ghosts' too, for the patches' local residuals (a patch cell may be a ghost);
   -2 where the neighbour is in the domain but beyond the layers. */
static PetscErrorCode BrickForestSetUpFaces(DM dm, BrickForest *f, const BrickCellKey *sorted)
{
  const DM_Brick *brick = (const DM_Brick *)dm->data;
  const PetscInt  nf = 2 * f->dim, nc = f->ncells + f->nghost, nface = brick->op.ghost_cells > 1 ? nc : f->ncells;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nface * nf + 1, &f->face));
  for (PetscInt c = 0; c < nface; c++)
    for (PetscInt e = 0; e < nf; e++) {
      PetscInt nb[3] = {f->ijk[3 * c], f->ijk[3 * c + 1], f->ijk[3 * c + 2]};
      nb[e / 2] += (e % 2) ? 1 : -1;
      f->face[c * nf + e] = BrickForestFindCell(f, sorted, nc, nb);
      if (f->face[c * nf + e] < 0 && DMBrickForestCellInDomain_Private(brick, f->level, nb)) {
        PetscCheck(c >= f->ncells, PETSC_COMM_SELF, PETSC_ERR_PLIB, "forest brick: a face neighbour of cell %" PetscInt_FMT " is in the domain but not in the ghost layer", c);
        f->face[c * nf + e] = -2;
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The red-black part of a C0IP patch's color (its residual reads the face neighbours of the patch cells). Two patches
   of one parity class conflict where they lie 2 apart along one direction and level along the others; sum_d s_d(v_d)
   mod nrb separates them where each s_d differs between vertices 2 apart: floor(v/2) mod 2 (seed 000, Fig. 1), except
   along a periodic direction of 4m + 2 cells, whose vertices 2 apart form cycles of odd length (m = 1: 0, 2, 4, 0): there
   the last pair of vertices takes a third value, and nrb is 3. */
static PetscInt BrickForestRedBlack(const BrickForest *f, PetscInt nrb, const PetscInt v[])
{
  PetscInt sum = 0;

  for (PetscInt d = 0; d < f->dim; d++) {
    const PetscInt half = v[d] / 2;
    sum += (f->periodic[d] && f->n[d] % 4 == 2 && half == f->n[d] / 2 - 1) ? 2 : half % 2;
  }
  return sum % nrb;
}

/* The owned vertex patches: an owned free node at a cell corner is an interior vertex (its 2^dim cells are in the
   domain), and its cells are among the rank's cells and ghosts (DG: the rank of the vertex's upper cell owns it). Colors: the vertex's parity per direction, with a third
   value for the last vertex of a periodic direction of odd length (it neighbours vertex 0 across the end); with redblack
   (C0IP) times the red-black part (BrickForestRedBlack). */
static PetscErrorCode BrickForestSetUpPatches(BrickForest *f, PetscBool dg, PetscBool redblack, const BrickCellKey *sorted)
{
  const PetscInt nc = f->ncells + f->nghost, nchild = 1 << f->dim, k = f->k;
  PetscInt       maxp = f->ncells;
  PetscBool     *seen;
  PetscInt      *color, ncol[3] = {1, 1, 1}, np = 0, nrb = 1;
  PetscInt      *cells, *verts;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < f->dim; d++) ncol[d] = (f->periodic[d] && f->n[d] % 2) ? 3 : 2;
  if (redblack) {
    nrb = 2;
    for (PetscInt d = 0; d < f->dim; d++)
      if (f->periodic[d] && f->n[d] % 4 == 2) nrb = 3;
  }
  f->ncolors = ncol[0] * ncol[1] * ncol[2] * nrb;
  PetscCall(PetscCalloc1(f->nowned, &seen));
  if (!dg) { /* CG: one patch per owned vertex node, counted first (a bound by the owned nodes is (k+1)^dim times too large) */
    maxp = 0;
    for (PetscInt c = 0; c < f->ncells; c++)
      for (PetscInt corner = 0; corner < nchild; corner++) {
        PetscInt i = 0;
        for (PetscInt d = f->dim - 1; d >= 0; d--) i = i * (k + 1) + ((corner >> d) & 1) * k;
        const PetscInt ln = f->node[c * f->nv + i];
        if (ln < 0 || ln >= f->nowned || seen[ln]) continue;
        seen[ln] = PETSC_TRUE;
        maxp++;
      }
    PetscCall(PetscArrayzero(seen, f->nowned));
  }
  PetscCall(PetscMalloc3(maxp + 1, &color, maxp * nchild + 1, &cells, 3 * maxp + 1, &verts));
  for (PetscInt c = 0; c < f->ncells; c++)
    for (PetscInt corner = 0; corner < nchild; corner++) {
      PetscInt i = 0, v[3] = {0, 0, 0}, col = 0;
      if (dg) {
        /* DG has no vertex nodes: the patch of vertex v belongs to the rank of cell v (the cell with v as its lower
           corner), and v is interior where its 2^dim cells are in the domain (then they are the rank's or ghosts) */
        PetscBool interior = PETSC_TRUE;
        if (corner) continue;
        for (PetscInt b = 0; b < nchild && interior; b++) {
          PetscInt cc[3] = {0, 0, 0};
          for (PetscInt d = 0; d < f->dim; d++) cc[d] = f->ijk[3 * c + d] - 1 + ((b >> d) & 1);
          interior = (PetscBool)(BrickForestFindCell(f, sorted, nc, cc) >= 0);
        }
        if (!interior) continue;
      } else {
        for (PetscInt d = f->dim - 1; d >= 0; d--) i = i * (k + 1) + ((corner >> d) & 1) * k;
        const PetscInt ln = f->node[c * f->nv + i];
        if (ln < 0 || ln >= f->nowned || seen[ln]) continue;
        seen[ln] = PETSC_TRUE;
      }
      for (PetscInt d = 0; d < f->dim; d++) {
        v[d] = f->ijk[3 * c + d] + ((corner >> d) & 1);
        if (f->periodic[d]) v[d] %= f->n[d];
      }
      for (PetscInt d = f->dim - 1; d >= 0; d--) col = col * ncol[d] + ((f->periodic[d] && f->n[d] % 2 && v[d] == f->n[d] - 1) ? 2 : v[d] % 2);
      if (redblack) col += ncol[0] * ncol[1] * ncol[2] * BrickForestRedBlack(f, nrb, v);
      for (PetscInt b = 0; b < nchild; b++) {
        PetscInt cc[3] = {0, 0, 0};
        for (PetscInt d = 0; d < f->dim; d++) cc[d] = v[d] - 1 + ((b >> d) & 1);
        cells[np * nchild + b] = BrickForestFindCell(f, sorted, nc, cc);
        PetscCheck(cells[np * nchild + b] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "forest brick: a cell of the patch at vertex (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") is neither the rank's nor in its ghost layer", v[0], v[1], v[2]);
      }
      for (PetscInt d = 0; d < 3; d++) verts[3 * np + d] = v[d];
      color[np++] = col;
    }
  /* sorted by color (counting sort: the order within a color is the rank's curve order) */
  f->npatches = np;
  PetscCall(PetscCalloc1(f->ncolors + 1, &f->colorptr));
  PetscCall(PetscMalloc2(np * nchild, &f->patchcell, 3 * np, &f->patchvertex));
  for (PetscInt p = 0; p < np; p++) f->colorptr[color[p] + 1]++;
  for (PetscInt c = 0; c < f->ncolors; c++) f->colorptr[c + 1] += f->colorptr[c];
  {
    PetscInt *next;
    PetscCall(PetscMalloc1(f->ncolors, &next));
    for (PetscInt c = 0; c < f->ncolors; c++) next[c] = f->colorptr[c];
    for (PetscInt p = 0; p < np; p++) {
      const PetscInt q = next[color[p]]++;
      for (PetscInt b = 0; b < nchild; b++) f->patchcell[q * nchild + b] = cells[p * nchild + b];
      for (PetscInt d = 0; d < 3; d++) f->patchvertex[3 * q + d] = verts[3 * p + d];
    }
    PetscCall(PetscFree(next));
  }
  PetscCall(PetscFree3(color, cells, verts));
  PetscCall(PetscFree(seen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the halo (ghost values from their owners' global arrays) and the local-to-global map, from f->ghostglobal (ng) */
static PetscErrorCode BrickForestHaloCreate(DM dm, BrickForest *f, PetscInt ng)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  MPI_Comm    comm  = PetscObjectComm((PetscObject)dm);
  PetscLayout layout;
  PetscInt   *l2g;

  PetscFunctionBegin;
  PetscCall(PetscLayoutCreateFromSizes(comm, f->nowned, PETSC_DECIDE, 1, &layout));
  PetscCall(PetscSFCreate(comm, &f->halo));
  PetscCall(PetscSFSetGraphLayout(f->halo, layout, ng, NULL, PETSC_COPY_VALUES, f->ghostglobal));
  PetscCall(PetscSFSetUp(f->halo));
  PetscCall(PetscLayoutDestroy(&layout));
  PetscCall(PetscMalloc1(f->nlocal, &l2g));
  for (PetscInt i = 0; i < f->nowned; i++) l2g[i] = f->rstart + i;
  for (PetscInt i = 0; i < ng; i++) l2g[f->nowned + i] = f->ghostglobal[i];
  PetscCall(ISLocalToGlobalMappingDestroy(&brick->ltog));
  PetscCall(ISLocalToGlobalMappingCreate(comm, 1, f->nlocal, l2g, PETSC_OWN_POINTER, &brick->ltog));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CG: owned nodes at their global offset (p4est's lnodes, the Dirichlet nodes dropped), then the other nodes of the
   cells and ghost cells, sorted; the halo and the local-to-global map from their global numbers */
static PetscErrorCode BrickForestLayoutCG(DM dm, BrickForest *f, const BrickForestMesh *mesh)
{
  const PetscInt nc = f->ncells + f->nghost;

  PetscFunctionBegin;
  f->nowned = mesh->nowned;
  f->rstart = mesh->rstart;
  {
    PetscInt *ghosts, ng = 0;
    PetscCall(PetscMalloc1(f->nv * nc, &ghosts));
    for (PetscInt i = 0; i < f->nv * nc; i++) {
      const PetscInt g = mesh->gnode[i];
      if (g >= 0 && (g < f->rstart || g >= f->rstart + f->nowned)) ghosts[ng++] = g;
    }
    PetscCall(PetscSortRemoveDupsInt(&ng, ghosts));
    f->nlocal = f->nowned + ng;
    PetscCall(PetscMalloc1(ng, &f->ghostglobal));
    PetscCall(PetscArraycpy(f->ghostglobal, ghosts, ng));
    for (PetscInt i = 0; i < f->nv * nc; i++) {
      const PetscInt g = mesh->gnode[i];
      if (g < 0) f->node[i] = -1;
      else if (g >= f->rstart && g < f->rstart + f->nowned) f->node[i] = g - f->rstart;
      else {
        PetscInt loc;
        PetscCall(PetscFindInt(g, ng, f->ghostglobal, &loc));
        f->node[i] = f->nowned + loc;
      }
    }
    PetscCall(BrickForestHaloCreate(dm, f, ng));
    PetscCall(PetscFree(ghosts));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DG: a cell's nv values are consecutive, the rank's cells in curve order (global number: curve position times nv),
   then the ghost cells in p4est's ghost order; the halo moves the ghost cells' values */
static PetscErrorCode BrickForestLayoutDG(DM dm, BrickForest *f, const BrickForestMesh *mesh)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  MPI_Comm       comm  = PetscObjectComm((PetscObject)dm);
  const PetscInt nc = f->ncells + f->nghost, nv = f->nv, ng = f->nghost * nv;
  PetscMPIInt    rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(f->ncellsglobal <= PETSC_MAX_INT / nv, comm, PETSC_ERR_SUP, "A DG forest level of %" PetscInt64_FMT " cells x %" PetscInt_FMT " values: more than PetscInt holds (%d-bit indices); use fewer -dm_brick_refine levels or a PETSc with 64-bit indices",
             f->ncellsglobal, nv, (int)(8 * sizeof(PetscInt)));
  f->nowned = f->ncells * nv;
  f->rstart = (PetscInt)f->first[rank] * nv;
  f->nlocal = nc * nv;
  for (PetscInt i = 0; i < nc * nv; i++) f->node[i] = i;
  PetscCall(PetscMalloc1(ng + 1, &f->ghostglobal));
  for (PetscInt g = 0; g < f->nghost; g++) {
    PetscCheck(mesh->ghostcell[g] == BrickForestCurveIndex(f, brick->cells0, f->ijk + 3 * (f->ncells + g), f->level), PETSC_COMM_SELF, PETSC_ERR_LIB, "p4est's ghost %" PetscInt_FMT " is not the cell of its lattice position", g);
    for (PetscInt i = 0; i < nv; i++) f->ghostglobal[g * nv + i] = (PetscInt)mesh->ghostcell[g] * nv + i;
  }
  PetscCall(BrickForestHaloCreate(dm, f, ng));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The level on its forest. The brick's box fields keep the level's lattice (cells) and leave the box partition empty,
   so that no box loop runs on a forest level. */
PetscErrorCode DMBrickSetUpForest_Private(DM dm)
{
  DM_Brick       *brick = (DM_Brick *)dm->data;
  MPI_Comm        comm  = PetscObjectComm((PetscObject)dm);
  const PetscInt  dim = brick->dim, n0 = brick->cells0[0] * brick->cells0[1] * (dim == 3 ? brick->cells0[2] : 1);
  BrickForest    *f;
  BrickForestMesh mesh;
  PetscInt        refine, coarsen, nc;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMBrickForestCheckOperator_Private(dm, "-dm_brick_operator"));
  PetscCall(DMGetRefineLevel(dm, &refine));
  PetscCall(DMGetCoarsenLevel(dm, &coarsen));
  brick->below     = 0; /* a forest's hierarchy starts at its trees, the -dm_brick_cells grid */
  brick->below_set = PETSC_TRUE;
  brick->level     = refine - coarsen;
  PetscCheck(brick->level >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "A forest brick (-dm_brick_remove, -dm_brick_periodic, -dm_brick_partition p4est) has no level below its coarse cells (-dm_brick_cells): level %" PetscInt_FMT " asked for; use fewer -pc_mg_levels", brick->level);
  PetscCall(PetscNew(&f));
  brick->forest = f;
  f->dim        = dim;
  f->k          = brick->degree;
  f->nv         = dim == 2 ? (f->k + 1) * (f->k + 1) : (f->k + 1) * (f->k + 1) * (f->k + 1);
  f->level      = brick->level;
  for (PetscInt d = 0; d < 3; d++) {
    brick->cells[d] = d < dim ? brick->cells0[d] << brick->level : 1;
    f->n[d]         = brick->cells[d];
    f->periodic[d]  = brick->periodic[d];
    brick->cstart[d] = brick->cend[d] = 0; /* no box loop on a forest */
    brick->procs[d]                   = 1;
  }
  brick->dof     = brick->op.dg ? f->nv : 1; /* values per point: a DG point is a cell */
  brick->nactive = size;
  brick->nfit    = size;
  PetscCall(PetscMalloc1(n0, &f->tree));
  for (PetscInt c = 0; c < n0; c++) f->tree[c] = 0;
  for (PetscInt r = 0; r < brick->nremoved; r++) f->tree[brick->removed[3 * r] + brick->cells0[0] * (brick->removed[3 * r + 1] + brick->cells0[1] * brick->removed[3 * r + 2])] = -1;
  for (PetscInt c = 0, t = 0; c < n0; c++)
    if (f->tree[c] >= 0) f->tree[c] = t++;
  PetscCall(PetscLogEventBegin(DMBRICK_ForestMesh, dm, 0, 0, 0));
  PetscCall(PetscTime(&f->tmesh));
  if (dim == 2) PetscCall(DMBrickForestMesh2D_Private(dm, &mesh));
  else PetscCall(DMBrickForestMesh3D_Private(dm, &mesh));
  PetscCall(PetscTimeSubtract(&f->tmesh));
  f->tmesh = -f->tmesh;
  PetscCall(PetscLogEventEnd(DMBRICK_ForestMesh, dm, 0, 0, 0));
  PetscCall(PetscTime(&f->tlayout));
  PetscCall(PetscLogEventBegin(DMBRICK_ForestLayout, dm, 0, 0, 0));
  f->ncells       = mesh.ncells;
  f->nghost       = mesh.nghost;
  f->ncellsglobal = mesh.ncellsglobal;
  f->first        = mesh.first;
  nc              = f->ncells + f->nghost;
  PetscCall(PetscMalloc2(3 * nc, &f->ijk, f->nv * nc, &f->node));
  PetscCall(PetscArraycpy(f->ijk, mesh.ijk, 3 * nc));
  {
    /* the curve order p4est gave: cell i of this rank is number first[rank] + i */
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    for (PetscInt c = 0; c < f->ncells; c++)
      PetscCheck(BrickForestCurveIndex(f, brick->cells0, f->ijk + 3 * c, f->level) == f->first[rank] + c, PETSC_COMM_SELF, PETSC_ERR_LIB, "p4est's cell order is not the Morton order assumed for cell %" PetscInt_FMT, c);
  }
  if (brick->op.dg) PetscCall(BrickForestLayoutDG(dm, f, &mesh));
  else PetscCall(BrickForestLayoutCG(dm, f, &mesh));
  PetscCall(PetscFree2(mesh.ijk, mesh.gnode));
  PetscCall(PetscFree(mesh.ghostcell));
  {
    BrickCellKey *sorted;
    PetscCall(BrickForestSortCells(f, &sorted));
    if (brick->op.dg || brick->op.ghost_cells > 1) PetscCall(BrickForestSetUpFaces(dm, f, sorted)); /* operators with face terms */
    PetscCall(BrickForestSetUpPatches(f, brick->op.dg, brick->op.redblack, sorted));
    PetscCall(PetscFree(sorted));
  }
  PetscCall(PetscTimeSubtract(&f->tlayout));
  f->tlayout = -f->tlayout;
  PetscCall(PetscLogEventEnd(DMBRICK_ForestLayout, dm, 0, 0, 0));
  PetscCall(PetscInfo(dm, "forest level %" PetscInt_FMT ": set up on the host in %.3g s (p4est %.3g s, tables %.3g s)\n", f->level, (double)(f->tmesh + f->tlayout), (double)f->tmesh, (double)f->tlayout));
  for (PetscInt d = 0; d < 3; d++) {
    brick->ostart[d] = brick->gstart[d] = 0;
    brick->owidth[d] = brick->gwidth[d] = 1;
  }
  brick->owidth[0] = f->nowned / brick->dof;
  brick->gwidth[0] = f->nlocal / brick->dof;
  PetscCall(DMBrickSetUpExchange_Private(dm, f->halo, 1)); /* device vectors: the GPU-to-GPU exchange now, not in the first solve */
  dm->ops->createglobalvector      = DMCreateGlobalVector_BrickForest;
  dm->ops->createlocalvector       = DMCreateLocalVector_BrickForest;
  dm->ops->globaltolocalbegin      = DMGlobalToLocalBegin_BrickForest;
  dm->ops->globaltolocalend        = DMGlobalToLocalEnd_BrickForest;
  dm->ops->localtoglobalbegin      = DMLocalToGlobalBegin_BrickForest;
  dm->ops->localtoglobalend        = DMLocalToGlobalEnd_BrickForest;
  dm->ops->getlocaltoglobalmapping = DMGetLocalToGlobalMapping_BrickForest;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* forests support the laplace, sipg and c0ip operators (host vectors; laplace and sipg on device vectors too): anything
   else is an error naming the option */
PetscErrorCode DMBrickForestCheckOperator_Private(DM dm, const char what[])
{
  DM_Brick *brick = (DM_Brick *)dm->data;
  PetscBool laplace, sipg, c0ip;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(brick->opname, "laplace", &laplace));
  PetscCall(PetscStrcmp(brick->opname, "sipg", &sipg));
  PetscCall(PetscStrcmp(brick->opname, "c0ip", &c0ip));
  PetscCheck(laplace || sipg || c0ip, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "%s %s on a forest (-dm_brick_remove, -dm_brick_periodic, -dm_brick_partition p4est) is not implemented yet; allowed on forests: -dm_brick_operator laplace, sipg or c0ip", what, brick->opname);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickViewForest_Private(DM dm, PetscViewer viewer)
{
  DM_Brick    *brick = (DM_Brick *)dm->data;
  BrickForest *f     = brick->forest;
  PetscInt     mm[2], loc = f->ncells, npmax, npmin, ntrees = 0;
  PetscInt64   dofs, nown = f->nowned;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  {
    const PetscInt in[2] = {loc, loc};
    PetscCall(PetscGlobalMinMaxInt(PetscObjectComm((PetscObject)dm), in, mm));
  }
  npmin = npmax = f->npatches;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &npmax, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)dm)));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &npmin, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)dm)));
  PetscCallMPI(MPIU_Allreduce(&nown, &dofs, 1, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)dm)));
  for (PetscInt c = 0; c < brick->cells0[0] * brick->cells0[1] * (brick->dim == 3 ? brick->cells0[2] : 1); c++) ntrees += f->tree[c] >= 0;
  PetscCall(PetscViewerASCIIPrintf(viewer, "domain: p4est forest of %" PetscInt_FMT " trees (the %" PetscInt_FMT " coarse cells but %" PetscInt_FMT " removed), periodic %s%s%s%s, %" PetscInt64_FMT " cells on this level, %" PetscInt64_FMT " DoFs\n", ntrees,
                                   brick->cells0[0] * brick->cells0[1] * (brick->dim == 3 ? brick->cells0[2] : 1), brick->nremoved, brick->periodic[0] ? "x" : "", brick->periodic[1] ? "y" : "", brick->periodic[2] ? "z" : "",
                                   (brick->periodic[0] || brick->periodic[1] || brick->periodic[2]) ? "" : "none", f->ncellsglobal, dofs));
  {
    /* the ghost layer a rank keeps (CG: nodes of its cells and ghost cells that other ranks own; DG: the ghost cells'
       values): what the halo moves */
    const PetscInt in[2] = {f->nlocal - f->nowned, f->nlocal - f->nowned};
    PetscInt       gm[2];
    PetscCall(PetscGlobalMinMaxInt(PetscObjectComm((PetscObject)dm), in, gm));
    PetscCall(PetscViewerASCIIPrintf(viewer, "partition: p4est's space-filling curve (-dm_brick_partition p4est, %s) over %d ranks: %" PetscInt_FMT "..%" PetscInt_FMT " cells, %" PetscInt_FMT "..%" PetscInt_FMT " ghost %s and %" PetscInt_FMT "..%" PetscInt_FMT " vertex patches a rank, %" PetscInt_FMT " colors\n",
                                     brick->partition_set ? "asked for" : "the partition of a domain with removed cells or periodic directions", size, mm[0], mm[1], gm[0], gm[1], brick->op.dg ? "values" : "nodes", npmin, npmax, f->ncolors));
  }
  {
    /* the host set-up of this level, slowest rank (the forest's set-up runs on the host, also for device vectors) */
    PetscLogDouble t[2] = {f->tmesh, f->tlayout};
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 2, MPIU_PETSCLOGDOUBLE, MPI_MAX, PetscObjectComm((PetscObject)dm)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "set-up of this level on the host: %.3g s (p4est meshing, partition, ghost layer and numbering %.3g s; the brick's tables %.3g s), slowest rank\n", (double)(t[0] + t[1]), (double)t[0], (double)t[1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickDestroyForest_Private(DM dm)
{
  DM_Brick    *brick = (DM_Brick *)dm->data;
  BrickForest *f     = brick->forest;

  PetscFunctionBegin;
  if (!f) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(f->tree));
  PetscCall(PetscFree(f->first));
  PetscCall(PetscFree2(f->ijk, f->node));
  PetscCall(PetscFree(f->face));
  PetscCall(PetscFree(f->ghostglobal));
  PetscCall(PetscSFDestroy(&f->halo));
  PetscCall(PetscFree(f->colorptr));
  PetscCall(PetscFree2(f->patchcell, f->patchvertex));
  PetscCall(PetscFree(brick->forest));
  PetscFunctionReturn(PETSC_SUCCESS);
}
