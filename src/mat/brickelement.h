/* Element-level building blocks of the brick operators (src/mat). */
#pragma once

#include "../dm/brickimpl.h"

#define BRICK_MAX_N (BRICK_MAX_DEGREE + 1)

/* 1D reference matrices on [0,1] for the Gauss-Lobatto Lagrange basis, (k+1) x (k+1), row-major. */
PETSC_INTERN PetscErrorCode BrickElementMatrices1D(PetscInt, const PetscReal[], PetscReal[], PetscReal[]);
/* Gauss points and weights on [0,1], and the basis evaluated there (nq x (k+1)) */
PETSC_INTERN PetscErrorCode BrickElementQuadrature(PetscInt, const PetscReal[], PetscInt, PetscReal[], PetscReal[], PetscReal[]);
/* Local (ghosted) index of every node of a cell, -1 on the boundary: the node order of a cell vector. */
PETSC_INTERN PetscErrorCode BrickCellLocalIndices(DM, const PetscInt[], PetscInt[]);
/* the rank's cells one by one, on a box or a forest (brickfe.c): their count, and cell c's lattice position and node indices */
PETSC_INTERN PetscInt       BrickFECellCount(const DM_Brick *, const BrickBox *);
PETSC_INTERN PetscErrorCode BrickFECell(DM, const BrickBox *, PetscInt, PetscInt[], PetscInt[]);
/* boundary data (brickboundary.c): a cell's Dirichlet values, and the lifting of the load vector */
PETSC_INTERN PetscErrorCode DMBrickBoundaryCellValues_Private(DM, const PetscReal[], const PetscInt[], const PetscInt[], PetscScalar[], PetscBool *);
PETSC_INTERN PetscErrorCode DMBrickSubtractBoundaryLift_Private(DM, Vec);
/* the rank's part of the squared L2 error: exact a point function, or (exact NULL) separable terms tabulated at the
   Gauss points of the owned cells (brickfe.c, brickseparable.c) */
PETSC_INTERN PetscErrorCode DMBrickL2ErrorSum_Private(DM, Vec, DMBrickPointFunction, void *, PetscInt, const PetscScalar[], PetscReal *);
/* where the table of term t along direction d starts in the packed 1D tables of a separable function: terms one after
   the other, each x, y, z with len[d] entries (2D: z holds the single 1); cuda/vpseparable.cu packs them alike */
static inline size_t BrickSeparableOffset(const PetscInt len[3], PetscInt t, PetscInt d)
{
  return (size_t)t * (len[0] + len[1] + len[2]) + (d > 0 ? len[0] : 0) + (d > 1 ? len[1] : 0);
}

PETSC_INTERN PetscErrorCode BrickShellCreate(DM, void *, PetscErrorCode (*)(void *), PetscErrorCode (*)(Mat, Vec, Vec), PetscErrorCode (*)(Mat, Vec), Mat *);

/* int phi_i'' phi_j'' on [0,1] and phi', phi'' at the end points 0 and 1 */
PETSC_INTERN PetscErrorCode BrickElementSecondDerivatives(PetscInt, const PetscReal[], PetscReal[], PetscReal[2][BRICK_MAX_N], PetscReal[2][BRICK_MAX_N]);

/* 1D matrices of the Kronecker forms (brickline.c) */
PETSC_INTERN PetscErrorCode BrickLineCreate(DM, PetscInt, PetscBool, BrickLine *);
PETSC_INTERN PetscErrorCode BrickLineDestroy(BrickLine *);
PETSC_INTERN PetscErrorCode BrickC0IPSubtractBoundaryLift_Private(DM, Vec);       /* c0ip.c: clamped boundary values lifted */
PETSC_INTERN PetscErrorCode BrickC0IPForestSubtractBoundaryLift_Private(DM, Vec); /* c0ipforest.c: the same on a forest */
PETSC_INTERN PetscReal      BrickC0IPPenalty(PetscInt);
PETSC_INTERN PetscErrorCode BrickKronApplyBox(PetscInt, const BrickKronForm *, const BrickLine[], const BrickBox *, const PetscScalar[], const BrickBox *, PetscScalar[], PetscScalar[], PetscInt);
PETSC_INTERN PetscInt       BrickKronApplyWorkSize(PetscInt, const BrickBox *, const BrickBox *);
PETSC_INTERN PetscReal      BrickKronEntry(PetscInt, const BrickKronForm *, const BrickLine[], const PetscInt[], const PetscInt[]);

/* the laplace cell's 1D matrices (laplace.c) */
PETSC_INTERN PetscErrorCode BrickLaplaceMatrices1D(DM, PetscReal[][BRICK_MAX_N * BRICK_MAX_N], PetscReal[][BRICK_MAX_N * BRICK_MAX_N]);
/* the GPU path (brickgpu.c): gpu holds a VPCudaKron (or VPCudaCellLaplace) of cuda/ behind a void pointer */
PETSC_INTERN PetscErrorCode BrickTryGPUDiagonal(DM, Vec, PetscBool *);
#if defined(VP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode BrickKronGPUCreate(DM, const BrickKronForm *, const BrickLine[], void **);
PETSC_INTERN PetscErrorCode BrickKronGPUDestroy(void **);
PETSC_INTERN PetscErrorCode BrickKronGPUMult(DM, void *, PetscBool, Vec, Vec);
/* the operator's diagonal from its Kronecker form, on the device */
PETSC_INTERN PetscErrorCode BrickGPUDiagonal(DM, Vec);
/* the Laplacian's cell-wise kernel (a VPCudaCellLaplace) */
PETSC_INTERN PetscErrorCode BrickLaplaceGPUCreate(DM, const PetscReal[][BRICK_MAX_N * BRICK_MAX_N], const PetscReal[][BRICK_MAX_N * BRICK_MAX_N], void **);
PETSC_INTERN PetscErrorCode BrickLaplaceGPUDestroy(void **);
PETSC_INTERN PetscErrorCode BrickLaplaceGPUMult(DM, void *, Vec, Vec);
#endif

/* C0IP on forest levels (c0ipforest.c): a cell's 1D pieces. M, L, H per direction (h M, L/h, H/h^3; 2D: z a single 1);
   an interior face normal to d: J (jump of d_n) and A (mean of d_nn) over the lower cell's n nodes then the upper's, and
   sigma; a boundary face on a cell's lower (0) or upper (1) side: one-sided Jb, Ab and the doubled sigmab. */
typedef struct {
  PetscInt  dim, n;
  PetscReal M[3][BRICK_MAX_N * BRICK_MAX_N], L[3][BRICK_MAX_N * BRICK_MAX_N], H[3][BRICK_MAX_N * BRICK_MAX_N];
  PetscReal J[3][2 * BRICK_MAX_N], A[3][2 * BRICK_MAX_N], sigma[3];
  PetscReal Jb[3][2][BRICK_MAX_N], Ab[3][2][BRICK_MAX_N], sigmab[3];
} BrickC0IPCell;
PETSC_INTERN PetscErrorCode BrickC0IPCellSetUp(DM, BrickC0IPCell *);
PETSC_INTERN PetscReal      BrickC0IPCellEntry(const BrickC0IPCell *, PetscInt, PetscInt);
PETSC_INTERN PetscReal      BrickC0IPFaceEntry(const BrickC0IPCell *, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt);
PETSC_INTERN void           BrickC0IPCellApply(const BrickC0IPCell *, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN void           BrickC0IPFaceApply(const BrickC0IPCell *, PetscInt, PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *);
#if defined(VP_HAVE_CUDA)
  #include <vpatch_cuda.h>
PETSC_INTERN void BrickC0IPCellToCuda(const BrickC0IPCell *, VPCudaC0IPCell *);
#endif
PETSC_INTERN PetscErrorCode BrickC0IPForestCreateShell(DM, Mat *);
PETSC_INTERN PetscErrorCode BrickC0IPForestAssemble(DM, Mat);

PETSC_INTERN PetscErrorCode DMBrickOperatorCreate_Laplace(DM);
PETSC_INTERN PetscErrorCode DMBrickOperatorCreate_C0IP(DM);
PETSC_INTERN PetscErrorCode DMBrickOperatorCreate_SIPG(DM);
