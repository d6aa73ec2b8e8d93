/* Private layout of DMBRICK, shared by src/dm, src/mat and src/pc (which read it, never write it). */
#pragma once

#include <petscvpatch.h>
#include <petscdmda.h>
#include <petsc/private/dmimpl.h>
#include "../vpatchcompat.h"

#define BRICK_MAX_DEGREE 8

/* What an operator ("laplace", later "c0ip", "sipg") tells the brick about itself. An operator is
   registered by name with DMBrickRegisterOperator(); its setup function fills this table. */
typedef struct {
  PetscInt min_degree;                      /* smallest polynomial degree the discretization supports */
  PetscInt ghost_cells;                     /* layers of neighbour cells a matrix-vector product reads: DMDA width = ghost_cells*k */
  PetscErrorCode (*createshell)(DM, Mat *); /* matrix-free operator */
  PetscErrorCode (*assemble)(DM, Mat);      /* fill a preallocated assembled matrix */
} DMBrickOperatorOps;

typedef struct {
  /* description (set before DMSetUp) */
  PetscInt      dim;
  PetscInt      degree;
  DMBrickFamily family;
  char          opname[64];
  PetscInt      cells0[3]; /* the level-0 (coarse) grid, -dm_brick_cells */
  PetscReal     lower[3], upper[3];
  char         *coarse_mattype; /* matrix type of levels <= 0 */

  /* layout (made by DMSetUp, fixed afterwards) */
  PetscInt           level;              /* DMGetRefineLevel() - DMGetCoarsenLevel() */
  PetscInt           cells[3];           /* cells of this level: cells0 * 2^level */
  PetscMPIInt        procs[3];           /* MPI process grid, the same on every level */
  PetscInt          *cellranges0[3];     /* level-0 ownership: rank i along d owns cells [r[i], r[i+1]) times 2^level */
  PetscInt           cstart[3], cend[3]; /* cells owned by this rank on this level */
  DM                 da;                 /* DMDA of the interior Gauss-Lobatto nodes */
  DMBrickOperatorOps op;
  PetscReal          nodes[BRICK_MAX_DEGREE + 1]; /* GLL points on [0,1] */
} DM_Brick;

/* A box of full-grid nodes (boundary included), in the grid's own numbering: node f along d lies at
   lower[d] + f*h[d]/k. The box holds [lo, hi] inclusive, x fastest; unused directions have lo = hi = 0. */
typedef struct {
  PetscInt lo[3], hi[3];
} BrickBox;

static inline PetscInt BrickBoxSize(const BrickBox *b)
{
  return (b->hi[0] - b->lo[0] + 1) * (b->hi[1] - b->lo[1] + 1) * (b->hi[2] - b->lo[2] + 1);
}

PETSC_INTERN PetscErrorCode DMBrickGetImpl_Private(DM, DM_Brick **);
PETSC_INTERN PetscErrorCode DMBrickCellSize_Private(DM, PetscReal[]);
PETSC_INTERN PetscErrorCode DMBrickOwnedCellBox_Private(DM, BrickBox *);
PETSC_INTERN PetscErrorCode DMBrickOwnedNodeBox_Private(DM, BrickBox *);
PETSC_INTERN PetscErrorCode DMBrickLocalToBox_Private(DM, const PetscScalar[], const BrickBox *, PetscScalar[]);
PETSC_INTERN PetscErrorCode DMBrickBoxAddToLocal_Private(DM, const BrickBox *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode DMBrickGlobalToBox_Private(DM, const PetscScalar[], const BrickBox *, PetscScalar[]);
PETSC_INTERN PetscErrorCode DMBrickBoxToGlobal_Private(DM, const BrickBox *, const PetscScalar[], PetscScalar[]);

/* 1D Q_k basis on the Gauss-Lobatto points of [0,1] (brickbasis.c) */
PETSC_INTERN PetscErrorCode BrickBasisNodes(PetscInt, PetscReal[]);
PETSC_INTERN PetscErrorCode BrickBasisEvaluate(PetscInt, const PetscReal[], PetscInt, const PetscReal[], PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode BrickBasisProlongation(PetscInt, const PetscReal[], PetscReal[]);

/* Tensor contractions on boxes of values, x fastest (bricktensor.c) */
PETSC_INTERN void BrickTensorApply1D(PetscInt, const PetscInt[], PetscInt, const PetscReal[], const PetscScalar[], PetscScalar[]);
PETSC_INTERN void BrickTensorApply1D_f(PetscInt, const PetscInt[], PetscInt, const float[], const float[], float[]);

PETSC_EXTERN PetscLogEvent DMBRICK_Interpolate, DMBRICK_Restrict, DMBRICK_Assemble, DMBRICK_Setup;
