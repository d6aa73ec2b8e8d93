# Sourced by the CPU build comparisons (native_compare.sh, revision_compare.sh): ex1_solve_row EXE K R RUNS LABEL LOG runs
# tutorials/ex1 (vertex-patch V-cycle, 3D Q_K, the default coarse grid refined R times, rtol 1e-9, one rank, no full-multigrid
# start) RUNS times with EXE and prints the table row "| K | LABEL | iterations | L2 error | least solve time |" (LOG: scratch).
ex1_solve_row() {
  local exe=$1 k=$2 r=$3 runs=$4 label=$5 log=$6 best= t its err
  for _ in $(seq "$runs"); do
    $exe -dm_brick_dim 3 -dm_brick_degree "$k" -dm_brick_refine "$r" -fmg 0 -ksp_rtol 1e-9 >"$log" 2>&1
    t=$(awk '/^solve time/{print $3}' "$log")
    best=$(awk -v a="$best" -v b="$t" 'BEGIN{print (a == "" || b < a) ? b : a}')
  done
  its=$(awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") print $(i + 1)}' "$log" | head -1)
  err=$(awk '/^L2 error/{print $3}' "$log")
  echo "| $k | $label | $its | $err | $best |"
}
