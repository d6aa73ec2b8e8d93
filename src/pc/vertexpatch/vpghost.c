/* The ghost exchange of the multiplicative sweep with local residuals on several ranks (host: vpapply.c, GPU: vpgpu.c).

   The sweep keeps the iterate in the ghosted local vector for all colors and updates it in place, as one rank does
   in the global vector. After a color, one message round of the shared layers only, no pass over the owned nodes:
   - a spread: every node that a patch of the color corrected goes from the rank that corrected it to every other
     rank holding it, its owner and the ranks that have it as a ghost (replaced, not added: a color's patches have
     disjoint interiors on all ranks together, so the value computed there is the new value, digit for digit as one
     rank computes it);
   - after the sweep's last color, the push alone: the corrected ghosts to their owners, whose values are all that is
     read next (DMLocalToGlobal).
   Both are PetscSFs whose roots and leaves are entries of the same local (ghosted) array (a node is never both a
   root and a leaf on one rank). Their set-up touches the patches near the shared layers only. Before, a color made a
   push and a refresh of all ghosts (two message rounds; each waits for the device on the GPU), and before that two
   whole-vector scatters and a zeroed third vector per color. */
#include "vpimpl.h"
#include <petscsf.h>

/* marks[i] = value for the local entries in the interiors of this rank's patches of color c whose interior reaches the
   shared layers: the ghosts and the owned nodes within the ghost width of the owned box's faces, the only entries the
   exchange reads. A patch deeper inside cannot touch them, so the set-up costs the boundary layers, not the level: with
   the split schedule only the color's first batch, whose closures reach the shared layers (a patch's interior lies in
   its closure), is looked at. */
static void VPMarkColorInteriors(const PC_VertexPatch *vp, const VPLayout *L, PetscInt c, char value, char marks[])
{
  const DM_Brick *brick = (const DM_Brick *)vp->dm->data;
  const PetscInt  ni = 2 * L->k - 1, first = (L->g - 1) * L->k + 1, dim = L->dim, k = L->k, w = L->g * L->k;
  const PetscInt  end = vp->split ? vp->batchptr[c * (vp->nbatches + 1) + 1] : vp->colorptr[c + 1];

  for (PetscInt p = vp->colorptr[c]; p < end; p++) {
    PetscInt  v[3], off[3][VP_MAX_NE], m[3];
    PetscBool       deep = PETSC_TRUE;
    PCVertexPatchGetVertex(vp, p, v);
    /* the interior's nodes along d, interior numbering: (v - 1) k .. (v + 1) k - 2 */
    for (PetscInt d = 0; d < dim; d++)
      if ((v[d] - 1) * k < brick->ostart[d] + w || (v[d] + 1) * k - 2 > brick->ostart[d] + brick->owidth[d] - 1 - w) deep = PETSC_FALSE;
    if (deep) continue;
    VPClosureOffsets(L, v, off, m);
    for (PetscInt z = (dim == 3 ? first : 0); z < (dim == 3 ? first + ni : 1); z++)
      for (PetscInt y = first; y < first + ni; y++)
        for (PetscInt x = first; x < first + ni; x++) marks[off[0][x] + off[1][y] + off[2][z]] = value;
  }
}

/*
   PCVertexPatchSetUpGhostExchange - one spread graph per color and a push graph for the two colors that end a sweep
   (the first and the last; see above), made at set-up when several ranks hold the level (PCVertexPatchSetUpHostWork();
   on the GPU also from PCVertexPatchSetUpGPU()). Collective on the PC.
*/
PetscErrorCode PCVertexPatchSetUpGhostExchange(PC pc, const VPLayout *L)
{
  PC_VertexPatch *vp    = (PC_VertexPatch *)pc->data;
  DM_Brick       *brick = (DM_Brick *)vp->dm->data;
  MPI_Comm        comm;
  PetscSF         ghostsf; /* the ghost layer from its owners: only to build the graphs below */
  PetscSFNode    *remote, *sub;
  PetscMPIInt    *owner;
  PetscInt        nl, nghost, *ghost, *oowned, *oghosted, *subleaf;
  char           *marks;

  PetscFunctionBegin;
  if (vp->pushsf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(PC_VertexPatchGhostSetUp, pc, 0, 0, 0));
  PetscCheck(brick->dof == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the ghost exchange of the CG sweep on a brick with %" PetscInt_FMT " values per point", brick->dof);
  PetscCall(PetscObjectGetComm((PetscObject)vp->dm, &comm));
  nl = brick->gwidth[0] * brick->gwidth[1] * brick->gwidth[2];
  PetscCall(PetscCalloc1(nl + 1, &marks)); /* set and cleared again color by color, on the patches near the shared layers */
  /* the ghosts and each one's place in its owner's local array, by index arithmetic (the active ranks are the first
     ranks of the communicator) */
  PetscCall(DMBrickGhostPoints_Private(vp->dm, &nghost, &ghost, &owner, &oowned, &oghosted));
  PetscCall(PetscMalloc3(nghost + 1, &remote, nghost + 1, &sub, nghost + 1, &subleaf));
  for (PetscInt j = 0; j < nghost; j++) {
    remote[j].rank  = owner[j];
    remote[j].index = oghosted[j];
  }
  PetscCall(PetscSFCreate(comm, &ghostsf));
  PetscCall(PetscSFSetGraph(ghostsf, nl, nghost, ghost, PETSC_COPY_VALUES, remote, PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(ghostsf));
  /* Per color, the push SF (the ghosts this rank's patches correct, to their owners) and the spread SF: each node
     corrected in the color goes from the one rank that corrected it to every other rank holding it, owner or ghost,
     in one message round instead of a push and a refresh. The owners learn who corrected what through the refresh
     graph (a max-reduction of (rank, local index), -1 where nobody did: a color's patches have disjoint interiors on
     all ranks together), and give it back to every ghost. Only the shared entries are touched: the ghosts, and the
     owned entries that are ghosts elsewhere (the refresh graph's roots). */
  {
    PetscMPIInt        me;
#if PETSC_VERSION_LT(3, 22, 0)
    PetscInt niranks; /* PetscSFGetLeafRanks() counts the ranks in a PetscInt before PETSc 3.22 (64-bit with 64-bit indices) */
#else
    PetscMPIInt niranks;
#endif
    const PetscMPIInt *iranks;
    const PetscInt    *ioffset, *irootloc;
    PetscInt           nos, nsp, *osh, *urank, *uidx, *spleaf;
    PetscSFNode       *spremote;
    PetscCallMPI(MPI_Comm_rank(comm, &me));
    PetscCall(PetscSFGetLeafRanks(ghostsf, &niranks, &iranks, &ioffset, &irootloc));
    nos = ioffset[niranks];
    PetscCall(PetscMalloc1(nos + 1, &osh));
    PetscCall(PetscArraycpy(osh, irootloc, nos));
    PetscCall(PetscSortRemoveDupsInt(&nos, osh));
    PetscCall(PetscMalloc2(nl, &urank, nl, &uidx)); /* only the shared entries are set and read */
    PetscCall(PetscMalloc2(nghost + nos + 1, &spleaf, nghost + nos + 1, &spremote));
    PetscCall(PetscMalloc1(vp->ncolors, &vp->pushsf));
    PetscCall(PetscMalloc1(vp->ncolors, &vp->spreadsf));
    for (PetscInt c = 0; c < vp->ncolors; c++) {
      PetscInt nsub = 0;
      VPMarkColorInteriors(vp, L, c, 1, marks);
      for (PetscInt j = 0; j < nghost; j++)
        if (marks[ghost[j]]) {
          subleaf[nsub] = ghost[j];
          sub[nsub++]   = remote[j];
        }
      /* a push ends a sweep: only after its last color, the last forward (ncolors - 1) or reversed (0) */
      vp->pushsf[c] = NULL;
      if (c == 0 || c == vp->ncolors - 1) {
        PetscCall(PetscSFCreate(comm, &vp->pushsf[c]));
        PetscCall(PetscSFSetGraph(vp->pushsf[c], nl, nsub, subleaf, PETSC_COPY_VALUES, sub, PETSC_COPY_VALUES));
        PetscCall(PetscSFSetUp(vp->pushsf[c]));
      }
      for (PetscInt j = 0; j < nghost + nos; j++) {
        const PetscInt i = j < nghost ? ghost[j] : osh[j - nghost];
        urank[i]         = marks[i] ? me : -1;
        uidx[i]          = marks[i] ? i : -1;
      }
      PetscCall(PetscSFReduceBegin(ghostsf, MPIU_INT, urank, urank, MPI_MAX));
      PetscCall(PetscSFReduceEnd(ghostsf, MPIU_INT, urank, urank, MPI_MAX));
      PetscCall(PetscSFReduceBegin(ghostsf, MPIU_INT, uidx, uidx, MPI_MAX));
      PetscCall(PetscSFReduceEnd(ghostsf, MPIU_INT, uidx, uidx, MPI_MAX));
      PetscCall(PetscSFBcastBegin(ghostsf, MPIU_INT, urank, urank, MPI_REPLACE));
      PetscCall(PetscSFBcastEnd(ghostsf, MPIU_INT, urank, urank, MPI_REPLACE));
      PetscCall(PetscSFBcastBegin(ghostsf, MPIU_INT, uidx, uidx, MPI_REPLACE));
      PetscCall(PetscSFBcastEnd(ghostsf, MPIU_INT, uidx, uidx, MPI_REPLACE));
      nsp = 0;
      for (PetscInt j = 0; j < nghost + nos; j++) {
        const PetscInt i = j < nghost ? ghost[j] : osh[j - nghost];
        if (urank[i] < 0 || urank[i] == me) continue; /* nobody corrected it, or this rank did (a root) */
        spleaf[nsp]         = i;
        spremote[nsp].rank  = urank[i];
        spremote[nsp].index = uidx[i];
        nsp++;
      }
      PetscCall(PetscSFCreate(comm, &vp->spreadsf[c]));
      PetscCall(PetscSFSetGraph(vp->spreadsf[c], nl, nsp, spleaf, PETSC_COPY_VALUES, spremote, PETSC_COPY_VALUES));
      PetscCall(PetscSFSetUp(vp->spreadsf[c]));
      VPMarkColorInteriors(vp, L, c, 0, marks);
    }
    PetscCall(PetscFree(osh));
    PetscCall(PetscFree2(urank, uidx));
    PetscCall(PetscFree2(spleaf, spremote));
  }
  PetscCall(PetscFree3(remote, sub, subleaf));
  PetscCall(PetscFree4(ghost, owner, oowned, oghosted));
  PetscCall(PetscFree(marks));
  PetscCall(PetscSFDestroy(&ghostsf));
  PetscCall(PetscLogEventEnd(PC_VertexPatchGhostSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchDestroyGhostExchange(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  if (vp->pushsf)
    for (PetscInt c = 0; c < vp->ncolors; c++) PetscCall(PetscSFDestroy(&vp->pushsf[c]));
  PetscCall(PetscFree(vp->pushsf));
  if (vp->spreadsf)
    for (PetscInt c = 0; c < vp->ncolors; c++) PetscCall(PetscSFDestroy(&vp->spreadsf[c]));
  PetscCall(PetscFree(vp->spreadsf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After color c of the in-place sweep on the local array xa: push the ghosts this rank corrected to their owners, then
   (refresh) give every ghost its owner's value, unless the color was the sweep's last. Begin and End apart: the patches
   of the color that touch no shared node (batch 1 of a split schedule) run in between. */
PetscErrorCode PCVertexPatchExchangeGhostsBegin(PC pc, PetscInt c, PetscBool refresh, PetscScalar *xa)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  PetscCheck(refresh || vp->pushsf[c], PETSC_COMM_SELF, PETSC_ERR_PLIB, "no push graph for color %" PetscInt_FMT ": a sweep ends with color 0 or %" PetscInt_FMT, c, vp->ncolors - 1);
  if (refresh) PetscCall(PetscSFBcastBegin(vp->spreadsf[c], MPIU_SCALAR, xa, xa, MPI_REPLACE));
  else PetscCall(PetscSFReduceBegin(vp->pushsf[c], MPIU_SCALAR, xa, xa, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchExchangeGhostsEnd(PC pc, PetscInt c, PetscBool refresh, PetscScalar *xa)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  if (refresh) PetscCall(PetscSFBcastEnd(vp->spreadsf[c], MPIU_SCALAR, xa, xa, MPI_REPLACE));
  else PetscCall(PetscSFReduceEnd(vp->pushsf[c], MPIU_SCALAR, xa, xa, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same on the device array of the local vector (the GPU sweep, vpgpu.c), in one message round: the spread SF of
   the color, or after the sweep's last color (no refresh) the push alone, since only the owners' values are read then.
   Device to device where the brick's -dm_brick_gpu_exchange allows (brickexchange.c), else PetscSF on the device
   arrays. Begin queues this rank's part; the patches of the color away from the shared layers (batch 1 of a split
   schedule) are queued next and run while End trades the tokens. */
PetscErrorCode PCVertexPatchExchangeGhostsDeviceBegin(PC pc, PetscInt c, PetscBool refresh, PetscScalar *xa)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  PetscCheck(refresh || vp->pushsf[c], PETSC_COMM_SELF, PETSC_ERR_PLIB, "no push graph for color %" PetscInt_FMT ": a sweep ends with color 0 or %" PetscInt_FMT, c, vp->ncolors - 1);
  if (refresh) PetscCall(DMBrickSFDeviceBegin_Private(vp->dm, vp->spreadsf[c], PETSC_FALSE, xa, xa, PETSC_FALSE));
  else PetscCall(DMBrickSFDeviceBegin_Private(vp->dm, vp->pushsf[c], PETSC_TRUE, xa, xa, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchExchangeGhostsDeviceEnd(PC pc, PetscInt c, PetscBool refresh, PetscScalar *xa)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  if (refresh) PetscCall(DMBrickSFDeviceEnd_Private(vp->dm, vp->spreadsf[c], PETSC_FALSE, xa, xa, PETSC_FALSE));
  else PetscCall(DMBrickSFDeviceEnd_Private(vp->dm, vp->pushsf[c], PETSC_TRUE, xa, xa, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
