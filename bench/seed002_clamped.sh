#!/usr/bin/env bash
# Seed 002 ([CK24]) Table 2, the clamped column, under the solver protocols its authors' code uses (issue 48, item 4).
# The authors' public code (github.com/CuiCu-618/GPUTensorProductSmoothers, branch poisson_dg) builds the clamped patch
# space from deal.II's FE_DGQHermite basis by dropping the two functions with a value or slope at each outer patch end
# (the 1D patch matrices' sub-block 2..2N-3): per cell x^2 P_{k-2} and (1-x)^2 P_{k-2}, the space of ours
# (src/pc/vertexpatch/vpdg.c, VPDGBasisClamped). What differs is the protocol; this script runs ours under each variant
# that the plugin's options can express, 3D, f = 1, levels L = 2..LMAX on one coarse cell:
#   right   FGMRES (right preconditioning, the true residual's norm; bench/seed002_tables.sh)
#   left    GMRES with left preconditioning and the preconditioned norm (deal.II's SolverGMRES default in their code)
# (Their coarse level, 2 x 2 x 2 cells with one smoothing step as its solve, gives the same iterates as ours to 13 digits:
# with -dm_brick_cells 2,2,2 -dm_brick_coarsen_below 0 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1
# -mg_coarse_pc_type vertexpatch -mg_coarse_pc_vertexpatch_local_space clamped; checked 2026-11-29, k = 3, L = 2, 3, 4.)
# Each cell: "fractional (iterations, ||b - A x||/||b|| at the end)"; the stopping test is 1e-8 in the KSP's norm.
# Usage: bench/seed002_clamped.sh > bench/results/seed002-clamped-cpu-DATE.md   (LMAX default 4, DEGREES default "3 4 5"; k = 2 is refused: x^2 P_0 + (1-x)^2 P_0 misses the bubble)
set -uo pipefail
cd "$(dirname "$0")/.."
LMAX=${LMAX:-4}
DEGREES=${DEGREES:-3 4 5}
run() { # options...
  ./tutorials/ex3 -dm_brick_dim 3 -rhs one -ksp_rtol 1e-8 -ksp_max_it 200 -local_space clamped -dm_brick_verify_convergence 0 "$@" 2>&1 |
    awk '/^Linear solve/{for (i = 1; i < NF; i++) if ($i == "iterations") its = $(i + 1); conv = ($3 == "converged")} /^fractional iterations/{f = $3} /^true residual/{t = $NF}
      END{ if (its == "") { printf "error"; exit } printf "%s (%s%s, %.1e)", f, its, conv ? "" : ", not converged", t }'
}
echo "- date: $(date -u +%F), machine: $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null), command: \`LMAX=$LMAX DEGREES=\"$DEGREES\" bench/seed002_clamped.sh\`"
echo
printf "| k | protocol |"; for L in $(seq 2 "$LMAX"); do printf " L = %s |" "$L"; done; echo " paper (levels 1-5) |"
printf "|---|---|"; for L in $(seq 2 "$LMAX"); do printf -- "---|"; done; echo "---|"
declare -A PC=([2]="18.6 11.1 7.9 6.6 5.4" [3]="22.7 12.2 7.7 6.6 5.2" [4]="21.7 11.6 7.4 5.8 4.8" [5]="19.0 10.7 6.9 5.7 4.7")
for k in $DEGREES; do
  for proto in right left; do
    printf "| %s | %s |" "$k" "$proto"
    for L in $(seq 2 "$LMAX"); do
      case $proto in
      right) cell=$(run -dm_brick_degree "$k" -dm_brick_cells 1,1,1 -dm_brick_refine "$L" -ksp_type fgmres) ;;
      left) cell=$(run -dm_brick_degree "$k" -dm_brick_cells 1,1,1 -dm_brick_refine "$L" -ksp_type gmres -ksp_pc_side left -ksp_norm_type preconditioned) ;;
      esac
      printf " %s |" "$cell"
    done
    echo " ${PC[$k]:-} |"
  done
done
