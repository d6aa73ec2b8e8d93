/* petsc-vpatch: vertex-patch multigrid for high-order finite elements, as a PETSc plugin.
   Public interface: the DM type "brick" and the functions that describe and use it. */
#pragma once

#include <petscdm.h>
#include <petscksp.h>

/*J
   DMBRICK - "brick": a structured hierarchy of Cartesian meshes (2D or 3D) carrying tensor-product
   Q_k elements (k = 1..8) on Gauss-Lobatto nodes, with homogeneous Dirichlet boundary conditions.

   Level: beginner

.seealso: `DMBrickCreate()`, `DMBrickSetCells()`, `DMBrickSetDegree()`, `DMBrickSetOperator()`
J*/
#define DMBRICK "brick"

/*J
   PCVERTEXPATCH - "vertexpatch": vertex-patch Schwarz smoother for the operators of a brick

   Level: intermediate

.seealso: `DMBRICK`, `PCMG`
J*/
#define PCVERTEXPATCH "vertexpatch"

/* The choices of PCVERTEXPATCH (see its manual page); the name arrays hold the option values. */
typedef enum {
  PC_VERTEXPATCH_MULTIPLICATIVE,
  PC_VERTEXPATCH_ADDITIVE
} PCVertexPatchType;
typedef enum {
  PC_VERTEXPATCH_FDM,
  PC_VERTEXPATCH_DENSE,
  PC_VERTEXPATCH_SEPARABLE_DENSE
} PCVertexPatchLocalSolver;
/* DG (sipg) only: the local space of a patch [CK24, section 3.1] */
typedef enum {
  PC_VERTEXPATCH_SPACE_FULL,
  PC_VERTEXPATCH_SPACE_DIRICHLET,
  PC_VERTEXPATCH_SPACE_CLAMPED
} PCVertexPatchLocalSpace;
typedef enum {
  PC_VERTEXPATCH_RESIDUAL_LOCAL,
  PC_VERTEXPATCH_RESIDUAL_GLOBAL
} PCVertexPatchResidual;
typedef enum {
  PC_VERTEXPATCH_COLORED,
  PC_VERTEXPATCH_SINGLE,
  PC_VERTEXPATCH_BATCHED
} PCVertexPatchSchedule;
typedef enum {
  PC_VERTEXPATCH_LEXICOGRAPHIC,
  PC_VERTEXPATCH_ZCURVE,
  PC_VERTEXPATCH_HIERARCHICAL
} PCVertexPatchOrdering;
typedef enum {
  PC_VERTEXPATCH_DOUBLE,
  PC_VERTEXPATCH_SINGLE_PRECISION
} PCVertexPatchPrecision;
typedef enum {
  PC_VERTEXPATCH_GPU_KERNEL_AUTO,
  PC_VERTEXPATCH_GPU_KERNEL_SHARED,
  PC_VERTEXPATCH_GPU_KERNEL_GLOBAL,
  PC_VERTEXPATCH_GPU_KERNEL_MMA
} PCVertexPatchGPUKernel;

PETSC_EXTERN const char *const PCVertexPatchTypes[];
PETSC_EXTERN const char *const PCVertexPatchLocalSolvers[];
PETSC_EXTERN const char *const PCVertexPatchResiduals[];
PETSC_EXTERN const char *const PCVertexPatchLocalSpaces[];
PETSC_EXTERN const char *const PCVertexPatchSchedules[];
PETSC_EXTERN const char *const PCVertexPatchOrderings[];
PETSC_EXTERN const char *const PCVertexPatchPrecisions[];
PETSC_EXTERN const char *const PCVertexPatchGPUKernels[];

PETSC_EXTERN PetscErrorCode PCVertexPatchSetType(PC, PCVertexPatchType);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetLocalSolver(PC, PCVertexPatchLocalSolver);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetResidual(PC, PCVertexPatchResidual);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetLocalSpace(PC, PCVertexPatchLocalSpace);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetSchedule(PC, PCVertexPatchSchedule, PetscInt);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetThreads(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetSIMD(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetEvenOdd(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetOrdering(PC, PCVertexPatchOrdering);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetPrecision(PC, PCVertexPatchPrecision);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetGPUKernel(PC, PCVertexPatchGPUKernel);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetGPULines(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetDamping(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetReverse(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCVertexPatchSetOverlap(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCVertexPatchGetPrecision(PC, PCVertexPatchPrecision *);
PETSC_EXTERN PetscErrorCode PCVertexPatchGetDamping(PC, PetscReal *, PetscReal *);

/*J
   PCHFEM - "hfem": the prehandled hierarchical-basis Schur-complement direct solver for 2D Q1 Poisson on a brick

   Level: intermediate

.seealso: `DMBRICK`, `PCHFEMGetSets()`
J*/
#define PCHFEM "hfem"

/*MC
   PCDENSEINVERSE - "denseinverse": the exact solve of a small SPD system through its explicit inverse (dense Cholesky on
   the host or the GPU, one symmetric matrix-vector product per apply); for PCMG's coarse solve on the GPU

   Level: intermediate

.seealso: `PCMG`, `PCREDUNDANT`
M*/
#define PCDENSEINVERSE "denseinverse"
PETSC_EXTERN PetscErrorCode PCHFEMGetSets(PC, PetscInt *, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode PCHFEMGetCounts(PC, PetscInt, PetscInt *, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode PCHFEMGetConditions(PC, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode PCHFEMGetFolded(PC, PetscBool *, PetscInt *);
PETSC_EXTERN PetscErrorCode PCHFEMEstimateConditions(PC, PetscInt, PetscReal *, PetscReal *);

/*E
   DMBrickFamily - continuity of the brick's finite element space

$  DMBRICK_CG - continuous Q_k, nodal on the Gauss-Lobatto grid
$  DMBRICK_DG - discontinuous Q_k, cell by cell ((k+1)^d Gauss-Lobatto values per cell; operator sipg)

   Level: beginner
E*/
typedef enum {
  DMBRICK_CG,
  DMBRICK_DG
} DMBrickFamily;
PETSC_EXTERN const char *const DMBrickFamilies[];

/*E
   DMBrickPrecision - arithmetic of a brick's operator and grid-transfer kernels on the GPU (vectors stay double)

$  DMBRICK_PRECISION_DOUBLE - double
$  DMBRICK_PRECISION_SINGLE - float arithmetic and intermediates on the double vectors (mixed-precision multigrid)

   Level: intermediate

.seealso: `DMBrickSetMGPrecision()`
E*/
typedef enum {
  DMBRICK_PRECISION_DOUBLE,
  DMBRICK_PRECISION_SINGLE
} DMBrickPrecision;
PETSC_EXTERN const char *const DMBrickPrecisions[];

/*E
   DMBrickPartition - how the ranks split a brick's cells

$  DMBRICK_PARTITION_P4EST - p4est's space-filling curve over the cells of a forest (the coarse cells are its trees): any
$                            domain (cells removed, periodic directions); the default for a domain that is not a full box
$  DMBRICK_PARTITION_GRID  - a process grid of boxes with the smallest cut (full, non-periodic boxes; their default)
$  DMBRICK_PARTITION_SLABS - slabs along the last direction (full, non-periodic boxes; `DMBrickSetSlabs()`)

   Level: intermediate

.seealso: `DMBrickSetPartition()`, `DMBrickSetRemovedCells()`, `DMBrickSetPeriodic()`
E*/
typedef enum {
  DMBRICK_PARTITION_P4EST,
  DMBRICK_PARTITION_GRID,
  DMBRICK_PARTITION_SLABS
} DMBrickPartition;
PETSC_EXTERN const char *const DMBrickPartitions[];

/* A scalar function of a point: used for right-hand sides, exact solutions and interpolation. */
typedef PetscErrorCode (*DMBrickPointFunction)(PetscInt dim, const PetscReal x[], PetscScalar *value, void *ctx);
/* the gradient g[d] = du/dx_d of a function at x */
typedef PetscErrorCode (*DMBrickGradientFunction)(PetscInt dim, const PetscReal x[], PetscReal g[], void *ctx);
/* the Hessian H[d*dim+e] = d^2 u / dx_d dx_e of a function at x */
typedef PetscErrorCode (*DMBrickHessianFunction)(PetscInt dim, const PetscReal x[], PetscScalar H[], void *ctx);
/* a factor of a separable function f(x) = sum_t prod_d f(t, d, x_d): the value of term t's factor along direction d */
typedef PetscErrorCode (*DMBrickSeparableFunction)(PetscInt term, PetscInt direction, PetscReal x, PetscScalar *value, void *ctx);

PETSC_EXTERN PetscErrorCode VPatchInitializePackage(void);
PETSC_EXTERN PetscErrorCode VPatchFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscvpatch(void);

PETSC_EXTERN PetscErrorCode DMBrickCreate(MPI_Comm, DM *);
PETSC_EXTERN PetscErrorCode DMBrickSetDimension(DM, PetscInt);
PETSC_EXTERN PetscErrorCode DMBrickSetCells(DM, const PetscInt[]);
PETSC_EXTERN PetscErrorCode DMBrickSetDomain(DM, const PetscReal[], const PetscReal[]);
PETSC_EXTERN PetscErrorCode DMBrickSetDegree(DM, PetscInt);
PETSC_EXTERN PetscErrorCode DMBrickSetFamily(DM, DMBrickFamily);
PETSC_EXTERN PetscErrorCode DMBrickSetOperator(DM, const char[]);
PETSC_EXTERN PetscErrorCode DMBrickSetMGPrecision(DM, DMBrickPrecision);
PETSC_EXTERN PetscErrorCode DMBrickSetVerifyConvergence(DM, PetscBool);
PETSC_EXTERN PetscErrorCode DMBrickSetThreads(DM, PetscInt);
PETSC_EXTERN PetscErrorCode DMBrickSetSIMD(DM, PetscBool);
PETSC_EXTERN PetscErrorCode DMBrickSetRankMinDoFs(DM, PetscInt);
PETSC_EXTERN PetscErrorCode DMBrickSetSlabs(DM, PetscBool);
PETSC_EXTERN PetscErrorCode DMBrickSetRemovedCells(DM, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode DMBrickSetPeriodic(DM, const PetscBool[]);
PETSC_EXTERN PetscErrorCode DMBrickSetPartition(DM, DMBrickPartition);
PETSC_EXTERN PetscErrorCode DMBrickGetForestInfo(DM, PetscBool *, PetscInt64 *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode DMBrickGetInfo(DM, PetscInt *, PetscInt[], PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode DMBrickSynchronize(DM);
PETSC_EXTERN PetscErrorCode DMBrickGetDomain(DM, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode DMBrickGetOperator(DM, const char **);
PETSC_EXTERN PetscErrorCode DMBrickRegisterOperator(const char[], PetscErrorCode (*)(DM));

PETSC_EXTERN PetscErrorCode DMBrickCreateOperator(DM, MatType, Mat *);
PETSC_EXTERN PetscErrorCode DMBrickGetOperatorSize(DM, PetscInt *, PetscInt64 *);
PETSC_EXTERN PetscErrorCode DMBrickCreateInterpolation(DM, DM, MatType, Mat *);
PETSC_EXTERN PetscErrorCode DMBrickInterpolateFunction(DM, DMBrickPointFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode DMBrickComputeLoadVector(DM, DMBrickPointFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode DMBrickComputeL2Error(DM, Vec, DMBrickPointFunction, void *, PetscReal *);
PETSC_EXTERN PetscErrorCode DMBrickSetBoundaryFunction(DM, DMBrickPointFunction, void *);
PETSC_EXTERN PetscErrorCode DMBrickComputeLoadVectorSeparable(DM, PetscInt, DMBrickSeparableFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode DMBrickComputeL2ErrorSeparable(DM, Vec, PetscInt, DMBrickSeparableFunction, void *, PetscReal *);
PETSC_EXTERN PetscErrorCode DMBrickComputeBrokenH2Error(DM, Vec, DMBrickHessianFunction, void *, PetscReal *);
PETSC_EXTERN PetscErrorCode DMBrickC0IPAddNormalDerivative(DM, DMBrickGradientFunction, void *, Vec);
