/* Private data of PCHFEM: the prehandled hierarchical-basis Schur-complement direct solver [RTRZ21] for 2D Q1 Poisson on
   a brick, method M1 (eq. 13-17): the hierarchical transform S (sparse), the prehandling scalings, the node sets C / E / I
   and the dense blocks B, C_1^-1 (one for all congruent macro cells) and Pi^-1. */
#pragma once

#include "../../dm/brickimpl.h"
#include <petsc/private/pcimpl.h>

typedef enum {
  PC_HFEM_DOUBLE,
  PC_HFEM_SINGLE,
  PC_HFEM_HALF,
  PC_HFEM_BFLOAT16
} PCHFEMPrecision;

typedef struct {
  /* options */
  PetscInt        macro_level; /* PETSC_DETERMINE: chosen by the cost model; may be negative (below the coarse grid) */
  PCHFEMPrecision precision;
  PetscBool       condition; /* compute kappa(C_1) and kappa(Pi) at setup (LAPACK) */

  /* setup */
  DM           dm;
  PetscInt     level, m;           /* the brick's level and the macro level */
  PetscInt     nx, ny, s;          /* fine cells per direction; fine cells per macro cell edge (2^(level - m)) */
  PetscInt     N, nC, nE, nI;      /* interior nodes, and the sizes of the three sets */
  PetscInt     nb, ncell;          /* I nodes per macro cell ((s-1)^2) and macro cells */
  PetscInt    *idxC, *idxE, *idxI; /* the nodes of each set (brick's global numbering), in the set's order */
  Mat          S;                  /* nodal = S hierarchical (N x N) */
  Mat          D;                  /* the prehandled E-I block (sparse) */
  PetscScalar *LC;                 /* Cholesky factor of the hierarchical C-C block (lower, column-major) */
  PetscScalar *sE, *sI;            /* 1/sqrt of the hierarchical diagonal on E and I */
  PetscScalar *B;                  /* prehandled C-E block, nC x nE, column-major */
  PetscScalar *C1inv;              /* the inverse of one macro cell's prehandled I-I block, nb x nb */
  PetscScalar *Piinv;              /* Pi^-1, nE x nE */
  PetscReal    kappaC, kappaPi;    /* with -pc_hfem_condition */
  Vec          bt, xt, wE, wI;     /* work: hierarchical vectors, E and I parts */
  PetscScalar *work;
} PC_HFEM;

PETSC_INTERN PetscErrorCode PCHFEMSetUpSets_Private(PC);
PETSC_INTERN PetscErrorCode PCHFEMSetUpTransform_Private(PC, Mat);
PETSC_INTERN PetscErrorCode PCHFEMApplyVec_Private(PC, Vec, Vec);

PETSC_EXTERN PetscLogEvent PC_HFEMSetUp, PC_HFEMApply;
