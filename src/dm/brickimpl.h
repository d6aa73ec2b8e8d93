/* Private layout of DMBRICK, shared by src/dm, src/mat and src/pc (which read it, never write it). */
#pragma once

#include <petscvpatch.h>
#include <petscsf.h>
#include <petsc/private/dmimpl.h>
#include "../vpatchcompat.h"

#define BRICK_MAX_DEGREE 8

/* The kinds of 1D matrices an operator on a Cartesian brick is built from (see BrickLine). */
typedef enum {
  BRICK_LINE_MASS,       /* int phi_i phi_j */
  BRICK_LINE_STIFFNESS,  /* int phi_i' phi_j' */
  BRICK_LINE_BIHARMONIC, /* int phi_i'' phi_j'' plus the C0IP face terms of the 1D points (src/mat/c0ip.c) */
  BRICK_LINE_NKINDS
} BrickLineKind;

/* The operator as a sum of Kronecker products of 1D matrices, A = sum_t coef[t] (x)_d G_d^{kind[t][d]}, with
   G_d the 1D matrix of direction d over the whole 1D grid (BrickLine). Exact for constant coefficients on
   the brick's Cartesian mesh. The vertex-patch smoother takes its patch problems from it; `separable` is
   the kind whose Kronecker sum with masses, sum_d M (x) .. (x) G^separable_d (x) .. (x) M, is the part a
   fast-diagonalization local solver inverts (exact when the form has only those terms). */
#define BRICK_KRON_MAX_TERMS 6
typedef struct {
  PetscInt      nterms;
  PetscReal     coef[BRICK_KRON_MAX_TERMS];
  BrickLineKind kind[BRICK_KRON_MAX_TERMS][3];
  BrickLineKind separable;
} BrickKronForm;

/* A banded 1D matrix for each kind over the full 1D grid of a direction, nodes 0..n-1 (boundary included):
   entry (i, j), |i - j| <= bw, is a[kind][i*(2 bw + 1) + j - i + bw]; a[kind] is NULL for kinds not built. The same by
   diagonals for the host contractions along x (brickline.c): diag[kind][(t + bw) n + i] = entry (i, i + t), and hb[kind]
   the largest |t| with a non-zero entry. */
typedef struct {
  PetscInt   n, bw;
  PetscReal *a[BRICK_LINE_NKINDS];
  PetscReal *diag[BRICK_LINE_NKINDS];
  PetscInt   hb[BRICK_LINE_NKINDS];
} BrickLine;

static inline PetscReal BrickLineEntry(const BrickLine *L, BrickLineKind kind, PetscInt i, PetscInt j)
{
  if (i < 0 || j < 0 || i >= L->n || j >= L->n || j - i > L->bw || i - j > L->bw) return 0.0;
  return L->a[kind][i * (2 * L->bw + 1) + j - i + L->bw];
}

/* A DG operator along one direction of the Cartesian mesh (sipg): the 1D form on a line of cells is block
   tridiagonal with (k+1) x (k+1) blocks, and the d-dimensional operator is the Kronecker sum
   sum_d M (x) .. (x) A_d (x) .. (x) M of these 1D forms with the cell mass matrix M. diag[lb + 2 rb] is the block of
   a cell with itself (lb, rb: its lower / upper face lies on the boundary), upper the block coupling a cell (rows)
   to its upper neighbour (columns); the lower neighbour's block is its transpose. Row-major, as the cell values. */
typedef struct {
  PetscInt  n; /* k + 1 */
  PetscReal mass[(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
  PetscReal diag[4][(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
  PetscReal upper[(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)];
  PetscReal lowerface[(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)]; /* the part of diag[0] from the cell's lower (interior) face */
  PetscReal upperface[(BRICK_MAX_DEGREE + 1) * (BRICK_MAX_DEGREE + 1)]; /* ... from its upper (interior) face */
} BrickDGLine;

/* What an operator ("laplace", "c0ip", "sipg") tells the brick about itself. An operator is
   registered by name with DMBrickRegisterOperator(); its setup function fills this table. */
typedef struct {
  PetscBool dg;                                                  /* a discontinuous (DG, cell-wise) discretization: the brick's family follows */
  PetscInt  min_degree;                                          /* smallest polynomial degree the discretization supports */
  PetscInt  ghost_cells;                                         /* layers of neighbour cells a matrix-vector product reads: DMDA width = ghost_cells*k */
  PetscBool redblack;                                            /* patches of one parity class must also be red-black colored (2^(d+1) colors) */
  PetscReal multiplicative_damping[4];                           /* default damping of the multiplicative smoother, by dimension */
  PetscReal additive_damping[4];                                 /* default damping of the additive smoother, by dimension (the papers' values) */
  PetscBool additive_estimate;                                   /* no proven bound of lambda_max(B A) for the additive sum: estimate it at setup */
  PetscErrorCode (*createshell)(DM, Mat *);                      /* matrix-free operator */
  PetscErrorCode (*assemble)(DM, Mat);                           /* fill a preallocated assembled matrix */
  PetscErrorCode (*kronecker)(DM, BrickKronForm *, BrickLine[]); /* the Kronecker form and its 1D matrices (BrickLineDestroy) */
  PetscErrorCode (*dgline)(DM, PetscInt, BrickDGLine *);         /* DG operators: the 1D form along a direction */
  PetscErrorCode (*describe)(DM, char[], size_t);                /* what the matrix-free operator is, one line for its MatView */
  PetscReal penalty;                                             /* sipg: the penalty factor gamma (sigma = gamma k(k+1)/h) */
} DMBrickOperatorOps;

/* How the ghosts of device vectors move between ranks (brickexchange.c): auto, CUDA IPC where every rank shares one
   host (else PetscSF); ipc, an error where it cannot; mpi, PetscSF always (through the host without GPU-aware MPI) */
typedef enum {
  DMBRICK_GPU_EXCHANGE_AUTO,
  DMBRICK_GPU_EXCHANGE_IPC,
  DMBRICK_GPU_EXCHANGE_MPI
} DMBrickGPUExchange;
PETSC_INTERN const char *const DMBrickGPUExchanges[];

/* A level of a forest domain (brickforest.c): the coarse cells left after -dm_brick_remove are the trees of a p4est (2D) /
   p8est (3D) forest, refined uniformly to the level and partitioned along p4est's space-filling curve. All cells stay
   congruent and axis-aligned, so the brick's 1D matrices and cell kernels stay exact; what changes is the addressing:
   a rank's cells are a list (not a box), and a cell's nodes are read through this table of local-vector indices. A
   cell is known by its lattice position on the level's box (cells0 * 2^level per direction). */
typedef struct {
  PetscInt     dim, k, nv, level; /* dimension, degree, nodes per cell (k+1)^dim, level (0: the trees) */
  PetscInt     n[3];             /* cells per direction of the level's box (1 along unused directions) */
  PetscBool    periodic[3];      /* -dm_brick_periodic */
  PetscInt     ncells, nghost;   /* this rank's cells (p4est's, in curve order), then the ghost layer (cells sharing a corner with them; c0ip on several ranks: two layers) */
  PetscInt    *ijk;              /* 3 lattice coordinates per cell, local ones first, then the ghosts */
  PetscInt    *node;             /* nv per cell (x fastest): index of the node in the local vector, -1 on the Dirichlet boundary (DG: the cell's own values, c nv + i) */
  PetscInt    *face;             /* DG and c0ip (operators with face terms): 2 dim per rank's cell (c0ip: per cell and ghost; lower, upper along x, y, z): the face neighbour among cells and ghosts, -1 on the boundary, -2 beyond the ghost layers */
  PetscInt64   ncellsglobal;     /* cells of the level in the domain */
  PetscInt64  *first;            /* size + 1 entries: each rank's first cell in the curve order (p4est's global_first_quadrant) */
  PetscInt    *tree;             /* per coarse cell (lexicographic): its tree, -1 where removed */
  PetscInt     nowned, nlocal;   /* owned nodes (global numbers rstart ..), local vector length: owned, then ghost nodes */
  PetscInt     rstart;
  PetscInt    *ghostglobal;      /* global number of each ghost node (nlocal - nowned) */
  PetscSF      halo;             /* ghost nodes (leaves) from their owners' global arrays (roots) */
  PetscInt     npatches;         /* owned vertex patches (interior vertices whose node this rank owns) */
  PetscInt     ncolors;          /* colors of the multiplicative sweep: by vertex parity, a third value along a periodic direction of odd cells */
  PetscInt    *colorptr;         /* patches of color c: [colorptr[c], colorptr[c+1]) */
  PetscInt    *patchcell;        /* 2^dim cells per patch (x fastest around its vertex): indices into ijk/node */
  PetscInt    *patchvertex;      /* 3 per patch: the vertex's lattice position (for views and checks) */
  PetscLogDouble tmesh, tlayout; /* wall seconds of this level's set-up on the host: p4est (mesh, partition, ghosts, lnodes), then the tables (for DMView) */
} BrickForest;

/* the global position of cell c (level lattice) along p4est's curve: its tree's offset plus the Morton index inside the
   tree (x the lowest bit, as p4est orders quadrants); -1 for a cell outside the domain */
PETSC_INTERN PetscInt64 BrickForestCurveIndex(const BrickForest *, const PetscInt[], const PetscInt[], PetscInt);

typedef struct {
  /* description (set before DMSetUp) */
  PetscInt           dim;
  PetscInt           degree;
  DMBrickFamily      family;
  PetscBool          family_set; /* set by the user (DMBrickSetFamily, -dm_brick_family): must agree with the operator */
  char               opname[64];
  PetscInt           cells0[3]; /* the level-0 (coarse) grid, -dm_brick_cells */
  PetscReal          lower[3], upper[3];
  char              *coarse_mattype;     /* matrix type of the coarsest level (level -below) when it gets an exact solve */
  DMBrickPrecision   precision;          /* arithmetic of this brick's operator and transfer kernels on the GPU */
  DMBrickPrecision   mg_precision;       /* given to the coarser bricks (DMCoarsen): the levels below this one */
  PetscBool          verify_convergence; /* the KSPs that solve with this brick check a claimed convergence against the true residual */
  PetscBool          device_memory_check;   /* estimate a solve's device memory against the free memory before its first large allocation (-dm_brick_device_memory_check) */
  PetscBool          device_memory_checked; /* done (once per brick, the finest) */
  PetscLogDouble     device_need_bytes;     /* the check's estimate for this rank's GPU (all ranks sharing it) */
  PetscLogDouble     device_free_bytes;     /* the GPU's free memory at the check */
  PetscInt           threads;            /* OpenMP threads of the host laplace product (-dm_brick_threads), given to the other levels */
  PetscBool          simd;               /* host laplace product on SIMD groups of cells (-dm_brick_simd), given to the other levels */
  DMBrickGPUExchange gpu_exchange;       /* how device vectors' ghosts move between ranks (-dm_brick_gpu_exchange), given to the other levels */
  PetscInt           rank_min_dofs;      /* a level that would give a rank fewer DoFs lives on fewer ranks (-dm_brick_rank_min_dofs), given to the other levels */
  PetscBool          slabs;              /* ranks split along the last direction only (-dm_brick_slabs), given to the other levels */
  PetscBool          slabs_set;          /* slabs is decided: asked for, or chosen by the first brick set up (auto) */
  PetscBool          slabs_auto;         /* ... chosen, not asked for (for the views) */
  PetscInt           coarsen_below;      /* -dm_brick_coarsen_below: the most levels the hierarchy goes below cells0 (-1: as far as the cells halve) */
  PetscInt           below;              /* levels the hierarchy goes below cells0: its coarsest level is -below; counted in DMGetRefineLevel() */
  PetscBool          below_set;          /* below is decided (and counted in the refine level): by DMSetUp, or taken from the brick this one came from */
  PetscBool          jacobi_for_sor;     /* -dm_brick_jacobi_for_sor: a smoother left at PETSc's default SOR gets Jacobi on a matrix-free level */
  PetscBool          vtk_mpiio;          /* -dm_brick_vtk_mpiio: VTK files written by every rank through MPI-IO (else rank 0 writes, one rank's piece at a time) */
  PetscErrorCode (*bc)(PetscInt, const PetscReal[], PetscScalar *, void *); /* DMBrickSetBoundaryFunction(): Dirichlet data (NULL: zero) ... */
  void *bcctx;                                                             /* ... and its context */
  PetscInt           coarse_direct_max;  /* -dm_brick_coarse_direct_max: most nonzeros of a coarse problem that gets an exact solve by default */
  PetscInt           coarse_cheby_its;   /* -dm_brick_coarse_chebyshev_its: Chebyshev/Jacobi steps of a larger coarse problem */
  PetscInt           nremoved;           /* -dm_brick_remove: coarse cells not in the domain ... */
  PetscInt          *removed;            /* ... dim coordinates each (3 stored per cell) */
  PetscBool          periodic[3];        /* -dm_brick_periodic: directions whose two ends are identified */
  DMBrickPartition   partition;          /* -dm_brick_partition: p4est (a forest; any domain), grid, slabs (full boxes only) */
  PetscBool          partition_set;      /* asked for (else chosen: p4est for a domain that is not a full box) */
  BrickForest       *forest;             /* the level's forest (NULL: the box layout below) */
  PetscInt           nexchange_ipc;      /* graphs of this level served device to device (CUDA IPC) ... */
  PetscInt           nexchange_mpi;      /* ... and through the host (PetscSF), for DMView */

  /* layout (made by DMSetUp, fixed afterwards). Each level is distributed on its own: over as many ranks as its
     cells allow (ranks 0 .. nactive-1, the active ranks); a level too small for all ranks leaves the others empty
     (agglomeration), and the grid transfer gathers what it needs across the two partitions. */
  PetscInt               level;                /* DMGetRefineLevel() - DMGetCoarsenLevel() */
  PetscInt               cells[3];             /* cells of this level: cells0 * 2^level */
  PetscMPIInt            procs[3];             /* process grid of the active ranks on this level */
  PetscMPIInt            nactive;              /* procs[0] procs[1] procs[2] */
  PetscMPIInt            nfit;                 /* the most ranks the cells allow (more than nactive under rank_min_dofs) */
  PetscBool              inplace;              /* several active ranks, one slab each: global vectors live inside ghosted local arrays (brickinplace.c) */
  PetscBool              inplace_said;         /* -info has said that a global-to-local fetched the ghosts only */
  struct {
    PetscObjectId    gid;    /* a global vector whose owned values a ghosted local vector l holds (as written from it), */
    PetscObjectState gstate; /* in these states: the next product of the global vector only refreshes l's ghosts */
    PetscObjectState lstate;
    Vec              l; /* not referenced: its owner clears the mirror before destroying it */
  } mirror;
  MPI_Comm               activecomm;           /* the active ranks (MPI_COMM_NULL on the others); the DMDA lives on it */
  PetscBool              ownactivecomm;        /* activecomm was split off (and is freed with the brick) */
  PetscInt              *cellranges[3];        /* rank coordinate q along d owns cells [r[q], r[q+1]) of this level */
  PetscInt              *rankoffset;           /* first global index of each active rank, nactive + 1 entries */
  PetscInt               cstart[3], cend[3];   /* cells owned by this rank (empty on an inactive rank) */
  PetscInt               dof;                  /* values per DMDA point: 1 (CG: a point is an interior node), (k+1)^d (DG: a point is a cell) */
  PetscInt               ostart[3], owidth[3]; /* owned DMDA points: CG interior nodes (interior numbering: full-grid node - 1), DG cells */
  PetscInt               gstart[3], gwidth[3]; /* the ghosted local array's points */
  ISLocalToGlobalMapping ltog;                 /* local (ghosted) to global indices, on the brick's communicator; made on first use */
  PetscSF                halo;                 /* several active ranks (else NULL): ghost values of the local array (leaves) from their owners' global arrays (roots), on activecomm */
  DMBrickOperatorOps     op;
  PetscReal              nodes[BRICK_MAX_DEGREE + 1]; /* GLL points on [0,1] */
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
PETSC_INTERN PetscErrorCode DMBrickVecSetView_Private(Vec); /* VTK output (src/mat/brickvtk.c) */
/* forests (brickforest.c, brickp4est.c, brickforesttransfer.c) */
PETSC_INTERN PetscErrorCode DMBrickSetUpForest_Private(DM);
PETSC_INTERN PetscErrorCode DMBrickDestroyForest_Private(DM);
PETSC_INTERN PetscErrorCode DMBrickViewForest_Private(DM, PetscViewer);
PETSC_INTERN PetscErrorCode DMBrickCheckDomain_Private(DM);
PETSC_INTERN PetscErrorCode DMBrickForestCreateInterpolation_Private(DM, DM, MatType, Mat *);
PETSC_INTERN PetscBool      DMBrickForestCellInDomain_Private(const DM_Brick *, PetscInt, const PetscInt[]);
PETSC_INTERN PetscBool DMBrickForestNodeFree_Private(const DM_Brick *, const PetscInt[]); /* all cells touching the lattice node are in the domain */
PETSC_INTERN PetscErrorCode DMBrickForestCheckOperator_Private(DM, const char[]);
PETSC_INTERN PetscErrorCode BrickForestNodeTableInt(const BrickForest *, PetscInt, int **); /* the first cells' table as int, for the GPU (brickgpu.c) */
/* the p4est part: mesh a level and number its nodes (2D and 3D builds of one source, brickp4est.c) */
typedef struct {
  PetscInt    ncells, nghost;
  PetscInt   *ijk;        /* 3 per cell, local then ghost */
  PetscInt   *gnode;      /* CG: nv per cell: global number of each node, -1 on the Dirichlet boundary (DG: none) */
  PetscInt64 *ghostcell;  /* per ghost cell: its number along the curve (p4est's owner and local number) */
  PetscInt    nowned, rstart;
  PetscInt64 *first;      /* size + 1 */
  PetscInt64  ncellsglobal;
} BrickForestMesh;
PETSC_INTERN PetscErrorCode DMBrickForestMesh2D_Private(DM, BrickForestMesh *);
PETSC_INTERN PetscErrorCode DMBrickForestMesh3D_Private(DM, BrickForestMesh *);
PETSC_INTERN PetscErrorCode DMBrickComputeOperators_Private(KSP, Mat, Mat, void *);
PETSC_INTERN PetscErrorCode DMBrickSetUpBelow_Private(DM);
PETSC_INTERN PetscErrorCode DMBrickCoarseDirect_Private(DM, PetscBool *);
PETSC_INTERN PetscErrorCode DMBrickOperatorSize_Private(const DM_Brick *, const PetscInt[], PetscInt64 *, PetscInt64 *);
PETSC_INTERN PetscErrorCode DMBrickKSPDefaults_Private(KSP, DM, Mat);
PETSC_INTERN PetscErrorCode DMBrickCellSize_Private(DM, PetscReal[]);
PETSC_INTERN PetscInt       DMBrickNodeGlobalIndex_Private(const DM_Brick *, const PetscInt[]);
PETSC_INTERN PetscInt       DMBrickCellGlobalIndex_Private(const DM_Brick *, const PetscInt[]);
PETSC_INTERN PetscErrorCode DMBrickCreateInterpolationDG_Private(DM, DM, MatType, Mat *);
PETSC_INTERN PetscErrorCode DMBrickTransferShell_Private(DM, DM, void *, PetscErrorCode (*)(void *), PetscErrorCode (*)(Mat, Vec, Vec), PetscErrorCode (*)(Mat, Vec, Vec), PetscErrorCode (*)(Mat, PetscViewer), Mat *);
PETSC_INTERN PetscErrorCode DMBrickViewLevel_Private(DM, PetscViewer);
PETSC_INTERN PetscErrorCode DMBrickOnDevice_Private(DM, PetscBool *);
PETSC_INTERN PetscErrorCode DMBrickCreateVector_Private(DM, MPI_Comm, PetscInt, Vec *);
PETSC_INTERN PetscErrorCode DMBrickVecsOnDevice_Private(Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode DMBrickCheckDeviceMemory_Private(KSP, DM); /* brickmemory.c */
PETSC_INTERN PetscErrorCode DMBrickReportDeviceMemory_Private(DM);
PETSC_INTERN PetscErrorCode DMBrickCheckDeviceVectorLength_Private(DM, MPI_Comm, PetscInt);
PETSC_INTERN PetscErrorCode DMBrickOwnedCellBox_Private(DM, BrickBox *);
PETSC_INTERN PetscErrorCode DMBrickGetLocalToGlobal_Private(DM, ISLocalToGlobalMapping *);
/* y = x or y += x for n device values (brick.c; an error in a build without CUDA) */
PETSC_INTERN PetscErrorCode DMBrickDeviceCopy_Private(PetscInt, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMBrickOwnedNodeBox_Private(DM, BrickBox *);
PETSC_INTERN PetscErrorCode DMBrickLocalToBox_Private(DM, const PetscScalar[], const BrickBox *, PetscScalar[]);
PETSC_INTERN PetscErrorCode DMBrickGlobalToBox_Private(DM, const PetscScalar[], const BrickBox *, PetscScalar[]);
PETSC_INTERN PetscErrorCode DMBrickBoxToGlobal_Private(DM, const BrickBox *, const PetscScalar[], PetscScalar[]);

/* A box of points of a brick (CG: full-grid nodes, DG: cells) gathered from its global vector and summed back
   (brickgather.c): the owned block copied, the rest through a PetscSF of the other points only */
typedef struct {
  DM        dm;        /* the brick (not referenced: the gather belongs to an object that holds it) */
  BrickBox  box;       /* the points, x fastest, dof values each (empty: none on this rank) */
  BrickBox  own;       /* box with this rank's owned points: a block of the global array */
  PetscBool owncovers; /* on every rank own is all of its points: a scatter back writes them without zeroing first */
  PetscSF   ghost;     /* the box's other interior points: roots the global arrays, leaves vec */
  Vec       vec;       /* the box's values (sequential, dm's vector type) */
} BrickBoxGather;
PETSC_INTERN PetscErrorCode DMBrickBoxGatherCreate_Private(DM, const BrickBox *, BrickBoxGather *);
PETSC_INTERN PetscErrorCode DMBrickBoxGatherDestroy_Private(BrickBoxGather *);
PETSC_INTERN PetscErrorCode DMBrickBoxGather_Private(BrickBoxGather *, PetscBool, Vec);
PETSC_INTERN PetscErrorCode DMBrickBoxScatterAdd_Private(BrickBoxGather *, PetscBool, Vec);

/* 1D Q_k basis on the Gauss-Lobatto points of [0,1] (brickbasis.c) */
PETSC_INTERN PetscErrorCode BrickBasisNodes(PetscInt, PetscReal[]);
PETSC_INTERN PetscErrorCode BrickBasisEvaluate(PetscInt, const PetscReal[], PetscInt, const PetscReal[], PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode BrickBasisProlongation(PetscInt, const PetscReal[], PetscReal[]);

/* Tensor contractions on boxes of values, x fastest (bricktensor.c) */
/* A 1D contraction along dir of a tensor of extents ext[0..2] (x fastest) runs over outer x inner lines: inner is the
   stride of dir, outer the product of the extents after it. */
static inline void BrickTensorLines(PetscInt dir, const PetscInt ext[], PetscInt *inner, PetscInt *outer)
{
  *inner = 1;
  *outer = 1;
  for (PetscInt d = 0; d < dir; d++) *inner *= ext[d];
  for (PetscInt d = dir + 1; d < 3; d++) *outer *= ext[d];
}

/* The contraction lengths the dispatchers of bricktensor_template.h and bricklanes_template.h compile as literals, so that
   the sums unroll: the cells, patch interiors and patch closures of Q_1..Q_8 (1..21 nodes; longer ones run generic code). */
#define BRICK_CONTRACTION_LENGTHS(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21)
PETSC_INTERN void BrickTensorApply1D(PetscInt, const PetscInt[], PetscInt, const PetscReal[], const PetscScalar[], PetscScalar[]);
PETSC_INTERN void BrickTensorApply1D_f(PetscInt, const PetscInt[], PetscInt, const float[], const float[], float[]);
/* the same applied to the nodes [off, off + ncols) along dir only (B: mout x ncols) */
PETSC_INTERN void BrickTensorApply1DRange(PetscInt, const PetscInt[], PetscInt, PetscInt, PetscInt, const PetscReal[], const PetscScalar[], PetscScalar[]);
PETSC_INTERN void BrickTensorApply1DRange_f(PetscInt, const PetscInt[], PetscInt, PetscInt, PetscInt, const float[], const float[], float[]);

/* SIMD across tensors on the CPU (bricklanes.c): BRICK_LANES_D doubles or BRICK_LANES_F floats, one tensor (a cell of the
   laplace product, a vertex patch) per lane of a GCC vector of the build's width: 32 bytes where the compiler targets AVX
   (NATIVE=yes on an AVX machine), 16 (SSE2) in the portable x86-64 build (a vector wider than the instruction set would be
   lowered through memory). Value i of lane l lies at [i][l]; the arrays are aligned to the vector. */
#if defined(__AVX__)
#  define BRICK_SIMD_BYTES 32
#else
#  define BRICK_SIMD_BYTES 16
#endif
#define BRICK_LANES_D (BRICK_SIMD_BYTES / 8)
#define BRICK_LANES_F (BRICK_SIMD_BYTES / 4)
typedef double BrickLaneD __attribute__((vector_size(BRICK_SIMD_BYTES)));
typedef float  BrickLaneF __attribute__((vector_size(BRICK_SIMD_BYTES)));
/* BrickTensorApply1DRange on every lane */
PETSC_INTERN void BrickLaneApply1D(PetscInt, const PetscInt[], PetscInt, PetscInt, PetscInt, const double[], const BrickLaneD[], BrickLaneD[]);
PETSC_INTERN void BrickLaneApply1D_f(PetscInt, const PetscInt[], PetscInt, PetscInt, PetscInt, const float[], const BrickLaneF[], BrickLaneF[]);

/* Even-odd decomposition of a centro-symmetric n x n 1D matrix (brickevenodd.c): its halves E (h x h) and O (m x m),
   m = n/2, h = n - m; the contraction costs h^2 + m^2 multiply-adds a line instead of n^2 */
typedef struct {
  PetscInt  n;
  PetscReal E[((BRICK_MAX_DEGREE + 2) / 2) * ((BRICK_MAX_DEGREE + 2) / 2)], O[((BRICK_MAX_DEGREE + 1) / 2) * ((BRICK_MAX_DEGREE + 1) / 2)];
} BrickEvenOdd;
PETSC_INTERN void        BrickEvenOddCreate(PetscInt, const PetscReal[], BrickEvenOdd *, PetscReal *);
PETSC_INTERN void        BrickEvenOddApply1D(PetscInt, const PetscInt[], const BrickEvenOdd *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN void        BrickEvenOddLaneApply1D(PetscInt, const PetscInt[], const BrickEvenOdd *, const BrickLaneD[], BrickLaneD[]);
PETSC_INTERN const char *BrickSIMDInstructionSet(void);

PETSC_EXTERN PetscLogEvent  DMBRICK_ForestMesh, DMBRICK_ForestLayout, DMBRICK_ForestTransferSetUp; /* forest set-up: p4est's part, the brick's tables and patches, a transfer's gathers */
PETSC_EXTERN PetscLogEvent  DMBRICK_Interpolate, DMBRICK_Restrict, DMBRICK_Assemble, DMBRICK_Setup, DMBRICK_LoadVector, DMBRICK_L2Error, DMBRICK_Exchange, DMBRICK_ExchangeSetUp, DMBRICK_VTKWrite;
PETSC_INTERN PetscErrorCode DMBrickSFDevice_Private(DM, PetscSF, PetscBool, const PetscScalar *, PetscScalar *, PetscBool);
PETSC_INTERN PetscErrorCode DMBrickSFDeviceBegin_Private(DM, PetscSF, PetscBool, const PetscScalar *, PetscScalar *, PetscBool);
PETSC_INTERN PetscErrorCode DMBrickSFDeviceEnd_Private(DM, PetscSF, PetscBool, const PetscScalar *, PetscScalar *, PetscBool);
PETSC_INTERN PetscErrorCode DMBrickVecScatter_Private(DM, VecScatter, Vec, Vec, InsertMode, ScatterMode);
PETSC_INTERN PetscErrorCode DMBrickSetUpExchange_Private(DM, PetscSF, PetscInt);
PETSC_INTERN PetscErrorCode DMBrickSetLocalMirror_Private(DM, Vec, Vec);
PETSC_INTERN PetscErrorCode DMBrickClearLocalMirror_Private(DM, Vec);
PETSC_INTERN PetscErrorCode DMBrickGlobalToLocalMirror_Private(DM, Vec, Vec, Vec *);
PETSC_INTERN PetscErrorCode DMBrickCreateInPlaceVector_Private(DM, Vec *);
PETSC_INTERN PetscErrorCode DMBrickGetInPlaceLocal_Private(DM, Vec, Vec *);
PETSC_INTERN PetscErrorCode DMBrickSetUpInPlace_Private(DM);
PETSC_INTERN PetscErrorCode DMBrickInPlaceOffset_Private(DM, PetscInt *);
PETSC_INTERN PetscErrorCode DMBrickGhostPoints_Private(DM, PetscInt *, PetscInt **, PetscMPIInt **, PetscInt **, PetscInt **);
