/* Device memory of a solve on a brick, checked before its first large allocation.

   A problem too large for the GPU would otherwise stop wherever the first cudaMalloc fails: a PETSc work vector deep
   in KSPSetUp or PCMG's level set-up, or one of the plugin's kernels' tables. Instead the outer KSP's operator
   callback (KSPSetUp, before the KSP's work vectors and the multigrid hierarchy exist) estimates what the solve will
   hold on the device and compares it with what the device has free, summed over the ranks that share one GPU:
   - the vectors of the finest level: the KSP's own (by its type, for up to 10 iterations: CG 4, GMRES 13, FGMRES 23, ...),
     the solution and right-hand side, the convergence guard's 3 (where the KSP gets one), PCMG's residual and the
     smoother's work (Richardson with the vertex patch 2, Chebyshev/Jacobi 10);
   - every coarser level's vectors (PCMG's x, b, r and the smoother's work), each level 2^-d of the one above, so
     (3 + smoother) / (2^d - 1) finest-level vectors in all;
   - the kernels' tables (patch lists, 1D matrices, cell numbers) are small beside the vectors and not counted.
   How close the estimate comes is measured on the device (-info prints both after a solve; bench/results). The check
   is on by default (-dm_brick_device_memory_check). */
#include "brickimpl.h"
#include <petsc/private/kspimpl.h>
#if defined(VP_HAVE_CUDA)
  #include <vpatch_cuda.h>

/* Finest-level vectors a KSP of this type touches in a solve of up to 10 iterations (this multigrid's usual count;
   device memory is taken when a vector is first used, so the Krylov bases of GMRES, GCR and FCG grow with the
   iterations): CG 4, GMRES 13, FGMRES 23 (its preconditioned directions too), GCR 21. A longer solve of a method
   with a growing basis takes more than the check counted. 10 for a type not listed. */
static PetscErrorCode BrickKSPVectorCount(KSP ksp, PetscInt *nvec)
{
  PetscBool match;
  PetscInt  restart;

  PetscFunctionBegin;
  *nvec = 10;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &match, KSPGMRES, KSPFGMRES, KSPLGMRES, KSPDGMRES, KSPPGMRES, ""));
  if (match) {
    PetscErrorCode (*getrestart)(KSP, PetscInt *) = NULL;
    PetscBool flexible;
    /* not every GMRES variant answers KSPGMRESGetRestart() (DGMRES in PETSc 3.22 does not): then PETSc's default 30 */
    PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPGMRESGetRestart_C", &getrestart));
    restart = 30;
    if (getrestart) PetscCall(KSPGMRESGetRestart(ksp, &restart));
    /* the basis, the residual and the work vectors; FGMRES also the preconditioned directions */
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPFGMRES, &flexible));
    *nvec = (flexible ? 2 : 1) * PetscMin(restart, 10) + 3;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPGCR, &match));
  if (match) {
    PetscCall(KSPGCRGetRestart(ksp, &restart));
    *nvec = 2 * PetscMin(restart, 10) + 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPFCG, &match));
  if (match) {
    PetscCall(KSPFCGGetMmax(ksp, &restart));
    *nvec = 2 * PetscMin(restart + 1, 10) + 3;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPCG, &match));
  if (match) *nvec = 4;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &match, KSPCR, KSPBCGS, ""));
  if (match) *nvec = 6;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &match, KSPRICHARDSON, KSPCHEBYSHEV, ""));
  if (match) *nvec = 3;
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &match));
  if (match) *nvec = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the brick's convergence guard goes on this KSP (its true-residual vectors: 3); not on the methods that
   compute b - A x themselves */
static PetscErrorCode BrickKSPGuarded(KSP ksp, PetscBool *guarded)
{
  PetscBool explicitres;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &explicitres, KSPRICHARDSON, KSPCHEBYSHEV, KSPPREONLY, ""));
  *guarded = (PetscBool)!explicitres;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Work vectors of one level's smoother: 2 (Richardson with the vertex-patch or another vector-free PC), or 10 for
   Chebyshev (its 3, the Jacobi diagonal and the eigenvalue estimator's CG with its right-hand side and solution: PETSc's
   default level smoother, and the -smoother chebyshev baseline of the tutorials). The type is the options database's
   -mg_levels_ksp_type, else the finest smoother's where PCMG's levels exist already, else Chebyshev. */
static PetscErrorCode BrickSmootherVectors(KSP ksp, PetscReal *nvec)
{
  PC        pc;
  PetscBool ismg, cheb = PETSC_FALSE;
  PetscInt  nlevels;

  PetscFunctionBegin;
  *nvec = 2;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (!ismg) PetscFunctionReturn(PETSC_SUCCESS);
  {
    /* the options database first: PCMG's levels, when they exist already, have PETSc's default type until their
       KSPSetFromOptions() in PCSetUp_MG() */
    const char *prefix;
    char        type[64];
    PetscBool   set;
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCall(PetscOptionsGetString(((PetscObject)pc)->options, prefix, "-mg_levels_ksp_type", type, sizeof(type), &set));
    if (set) PetscCall(PetscStrcmp(type, KSPCHEBYSHEV, &cheb));
    else {
      PetscCall(PCMGGetLevels(pc, &nlevels));
      if (nlevels > 1) {
        KSP smoother;
        PetscCall(PCMGGetSmoother(pc, nlevels - 1, &smoother));
        PetscCall(PetscObjectTypeCompare((PetscObject)smoother, KSPCHEBYSHEV, &cheb));
      } else cheb = PETSC_TRUE; /* PCMG's default */
    }
  }
  if (cheb) *nvec = 10;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the estimate of the solve's device bytes on this rank, and the finest-level vectors it counts */
static PetscErrorCode BrickDeviceBytes(KSP ksp, DM dm, PetscLogDouble *bytes, PetscReal *vectors)
{
  DM_Brick *brick;
  Vec       v;
  PetscInt  n, nksp;
  PetscBool guarded = PETSC_FALSE;
  PetscReal smoother = 2;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  PetscCall(DMGetGlobalVector(dm, &v)); /* the DM's cached vector: no device memory until it is used */
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(DMRestoreGlobalVector(dm, &v));
  PetscCall(BrickKSPVectorCount(ksp, &nksp));
  PetscCall(BrickKSPGuarded(ksp, &guarded));
  PetscCall(BrickSmootherVectors(ksp, &smoother));
  /* the finest level: PCMG's residual and the smoother's work; each coarser level: PCMG's x, b, r and the smoother's */
  *vectors = (PetscReal)(nksp + 2 + (guarded ? 3 : 0)) + 1.0 + smoother + (3.0 + smoother) / ((PetscReal)(1 << brick->dim) - 1.0);
  *bytes   = (PetscLogDouble)(*vectors) * (PetscLogDouble)n * sizeof(PetscScalar);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif

/* Before a solve's first large device allocation: the estimate against the free memory of each GPU, over the ranks
   that share it (collective on the KSP). Once per brick; nothing for host vectors, coarse levels or a build
   without CUDA. */
PetscErrorCode DMBrickCheckDeviceMemory_Private(KSP ksp, DM dm)
{
  DM_Brick *brick;
  PetscBool device;
  DM        fine;

  PetscFunctionBegin;
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  if (!brick->device_memory_check || brick->device_memory_checked) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetFineDM(dm, &fine));
  if (fine) PetscFunctionReturn(PETSC_SUCCESS); /* a level of PCMG's hierarchy: the finest brick's check counted it */
  PetscCall(DMBrickOnDevice_Private(dm, &device));
  if (!device) PetscFunctionReturn(PETSC_SUCCESS);
  brick->device_memory_checked = PETSC_TRUE;
#if defined(VP_HAVE_CUDA)
  {
    MPI_Comm       comm = PetscObjectComm((PetscObject)ksp), node, gpu;
    PetscMPIInt    rank, nshare;
    int            devid, err;
    unsigned char  uuid[16];
    size_t         freeb, totalb;
    PetscLogDouble need = 0, needgpu, freegpu;
    PetscReal      vectors = 0;
    PetscMPIInt    candidate, root;
    double         ratio, worstratio;

    PetscCall(BrickDeviceBytes(ksp, dm, &need, &vectors));
    err = VPCudaMemoryInfo(&devid, uuid, &freeb, &totalb);
    {
      int anyerr; /* every rank stops, not only the one whose query failed (the others would wait below) */
      PetscCallMPI(MPIU_Allreduce(&err, &anyerr, 1, MPI_INT, MPI_MAX, comm));
      PetscCheck(!anyerr, comm, PETSC_ERR_GPU, "CUDA error in VPCudaMemoryInfo on some rank: %s", VPCudaErrorString(anyerr));
    }
    /* ranks of one host on one device (the same UUID: device numbers differ where each rank sees only its own GPU)
       add their needs against the one free figure; the group is named by its lowest rank on the host */
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    {
      PetscMPIInt    nrank, nsize, color = 0;
      unsigned char *all;
      PetscCallMPI(MPI_Comm_rank(node, &nrank));
      PetscCallMPI(MPI_Comm_size(node, &nsize));
      PetscCall(PetscMalloc1(16 * (size_t)nsize, &all));
      PetscCallMPI(MPI_Allgather(uuid, 16, MPI_UNSIGNED_CHAR, all, 16, MPI_UNSIGNED_CHAR, node));
      for (color = 0; color < nsize; color++) {
        PetscBool same;
        PetscCall(PetscMemcmp(all + 16 * (size_t)color, uuid, 16, &same));
        if (same) break;
      }
      PetscCall(PetscFree(all));
      PetscCallMPI(MPI_Comm_split(node, color, nrank, &gpu));
    }
    PetscCallMPI(MPI_Comm_size(gpu, &nshare));
    PetscCallMPI(MPIU_Allreduce(&need, &needgpu, 1, MPI_DOUBLE, MPI_SUM, gpu));
    PetscCallMPI(MPI_Comm_free(&gpu));
    PetscCallMPI(MPI_Comm_free(&node));
    freegpu                  = (PetscLogDouble)freeb;
    brick->device_need_bytes = needgpu;
    brick->device_free_bytes = freegpu;
    PetscCall(PetscInfo(dm, "device %d: the solve needs about %.4g bytes (%.4g finest-level vectors of %.4g bytes on each of %d rank(s) sharing it), %.4g bytes free of %.4g\n", devid, needgpu, (double)vectors, need / (double)vectors, (int)nshare, freegpu, (double)totalb));
    /* every rank learns the fullest device (and its figures) so that all stop together */
    ratio = needgpu / freegpu;
    PetscCallMPI(MPIU_Allreduce(&ratio, &worstratio, 1, MPI_DOUBLE, MPI_MAX, comm));
    candidate = ratio == worstratio ? rank : PETSC_MPI_INT_MAX;
    PetscCallMPI(MPIU_Allreduce(&candidate, &root, 1, MPI_INT, MPI_MIN, comm));
    if (worstratio > 1.0) {
      PetscLogDouble msg[4] = {needgpu, freegpu, (PetscLogDouble)totalb, need / vectors / sizeof(PetscScalar)};
      PetscCallMPI(MPI_Bcast(msg, 4, MPI_DOUBLE, root, comm));
      SETERRQ(comm, PETSC_ERR_MEM,
              "Out of GPU memory: the solve on this brick needs about %.4g bytes on one GPU (%.4g finest-level vectors of %.0f local DoFs in %s precision on each of its ranks), and %.4g bytes are free of %.4g; refine less (-dm_brick_refine), use more GPUs (ranks), a KSP with fewer vectors (-ksp_type cg), or skip this check (-dm_brick_device_memory_check 0)",
              msg[0], (double)vectors, msg[3], PetscDefined(USE_REAL_SINGLE) ? "single" : "double", msg[1], msg[2]);
    }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a solve: what the device holds now beside the free memory the check saw (-info), to measure the estimate */
PetscErrorCode DMBrickReportDeviceMemory_Private(DM dm)
{
  DM_Brick *brick;

  PetscFunctionBegin;
  {
    PetscBool isbrick;
    PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMBRICK, &isbrick));
    if (!isbrick) PetscFunctionReturn(PETSC_SUCCESS); /* the KSP's DM was replaced since */
  }
  PetscCall(DMBrickGetImpl_Private(dm, &brick));
  if (!brick->device_memory_checked || brick->device_free_bytes <= 0) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(VP_HAVE_CUDA)
  {
    int           devid, err;
    unsigned char uuid[16];
    size_t        freeb, totalb;

    err = VPCudaMemoryInfo(&devid, uuid, &freeb, &totalb);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error in VPCudaMemoryInfo: %s", VPCudaErrorString(err));
    PetscCall(PetscInfo(dm, "device %d after the solve: %.4g bytes taken since the memory check (estimate %.4g, ratio %.3f), %.4g bytes free\n", devid, brick->device_free_bytes - (double)freeb, brick->device_need_bytes,
                        (brick->device_free_bytes - (double)freeb) / brick->device_need_bytes, (double)freeb));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A device vector of more than 2^31 - 1 entries on one rank: PETSc 3.22's CUDA vectors hand their length to cuBLAS as
   an int (an "is too big for cuBLAS" error in the first vector operation), and the plugin's kernels index a rank's
   entries with int too. Stops at the vector's creation with the rank count that would do (64-bit PetscInt only:
   with 32-bit indices no length gets there). n: this rank's (ghosted) length; collective on comm. */
PetscErrorCode DMBrickCheckDeviceVectorLength_Private(DM dm, MPI_Comm comm, PetscInt n)
{
  PetscFunctionBegin;
#if defined(PETSC_USE_64BIT_INDICES)
  {
    char       *device;
    PetscInt    nmax;
    PetscMPIInt size;

    PetscCall(PetscStrstr(dm->vectype, "cuda", &device));
    if (!device) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCallMPI(MPIU_Allreduce(&n, &nmax, 1, MPIU_INT, MPI_MAX, comm));
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCheck(nmax <= PETSC_MPI_INT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-dm_vec_type %s: a rank's vector would hold %" PetscInt_FMT " entries, more than the 2^31 - 1 that a CUDA vector of PETSc (its cuBLAS calls) and the plugin's kernels index; use more ranks (GPUs): at least %" PetscInt_FMT " instead of %d", dm->vectype, nmax,
               (PetscInt)((size * (double)nmax) / PETSC_MPI_INT_MAX) + 1, (int)size);
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
