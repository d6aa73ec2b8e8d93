#!/usr/bin/env bash
# Seed 004 ([RTRZ21]) Table 1 on this CPU: the node sets, kappa(C_i), kappa(Pi) (LAPACK syev at setup, -pc_hfem_condition) and
# the sizes of the dense inverses relative to the nonzeros of the Q1 stiffness matrix, NNZ_FEM = (3n - 2)^2 for n = 1/h - 1
# interior nodes per direction, for the unit square with h = 2^-L and macro grid h0 = 2^-m. Each row is
#   ./tutorials/ex1 -dm_brick_degree 1 -dm_brick_cells 1,1 -dm_brick_refine L -fmg 0 -ksp_type preonly -pc_type hfem
#       -pc_hfem_macro_level m -pc_hfem_condition -ksp_view
# ROWS: "L:m ..." (default "8:2 8:3": the rows whose dense eigenproblems fit this machine's time; h = 1/256 with h0 = 1/4
# takes about 75 s with Debian's reference BLAS, dominated by the 3969 x 3969 blocks).
set -uo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-8:2 8:3}
declare -A PAPER=([8:2]="9 1,512 63,504 23.9 24.1 27.06 3.93" [8:3]="49 3,472 61,504 16.9 19.5 1.59 20.71" [8:4]="225 7,200 57,600 11.1 14.5 0.09 89.05" [8:5]="961 13,888 50,176 6.6 10.1 0.004 331.31")
echo "# Seed 004 ([RTRZ21]) Table 1 on the CPU"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), PETSc $(pkg-config --modversion PETSc 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`ROWS=\"$ROWS\" bench/seed004_table1.sh\`"
echo
echo "| h | h0 | source | \|C\| | \|E\| | \|I\| | kappa(C_i) | kappa(Pi) | NNZ(C_i^-1)/NNZ_FEM | NNZ(Pi^-1)/NNZ_FEM | setup + solve s | true residual |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for row in $ROWS; do
  L=${row%:*}; m=${row#*:}
  log=$(mktemp)
  start=$(date +%s.%N)
  ./tutorials/ex1 -dm_brick_degree 1 -dm_brick_cells 1,1 -dm_brick_refine $L -fmg 0 -ksp_type preonly -pc_type hfem -pc_hfem_macro_level $m -pc_hfem_condition -ksp_view >"$log" 2>&1
  end=$(date +%s.%N)
  awk -v L=$L -v m=$m -v t="$(echo "$end - $start" | bc)" '
    /node sets:/ {gsub(",", ""); c = $5; e = $8; i = $11}
    /dense blocks:/ {nb = $4}
    /kappa\(C_1\) =/ {gsub(",", ""); kc = $3; kp = $6}
    /^true residual/ {tr = $NF}
    END {n = 2^L - 1; nnz = (3 * n - 2)^2;
      printf "| 1/%d | 1/%d | ours | %d | %d | %d | %.1f | %.1f | %.3g | %.3g | %.0f | %s |\n", 2^L, 2^m, c, e, i, kc, kp, nb * nb / nnz, e * e / nnz, t, tr}' "$log"
  set -- ${PAPER[$row]:-"- - - - - - -"}
  echo "| 1/$((2 ** L)) | 1/$((2 ** m)) | paper | $1 | $2 | $3 | $4 | $5 | $6 | $7 | | |"
  rm -f "$log"
done
