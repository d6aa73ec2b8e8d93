/* How a brick level is distributed over the MPI ranks. Every level is partitioned on its own, from its own cell
   counts: a process grid over as many ranks as the cells allow (ranks 0 .. nactive-1), whole cells per rank, dealt
   so that the ranks' shares are equal within 2 %, and the boxes of a DMDA of the interior nodes on those ranks
   (computed, not made). A level with too few cells for all ranks lives on fewer (agglomeration); the others own
   nothing on it. Global vectors are numbered as the DMDA numbers them: rank by rank, lexicographically inside a
   rank's box, so DMBrickNodeGlobalIndex_Private() can find any node's index from the partition alone (the grid
   transfer gathers across two partitions with it). */
#include "brickimpl.h"

static const char dirname[] = "xyz";

/* Total cut of a process grid, in cell faces: along a direction split into p parts there are p-1 cuts,
   each as large as the cross-section of the grid. */
static PetscReal ProcessGridCost(PetscInt dim, const PetscInt cells[], const PetscMPIInt p[])
{
  PetscReal cost = 0.0;

  for (PetscInt d = 0; d < dim; d++) {
    PetscReal face = 1.0;
    for (PetscInt e = 0; e < dim; e++)
      if (e != d) face *= (PetscReal)cells[e];
    cost += (p[d] - 1) * face;
  }
  return cost;
}

/* The unit in which the n cells of a direction are dealt to p ranks: a power of two dividing n, the largest one that
   still gives every rank a unit and keeps the largest rank's share within 2 % of n / p (else 1, the best balance).
   Two levels on the same process grid that deal the same number of units are nested rank by rank (a coarse cell's
   children on its rank: the transfer then communicates only a ghost layer); the units of n = m 2^j cells are m 2^i,
   so every level fine enough to hold the chosen number of units deals it, and only the transfers below it gather
   across partitions. (The largest unit alone, m units, would leave 2 ranks with 3 coarse cells 2 and 1 units on
   every level: one rank with twice the other's work.) */
static PetscInt BrickSplitUnit(PetscInt n, PetscMPIInt p)
{
  PetscInt best = 1;

  for (PetscInt unit = 1; n % unit == 0 && n / unit >= p; unit *= 2) {
    const PetscInt units = n / unit, largest = unit * ((units + p - 1) / p);
    if (50 * (PetscInt64)largest * p <= 51 * (PetscInt64)n) best = unit;
  }
  return best;
}

/* Cells of p ranks along a direction with n cells, in units of BrickSplitUnit(); the remainder goes to the first
   ranks, so the first rank (which also loses the boundary node) is the largest. */
static void BrickSplit(PetscInt n, PetscMPIInt p, PetscInt r[])
{
  const PetscInt unit = BrickSplitUnit(n, p), units = n / unit;

  r[0] = 0;
  for (PetscMPIInt i = 0; i < p; i++) r[i + 1] = r[i] + unit * (units / p + (i < units % p));
}

/* Whether p ranks along a direction with n cells leave every rank the DMDA's stencil width of nodes: g cells
   (g k nodes), and g + 1 for the first rank, which does not own the boundary node. */
static PetscBool BrickSplitFits(PetscInt n, PetscMPIInt p, PetscInt g)
{
  PetscInt unit, units;

  if (p == 1) return PETSC_TRUE;
  if (p > n) return PETSC_FALSE;
  unit  = BrickSplitUnit(n, p);
  units = n / unit;
  /* as BrickSplit: the first rank gets the most, the last ones the fewest */
  return (PetscBool)(unit * (units / p + (units % p > 0)) >= g + 1 && unit * (units / p) >= g);
}

/* The DoFs of this level (interior nodes of CG, all cell values of DG), as a real: only compared with a limit */
static PetscReal BrickLevelDoFs(const DM_Brick *brick)
{
  PetscReal n = 1.0;

  for (PetscInt d = 0; d < brick->dim; d++) n *= brick->family == DMBRICK_DG ? (PetscReal)(brick->cells[d] * (brick->degree + 1)) : (PetscReal)(brick->degree * brick->cells[d] - 1);
  return n;
}

/* The process grid for this level: the largest number of ranks whose grid fits the cells and (-dm_brick_rank_min_dofs)
   gives each rank enough DoFs, then the smallest cut; slabs: only grids split along the last direction. best[0] = 0
   where none fits; nfit: the most ranks the cells allow. */
static void BrickSearchProcessGrid(const DM_Brick *brick, PetscMPIInt size, PetscBool slabs, PetscMPIInt best[3], PetscReal *bestcost, PetscMPIInt *nfit)
{
  best[0] = best[1] = best[2] = 0;
  *bestcost = PETSC_MAX_REAL;
  *nfit     = 0;
  for (PetscMPIInt a = size; a >= 1 && !best[0]; a--) {
    /* a fits the cells: note it, then skip it while it leaves a rank under the DoF limit (one rank always serves) */
    const PetscBool fewdofs = (PetscBool)(a > 1 && BrickLevelDoFs(brick) < (PetscReal)a * (PetscReal)brick->rank_min_dofs);
    for (PetscMPIInt m = 1; m <= a; m++) {
      if (a % m) continue;
      for (PetscMPIInt n = 1; n <= a / m; n++) {
        const PetscMPIInt p[3] = {m, n, a / (m * n)};
        PetscBool         fits = PETSC_TRUE;
        PetscReal         cost;
        if ((a / m) % n || (brick->dim == 2 && p[2] != 1)) continue;
        if (slabs && (p[0] != 1 || (brick->dim == 3 && p[1] != 1))) continue; /* the last direction only */
        for (PetscInt d = 0; d < brick->dim; d++) fits = (PetscBool)(fits && BrickSplitFits(brick->cells[d], p[d], brick->op.ghost_cells));
        if (!fits) continue;
        if (!*nfit) *nfit = a;
        if (fewdofs) continue;
        cost = ProcessGridCost(brick->dim, brick->cells, p);
        if (cost < *bestcost) {
          *bestcost = cost;
          for (PetscInt d = 0; d < 3; d++) best[d] = p[d];
        }
      }
    }
  }
}

/* The process grid of this level (BrickSearchProcessGrid()). Slabs (-dm_brick_slabs) are chosen once, on the first brick
   set up, and given to the levels made from it: asked for, or (default) with device vectors when the slabs use as
   many ranks as the best grid and cut at most twice as much (the copies of the level they save outweigh a larger ghost
   exchange on a GPU; a host vector's copies are cheap against the host's patch work). */
static PetscErrorCode BrickChooseProcessGrid(DM dm)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  PetscMPIInt size, best[3], nfit;
  PetscReal   cost;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  if (!brick->slabs_set) {
    PetscBool   device;
    PetscMPIInt sbest[3], snfit;
    PetscReal   scost;
    PetscCall(DMBrickOnDevice_Private(dm, &device));
    brick->slabs = PETSC_FALSE;
    if (device && size > 1) {
      BrickSearchProcessGrid(brick, size, PETSC_FALSE, best, &cost, &nfit);
      BrickSearchProcessGrid(brick, size, PETSC_TRUE, sbest, &scost, &snfit);
      brick->slabs = (PetscBool)(sbest[0] && sbest[0] * sbest[1] * sbest[2] == best[0] * best[1] * best[2] && sbest[0] * sbest[1] * sbest[2] > 1 && scost <= 2 * cost);
    }
    brick->slabs_set  = PETSC_TRUE;
    brick->slabs_auto = PETSC_TRUE;
  }
  BrickSearchProcessGrid(brick, size, brick->slabs, best, &cost, &nfit);
  PetscCheck(best[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "no process grid fits, not even one rank");
  brick->nfit    = nfit;
  brick->nactive = best[0] * best[1] * best[2];
  for (PetscInt d = 0; d < 3; d++) {
    brick->procs[d] = best[d];
    PetscCall(PetscFree(brick->cellranges[d]));
    PetscCall(PetscMalloc1(best[d] + 1, &brick->cellranges[d]));
    BrickSplit(brick->cells[d], best[d], brick->cellranges[d]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Interior nodes owned by rank coordinate q along d: [start, start + width) in interior numbering (a rank owns
   the full-grid nodes [k r_q, k r_{q+1}); node 0 and node k N lie on the boundary). */
static inline void BrickRankNodes(const DM_Brick *brick, PetscInt d, PetscMPIInt q, PetscInt *start, PetscInt *width)
{
  const PetscInt k = brick->degree, a = brick->cellranges[d][q] * k, b = brick->cellranges[d][q + 1] * k;

  if (brick->family == DMBRICK_DG) { /* DMDA points are cells */
    *start = brick->cellranges[d][q];
    *width = brick->cellranges[d][q + 1] - brick->cellranges[d][q];
    return;
  }
  *start = PetscMax(a, 1) - 1;
  *width = b - PetscMax(a, 1);
}

/* The cells of this level (checked against the degree and the index range), the process grid, and this rank's cells. */
PetscErrorCode DMBrickSetUpPartition_Private(DM dm)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  MPI_Comm    comm  = PetscObjectComm((PetscObject)dm);
  PetscMPIInt rank, size, coord[3];
  PetscInt    refine, coarsen, scale;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMGetRefineLevel(dm, &refine));
  PetscCall(DMGetCoarsenLevel(dm, &coarsen));
  brick->level = refine - coarsen - brick->below; /* the refine level counts the levels below the coarse grid too */
  PetscCheck(PetscAbsInt(brick->level) <= 24, comm, PETSC_ERR_ARG_OUTOFRANGE, "Brick level %" PetscInt_FMT " (-dm_brick_refine %" PetscInt_FMT ", coarsened %" PetscInt_FMT " times): allowed -24..24", brick->level, refine - brick->below, coarsen);
  scale = (PetscInt)1 << PetscAbsInt(brick->level);
  for (PetscInt d = 0; d < 3; d++) {
    if (d >= brick->dim) {
      brick->cells[d] = 1;
      continue;
    }
    if (brick->level >= 0) {
      PetscInt nodes = 0;
      PetscCall(PetscIntMultError(brick->cells0[d], scale, &brick->cells[d]));
      PetscCall(PetscIntMultError(brick->cells[d], brick->degree, &nodes));
      PetscCheck(nodes < PETSC_MAX_INT / 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_brick_cells %" PetscInt_FMT " along %c refined %" PetscInt_FMT " times (-dm_brick_refine) with degree %" PetscInt_FMT " gives too many nodes for %d-bit indices",
                 brick->cells0[d], dirname[d], brick->level, brick->degree, (int)(8 * sizeof(PetscInt)));
      PetscCheck(brick->degree > 1 || brick->cells[d] > 1 || brick->family == DMBRICK_DG, comm, PETSC_ERR_ARG_OUTOFRANGE,
                 "-dm_brick_degree 1 with a single cell along %c has no interior degree of freedom; allowed: at least 2 cells along %c (-dm_brick_cells) or degree >= 2", dirname[d], dirname[d]);
    } else {
      PetscCheck(brick->cells0[d] % scale == 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
                 "Cannot coarsen the brick %" PetscInt_FMT " time(s) below the coarse grid: the %" PetscInt_FMT " coarse cells along %c (-dm_brick_cells) do not divide by %" PetscInt_FMT
                 "; use fewer -pc_mg_levels or a coarse grid divisible by 2^(levels-1-refine)",
                 -brick->level, brick->cells0[d], dirname[d], scale);
      brick->cells[d] = brick->cells0[d] / scale;
      PetscCheck(brick->degree > 1 || brick->cells[d] > 1 || brick->family == DMBRICK_DG, comm, PETSC_ERR_ARG_OUTOFRANGE,
                 "Level %" PetscInt_FMT " of the brick (coarsened below -dm_brick_cells) has a single cell along %c and, with degree 1, no interior degree of freedom; use fewer -pc_mg_levels", brick->level, dirname[d]);
    }
  }
  PetscCall(BrickChooseProcessGrid(dm));
  coord[0] = rank % brick->procs[0];
  coord[1] = (rank / brick->procs[0]) % brick->procs[1];
  coord[2] = rank / (brick->procs[0] * brick->procs[1]);
  for (PetscInt d = 0; d < 3; d++) {
    if (rank < brick->nactive) {
      brick->cstart[d] = brick->cellranges[d][coord[d]];
      brick->cend[d]   = brick->cellranges[d][coord[d] + 1];
    } else brick->cstart[d] = brick->cend[d] = 0;
  }
  /* the global numbering: rank by rank, each rank's box lexicographically (DG: cell by cell, (k+1)^d values each) */
  brick->dof = 1;
  if (brick->family == DMBRICK_DG)
    for (PetscInt d = 0; d < brick->dim; d++) brick->dof *= brick->degree + 1;
  PetscCall(PetscFree(brick->rankoffset));
  PetscCall(PetscMalloc1(brick->nactive + 1, &brick->rankoffset));
  brick->rankoffset[0] = 0;
  for (PetscMPIInt r = 0; r < brick->nactive; r++) {
    const PetscMPIInt q[3] = {r % brick->procs[0], (r / brick->procs[0]) % brick->procs[1], r / (brick->procs[0] * brick->procs[1])};
    PetscInt          n    = brick->dof;
    for (PetscInt d = 0; d < brick->dim; d++) {
      PetscInt s, w;
      BrickRankNodes(brick, d, q[d], &s, &w);
      n *= w;
    }
    brick->rankoffset[r + 1] = brick->rankoffset[r] + n;
  }
  /* the active ranks' communicator */
  if (brick->ownactivecomm) PetscCallMPI(MPI_Comm_free(&brick->activecomm));
  brick->ownactivecomm = PETSC_FALSE;
  if (brick->nactive == size) brick->activecomm = comm;
  else {
    PetscCallMPI(MPI_Comm_split(comm, rank < brick->nactive ? 0 : MPI_UNDEFINED, rank, &brick->activecomm));
    brick->ownactivecomm = (PetscBool)(rank < brick->nactive);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rank that owns point p of this level (CG: interior node p, full-grid node p + 1; DG: cell p), the point's
   position among that rank's owned points and in that rank's ghosted box (lexicographic, x fastest), by index
   arithmetic on the partition. */
static void BrickPointOwner(const DM_Brick *brick, const PetscInt p[], PetscMPIInt *owner, PetscInt *owned, PetscInt *ghosted)
{
  const PetscBool dg    = (PetscBool)(brick->family == DMBRICK_DG);
  const PetscInt  width = dg ? 1 : brick->op.ghost_cells * brick->degree;
  PetscInt        loc = 0, gloc = 0, stride = 1, gstride = 1;
  PetscMPIInt     rank = 0, rstride = 1;

  for (PetscInt d = 0; d < brick->dim; d++) {
    const PetscInt *r = brick->cellranges[d], mult = dg ? 1 : brick->degree, key = dg ? p[d] : p[d] + 1;
    const PetscInt  M  = dg ? brick->cells[d] : brick->degree * brick->cells[d] - 1;
    PetscMPIInt     lo = 0, hi = brick->procs[d] - 1;
    PetscInt        s, w, gs, ge;
    while (lo < hi) { /* the last rank coordinate whose first point is not after p */
      const PetscMPIInt mid = (lo + hi + 1) / 2;
      if (mult * r[mid] <= key) lo = mid;
      else hi = mid - 1;
    }
    BrickRankNodes(brick, d, lo, &s, &w);
    gs = PetscMax(s - width, 0);
    ge = PetscMin(s + w + width, M);
    loc += (p[d] - s) * stride;
    gloc += (p[d] - gs) * gstride;
    stride *= w;
    gstride *= ge - gs;
    rank += lo * rstride;
    rstride *= brick->procs[d];
  }
  *owner = rank;
  if (owned) *owned = loc;
  if (ghosted) *ghosted = gloc;
}

/*
   DMBrickGhostPoints_Private - the ghost points of this rank's local (ghosted) box on a level held by several ranks:
   their positions in the local box (lpoint), owners, and positions among the owner's owned points (oowned) and in the
   owner's ghosted box (oghosted). Only the ghost shell is visited. Free the arrays with PetscFree4(). Not collective.
*/
PetscErrorCode DMBrickGhostPoints_Private(DM dm, PetscInt *n, PetscInt **lpoint, PetscMPIInt **owner, PetscInt **oowned, PetscInt **oghosted)
{
  DM_Brick       *brick = (DM_Brick *)dm->data;
  const PetscInt *os = brick->ostart, *ow = brick->owidth, *gs = brick->gstart, *gw = brick->gwidth;
  PetscInt        count = 0;

  PetscFunctionBegin;
  /* count, then fill: the rows (y, z) inside the owned box have ghosts only at their two ends */
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscInt i = 0;
    for (PetscInt z = gs[2]; z < gs[2] + gw[2]; z++)
      for (PetscInt y = gs[1]; y < gs[1] + gw[1]; y++) {
        const PetscBool inside = (PetscBool)(z >= os[2] && z < os[2] + ow[2] && y >= os[1] && y < os[1] + ow[1]);
        for (PetscInt x = gs[0]; x < gs[0] + gw[0]; x++) {
          if (inside && x == os[0]) x = os[0] + ow[0]; /* skip the owned stretch of the row */
          if (x >= gs[0] + gw[0]) break;
          if (pass) {
            const PetscInt p[3] = {x, y, z};
            (*lpoint)[i]        = ((z - gs[2]) * gw[1] + (y - gs[1])) * gw[0] + (x - gs[0]);
            BrickPointOwner(brick, p, &(*owner)[i], &(*oowned)[i], &(*oghosted)[i]);
          }
          i++;
        }
      }
    if (!pass) {
      count = i;
      PetscCall(PetscMalloc4(count + 1, lpoint, count + 1, owner, count + 1, oowned, count + 1, oghosted));
    }
  }
  *n = count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The halo graph of a level on several ranks: leaves the ghost values of this rank's local (ghosted) array, roots the
   owners' global arrays (dof values per point, point by point). Built from the ghost shell alone by index
   arithmetic: what DMGlobalToLocal sends besides the copy of the owned block, with no O(N) index array. */
static PetscErrorCode BrickCreateHalo(DM dm)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt dof = brick->dof, *ow = brick->owidth;
  PetscInt       np, *lpoint, *oowned, *oghosted, *ilocal;
  PetscMPIInt   *owner;
  PetscSFNode   *iremote;

  PetscFunctionBegin;
  PetscCall(DMBrickGhostPoints_Private(dm, &np, &lpoint, &owner, &oowned, &oghosted));
  PetscCall(PetscMalloc1(np * dof, &ilocal));
  PetscCall(PetscMalloc1(np * dof, &iremote));
  for (PetscInt j = 0; j < np; j++)
    for (PetscInt c = 0; c < dof; c++) {
      ilocal[j * dof + c]        = lpoint[j] * dof + c;
      iremote[j * dof + c].rank  = owner[j];
      iremote[j * dof + c].index = oowned[j] * dof + c;
    }
  PetscCall(PetscFree4(lpoint, owner, oowned, oghosted));
  PetscCall(PetscSFCreate(brick->activecomm, &brick->halo));
  PetscCall(PetscSFSetGraph(brick->halo, ow[0] * ow[1] * ow[2] * dof, np * dof, ilocal, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(brick->halo));
  PetscCall(DMBrickSetUpExchange_Private(dm, brick->halo, 1)); /* with device vectors, its GPU-to-GPU exchange now */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owned and ghosted boxes of the active ranks: those of a DMDA of the interior nodes (DG: of the cells, dof values
   each) with a box stencil, computed from the partition, and with several active ranks the halo graph. No DMDA is
   made: its index sets, local-to-global map and scatter are O(N) host arrays (seconds of setup at 10^8 DoFs, minutes
   at 10^9) for what is a copy of the owned block plus the ghost shell. When one rank holds the whole level its boxes
   are the grid and its local and global vectors have the same layout. The local-to-global map is made when first
   asked for (DMBrickGetLocalToGlobal_Private). */
PetscErrorCode DMBrickCreateBoxes_Private(DM dm)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  const PetscInt k     = brick->degree;
  PetscInt       M[3]  = {1, 1, 1};

  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&brick->halo));
  PetscCall(ISLocalToGlobalMappingDestroy(&brick->ltog));
  for (PetscInt d = 0; d < 3; d++) {
    brick->ostart[d] = brick->gstart[d] = 0;
    brick->owidth[d] = brick->gwidth[d] = d < brick->dim ? 0 : 1;
  }
  if (brick->activecomm == MPI_COMM_NULL) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < brick->dim; d++) M[d] = brick->family == DMBRICK_DG ? brick->cells[d] : k * brick->cells[d] - 1;
  if (brick->nactive == 1) {
    for (PetscInt d = 0; d < brick->dim; d++) brick->owidth[d] = brick->gwidth[d] = M[d];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    /* the DMDA's boxes by index arithmetic (box stencil, no periodicity): owned points from the partition, ghosted
       ones widened by the stencil width and cut at the grid's ends; then the halo graph */
    const PetscInt width = brick->family == DMBRICK_DG ? 1 : brick->op.ghost_cells * k;
    PetscMPIInt    rank;
    PetscCallMPI(MPI_Comm_rank(brick->activecomm, &rank));
    {
      const PetscMPIInt q[3] = {rank % brick->procs[0], (rank / brick->procs[0]) % brick->procs[1], rank / (brick->procs[0] * brick->procs[1])};
      for (PetscInt d = 0; d < brick->dim; d++) {
        BrickRankNodes(brick, d, q[d], &brick->ostart[d], &brick->owidth[d]);
        brick->gstart[d] = PetscMax(brick->ostart[d] - width, 0);
        brick->gwidth[d] = PetscMin(brick->ostart[d] + brick->owidth[d] + width, M[d]) - brick->gstart[d];
      }
    }
    PetscCall(BrickCreateHalo(dm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The map from local (ghosted) to global indices on the brick's communicator, made on first use (assembly and
   DMGetLocalToGlobalMapping() need it, a matrix-free solve does not). On several ranks by index arithmetic (the active
   ranks come first, so their numbering is also the one on the whole communicator); on the one rank holding a level
   the identity; empty on an inactive rank. Not collective. */
PetscErrorCode DMBrickGetLocalToGlobal_Private(DM dm, ISLocalToGlobalMapping *ltog)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  if (!brick->ltog) {
    PetscInt *idx = NULL, nl = 0;
    if (brick->halo) {
      const PetscInt *gs = brick->gstart, *gw = brick->gwidth, dof = brick->dof;
      nl = gw[0] * gw[1] * gw[2] * dof;
      PetscCall(PetscMalloc1(nl, &idx));
      for (PetscInt z = gs[2], i = 0; z < gs[2] + gw[2]; z++)
        for (PetscInt y = gs[1]; y < gs[1] + gw[1]; y++)
          for (PetscInt x = gs[0]; x < gs[0] + gw[0]; x++) {
            const PetscInt p[3] = {x, y, z};
            PetscMPIInt    owner;
            PetscInt       local;
            BrickPointOwner(brick, p, &owner, &local, NULL);
            for (PetscInt c = 0; c < dof; c++) idx[i++] = brick->rankoffset[owner] + local * dof + c;
          }
    } else if (brick->activecomm != MPI_COMM_NULL) {
      nl = brick->gwidth[0] * brick->gwidth[1] * brick->gwidth[2] * brick->dof;
      PetscCall(PetscMalloc1(nl, &idx));
      for (PetscInt i = 0; i < nl; i++) idx[i] = i;
    }
    PetscCall(ISLocalToGlobalMappingCreate(PetscObjectComm((PetscObject)dm), 1, nl, idx, PETSC_OWN_POINTER, &brick->ltog));
  }
  *ltog = brick->ltog;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The global index of full-grid node f of this level, or -1 for a boundary node. */
PetscInt DMBrickNodeGlobalIndex_Private(const DM_Brick *brick, const PetscInt f[])
{
  PetscInt    local = 0, stride = 1;
  PetscMPIInt rank = 0, rstride = 1;

  for (PetscInt d = 0; d < brick->dim; d++) {
    const PetscInt *r  = brick->cellranges[d];
    const PetscInt  k  = brick->degree;
    PetscMPIInt     lo = 0, hi = brick->procs[d] - 1;
    PetscInt        s, w;
    if (f[d] <= 0 || f[d] >= k * brick->cells[d]) return -1;
    while (lo < hi) { /* the last rank coordinate q with k r[q] <= f */
      const PetscMPIInt mid = (lo + hi + 1) / 2;
      if (k * r[mid] <= f[d]) lo = mid;
      else hi = mid - 1;
    }
    BrickRankNodes(brick, d, lo, &s, &w);
    local += (f[d] - 1 - s) * stride;
    stride *= w;
    rank += lo * rstride;
    rstride *= brick->procs[d];
  }
  return brick->rankoffset[rank] + local;
}

/* DG: the global index of the first value of cell c of this level (its (k+1)^d values follow, x fastest). */
PetscInt DMBrickCellGlobalIndex_Private(const DM_Brick *brick, const PetscInt c[])
{
  PetscInt    local = 0, stride = 1;
  PetscMPIInt rank = 0, rstride = 1;

  for (PetscInt d = 0; d < brick->dim; d++) {
    const PetscInt *r  = brick->cellranges[d];
    PetscMPIInt     lo = 0, hi = brick->procs[d] - 1;
    while (lo < hi) { /* the last rank coordinate q with r[q] <= c */
      const PetscMPIInt mid = (lo + hi + 1) / 2;
      if (r[mid] <= c[d]) lo = mid;
      else hi = mid - 1;
    }
    local += (c[d] - r[lo]) * stride;
    stride *= r[lo + 1] - r[lo];
    rank += lo * rstride;
    rstride *= brick->procs[d];
  }
  return brick->rankoffset[rank] + local * brick->dof;
}
