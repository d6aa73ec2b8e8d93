/* PCVERTEXPATCH: vertex-patch Schwarz smoother/preconditioner for the operators of a brick. */
#include "vpimpl.h"

const char *const PCVertexPatchTypes[]        = {"multiplicative", "additive", "PCVertexPatchType", "PC_VERTEXPATCH_", NULL};
const char *const PCVertexPatchLocalSolvers[] = {"fdm", "dense", "separable_dense", "PCVertexPatchLocalSolver", "PC_VERTEXPATCH_", NULL};
const char *const PCVertexPatchResiduals[]    = {"local", "global", "PCVertexPatchResidual", "PC_VERTEXPATCH_RESIDUAL_", NULL};
const char *const PCVertexPatchLocalSpaces[]  = {"full", "dirichlet", "clamped", "PCVertexPatchLocalSpace", "PC_VERTEXPATCH_SPACE_", NULL};
const char *const PCVertexPatchSchedules[]    = {"colored", "single", "batched", "PCVertexPatchSchedule", "PC_VERTEXPATCH_", NULL};
const char *const PCVertexPatchOrderings[]    = {"lexicographic", "zcurve", "hierarchical", "PCVertexPatchOrdering", "PC_VERTEXPATCH_", NULL};
const char *const PCVertexPatchPrecisions[]   = {"double", "single", "PCVertexPatchPrecision", "PC_VERTEXPATCH_", NULL};
const char *const PCVertexPatchGPUKernels[]   = {"auto", "shared", "global", "mma", "PCVertexPatchGPUKernel", "PC_VERTEXPATCH_GPU_KERNEL_", NULL};

/* An enumerated option, read as a string so that a wrong value gets a message listing what is allowed.
   list: the names, then the enum name, the prefix and NULL (PETSc's enum-list convention). */
static PetscErrorCode VPOptionsEnum(PetscOptionItems *PetscOptionsObject, PC pc, const char opt[], const char text[], const char *const list[], PetscEnum current, PetscEnum *value, PetscBool *set)
{
  char      buf[64], allowed[256] = "";
  PetscBool match = PETSC_FALSE;
  PetscInt  n     = 0;

  PetscFunctionBegin;
  while (list[n]) n++;
  n -= 2; /* drop the enum name and the prefix */
  for (PetscInt i = 0; i < n; i++) {
    if (i) PetscCall(PetscStrlcat(allowed, ", ", sizeof(allowed)));
    PetscCall(PetscStrlcat(allowed, list[i], sizeof(allowed)));
  }
  PetscCall(PetscStrncpy(buf, list[current], sizeof(buf)));
  PetscCall(PetscOptionsString(opt, text, "PCVERTEXPATCH", buf, buf, sizeof(buf), set));
  if (!*set) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < n && !match; i++) {
    PetscCall(PetscStrcmp(buf, list[i], &match));
    if (match) *value = (PetscEnum)i;
  }
  PetscCheck(match, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_UNKNOWN_TYPE, "%s %s: unknown value; allowed: %s", opt, buf, allowed);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every option goes through its PCVertexPatchSet* function, which also marks the PC for a new setup when
   a value changes after PCSetUp() */
static PetscErrorCode PCSetFromOptions_VertexPatch(PC pc, PetscOptionItems *PetscOptionsObject)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  PetscEnum       e;
  PetscReal       damping = vp->damping;
  PetscInt        batch = vp->batch_size, threads = vp->threads;
  PetscBool       set, reverse = vp->reverse, simd = vp->simd, evenodd = vp->evenodd, overlap = vp->overlap;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Vertex-patch smoother options");
  PetscCall(VPOptionsEnum(PetscOptionsObject, pc, "-pc_vertexpatch_type", "Subspace correction: multiplicative (colored) or additive", PCVertexPatchTypes, (PetscEnum)vp->type, &e, &set));
  if (set) PetscCall(PCVertexPatchSetType(pc, (PCVertexPatchType)e));
  PetscCall(VPOptionsEnum(PetscOptionsObject, pc, "-pc_vertexpatch_local_solver",
                          "Local solver: fdm (fast diagonalization of the separable part), dense (Cholesky of the exact patch matrix), separable_dense (Cholesky of the separable part: reference for fdm)", PCVertexPatchLocalSolvers,
                          (PetscEnum)vp->solver, &e, &set));
  if (set) PetscCall(PCVertexPatchSetLocalSolver(pc, (PCVertexPatchLocalSolver)e));
  PetscCall(VPOptionsEnum(PetscOptionsObject, pc, "-pc_vertexpatch_residual", "Residual: local (per patch, fused with the solve) or global (one MatMult per color)", PCVertexPatchResiduals, (PetscEnum)vp->residual, &e, &set));
  if (set) PetscCall(PCVertexPatchSetResidual(pc, (PCVertexPatchResidual)e));
  PetscCall(VPOptionsEnum(PetscOptionsObject, pc, "-pc_vertexpatch_local_space",
                          "DG (sipg) only: local space of a patch: full (all values of its cells), dirichlet (without the patch boundary values), clamped (zero value and derivative on the patch boundary)", PCVertexPatchLocalSpaces,
                          (PetscEnum)vp->space, &e, &set));
  if (set) PetscCall(PCVertexPatchSetLocalSpace(pc, (PCVertexPatchLocalSpace)e));
  PetscCall(VPOptionsEnum(PetscOptionsObject, pc, "-pc_vertexpatch_ordering", "Patch ordering: lexicographic, zcurve, hierarchical", PCVertexPatchOrderings, (PetscEnum)vp->ordering, &e, &set));
  if (set) PetscCall(PCVertexPatchSetOrdering(pc, (PCVertexPatchOrdering)e));
  PetscCall(VPOptionsEnum(PetscOptionsObject, pc, "-pc_vertexpatch_precision", "Precision of the patch work: double or single (vectors stay double)", PCVertexPatchPrecisions, (PetscEnum)vp->precision, &e, &set));
  if (set) PetscCall(PCVertexPatchSetPrecision(pc, (PCVertexPatchPrecision)e));
  PetscCall(VPOptionsEnum(
      PetscOptionsObject, pc, "-pc_vertexpatch_gpu_kernel",
      "CUDA smoothing kernel (VECCUDA vectors): shared (patch in shared memory; laplace, 3D c0ip with degree 2..5), mma (as shared, double-precision contractions on the FP64 tensor cores), global (patch in a global scratch; any operator), auto",
      PCVertexPatchGPUKernels, (PetscEnum)vp->gpu_kernel, &e, &set));
  if (set) PetscCall(PCVertexPatchSetGPUKernel(pc, (PCVertexPatchGPUKernel)e));
  {
    PetscInt lines = vp->gpu_lines;
    PetscCall(PetscOptionsInt("-pc_vertexpatch_gpu_lines", "Shared kernel, 3D laplace, degree >= 2: patch lines per thread, 1 or 2 (terms combined), 3 one line with the x step folded at the vertex, 0 the generic one-line kernel, -1 by degree and precision", "PCVertexPatchSetGPULines", lines, &lines, &set));
    if (set) PetscCall(PCVertexPatchSetGPULines(pc, lines));
  }
  e = (PetscEnum)vp->schedule;
  PetscCall(VPOptionsEnum(PetscOptionsObject, pc, "-pc_vertexpatch_schedule", "Order of the multiplicative sweep: colored, single (sequential loop), batched", PCVertexPatchSchedules, (PetscEnum)vp->schedule, &e, &set));
  PetscCall(PetscOptionsInt("-pc_vertexpatch_batch_size", "Patches per batch of the batched schedule", "PCVertexPatchSetSchedule", batch, &batch, NULL));
  PetscCall(PCVertexPatchSetSchedule(pc, (PCVertexPatchSchedule)e, batch));
  PetscCall(PetscOptionsInt("-pc_vertexpatch_threads", "OpenMP threads for the patches of one color (colored schedule) or one batch (batched); 0: default, 1 colored, all batched", "PCVertexPatchSetThreads", threads, &threads, &set));
  if (set) PetscCall(PCVertexPatchSetThreads(pc, threads));
  PetscCall(PetscOptionsBool("-pc_vertexpatch_simd", "CPU steps: run the patches of one color in SIMD groups of one position class (a vector of the build's width: 2 doubles portable, 4 with AVX; colored and batched schedules)",
                             "PCVertexPatchSetSIMD", simd, &simd, &set));
  if (set) PetscCall(PCVertexPatchSetSIMD(pc, simd));
  PetscCall(PetscOptionsBool("-pc_vertexpatch_even_odd", "CPU steps: contractions of interior patches in even-odd form (about half the multiply-adds; the same iterates up to rounding)", "PCVertexPatchSetEvenOdd", evenodd, &evenodd, &set));
  if (set) PetscCall(PCVertexPatchSetEvenOdd(pc, evenodd));
  PetscCall(PetscOptionsReal("-pc_vertexpatch_damping", "Damping of the patch corrections (default: 1 multiplicative, 0.7 for c0ip in 3D; 1/2^d additive, for c0ip limited by 1.8/lambda_max(B A) estimated at setup)", "PCVertexPatchSetDamping",
                             damping, &damping, &set));
  if (set) PetscCall(PCVertexPatchSetDamping(pc, damping));
  PetscCall(PetscOptionsBool("-pc_vertexpatch_reverse", "Sweep colors and patches in reverse order (as post-smoother after a forward pre-smoother: a symmetric V-cycle)", "PCVertexPatchSetReverse", reverse, &reverse, NULL));
  PetscCall(PCVertexPatchSetReverse(pc, reverse));
  PetscCall(PetscOptionsBool("-pc_vertexpatch_overlap", "Several ranks, colored schedule: run the patches away from the shared layers during each color's ghost exchange (false: after it, the whole color at once)", "PCVertexPatchSetOverlap", overlap,
                             &overlap, &set));
  if (set) PetscCall(PCVertexPatchSetOverlap(pc, overlap));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVertexPatchCheckOptions(PC pc, const DM_Brick *brick)
{
  const PetscInt  dim  = brick->dim;
  PC_VertexPatch *vp   = (PC_VertexPatch *)pc->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(vp->type == PC_VERTEXPATCH_MULTIPLICATIVE || vp->schedule == PC_VERTEXPATCH_COLORED, comm, PETSC_ERR_ARG_INCOMP, "-pc_vertexpatch_schedule %s with -pc_vertexpatch_type additive: an additive sweep has no order; allowed: colored",
             PCVertexPatchSchedules[vp->schedule]);
  PetscCheck(vp->schedule == PC_VERTEXPATCH_COLORED || vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL, comm, PETSC_ERR_ARG_INCOMP,
             "-pc_vertexpatch_schedule %s with -pc_vertexpatch_residual global would need a global residual per patch; allowed: -pc_vertexpatch_residual local, or -pc_vertexpatch_schedule colored", PCVertexPatchSchedules[vp->schedule]);
  PetscCheck(vp->schedule == PC_VERTEXPATCH_COLORED || size == 1, comm, PETSC_ERR_SUP, "-pc_vertexpatch_schedule %s runs on one MPI rank only (got %d); allowed in parallel: colored", PCVertexPatchSchedules[vp->schedule], size);
  PetscCheck(vp->solver == PC_VERTEXPATCH_FDM || vp->precision == PC_VERTEXPATCH_DOUBLE, comm, PETSC_ERR_SUP, "-pc_vertexpatch_local_solver %s is double precision only; with -pc_vertexpatch_precision single use -pc_vertexpatch_local_solver fdm",
             PCVertexPatchLocalSolvers[vp->solver]);
  vp->omega = vp->damping > 0 ? vp->damping : (vp->type == PC_VERTEXPATCH_MULTIPLICATIVE ? brick->op.multiplicative_damping[dim] : brick->op.additive_damping[dim]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The work vectors of the host sweeps, of several ranks and of the global residual, made when first needed: the one-rank
   GPU step with local residuals works in place and does not need them (four vectors of the level's size, 23 GB at 717M
   DoFs, that a large problem cannot spare on one GPU). */
PetscErrorCode PCVertexPatchGetWorkVectors(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCVertexPatchGetSweepVectors(pc));
  if (!vp->dl) PetscCall(VecDuplicate(vp->xl, &vp->dl));
  if (!vp->r) PetscCall(DMCreateGlobalVector(vp->dm, &vp->r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the two local vectors of the in-place several-rank multiplicative sweep (iterate and right-hand side with ghosts), of
   the four above: at 5e8 DoFs per GPU the other two would be 8 GB that this sweep never touches */
PetscErrorCode PCVertexPatchGetSweepVectors(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  if (!vp->xl) PetscCall(DMCreateLocalVector(vp->dm, &vp->xl));
  if (!vp->bl) PetscCall(VecDuplicate(vp->xl, &vp->bl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ghosted local vector the several-rank in-place sweep works in for the global vector g: g's in-place local where
   the brick stores g so (-dm_brick_slabs), else the smoother's own (bl for a right-hand side, xl for an iterate) */
PetscErrorCode PCVertexPatchSweepLocal(PC pc, Vec g, PetscBool rhs, Vec *l)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  PetscCall(DMBrickGetInPlaceLocal_Private(vp->dm, g, l));
  if (*l) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCVertexPatchGetSweepVectors(pc));
  *l = rhs ? vp->bl : vp->xl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   PCVertexPatchLocalRHS - bl = the ghosted local form of b (PCVertexPatchSweepLocal(): b's in-place local or the
   smoother's own, filled by a global-to-local with its ghost exchange), unless bl already holds this very b unchanged
   on every rank: same vector and object state, and bl itself not written since. A V-cycle's post-smoothing on a level
   has its pre-smoothing's right-hand side, so on several ranks each level and V-cycle saves one ghost exchange (and,
   without in-place storage, one copy of the level). Collective on the brick.
*/
PetscErrorCode PCVertexPatchLocalRHS(PC pc, Vec b, Vec *bl)
{
  PC_VertexPatch  *vp = (PC_VertexPatch *)pc->data;
  PetscObjectId    bid, blid;
  PetscObjectState bstate, blstate;

  PetscFunctionBegin;
  PetscCall(PCVertexPatchSweepLocal(pc, b, PETSC_TRUE, bl));
  PetscCall(PetscObjectGetId((PetscObject)b, &bid));
  PetscCall(PetscObjectStateGet((PetscObject)b, &bstate));
  PetscCall(PetscObjectGetId((PetscObject)*bl, &blid));
  PetscCall(PetscObjectStateGet((PetscObject)*bl, &blstate));
  {
    /* decided on all ranks together: b may have changed on some ranks only, and the global-to-local is collective */
    PetscBool same = (PetscBool)(bid == vp->blof && bstate == vp->blofstate && blid == vp->blid && blstate == vp->blstate), all;
    PetscCallMPI(MPIU_Allreduce(&same, &all, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)vp->dm)));
    if (all) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMGlobalToLocal(vp->dm, b, INSERT_VALUES, *bl));
  vp->blof      = bid;
  vp->blofstate = bstate;
  vp->blid      = blid;
  PetscCall(PetscObjectStateGet((PetscObject)*bl, &vp->blstate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_VertexPatch(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  DM              dm = pc->dm;
  DM_Brick       *brick;
  PetscBool       isbrick;
  PetscInt        nglobal, n, N;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_VertexPatchSetUp, pc, 0, 0, 0));
  if (!dm) PetscCall(MatGetDM(pc->pmat, &dm));
  PetscCheck(dm, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCVERTEXPATCH needs the brick (DMBRICK) of its operator: call KSPSetDM() or PCSetDM() with the brick, or use an operator from DMCreateMatrix() of a brick");
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMBRICK, &isbrick));
  PetscCheck(isbrick, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCVERTEXPATCH works on the operators of a brick (DMBRICK), not on a DM of type %s", ((PetscObject)dm)->type_name);
  brick = (DM_Brick *)dm->data;
  PetscCheck(brick->op.kronecker || brick->op.dgline, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVERTEXPATCH: -dm_brick_operator %s has no Kronecker form; allowed: laplace, c0ip, sipg", brick->opname);
  PetscCall(MatGetSize(pc->pmat, &N, NULL));
  PetscCall(MatGetLocalSize(pc->pmat, &n, NULL));
  {
    Vec v;
    PetscCall(DMGetGlobalVector(dm, &v));
    PetscCall(VecGetSize(v, &nglobal));
    PetscCall(DMRestoreGlobalVector(dm, &v));
  }
  PetscCheck(nglobal == N, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "PCVERTEXPATCH: the operator has %" PetscInt_FMT " rows but the brick %" PetscInt_FMT " DoFs; the operator must be the brick's", N, nglobal);
  {
    /* the patch problems are built from the brick's operator, not from Pmat's entries: Pmat must be it */
    PetscObject owner;
    PetscCall(PetscObjectQuery((PetscObject)pc->pmat, "DMBrick_operator_of", &owner));
    PetscCheck(owner == (PetscObject)dm, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP,
               "PCVERTEXPATCH: the preconditioning matrix must be the brick's own operator (DMCreateMatrix() or DMBrickCreateOperator()); the smoother builds its patch problems from the brick, not from the matrix entries");
  }
  PetscCall(PCVertexPatchCheckOptions(pc, brick));
  PetscCheck(brick->cells[0] > 1 && brick->cells[1] > 1 && (brick->dim == 2 || brick->cells[2] > 1), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "PCVERTEXPATCH: the brick on level %" PetscInt_FMT " has a single cell along some direction, hence no interior vertex and no patch; use at least 2 cells per direction (-dm_brick_cells; -dm_brick_coarsen_below 0 keeps that grid the coarsest, e.g. for a patch sweep as the coarse solve; or fewer -pc_mg_levels)", brick->level);

  if (vp->dm != dm) {
    if (vp->dm) PetscCall(DMBrickClearLocalMirror_Private(vp->dm, vp->xl));
    PetscCall(VecDestroy(&vp->xl));
    PetscCall(VecDestroy(&vp->bl));
    PetscCall(VecDestroy(&vp->dl));
    PetscCall(VecDestroy(&vp->r));
    PetscCall(DMDestroy(&vp->dm));
    PetscCall(PetscObjectReference((PetscObject)dm));
    vp->dm = dm;
  }
  PetscCheck(vp->space == PC_VERTEXPATCH_SPACE_FULL || brick->family == DMBRICK_DG, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP,
             "-pc_vertexpatch_local_space %s needs a DG brick (-dm_brick_operator sipg); -dm_brick_operator %s has the patch interior as its only local space; allowed: full (the default)", PCVertexPatchLocalSpaces[vp->space], brick->opname);
  vp->forest = PETSC_FALSE;
  if (brick->forest && brick->family != DMBRICK_DG) { /* a DG forest: the DG smoother, with the forest's patches */
    PetscCall(PCVertexPatchSetUpForest(pc));
    PetscCall(PetscLogEventEnd(PC_VertexPatchSetUp, pc, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (brick->family == DMBRICK_DG) {
    PetscCall(PCVertexPatchSetUpDG(pc));
    PetscCall(PetscLogEventEnd(PC_VertexPatchSetUp, pc, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCVertexPatchDestroyGPU(pc));           /* remade from the new patch operator and order at the next GPU step */
  PetscCall(PCVertexPatchDestroyGhostExchange(pc)); /* and the colors' ghost pushes at the next several-rank host step */
  PetscCall(PCVertexPatchSetUpPatchOperator(pc));
  PetscCall(PCVertexPatchSetUpEvenOdd(pc));
  PetscCall(PetscLogEventBegin(PC_VertexPatchSchedule, pc, 0, 0, 0));
  PetscCall(PCVertexPatchSetUpSchedule(pc));
  {
    /* the host steps' flops for -log_view: per patch in the form its kernels use (even-odd for interior classes); the
       flops of the 3^dim position classes once, times the patches of each class. The owned patches are a box of
       vertices and a class a product of classes per direction, so the counts are products of counts per direction. */
    PetscLogDouble sum = 0, count[3][3] = {{0}};
    for (PetscInt d = 0; d < 3; d++) {
      if (d >= brick->dim) count[d][0] = 1;
      else if (vp->npatches)
        for (PetscInt v = PetscMax(brick->cstart[d], 1); v <= PetscMin(brick->cend[d], brick->cells[d]) - 1; v++) count[d][PCVertexPatchClass(v, brick->cells[d])]++;
    }
    for (int c = 0; c < (brick->dim == 3 ? 27 : 9); c++) {
      const int cls[3] = {c % 3, (c / 3) % 3, c / 9};
      if (count[0][cls[0]] * count[1][cls[1]] * count[2][cls[2]] > 0) sum += count[0][cls[0]] * count[1][cls[1]] * count[2][cls[2]] * PCVertexPatchFlops(vp, cls);
    }
    vp->host_flops_per_patch = vp->npatches ? sum / vp->npatches : vp->flops_per_patch;
  }
  PetscCall(PetscLogEventEnd(PC_VertexPatchSchedule, pc, 0, 0, 0));
  {
    const PetscBool shared = (PetscBool)VPCudaSmootherSharedSupported(&vp->op_d, (int)brick->op.ghost_cells, (int)brick->degree);
    const PetscBool mma    = (PetscBool)VPCudaSmootherMmaSupported(&vp->op_d, (int)brick->op.ghost_cells, (int)brick->degree);
    PetscCheck(shared || vp->gpu_kernel != PC_VERTEXPATCH_GPU_KERNEL_SHARED, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "-pc_vertexpatch_gpu_kernel shared handles laplace (one ghost cell) and c0ip in 3D with -dm_brick_degree 2..5; -dm_brick_operator %s, dimension %" PetscInt_FMT ", degree %" PetscInt_FMT ": allowed: global, auto", brick->opname,
               brick->dim, brick->degree);
    PetscCheck(mma || vp->gpu_kernel != PC_VERTEXPATCH_GPU_KERNEL_MMA, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "-pc_vertexpatch_gpu_kernel mma needs a patch closure of the patch cells alone (one ghost cell: laplace); -dm_brick_operator %s has %" PetscInt_FMT "; allowed: %s, auto", brick->opname, brick->op.ghost_cells,
               shared ? "shared, global" : "global");
    vp->gpu_shared = (PetscBool)(shared && vp->gpu_kernel != PC_VERTEXPATCH_GPU_KERNEL_GLOBAL);
    vp->gpu_mma    = (PetscBool)(vp->gpu_kernel == PC_VERTEXPATCH_GPU_KERNEL_MMA);
  }
  /* threads for the patches of one color or batch, which touch disjoint nodes: same result for every count */
  vp->nthreads = 1;
#if defined(_OPENMP)
  if (vp->schedule == PC_VERTEXPATCH_BATCHED) vp->nthreads = vp->threads > 0 ? vp->threads : omp_get_max_threads();
  if (vp->schedule == PC_VERTEXPATCH_COLORED && vp->threads > 0) vp->nthreads = vp->threads;
#endif
  PetscCall(PetscFree(vp->work));
  PetscCall(PetscMalloc1(vp->nthreads * PCVertexPatchWorkSize(vp), &vp->work));
  PetscCall(PCVertexPatchSetUpLanes(vp, PETSC_FALSE)); /* the SIMD groups of the host steps: below, or at the first host step */
  PetscCall(PCVertexPatchEstimateDamping(pc));
  PetscCall(PCVertexPatchSetUpGPU(pc));
  {
    PetscBool device;
    PetscCall(DMBrickOnDevice_Private(dm, &device));
    if (!device) { /* GPU levels keep theirs lazy: they may not need them at all */
      PetscCall(PCVertexPatchSetUpLanes(vp, PETSC_TRUE));
      PetscCall(PCVertexPatchSetUpHostWork(pc));
    }
  }
  PetscCall(PetscLogEventEnd(PC_VertexPatchSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_VertexPatch(PC pc, Vec r, Vec y)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  if (vp->type == PC_VERTEXPATCH_MULTIPLICATIVE) PetscCall(vp->forest ? PCVertexPatchSmoothForest(pc, r, y, PETSC_TRUE) : vp->dg ? PCVertexPatchSmoothDG(pc, r, y, PETSC_TRUE) : PCVertexPatchSmooth(pc, r, y, PETSC_TRUE));
  else {
    PetscCall(VecZeroEntries(y));
    PetscCall(vp->forest ? PCVertexPatchAdditiveForest(pc, r, NULL, y) : vp->dg ? PCVertexPatchAdditiveDG(pc, r, NULL, y) : PCVertexPatchAdditive(pc, r, NULL, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* its smoothing steps from the current iterate y, each forming its residual inside the sweep */
static PetscErrorCode PCApplyRichardson_VertexPatch(PC pc, Vec b, Vec y, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < its; i++) {
    const PetscBool zero = (PetscBool)(guesszero && i == 0);
    if (vp->type == PC_VERTEXPATCH_MULTIPLICATIVE) PetscCall(vp->forest ? PCVertexPatchSmoothForest(pc, b, y, zero) : vp->dg ? PCVertexPatchSmoothDG(pc, b, y, zero) : PCVertexPatchSmooth(pc, b, y, zero));
    else {
      if (zero) PetscCall(VecZeroEntries(y));
      PetscCall(VecZeroEntries(w));
      PetscCall(vp->forest ? PCVertexPatchAdditiveForest(pc, b, zero ? NULL : y, w) : vp->dg ? PCVertexPatchAdditiveDG(pc, b, zero ? NULL : y, w) : PCVertexPatchAdditive(pc, b, zero ? NULL : y, w));
      PetscCall(VecAXPY(y, 1.0, w));
    }
  }
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_VertexPatch(PC pc, PetscViewer viewer)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;
  PetscBool       isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (vp->dg) {
    PetscCall(PCVertexPatchViewDG(pc, viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %s vertex-patch Schwarz, local solver %s, %s residual, damping %g", PCVertexPatchTypes[vp->type], PCVertexPatchLocalSolvers[vp->solver], PCVertexPatchResiduals[vp->residual],
                                   (double)(vp->damping > 0 ? vp->damping : vp->omega)));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  if (vp->lambda_max > 0) PetscCall(PetscViewerASCIIPrintf(viewer, " = min(%g, 1.8/lambda_max(B A)), lambda_max(B A) estimated %.4g at setup", (double)vp->omega_default, (double)vp->lambda_max));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  if (vp->forest) {
    const PetscInt ni = vp->op_d.ni, np = vp->op_d.ne, dim = vp->op_d.dim;
    PetscInt       total;
    PetscCallMPI(MPI_Allreduce(&vp->npatches, &total, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
    PetscBool device;
    char      where[128];
    PetscCall(DMBrickOnDevice_Private(vp->dm, &device));
    if (device && vp->forestc0ip) PetscCall(PetscSNPrintf(where, sizeof(where), "GPU (the c0ip patch kernel: one block a patch, its pattern's solver)"));
    else if (device) {
      /* which kernel runs the steps of the smoother's precision (known once the smoother ran or was set up on the device) */
#if defined(VP_HAVE_CUDA)
      const int lines = vp->forestgpu ? VPCudaForestSmootherKernel((VPCudaForestSmoother)vp->forestgpu, vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION) : -1;
#else
      const int lines = -1;
#endif
      if (!vp->forestgpu) PetscCall(PetscSNPrintf(where, sizeof(where), "GPU (table addressing; the kernel is chosen at set-up)"));
      else if (lines > 0) PetscCall(PetscSNPrintf(where, sizeof(where), "GPU (pair kernel, %s, table addressing)", lines == 3 ? "one line a thread, folded x step" : (lines == 2 ? "two lines a thread" : "one line a thread")));
      else PetscCall(PetscSNPrintf(where, sizeof(where), "GPU (%s kernel, table addressing)", lines == 0 ? "shared-memory" : "generic"));
    }
    else if (vp->nlanes > 1) PetscCall(PetscSNPrintf(where, sizeof(where), "host, SIMD groups of %" PetscInt_FMT " patches", vp->nlanes));
    else PetscCall(PetscSNPrintf(where, sizeof(where), "host, one patch at a time"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  on a p4est forest: %" PetscInt_FMT " patches (interior vertices) in %" PetscInt_FMT " color(s), %" PetscInt_FMT " interior / %" PetscInt_FMT " closure DoFs per patch, read through the forest's cell-node table; precision %s%s; %s, %d MPI rank(s)\n", total,
                                     vp->ncolors, dim == 3 ? ni * ni * ni : ni * ni, dim == 3 ? np * np * np : np * np, PCVertexPatchPrecisions[vp->precision], vp->reverse ? ", reverse color order" : "", where, ((DM_Brick *)vp->dm->data)->nactive));
    if (vp->forestc0ip) {
      /* C0IP: how the patches solve (vpforestc0ip.c), summed over the ranks */
      const VPForestC0IP *fc = vp->forestc0ip;
      const PetscInt      n  = dim == 3 ? ni * ni * ni : ni * ni;
      PetscInt            loc[3] = {fc->nmixed, 0, 0}, sum[3], maxp;
      for (PetscInt q = 0; q < fc->npatterns; q++)
        if (fc->factor[q]) loc[1]++;
      loc[2] = fc->npatterns;
      PetscCallMPI(MPI_Allreduce(loc, sum, 3, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
      PetscCallMPI(MPI_Allreduce(&fc->npatterns, &maxp, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)pc)));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  c0ip patches by their pattern of boundary outer faces: %" PetscInt_FMT " separable (%s by position class), %" PetscInt_FMT " mixed (next to re-entrant edges, or both sides on the boundary: the exact dense factor); %" PetscInt_FMT " dense factors over the ranks (at most %" PetscInt_FMT " patterns on one, %.2f MB each); %s\n",
                                       total - sum[0], vp->solver == PC_VERTEXPATCH_FDM ? "fast diagonalization" : "exact dense factor", sum[0], sum[1], maxp, 8.0 * n * n / 1048576.0,
                                       vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL ? "each patch's local residual from its cells and their face neighbours (two ghost layers on several ranks)" : "the global residual (one MatMult a color)"));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  schedule %s, ordering %s", PCVertexPatchSchedules[vp->schedule], PCVertexPatchOrderings[vp->ordering]));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  if (vp->schedule == PC_VERTEXPATCH_BATCHED) PetscCall(PetscViewerASCIIPrintf(viewer, ", batch size %" PetscInt_FMT " (%" PetscInt_FMT " thread(s))", vp->batch_size, vp->nthreads));
  if (vp->schedule == PC_VERTEXPATCH_COLORED && vp->dm) PetscCall(PetscViewerASCIIPrintf(viewer, ", %" PetscInt_FMT " OpenMP thread(s) per color", vp->nthreads));
  PetscCall(PetscViewerASCIIPrintf(viewer, ", precision %s%s", PCVertexPatchPrecisions[vp->precision], vp->reverse ? ", reverse order" : ""));
#if defined(VP_HAVE_CUDA)
  if (vp->dm) PetscCall(PetscViewerASCIIPrintf(viewer, ", GPU kernel %s", vp->gpu_mma ? "mma (float steps: shared)" : (vp->gpu_shared ? "shared" : "global")));
  else PetscCall(PetscViewerASCIIPrintf(viewer, ", GPU kernel %s", PCVertexPatchGPUKernels[vp->gpu_kernel]));
  if (vp->gpu) {
    /* the 3D laplace shared kernel: its lines per thread in the steps of the precision in use */
    const int lines = VPCudaSmootherGetLines((VPCudaSmoother)vp->gpu, vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION);
    if (lines == 3) PetscCall(PetscViewerASCIIPrintf(viewer, " (terms combined, 1 line per thread, x step folded at the vertex)"));
    else if (lines > 0) PetscCall(PetscViewerASCIIPrintf(viewer, " (terms combined, %d line%s per thread)", lines, lines > 1 ? "s" : ""));
    else if (lines == 0) PetscCall(PetscViewerASCIIPrintf(viewer, " (generic one-line kernel)"));
    if (VPCudaSmootherMmaWarp((VPCudaSmoother)vp->gpu)) PetscCall(PetscViewerASCIIPrintf(viewer, " (double steps: one patch per warp)"));
  }
#endif
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  if (vp->dm && vp->split && vp->type == PC_VERTEXPATCH_MULTIPLICATIVE && vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL) {
    /* the overlap the several-rank sweep has: per color, the patches away from the shared layers run during its
       exchange (this rank's counts: an ASCII viewer prints the first rank's) */
    PetscInt shared = 0;
    for (PetscInt c = 0; c < vp->ncolors; c++) shared += vp->batchptr[c * (vp->nbatches + 1) + 1] - vp->colorptr[c];
    PetscCall(PetscViewerASCIIPrintf(viewer, "  several ranks: %" PetscInt_FMT " of the %" PetscInt_FMT " patches of the first rank reach the shared layers and run before each color's ghost exchange, the others during it\n", shared, vp->npatches));
  } else if (vp->dm && !vp->overlap && !vp->dg && vp->schedule == PC_VERTEXPATCH_COLORED && vp->type == PC_VERTEXPATCH_MULTIPLICATIVE && vp->residual == PC_VERTEXPATCH_RESIDUAL_LOCAL && ((DM_Brick *)vp->dm->data)->nactive > 1)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  several ranks: each color's ghost exchange after all its patches (-pc_vertexpatch_overlap false)\n"));
  if (vp->dm && vp->nlanes > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  CPU steps in SIMD groups of %" PetscInt_FMT " patches of one position class (%s)\n", vp->nlanes, BrickSIMDInstructionSet()));
  if (vp->dm && vp->eo_d) {
    PetscInt nres = 0, nfdm = 0;
    for (PetscInt d = 0; d < vp->op_d.dim; d++) {
      nfdm += vp->eo_d->fdm[d];
      for (PetscInt a = 0; a < BRICK_LINE_NKINDS; a++) nres += vp->eo_d->res[a][d];
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  CPU steps of interior patches in even-odd form: %" PetscInt_FMT " residual and %" PetscInt_FMT " eigenvector 1D matrices (-pc_vertexpatch_even_odd)\n", nres, nfdm));
  } else if (vp->dm) PetscCall(PetscViewerASCIIPrintf(viewer, "  CPU steps with the full 1D matrices (%s)\n", vp->evenodd ? "no interior patch has the even-odd form" : "-pc_vertexpatch_even_odd false"));
  if (vp->dm) {
    const PetscInt ni = vp->op_d.ni, np = vp->op_d.ne, dim = vp->op_d.dim;
    PetscInt       total;
    PetscCallMPI(MPI_Allreduce(&vp->npatches, &total, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " patches in %" PetscInt_FMT " color(s), %" PetscInt_FMT " interior / %" PetscInt_FMT " closure DoFs per patch\n", total, vp->ncolors, dim == 3 ? ni * ni * ni : ni * ni,
                                     dim == 3 ? np * np * np : np * np));
    if (vp->vertex) PetscCall(PetscViewerASCIIPrintf(viewer, "  processing order: a list of the first rank's %" PetscInt_FMT " patches (-pc_vertexpatch_ordering %s)\n", vp->npatches, PCVertexPatchOrderings[vp->ordering]));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  processing order: %" PetscInt_FMT " lattice box(es) on the first rank, vertices by index arithmetic (no per-patch array)\n", vp->nbox));
    {
      PetscBool device;
      PetscCall(DMBrickOnDevice_Private(vp->dm, &device));
      PetscCall(
          PetscViewerASCIIPrintf(viewer, "  smoothing runs on the %s in %s, on %d MPI rank(s) of this level\n", device ? "GPU" : "host", vp->precision == PC_VERTEXPATCH_SINGLE_PRECISION ? "float" : "double", ((DM_Brick *)vp->dm->data)->nactive));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_VertexPatch(PC pc)
{
  PC_VertexPatch *vp = (PC_VertexPatch *)pc->data;

  PetscFunctionBegin;
  if (vp->dm) PetscCall(DMBrickClearLocalMirror_Private(vp->dm, vp->xl));
  PetscCall(VecDestroy(&vp->xl));
  PetscCall(VecDestroy(&vp->bl));
  PetscCall(VecDestroy(&vp->dl));
  PetscCall(VecDestroy(&vp->r));
  PetscCall(PCVertexPatchDestroyGhostExchange(pc));
  PetscCall(DMDestroy(&vp->dm));
  PetscCall(PetscFree(vp->vertex));
  PetscCall(PetscFree(vp->box));
  PetscCall(PetscFree(vp->colorptr));
  PetscCall(PetscFree(vp->batchptr));
  for (PetscInt i = 0; i < 27; i++) PetscCall(PetscFree(vp->dense[i]));
  PetscCall(PetscFree(vp->work));
  PetscCall(PetscFree(vp->lanework_alloc));
  PetscCall(PetscFree(vp->eo_d));
  PetscCall(PetscFree(vp->eo_f));
  vp->lanework = NULL;
  vp->nlanes   = 1;
  vp->lanes_ready = PETSC_FALSE;
  PetscCall(PCVertexPatchDestroyGPU(pc));
  PetscCall(PCVertexPatchDestroyForest(pc));
  PetscCall(PCVertexPatchDestroyForestC0IP(pc));
  PetscCall(PCVertexPatchDestroyDG(pc));
  vp->npatches = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_VertexPatch(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_VertexPatch(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVertexPatchGetPrecision_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCVERTEXPATCH = "vertexpatch" - vertex-patch Schwarz smoother for the operators of a brick (DMBRICK):
   every interior vertex defines a patch of the 2^d cells around it; a local problem on the patch interior
   is solved (fast diagonalization of the separable part of the patch matrix, or a dense Cholesky factor)
   and added to the iterate, patch after patch (multiplicative, in colors of independent patches: 2^d for
   laplace, 2^(d+1) red-black for c0ip, whose residual reads the face neighbours of a patch) or all at
   once (additive, damped). Works for every brick operator with a Kronecker form (laplace, c0ip) and for the DG
   operator sipg, whose patches are the 2^d cells with one of three local spaces (-pc_vertexpatch_local_space).

   Options Database Keys:
+  -pc_vertexpatch_type <multiplicative,additive>     - subspace correction
.  -pc_vertexpatch_local_solver <fdm,dense,separable_dense> - local solver: fast diagonalization of the separable part
                                                       (exact for laplace, seed 000 eq. 28/29 for c0ip), Cholesky of the exact
                                                       patch matrix, or Cholesky of the separable part (the reference of fdm)
.  -pc_vertexpatch_damping <w>                        - damping (default 1 multiplicative (0.7 for c0ip in 3D), 1/2^d additive; for
                                                       c0ip the additive default is limited by 1.8/lambda_max(B A), estimated at setup)
.  -pc_vertexpatch_residual <local,global>            - residual per patch inside the sweep, or one MatMult per color
.  -pc_vertexpatch_local_space <full,dirichlet,clamped> - DG (sipg) only [CK24]: all values of the patch cells (residual
                                                       global per color), without the patch boundary values, or zero value
                                                       and derivative on the patch boundary (both: residual from the patch cells)
.  -pc_vertexpatch_schedule <colored,single,batched>  - colored sweep, sequential loop, batches of colors (one rank)
.  -pc_vertexpatch_batch_size <n>                     - patches per batch (batched schedule; OpenMP threads inside a batch)
.  -pc_vertexpatch_overlap <bool>                     - several ranks, colored schedule: each color's ghost exchange runs while the
                                                        patches away from the shared layers are smoothed (default true)
.  -pc_vertexpatch_threads <n>                        - OpenMP threads for the patches of one color (colored schedule, CPU steps;
                                                       default 1) or of one batch (batched; default all); the result does not
                                                       depend on n
.  -pc_vertexpatch_simd <bool>                        - CPU steps of the colored and batched schedules: the patches of one color
                                                       in groups of one position class, one patch per SIMD lane (2 doubles in the
                                                       portable build, 4 with AVX; twice that in float; default true); the
                                                       same result as one patch at a time
.  -pc_vertexpatch_even_odd <bool>                    - CPU steps: the contractions of interior patches in even-odd form (about half
                                                       the multiply-adds; the same iterates up to rounding; default true)
.  -pc_vertexpatch_ordering <lexicographic,zcurve,hierarchical> - patch order
.  -pc_vertexpatch_precision <double,single>          - precision of the patch work (vectors stay double)
.  -pc_vertexpatch_gpu_kernel <auto,shared,global,mma> - CUDA smoothing kernel with VECCUDA vectors: the patch in shared memory
                                                       with conflict-free access (laplace, and c0ip in 3D with degree 2..5; auto
                                                       picks it where it applies), the
                                                       same with the double-precision contractions as FP64 tensor-core products
                                                       (mma; compute capability 8.0 or newer; one patch per warp for the 3D
                                                       Laplacian of degree 2, 3, per block otherwise; float steps use shared), or the
                                                       patch in a per-block scratch in global memory (any operator)
-  -pc_vertexpatch_gpu_lines <n>                      - shared kernel, 3D laplace with degree 2..8: lines of the patch per thread,
                                                       1 or 2 (each load then feeds two FMAs; both combine the three terms before
                                                       the z contractions), 3 one line on (2k-1)^2 threads a patch with the x step
                                                       split at the vertex (the zeros of the 1D matrices skipped), 0 the generic
                                                       one-line kernel, -1 (default) the one measured fastest for the degree and
                                                       precision on an H100

   Notes:
   As a multigrid smoother use -mg_levels_ksp_type richardson -mg_levels_pc_type vertexpatch: the
   Richardson iteration then calls the smoother's own sweep (PCApplyRichardson), which forms residuals
   patch by patch from the current iterate. PCApply() is one sweep from a zero initial guess. The
   multiplicative smoother is not symmetric: use FGMRES or GMRES around it, not CG (or a symmetric V-cycle with
   -pc_mg_distinct_smoothup -mg_levels_up_pc_vertexpatch_reverse: with KSPSetDM() on a brick the up smoothers take the
   down smoothers' types from the options; elsewhere PETSc's up smoothers read only -mg_levels_up_* options, so add
   -mg_levels_up_ksp_type richardson -mg_levels_up_ksp_max_it 1 -mg_levels_up_pc_type vertexpatch); in single precision the V-cycle is not a
   fixed linear operator, so use a flexible method (FGMRES, GCR, FCG) or one that updates its residual with A (CG,
   Richardson): a KSP that solves with the brick (KSPSetDM()) refuses GMRES, BiCGStab and the like with such a
   preconditioner, naming these options (see `DMBrickSetVerifyConvergence()`). On a grid with a single
   interior vertex (2^d cells) one sweep is an exact solve, so it also serves as the coarse solver.

   Level: intermediate

.seealso: `DMBRICK`, `PCMG`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_VertexPatch(PC pc)
{
  PC_VertexPatch *vp;

  PetscFunctionBegin;
  PetscCall(PetscNew(&vp));
  vp->type       = PC_VERTEXPATCH_MULTIPLICATIVE;
  vp->solver     = PC_VERTEXPATCH_FDM;
  vp->residual   = PC_VERTEXPATCH_RESIDUAL_LOCAL;
  vp->schedule   = PC_VERTEXPATCH_COLORED;
  vp->ordering   = PC_VERTEXPATCH_LEXICOGRAPHIC;
  vp->precision  = PC_VERTEXPATCH_DOUBLE;
  vp->damping    = -1.0;
  vp->batch_size = 1024;
  vp->gpu_lines  = -1;
  vp->simd       = PETSC_TRUE;
  vp->evenodd    = PETSC_TRUE;
  vp->overlap    = PETSC_TRUE;
  vp->nlanes     = 1;
  pc->data       = vp;

  pc->ops->setup           = PCSetUp_VertexPatch;
  pc->ops->apply           = PCApply_VertexPatch;
  pc->ops->applyrichardson = PCApplyRichardson_VertexPatch;
  pc->ops->setfromoptions  = PCSetFromOptions_VertexPatch;
  pc->ops->view            = PCView_VertexPatch;
  pc->ops->reset           = PCReset_VertexPatch;
  pc->ops->destroy         = PCDestroy_VertexPatch;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVertexPatchGetPrecision_C", PCVertexPatchGetPrecision_VertexPatch));
  PetscFunctionReturn(PETSC_SUCCESS);
}
