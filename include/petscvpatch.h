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

/*E
   DMBrickFamily - continuity of the brick's finite element space

$  DMBRICK_CG - continuous Q_k, nodal on the Gauss-Lobatto grid
$  DMBRICK_DG - discontinuous Q_k, cell-wise (not supported yet)

   Level: beginner
E*/
typedef enum {
  DMBRICK_CG,
  DMBRICK_DG
} DMBrickFamily;
PETSC_EXTERN const char *const DMBrickFamilies[];

/* A scalar function of a point: used for right-hand sides, exact solutions and interpolation. */
typedef PetscErrorCode (*DMBrickPointFunction)(PetscInt dim, const PetscReal x[], PetscScalar *value, void *ctx);

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
PETSC_EXTERN PetscErrorCode DMBrickGetInfo(DM, PetscInt *, PetscInt[], PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode DMBrickGetDomain(DM, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode DMBrickGetOperator(DM, const char **);
PETSC_EXTERN PetscErrorCode DMBrickRegisterOperator(const char[], PetscErrorCode (*)(DM));

PETSC_EXTERN PetscErrorCode DMBrickCreateOperator(DM, MatType, Mat *);
PETSC_EXTERN PetscErrorCode DMBrickCreateInterpolation(DM, DM, MatType, Mat *);
PETSC_EXTERN PetscErrorCode DMBrickInterpolateFunction(DM, DMBrickPointFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode DMBrickComputeLoadVector(DM, DMBrickPointFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode DMBrickComputeL2Error(DM, Vec, DMBrickPointFunction, void *, PetscReal *);
