/* Private data of PCVERTEXPATCH. The smoother reads the brick of its operator (src/dm/brickimpl.h);
   every vertex patch of a level has the same 1D matrices (uniform Cartesian mesh), so the patch data is a
   handful of small matrices shared by all patches, and a patch is identified by its vertex alone. */
#pragma once

#include "../../dm/brickimpl.h"
#include <petsc/private/pcimpl.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

#define VP_MAX_NP (2 * BRICK_MAX_DEGREE + 1) /* closure nodes of a patch per direction */
#define VP_MAX_NI (2 * BRICK_MAX_DEGREE - 1) /* interior nodes of a patch per direction */



/* The operator of one patch, in one precision: closure-to-interior 1D matrices (ni x np) for the local
   residual, and the fast-diagonalization factors of the interior problem. */
#define VP_DECLARE_PATCHOP(T, SUF) \
  typedef struct { \
    int      dim, np, ni; \
    T        Kr[3][VP_MAX_NI * VP_MAX_NP], Mr[3][VP_MAX_NI * VP_MAX_NP]; /* rows 1..2k-1 of the closure matrices */ \
    T        S[3][VP_MAX_NI * VP_MAX_NI], St[3][VP_MAX_NI * VP_MAX_NI];   /* generalized eigenvectors and transposes */ \
    T        lambda[3][VP_MAX_NI];                                       /* generalized eigenvalues */ \
    const T *dense;                                                       /* Cholesky factor of the interior matrix (double only) */ \
  } VPPatchOp##SUF;
VP_DECLARE_PATCHOP(double, _d)
VP_DECLARE_PATCHOP(float, _f)

typedef struct {
  /* options */
  PCVertexPatchType        type;
  PCVertexPatchLocalSolver solver;
  PCVertexPatchResidual    residual;
  PCVertexPatchSchedule    schedule;
  PCVertexPatchOrdering    ordering;
  PCVertexPatchPrecision   precision;
  PetscReal                damping; /* < 0: not set, use the default of the type */
  PetscInt                 batch_size;
  PetscBool                reverse; /* sweep the processing order backwards (post-smoothing of a symmetric V-cycle) */

  /* setup */
  DM           dm;                  /* the brick of the operator */
  PetscInt     npatches;            /* owned patches (vertices) */
  PetscInt    *vertex;              /* vertex index (vx, vy, vz) of each owned patch, in processing order */
  PetscInt     ncolors, *colorptr;  /* patches of color c: [colorptr[c], colorptr[c+1]) of vertex[] order */
  PetscInt     nbatches;            /* batched schedule: batches per color (the last ones may be empty) */
  PetscInt    *batchptr;            /* batch b of color c: [batchptr[c*(nbatches+1)+b], ...+b+1) */
  VPPatchOp_d  op_d;
  VPPatchOp_f  op_f;
  PetscScalar *dense;               /* (ni^d)^2 Cholesky factor for the dense local solver */
  PetscInt     nthreads;            /* work buffers are per thread */
  PetscScalar *work;                /* per-thread scratch */
  Vec          xl, bl, dl;          /* local (ghosted) vectors */
  Vec          r;                   /* global residual (global residual variant, additive) */
  PetscReal    omega;               /* damping in use */
  PetscLogDouble flops_per_patch;   /* for -log_view */
} PC_VertexPatch;

PETSC_INTERN PetscErrorCode PCVertexPatchSetUpPatchOperator(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchSetUpSchedule(PC);
PETSC_INTERN PetscErrorCode PCVertexPatchSmooth(PC, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode PCVertexPatchAdditive(PC, Vec, Vec, Vec);
PETSC_INTERN PetscInt       PCVertexPatchWorkSize(const PC_VertexPatch *);

/* per-patch kernels on plain arrays (vpkernels.c); xbar: closure values, b: interior values */
PETSC_INTERN void VPPatchResidual_d(const VPPatchOp_d *, const double *, const double *, double *, double *);
PETSC_INTERN void VPPatchResidual_f(const VPPatchOp_f *, const float *, const float *, float *, float *);
PETSC_INTERN void VPPatchSolveFDM_d(const VPPatchOp_d *, const double *, double *, double *);
PETSC_INTERN void VPPatchSolveFDM_f(const VPPatchOp_f *, const float *, float *, float *);
PETSC_INTERN int VPPatchSolveDense(PetscInt, const PetscScalar *, PetscScalar *);

PETSC_EXTERN PetscLogEvent PC_VertexPatchSetUp, PC_VertexPatchSmooth;
