static const char help[] = "The counts behind seed 004's ([RTRZ21]) Tables 1-3 from PCHFEM's own node sets (PCHFEMGetCounts, no setup):\n"
                           "for the unit square with h = 2^-L (-levels, default 8,9,10) and every macro grid h0 = 2^-m with 2 <= m <= L - 2\n"
                           "(-mmin, -mmax): |C|, |E|, |I|, the sizes of the dense inverses relative to the nonzeros of the Q1 stiffness\n"
                           "matrix (Table 1), their entries in multiples of N (Table 2) and the flops of one solve in multiples of N^1.5\n"
                           "(Table 3: Pi^-1 once, C^-1 twice), with l = log2(h0 / sqrt(h)) when h is an even power of 2.\n"
                           "-kappa: also kappa(C_i) and kappa(Pi) of Table 1 (PCHFEMEstimateConditions: Lanczos on the sparse blocks) and the\n"
                           "seconds each took.\n\n";

#include <petscvpatch.h>
#include <petsctime.h>

int main(int argc, char **argv)
{
  PetscInt  levels[8] = {8, 9, 10}, nl = 3, mmin = 2, mmax = 5;
  PetscBool set, kappa = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-levels", levels, &nl, &set));
  if (!set) nl = 3;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mmin", &mmin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mmax", &mmax, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-kappa", &kappa, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| h (N) | h0 | l | |C| | |E| | |I| | NNZ(C_i^-1)/NNZ_FEM | NNZ(Pi^-1)/NNZ_FEM | (NNZ(Pi^-1) + NNZ(C_i^-1))/N | FLOP Pi^-1 / N^1.5 | FLOP C^-1 (twice) / N^1.5 | total / N^1.5 |%s\n", kappa ? " kappa(C_i) | kappa(Pi) | s |" : ""));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |%s\n", kappa ? " --- | --- | --- |" : ""));
  for (PetscInt t = 0; t < nl; t++) {
    const PetscInt  L = levels[t], one[3] = {1, 1, 1};
    const PetscReal n = (PetscReal)(((PetscInt)1 << L) - 1), N = n * n, nnzfem = (3 * n - 2) * (3 * n - 2);
    DM              dm;
    PC              pc;
    PetscCall(DMBrickCreate(PETSC_COMM_WORLD, &dm));
    PetscCall(DMBrickSetDimension(dm, 2));
    PetscCall(DMBrickSetCells(dm, one));
    PetscCall(DMBrickSetDegree(dm, 1));
    PetscCall(DMSetRefineLevel(dm, L));
    PetscCall(DMSetUp(dm));
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetType(pc, PCHFEM));
    PetscCall(PCSetDM(pc, dm));
    for (PetscInt m = mmin; m <= PetscMin(mmax, L - 2); m++) {
      PetscInt  nC, nE, nI, nb;
      PetscReal ncell, fpi, fc;
      char      ell[16] = "-";
      PetscCall(PCHFEMGetCounts(pc, m, &nC, &nE, &nI, &nb));
      ncell = (PetscReal)((PetscInt)1 << m) * (PetscReal)((PetscInt)1 << m);
      fpi   = 2.0 * nE * (PetscReal)nE;
      fc    = 4.0 * nb * (PetscReal)nb * ncell;
      if (L % 2 == 0) PetscCall(PetscSNPrintf(ell, sizeof(ell), "%" PetscInt_FMT, L / 2 - m));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| 1/%d (%.0f) | 1/%d | %s | %" PetscInt_FMT " | %" PetscInt_FMT " | %" PetscInt_FMT " | %.3g | %.4g | %.0f | %.2f | %.2f | %.2f |", 1 << L, N, 1 << m, ell, nC, nE, nI, nb * (PetscReal)nb / nnzfem, nE * (PetscReal)nE / nnzfem,
                            (nE * (PetscReal)nE + nb * (PetscReal)nb) / N, fpi / PetscPowReal(N, 1.5), fc / PetscPowReal(N, 1.5), (fpi + fc) / PetscPowReal(N, 1.5)));
      if (kappa) {
        PetscReal      kc, kp;
        PetscLogDouble t0, t1;
        PetscCall(PetscTime(&t0));
        PetscCall(PCHFEMEstimateConditions(pc, m, &kc, &kp));
        PetscCall(PetscTime(&t1));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %.2f | %.2f | %.0f |", (double)kc, (double)kp, t1 - t0));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    }
    PetscCall(PCDestroy(&pc));
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscFinalize());
  return 0;
}
