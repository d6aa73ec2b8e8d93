static const char help[] = "GPU check of the brick operators: the matrix-free product on VECCUDA vectors (the CUDA Kronecker kernels)\n"
                           "against the assembled matrix on the host, random vectors, laplace and c0ip, 2D and 3D, several degrees;\n"
                           "then a coarsened brick in double and in single precision (-dm_brick_mg_precision): its operator against the\n"
                           "assembled one, and the grid transfer (prolongation and restriction) on the GPU against the host path.\n"
                           "Options: -dim 2|3, -kmin, -kmax, -refine.\n";

#include "checks.h"

/* y = P x (or P^T x) on VECCUDA vectors (the GPU kernels) against the same product on host vectors (the CPU path) */
static PetscErrorCode CheckTransfer(Mat P, PetscBool transpose, const char *what, PetscReal tol, PetscRandom rnd)
{
  Vec       xg, yg, xh, yh, d;
  PetscInt  m, n;
  PetscReal rel;
  char      msg[200];

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(P, transpose ? NULL : &xg, transpose ? &xg : NULL));
  PetscCall(MatCreateVecs(P, transpose ? &yg : NULL, transpose ? NULL : &yg));
  PetscCall(VecGetLocalSize(xg, &n));
  PetscCall(VecGetLocalSize(yg, &m));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &xh));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &yh));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &d));
  PetscCall(VecSetRandom(xh, rnd));
  PetscCall(VecCopy(xh, xg));
  if (transpose) {
    PetscCall(MatMultTranspose(P, xg, yg));
    PetscCall(MatMultTranspose(P, xh, yh));
  } else {
    PetscCall(MatMult(P, xg, yg));
    PetscCall(MatMult(P, xh, yh));
  }
  PetscCall(VecCopy(yg, d));
  PetscCall(RelativeDifference(d, yh, &rel));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s %s: GPU vs host", what, transpose ? "restriction" : "prolongation"));
  PetscCall(CheckLessThan(msg, rel, tol));
  PetscCall(VecDestroy(&xg));
  PetscCall(VecDestroy(&yg));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* a brick and its coarsening with -dm_brick_mg_precision p: the coarse operator (GPU, precision p) against its
   assembled matrix, and the transfer between the two (GPU, precision p) against the host path */
static PetscErrorCode CheckCoarse(const char *op, PetscInt dim, PetscInt k, PetscInt refine, const char *precision, PetscRandom rnd)
{
  const PetscInt  cells[3] = {2, 3, 2};
  const PetscReal lower[3] = {0.0, -0.5, 0.0}, upper[3] = {1.5, 1.0, 0.75};
  const PetscBool single = (PetscBool)(precision[0] == 's');
  /* float arithmetic against double: a few float round-offs, more for the c0ip sums of large terms */
  const PetscReal tol = single ? (op[0] == 'c' ? 1e-4 : 1e-5) : 1e-12;
  DM              fine, coarse;
  Mat             A, Aaij, P;
  Vec             x, y, ya;
  PetscReal       rel;
  char            what[200];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_operator", op));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_vec_type", "cuda"));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_mg_precision", precision));
  PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &fine));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_brick_mg_precision"));
  PetscCall(DMCoarsen(fine, PETSC_COMM_WORLD, &coarse));
  PetscCall(DMCreateMatrix(coarse, &A));
  PetscCall(DMBrickCreateOperator(coarse, MATAIJ, &Aaij));
  PetscCall(DMCreateGlobalVector(coarse, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &ya));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(Aaij, x, ya));
  PetscCall(RelativeDifference(y, ya, &rel));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " coarse level in %s: GPU matrix-free vs host assembled", op, dim, k, precision));
  PetscCall(CheckLessThan(what, rel, tol));
  PetscCall(DMCreateInterpolation(coarse, fine, &P, NULL));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " transfer in %s", op, dim, k, precision));
  PetscCall(CheckTransfer(P, PETSC_FALSE, what, single ? 1e-5 : 1e-12, rnd));
  PetscCall(CheckTransfer(P, PETSC_TRUE, what, single ? 1e-5 : 1e-12, rnd));
  PetscCall(MatDestroy(&P));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&ya));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aaij));
  PetscCall(DMDestroy(&coarse));
  PetscCall(DMDestroy(&fine));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, kmin = 1, kmax = 4, refine = 2;
  PetscRandom rnd;
  const char *ops[] = {"laplace", "c0ip"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmin", &kmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-kmax", &kmax, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refine", &refine, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt o = 0; o < 2; o++)
    for (PetscInt k = PetscMax(kmin, o == 1 ? 2 : 1); k <= kmax; k++) {
      const PetscInt  cells[3] = {2, 3, 2};
      const PetscReal lower[3] = {0.0, -0.5, 0.0}, upper[3] = {1.5, 1.0, 0.75};
      DM              dm;
      Mat             A, Aaij;
      Vec             x, y, ya;
      VecType         vt;
      PetscReal       rel = 0.0;
      char            what[160];

      PetscCall(PetscOptionsSetValue(NULL, "-dm_brick_operator", ops[o]));
      PetscCall(PetscOptionsSetValue(NULL, "-dm_vec_type", "cuda"));
      PetscCall(CreateBrick(dim, cells, lower, upper, k, refine, &dm));
      PetscCall(DMCreateMatrix(dm, &A));
      PetscCall(DMBrickCreateOperator(dm, MATAIJ, &Aaij));
      PetscCall(DMCreateGlobalVector(dm, &x));
      PetscCall(VecGetType(x, &vt));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " vectors are %s", ops[o], dim, k, vt));
      PetscCall(CheckTrue(what, (PetscBool)(strstr(vt, "cuda") != NULL)));
      PetscCall(VecDuplicate(x, &y));
      PetscCall(VecDuplicate(x, &ya));
      for (PetscInt t = 0; t < 2; t++) {
        PetscCall(VecSetRandom(x, rnd));
        PetscCall(MatMult(A, x, y));     /* the CUDA kernels on the device arrays */
        PetscCall(MatMult(Aaij, x, ya)); /* assembled, on the host */
        PetscCall(RelativeDifference(y, ya, &rel));
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT "D Q%" PetscInt_FMT " GPU matrix-free vs host assembled, random vector %" PetscInt_FMT, ops[o], dim, k, t));
        PetscCall(CheckLessThan(what, rel, 1e-12));
      }
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(VecDestroy(&ya));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&Aaij));
      PetscCall(DMDestroy(&dm));
      PetscCall(CheckCoarse(ops[o], dim, k, refine + 1, "double", rnd));
      PetscCall(CheckCoarse(ops[o], dim, k, refine + 1, "single", rnd));
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return (int)check_failures;
}
