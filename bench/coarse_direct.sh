#!/usr/bin/env bash
# What an exact coarse solve costs on one core, by the size of the assembled operator: for each (tutorial, dimension,
# degree, cells) the brick alone (refine 0, nothing below it: -dm_brick_coarsen_below 0) is assembled and solved by
# PETSc's sparse LU (PCMG's default coarse solver on one rank), once. Prints a markdown table: unknowns, nonzeros,
# assembly time (DMCreateMatrix), LU factorization time (symbolic + numeric), one triangular solve. The times come from
# -log_view (max over ranks, one rank here). Used to choose -dm_brick_coarse_direct_max (src/dm/brickcoarse.c).
#   bench/coarse_direct.sh [cases...]   a case: ex:dim:k:cells, e.g. ex1:3:4:5,5,5
set -u
cd "$(dirname "$0")/.."
cases=("$@")
[ ${#cases[@]} = 0 ] && cases=(ex1:3:2:9,9,9 ex1:3:3:7,7,7 ex1:3:4:5,5,5 ex1:3:4:7,7,7 ex1:3:6:5,5,5 ex1:3:8:3,3,3 ex1:3:8:5,5,5
  ex2:3:2:5,5,5 ex2:3:3:5,5,5 ex2:3:4:3,3,3 ex2:3:5:3,3,3 ex2:3:4:5,5,5 ex2:2:8:9,9
  ex3:3:2:7,7,7 ex3:3:3:5,5,5 ex3:3:4:5,5,5 ex3:3:6:3,3,3 ex3:3:8:3,3,3 ex1:2:8:15,15 ex3:2:8:15,15)
log=$(mktemp)
ev() { awk -v e="$1" '$1 == e { print $4; found = 1; exit } END { if (!found) print 0 }' "$log"; }
echo "| tutorial | dim | k | cells | unknowns | nonzeros | factor nonzeros | assembly s | LU factor s | LU solve s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  IFS=: read -r ex dim k cells <<<"$c"
  timeout 900 ./tutorials/$ex -dm_brick_dim "$dim" -dm_brick_degree "$k" -dm_brick_cells "$cells" -dm_brick_refine 0 -dm_brick_coarsen_below 0 \
    -dm_brick_coarse_direct_max 2000000000 -dm_mat_type aij -ksp_type preonly -pc_type lu -fmg 0 -ksp_view -log_view >"$log" 2>&1
  rows=$(awk '/rows=/{sub(/.*rows=/, ""); sub(/,.*/, ""); print; exit}' "$log")
  # the last nonzeros= of the view is the operator's (the first, the LU factor's); PCSetUp includes the factorization
  nnz=$(awk '/total: nonzeros=/{v = $0; sub(/.*nonzeros=/, "", v); sub(/,.*/, "", v)} END { print v }' "$log")
  asm=$(ev DMCreateMat)
  fnnz=$(awk '/total: nonzeros=/{v = $0; sub(/.*nonzeros=/, "", v); sub(/,.*/, "", v); print v; exit}' "$log")
  fac=$(awk '$1 == "MatLUFactorSym" || $1 == "MatLUFactorNum" { s += $4 } END { print s + 0 }' "$log")
  sol=$(ev MatSolve)
  echo "| $ex | $dim | $k | $cells | $rows | ${nnz:-?} | ${fnnz:-?} | $asm | $fac | $sol |"
done
rm -f "$log"
