/* Private data of PCHFEM: the prehandled hierarchical-basis Schur-complement direct solver [RTRZ21] for 2D Q1 Poisson on
   a brick, method M1 (eq. 13-17).

   A solve of n right-hand sides (the columns of a dense N x n matrix) runs on vectors in the set order [C; E; I]:
     Z = T b                    T: the hierarchical transform S^T, the set order and the diagonal prehandling
     forward:  Z_C = L_C^-1 Z_C,  Y_I = C^-1 Z_I,  Z_E -= B^T Z_C
     W = D Y                    D: the prehandled E-I block in the set order (sparse)
     middle:   Z_E -= W_E,  Y_E = Pi^-1 Z_E,  Z_C -= B Y_E
     W = D^T Y
     backward: Z_I -= W_I,  Y_I = C^-1 Z_I,  Y_C = L_C^-T Z_C
     x = T^T Y
   T and T^T are level-wise stencils (hfemstencil.c) or sparse products; D and D^T are sparse products (PETSc's AIJ or
   AIJCUSPARSE times dense); the three dense stages run on the host
   (hfemhost.c, BLAS) or on the GPU (hfemdevice.c and cuda/vphfem.cu, cuBLAS), C^-1 and Pi^-1 in the chosen precision. */
#pragma once

#include "../../dm/brickimpl.h"
#include <petsc/private/pcimpl.h>

typedef enum {
  PC_HFEM_DOUBLE,
  PC_HFEM_SINGLE,
  PC_HFEM_HALF,
  PC_HFEM_BFLOAT16
} PCHFEMPrecision;

PETSC_INTERN const char *const PCHFEMPrecisions[];

/* how T and T^T are applied: level-wise stencils (hfemstencil.c) or the explicit sparse matrices (the nodal variant's
   only way) */
typedef enum {
  PC_HFEM_TRANSFORM_STENCIL,
  PC_HFEM_TRANSFORM_SPARSE
} PCHFEMTransform;

PETSC_INTERN const char *const PCHFEMTransforms[];

/* What the backends invert: C_1, one macro cell's prehandled I-I block (nb x nb), and the pieces of
   Pi = E - sum_k D_k C_1^-1 D_k^T - B^T B (eq. 13-14): the prehandled E-E block as triples, and for each macro cell the
   E nodes it couples to (nr per cell, -1 where a cell has fewer) with the type of its block D_k C_1^-1 D_k^T (cells
   whose D_k are equal share one block G, so a uniform grid needs one per kind of boundary position). */
typedef struct {
  PetscScalar *C1;
  PetscInt     nnz, *ei, *ej;
  PetscScalar *ev;
  PetscInt     nr, ntype, *cellE, *celltype;
  PetscScalar *G; /* ntype blocks nr x nr */
} PCHFEMParts;

typedef struct {
  /* options */
  PetscInt        macro_level; /* PETSC_DETERMINE: chosen by the cost model; may be negative (below the coarse grid) */
  PCHFEMPrecision precision;
  PetscBool       tf32;      /* single precision on TF32 tensor cores (GPU; emulated on the host) */
  PetscBool       prehandle; /* hierarchical basis and prehandling (eq. 2-5); false: the nodal system (Fig. 5's reference) */
  PetscBool       condition; /* compute kappa(C_1) and kappa(Pi) at setup */
  PetscInt        maxcols;   /* right-hand sides per pass of PCMatApply */
  PetscBool       timers;    /* GPU: time the steps of the dense stages (-pc_hfem_gpu_timers) */
  PetscBool       nodemajor; /* GPU with the stencils: the whole solve on node-major work arrays (-pc_hfem_node_major) */
  PetscBool       fused;     /* node-major: the transform and the packing macro cell by macro cell (-pc_hfem_fused) */
  PetscBool       fold;      /* the E-I couplings folded into the C^-1 products (-pc_hfem_fold, hfemfold.c) */
  PCHFEMTransform transform; /* as set (-pc_hfem_transform) */

  /* setup */
  DM           dm;
  PetscBool    device;             /* the brick's vectors live on the GPU: so does everything here */
  PetscInt     level, m;           /* the brick's level and the macro level */
  PetscInt     nx, ny, s;          /* fine cells per direction; fine cells per macro cell edge (2^(level - m)) */
  PetscInt     N, nC, nE, nI;      /* interior nodes, and the sizes of the three sets */
  PetscInt     nb, ncell;          /* I nodes per macro cell ((s-1)^2) and macro cells */
  PetscInt    *idxC, *idxE, *idxI; /* the nodes of each set (brick's global numbering), in the set's order */
  Mat          T, Tt, D, Dt;       /* N x N sparse: the forward transform, its transpose (NULL with the stencils), the E-I block and its transpose */
  PetscBool    stencil;            /* the transform in use is the stencils' (prehandled only: the nodal variant's S has no level factors) */
  PetscInt     nnzD, nnzDt;        /* entries of D and D^T in their blocks (the GPU's flop count) */
  PetscInt    *order;              /* stencil transform: the node at each place of the set order */
  PetscScalar *scale;              /* and the prehandling's scaling there (T = diag(scale) P S^T) */
  void        *gputransform;       /* VPCudaHFEMTransform */
  PetscScalar *LC;                 /* Cholesky factor of the (hierarchical) C-C block (lower, column-major) */
  PetscScalar *B;                  /* prehandled C-E block, nC x nE, column-major (the host backend applies L_C^-1 to it) */
  PetscReal    kappaC, kappaPi;    /* with -pc_hfem_condition */

  /* the folded couplings (hfemfold.c): every macro cell couples to the E nodes of its boundary through the same block
     D_s^T (nb x ns) at the ns = 4 s slots of its boundary (bottom, right, top, left; the corners are C nodes), and
     G = C_1^-1 D_s^T. Host store: FA = G^T (ns x nb) and FB = [C_1^-1 | -G / alpha] (nb x (nb + ns)), column-major,
     double, or float (scaled by sFA, sFB and rounded to the format as the inverses) */
  PetscBool    folded;   /* this setup folded them (-pc_hfem_fold and every cell's D_k^T is D_s^T at its slots) */
  PetscInt     ns;       /* slots of a macro cell's boundary (4 s) */
  PetscInt    *slotE;    /* ncell x ns: the E place (0..nE-1) at each slot of each cell, -1 for none */
  PetscScalar *Gs;       /* G (nb x ns), kept for the GPU's store */
  PetscReal    alpha;    /* the weight of Y_E in the packed back substitution (a power of 2) */
  PetscInt     nnzDs;    /* entries of D_s^T */
  PetscScalar *FA, *FB;
  float       *FAf, *FBf;
  PetscReal    sFA, sFB;

  /* the host's dense store: double, or float (single; half and bfloat16 emulated: values rounded to the format) */
  PetscScalar *Cinv, *Piinv;
  float       *Cinvf, *Piinvf;
  PetscReal    sC, sPi; /* scales of the stored inverses (16-bit formats: the largest entry) */
  float       *pack, *packout;
  size_t       packcap;
  void        *gpu; /* VPCudaHFEM */

  /* work for the current number of columns: Bin (input), Y, and the products Z = T Bin, W = D Y, W2 = D^T Y, Xo = T^T Y
     (on the GPU, D and D^T update Z in place: W is only the stencils' scratch, W2 is NULL) */
  PetscInt wcols;
  Mat      Bin, Y, Z, W, W2, Xo;
} PC_HFEM;

PETSC_INTERN PetscErrorCode PCHFEMSetUpSets_Private(PC);
PETSC_INTERN PetscErrorCode PCHFEMSetUpTransform_Private(PC, Mat, PCHFEMParts *, Mat *);
PETSC_INTERN PetscErrorCode PCHFEMPartsDestroy_Private(PCHFEMParts *);
PETSC_INTERN PetscErrorCode PCHFEMCondition_Private(PetscInt, const PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode PCHFEMInvertSPD_Private(PetscInt, PetscScalar *, const char *);
PETSC_INTERN PetscErrorCode PCHFEMSetUpCells_Private(PC, PCHFEMParts *, PetscScalar *);
PETSC_INTERN PetscErrorCode PCHFEMAssemblePi_Private(PC, const PCHFEMParts *, PetscScalar *);

PETSC_INTERN PetscErrorCode PCHFEMTransformForward_Private(PC);
PETSC_INTERN PetscErrorCode PCHFEMTransformBackward_Private(PC);
PETSC_INTERN PetscErrorCode PCHFEMSetUpTransformDevice_Private(PC);
PETSC_INTERN PetscErrorCode PCHFEMResetTransform_Private(PC);

PETSC_INTERN PetscErrorCode PCHFEMSetUpFold_Private(PC, const PetscScalar *);
PETSC_INTERN PetscErrorCode PCHFEMResetFold_Private(PC);
PETSC_INTERN PetscErrorCode PCHFEMFoldCouple_Host(PC, PetscInt, PetscScalar *, PetscInt);
PETSC_INTERN PetscErrorCode PCHFEMFoldBack_Host(PC, PetscInt, const PetscScalar *, PetscScalar *, PetscInt);
PETSC_INTERN float          PCHFEMRoundInput_Private(PC_HFEM *, float);
PETSC_INTERN PetscErrorCode PCHFEMStore_Private(PC, PetscInt, PetscScalar *, PetscScalar **, float **, PetscReal *);
PETSC_INTERN PetscErrorCode PCHFEMSetUpDense_Host(PC, const PCHFEMParts *, PetscScalar *);
PETSC_INTERN PetscErrorCode PCHFEMSolveStages_Host(PC);
PETSC_INTERN PetscErrorCode PCHFEMReset_Host(PC);

#if defined(VP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode PCHFEMSetUpDense_Device(PC, const PCHFEMParts *, PetscScalar *);
PETSC_INTERN PetscErrorCode PCHFEMSolveStages_Device(PC);
PETSC_INTERN PetscErrorCode PCHFEMReset_Device(PC);
PETSC_INTERN PetscErrorCode PCHFEMViewTimes_Device(PC, PetscViewer);
PETSC_INTERN PetscErrorCode PCHFEMSetUpCoupling_Device(PC);
PETSC_INTERN PetscErrorCode PCHFEMNodeMajor_Device(PC, PetscInt, PetscBool *);
PETSC_INTERN PetscErrorCode PCHFEMFused_Device(PC, PetscBool *);
PETSC_INTERN PetscErrorCode PCHFEMSolveNodeMajor_Device(PC, PetscInt, const PetscScalar *, PetscInt, PetscScalar *, PetscInt);
#endif

PETSC_EXTERN PetscLogEvent PC_HFEMSetUp, PC_HFEMApply, PC_HFEMTransform, PC_HFEMInvert, PC_HFEMApplyT, PC_HFEMApplyD, PC_HFEMApplyDense;
