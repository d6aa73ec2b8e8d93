/* The p4est part of a forest brick: mesh one level of the domain and number its nodes. Compiled twice: as it stands for
   2D (p4est), and through brickp8est.c with p4est_to_p8est.h for 3D (p8est).

   p4est does what it exists for here: the connectivity of the kept coarse cells (trees; faces, edges and corners from
   the shared vertices, periodic directions identified by wrapping the vertex numbers), the uniform refinement to the
   level, the partition along its space-filling curve, the ghost layer (every cell sharing a corner with a rank's cells;
   for c0ip on several ranks a second layer, p4est_ghost_expand) and the numbering of the continuous Q_k nodes (lnodes). The brick then keeps plain arrays (cells' lattice positions and
   their nodes' global numbers) and destroys the forest: every level of a uniform hierarchy is a standalone forest. */
#include "brickimpl.h"
#if defined(P4_TO_P8)
  #include <p8est_extended.h>
  #include <p8est_ghost.h>
  #include <p8est_lnodes.h>
  #define BrickForestMesh_Private DMBrickForestMesh3D_Private
  #define BRICK_FOREST_DIM        3
#else
  #include <p4est_extended.h>
  #include <p4est_ghost.h>
  #include <p4est_lnodes.h>
  #define BrickForestMesh_Private DMBrickForestMesh2D_Private
  #define BRICK_FOREST_DIM        2
#endif

/* The connectivity of the kept coarse cells: p4est's brick of the whole coarse grid (its tree order, a space-filling curve
   of the trees, and its periodic identifications, which hold for two cells per direction too), with the removed cells'
   trees taken out: a face towards a removed tree becomes a boundary face, and the removed trees leave the lists of the
   edges and corners they shared. f->tree gets the kept trees' numbers in the brick's order. */
static PetscErrorCode BrickForestConnectivity(const DM_Brick *brick, p4est_connectivity_t **connout)
{
  BrickForest          *f = brick->forest;
  p4est_connectivity_t *full, *conn = NULL;
  PetscInt             *newidx, ntrees = 0, ncorners = 0, nctt = 0;
#if defined(P4_TO_P8)
  PetscInt nedges = 0, nett = 0;
#endif

  PetscFunctionBegin;
#if defined(P4_TO_P8)
  full = p8est_connectivity_new_brick((int)brick->cells0[0], (int)brick->cells0[1], (int)brick->cells0[2], brick->periodic[0], brick->periodic[1], brick->periodic[2]);
#else
  full = p4est_connectivity_new_brick((int)brick->cells0[0], (int)brick->cells0[1], brick->periodic[0], brick->periodic[1]);
#endif
  PetscCall(PetscMalloc1(full->num_trees, &newidx));
  for (p4est_topidx_t t = 0; t < full->num_trees; t++) {
    /* the tree's coarse cell: the position of its first corner (the brick puts its vertices on the integer lattice) */
    const double *v = full->vertices + 3 * full->tree_to_vertex[P4EST_CHILDREN * t];
    PetscInt      c = (PetscInt)v[0] + brick->cells0[0] * ((PetscInt)v[1] + brick->cells0[1] * (BRICK_FOREST_DIM == 3 ? (PetscInt)v[2] : 0));
    newidx[t]       = f->tree[c] >= 0 ? ntrees++ : -1;
    if (f->tree[c] >= 0) f->tree[c] = newidx[t];
  }
  for (p4est_topidx_t k = 0; k < full->num_corners; k++) {
    PetscInt m = 0;
    for (p4est_topidx_t e = full->ctt_offset[k]; e < full->ctt_offset[k + 1]; e++) m += newidx[full->corner_to_tree[e]] >= 0;
    if (m >= 2) {
      ncorners++;
      nctt += m;
    }
  }
#if defined(P4_TO_P8)
  for (p4est_topidx_t k = 0; k < full->num_edges; k++) {
    PetscInt m = 0;
    for (p4est_topidx_t e = full->ett_offset[k]; e < full->ett_offset[k + 1]; e++) m += newidx[full->edge_to_tree[e]] >= 0;
    if (m >= 2) {
      nedges++;
      nett += m;
    }
  }
  conn = p8est_connectivity_new(full->num_vertices, (p4est_topidx_t)ntrees, (p4est_topidx_t)nedges, (p4est_topidx_t)nett, (p4est_topidx_t)ncorners, (p4est_topidx_t)nctt);
#else
  conn = p4est_connectivity_new(full->num_vertices, (p4est_topidx_t)ntrees, (p4est_topidx_t)ncorners, (p4est_topidx_t)nctt);
#endif
  PetscCall(PetscArraycpy(conn->vertices, full->vertices, 3 * full->num_vertices));
  for (p4est_topidx_t t = 0; t < full->num_trees; t++) {
    const PetscInt nt = newidx[t];
    if (nt < 0) continue;
    for (int c = 0; c < P4EST_CHILDREN; c++) conn->tree_to_vertex[P4EST_CHILDREN * nt + c] = full->tree_to_vertex[P4EST_CHILDREN * t + c];
    for (int face = 0; face < P4EST_FACES; face++) {
      const p4est_topidx_t nb = full->tree_to_tree[P4EST_FACES * t + face];
      const PetscBool      kept = (PetscBool)(newidx[nb] >= 0);
      conn->tree_to_tree[P4EST_FACES * nt + face] = (p4est_topidx_t)(kept ? newidx[nb] : nt);
      conn->tree_to_face[P4EST_FACES * nt + face] = kept ? full->tree_to_face[P4EST_FACES * t + face] : (int8_t)face;
    }
    for (int c = 0; c < P4EST_CHILDREN; c++) conn->tree_to_corner[P4EST_CHILDREN * nt + c] = -1;
#if defined(P4_TO_P8)
    for (int e = 0; e < P8EST_EDGES; e++) conn->tree_to_edge[P8EST_EDGES * nt + e] = -1;
#endif
  }
  {
    PetscInt k2 = 0, pos = 0;
    conn->ctt_offset[0] = 0;
    for (p4est_topidx_t k = 0; k < full->num_corners; k++) {
      PetscInt m = 0;
      for (p4est_topidx_t e = full->ctt_offset[k]; e < full->ctt_offset[k + 1]; e++) m += newidx[full->corner_to_tree[e]] >= 0;
      if (m < 2) continue;
      for (p4est_topidx_t e = full->ctt_offset[k]; e < full->ctt_offset[k + 1]; e++) {
        const PetscInt nt = newidx[full->corner_to_tree[e]];
        if (nt < 0) continue;
        conn->corner_to_tree[pos]                                                  = (p4est_topidx_t)nt;
        conn->corner_to_corner[pos++]                                              = full->corner_to_corner[e];
        conn->tree_to_corner[P4EST_CHILDREN * nt + full->corner_to_corner[e]] = (p4est_topidx_t)k2;
      }
      conn->ctt_offset[++k2] = (p4est_topidx_t)pos;
    }
  }
#if defined(P4_TO_P8)
  {
    PetscInt k2 = 0, pos = 0;
    conn->ett_offset[0] = 0;
    for (p4est_topidx_t k = 0; k < full->num_edges; k++) {
      PetscInt m = 0;
      for (p4est_topidx_t e = full->ett_offset[k]; e < full->ett_offset[k + 1]; e++) m += newidx[full->edge_to_tree[e]] >= 0;
      if (m < 2) continue;
      for (p4est_topidx_t e = full->ett_offset[k]; e < full->ett_offset[k + 1]; e++) {
        const PetscInt nt = newidx[full->edge_to_tree[e]];
        if (nt < 0) continue;
        conn->edge_to_tree[pos]                                                 = (p4est_topidx_t)nt;
        conn->edge_to_edge[pos++]                                               = full->edge_to_edge[e];
        conn->tree_to_edge[P8EST_EDGES * nt + full->edge_to_edge[e] % P8EST_EDGES] = (p4est_topidx_t)k2;
      }
      conn->ett_offset[++k2] = (p4est_topidx_t)pos;
    }
  }
#endif
  p4est_connectivity_destroy(full);
  PetscCall(PetscFree(newidx));
  PetscCheck(p4est_connectivity_is_valid(conn), PETSC_COMM_SELF, PETSC_ERR_LIB, "p4est: the connectivity of the brick's coarse cells is not valid");
  *connout = conn;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BrickForestMesh_Private(DM dm, BrickForestMesh *mesh)
{
  DM_Brick             *brick = (DM_Brick *)dm->data;
  BrickForest          *f     = brick->forest;
  MPI_Comm              comm  = PetscObjectComm((PetscObject)dm);
  const PetscInt        k = brick->degree, nv = f->nv, level = f->level, shift = P4EST_MAXLEVEL - level;
  p4est_connectivity_t *conn = NULL;
  p4est_t              *p4est;
  p4est_ghost_t        *ghost;
  p4est_lnodes_t       *lnodes;
  PetscInt             *treecell, *comp, nloc, owned, e = 0;
  PetscInt64           *key;
  PetscMPIInt           size, rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(level >= 0 && level <= P4EST_QMAXLEVEL, comm, PETSC_ERR_ARG_OUTOFRANGE, "p4est: level %" PetscInt_FMT " of a forest brick: allowed 0..%d", level, (int)P4EST_QMAXLEVEL);
  if (p4est_package_id < 0) p4est_init(NULL, SC_LP_ERROR); /* p4est's own messages only on errors */
  PetscCall(BrickForestConnectivity(brick, &conn));
  PetscCall(PetscMalloc1(conn->num_trees, &treecell));
  for (PetscInt c = 0; c < brick->cells0[0] * brick->cells0[1] * (BRICK_FOREST_DIM == 3 ? brick->cells0[2] : 1); c++)
    if (f->tree[c] >= 0) treecell[f->tree[c]] = c;
  p4est  = p4est_new_ext(comm, conn, 0, (int)level, 1, 0, NULL, NULL);
  ghost  = p4est_ghost_new(p4est, P4EST_CONNECT_FULL);
  /* lnodes numbers the nodes from the one-cell ghost layer; operators whose patches read two cells out (c0ip: the face
     neighbours of a patch's cells) then get the second layer, whose nodes come with the cells' numbers below */
  lnodes = brick->op.dg ? NULL : p4est_lnodes_new(p4est, ghost, (int)k);
  if (brick->op.ghost_cells > 1 && size > 1) p4est_ghost_expand(p4est, ghost);

  mesh->ncells       = (PetscInt)p4est->local_num_quadrants;
  mesh->nghost       = (PetscInt)ghost->ghosts.elem_count;
  mesh->ncellsglobal = (PetscInt64)p4est->global_num_quadrants;
  PetscCall(PetscMalloc1(size + 1, &mesh->first));
  for (PetscMPIInt r = 0; r <= size; r++) mesh->first[r] = (PetscInt64)p4est->global_first_quadrant[r];
  /* DG levels number cells, not nodes: no lnodes (gnode stays empty) */
  PetscCall(PetscMalloc2(3 * (mesh->ncells + mesh->nghost), &mesh->ijk, brick->op.dg ? 0 : nv * (mesh->ncells + mesh->nghost), &mesh->gnode));
  PetscCall(PetscMalloc1(mesh->nghost, &mesh->ghostcell));
  for (PetscMPIInt r = 0; r < size; r++) /* a ghost's curve number: its owner's first cell plus its number there */
    for (p4est_locidx_t g = ghost->proc_offsets[r]; g < ghost->proc_offsets[r + 1]; g++) mesh->ghostcell[g] = mesh->first[r] + p4est_quadrant_array_index(&ghost->ghosts, g)->p.piggy3.local_num;

  /* the cells' lattice positions: their tree's coarse cell times 2^level plus the quadrant's position in the tree */
  for (p4est_topidx_t t = p4est->first_local_tree; t <= p4est->last_local_tree; t++) {
    p4est_tree_t *tree = p4est_tree_array_index(p4est->trees, t);
    for (size_t i = 0; i < tree->quadrants.elem_count; i++, e++) {
      const p4est_quadrant_t *q     = p4est_quadrant_array_index(&tree->quadrants, i);
      const PetscInt          c     = treecell[t];
      const PetscInt          cc[3] = {c % brick->cells0[0], (c / brick->cells0[0]) % brick->cells0[1], c / (brick->cells0[0] * brick->cells0[1])};
      mesh->ijk[3 * e + 0]          = (cc[0] << level) + (q->x >> shift);
      mesh->ijk[3 * e + 1]          = (cc[1] << level) + (q->y >> shift);
#if defined(P4_TO_P8)
      mesh->ijk[3 * e + 2] = (cc[2] << level) + (q->z >> shift);
#else
      mesh->ijk[3 * e + 2] = 0;
#endif
    }
  }
  for (PetscInt g = 0; g < mesh->nghost; g++) {
    const p4est_quadrant_t *q     = p4est_quadrant_array_index(&ghost->ghosts, g);
    const PetscInt          c     = treecell[q->p.piggy3.which_tree];
    const PetscInt          cc[3] = {c % brick->cells0[0], (c / brick->cells0[0]) % brick->cells0[1], c / (brick->cells0[0] * brick->cells0[1])};
    PetscInt               *ijk   = mesh->ijk + 3 * (mesh->ncells + g);
    ijk[0]                        = (cc[0] << level) + (q->x >> shift);
    ijk[1]                        = (cc[1] << level) + (q->y >> shift);
#if defined(P4_TO_P8)
    ijk[2] = (cc[2] << level) + (q->z >> shift);
#else
    ijk[2] = 0;
#endif
  }

  if (brick->op.dg) {
    PetscCall(PetscFree(treecell));
    p4est_ghost_destroy(ghost);
    p4est_destroy(p4est);
    p4est_connectivity_destroy(conn);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* lnodes numbers every node, the boundary's too. Each local node's lattice position is taken from the cells that
     reference it (x fastest within a cell): they must agree, which also checks the node order assumed. The Dirichlet
     nodes are then dropped from the numbering: owners count their free nodes, and the others learn the new numbers. */
  nloc   = (PetscInt)lnodes->num_local_nodes;
  owned = (PetscInt)lnodes->owned_count;
  PetscCall(PetscMalloc2(nloc, &comp, nloc, &key));
  for (PetscInt i = 0; i < nloc; i++) key[i] = -1;
  for (PetscInt c = 0; c < mesh->ncells; c++)
    for (PetscInt i = 0; i < nv; i++) {
      const PetscInt ln = (PetscInt)lnodes->element_nodes[c * nv + i], ii[3] = {i % (k + 1), (i / (k + 1)) % (k + 1), i / ((k + 1) * (k + 1))};
      PetscInt       p[3] = {0, 0, 0};
      PetscInt64     kk   = 0;
      for (PetscInt d = BRICK_FOREST_DIM - 1; d >= 0; d--) {
        p[d] = mesh->ijk[3 * c + d] * k + ii[d];
        if (brick->periodic[d]) p[d] %= k * f->n[d];
        kk = kk * (k * f->n[d] + 1) + p[d];
      }
      PetscCheck(key[ln] < 0 || key[ln] == kk, PETSC_COMM_SELF, PETSC_ERR_LIB, "p4est lnodes: node %" PetscInt_FMT " is at two lattice positions; the element node order is not the one assumed (x fastest)", ln);
      if (key[ln] < 0) comp[ln] = DMBrickForestNodeFree_Private(brick, p) ? 1 : -1;
      key[ln] = kk;
    }
  {
    PetscInt    count = 0, nleaves = nloc - owned;
    PetscInt64 *goff;
    PetscSFNode *remote;
    PetscSF     sf;
    for (PetscInt i = 0; i < owned; i++) count += comp[i] > 0;
    mesh->nowned = count;
    PetscCallMPI(MPI_Scan(&count, &mesh->rstart, 1, MPIU_INT, MPI_SUM, comm));
    mesh->rstart -= count;
    for (PetscInt i = 0, next = mesh->rstart; i < owned; i++) comp[i] = comp[i] > 0 ? next++ : -1;
    PetscCall(PetscMalloc1(size + 1, &goff));
    PetscCall(PetscMalloc1(nleaves, &remote)); /* owned by the PetscSF */
    goff[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) goff[r + 1] = goff[r] + lnodes->global_owned_count[r];
    for (PetscInt i = 0; i < nleaves; i++) {
      const PetscInt64 g = (PetscInt64)lnodes->nonlocal_nodes[i];
      PetscMPIInt      lo = 0, hi = size; /* the owner: goff[lo] <= g < goff[lo + 1] */
      while (hi - lo > 1) {
        const PetscMPIInt mid = (lo + hi) / 2;
        if (goff[mid] <= g) lo = mid;
        else hi = mid;
      }
      remote[i].rank  = lo;
      remote[i].index = (PetscInt)(g - goff[lo]);
    }
    PetscCall(PetscSFCreate(comm, &sf));
    PetscCall(PetscSFSetGraph(sf, owned, nleaves, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
    PetscCall(PetscSFBcastBegin(sf, MPIU_INT, comp, comp + owned, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPIU_INT, comp, comp + owned, MPI_REPLACE));
    PetscCall(PetscSFDestroy(&sf));
    PetscCall(PetscFree(goff));
  }
  for (PetscInt c = 0; c < mesh->ncells; c++)
    for (PetscInt i = 0; i < nv; i++) mesh->gnode[c * nv + i] = comp[lnodes->element_nodes[c * nv + i]];
  {
    /* the ghost cells' node numbers, from the ranks that hold them (their mirrors) */
    void **mirror;
    PetscCall(PetscMalloc1(ghost->mirrors.elem_count, &mirror));
    for (size_t m = 0; m < ghost->mirrors.elem_count; m++) {
      const p4est_quadrant_t *q = p4est_quadrant_array_index(&ghost->mirrors, m);
      mirror[m]                 = mesh->gnode + (size_t)q->p.piggy3.local_num * nv;
    }
    p4est_ghost_exchange_custom(p4est, ghost, (size_t)nv * sizeof(PetscInt), mirror, mesh->gnode + (size_t)mesh->ncells * nv);
    PetscCall(PetscFree(mirror));
  }
  PetscCall(PetscFree2(comp, key));
  PetscCall(PetscFree(treecell));
  p4est_lnodes_destroy(lnodes);
  p4est_ghost_destroy(ghost);
  p4est_destroy(p4est);
  p4est_connectivity_destroy(conn);
  PetscFunctionReturn(PETSC_SUCCESS);
}
