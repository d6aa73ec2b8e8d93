#!/usr/bin/env bash
# Two facts about the C0IP biharmonic operator that the docs quote, measured with tutorials/ex2:
#  lambda: the estimate of lambda_max(B A) that PCVERTEXPATCH makes at setup for the additive smoother (B the undamped
#          sum of fdm patch solves; 12 CG/Lanczos steps), per level, with the damping it chooses, min(1/2^d, 1.8/lambda),
#          and the AVS solve that uses it;
#  floor:  the true residual |b - A x|/|b| a solve reaches when asked for far more than double precision can verify
#          (-ksp_rtol 1e-13, the check off): the round-off floor of the operator, against the mesh size and the degree.
# Usage: bench/c0ip_checks.sh [lambda] [floor] > bench/results/c0ip-checks-cpu-DATE.md
set -uo pipefail
cd "$(dirname "$0")/.."
parts=${*:-lambda floor}
echo "# C0IP: the additive smoother's lambda_max(B A) estimates and the residual's round-off floor"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), PETSc $(pkg-config --modversion PETSc 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`bench/c0ip_checks.sh $parts\`"
echo
if [[ " $parts " == *" lambda "* ]]; then
  echo "## lambda_max(B A) estimated at setup, and the AVS solve"
  echo
  echo "Each row: \`./tutorials/ex2 -smoother avs -rhs paper -dm_brick_dim D -dm_brick_cells 2,2[,2] -dm_brick_degree k -dm_brick_refine R -ksp_view\`;"
  echo "estimates listed from the coarsest level to the finest (the coarse grid is one patch)."
  echo
  echo "| dim | k | levels | lambda_max(B A) estimates | damping used (finest) | CG iterations | true residual |"
  echo "|---|---|---|---|---|---|---|"
  for dim in 2 3; do
    if [ $dim = 2 ]; then cells=2,2; R=4; else cells=2,2,2; R=2; fi
    for k in 2 3 4 5 6 7; do
      out=$(./tutorials/ex2 -smoother avs -rhs paper -dm_brick_dim $dim -dm_brick_cells $cells -dm_brick_degree $k -dm_brick_refine $R -ksp_view 2>&1)
      lam=$(echo "$out" | grep -o "lambda_max(B A) estimated [0-9.e+-]*" | awk '{printf "%s%s", sep, $NF; sep=", "}')
      om=$(echo "$out" | grep -o "additive vertex-patch Schwarz, local solver fdm, local residual, damping [0-9.e+-]*" | tail -1 | awk '{print $NF}')
      its=$(echo "$out" | awk '/^Linear solve/{print $NF}')
      tr=$(echo "$out" | grep -o "true residual |b - A x|/|b| = [0-9.e+-]*" | awk '{print $NF}')
      echo "| $dim | $k | $((R + 1)) | $lam | $om | $its | $tr |"
    done
  done
  echo
fi
if [[ " $parts " == *" floor "* ]]; then
  echo "## Round-off floor of the true residual"
  echo
  echo "Each row: \`./tutorials/ex2 -dm_brick_cells C -dm_brick_degree k -dm_brick_refine R -ksp_rtol 1e-13 -ksp_max_it 60 -dm_brick_verify_convergence false\`"
  echo "(2D, FGMRES + MVS V-cycles); the Krylov estimate keeps falling, the true residual stops at the floor."
  echo
  echo "| k | cells per direction | DoFs | Krylov residual reached | true residual reached |"
  echo "|---|---|---|---|---|"
  for c in "3 9,9 1 18" "3 9,9 2 36" "3 9,9 3 72" "8 2,2 2 8" "8 2,2 3 16"; do
    read -r k cells R n <<<"$c"
    out=$(./tutorials/ex2 -dm_brick_cells $cells -dm_brick_degree $k -dm_brick_refine $R -ksp_rtol 1e-13 -ksp_max_it 60 -dm_brick_verify_convergence false 2>&1)
    dofs=$(echo "$out" | awk '/^  DoFs:/{print $2; exit}')
    kr=$(echo "$out" | grep -o "|r_n|/|r_0| = [0-9.e+-]*" | awk '{print $NF}')
    tr=$(echo "$out" | grep -o "true residual |b - A x|/|b| = [0-9.e+-]*" | awk '{print $NF}')
    echo "| $k | $n | $dofs | ${kr:--} | $tr |"
  done
  echo
fi
