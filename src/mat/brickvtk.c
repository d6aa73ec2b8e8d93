/* VTK output of brick vectors through PETSc's own VTK viewer (PETSCVIEWERVTK): VecView() of a brick vector on a viewer
   opened for a .vtu file (-vec_view vtk:u.vtu, -ksp_view_solution vtk:u.vtu, PetscViewerVTKOpen()) registers the vector
   with the viewer, and the viewer calls DMBrickVTKWrite_Private() once, when it is flushed or destroyed, with every
   vector registered: one file, one field each.

   The file is a VTK XML unstructured grid of Lagrange cells of the brick's degree (VTK_LAGRANGE_QUADRILATERAL,
   VTK_LAGRANGE_HEXAHEDRON), so a viewer draws the Q_k field and not a Q_1 sampling of it. VTK's Lagrange cells
   interpolate at equispaced points of the reference cell, the brick's nodes are Gauss-Lobatto points: each cell's values
   are interpolated to its (k+1)^dim equispaced points (exact for the Q_k field, which VTK then reproduces everywhere in
   the cell), written at their physical positions. CG cells share their points within a rank's piece (a point has the
   local node number of the node at the same place in the cell, so cells sharing a node share the point; Dirichlet
   nodes, numbered -1, are written once per cell with the boundary value zero); DG cells have their own. Cell data: the
   rank (and on a forest the tree, the coarse cell a cell lies in).

   One file for every rank count, one <Piece> per rank: rank 0 writes the XML and then each rank's binary arrays
   (appended raw data with 64-bit headers) as they arrive, one rank at a time, as PETSc's own DMPlex VTU writer does; or
   (-dm_brick_vtk_mpiio) every rank writes its arrays at their offset in the file through MPI-IO. */
#include "brickelement.h"
#include <stdarg.h>
#include <petsc/private/vecimpl.h> /* a vector type's own view function (VecGetOperation() is newer than PETSc 3.18) */

#define BRICK_VTK_MAX_FIELDS 64

/* the vectors registered with a VTK viewer, composed on it (the viewer's own list is private to PETSc) */
typedef struct {
  PetscInt n;
  Vec      v[BRICK_VTK_MAX_FIELDS];
} BrickVTKFields;

static PetscErrorCode BrickVTKFieldsDestroy(void *ctx)
{
  BrickVTKFields *fl = (BrickVTKFields *)ctx;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < fl->n; i++) PetscCall(VecDestroy(&fl->v[i]));
  PetscCall(PetscFree(fl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* point (i, j, l) of a Lagrange cell of order k in VTK's numbering: the corners, the edges' inner points, the faces'
   inner points, the inner points (VTK's vtkHigherOrderHexahedron/Quadrilateral::PointIndexFromIJK). The file says
   version 2.2: VTK 9 swapped the hexahedron's edges 10 and 11 and converts files of older versions on reading. */
static PetscInt BrickVTKPointIndex(PetscInt dim, PetscInt k, PetscInt i, PetscInt j, PetscInt l)
{
  const PetscBool ib = (PetscBool)(i == 0 || i == k), jb = (PetscBool)(j == 0 || j == k), lb = (PetscBool)(dim == 3 && (l == 0 || l == k));
  const PetscInt  nb = ib + jb + lb, m = k - 1;

  if (dim == 2) {
    if (ib && jb) return i ? (j ? 2 : 1) : (j ? 3 : 0);
    if (!ib && jb) return 4 + (j ? 2 : 0) * m + (i - 1); /* the edges along x: y = 0 (edge 0), y = 1 (edge 2) */
    if (ib && !jb) return 4 + (i ? 1 : 3) * m + (j - 1); /* along y: x = 1 (edge 1), x = 0 (edge 3) */
    return 4 + 4 * m + (i - 1) + m * (j - 1);
  }
  if (nb == 3) return (i ? (j ? 2 : 1) : (j ? 3 : 0)) + (l ? 4 : 0);
  if (nb == 2) {
    if (!ib) return 8 + ((j ? 2 : 0) + (l ? 4 : 0)) * m + (i - 1);      /* along x: edges 0, 2, 4, 6 */
    if (!jb) return 8 + ((i ? 1 : 3) + (l ? 4 : 0)) * m + (j - 1);      /* along y: edges 1, 3, 5, 7 */
    return 8 + (8 + (i ? (j ? 2 : 1) : (j ? 3 : 0))) * m + (l - 1); /* along z: edges 8..11 */
  }
  if (nb == 1) {
    const PetscInt off = 8 + 12 * m;
    if (ib) return off + (i ? 1 : 0) * m * m + (j - 1) + m * (l - 1);
    if (jb) return off + (j ? 3 : 2) * m * m + (i - 1) + m * (l - 1);
    return off + (l ? 5 : 4) * m * m + (i - 1) + m * (j - 1);
  }
  return 8 + 12 * m + 6 * m * m + (i - 1) + m * ((j - 1) + m * (l - 1));
}

/* one rank's piece: its points, cells and the fields at its points, packed as VTK's appended arrays (each behind its byte
   count, UInt64) in the order the XML lists them */
typedef struct {
  PetscInt64 npoints, ncells;
  char      *blob;
  size_t     bytes;
} BrickVTKPiece;

static size_t BrickVTKPieceBytes(PetscInt64 npoints, PetscInt64 ncells, PetscInt nv, PetscInt nfields, PetscBool tree)
{
  const size_t h = sizeof(uint64_t);
  return (h + 24 * (size_t)npoints) + (h + 8 * (size_t)ncells * nv) + (h + 8 * (size_t)ncells) + (h + (size_t)ncells) + nfields * (h + 8 * (size_t)npoints) + (h + 4 * (size_t)ncells) + (tree ? h + 4 * (size_t)ncells : 0);
}

/* the next array of the blob: its header, and where its data go */
static void *BrickVTKArray(char **at, size_t bytes)
{
  const uint64_t n = (uint64_t)bytes;
  void          *data;

  memcpy(*at, &n, sizeof(n));
  data = *at + sizeof(n);
  *at += sizeof(n) + bytes;
  return data;
}

static PetscErrorCode BrickVTKBuildPiece(DM dm, const BrickVTKFields *fl, BrickVTKPiece *piece)
{
  DM_Brick          *brick = (DM_Brick *)dm->data;
  const PetscInt     dim = brick->dim, k = brick->degree, n = k + 1, nv = dim == 3 ? n * n * n : n * n;
  const PetscBool    cg = (PetscBool)(brick->family != DMBRICK_DG), tree = (PetscBool)(brick->forest != NULL);
  PetscReal          h[3], eq[BRICK_MAX_N], E[BRICK_MAX_N * BRICK_MAX_N];
  BrickBox           cells;
  PetscInt           nc, nl, *pointof = NULL, *idx, *conn;
  PetscInt64         np = 0;
  Vec                ul[BRICK_VTK_MAX_FIELDS];
  const PetscScalar *ua[BRICK_VTK_MAX_FIELDS];
  PetscScalar       *ue, *t1, *t2, *uq;
  double            *pts, *vals;
  PetscMPIInt        rank;
  char              *at;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
  PetscCall(DMBrickCellSize_Private(dm, h));
  for (PetscInt i = 0; i < n; i++) eq[i] = (PetscReal)i / (PetscReal)k;
  PetscCall(BrickBasisEvaluate(k, brick->nodes, n, eq, E, NULL)); /* E[i n + j] = phi_j(i / k) */
  PetscCall(DMBrickOwnedCellBox_Private(dm, &cells));
  nc = BrickFECellCount(brick, &cells);
  for (PetscInt f = 0; f < fl->n; f++) {
    PetscCall(DMGetLocalVector(dm, &ul[f]));
    PetscCall(DMGlobalToLocal(dm, fl->v[f], INSERT_VALUES, ul[f]));
    PetscCall(VecGetArrayRead(ul[f], &ua[f]));
  }
  PetscCall(VecGetLocalSize(ul[0], &nl));
  if (cg) {
    PetscCall(PetscMalloc1(nl, &pointof));
    for (PetscInt i = 0; i < nl; i++) pointof[i] = -1;
  }
  /* points: at most nv a cell; their values per field, the connectivity in VTK's order */
  PetscCall(PetscMalloc3(nv, &idx, (size_t)nc * nv + 1, &conn, 4 * (size_t)nv, &ue));
  t1 = ue + nv;
  t2 = t1 + nv;
  uq = t2 + nv;
  PetscCall(PetscMalloc2(3 * (size_t)nc * nv + 1, &pts, (size_t)fl->n * nc * nv + 1, &vals));
  for (PetscInt c = 0; c < nc; c++) {
    PetscInt cell[3];
    PetscCall(BrickFECell(dm, &cells, c, cell, idx));
    for (PetscInt i = 0; i < nv; i++) {
      const PetscInt ii[3] = {i % n, (i / n) % n, dim == 3 ? i / (n * n) : 0};
      double         X[3];
      PetscInt       p    = -1;
      for (PetscInt d = 0; d < 3; d++) X[d] = d < dim ? (double)(brick->lower[d] + h[d] * (cell[d] + (PetscReal)ii[d] / (PetscReal)k)) : 0.0;
      /* a node shared with an earlier cell is that cell's point, unless it lies elsewhere: across a periodic end the
         node at the upper end is the one at the lower end, but the cell's point is at its own end */
      if (cg && idx[i] >= 0 && pointof[idx[i]] >= 0) {
        const double *Y = pts + 3 * pointof[idx[i]];
        if (X[0] == Y[0] && X[1] == Y[1] && X[2] == Y[2]) p = pointof[idx[i]];
      }
      if (p < 0) {
        p = (PetscInt)np++;
        if (cg && idx[i] >= 0 && pointof[idx[i]] < 0) pointof[idx[i]] = p;
        for (PetscInt d = 0; d < 3; d++) pts[3 * p + d] = X[d];
        for (PetscInt f = 0; f < fl->n; f++) vals[(size_t)f * nc * nv + p] = NAN; /* set below, from this cell */
      }
      conn[(size_t)c * nv + BrickVTKPointIndex(dim, k, ii[0], ii[1], ii[2])] = p;
    }
    for (PetscInt f = 0; f < fl->n; f++) { /* the cell's values at its equispaced points, where its points are new */
      PetscInt  ext[3] = {n, n, dim == 3 ? n : 1};
      PetscBool any;
      PetscCall(DMBrickBoundaryCellValues_Private(dm, h, cell, idx, ue, &any)); /* the boundary data (or zero) at the Dirichlet nodes */
      for (PetscInt i = 0; i < nv; i++)
        if (idx[i] >= 0) ue[i] = ua[f][idx[i]];
      BrickTensorApply1D(0, ext, n, E, ue, t1);
      BrickTensorApply1D(1, ext, n, E, t1, dim == 3 ? t2 : uq);
      if (dim == 3) BrickTensorApply1D(2, ext, n, E, t2, uq);
      for (PetscInt i = 0; i < nv; i++) {
        const PetscInt ii[3] = {i % n, (i / n) % n, dim == 3 ? i / (n * n) : 0};
        const PetscInt p     = conn[(size_t)c * nv + BrickVTKPointIndex(dim, k, ii[0], ii[1], ii[2])];
        double        *dst   = &vals[(size_t)f * nc * nv + p];
        if (isnan(*dst)) *dst = (double)PetscRealPart(uq[i]);
      }
    }
  }
  for (PetscInt f = 0; f < fl->n; f++) {
    PetscCall(VecRestoreArrayRead(ul[f], &ua[f]));
    PetscCall(DMRestoreLocalVector(dm, &ul[f]));
  }
  piece->npoints = np;
  piece->ncells  = nc;
  piece->bytes   = BrickVTKPieceBytes(np, nc, nv, fl->n, tree);
  PetscCall(PetscMalloc1(piece->bytes + 1, &piece->blob));
  at = piece->blob;
  memcpy(BrickVTKArray(&at, 24 * (size_t)np), pts, 24 * (size_t)np);
  {
    int64_t *cn = (int64_t *)BrickVTKArray(&at, 8 * (size_t)nc * nv), *off, cnt = 0;
    uint8_t *type;
    int32_t *rk, *tr;
    for (size_t i = 0; i < (size_t)nc * nv; i++) cn[i] = conn[i];
    off = (int64_t *)BrickVTKArray(&at, 8 * (size_t)nc);
    for (PetscInt c = 0; c < nc; c++) off[c] = cnt += nv;
    type = (uint8_t *)BrickVTKArray(&at, (size_t)nc);
    for (PetscInt c = 0; c < nc; c++) type[c] = dim == 3 ? 72 : 70; /* VTK_LAGRANGE_HEXAHEDRON, VTK_LAGRANGE_QUADRILATERAL */
    for (PetscInt f = 0; f < fl->n; f++) memcpy(BrickVTKArray(&at, 8 * (size_t)np), vals + (size_t)f * nc * nv, 8 * (size_t)np);
    rk = (int32_t *)BrickVTKArray(&at, 4 * (size_t)nc);
    for (PetscInt c = 0; c < nc; c++) rk[c] = rank;
    if (tree) {
      const BrickForest *fo = brick->forest;
      tr                    = (int32_t *)BrickVTKArray(&at, 4 * (size_t)nc);
      for (PetscInt c = 0; c < nc; c++) {
        const PetscInt *ijk = fo->ijk + 3 * c, cc[3] = {ijk[0] >> fo->level, ijk[1] >> fo->level, dim == 3 ? ijk[2] >> fo->level : 0};
        tr[c] = (int32_t)fo->tree[cc[0] + brick->cells0[0] * (cc[1] + brick->cells0[1] * cc[2])];
      }
    }
  }
  PetscCheck((size_t)(at - piece->blob) == piece->bytes, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VTK piece: %zu bytes packed, %zu counted", (size_t)(at - piece->blob), piece->bytes);
  PetscCall(PetscFree3(idx, conn, ue));
  PetscCall(PetscFree2(pts, vals));
  PetscCall(PetscFree(pointof));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPI moves at most INT_MAX elements a call: large pieces go in chunks */
#define BRICK_VTK_CHUNK ((size_t)1 << 30)

static PetscErrorCode BrickVTKSend(const char *buf, size_t bytes, MPI_Comm comm)
{
  PetscFunctionBegin;
  for (size_t o = 0; o < bytes; o += BRICK_VTK_CHUNK) PetscCallMPI(MPI_Send(buf + o, (PetscMPIInt)PetscMin(BRICK_VTK_CHUNK, bytes - o), MPI_BYTE, 0, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickVTKRecv(char *buf, size_t bytes, PetscMPIInt from, MPI_Comm comm)
{
  PetscFunctionBegin;
  for (size_t o = 0; o < bytes; o += BRICK_VTK_CHUNK) PetscCallMPI(MPI_Recv(buf + o, (PetscMPIInt)PetscMin(BRICK_VTK_CHUNK, bytes - o), MPI_BYTE, from, 0, comm, MPI_STATUS_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the XML header, built in memory on rank 0: a growing buffer and printf into it */
typedef struct {
  char  *s;
  size_t len, cap;
} BrickVTKText;

static PetscErrorCode BrickVTKPrintf(BrickVTKText *t, const char fmt[], ...)
{
  va_list ap;
  int     n;

  PetscFunctionBegin;
  for (;;) {
    va_start(ap, fmt);
    n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "vsnprintf failed");
    if (t->s && t->len + (size_t)n < t->cap) break;
    t->cap = 2 * (t->cap + (size_t)n + 4096);
    PetscCall(PetscRealloc(t->cap, &t->s));
  }
  t->len += (size_t)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the XML of one array, and the offset of the next */
static PetscErrorCode BrickVTKArrayXML(BrickVTKText *t, const char type[], const char name[], PetscInt ncomp, size_t bytes, size_t *offset)
{
  PetscFunctionBegin;
  PetscCall(BrickVTKPrintf(t, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"appended\" offset=\"%zu\"/>\n", type, name, (int)ncomp, *offset));
  *offset += sizeof(uint64_t) + bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the field's name in the file: the vector's name, spaces and XML's special characters replaced */
static PetscErrorCode BrickVTKFieldName(Vec v, char name[], size_t len)
{
  const char *vn;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetName((PetscObject)v, &vn));
  PetscCall(PetscStrncpy(name, vn && vn[0] ? vn : "u", len));
  for (size_t i = 0; name[i]; i++)
    if (name[i] == ' ' || name[i] == '"' || name[i] == '<' || name[i] == '>' || name[i] == '&') name[i] = '_';
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the XML up to the appended data's '_', for pieces of the given sizes (all: npoints, ncells per rank) */
static PetscErrorCode BrickVTKHeader(const DM_Brick *brick, PetscMPIInt size, const PetscInt64 all[], PetscInt nfields, char names[][256], BrickVTKText *t)
{
  const PetscInt  n = brick->degree + 1, nv = brick->dim == 3 ? n * n * n : n * n;
  const PetscBool tree = (PetscBool)(brick->forest != NULL);
  size_t          offset = 0;

  PetscFunctionBegin;
  PetscCall(BrickVTKPrintf(t, "<?xml version=\"1.0\"?>\n<!-- petsc-vpatch DMBRICK: Q%d %s, Lagrange cells (values at the cells' equispaced points), one piece per MPI rank -->\n", (int)brick->degree, brick->family == DMBRICK_DG ? "DG" : "CG"));
  PetscCall(BrickVTKPrintf(t, "<VTKFile type=\"UnstructuredGrid\" version=\"2.2\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n"));
  for (PetscMPIInt r = 0; r < size; r++) {
    const PetscInt64 np = all[2 * r], nc = all[2 * r + 1];
    PetscCall(BrickVTKPrintf(t, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n      <Points>\n", (long long)np, (long long)nc));
    PetscCall(BrickVTKArrayXML(t, "Float64", "Points", 3, 24 * (size_t)np, &offset));
    PetscCall(BrickVTKPrintf(t, "      </Points>\n      <Cells>\n"));
    PetscCall(BrickVTKArrayXML(t, "Int64", "connectivity", 1, 8 * (size_t)nc * nv, &offset));
    PetscCall(BrickVTKArrayXML(t, "Int64", "offsets", 1, 8 * (size_t)nc, &offset));
    PetscCall(BrickVTKArrayXML(t, "UInt8", "types", 1, (size_t)nc, &offset));
    PetscCall(BrickVTKPrintf(t, "      </Cells>\n      <PointData Scalars=\"%s\">\n", names[0]));
    for (PetscInt f = 0; f < nfields; f++) PetscCall(BrickVTKArrayXML(t, "Float64", names[f], 1, 8 * (size_t)np, &offset));
    PetscCall(BrickVTKPrintf(t, "      </PointData>\n      <CellData>\n"));
    PetscCall(BrickVTKArrayXML(t, "Int32", "rank", 1, 4 * (size_t)nc, &offset));
    if (tree) PetscCall(BrickVTKArrayXML(t, "Int32", "tree", 1, 4 * (size_t)nc, &offset));
    PetscCall(BrickVTKPrintf(t, "      </CellData>\n    </Piece>\n"));
  }
  PetscCall(BrickVTKPrintf(t, "  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n_"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char BrickVTKTrailer[] = "\n  </AppendedData>\n</VTKFile>\n";

/* one file, rank 0 writing: the header, its piece, then each other rank's as it arrives */
static PetscErrorCode BrickVTKWriteGather(MPI_Comm comm, const char filename[], const BrickVTKText *header, const BrickVTKPiece *piece, const size_t bytes[])
{
  PetscMPIInt rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* every rank learns whether rank 0 could open the file (an error on rank 0 alone would leave the others waiting), and
     whether every write went through; rank 0 takes all pieces in either case */
  PetscBool opened = PETSC_TRUE, written = PETSC_TRUE;
  FILE     *fp     = NULL;
  if (rank == 0) {
    fp     = fopen(filename, "wb");
    opened = (PetscBool)(fp != NULL);
  }
  PetscCallMPI(MPI_Bcast(&opened, 1, MPIU_BOOL, 0, comm));
  PetscCheck(opened, comm, PETSC_ERR_FILE_OPEN, "Cannot open %s for writing (VTK output)", filename);
  if (rank == 0) {
    size_t most = 0;
    char  *buf;
    for (PetscMPIInt r = 1; r < size; r++) most = PetscMax(most, bytes[r]);
    written = (PetscBool)(fwrite(header->s, 1, header->len, fp) == header->len && fwrite(piece->blob, 1, piece->bytes, fp) == piece->bytes);
    PetscCall(PetscMalloc1(most + 1, &buf));
    for (PetscMPIInt r = 1; r < size; r++) { /* one rank at a time: rank 0 holds one piece besides its own */
      PetscCallMPI(MPI_Send(NULL, 0, MPI_BYTE, r, 1, comm)); /* go */
      PetscCall(BrickVTKRecv(buf, bytes[r], r, comm));
      if (written) written = (PetscBool)(fwrite(buf, 1, bytes[r], fp) == bytes[r]);
    }
    PetscCall(PetscFree(buf));
    if (written) written = (PetscBool)(fwrite(BrickVTKTrailer, 1, sizeof(BrickVTKTrailer) - 1, fp) == sizeof(BrickVTKTrailer) - 1);
    if (fclose(fp)) written = PETSC_FALSE;
  } else {
    PetscCallMPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 1, comm, MPI_STATUS_IGNORE));
    PetscCall(BrickVTKSend(piece->blob, piece->bytes, comm));
  }
  PetscCallMPI(MPI_Bcast(&written, 1, MPIU_BOOL, 0, comm));
  PetscCheck(written, comm, PETSC_ERR_FILE_WRITE, "Writing %s failed (VTK output; disk full?)", filename);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one file, every rank writing its piece at its offset (MPI-IO), rank 0 the header and the trailer */
static PetscErrorCode BrickVTKWriteMPIIO(MPI_Comm comm, const char filename[], const BrickVTKText *header, const BrickVTKPiece *piece, const size_t bytes[])
{
  MPI_File    fh;
  PetscMPIInt rank, size;
  long long   hlen = 0, off = 0, total = 0, mine = (long long)piece->bytes;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  (void)bytes;
  if (rank == 0) hlen = (long long)header->len;
  PetscCallMPI(MPI_Bcast(&hlen, 1, MPI_LONG_LONG, 0, comm));
  PetscCallMPI(MPI_Exscan(&mine, &off, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (rank == 0) off = 0;
  PetscCallMPI(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm));
  PetscCallMPI(MPI_File_open(comm, filename, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  PetscCallMPI(MPI_File_set_size(fh, 0)); /* an older, longer file of that name */
  PetscCallMPI(MPI_Barrier(comm));         /* the truncation before any rank's write */
  if (rank == 0) {
    PetscCallMPI(MPI_File_write_at(fh, 0, header->s, (PetscMPIInt)header->len, MPI_BYTE, MPI_STATUS_IGNORE));
    PetscCallMPI(MPI_File_write_at(fh, (MPI_Offset)(hlen + total), BrickVTKTrailer, (PetscMPIInt)(sizeof(BrickVTKTrailer) - 1), MPI_BYTE, MPI_STATUS_IGNORE));
  }
  for (size_t o = 0; o < piece->bytes; o += BRICK_VTK_CHUNK) PetscCallMPI(MPI_File_write_at(fh, (MPI_Offset)(hlen + off + (long long)o), piece->blob + o, (PetscMPIInt)PetscMin(BRICK_VTK_CHUNK, piece->bytes - o), MPI_BYTE, MPI_STATUS_IGNORE));
  PetscCallMPI(MPI_File_close(&fh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the viewer's write function: every registered vector into the viewer's file (collective) */
static PetscErrorCode DMBrickVTKWrite_Private(PetscObject odm, PetscViewer viewer)
{
  DM              dm    = (DM)odm;
  DM_Brick       *brick = (DM_Brick *)dm->data;
  MPI_Comm        comm  = PetscObjectComm((PetscObject)dm);
  const PetscInt  n = brick->degree + 1, nv = brick->dim == 3 ? n * n * n : n * n;
  PetscContainer  container;
  BrickVTKFields *fl;
  BrickVTKPiece   piece;
  BrickVTKText    header = {NULL, 0, 0};
  PetscInt64      mine[2], *all;
  size_t         *bytes;
  PetscMPIInt     rank, size;
  const char     *filename;
  char(*names)[256];

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMBRICK_VTKWrite, dm, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscObjectQuery((PetscObject)viewer, "DMBrickVTKFields", (PetscObject *)&container));
  PetscCheck(container, comm, PETSC_ERR_PLIB, "A VTK viewer with brick vectors but no list of them");
  PetscCall(PetscContainerGetPointer(container, (void **)&fl));
  PetscCall(PetscViewerFileGetName(viewer, &filename));
  PetscCall(PetscMalloc1(fl->n, &names));
  for (PetscInt f = 0; f < fl->n; f++) PetscCall(BrickVTKFieldName(fl->v[f], names[f], sizeof(names[f])));
  PetscCall(BrickVTKBuildPiece(dm, fl, &piece));
  mine[0] = piece.npoints;
  mine[1] = piece.ncells;
  PetscCall(PetscMalloc2(2 * size, &all, size, &bytes));
  PetscCallMPI(MPI_Allgather(mine, 2, MPIU_INT64, all, 2, MPIU_INT64, comm));
  for (PetscMPIInt r = 0; r < size; r++) bytes[r] = BrickVTKPieceBytes(all[2 * r], all[2 * r + 1], nv, fl->n, (PetscBool)(brick->forest != NULL));
  if (rank == 0) PetscCall(BrickVTKHeader(brick, size, all, fl->n, names, &header));
  if (brick->vtk_mpiio) PetscCall(BrickVTKWriteMPIIO(comm, filename, &header, &piece, bytes));
  else PetscCall(BrickVTKWriteGather(comm, filename, &header, &piece, bytes));
  {
    size_t total = 0;
    for (PetscMPIInt r = 0; r < size; r++) total += bytes[r];
    PetscCall(PetscInfo(dm, "VTK: wrote %s, %" PetscInt_FMT " field(s), %d piece(s), %.3g MB of arrays (%s)\n", filename, fl->n, (int)size, total / 1048576.0, brick->vtk_mpiio ? "every rank through MPI-IO" : "rank 0 writing"));
  }
  PetscCall(PetscFree(header.s));
  PetscCall(PetscFree2(all, bytes));
  PetscCall(PetscFree(names));
  PetscCall(PetscFree(piece.blob));
  for (PetscInt f = 0; f < fl->n; f++) PetscCall(VecDestroy(&fl->v[f])); /* written: the list starts again */
  fl->n = 0;
  PetscCall(PetscLogEventEnd(DMBRICK_VTKWrite, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecView of a brick vector: on a VTK viewer, register it for the brick's writer; else the vector type's own view */
static PetscErrorCode VecView_Brick(Vec v, PetscViewer viewer)
{
  PetscBool isvtk;
  DM        dm;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERVTK, &isvtk));
  PetscCall(VecGetDM(v, &dm));
  if (!isvtk || !dm) {
    /* the type's own view function, from an empty vector of the type (brick vectors replace it, duplicates too) */
    PetscErrorCode (*view)(Vec, PetscViewer) = NULL;
    Vec     tmp;
    VecType type;
    PetscCall(VecGetType(v, &type));
    PetscCall(VecCreate(PetscObjectComm((PetscObject)v), &tmp));
    PetscCall(VecSetSizes(tmp, 0, PETSC_DECIDE));
    PetscCall(VecSetType(tmp, type));
    view = tmp->ops->view;
    PetscCall(VecDestroy(&tmp));
    PetscCheck(view && view != VecView_Brick, PetscObjectComm((PetscObject)v), PETSC_ERR_SUP, "No view for vectors of type %s", type);
    PetscCall((*view)(v, viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    PetscContainer  container;
    BrickVTKFields *fl;
    const char     *filename;
    PetscBool       vtu;
    PetscCall(PetscViewerFileGetName(viewer, &filename));
    PetscCall(PetscStrendswith(filename, ".vtu", &vtu));
    PetscCheck(vtu, PetscObjectComm((PetscObject)v), PETSC_ERR_SUP, "A brick vector on a VTK viewer writes VTK XML unstructured grids: the file name %s must end in .vtu (e.g. -vec_view vtk:u.vtu)", filename);
    PetscCall(PetscObjectQuery((PetscObject)viewer, "DMBrickVTKFields", (PetscObject *)&container));
    if (!container) {
      PetscCall(PetscNew(&fl));
      PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)viewer), &container));
      PetscCall(PetscContainerSetPointer(container, fl));
      PetscCall(PetscContainerSetUserDestroy(container, BrickVTKFieldsDestroy));
      PetscCall(PetscObjectCompose((PetscObject)viewer, "DMBrickVTKFields", (PetscObject)container));
      PetscCall(PetscContainerDestroy(&container)); /* the viewer holds it */
      PetscCall(PetscObjectQuery((PetscObject)viewer, "DMBrickVTKFields", (PetscObject *)&container));
    }
    PetscCall(PetscContainerGetPointer(container, (void **)&fl));
    if (fl->n) { /* one file holds one grid */
      DM first;
      PetscCall(VecGetDM(fl->v[0], &first));
      PetscCheck(first == dm, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_INCOMP, "A VTK file holds the fields of one brick: this vector lives on another brick (another level or mesh) than the ones viewed before on this viewer; use one viewer (file) per brick");
    }
    PetscCheck(fl->n < BRICK_VTK_MAX_FIELDS, PetscObjectComm((PetscObject)v), PETSC_ERR_SUP, "At most %d brick vectors a VTK file", BRICK_VTK_MAX_FIELDS);
    PetscCall(PetscObjectReference((PetscObject)v));
    fl->v[fl->n++] = v;
    PetscCall(PetscObjectReference((PetscObject)v)); /* the viewer's: it drops the vectors it was given when it has written them */
    PetscCall(PetscViewerVTKAddField(viewer, (PetscObject)dm, DMBrickVTKWrite_Private, PETSC_DEFAULT, PETSC_VTK_POINT_FIELD, PETSC_FALSE, (PetscObject)v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* brick vectors view themselves in VTK (DMCreateGlobalVector of boxes and forests; VecDuplicate copies the operation) */
PetscErrorCode DMBrickVecSetView_Private(Vec v)
{
  PetscFunctionBegin;
  PetscCall(VecSetOperation(v, VECOP_VIEW, (void (*)(void))VecView_Brick));
  PetscFunctionReturn(PETSC_SUCCESS);
}
