/* Programmatic counterparts of the -pc_vertexpatch_* options. Each is a no-op on a PC of another type (as
   PETSc's PCXXXSet functions are); a change after PCSetUp() makes the next application set up again. */
#include "vpimpl.h"
#include <stddef.h>

/* the data of a vertex-patch PC, or NULL for a PC of another type */
static PetscErrorCode VPGetData(PC pc, PC_VertexPatch **vp)
{
  PetscBool is;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCVERTEXPATCH, &is));
  *vp = is ? (PC_VertexPatch *)pc->data : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* marks the PC for a new setup when a setting changed after the last one */
static void VPChanged(PC pc, PetscBool changed)
{
  if (changed && pc->setupcalled) pc->setupcalled = 0;
}

/* sets the enum field at byte offset `offset` of the PC data, checking the value against the names of
   `list` (PETSc's enum-list convention: names, enum name, prefix, NULL) */
static PetscErrorCode VPSetEnum(PC pc, size_t offset, PetscEnum value, const char *const list[])
{
  PC_VertexPatch *vp = NULL;
  PetscEnum      *field;
  PetscInt        n = 0;

  PetscFunctionBegin;
  PetscCall(VPGetData(pc, &vp));
  if (!vp) PetscFunctionReturn(PETSC_SUCCESS);
  while (list[n]) n++;
  n -= 2;
  PetscCheck((int)value >= 0 && (PetscInt)(int)value < n, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %d: out of range; allowed 0..%" PetscInt_FMT " (%s ... %s)", list[n], (int)value, n - 1, list[0], list[n - 1]);
  field = (PetscEnum *)((char *)vp + offset);
  VPChanged(pc, (PetscBool)(*field != value));
  *field = value;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sets the PetscBool field at byte offset `offset` of the PC data (a changed value redoes the set-up) */
static PetscErrorCode VPSetBool(PC pc, size_t offset, PetscBool value)
{
  PC_VertexPatch *vp = NULL;
  PetscBool      *field;

  PetscFunctionBegin;
  PetscCall(VPGetData(pc, &vp));
  if (!vp) PetscFunctionReturn(PETSC_SUCCESS);
  field = (PetscBool *)((char *)vp + offset);
  VPChanged(pc, (PetscBool)(*field != value));
  *field = value;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetType - multiplicative or additive subspace correction (-pc_vertexpatch_type)

   Logically Collective

   Level: intermediate

.seealso: `PCVERTEXPATCH`
@*/
PetscErrorCode PCVertexPatchSetType(PC pc, PCVertexPatchType type)
{
  PetscFunctionBegin;
  PetscCall(VPSetEnum(pc, offsetof(PC_VertexPatch, type), (PetscEnum)type, PCVertexPatchTypes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetLocalSolver - fast diagonalization of the separable part, dense Cholesky of the exact patch matrix, or dense Cholesky of the separable part on each patch (-pc_vertexpatch_local_solver fdm|dense|separable_dense)

   Logically Collective

   Level: intermediate

.seealso: `PCVERTEXPATCH`
@*/
PetscErrorCode PCVertexPatchSetLocalSolver(PC pc, PCVertexPatchLocalSolver solver)
{
  PetscFunctionBegin;
  PetscCall(VPSetEnum(pc, offsetof(PC_VertexPatch, solver), (PetscEnum)solver, PCVertexPatchLocalSolvers));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetResidual - residuals per patch inside the sweep, or one global product per color (-pc_vertexpatch_residual)

   Logically Collective

   Level: intermediate

.seealso: `PCVERTEXPATCH`
@*/
PetscErrorCode PCVertexPatchSetResidual(PC pc, PCVertexPatchResidual residual)
{
  PC_VertexPatch *vp = NULL;

  PetscFunctionBegin;
  PetscCall(VPSetEnum(pc, offsetof(PC_VertexPatch, residual), (PetscEnum)residual, PCVertexPatchResiduals));
  PetscCall(VPGetData(pc, &vp));
  if (vp) vp->residual_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetLocalSpace - the local space of a patch of a DG (sipg) brick (-pc_vertexpatch_local_space): all values
   of the patch cells (full), those not on the patch boundary (dirichlet), or the functions that vanish with their
   derivative on the patch boundary (clamped, a Hermite-type basis) [CK24, section 3.1]

   Logically Collective

   Notes:
   `full` needs the residual of the patch's neighbour cells, so it forms a global residual per color; `dirichlet` and
   `clamped` form it patch by patch from the patch cells alone (`-pc_vertexpatch_residual local`, their default):
   exact for `clamped`, a consistent approximation [CK24] for `dirichlet`, whose test functions' normal derivatives
   do not vanish on the patch boundary.

   Level: intermediate

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetResidual()`
@*/
PetscErrorCode PCVertexPatchSetLocalSpace(PC pc, PCVertexPatchLocalSpace space)
{
  PetscFunctionBegin;
  PetscCall(VPSetEnum(pc, offsetof(PC_VertexPatch, space), (PetscEnum)space, PCVertexPatchLocalSpaces));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetOrdering - lexicographic, Z-curve or hierarchical patch order (-pc_vertexpatch_ordering)

   Logically Collective

   Level: intermediate

.seealso: `PCVERTEXPATCH`
@*/
PetscErrorCode PCVertexPatchSetOrdering(PC pc, PCVertexPatchOrdering ordering)
{
  PetscFunctionBegin;
  PetscCall(VPSetEnum(pc, offsetof(PC_VertexPatch, ordering), (PetscEnum)ordering, PCVertexPatchOrderings));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetPrecision - precision of the patch work; vectors stay double (-pc_vertexpatch_precision)

   Logically Collective

   Level: intermediate

.seealso: `PCVERTEXPATCH`
@*/
PetscErrorCode PCVertexPatchSetPrecision(PC pc, PCVertexPatchPrecision precision)
{
  PetscFunctionBegin;
  PetscCall(VPSetEnum(pc, offsetof(PC_VertexPatch, precision), (PetscEnum)precision, PCVertexPatchPrecisions));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetGPUKernel - the CUDA kernel of the smoothing steps on VECCUDA vectors (-pc_vertexpatch_gpu_kernel)

   Logically Collective

   Input Parameters:
+  pc     - the vertex-patch PC
-  kernel - `PC_VERTEXPATCH_GPU_KERNEL_SHARED` (the patch in shared memory: laplace, and c0ip in 3D with degree 2..5,
            whose closure it stores without the corners the residual does not read), `PC_VERTEXPATCH_GPU_KERNEL_GLOBAL` (the patch in a per-block
            scratch in global memory; any operator), `PC_VERTEXPATCH_GPU_KERNEL_MMA` (as shared, with the contractions of
            the double-precision steps on the FP64 tensor cores, compute capability 8.0 or newer; single-precision steps
            use the shared kernel) or `PC_VERTEXPATCH_GPU_KERNEL_AUTO` (shared where it applies)

   Level: advanced

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetPrecision()`
@*/
PetscErrorCode PCVertexPatchSetGPUKernel(PC pc, PCVertexPatchGPUKernel kernel)
{
  PetscFunctionBegin;
  PetscCall(VPSetEnum(pc, offsetof(PC_VertexPatch, gpu_kernel), (PetscEnum)kernel, PCVertexPatchGPUKernels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetSchedule - the order of the multiplicative sweep (-pc_vertexpatch_schedule,
   -pc_vertexpatch_batch_size)

   Logically Collective

   Input Parameters:
+  pc         - the preconditioner
.  schedule   - colored, single (sequential loop) or batched
-  batch_size - patches per batch of the batched schedule (`PETSC_DEFAULT` keeps the current one)

   Level: intermediate

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetOrdering()`
@*/
PetscErrorCode PCVertexPatchSetSchedule(PC pc, PCVertexPatchSchedule schedule, PetscInt batch_size)
{
  PC_VertexPatch *vp = NULL;

  PetscFunctionBegin;
  PetscCall(VPSetEnum(pc, offsetof(PC_VertexPatch, schedule), (PetscEnum)schedule, PCVertexPatchSchedules));
  PetscCall(VPGetData(pc, &vp));
  if (!vp || batch_size == PETSC_DEFAULT) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(batch_size >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_vertexpatch_batch_size %" PetscInt_FMT ": must be at least 1", batch_size);
  VPChanged(pc, (PetscBool)(vp->batch_size != batch_size));
  vp->batch_size = batch_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetGPULines - lines of the patch per thread in the shared-memory GPU kernel of the 3D Laplacian
   (-pc_vertexpatch_gpu_lines)

   Logically Collective

   Input Parameters:
+  pc    - the preconditioner
-  lines - 1 or 2: the kernel that combines the operator's three terms before its z contractions, with one or two lines
           of the patch per thread (with two, every load from shared memory or cache feeds two multiply-adds, at the price
           of twice the registers per thread); 3: the same kernel with one line per thread on (2k-1)^2 threads a patch
           instead of (2k-1)(2k+1), whose x step splits each row of the 1D matrices at the patch's vertex and skips the
           entries that couple the two cells (zero); 0: the generic one-line kernel of any one-ghost-cell operator; -1 (the
           default): the one measured fastest on an H100 for the degree and the precision of the steps

   Notes:
   It applies to the shared kernel (-pc_vertexpatch_gpu_kernel shared or auto, and the float steps of mma) on a 3D laplace
   brick of degree 2 to 8; elsewhere it has no effect. Every choice computes the same step up to rounding.

   Level: developer

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetGPUKernel()`
@*/
PetscErrorCode PCVertexPatchSetGPULines(PC pc, PetscInt lines)
{
  PC_VertexPatch *vp = NULL;

  PetscFunctionBegin;
  PetscCheck(lines >= -1 && lines <= 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_vertexpatch_gpu_lines %" PetscInt_FMT ": allowed: -1 (by degree and precision), 0 (generic kernel), 1, 2, 3 (one line, folded x step)", lines);
  PetscCall(VPGetData(pc, &vp));
  if (!vp) PetscFunctionReturn(PETSC_SUCCESS);
  VPChanged(pc, (PetscBool)(vp->gpu_lines != lines));
  vp->gpu_lines = lines;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetThreads - OpenMP threads for the patches of one color of the multiplicative step on the CPU
   (-pc_vertexpatch_threads)

   Logically Collective

   Input Parameters:
+  pc      - the preconditioner
-  threads - threads per rank for the patches of one color (colored schedule) or of one batch (batched schedule); 0
             restores the default: 1 for colored, all of OpenMP's threads for batched

   Notes:
   The patches of one color write disjoint nodes, so every thread count gives the same result, bit for bit; this
   holds for the multiplicative and the additive step (which runs color by color), and for the DG (sipg) smoother, whose
   patches of one color share no cell. The single schedule runs on one thread. A count above 1 needs a build with
   OpenMP.

   Level: intermediate

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetSchedule()`
@*/
PetscErrorCode PCVertexPatchSetThreads(PC pc, PetscInt threads)
{
  PC_VertexPatch *vp = NULL;

  PetscFunctionBegin;
  PetscCall(VPGetData(pc, &vp));
  PetscCheck(threads >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_vertexpatch_threads %" PetscInt_FMT ": must be 0 (the default) or a thread count", threads);
#if !defined(_OPENMP)
  PetscCheck(threads <= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_vertexpatch_threads %" PetscInt_FMT " needs a build with OpenMP (this one has none); allowed: 0 or 1", threads);
#endif
  if (!vp) PetscFunctionReturn(PETSC_SUCCESS);
  VPChanged(pc, (PetscBool)(vp->threads != threads));
  vp->threads = threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetEvenOdd - run the CPU steps' contractions of interior patches in even-odd form (-pc_vertexpatch_even_odd)

   Logically Collective

   Input Parameters:
+  pc      - the preconditioner
-  evenodd - `PETSC_TRUE` (the default): the residual rows and the fast-diagonalization eigenvectors of the patches of
             interior vertices are split into their even and odd halves; `PETSC_FALSE`: the full 1D matrices

   Notes:
   On the brick's uniform grid an interior patch is symmetric under the reflection of each direction, so its residual
   rows are centro-symmetric and its eigenvectors even or odd (both checked at setup; a matrix that is not keeps its full
   form). A contraction then takes sums and differences of mirrored values and multiplies by two matrices of half the
   size: about half the multiply-adds. The iterates differ from `PETSC_FALSE` by rounding only. Used by the host steps of
   every schedule; the GPU kernels keep the full matrices.

   Level: intermediate

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetSIMD()`
@*/
PetscErrorCode PCVertexPatchSetEvenOdd(PC pc, PetscBool evenodd)
{
  PetscFunctionBegin;
  PetscCall(VPSetBool(pc, offsetof(PC_VertexPatch, evenodd), evenodd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetSIMD - run the CPU steps' patches in SIMD groups (-pc_vertexpatch_simd)

   Logically Collective

   Input Parameters:
+  pc   - the preconditioner
-  simd - `PETSC_TRUE` (the default): the patches of one color (or batch) are taken in groups of one position class, one
          patch per lane of a vector of the build's width (2 doubles in the portable x86-64 build, 4 with AVX; twice as
          many floats in single precision); `PETSC_FALSE`: one patch at a time

   Notes:
   A group's patches share every 1D matrix, so each multiply-add of the sum factorization is one SIMD instruction, as
   deal.II vectorizes across cells. Each lane does the one-patch arithmetic in the same order, so the iterates are the
   same as with `PETSC_FALSE` (bit for bit in the portable build; a `NATIVE=yes` build may fuse multiply-adds
   differently). Used by the colored and batched schedules, multiplicative and additive, with any local solver, and by
   the DG (sipg) smoother (groups of one class triple); the single schedule and the GPU steps ignore it.

   Level: intermediate

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetThreads()`
@*/
PetscErrorCode PCVertexPatchSetSIMD(PC pc, PetscBool simd)
{
  PetscFunctionBegin;
  PetscCall(VPSetBool(pc, offsetof(PC_VertexPatch, simd), simd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetDamping - damping of the patch corrections (-pc_vertexpatch_damping); `PETSC_DEFAULT` restores
   the default of the type (1 multiplicative, 1/2^d additive)

   Logically Collective

   Level: intermediate

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetType()`
@*/
PetscErrorCode PCVertexPatchSetDamping(PC pc, PetscReal damping)
{
  PC_VertexPatch *vp = NULL;

  PetscFunctionBegin;
  PetscCall(VPGetData(pc, &vp));
  if (!vp) PetscFunctionReturn(PETSC_SUCCESS);
  if (damping == (PetscReal)PETSC_DEFAULT) damping = -1.0;
  else PetscCheck(damping > 0 && !PetscIsInfOrNanReal(damping), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_vertexpatch_damping %g: must be a positive number", (double)damping);
  VPChanged(pc, (PetscBool)(vp->damping != damping));
  vp->damping = damping;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetReverse - sweep colors and patches backwards (-pc_vertexpatch_reverse), e.g. as the
   post-smoother of a symmetric V-cycle

   Logically Collective

   Level: intermediate

.seealso: `PCVERTEXPATCH`
@*/
PetscErrorCode PCVertexPatchSetReverse(PC pc, PetscBool reverse)
{
  PetscFunctionBegin;
  PetscCall(VPSetBool(pc, offsetof(PC_VertexPatch, reverse), reverse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchSetOverlap - on several ranks, whether the colored multiplicative sweep with local residuals runs each
   color's patches away from the shared layers while that color's ghost exchange is under way (-pc_vertexpatch_overlap,
   default true), or all of the color's patches first and then the exchange

   Logically Collective

   Notes:
   The iterates are the same either way (a color's patches are independent). It takes effect at the next `PCSetUp()`,
   where the schedule is built; it has no effect on one rank, on DG bricks (whose sweep has its own exchange), and with
   global residuals or the additive and batched variants, which have no per-color exchange.

   Level: advanced

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetReverse()`
@*/
PetscErrorCode PCVertexPatchSetOverlap(PC pc, PetscBool overlap)
{
  PetscFunctionBegin;
  PetscCall(VPSetBool(pc, offsetof(PC_VertexPatch, overlap), overlap));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* composed on every vertex-patch PC as "PCVertexPatchGetPrecision_C", so that other layers (the brick's
   convergence guard) can ask a PC without linking to this one */
PetscErrorCode PCVertexPatchGetPrecision_VertexPatch(PC pc, PCVertexPatchPrecision *precision)
{
  PetscFunctionBegin;
  *precision = ((PC_VertexPatch *)pc->data)->precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchGetPrecision - the precision of the patch work (-pc_vertexpatch_precision)

   Not Collective

   Output Parameter:
.  precision - `PC_VERTEXPATCH_DOUBLE` or `PC_VERTEXPATCH_SINGLE_PRECISION`

   Level: intermediate

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetPrecision()`
@*/
PetscErrorCode PCVertexPatchGetPrecision(PC pc, PCVertexPatchPrecision *precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCVertexPatchGetPrecision_C", (PC, PCVertexPatchPrecision *), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
   PCVertexPatchGetDamping - the damping the smoother uses: the one set, or after `PCSetUp()` the default of its
   type and operator (for the additive smoother of an operator without a proven bound, limited by the
   estimate of lambda_max(B A) made at setup)

   Not Collective

   Output Parameters:
+  damping - the damping in use (before `PCSetUp()`: the one set, or -1 for the default)
-  lambda  - the estimate of lambda_max(B A), or 0 if none was made (may be NULL)

   Level: intermediate

.seealso: `PCVERTEXPATCH`, `PCVertexPatchSetDamping()`
@*/
PetscErrorCode PCVertexPatchGetDamping(PC pc, PetscReal *damping, PetscReal *lambda)
{
  PC_VertexPatch *vp = NULL;

  PetscFunctionBegin;
  PetscCall(VPGetData(pc, &vp));
  PetscCheck(vp, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCVertexPatchGetDamping() needs a PC of type vertexpatch");
  *damping = pc->setupcalled ? vp->omega : vp->damping;
  if (lambda) *lambda = vp->lambda_max;
  PetscFunctionReturn(PETSC_SUCCESS);
}
