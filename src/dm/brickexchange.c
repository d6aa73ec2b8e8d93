/* The brick's ghost exchanges between GPUs of one host without the host in between (-dm_brick_gpu_exchange).

   PETSc's PetscSF moves device data through the host when MPI is not GPU-aware: per message a device-to-host copy,
   the MPI message, a host-to-device copy. On two GPUs that made the V-cycle 3 to 6 times slower than on one
   (bench/results/gpu-two-h100-2026-11-25.md). Here the same PetscSF graph (the brick's halo, the grid transfers'
   VecScatters, the vertex-patch sweep's ghost graphs) is served device to device:
   - each rank allocates one receive buffer with cudaMalloc and exports it through CUDA IPC; its neighbours open it
     once, at the first use of the graph;
   - a Bcast (roots to leaves) or Reduce (leaves to roots) packs each neighbour's values straight into that
     neighbour's buffer (stores over NVLink), moves the rank's own part with one kernel, waits for its stream, sends
     each neighbour a zero-byte MPI message, waits for the neighbours' messages and unpacks its own buffer;
   - the buffer has two halves used alternately: a writer can be one operation ahead of a reader, never two, since
     every rank waits for all its neighbours' messages, sent after their streams were idle, before it goes on.
   Only MPI's zero-byte messages cross the host. The set-up is collective over the graph's communicator and falls
   back to PetscSF (with a -info line and DMView saying so) where the ranks do not share one host or CUDA IPC fails;
   -dm_brick_gpu_exchange ipc makes that an error. The exchange of a graph is kept on the PetscSF object itself. */
#include "brickimpl.h"
#include <petsc/private/sfimpl.h>
#if defined(VP_HAVE_CUDA)
#  include <vpatch_cuda.h>
#  include <petscdevice_cuda.h>
#endif

const char *const DMBrickGPUExchanges[] = {"auto", "ipc", "mpi", "DMBrickGPUExchange", "DMBRICK_GPU_EXCHANGE_", NULL};

#if defined(VP_HAVE_CUDA)
typedef struct {
  PetscBool    ok;   /* set up: the device path serves this graph; else PetscSF does */
  MPI_Comm     comm; /* the zero-byte messages */
  PetscInt     bs;   /* values per graph entry */
  PetscInt     nself;
  int         *selfroot, *selfleaf; /* device: this rank's own part */
  PetscMPIInt  nrr, nlr, nnb;       /* ranks holding roots of my leaves, ranks holding leaves of my roots, their union */
  PetscMPIInt *rr, *lr, *nb;
  PetscInt    *rroff, *lroff;       /* segments of the two lists, nrr + 1 and nlr + 1 entries */
  int         *rleaf, *lroot;       /* device: my leaves per root rank, my roots per leaf rank (in that rank's order) */
  double     **rrpeer, **lrpeer;    /* half 0 of my segment in the peer's buffer: Reduce writes to rr[j], Bcast to lr[i] */
  PetscInt    *rrstride, *lrstride; /* from half 0 to half 1 there */
  double      *buf;                 /* [2 halves x Bcast input (rroff[nrr] bs) | 2 halves x Reduce input (lroff[nlr] bs)] */
  PetscInt     nbin, nrin;          /* rroff[nrr], lroff[nlr] */
  int          hb, hr;              /* the half the next Bcast / Reduce uses */
  double     **open;                /* the neighbours' buffers as opened here, one per rank of nb (NULL: not opened) */
  MPI_Request *req;
  void        *packed; /* a device event recorded after this rank's packs: its tokens wait for it, not the stream */
  PetscBool    begun;  /* between BrickExchangeBegin() and BrickExchangeEnd() */
} BrickExchange;

typedef struct {
  unsigned char handle[VPC_IPC_HANDLE_BYTES];
  PetscInt      off, stride; /* in values: the receiver's segment for the sender, and the distance between halves */
} BrickExchangeInfo;

static PetscErrorCode BrickExchangeWarm(BrickExchange *);

static PetscErrorCode BrickExchangeDestroy(void *ctx)
{
  BrickExchange *ex  = (BrickExchange *)ctx;
  int            err = 0;

  PetscFunctionBegin;
  if (!ex) PetscFunctionReturn(PETSC_SUCCESS);
  /* close the neighbours' buffers before this rank frees its own */
  if (ex->open)
    for (PetscMPIInt q = 0; q < ex->nnb; q++) err = err ? err : VPCudaExchangeClose(ex->open[q]);
  err = err ? err : VPCudaExchangeFree(ex->buf);
  err = err ? err : VPCudaExchangeMarkDestroy(ex->packed);
  err = err ? err : VPCudaExchangeFreeIndices(ex->selfroot);
  err = err ? err : VPCudaExchangeFreeIndices(ex->selfleaf);
  err = err ? err : VPCudaExchangeFreeIndices(ex->rleaf);
  err = err ? err : VPCudaExchangeFreeIndices(ex->lroot);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error freeing the brick's device exchange: %s", VPCudaErrorString(err));
  PetscCall(PetscFree3(ex->rr, ex->lr, ex->nb));
  PetscCall(PetscFree2(ex->rroff, ex->lroff));
  PetscCall(PetscFree4(ex->rrpeer, ex->lrpeer, ex->rrstride, ex->lrstride));
  PetscCall(PetscFree2(ex->open, ex->req));
  if (ex->comm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&ex->comm));
  PetscCall(PetscFree(ex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickExchangeIntList(PetscInt n, const PetscInt *src, PetscInt bound, int **dev, int *err)
{
  int *h;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &h));
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(src[i] >= 0 && src[i] < bound && src[i] <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "graph index %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")", src[i], bound);
    h[i] = (int)src[i];
  }
  if (!*err) *err = VPCudaExchangeIndices((size_t)n, h, dev);
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Set up the device exchange of sf (collective on its communicator); ex->ok says whether it can serve */
static PetscErrorCode BrickExchangeSetUp(PetscSF sf, PetscInt bs, BrickExchange *ex, const char **why)
{
  MPI_Comm           comm;
  PetscMPIInt        me, size, nodesize, nranks, niranks, anyfail, fail = 0;
  const PetscMPIInt *ranks, *iranks;
  const PetscInt    *roffset, *rmine, *rremote, *ioffset, *irootloc;
  PetscInt           nroots, nleaves, *lrootidx = NULL, *rleafidx, *selfr, *selfl;
  PetscBool          basic;
  BrickExchangeInfo *infob, *infor, mine;
  MPI_Request       *req;
  int                err = 0;

  PetscFunctionBegin;
  *why     = NULL;
  ex->comm = MPI_COMM_NULL;
  ex->bs   = bs;
  /* PETSc chooses each rank's GPU when it initializes CUDA, which a DMSetUp() before any vector has not done yet: the
     buffer and index lists must be made on the GPU the vectors will use */
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscObjectGetComm((PetscObject)sf, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &me));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  {
    MPI_Comm node;
    PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    PetscCallMPI(MPI_Comm_size(node, &nodesize));
    PetscCallMPI(MPI_Comm_free(&node));
  }
  if (nodesize != size) {
    *why = "the ranks do not all share one host";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscSFSetUp(sf));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)sf, &basic, PETSCSFBASIC, PETSCSFNEIGHBOR, ""));
  {
    PetscMPIInt allbasic, b = basic;
    PetscCallMPI(MPIU_Allreduce(&b, &allbasic, 1, MPI_INT, MPI_MIN, comm));
    if (!allbasic) {
      *why = "the graph is not a PetscSF of type basic";
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCallMPI(MPI_Comm_dup(comm, &ex->comm));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, NULL, NULL));
  PetscCall(PetscSFGetRootRanks(sf, &nranks, &ranks, &roffset, &rmine, &rremote));
  PetscCall(PetscSFGetLeafRanks(sf, &niranks, &iranks, &ioffset, &irootloc));
  PetscCall(PetscMalloc3(nranks, &ex->rr, niranks, &ex->lr, nranks + niranks, &ex->nb));
  PetscCall(PetscMalloc2(nranks + 1, &ex->rroff, niranks + 1, &ex->lroff));
  ex->rroff[0] = ex->lroff[0] = 0;
  /* this rank's own part: its leaves that point at its own roots, matched entry by entry */
  ex->nself = 0;
  for (PetscMPIInt j = 0; j < nranks; j++)
    if (ranks[j] == me) ex->nself += roffset[j + 1] - roffset[j];
  PetscCall(PetscMalloc3(ex->nself + 1, &selfr, ex->nself + 1, &selfl, roffset[nranks] + 1, &rleafidx));
  ex->nself = 0;
  for (PetscMPIInt j = 0; j < nranks; j++) {
    if (ranks[j] == me) {
      for (PetscInt k = roffset[j]; k < roffset[j + 1]; k++) {
        selfl[ex->nself]   = rmine[k];
        selfr[ex->nself++] = rremote[k];
      }
    } else {
      ex->rr[ex->nrr] = ranks[j];
      for (PetscInt k = roffset[j]; k < roffset[j + 1]; k++) rleafidx[ex->rroff[ex->nrr] + k - roffset[j]] = rmine[k];
      ex->rroff[ex->nrr + 1] = ex->rroff[ex->nrr] + roffset[j + 1] - roffset[j];
      ex->nrr++;
    }
  }
  for (PetscMPIInt i = 0; i < niranks; i++)
    if (iranks[i] != me) {
      ex->lr[ex->nlr]        = iranks[i];
      ex->lroff[ex->nlr + 1] = ex->lroff[ex->nlr] + ioffset[i + 1] - ioffset[i];
      ex->nlr++;
    }
  ex->nbin = ex->rroff[ex->nrr];
  ex->nrin = ex->lroff[ex->nlr];
  PetscCall(PetscMalloc1(ex->nrin + 1, &lrootidx));
  /* the buffer, and what each neighbour needs to write into it */
  err = VPCudaExchangeAlloc((size_t)(2 * (ex->nbin + ex->nrin) * bs), &ex->buf, mine.handle);
  PetscCall(PetscMalloc2(ex->nlr + 1, &infob, ex->nrr + 1, &infor));
  PetscCall(PetscMalloc1(4 * (ex->nrr + ex->nlr) + 1, &req));
  {
    PetscInt nreq = 0;
    for (PetscMPIInt i = 0; i < ex->nlr; i++) {
      PetscCallMPI(MPI_Irecv(&infob[i], sizeof(BrickExchangeInfo), MPI_BYTE, ex->lr[i], 10, ex->comm, &req[nreq++]));
      PetscCallMPI(MPI_Irecv(lrootidx + ex->lroff[i], (PetscMPIInt)(ex->lroff[i + 1] - ex->lroff[i]), MPIU_INT, ex->lr[i], 11, ex->comm, &req[nreq++]));
    }
    for (PetscMPIInt j = 0; j < ex->nrr; j++) PetscCallMPI(MPI_Irecv(&infor[j], sizeof(BrickExchangeInfo), MPI_BYTE, ex->rr[j], 12, ex->comm, &req[nreq++]));
    /* to a root rank: where its Bcast goes in my buffer, and which of its roots my leaves want, in my order */
    {
      BrickExchangeInfo *tob;
      PetscCall(PetscMalloc1(ex->nrr + ex->nlr + 1, &tob));
      for (PetscMPIInt j = 0, jj = 0; j < nranks; j++) {
        if (ranks[j] == me) continue;
        tob[jj]        = mine;
        tob[jj].off    = ex->rroff[jj] * bs;
        tob[jj].stride = ex->nbin * bs;
        PetscCallMPI(MPI_Isend(&tob[jj], sizeof(BrickExchangeInfo), MPI_BYTE, ex->rr[jj], 10, ex->comm, &req[nreq++]));
        PetscCallMPI(MPI_Isend(rremote + roffset[j], (PetscMPIInt)(roffset[j + 1] - roffset[j]), MPIU_INT, ex->rr[jj], 11, ex->comm, &req[nreq++]));
        jj++;
      }
      /* to a leaf rank: where its Reduce goes in my buffer */
      for (PetscMPIInt i = 0; i < ex->nlr; i++) {
        tob[ex->nrr + i]        = mine;
        tob[ex->nrr + i].off    = (2 * ex->nbin + ex->lroff[i]) * bs;
        tob[ex->nrr + i].stride = ex->nrin * bs;
        PetscCallMPI(MPI_Isend(&tob[ex->nrr + i], sizeof(BrickExchangeInfo), MPI_BYTE, ex->lr[i], 12, ex->comm, &req[nreq++]));
      }
      PetscCallMPI(MPI_Waitall((PetscMPIInt)nreq, req, MPI_STATUSES_IGNORE));
      PetscCall(PetscFree(tob));
    }
  }
  PetscCall(PetscFree(req));
  /* the neighbours: the union of both lists, each buffer opened once */
  {
    PetscInt n = 0;
    for (PetscMPIInt j = 0; j < ex->nrr; j++) ex->nb[n++] = ex->rr[j];
    for (PetscMPIInt i = 0; i < ex->nlr; i++) ex->nb[n++] = ex->lr[i];
    PetscCall(PetscSortRemoveDupsMPIInt(&n, ex->nb));
    ex->nnb = (PetscMPIInt)n;
  }
  PetscCall(PetscCalloc2(ex->nnb + 1, &ex->open, 2 * ex->nnb + 1, &ex->req));
  PetscCall(PetscMalloc4(ex->nrr + 1, &ex->rrpeer, ex->nlr + 1, &ex->lrpeer, ex->nrr + 1, &ex->rrstride, ex->nlr + 1, &ex->lrstride));
  for (PetscMPIInt q = 0; q < ex->nnb && !err; q++) {
    const unsigned char *h = NULL;
    for (PetscMPIInt j = 0; j < ex->nrr; j++)
      if (ex->rr[j] == ex->nb[q]) h = infor[j].handle;
    for (PetscMPIInt i = 0; i < ex->nlr; i++)
      if (ex->lr[i] == ex->nb[q]) h = infob[i].handle;
    err = VPCudaExchangeOpen(h, &ex->open[q]);
  }
  for (PetscMPIInt q = 0; q < ex->nnb; q++) {
    for (PetscMPIInt j = 0; j < ex->nrr; j++)
      if (ex->rr[j] == ex->nb[q]) {
        ex->rrpeer[j]   = ex->open[q] ? ex->open[q] + infor[j].off : NULL;
        ex->rrstride[j] = infor[j].stride;
      }
    for (PetscMPIInt i = 0; i < ex->nlr; i++)
      if (ex->lr[i] == ex->nb[q]) {
        ex->lrpeer[i]   = ex->open[q] ? ex->open[q] + infob[i].off : NULL;
        ex->lrstride[i] = infob[i].stride;
      }
  }
  PetscCall(PetscFree2(infob, infor));
  /* the index lists on the device */
  PetscCall(BrickExchangeIntList(ex->nself, selfr, nroots, &ex->selfroot, &err));
  {
    PetscInt nl;
    PetscCall(PetscSFGetLeafRange(sf, NULL, &nl));
    PetscCall(BrickExchangeIntList(ex->nself, selfl, nl + 1, &ex->selfleaf, &err));
    PetscCall(BrickExchangeIntList(ex->nbin, rleafidx, nl + 1, &ex->rleaf, &err));
  }
  PetscCall(BrickExchangeIntList(ex->nrin, lrootidx, nroots, &ex->lroot, &err));
  PetscCall(PetscFree3(selfr, selfl, rleafidx));
  PetscCall(PetscFree(lrootidx));
  (void)irootloc;
  fail = err != 0;
  PetscCallMPI(MPIU_Allreduce(&fail, &anyfail, 1, MPI_INT, MPI_MAX, comm));
  if (anyfail) {
    if (err) PetscCall(PetscInfo(sf, "CUDA IPC set-up failed on this rank: %s\n", VPCudaErrorString(err)));
    *why = "CUDA IPC could not be set up (peer access between the GPUs?)";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ex->ok = PETSC_TRUE;
  PetscCall(BrickExchangeWarm(ex));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if defined(VP_HAVE_CUDA)
/* wait until this rank's packs are in its neighbours' memory, tell each of them, hear from each of them */
static PetscErrorCode BrickExchangeTokens(BrickExchange *ex)
{
  int err;

  PetscFunctionBegin;
  if (!ex->nnb) PetscFunctionReturn(PETSC_SUCCESS);
  err = VPCudaExchangeWait(ex->packed);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the brick's device exchange: %s", VPCudaErrorString(err));
  for (PetscMPIInt q = 0; q < ex->nnb; q++) PetscCallMPI(MPI_Irecv(NULL, 0, MPI_BYTE, ex->nb[q], 20, ex->comm, &ex->req[q]));
  for (PetscMPIInt q = 0; q < ex->nnb; q++) PetscCallMPI(MPI_Isend(NULL, 0, MPI_BYTE, ex->nb[q], 20, ex->comm, &ex->req[ex->nnb + q]));
  PetscCallMPI(MPI_Waitall(2 * ex->nnb, ex->req, MPI_STATUSES_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At the end of the set-up, collectively over the graph: what the first exchange would otherwise do once in the first solve
   (the event, the first stores into each neighbour's buffer, the first zero-byte messages between the ranks). Each rank
   zeroes only its own segments (both halves) in its neighbours' buffers: another rank may already be writing its own. */
static PetscErrorCode BrickExchangeWarm(BrickExchange *ex)
{
  const size_t bs  = (size_t)ex->bs;
  int          err = 0;

  PetscFunctionBegin;
  for (PetscMPIInt i = 0; i < ex->nlr && !err; i++)
    for (int h = 0; h < 2 && !err; h++) err = VPCudaExchangeTouch((size_t)(ex->lroff[i + 1] - ex->lroff[i]) * bs, ex->lrpeer[i] + h * ex->lrstride[i]);
  for (PetscMPIInt j = 0; j < ex->nrr && !err; j++)
    for (int h = 0; h < 2 && !err; h++) err = VPCudaExchangeTouch((size_t)(ex->rroff[j + 1] - ex->rroff[j]) * bs, ex->rrpeer[j] + h * ex->rrstride[j]);
  if (!err && !ex->packed) err = VPCudaExchangeMarkCreate(&ex->packed);
  if (!err) err = VPCudaExchangeMark(ex->packed);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the warm-up of the brick's device exchange: %s", VPCudaErrorString(err));
  PetscCall(BrickExchangeTokens(ex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A Bcast (roots src to leaves dst) or a Reduce (leaves src to roots dst), replaced or (add) summed. The two directions
   are mirror images: a Bcast packs its roots for each leaf rank into that rank's buffer and unpacks what the root ranks
   sent onto its leaves; a Reduce packs its leaves for each root rank and unpacks onto its roots. Begin queues the packs
   (and this rank's own part) and marks the stream after them; End waits for the mark, trades the tokens and queues the
   unpacks. Work queued in between must not touch the graph's entries (src before the packs ran, dst's leaves). */
static PetscErrorCode BrickExchangeBegin(BrickExchange *ex, PetscBool reduce, const double *src, double *dst, PetscBool add)
{
  const int         bs    = (int)ex->bs;
  const int         half  = reduce ? ex->hr : ex->hb;
  const PetscMPIInt npack = reduce ? ex->nrr : ex->nlr;
  const PetscInt   *poff = reduce ? ex->rroff : ex->lroff, *stride = reduce ? ex->rrstride : ex->lrstride;
  const int        *pidx = reduce ? ex->rleaf : ex->lroot;
  double *const    *peer = reduce ? ex->rrpeer : ex->lrpeer;
  int               err  = 0;

  PetscFunctionBegin;
  PetscCheck(!ex->begun, PETSC_COMM_SELF, PETSC_ERR_ORDER, "a device exchange of this graph is already under way");
  /* the packs first: src and dst may be one array, and the own part below writes into it */
  for (PetscMPIInt i = 0; i < npack && !err; i++) err = VPCudaExchangePack((size_t)(poff[i + 1] - poff[i]), bs, pidx + poff[i], src, peer[i] + half * stride[i]);
  if (!err) err = VPCudaExchangeMove((size_t)ex->nself, bs, add, reduce ? ex->selfleaf : ex->selfroot, reduce ? ex->selfroot : ex->selfleaf, src, dst);
  if (!err && !ex->packed) err = VPCudaExchangeMarkCreate(&ex->packed);
  if (!err) err = VPCudaExchangeMark(ex->packed);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the brick's device exchange: %s", VPCudaErrorString(err));
  ex->begun = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickExchangeEnd(BrickExchange *ex, PetscBool reduce, double *dst, PetscBool add)
{
  const int         bs   = (int)ex->bs;
  int              *half = reduce ? &ex->hr : &ex->hb, err = 0;
  const PetscMPIInt nunpack = reduce ? ex->nlr : ex->nrr;
  const PetscInt   *uoff    = reduce ? ex->lroff : ex->rroff;
  const int        *uidx    = reduce ? ex->lroot : ex->rleaf;
  const double     *in      = ex->buf + (reduce ? 2 * ex->nbin + *half * ex->nrin : *half * ex->nbin) * bs;

  PetscFunctionBegin;
  PetscCheck(ex->begun, PETSC_COMM_SELF, PETSC_ERR_ORDER, "BrickExchangeEnd() without BrickExchangeBegin()");
  PetscCall(BrickExchangeTokens(ex));
  for (PetscMPIInt j = 0; j < nunpack && !err; j++) err = VPCudaExchangeMove((size_t)(uoff[j + 1] - uoff[j]), bs, add, NULL, uidx + uoff[j], in + uoff[j] * bs, dst);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in the brick's device exchange: %s", VPCudaErrorString(err));
  *half     = 1 - *half;
  ex->begun = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrickExchangeRun(BrickExchange *ex, PetscBool reduce, const double *src, double *dst, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(BrickExchangeBegin(ex, reduce, src, dst, add));
  PetscCall(BrickExchangeEnd(ex, reduce, dst, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device exchange of sf for dm's setting, made at its first use (collective); NULL: PetscSF serves it */
static PetscErrorCode BrickExchangeGet(DM dm, PetscSF sf, PetscInt bs, BrickExchange **exo)
{
  DM_Brick      *brick = (DM_Brick *)dm->data;
  PetscContainer c;
  BrickExchange *ex;

  PetscFunctionBegin;
  *exo = NULL;
  if (brick->gpu_exchange == DMBRICK_GPU_EXCHANGE_MPI) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectQuery((PetscObject)sf, "DMBrick_GPUExchange", (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)&ex));
  else {
    const char *why;
    PetscCall(PetscNew(&ex));
    PetscCall(PetscLogEventBegin(DMBRICK_ExchangeSetUp, dm, 0, 0, 0));
    PetscCall(BrickExchangeSetUp(sf, bs, ex, &why));
    PetscCall(PetscLogEventEnd(DMBRICK_ExchangeSetUp, dm, 0, 0, 0));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, ex));
    PetscCall(PetscContainerSetUserDestroy(c, BrickExchangeDestroy));
    PetscCall(PetscObjectCompose((PetscObject)sf, "DMBrick_GPUExchange", (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
    if (ex->ok) brick->nexchange_ipc++;
    else {
      brick->nexchange_mpi++;
      PetscCheck(brick->gpu_exchange != DMBRICK_GPU_EXCHANGE_IPC, PetscObjectComm((PetscObject)sf), PETSC_ERR_SUP, "-dm_brick_gpu_exchange ipc: %s; allowed here: auto (MPI through the host where IPC cannot serve), mpi", why);
      PetscCall(PetscInfo(dm, "GPU ghost exchange through the host (PetscSF): %s\n", why));
    }
  }
  PetscCheck(!ex->ok || ex->bs == bs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the graph's device exchange was set up for %" PetscInt_FMT " values per entry, used with %" PetscInt_FMT, ex->bs, bs);
  if (ex->ok) *exo = ex;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*
   DMBrickVecScatter_Private - VecScatterBegin() and VecScatterEnd() of a scatter between dm's vectors (SCATTER_FORWARD:
   x roots, y leaves; SCATTER_REVERSE: x leaves, y roots): GPU to GPU when both vectors are VECCUDA and the graph's device
   exchange is set up (made here at the first call, collective on the scatter's communicator), else PETSc's scatter.
*/
PetscErrorCode DMBrickVecScatter_Private(DM dm, VecScatter sf, Vec x, Vec y, InsertMode mode, ScatterMode smode)
{
  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    PetscBool      device;
    BrickExchange *ex = NULL;
    PetscCall(DMBrickVecsOnDevice_Private(x, y, &device));
    if (device && (mode == INSERT_VALUES || mode == ADD_VALUES) && (smode == SCATTER_FORWARD || smode == SCATTER_REVERSE)) PetscCall(BrickExchangeGet(dm, sf, PetscMax(sf->vscat.bs, 1), &ex));
    if (ex) {
      const PetscScalar *xa;
      PetscScalar       *ya;
      PetscCheck(x != y, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "the brick's device scatter needs two vectors");
      PetscCall(PetscLogEventBegin(DMBRICK_Exchange, dm, x, y, 0));
      PetscCall(VecCUDAGetArrayRead(x, &xa));
      PetscCall(VecCUDAGetArray(y, &ya));
      PetscCall(BrickExchangeRun(ex, (PetscBool)(smode == SCATTER_REVERSE), xa, ya, (PetscBool)(mode == ADD_VALUES)));
      PetscCall(VecCUDARestoreArray(y, &ya));
      PetscCall(VecCUDARestoreArrayRead(x, &xa));
      PetscCall(PetscLogEventEnd(DMBRICK_Exchange, dm, x, y, 0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(VecScatterBegin(sf, x, y, mode, smode));
  PetscCall(VecScatterEnd(sf, x, y, mode, smode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the graph goes GPU to GPU (its device exchange is set up), the exchanges that -log_view counts */
static PetscErrorCode BrickSFOnDevice(DM dm, PetscSF sf, PetscBool *ipc)
{
  PetscFunctionBegin;
  *ipc = PETSC_FALSE;
#if defined(VP_HAVE_CUDA)
  {
    BrickExchange *ex;
    PetscCall(BrickExchangeGet(dm, sf, 1, &ex));
    *ipc = (PetscBool)(ex != NULL);
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a half of DMBrickSFDevice_Private() (begin: the first), without the log event */
static PetscErrorCode BrickSFHalf(DM dm, PetscSF sf, PetscBool begin, PetscBool reduce, const PetscScalar *src, PetscScalar *dst, PetscBool add)
{
  const MPI_Op op = add ? MPIU_SUM : MPI_REPLACE;

  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    BrickExchange *ex;
    PetscCall(BrickExchangeGet(dm, sf, 1, &ex));
    if (ex) {
      if (begin) PetscCall(BrickExchangeBegin(ex, reduce, src, dst, add));
      else PetscCall(BrickExchangeEnd(ex, reduce, dst, add));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  if (reduce && begin) PetscCall(PetscSFReduceBegin(sf, MPIU_SCALAR, src, dst, op));
  else if (reduce) PetscCall(PetscSFReduceEnd(sf, MPIU_SCALAR, src, dst, op));
  else if (begin) PetscCall(PetscSFBcastBegin(sf, MPIU_SCALAR, src, dst, op));
  else PetscCall(PetscSFBcastEnd(sf, MPIU_SCALAR, src, dst, op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DMBrickSFDevice_Private - a PetscSF's Bcast (reduce false: roots src to leaves dst) or Reduce (leaves src to roots
   dst) on device arrays of one value per entry, replaced or (add) summed: device to device where the graph's exchange
   is set up, else PetscSF's own (through the host when MPI is not GPU-aware). src and dst may be the same array.

   DMBrickSFDeviceBegin_Private() and DMBrickSFDeviceEnd_Private() (same arguments) are its two halves: Begin queues
   the packs, End waits for them alone, trades the tokens and queues the unpacks. Device work queued in between runs
   while the ranks talk; it must leave the graph's roots and leaves alone.
*/
PetscErrorCode DMBrickSFDevice_Private(DM dm, PetscSF sf, PetscBool reduce, const PetscScalar *src, PetscScalar *dst, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(DMBrickSFDeviceBegin_Private(dm, sf, reduce, src, dst, add));
  PetscCall(DMBrickSFDeviceEnd_Private(dm, sf, reduce, src, dst, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMBrickSFDeviceBegin_Private(DM dm, PetscSF sf, PetscBool reduce, const PetscScalar *src, PetscScalar *dst, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(BrickSFHalf(dm, sf, PETSC_TRUE, reduce, src, dst, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* logged as one BrickGPUExchange: the wait for this rank's packs, the tokens, the unpacks */
PetscErrorCode DMBrickSFDeviceEnd_Private(DM dm, PetscSF sf, PetscBool reduce, const PetscScalar *src, PetscScalar *dst, PetscBool add)
{
  PetscBool ipc;

  PetscFunctionBegin;
  PetscCall(BrickSFOnDevice(dm, sf, &ipc));
  if (ipc) PetscCall(PetscLogEventBegin(DMBRICK_Exchange, dm, 0, 0, 0));
  PetscCall(BrickSFHalf(dm, sf, PETSC_FALSE, reduce, src, dst, add));
  if (ipc) PetscCall(PetscLogEventEnd(DMBRICK_Exchange, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DMBrickSetUpExchange_Private - at set-up, the device exchange of a graph that dm's device vectors will use (nothing
   when dm's vectors live on the host), so that the first solve does not pay for the IPC set-up. bs: values per graph
   entry, 0 for a VecScatter's own. Collective on the graph's communicator.
*/
PetscErrorCode DMBrickSetUpExchange_Private(DM dm, PetscSF sf, PetscInt bs)
{
  PetscFunctionBegin;
#if defined(VP_HAVE_CUDA)
  {
    PetscBool      device;
    BrickExchange *ex;
    PetscCall(DMBrickOnDevice_Private(dm, &device));
    if (device) PetscCall(BrickExchangeGet(dm, sf, bs > 0 ? bs : PetscMax(sf->vscat.bs, 1), &ex));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
