/* Private data of PCVERTEXPATCH. The smoother reads the brick of its operator (src/dm/brickimpl.h);
   every vertex patch of a level has the same 1D matrices (uniform Cartesian mesh), so the patch data is a
   handful of small matrices shared by all patches, and a patch is identified by its vertex alone. */
#pragma once

#include "../../dm/brickimpl.h"
#include <petsc/private/pcimpl.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

#define VP_MAX_NE (4 * BRICK_MAX_DEGREE + 1) /* closure nodes of a patch per direction: (v-g)k..(v+g)k, g the ghost cells */
#define VP_MAX_NI (2 * BRICK_MAX_DEGREE - 1) /* interior nodes of a patch per direction */
#define VP_NCLASS 3                         /* patch position along a direction: next to the lower boundary, inside, next to the upper */

/* The operator of the patches of a level, in one precision. The brick's Kronecker form restricted to a patch:
   for each kind of 1D matrix, direction and position class, its rows of the patch interior, restricted to
   the columns where that kind has entries (coloff, ncols within the ne closure nodes); the local residual is
   sum factorization with these (closure in, interior out). Plus the fast-diagonalization factors of the
   separable part (sum_d M (x) G^separable_d (x) M): generalized eigenvectors S (S^T M S = I), eigenvalues. */
#define VP_DECLARE_PATCHOP(T, SUF) \
  typedef struct { \
    int      dim, ne, ni, nterms; \
    T        coef[BRICK_KRON_MAX_TERMS]; \
    int      kind[BRICK_KRON_MAX_TERMS][3]; \
    int      coloff[BRICK_LINE_NKINDS], ncols[BRICK_LINE_NKINDS]; \
    int      inner_lo, inner_hi; /* closure nodes of the patch cells; outside them only face neighbours are read */ \
    T        R[BRICK_LINE_NKINDS][3][VP_NCLASS][VP_MAX_NI * VP_MAX_NE]; \
    T        S[3][VP_NCLASS][VP_MAX_NI * VP_MAX_NI], St[3][VP_NCLASS][VP_MAX_NI * VP_MAX_NI]; \
    T        lambda[3][VP_NCLASS][VP_MAX_NI]; \
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
  PetscInt     clsmap[3][VP_NCLASS]; /* position classes with identical patch matrices share the dense factor */
  PetscScalar *dense[27];           /* (ni^d)^2 Cholesky factors of the exact patch matrices, by mapped class triple */
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
PETSC_INTERN PetscInt       PCVertexPatchClass(PetscInt, PetscInt);

/* per-patch kernels on plain arrays (vpkernels.c); cls: position class per direction, xbar: closure values,
   b: interior values */
PETSC_INTERN void VPPatchResidual_d(const VPPatchOp_d *, const int[], const double *, const double *, double *, double *);
PETSC_INTERN void VPPatchResidual_f(const VPPatchOp_f *, const int[], const float *, const float *, float *, float *);
PETSC_INTERN void VPPatchSolveFDM_d(const VPPatchOp_d *, const int[], const double *, double *, double *);
PETSC_INTERN void VPPatchSolveFDM_f(const VPPatchOp_f *, const int[], const float *, float *, float *);
PETSC_INTERN int VPPatchSolveDense(PetscInt, const PetscScalar *, PetscScalar *);

PETSC_EXTERN PetscLogEvent PC_VertexPatchSetUp, PC_VertexPatchSmooth;
