/* Forest domains (p4est): the brick from the -dm_brick_* options (-dm_brick_remove, -dm_brick_periodic), checked on one
   level and the one below it.
   -test operator: the matrix-free operator equals the assembled one on a random vector (1e-12), so does its diagonal;
                   the assembled matrix is symmetric; the shell transfer equals the assembled one both ways; with every
                   direction periodic the constants are the kernel (A 1 = 0, and A v != 0 for v not constant); and the
                   "fingerprint" lines: operator, prolongation, restriction and one smoothing step of each kind applied to
                   a vector given by a formula, as numbers that do not depend on the partition (tests/run.sh compares
                   them between rank counts).
   -test order:    -Delta u = f with u = sin(2 pi x) [sin(pi y)] [sin(pi z)] (periodic along x, Dirichlet elsewhere: needs
                   -dm_brick_periodic 1,0[,0]) solved on -levels refinements; prints the L2 errors and checks the order k + 1. */
#include "checks.h"

static PetscErrorCode Rough(PetscInt dim, const PetscReal x[], PetscScalar *v, void *ctx)
{
  /* a partition-independent vector with all frequencies (smooth in x, so that the periodic wrap is a node like any) */
  *v = PetscSinReal(2 * PETSC_PI * (3 * x[0] + 2 * x[1] + (dim == 3 ? x[2] : 0))) + 0.5 * PetscCosReal(2 * PETSC_PI * (5 * x[1] - x[0])) + (dim == 3 ? 0.25 * PetscSinReal(2 * PETSC_PI * 7 * x[2]) : 0) + 0.3;
  return 0;
}

static PetscErrorCode Weight(PetscInt dim, const PetscReal x[], PetscScalar *v, void *ctx)
{
  /* of period 1 in every direction: a periodic end's node has one value whichever cell gives its coordinates */
  *v = 2.0 + PetscSinReal(2 * PETSC_PI * x[0]) + 0.5 * PetscCosReal(2 * PETSC_PI * (x[1] + 0.1)) + (dim == 3 ? 0.25 * PetscSinReal(4 * PETSC_PI * x[2]) : 0);
  return 0;
}

static PetscErrorCode QkPolynomial(PetscInt dim, const PetscReal x[], PetscScalar *v, void *ctx)
{
  /* of degree k in each direction: in Q_k on every cell, coarse or fine */
  const PetscReal k = (PetscReal)*(PetscInt *)ctx;
  *v                = PetscPowReal(x[0] + 0.1, k) * PetscPowReal(1.3 - x[1], k) * (dim == 3 ? PetscPowReal(x[2] + 0.2, k) : 1.0) + x[1];
  return 0;
}

/* ctx NULL (laplace): sin(2 pi x) sin(pi y) [sin(pi z)]; ctx set (c0ip, clamped along y: u and du/dy vanish there):
   sin(2 pi x) sin^2(pi y) [sin(2 pi z), periodic along z too] */
static PetscErrorCode Exact(PetscInt dim, const PetscReal x[], PetscScalar *u, void *ctx)
{
  if (ctx) {
    *u = PetscSinReal(2 * PETSC_PI * x[0]) * PetscSqr(PetscSinReal(PETSC_PI * x[1])) * (dim == 3 ? PetscSinReal(2 * PETSC_PI * x[2]) : 1.0);
    return 0;
  }
  *u = PetscSinReal(2 * PETSC_PI * x[0]);
  for (PetscInt d = 1; d < dim; d++) *u *= PetscSinReal(PETSC_PI * x[d]);
  return 0;
}

/* -Delta u, or Delta^2 u: u = s/2 - s cos(2 pi y)/2 with s = sin(2 pi x) [sin(2 pi z)] and Delta^2 = |wave vector|^4 */
static PetscErrorCode Load(PetscInt dim, const PetscReal x[], PetscScalar *f, void *ctx)
{
  if (ctx) {
    const PetscReal s = PetscSinReal(2 * PETSC_PI * x[0]) * (dim == 3 ? PetscSinReal(2 * PETSC_PI * x[2]) : 1.0), q = 4 * PETSC_PI * PETSC_PI;
    const PetscReal k1 = (dim == 3 ? 2 : 1) * q, k2 = k1 + q; /* |wave vector|^2 of the two terms */
    *f = 0.5 * s * k1 * k1 - 0.5 * s * PetscCosReal(2 * PETSC_PI * x[1]) * k2 * k2;
    return 0;
  }
  PetscCall(Exact(dim, x, f, ctx));
  *f *= (4 + (dim - 1)) * PETSC_PI * PETSC_PI;
  return 0;
}

/* a number of y that does not depend on the partition: the weighted sum and the norm */
static PetscErrorCode Fingerprint(DM dm, const char what[], Vec y)
{
  Vec         w;
  PetscScalar dot;
  PetscReal   nrm;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(dm, &w));
  PetscCall(DMBrickInterpolateFunction(dm, Weight, NULL, w));
  PetscCall(VecDot(y, w, &dot));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fingerprint %s %.15e %.15e\n", what, (double)PetscRealPart(dot), (double)nrm));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(0);
}

/* one step of a vertex-patch smoother (as a PCMG level smoother would take it) from x = 0 for A x = b; print: its
   fingerprint */
static PetscErrorCode SmoothingStepRun(DM dm, Mat A, const char type[], const char solver[], const char residual[], const char precision[], Vec b, Vec x, PetscBool print)
{
  KSP  ksp;
  PC   pc;
  char name[128];

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "step_"));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPRICHARDSON));
  PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 1));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVERTEXPATCH));
  PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_type", type));
  PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_local_solver", solver));
  PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_residual", residual));
  PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_precision", precision));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  {
    /* the name says every option the step differs in (tests/run.sh matches fingerprints by name) */
    char      damping[32] = "", space[32] = "";
    PetscBool set, sset;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-step_pc_vertexpatch_damping", damping, sizeof(damping), &set));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-step_pc_vertexpatch_local_space", space, sizeof(space), &sset));
    PetscCall(PetscSNPrintf(name, sizeof(name), "smooth_%s_%s_%s_%s%s%s%s%s", type, solver, residual, precision, set ? "_damping" : "", damping, sset ? "_" : "", space));
  }
  if (print) PetscCall(Fingerprint(dm, name, x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode SmoothingStep(DM dm, Mat A, const char type[], const char solver[], const char residual[], const char precision[], Vec b, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(SmoothingStepRun(dm, A, type, solver, residual, precision, b, x, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode Coordinate(PetscInt dim, const PetscReal x[], PetscScalar *v, void *ctx)
{
  *v = x[*(PetscInt *)ctx];
  return 0;
}

/* DG on one rank: the additive step with damping 1 and the full local space is sum_j R_j^T (R_j A R_j^T)^-1 R_j b. The
   reference here takes the patch matrices from the assembled operator, and finds the patches itself (the cells from
   their values' coordinates, every vertex whose 2^d cells are in the domain), so that it checks each patch's local
   matrix (the mixed ones next to re-entrant corners too) and the set of patches. */
static PetscErrorCode CheckDGPatches(DM dm, Mat A, Vec b, const PetscBool periodic[], PetscBool device)
{
  PetscMPIInt        size;
  PetscInt           dim, k, cells[3] = {1, 1, 1}, nv, N, ncell, *cellof, npatch = 0;
  Vec                X[3], x, y;
  Mat                D;
  const PetscScalar *da, *ba, *xd[3];
  PetscScalar       *ya;
  PetscReal          rel;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_damping", "1"));
  if (size > 1) { /* the steps only (their fingerprints), the reference on one rank */
    PetscCall(SmoothingStep(dm, A, "additive", "fdm", "global", "double", b, x));
    if (!device) PetscCall(SmoothingStep(dm, A, "additive", "dense", "global", "double", b, y));
    PetscCall(PetscOptionsClearValue(NULL, "-step_pc_vertexpatch_damping"));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscFunctionReturn(0);
  }
  PetscCall(DMBrickGetInfo(dm, &dim, cells, &k, NULL));
  nv = dim == 3 ? (k + 1) * (k + 1) * (k + 1) : (k + 1) * (k + 1);
  PetscCall(VecGetLocalSize(b, &N));
  ncell = N / nv;
  for (PetscInt d = 0; d < dim; d++) {
    PetscCall(VecDuplicate(b, &X[d]));
    PetscCall(DMBrickInterpolateFunction(dm, Coordinate, &d, X[d]));
    PetscCall(VecGetArrayRead(X[d], &xd[d]));
  }
  PetscCall(PetscMalloc1(cells[0] * cells[1] * cells[2], &cellof));
  for (PetscInt i = 0; i < cells[0] * cells[1] * cells[2]; i++) cellof[i] = -1;
  for (PetscInt c = 0; c < ncell; c++) {
    PetscInt key = 0;
    for (PetscInt d = dim - 1; d >= 0; d--) {
      PetscReal lo = PETSC_MAX_REAL;
      for (PetscInt i = 0; i < nv; i++) lo = PetscMin(lo, PetscRealPart(xd[d][c * nv + i]));
      key = key * cells[d] + (PetscInt)PetscFloorReal(lo * cells[d] + 0.5);
    }
    cellof[key] = c;
  }
  PetscCall(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatDenseGetArrayRead(D, &da));
  PetscCall(VecZeroEntries(y));
  PetscCall(VecGetArray(y, &ya));
  PetscCall(VecGetArrayRead(b, &ba));
  for (PetscInt vz = 0; vz <= (dim == 3 ? cells[2] : 0); vz++)
    for (PetscInt vy = 0; vy <= cells[1]; vy++)
      for (PetscInt vx = 0; vx <= cells[0]; vx++) {
        const PetscInt v[3] = {vx, vy, vz}, nchild = 1 << dim, m = nchild * nv;
        PetscInt       idx[8 * 729], pc[8];
        PetscBool      in = PETSC_TRUE;
        PetscScalar   *M, *r;
        for (PetscInt bb = 0; bb < nchild && in; bb++) {
          PetscInt key = 0;
          for (PetscInt d = dim - 1; d >= 0; d--) {
            PetscInt c = v[d] - 1 + ((bb >> d) & 1);
            if (periodic[d]) c = (c + cells[d]) % cells[d];
            if (c < 0 || c >= cells[d] || (periodic[d] && v[d] == cells[d])) in = PETSC_FALSE; /* a periodic end's vertex is vertex 0 */
            key = key * cells[d] + PetscMax(PetscMin(c, cells[d] - 1), 0);
          }
          pc[bb] = in ? cellof[key] : -1;
          if (pc[bb] < 0) in = PETSC_FALSE;
        }
        if (!in) continue;
        npatch++;
        /* the patch values, patch-lexicographic order does not matter here: cell by cell */
        for (PetscInt bb = 0; bb < nchild; bb++)
          for (PetscInt i = 0; i < nv; i++) idx[bb * nv + i] = pc[bb] * nv + i;
        PetscCall(PetscMalloc2(m * m, &M, m, &r));
        for (PetscInt i = 0; i < m; i++) {
          r[i] = ba[idx[i]];
          for (PetscInt j = 0; j < m; j++) M[i * m + j] = da[idx[i] + idx[j] * N];
        }
        GaussSolve(m, M, r);
        for (PetscInt i = 0; i < m; i++) ya[idx[i]] += r[i];
        PetscCall(PetscFree2(M, r));
      }
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(MatDenseRestoreArrayRead(D, &da));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reference: %" PetscInt_FMT " patches\n", npatch));
  PetscCall(SmoothingStep(dm, A, "additive", "fdm", "global", "double", b, x));
  PetscCall(RelativeDifference(x, y, &rel));
  PetscCall(CheckLessThan("DG additive step (fdm) = sum of exact patch solves of the assembled operator", rel, 1e-11));
  if (!device) {
    PetscCall(SmoothingStep(dm, A, "additive", "dense", "global", "double", b, x));
    PetscCall(RelativeDifference(x, y, &rel));
    PetscCall(CheckLessThan("DG additive step (dense) = sum of exact patch solves of the assembled operator", rel, 1e-11));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-step_pc_vertexpatch_damping"));
  for (PetscInt d = 0; d < dim; d++) {
    PetscCall(VecRestoreArrayRead(X[d], &xd[d]));
    PetscCall(VecDestroy(&X[d]));
  }
  PetscCall(PetscFree(cellof));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

/* The documented color of a C0IP patch (PCVERTEXPATCH on forests): the parity class of its vertex (a third value for the
   last vertex of a periodic direction of odd length), times the red-black part sum_d s_d mod nrb, s_d = floor(v_d/2) mod 2
   (2 along a periodic direction of 4m + 2 cells for its last two vertices, then nrb = 3); parity fastest, x first. */
static PetscInt C0IPColor(PetscInt dim, const PetscInt n[], const PetscBool periodic[], const PetscInt v[])
{
  PetscInt col = 0, ncol = 1, nrb = 2, sum = 0;

  for (PetscInt d = 0; d < dim; d++)
    if (periodic[d] && n[d] % 4 == 2) nrb = 3;
  for (PetscInt d = dim - 1; d >= 0; d--) {
    const PetscInt three = periodic[d] && n[d] % 2;
    col                  = col * (three ? 3 : 2) + ((three && v[d] == n[d] - 1) ? 2 : v[d] % 2);
    ncol *= three ? 3 : 2;
    sum += (periodic[d] && n[d] % 4 == 2 && v[d] / 2 == n[d] / 2 - 1) ? 2 : (v[d] / 2) % 2;
  }
  return col + ncol * (sum % nrb);
}

/* one exact patch solve of the reference: the nodes strictly inside the 2^d cells around v (found from their coordinates
   xd), r = b (additive) or b - A y (sequential) on them, y[nodes] += (R A R^T)^-1 r */
static PetscErrorCode C0IPPatchSolve(PetscInt dim, const PetscInt cells[], const PetscBool periodic[], const PetscScalar *const xd[], PetscInt N, const PetscScalar *da, const PetscScalar *ba, PetscBool sequential, const PetscInt v[], PetscInt *idx, PetscScalar *ya)
{
  PetscInt     m = 0;
  PetscScalar *M, *r;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < N; i++) {
    PetscBool inside = PETSC_TRUE;
    for (PetscInt d = 0; d < dim && inside; d++) {
      PetscReal t = PetscRealPart(xd[d][i]) * cells[d] - v[d];
      if (periodic[d]) t -= cells[d] * PetscFloorReal(t / cells[d] + 0.5);
      inside = (PetscBool)(PetscAbsReal(t) < 1 - 1e-8);
    }
    if (inside) idx[m++] = i;
  }
  PetscCall(PetscMalloc2(m * m, &M, m, &r));
  for (PetscInt i = 0; i < m; i++) {
    r[i] = ba[idx[i]];
    if (sequential)
      for (PetscInt j = 0; j < N; j++) r[i] -= da[idx[i] + j * N] * ya[j];
    for (PetscInt j = 0; j < m; j++) M[i * m + j] = da[idx[i] + idx[j] * N];
  }
  GaussSolve(m, M, r);
  for (PetscInt i = 0; i < m; i++) ya[idx[i]] += r[i];
  PetscCall(PetscFree2(M, r));
  PetscFunctionReturn(0);
}

/* C0IP on one rank, damping 1, the dense (exact) local solver: the additive step is sum_v R_v^T (R_v A R_v^T)^-1 R_v b
   over the interior vertices v, R_v the nodes strictly inside the 2^d cells around v, and the multiplicative step the
   sequential sweep color by color (each patch's residual after every earlier correction; within a color the order is
   this loop's, not the smoother's, which gives the same step exactly when no patch of a color couples to another's
   interior: the red-black split of the parity classes). The reference takes the patch matrices from the assembled
   operator and finds the patches from the nodes' coordinates (a cell is in the domain when a node lies strictly inside
   it: k >= 2), so that it checks each pattern's matrix (the mixed ones too), the set of patches and the colors. */
static PetscErrorCode CheckC0IPPatches(DM dm, Mat A, Vec b, const PetscBool periodic[])
{
  PetscInt           dim, k, cells[3] = {1, 1, 1}, N, npatch = 0, maxc = 0, *idx, *pcolor, *pvert;
  PetscBool         *in;
  Vec                X[3], x, y;
  Mat                D;
  const PetscScalar *da, *ba, *xd[3];
  PetscScalar       *ya;
  PetscReal          rel;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(DMBrickGetInfo(dm, &dim, cells, &k, NULL));
  PetscCall(VecGetLocalSize(b, &N));
  for (PetscInt d = 0; d < dim; d++) {
    PetscCall(VecDuplicate(b, &X[d]));
    PetscCall(DMBrickInterpolateFunction(dm, Coordinate, &d, X[d]));
    PetscCall(VecGetArrayRead(X[d], &xd[d]));
  }
  PetscCall(PetscCalloc1(cells[0] * cells[1] * cells[2], &in));
  for (PetscInt i = 0; i < N; i++) {
    PetscInt  key = 0;
    PetscBool inside = PETSC_TRUE;
    for (PetscInt d = dim - 1; d >= 0; d--) {
      const PetscReal t = PetscRealPart(xd[d][i]) * cells[d];
      inside            = (PetscBool)(inside && PetscAbsReal(t - PetscFloorReal(t + 0.5)) > 1e-8);
      key               = key * cells[d] + PetscMin((PetscInt)PetscFloorReal(t), cells[d] - 1);
    }
    if (inside) in[key] = PETSC_TRUE;
  }
  /* the patches: every vertex whose 2^d cells are in the domain, with its color */
  PetscCall(PetscMalloc3(N, &idx, N, &pcolor, 3 * N, &pvert)); /* fewer patches than nodes */
  for (PetscInt vz = 0; vz <= (dim == 3 ? cells[2] : 0); vz++)
    for (PetscInt vy = 0; vy <= cells[1]; vy++)
      for (PetscInt vx = 0; vx <= cells[0]; vx++) {
        const PetscInt v[3] = {vx, vy, vz};
        PetscBool      ok   = PETSC_TRUE;
        for (PetscInt bb = 0; bb < (1 << dim) && ok; bb++) {
          PetscInt key = 0;
          for (PetscInt d = dim - 1; d >= 0; d--) {
            PetscInt c = v[d] - 1 + ((bb >> d) & 1);
            if (periodic[d]) c = (c + cells[d]) % cells[d];
            if (c < 0 || c >= cells[d] || (periodic[d] && v[d] == cells[d])) ok = PETSC_FALSE; /* a periodic end's vertex is vertex 0 */
            key = key * cells[d] + PetscMax(PetscMin(c, cells[d] - 1), 0);
          }
          ok = (PetscBool)(ok && in[key]);
        }
        if (!ok) continue;
        pcolor[npatch] = C0IPColor(dim, cells, periodic, v);
        maxc           = PetscMax(maxc, pcolor[npatch]);
        for (PetscInt d = 0; d < 3; d++) pvert[3 * npatch + d] = v[d];
        npatch++;
      }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reference: %" PetscInt_FMT " patches\n", npatch));
  PetscCall(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatDenseGetArrayRead(D, &da));
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_damping", "1"));
  for (PetscInt sequential = 0; sequential < 2; sequential++) {
    PetscCall(VecZeroEntries(y));
    PetscCall(VecGetArray(y, &ya));
    for (PetscInt c = 0; c <= maxc; c++)
      for (PetscInt p = 0; p < npatch; p++)
        if (pcolor[p] == c) PetscCall(C0IPPatchSolve(dim, cells, periodic, xd, N, da, ba, (PetscBool)sequential, pvert + 3 * p, idx, ya));
    PetscCall(VecRestoreArray(y, &ya));
    PetscCall(SmoothingStep(dm, A, sequential ? "multiplicative" : "additive", "dense", "global", "double", b, x));
    PetscCall(RelativeDifference(x, y, &rel));
    PetscCall(CheckLessThan(sequential ? "C0IP multiplicative step (dense) = sequential exact patch solves, color by color" : "C0IP additive step (dense) = sum of exact patch solves of the assembled operator", rel, 1e-11));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-step_pc_vertexpatch_damping"));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(MatDenseRestoreArrayRead(D, &da));
  for (PetscInt d = 0; d < dim; d++) {
    PetscCall(VecRestoreArrayRead(X[d], &xd[d]));
    PetscCall(VecDestroy(&X[d]));
  }
  PetscCall(PetscFree3(idx, pcolor, pvert));
  PetscCall(PetscFree(in));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestOperator(DM dm)
{
  DM          dmc;
  Mat         S, A, P, Pa;
  Vec         x, y, z, xc, yc, zc, d1, d2;
  PetscRandom rnd;
  PetscReal   rel;
  PetscBool   symmetric, allperiodic = PETSC_TRUE;
  PetscInt    dim, level, degree;
  char        name[128];
  PetscBool   device = PETSC_FALSE, dg, c0ip, removed, per[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  VecType     vtype;
  const char *opname;

  PetscFunctionBeginUser;
  PetscCall(DMBrickGetOperator(dm, &opname));
  PetscCall(PetscStrcmp(opname, "sipg", &dg));
  PetscCall(PetscStrcmp(opname, "c0ip", &c0ip));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-dm_brick_remove", &removed));
  {
    PetscInt n = 3;
    PetscCall(PetscOptionsGetBoolArray(NULL, NULL, "-dm_brick_periodic", per, &n, NULL));
  }
  PetscCall(DMGetVecType(dm, &vtype));
  if (vtype) PetscCall(PetscStrbeginswith(vtype, "cuda", &device));
  if (vtype && !device) PetscCall(PetscStrbeginswith(vtype, "seqcuda", &device));
  if (vtype && !device) PetscCall(PetscStrbeginswith(vtype, "mpicuda", &device));
  PetscCall(DMBrickGetInfo(dm, &dim, NULL, &degree, &level));
  for (PetscInt d = 0; d < dim; d++) {
    PetscBool per[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
    PetscInt  n      = 3;
    PetscCall(PetscOptionsGetBoolArray(NULL, NULL, "-dm_brick_periodic", per, &n, NULL));
    allperiodic = (PetscBool)(allperiodic && n == dim && per[d]);
  }
  PetscCall(DMBrickCreateOperator(dm, MATSHELL, &S));
  PetscCall(DMBrickCreateOperator(dm, MATAIJ, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(S, x, y));
  PetscCall(MatMult(A, x, z));
  PetscCall(RelativeDifference(y, z, &rel));
  PetscCall(CheckLessThan("shell = assembled on a random vector", rel, 1e-12));
  PetscCall(VecDuplicate(x, &d1));
  PetscCall(VecDuplicate(x, &d2));
  PetscCall(MatGetDiagonal(S, d1));
  PetscCall(MatGetDiagonal(A, d2));
  PetscCall(RelativeDifference(d1, d2, &rel));
  PetscCall(CheckLessThan("shell diagonal = assembled diagonal", rel, 1e-12));
  {
    /* to rounding of the entries' size (C0IP's grow like h^-3: an absolute 1e-12 would judge the summation order) */
    PetscReal amax;
    PetscCall(MatNorm(A, NORM_INFINITY, &amax));
    PetscCall(MatIsSymmetric(A, 1e-14 * amax, &symmetric));
    PetscCall(CheckTrue("assembled operator symmetric (1e-14 of its largest row sum)", symmetric));
  }
  if (allperiodic) {
    PetscReal n1, nx;
    PetscCall(VecSet(z, 1.0));
    PetscCall(MatMult(S, z, y));
    PetscCall(VecNorm(y, NORM_2, &n1));
    PetscCall(MatMult(S, x, y));
    PetscCall(VecNorm(y, NORM_2, &nx));
    PetscCall(CheckLessThan("all periodic: ||A 1|| / ||A x|| (constants are the kernel)", n1 / nx, 1e-12));
    PetscCall(CheckTrue("all periodic: A x != 0 for a random x", (PetscBool)(nx > 0)));
  }
  /* the partition-independent numbers */
  PetscCall(DMBrickInterpolateFunction(dm, Rough, NULL, x));
  PetscCall(MatMult(S, x, y));
  PetscCall(Fingerprint(dm, "operator", y));
  PetscCall(MatGetDiagonal(S, d1));
  PetscCall(Fingerprint(dm, "diagonal", d1));
  if (level > 0) {
    PetscCall(DMCoarsen(dm, PETSC_COMM_WORLD, &dmc));
    PetscCall(DMBrickCreateInterpolation(dmc, dm, MATSHELL, &P));
    PetscCall(DMBrickCreateInterpolation(dmc, dm, MATAIJ, &Pa));
    PetscCall(DMCreateGlobalVector(dmc, &xc));
    PetscCall(VecDuplicate(xc, &yc));
    PetscCall(VecDuplicate(xc, &zc));
    PetscCall(VecSetRandom(xc, rnd));
    PetscCall(MatMult(P, xc, y));
    PetscCall(MatMult(Pa, xc, z));
    PetscCall(RelativeDifference(y, z, &rel));
    PetscCall(CheckLessThan("prolongation: shell = assembled", rel, 1e-12));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(MatMultTranspose(P, x, yc));
    PetscCall(MatMultTranspose(Pa, x, zc));
    PetscCall(RelativeDifference(yc, zc, &rel));
    PetscCall(CheckLessThan("restriction: shell = assembled transpose", rel, 1e-12));
    if (c0ip) {
      /* C0IP: the face penalty scales with 1/h, so there is no Galerkin identity; the transfers are the laplace ones */
    } else if (dg) {
      /* DG: the prolongation is the embedding of the coarse cell's polynomial, exact on Q_k cell by cell: a coarse
         interpolant of a Q_k function prolongs to its fine interpolant (SIPG's penalty scales with 1/h, so there is no
         Galerkin identity to check) */
      PetscCall(DMBrickInterpolateFunction(dmc, QkPolynomial, &degree, xc));
      PetscCall(DMBrickInterpolateFunction(dm, QkPolynomial, &degree, z));
      PetscCall(MatMult(P, xc, y));
      PetscCall(RelativeDifference(y, z, &rel));
      PetscCall(CheckLessThan("DG prolongation of a Q_k polynomial = its fine interpolant", rel, 1e-12));
    } else {
      /* nested spaces with the same Dirichlet boundary: the Galerkin identity P^T A_f P = A_c */
      Mat Ac;
      Vec t1, t2;
      PetscCall(DMBrickCreateOperator(dmc, MATAIJ, &Ac));
      PetscCall(VecDuplicate(x, &t1));
      PetscCall(VecDuplicate(x, &t2));
      PetscCall(VecSetRandom(xc, rnd));
      PetscCall(MatMult(Pa, xc, t1));
      PetscCall(MatMult(A, t1, t2));
      PetscCall(MatMultTranspose(Pa, t2, yc));
      PetscCall(MatMult(Ac, xc, zc));
      PetscCall(RelativeDifference(yc, zc, &rel));
      PetscCall(CheckLessThan("Galerkin identity P^T A_f P = A_c on a random vector", rel, 1e-12));
      PetscCall(VecDestroy(&t1));
      PetscCall(VecDestroy(&t2));
      PetscCall(MatDestroy(&Ac));
    }
    PetscCall(DMBrickInterpolateFunction(dmc, Rough, NULL, xc));
    PetscCall(MatMult(P, xc, y));
    PetscCall(Fingerprint(dm, "prolongation", y));
    PetscCall(DMBrickInterpolateFunction(dm, Rough, NULL, x));
    PetscCall(MatMultTranspose(P, x, yc));
    PetscCall(Fingerprint(dmc, "restriction", yc));
    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&yc));
    PetscCall(VecDestroy(&zc));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&Pa));
    PetscCall(DMDestroy(&dmc));
  }
  PetscCall(DMBrickInterpolateFunction(dm, Rough, NULL, z));
  if (c0ip) {
    /* C0IP: the global residual, and the local one (from the patch cells and their face neighbours, which on several
       ranks lie in the second ghost layer) giving the same step; the additive step with a fixed damping (the default
       comes from an estimate), so that the box path can give the same fingerprint */
    Vec       xd;
    PetscBool forest;
    PetscCall(DMBrickGetForestInfo(dm, &forest, NULL, NULL, NULL));
    PetscCall(VecDuplicate(x, &xd));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "local", "double", z, xd));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "global", "double", z, x));
    PetscCall(RelativeDifference(x, xd, &rel));
    PetscCall(CheckLessThan("C0IP smoothing step (fdm): local = global residual", rel, 1e-12));
    PetscCall(SmoothingStepRun(dm, S, "multiplicative", "dense", "local", "double", z, x, PETSC_FALSE));
    PetscCall(SmoothingStepRun(dm, S, "multiplicative", "dense", "global", "double", z, xd, PETSC_FALSE));
    PetscCall(RelativeDifference(x, xd, &rel));
    PetscCall(CheckLessThan("C0IP smoothing step (dense, every pattern's factor): local = global residual", rel, 1e-12));
    PetscCall(SmoothingStepRun(dm, S, "multiplicative", "fdm", "local", "single", z, x, PETSC_FALSE));
    PetscCall(SmoothingStepRun(dm, S, "multiplicative", "fdm", "global", "single", z, xd, PETSC_FALSE));
    PetscCall(RelativeDifference(x, xd, &rel));
    PetscCall(CheckLessThan("C0IP smoothing step (single): local = global residual to 1e-5", rel, 1e-5));
    /* the additive step: two Richardson steps, the second from a nonzero iterate */
    PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_damping", "0.1"));
    PetscCall(PetscOptionsSetValue(NULL, "-step_ksp_max_it", "2"));
    PetscCall(SmoothingStepRun(dm, S, "additive", "fdm", "local", "double", z, x, PETSC_FALSE));
    PetscCall(SmoothingStepRun(dm, S, "additive", "fdm", "global", "double", z, xd, PETSC_FALSE));
    PetscCall(PetscOptionsClearValue(NULL, "-step_ksp_max_it"));
    PetscCall(PetscOptionsClearValue(NULL, "-step_pc_vertexpatch_damping"));
    PetscCall(RelativeDifference(x, xd, &rel));
    PetscCall(CheckLessThan("C0IP additive, two steps: local = global residual", rel, 1e-12));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "global", "double", z, x));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "dense", "global", "double", z, xd)); /* the device too: every pattern's factor */
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "global", "single", z, xd));
    PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_damping", "0.1"));
    PetscCall(SmoothingStep(dm, S, "additive", "fdm", "global", "double", z, xd));
    PetscCall(PetscOptionsClearValue(NULL, "-step_pc_vertexpatch_damping"));
    /* the additive default: damped by the estimate of lambda_max(B A) (partition-independent start vector) */
    PetscCall(SmoothingStep(dm, S, "additive", "fdm", "global", "double", z, xd));
    {
      PetscMPIInt size;
      PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
      if (size == 1 && forest) PetscCall(CheckC0IPPatches(dm, A, z, per)); /* host or device steps against the host reference */
    }
    PetscCall(VecDestroy(&xd));
  } else if (dg) {
    /* the DG smoother: full local space with the global residual (the default), and (no removed cells) the dirichlet and
       clamped spaces with the local residual */
    Vec xd;
    PetscCall(VecDuplicate(x, &xd));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "global", "double", z, x));
    if (!device) { /* the device has fdm only */
      PetscCall(SmoothingStep(dm, S, "multiplicative", "dense", "global", "double", z, xd));
      PetscCall(RelativeDifference(x, xd, &rel));
      PetscCall(CheckLessThan("DG smoothing step: fdm = dense local solver", rel, 1e-11));
    }
    PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_simd", "0"));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "global", "double", z, xd));
    PetscCall(PetscOptionsClearValue(NULL, "-step_pc_vertexpatch_simd"));
    PetscCall(RelativeDifference(x, xd, &rel));
    PetscCall(CheckLessThan("DG smoothing step: SIMD groups = one patch at a time", rel, 1e-12));
    PetscCall(SmoothingStep(dm, S, "additive", "fdm", "global", "double", z, x));
    if (removed) { /* the dirichlet and clamped spaces are errors with removed cells */
      if (device) {
        /* float patch work (the device only; the mixed patches stay in double): the double step to float accuracy */
        PetscCall(SmoothingStepRun(dm, S, "multiplicative", "fdm", "global", "double", z, x, PETSC_FALSE));
        PetscCall(SmoothingStepRun(dm, S, "multiplicative", "fdm", "global", "single", z, xd, PETSC_FALSE));
        PetscCall(RelativeDifference(x, xd, &rel));
        PetscCall(CheckLessThan("DG smoothing step (full space): single = double to 1e-5", rel, 1e-5));
      }
      PetscCall(CheckDGPatches(dm, A, z, per, device));
    } else {
    PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_local_space", "dirichlet"));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "local", "double", z, x));
    if (!device) {
      PetscCall(SmoothingStep(dm, S, "multiplicative", "dense", "local", "double", z, xd));
      PetscCall(RelativeDifference(x, xd, &rel));
      PetscCall(CheckLessThan("DG smoothing step (dirichlet space, local residual): fdm = dense", rel, 1e-11));
    }
    if (device) {
      /* float patches (the device only): the double step to float accuracy (no fingerprint: the host has none) */
      PetscCall(SmoothingStepRun(dm, S, "multiplicative", "fdm", "local", "single", z, xd, PETSC_FALSE));
      PetscCall(RelativeDifference(x, xd, &rel));
      PetscCall(CheckLessThan("DG smoothing step (dirichlet space, local residual): single = double to 1e-5", rel, 1e-5));
    }
    if (degree >= 3) {
      /* the clamped space's test functions vanish with their derivative on the patch boundary: its local residual is
         exact, so local and global residuals give the same step (the mixed patches' residual forms included) */
      PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_local_space", "clamped"));
      PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "local", "double", z, x));
      PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "global", "double", z, xd));
      PetscCall(RelativeDifference(x, xd, &rel));
      PetscCall(CheckLessThan("DG smoothing step (clamped space): local = global residual", rel, 1e-11));
    }
    PetscCall(PetscOptionsClearValue(NULL, "-step_pc_vertexpatch_local_space"));
    PetscCall(CheckDGPatches(dm, A, z, per, device));
    }
    PetscCall(VecDestroy(&xd));
  } else {
  PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "local", "double", z, x));
  if (!device) PetscCall(SmoothingStep(dm, S, "multiplicative", "dense", "global", "double", z, x));
  else PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "global", "double", z, x)); /* the device has fdm only: the same step */
  PetscCall(SmoothingStep(dm, S, "additive", "fdm", "global", "double", z, x));
  PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "local", "single", z, x));
  {
    /* FDM and the dense factorization are the same exact local solve for laplace */
    Vec xd;
    PetscCall(VecDuplicate(x, &xd));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "local", "double", z, x));
    if (!device) {
      PetscCall(SmoothingStep(dm, S, "multiplicative", "dense", "local", "double", z, xd));
      PetscCall(RelativeDifference(x, xd, &rel));
      PetscCall(PetscSNPrintf(name, sizeof(name), "smoothing step: fdm = dense local solver"));
      PetscCall(CheckLessThan(name, rel, 1e-12));
    }
    /* SIMD groups of patches (the default) and one patch at a time give the same step */
    PetscCall(PetscOptionsSetValue(NULL, "-step_pc_vertexpatch_simd", "0"));
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "local", "double", z, xd));
    PetscCall(PetscOptionsClearValue(NULL, "-step_pc_vertexpatch_simd"));
    PetscCall(RelativeDifference(x, xd, &rel));
    PetscCall(CheckLessThan("smoothing step: SIMD groups = one patch at a time", rel, 1e-12));
    /* local and global residuals give the same step */
    PetscCall(SmoothingStep(dm, S, "multiplicative", "fdm", "global", "double", z, xd));
    PetscCall(RelativeDifference(x, xd, &rel));
    PetscCall(CheckLessThan("smoothing step: local = global residual", rel, 1e-12));
    PetscCall(VecDestroy(&xd));
  }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&d1));
  PetscCall(VecDestroy(&d2));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestOrder(PetscInt dim, PetscInt k, const PetscInt cells[], PetscInt levels, PetscInt first)
{
  PetscReal err[16];
  PetscBool c0ip = PETSC_FALSE;
  void     *sol  = NULL; /* the exact solution's context: set for the biharmonic one */

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < levels; l++) {
    DM          dm;
    KSP         ksp;
    Vec         b, u;
    PetscInt    its;
    PetscReal   lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
    const char *opname;
    PetscCall(CreateBrick(dim, cells, lower, upper, k, first + l, &dm));
    PetscCall(DMBrickGetOperator(dm, &opname));
    PetscCall(PetscStrcmp(opname, "c0ip", &c0ip));
    sol = c0ip ? (void *)&c0ip : NULL;
    PetscCall(DMCreateGlobalVector(dm, &b));
    PetscCall(VecDuplicate(b, &u));
    PetscCall(DMBrickComputeLoadVector(dm, Load, sol, b));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetDM(ksp, dm));
    PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
    {
      Mat A;
      PetscCall(DMCreateMatrix(dm, &A));
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(MatDestroy(&A));
    }
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, 1e-13, 1e-50, PETSC_DEFAULT, 100));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    {
      PC pc;
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCMG));
      PetscCall(PCMGSetLevels(pc, first + l + 1, NULL));
      PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_ksp_type", "richardson"));
      PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_ksp_max_it", "1"));
      PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_pc_type", "vertexpatch"));
      PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_pc_vertexpatch_type", "additive")); /* symmetric: CG (c0ip: damped by its estimate) */
    }
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, u));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(DMBrickComputeL2Error(dm, u, Exact, sol, &err[l]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refine %" PetscInt_FMT ": %" PetscInt_FMT " CG iterations, L2 error %.4e", first + l, its, (double)err[l]));
    if (l) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", order %.2f", (double)(PetscLog2Real(err[l - 1] / err[l]))));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&u));
    PetscCall(DMDestroy(&dm));
  }
  for (PetscInt l = 1; l < levels; l++) {
    char            what[128];
    const PetscReal expected = c0ip ? PetscMin(k + 1, 2 * k - 2) : k + 1; /* C0IP in L2: k + 1 from k = 3 on, 2 for k = 2 */
    if (err[l] < 1e-11) continue; /* near round-off: not judged */
    PetscCall(PetscSNPrintf(what, sizeof(what), "order %" PetscInt_FMT " -> %" PetscInt_FMT " refinements, |order - %s|", first + l - 1, first + l, c0ip && k == 2 ? "2" : "(k + 1)"));
    PetscCall(CheckLessThan(what, PetscAbsReal(PetscLog2Real(err[l - 1] / err[l]) - expected), 0.25));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char     test[32] = "operator";
  PetscInt dim = 2, k = 2, refine = 2, cells[3] = {2, 2, 2}, n = 3, levels = 3;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-k", &k, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-levels", &levels, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &n, NULL));
  PetscCheck(levels >= 1 && levels <= 16, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-levels %" PetscInt_FMT ": allowed 1..16", levels);
  {
    PetscBool op, order;
    PetscCall(PetscStrcmp(test, "operator", &op));
    PetscCall(PetscStrcmp(test, "order", &order));
    PetscCheck(op || order, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-test %s: allowed operator, order", test);
    if (op) {
      DM        dm;
      PetscReal lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
      PetscBool forest, box = PETSC_FALSE;
      PetscCall(PetscOptionsGetBool(NULL, NULL, "-box", &box, NULL)); /* the box path, for fingerprints to compare with the forest's */
      PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &dm));
      PetscCall(DMBrickGetForestInfo(dm, &forest, NULL, NULL, NULL));
      PetscCall(CheckTrue(box ? "the brick is a box (-box)" : "the brick is a p4est forest", (PetscBool)(forest == !box)));
      PetscCall(TestOperator(dm));
      PetscCall(DMDestroy(&dm));
    } else PetscCall(TestOrder(dim, k, cells, levels, refine));
  }
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
