/* How a brick level is distributed over the MPI ranks. Every level is partitioned on its own, from its own cell
   counts: a process grid over as many ranks as the cells allow (ranks 0 .. nactive-1), whole cells per rank,
   and a DMDA of the interior nodes on those ranks. A level with too few cells for all ranks lives on fewer
   (agglomeration); the others own nothing on it. Global vectors are numbered as the DMDA numbers them: rank by
   rank, lexicographically inside a rank's box, so DMBrickNodeGlobalIndex_Private() can find any node's index
   from the partition alone (the grid transfer gathers across two partitions with it). */
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

/* Cells of p ranks along a direction with n cells: dealt in units of the largest power of two that divides n and
   still gives every rank a unit, so that two levels on the same process grid are nested rank by rank (a coarse
   cell's children on its rank: the transfer then communicates only a ghost layer); the remainder goes to the first
   ranks, so the first rank (which also loses the boundary node) is the largest. */
static void BrickSplit(PetscInt n, PetscMPIInt p, PetscInt r[])
{
  PetscInt unit = 1, units;

  while (n % (2 * unit) == 0 && n / (2 * unit) >= p) unit *= 2;
  units = n / unit;
  r[0]  = 0;
  for (PetscMPIInt i = 0; i < p; i++) r[i + 1] = r[i] + unit * (units / p + (i < units % p));
}

/* Whether p ranks along a direction with n cells leave every rank the DMDA's stencil width of nodes: g cells
   (g k nodes), and g + 1 for the first rank, which does not own the boundary node. */
static PetscBool BrickSplitFits(PetscInt n, PetscMPIInt p, PetscInt g)
{
  PetscInt unit = 1, units;

  if (p == 1) return PETSC_TRUE;
  if (p > n) return PETSC_FALSE;
  while (n % (2 * unit) == 0 && n / (2 * unit) >= p) unit *= 2;
  units = n / unit;
  /* as BrickSplit: the first rank gets the most, the last ones the fewest */
  return (PetscBool)(unit * (units / p + (units % p > 0)) >= g + 1 && unit * (units / p) >= g);
}

/* The process grid of this level: the largest number of ranks whose grid fits the cells, then the smallest cut. */
static PetscErrorCode BrickChooseProcessGrid(DM dm)
{
  DM_Brick   *brick = (DM_Brick *)dm->data;
  PetscMPIInt size, best[3] = {0, 0, 0};
  PetscReal   bestcost = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  for (PetscMPIInt a = size; a >= 1 && !best[0]; a--) {
    for (PetscMPIInt m = 1; m <= a; m++) {
      if (a % m) continue;
      for (PetscMPIInt n = 1; n <= a / m; n++) {
        const PetscMPIInt p[3] = {m, n, a / (m * n)};
        PetscBool         fits = PETSC_TRUE;
        PetscReal         cost;
        if ((a / m) % n || (brick->dim == 2 && p[2] != 1)) continue;
        for (PetscInt d = 0; d < brick->dim; d++) fits = (PetscBool)(fits && BrickSplitFits(brick->cells[d], p[d], brick->op.ghost_cells));
        if (!fits) continue;
        cost = ProcessGridCost(brick->dim, brick->cells, p);
        if (cost < bestcost) {
          bestcost = cost;
          for (PetscInt d = 0; d < 3; d++) best[d] = p[d];
        }
      }
    }
  }
  PetscCheck(best[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "no process grid fits, not even one rank");
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
  brick->level = refine - coarsen;
  PetscCheck(PetscAbsInt(brick->level) <= 24, comm, PETSC_ERR_ARG_OUTOFRANGE, "Brick level %" PetscInt_FMT " (-dm_brick_refine %" PetscInt_FMT ", coarsened %" PetscInt_FMT " times): allowed -24..24", brick->level, refine, coarsen);
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

/* The owned and ghosted boxes of the active ranks. With several active ranks a DMDA of the interior nodes (DG: of
   the cells) provides them and the ghost scatters. When one rank holds the whole level its boxes are the grid, its
   local and global vectors have the same layout, and the DMDA is not made: its index sets, local-to-global map and
   scatter are O(N) host arrays (seconds of setup at 10^8 DoFs) for what is a copy. The local-to-global map is made
   when first asked for (DMBrickGetLocalToGlobal_Private). */
PetscErrorCode DMBrickCreateNodeDA_Private(DM dm)
{
  DM_Brick      *brick     = (DM_Brick *)dm->data;
  const PetscInt k         = brick->degree;
  PetscInt      *lnodes[3] = {NULL, NULL, NULL}, M[3] = {1, 1, 1};

  PetscFunctionBegin;
  PetscCall(DMDestroy(&brick->da));
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
    const PetscInt width = brick->family == DMBRICK_DG ? 1 : brick->op.ghost_cells * k;
    for (PetscInt d = 0; d < brick->dim; d++) {
      PetscCall(PetscMalloc1(brick->procs[d], &lnodes[d]));
      for (PetscMPIInt q = 0; q < brick->procs[d]; q++) {
        PetscInt s;
        BrickRankNodes(brick, d, q, &s, &lnodes[d][q]);
      }
    }
    if (brick->dim == 2) {
      PetscCall(DMDACreate2d(brick->activecomm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, M[0], M[1], brick->procs[0], brick->procs[1], brick->dof, width, lnodes[0], lnodes[1], &brick->da));
    } else {
      PetscCall(
          DMDACreate3d(brick->activecomm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, M[0], M[1], M[2], brick->procs[0], brick->procs[1], brick->procs[2], brick->dof, width, lnodes[0], lnodes[1], lnodes[2], &brick->da));
    }
    PetscCall(DMSetUp(brick->da));
    {
      VecScatter gtol; /* with device vectors, its GPU-to-GPU exchange now (brickexchange.c) */
      PetscCall(DMDAGetScatter(brick->da, &gtol, NULL));
      PetscCall(DMBrickSetUpExchange_Private(dm, gtol, 0));
    }
    for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(lnodes[d]));
    PetscCall(DMDAGetCorners(brick->da, &brick->ostart[0], &brick->ostart[1], &brick->ostart[2], &brick->owidth[0], &brick->owidth[1], &brick->owidth[2]));
    PetscCall(DMDAGetGhostCorners(brick->da, &brick->gstart[0], &brick->gstart[1], &brick->gstart[2], &brick->gwidth[0], &brick->gwidth[1], &brick->gwidth[2]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The map from local (ghosted) to global indices on the brick's communicator, made on first use (assembly and
   DMGetLocalToGlobalMapping() need it, a matrix-free solve does not). With a DMDA it is the DMDA's (the active ranks
   come first, so the DMDA's numbering is also the one on the whole communicator); on the one rank holding a level
   the identity; empty on an inactive rank. Not collective. */
PetscErrorCode DMBrickGetLocalToGlobal_Private(DM dm, ISLocalToGlobalMapping *ltog)
{
  DM_Brick *brick = (DM_Brick *)dm->data;

  PetscFunctionBegin;
  if (!brick->ltog) {
    PetscInt *idx = NULL, nl = 0;
    if (brick->da) {
      ISLocalToGlobalMapping map;
      const PetscInt        *g;
      PetscCall(DMGetLocalToGlobalMapping(brick->da, &map));
      PetscCall(ISLocalToGlobalMappingGetSize(map, &nl));
      PetscCall(ISLocalToGlobalMappingGetIndices(map, &g));
      PetscCall(PetscMalloc1(nl, &idx));
      PetscCall(PetscArraycpy(idx, g, nl));
      PetscCall(ISLocalToGlobalMappingRestoreIndices(map, &g));
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
