/* Private data of PCVERTEXPATCH. The smoother reads the brick of its operator (src/dm/brickimpl.h);
   every vertex patch of a level has the same 1D matrices (uniform Cartesian mesh), so the patch data is a
   handful of small matrices shared by all patches, and a patch is identified by its vertex alone. */
#pragma once

#include "../../dm/brickimpl.h"
#include "../../mat/brickelement.h"
#include <vpatch_cuda.h>
#include <petsc/private/pcimpl.h>
#if defined(_OPENMP)
#  include <omp.h>
#endif

#define VP_MAX_NE VPC_MAX_NE /* closure nodes of a patch per direction: (v-g)k..(v+g)k, g the ghost cells */
#define VP_MAX_NI VPC_MAX_NI /* interior nodes of a patch per direction */
#define VP_NCLASS VPC_NCLASS /* patch position along a direction: next to the lower boundary, inside, next to the upper */

/* The operator of the patches of a level, in one precision (the layout is shared with the CUDA kernels,
   cuda/vpatch_cuda.h): the brick's Kronecker form restricted to a patch, per kind of 1D matrix, direction and
   position class, and the fast-diagonalization factors of the separable part. */
typedef VPCudaPatchOp_d VPPatchOp_d;
typedef VPCudaPatchOp_f VPPatchOp_f;

/* Where the host sweeps find a patch's nodes in a rank's local array. */
typedef struct {
  PetscInt gs[3], gw[3]; /* ghosted corner and widths of the local array (interior-node numbering) */
  PetscInt nk[3];        /* k N_d: full-grid index of the last (boundary) node */
  PetscInt k, dim, g;    /* degree, dimension, ghost cells of the operator (the closure reaches g cells from the vertex) */
} VPLayout;

/* Offsets in the local array of the closure nodes of the patch of vertex v (-1: boundary node, zero). */
static inline void VPClosureOffsets(const VPLayout *L, const PetscInt v[3], PetscInt off[3][VP_MAX_NE], PetscInt m[3])
{
  PetscInt stride = 1;

  for (PetscInt d = 0; d < 3; d++) {
    if (d < L->dim) {
      m[d] = 2 * L->g * L->k + 1;
      for (PetscInt a = 0; a < m[d]; a++) {
        const PetscInt f = (v[d] - L->g) * L->k + a;
        off[d][a]        = (f <= 0 || f >= L->nk[d]) ? -1 : (f - 1 - L->gs[d]) * stride;
      }
    } else {
      m[d]      = 1;
      off[d][0] = 0;
    }
    stride *= L->gw[d];
  }
}

/* Even-odd form of the interior class's 1D matrices (vpevenodd.c). On a uniform grid an interior patch is symmetric
   under the reflection of each direction, so its residual rows are centro-symmetric and its fast-diagonalization
   eigenvectors are each even or odd. A contraction then splits its input into sums and differences of mirrored values
   (split) or takes it as [even coefficients | odd coefficients], multiplies by the halves E and O, and writes mirrored
   pairs P + Q, P - Q (combine) or [P | Q]: about half the multiply-adds of the full nout x nin matrix. St and S are the
   eigenvectors with the even ones first (lambda in that order). res / fdm: which matrices have the form (the checks of
   vpevenodd.c; a direction without it, and the boundary classes, use the full matrices of the patch operator). */
#define VP_EO_TYPES(T, SUF) \
  typedef struct { \
    int nin, nout, split, combine; \
    T   E[VP_MAX_NI * VP_MAX_NE], O[VP_MAX_NI * VP_MAX_NE]; /* ceil(nout/2) x ceil(nin/2) and floor(nout/2) x floor(nin/2) */ \
  } VPEOMat##SUF; \
  typedef struct { \
    int          res[BRICK_LINE_NKINDS][3], fdm[3]; \
    VPEOMat##SUF R[BRICK_LINE_NKINDS][3], St[3], S[3]; \
    T            lambda[3][VP_MAX_NI]; \
  } VPEvenOdd##SUF;
VP_EO_TYPES(double, _d)
VP_EO_TYPES(float, _f)
#undef VP_EO_TYPES

/* SIMD across patches on the CPU (vplanes.c): groups of VP_LANES_D (double) or VP_LANES_F (float) patches of one position
   class, one patch per lane of the brick's SIMD vectors (brickimpl.h) */
#define VP_LANES_D BRICK_LANES_D
#define VP_LANES_F BRICK_LANES_F
typedef BrickLaneD VPLaneD;
typedef BrickLaneF VPLaneF;

/* C0IP patches on a forest (vpforestc0ip.c): each patch's pattern of boundary outer faces, and per distinct pattern its
   position-class triple (separable ones; cls[0] = -1: mixed) or the Cholesky factor of its exact matrix */
typedef struct {
  PetscInt      npatterns, nmixed; /* distinct patterns on the rank; patches of mixed patterns */
  PetscInt     *ppattern;          /* per patch: the index of its pattern */
  PetscInt     *pattern, *count;   /* per pattern: its bits (one per outer face, set on the boundary), patches */
  int (*cls)[3];
  PetscScalar **factor; /* (ni^dim)^2 column-major upper Cholesky factor, NULL where the fast diagonalization solves */
  BrickC0IPCell cell;    /* the cell's 1D pieces, for the patches' local residuals */
  PetscScalar  *buf;     /* the local residual's scratch: two cells' values and results, and the kernels' work (12 nv) */
  void         *gpu;     /* the CUDA patch step (VP_HAVE_CUDA: VPCudaC0IPPatches), made for device vectors */
} VPForestC0IP;

typedef struct {
  /* options */
  PCVertexPatchType        type;
  PCVertexPatchLocalSolver solver;
  PCVertexPatchResidual    residual;
  PetscBool                residual_set; /* set by the user (DG: the default depends on the local space) */
  PCVertexPatchLocalSpace  space;        /* DG only */
  PCVertexPatchSchedule    schedule;
  PCVertexPatchOrdering    ordering;
  PCVertexPatchPrecision   precision;
  PCVertexPatchGPUKernel   gpu_kernel; /* as set; gpu_shared: what the GPU steps use */
  PetscInt                 gpu_lines;  /* -pc_vertexpatch_gpu_lines: lines per thread of the 3D laplace shared kernel (-1: by degree and precision) */
  PetscBool                gpu_shared;
  PetscBool                gpu_mma; /* the double steps on the tensor cores (with gpu_shared) */
  PetscReal                damping; /* < 0: not set, use the default of the type */
  PetscInt                 batch_size;
  PetscInt                 threads; /* -pc_vertexpatch_threads; 0: the default (colored 1, batched all) */
  PetscBool                simd;    /* -pc_vertexpatch_simd: host patches in SIMD lane groups (colored and batched schedules) */
  PetscBool                reverse; /* sweep the processing order backwards (post-smoothing of a symmetric V-cycle) */
  PetscBool                overlap; /* -pc_vertexpatch_overlap: several ranks, colored: the patches away from the shared layers run during each color's ghost exchange */

  /* setup */
  DM               dm;                        /* the brick of the operator */
  PetscInt         npatches;                  /* owned patches (vertices) */
  VPCudaPatchBox  *box;                       /* the patches in processing order by index arithmetic: nbox lattice boxes and a sentinel (vpsetup.c) */
  PetscInt         nbox;                      /* (at most 7 per color: no per-patch array) */
  PetscInt        *vertex;                    /* -pc_vertexpatch_ordering zcurve or hierarchical: the vertex (vx, vy, vz) of each owned patch in that order; NULL: the boxes' order */
  PetscInt         ncolors, *colorptr;        /* patches of color c: [colorptr[c], colorptr[c+1]) of the processing order */
  PetscInt         nbatches;                  /* batched schedule: batches per color (the last ones may be empty); split: 2 */
  PetscBool        split;                     /* colored on several ranks: batch 0 of a color the patches reaching shared nodes */
  PetscInt        *batchptr;                  /* batch b of color c: [batchptr[c*(nbatches+1)+b], ...+b+1) */
  PetscInt         nlanes;                    /* host steps: patches per SIMD group (VP_LANES_D or _F), or 1: one patch at a time */
  PetscBool        lanes_ready;               /* nlanes and the scratch below are set (PCVertexPatchSetUpLanes: at setup on host levels, at the first host step on GPU ones) */
  size_t           lanework_bytes;            /* per-thread scratch of a group (a multiple of 64 bytes) */
  char            *lanework, *lanework_alloc; /* nthreads scratches, 64-byte aligned, and the allocation they lie in */
  VPPatchOp_d      op_d;
  VPPatchOp_f      op_f;
  PetscInt         clsmap[3][VP_NCLASS]; /* position classes with identical patch matrices share the dense factor */
  PetscScalar     *dense[27];            /* (ni^d)^2 Cholesky factors of the exact patch matrices, by mapped class triple */
  PetscInt         nthreads;             /* work buffers are per thread */
  PetscScalar     *work;                 /* per-thread scratch */
  Vec              xl, bl, dl;           /* local (ghosted) vectors */
  PetscObjectId    blof, blid;           /* the local vector with id blid (bl or an in-place local) holds the local form of the vector with id blof at its state blofstate, */
  PetscObjectState blofstate, blstate;   /* provided it is still at blstate (PCVertexPatchLocalRHS()) */
  Vec              r;                    /* global residual (global residual variant, additive) */
  PetscSF         *pushsf;               /* several active ranks, multiplicative with local residuals: per color the ghosts its patches on this rank correct, pushed to their owners (vpghost.c) */
  PetscSF         *spreadsf;             /* GPU sweep: per color, from the rank that corrected a node to every other rank holding it */
  PetscReal        omega;                /* damping in use */
  PetscReal        omega_default;        /* the operator's default damping of the type (before the estimate) */
  PetscReal        lambda_max;           /* additive, default damping, operator without a proven bound: estimate of lambda_max(B A) (0: none) */
  PetscLogDouble   flops_per_patch;      /* for -log_view: one patch with the full 1D matrices (the GPU kernels) */
  PetscLogDouble   residual_flops;       /* the local residual's share of flops_per_patch (0: global residual) */
  PetscLogDouble   gpu_flops[2];         /* flops_per_patch of the GPU smoother's kernels, double and single steps (the 3D laplace kernel combines terms) */
  PetscLogDouble   host_flops_per_patch; /* the mean over this rank's patches of the host kernels' count (even-odd form where used) */
  void            *gpu;                  /* the CUDA smoother (VP_HAVE_CUDA: VPCudaSmoother), made at setup when the brick's vectors are on the device, else at the first step on the GPU */
  void            *dg;                   /* the DG smoother (vpdg.c) on a sipg brick; NULL on a CG one */
  PetscBool        forest;               /* the brick is a forest: patches through its cell-node table (vpforest.c) */
  void            *forestgpu;            /* its CUDA smoother (VP_HAVE_CUDA: VPCudaForestSmoother), made for device vectors */
  VPForestC0IP    *forestc0ip;           /* c0ip on a forest: the patches' patterns and solvers (vpforestc0ip.c) */
  PetscBool        evenodd;              /* -pc_vertexpatch_even_odd: the host kernels use the even-odd form where it holds */
  VPEvenOdd_d     *eo_d;                 /* that form in double and float (NULL: off) */
  VPEvenOdd_f     *eo_f;
} PC_VertexPatch;

/* vertex v of patch p of the processing order (PCVertexPatchSetUpSchedule) */
static inline void PCVertexPatchGetVertex(const PC_VertexPatch *vp, PetscInt p, PetscInt v[3])
{
  if (vp->vertex) {
    for (PetscInt d = 0; d < 3; d++) v[d] = vp->vertex[3 * p + d];
  } else {
    int iv[3];
    VPCudaPatchVertex(vp->box, (int)vp->nbox, (int)p, iv);
    for (PetscInt d = 0; d < 3; d++) v[d] = iv[d];
  }
}

/* A forward walk through the patches of the processing order from patch p: the list of the sorted orderings, or a
   cursor on the boxes (no divisions per patch); from p = npatches on there is nothing to read */
typedef struct {
  const PC_VertexPatch *vp;
  PetscInt              p;
  VPCudaPatchCursor     c;
} VPPatchWalk;

static inline void VPPatchWalkInit(VPPatchWalk *w, const PC_VertexPatch *vp, PetscInt p)
{
  const VPCudaPatchCursor none = {NULL, 0, 0, 0, 0, {0, 0, 0}};

  w->vp = vp;
  w->p  = p;
  w->c  = none;
  if (!vp->vertex && p < vp->npatches) VPCudaPatchCursorInit(&w->c, vp->box, (int)vp->nbox, (int)p);
}

static inline void VPPatchWalkVertex(const VPPatchWalk *w, PetscInt v[3])
{
  for (PetscInt d = 0; d < 3; d++) v[d] = w->vp->vertex ? w->vp->vertex[3 * w->p + d] : w->c.v[d];
}

static inline void VPPatchWalkNext(VPPatchWalk *w)
{
  w->p++;
  if (!w->vp->vertex) VPCudaPatchCursorNext(&w->c);
}

PETSC_INTERN PetscInt       PCVertexPatchLatticeBox(PetscInt, PetscBool, PetscBool, PetscInt, const PetscInt[3], const PetscInt[3], VPCudaPatchBox *);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpPatchOperator(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpSchedule(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchSmooth(PC, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode PCVertexPatchAdditive(PC, Vec, Vec, Vec);
PETSC_INTERN PetscInt       PCVertexPatchWorkSize(const PC_VertexPatch *);
PETSC_INTERN PetscErrorCode PCVertexPatchUseGPU(PC, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode PCVertexPatchSmoothGPU(PC, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode PCVertexPatchAdditiveGPU(PC, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode PCVertexPatchDestroyGPU(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpGPU(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchGetWorkVectors(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchGetSweepVectors(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchLocalRHS(PC, Vec, Vec *);
PETSC_INTERN PetscErrorCode PCVertexPatchSweepLocal(PC, Vec, PetscBool, Vec *);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpGhostExchange(PC, const VPLayout *);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpHostWork(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchDestroyGhostExchange(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchExchangeGhostsBegin(PC, PetscInt, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode PCVertexPatchExchangeGhostsEnd(PC, PetscInt, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode PCVertexPatchExchangeGhostsDeviceBegin(PC, PetscInt, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode PCVertexPatchExchangeGhostsDeviceEnd(PC, PetscInt, PetscBool, PetscScalar *);
PETSC_INTERN PetscInt       PCVertexPatchClass(PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode PCVertexPatchGetPrecision_VertexPatch(PC, PCVertexPatchPrecision *);
PETSC_INTERN PetscErrorCode PCVertexPatchEstimateDamping(PC);
/* forest bricks (vpforest.c) */
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpForest(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchDestroyForest(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpForestC0IP(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchDestroyForestC0IP(PC);
PETSC_INTERN PetscLogDouble PCVertexPatchForestC0IPFlops(const PC_VertexPatch *, PetscInt, PetscInt, PetscBool);
#if defined(VP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode PCVertexPatchForestC0IPSetUpGPU(PC_VertexPatch *);
PETSC_INTERN PetscErrorCode PCVertexPatchForestC0IPStepGPU(PC_VertexPatch *, PetscInt, PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *);
#endif
PETSC_INTERN PetscErrorCode PCVertexPatchForestC0IPPatch(const PC_VertexPatch *, PetscInt, const PetscInt[], const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode PCVertexPatchSmoothForest(PC, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode PCVertexPatchAdditiveForest(PC, Vec, Vec, Vec);
/* DG bricks (vpdg.c) */
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpDG(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchDestroyDG(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchSmoothDG(PC, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode PCVertexPatchAdditiveDG(PC, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode PCVertexPatchViewDG(PC, PetscViewer);

/* per-patch kernels on plain arrays (vpkernels.c); cls: position class per direction, xbar: closure values,
   b: interior values */
PETSC_INTERN void VPPatchResidual_d(const VPPatchOp_d *, const VPEvenOdd_d *, const int[], const double *, const double *, double *, double *);
PETSC_INTERN void VPPatchResidual_f(const VPPatchOp_f *, const VPEvenOdd_f *, const int[], const float *, const float *, float *, float *);
PETSC_INTERN void VPPatchSolveFDM_d(const VPPatchOp_d *, const VPEvenOdd_d *, const int[], const double *, double *, double *);
PETSC_INTERN void VPPatchSolveFDM_f(const VPPatchOp_f *, const VPEvenOdd_f *, const int[], const float *, float *, float *);
PETSC_INTERN int  VPPatchSolveDense(PetscInt, const PetscScalar *, PetscScalar *);
/* the same on a SIMD group of patches of one class (vplanes.c) */
PETSC_INTERN void           VPPatchResidualLanes_d(const VPPatchOp_d *, const VPEvenOdd_d *, const int[], const VPLaneD *, const VPLaneD *, VPLaneD *, VPLaneD *);
PETSC_INTERN void           VPPatchResidualLanes_f(const VPPatchOp_f *, const VPEvenOdd_f *, const int[], const VPLaneF *, const VPLaneF *, VPLaneF *, VPLaneF *);
PETSC_INTERN void           VPPatchSolveFDMLanes_d(const VPPatchOp_d *, const VPEvenOdd_d *, const int[], const VPLaneD *, VPLaneD *, VPLaneD *);
PETSC_INTERN void           VPPatchSolveFDMLanes_f(const VPPatchOp_f *, const VPEvenOdd_f *, const int[], const VPLaneF *, VPLaneF *, VPLaneF *);
PETSC_INTERN int            VPProcessLanes(const PC_VertexPatch *, const VPLayout *, const PetscInt[][3], const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *, char *);
PETSC_INTERN int            VPProcessLanesRange(const PC_VertexPatch *, const VPLayout *, PetscInt, PetscInt, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *, char *);
PETSC_INTERN size_t         PCVertexPatchLaneWorkBytes(const PC_VertexPatch *);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpLanes(PC_VertexPatch *, PetscBool);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpEvenOdd(PC);
PETSC_INTERN PetscLogDouble PCVertexPatchFlops(const PC_VertexPatch *, const int[]);

PETSC_EXTERN PetscLogEvent PC_VertexPatchSetUp, PC_VertexPatchSmooth, PC_VertexPatchSchedule, PC_VertexPatchGPUSetUp, PC_VertexPatchGhostSetUp;
