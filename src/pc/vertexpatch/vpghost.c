/* The ghost exchange of the host multiplicative sweep with local residuals on several ranks (vpapply.c).

   The sweep keeps the iterate in the ghosted local vector for all colors and updates it in place, as one rank does
   in the global vector. After a color, two messages of the ghost layer only, no pass over the owned nodes:
   - a push: the ghost nodes that this rank's patches of the color corrected go to their owners (replaced, not added:
     a color's patches have disjoint interiors on all ranks together, so the value computed here is the owner's new
     value, digit for digit as one rank computes it);
   - a refresh: every ghost node gets its owner's value for the next color.
   Both are PetscSFs whose roots are the owner's local (ghosted) array and whose leaves are the ghost entries of the
   local array, so rootdata and leafdata are the same array (a node is never both a root and a leaf on one rank).
   Before, each color made two whole-vector scatters and zeroed a third vector: 3 x 2^d passes over the level's
   vectors per step, which cost the two-rank runs of issue 16 a fifth of their smoothing time. */
#include "vpimpl.h"
#include <petscsf.h>

/* marks[i] = 1 for the local entries in the interiors of this rank's patches of color c */
static void VPMarkColorInteriors(const PC_VertexPatch *vp, const VPLayout *L, PetscInt c, char marks[])
{
  const PetscInt ni = 2 * L->k - 1, first = (L->g - 1) * L->k + 1, dim = L->dim;

  for (PetscInt p = vp->colorptr[c]; p < vp->colorptr[c + 1]; p++) {
    PetscInt off[3][VP_MAX_NE], m[3];
    VPClosureOffsets(L, &vp->vertex[3 * p], off, m);
    for (PetscInt z = (dim == 3 ? first : 0); z < (dim == 3 ? first + ni : 1); z++)
      for (PetscInt y = first; y < first + ni; y++)
        for (PetscInt x = first; x < first + ni; x++) marks[off[0][x] + off[1][y] + off[2][z]] = 1;
  }
}

/*
   PCVertexPatchSetUpGhostExchange - the refresh SF of the ghost layer and one push SF per color (see above), made at
   the first several-rank host sweep of a setup. Collective on the PC.
*/
PetscErrorCode PCVertexPatchSetUpGhostExchange(PC pc, const VPLayout *L)
{
  PC_VertexPatch        *vp = (PC_VertexPatch *)pc->data;
  MPI_Comm               comm;
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  const PetscSFNode     *owner;
  PetscSFNode           *remote, *sub;
  PetscLayout            layout;
  PetscSF                global;
  PetscInt               nl, nxl, rstart, rend, nghost = 0, *ghost, *rootxl, *leafxl, *where, *subleaf;
  char                  *marks;

  PetscFunctionBegin;
  if (vp->ghostsf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectGetComm((PetscObject)vp->dm, &comm));
  PetscCall(PCVertexPatchGetWorkVectors(pc));
  PetscCall(DMBrickGetLocalToGlobal_Private(vp->dm, &ltog));
  PetscCall(ISLocalToGlobalMappingGetSize(ltog, &nl));
  PetscCall(VecGetLocalSize(vp->xl, &nxl));
  PetscCheck(nl == nxl, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the brick's local-to-global map has %" PetscInt_FMT " entries, its local vector %" PetscInt_FMT, nl, nxl);
  PetscCall(VecGetOwnershipRange(vp->r, &rstart, &rend));
  PetscCall(VecGetLayout(vp->r, &layout));
  PetscCall(ISLocalToGlobalMappingGetIndices(ltog, &gidx));
  PetscCall(PetscMalloc5(nl, &ghost, PetscMax(rend - rstart, 1), &rootxl, nl, &leafxl, nl, &where, nl, &marks));
  for (PetscInt i = 0; i < nl; i++) {
    if (gidx[i] >= rstart && gidx[i] < rend) rootxl[gidx[i] - rstart] = i;
    else {
      where[i]         = nghost; /* position of local entry i among the ghosts */
      ghost[nghost++] = i;
    }
  }
  /* the owner's local index of each ghost: its rank through the global layout, then a broadcast of the owners' indices */
  {
    PetscInt *gg;
    PetscCall(PetscMalloc1(nghost, &gg));
    for (PetscInt j = 0; j < nghost; j++) gg[j] = gidx[ghost[j]];
    PetscCall(PetscSFCreate(comm, &global));
    PetscCall(PetscSFSetGraphLayout(global, layout, nghost, ghost, PETSC_COPY_VALUES, gg));
    PetscCall(PetscFree(gg));
  }
  PetscCall(ISLocalToGlobalMappingRestoreIndices(ltog, &gidx));
  PetscCall(PetscSFBcastBegin(global, MPIU_INT, rootxl, leafxl, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(global, MPIU_INT, rootxl, leafxl, MPI_REPLACE));
  PetscCall(PetscSFGetGraph(global, NULL, NULL, NULL, &owner));
  PetscCall(PetscMalloc3(nghost, &remote, nghost, &sub, nghost, &subleaf));
  for (PetscInt j = 0; j < nghost; j++) {
    remote[j].rank  = owner[j].rank;
    remote[j].index = leafxl[ghost[j]];
  }
  PetscCall(PetscSFCreate(comm, &vp->ghostsf));
  PetscCall(PetscSFSetGraph(vp->ghostsf, nl, nghost, ghost, PETSC_COPY_VALUES, remote, PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(vp->ghostsf));
  PetscCall(PetscMalloc1(vp->ncolors, &vp->pushsf));
  for (PetscInt c = 0; c < vp->ncolors; c++) {
    PetscInt nsub = 0;
    PetscCall(PetscArrayzero(marks, nl));
    VPMarkColorInteriors(vp, L, c, marks);
    for (PetscInt j = 0; j < nghost; j++)
      if (marks[ghost[j]]) {
        subleaf[nsub] = ghost[j];
        sub[nsub++]   = remote[where[ghost[j]]];
      }
    PetscCall(PetscSFCreate(comm, &vp->pushsf[c]));
    PetscCall(PetscSFSetGraph(vp->pushsf[c], nl, nsub, subleaf, PETSC_COPY_VALUES, sub, PETSC_COPY_VALUES));
    PetscCall(PetscSFSetUp(vp->pushsf[c]));
  }
  PetscCall(PetscFree3(remote, sub, subleaf));
  PetscCall(PetscFree5(ghost, rootxl, leafxl, where, marks));
  PetscCall(PetscSFDestroy(&global));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVertexPatchDestroyGhostExchange(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  if (vp->pushsf)
    for (PetscInt c = 0; c < vp->ncolors; c++) PetscCall(PetscSFDestroy(&vp->pushsf[c]));
  PetscCall(PetscFree(vp->pushsf));
  PetscCall(PetscSFDestroy(&vp->ghostsf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After color c of the in-place sweep on the local array xa: push the ghosts this rank corrected to their owners, then
   (refresh) give every ghost its owner's value, unless the color was the sweep's last. */
PetscErrorCode PCVertexPatchExchangeGhosts(PC pc, PetscInt c, PetscBool refresh, PetscScalar *xa)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscSFReduceBegin(vp->pushsf[c], MPIU_SCALAR, xa, xa, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(vp->pushsf[c], MPIU_SCALAR, xa, xa, MPI_REPLACE));
  if (refresh) {
    PetscCall(PetscSFBcastBegin(vp->ghostsf, MPIU_SCALAR, xa, xa, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(vp->ghostsf, MPIU_SCALAR, xa, xa, MPI_REPLACE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
