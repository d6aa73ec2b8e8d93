#!/usr/bin/env bash
# GPU benchmark (run on the device, with the CUDA PETSc and a CUDA build of this project; see bench/results/):
# 1. throughput of the operator and of one smoothing step (bench/bench_gpu), k = 1..8, 2D and 3D, about 1e7 DoFs;
# 2. time to solution, 3D Poisson (-rhs one), relative residual 1e-9, for k = 2..7: our multigrid with the
#    vertex-patch smoother in double and in mixed precision (V-cycle smoothing in float), PCMG with
#    Chebyshev/Jacobi on our operators, and PCGAMG on the assembled operator (aijcusparse), same brick.
# Usage: bench/gpu_bench.sh [throughput] [solve]; prints markdown tables.
set -uo pipefail
cd "$(dirname "$0")/.."
parts=${*:-throughput solve}
echo "- date: $(date -u +%F), device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), command: \`bench/gpu_bench.sh $parts\`"
for p in $parts; do
  case $p in
  throughput)
    echo; echo "| dim | k | DoFs | matvec s | MDoF/s | GFLOP/s | smoothing step s | MDoF/s | GFLOP/s | smoothing single: MDoF/s |"; echo "|---|---|---|---|---|---|---|---|---|---|"
    for dim in 2 3; do
      for k in 1 2 3 4 5 6 7 8; do
        if [ $dim = 2 ]; then r=$(awk -v k=$k 'BEGIN{r = int(log(3200/k)/log(2)) - 1; print r}'); c=2,2; else r=$(awk -v k=$k 'BEGIN{r = int(log(215/k)/log(2)) - 1; print r}'); c=2,2,2; fi
        o="-dm_vec_type cuda -dm_brick_dim $dim -dm_brick_cells $c -dm_brick_degree $k -dm_brick_refine $r -reps 10"
        l=$(./bench/bench_gpu $o 2>&1 | grep '^dim')
        s=$(./bench/bench_gpu $o -pc_vertexpatch_precision single 2>&1 | grep '^dim' | awk '{print $17}')
        echo "$l" | awk -v s="$s" '{printf "| %s | %s | %s | %.3e | %s | %s | %.3e | %s | %s | %s |\n", $2, $4, $6, $8, $10, $12, $15, $17, $19, s}'
      done
    done ;;
  solve)
    echo; echo "| k | DoFs | vertex patch double: its, solve s | vertex patch mixed: its, solve s | Chebyshev/Jacobi MG: its, solve s | GAMG (aijcusparse): its, setup s, solve s |"; echo "|---|---|---|---|---|---|"
    for k in 2 3 4 5 6 7; do
      r=$(awk -v k=$k 'BEGIN{print int(log(200/k)/log(2)) - 1}')
      o="-dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine $r -rhs one -ksp_rtol 1e-9 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch"
      n=$(awk -v k=$k -v r=$r 'BEGIN{n = k * 2^(r+1) - 1; printf "%.0f", n^3}')
      g() { awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)} /^solve time/{t = $3; s = $9} END{printf "%s, %s", it, t}'; }
      v=$(./tutorials/ex1 $o -fmg 0 2>&1 | g)
      m=$(./tutorials/ex1 $o -fmg 0 -mg_levels_pc_vertexpatch_precision single 2>&1 | g)
      c=$(./tutorials/ex1 $o -smoother chebyshev 2>&1 | g)
      if [ $k -le 4 ]; then
        ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine $((r - 1)) -rhs one -ksp_rtol 1e-9 -smoother chebyshev -pc_type gamg -dm_mat_type aijcusparse >"${GAMG_LOG:-/tmp}/gamg_k$k.log" 2>&1
        a=$(cat "${GAMG_LOG:-/tmp}/gamg_k$k.log" | awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)} /^solve time/{t = $3; s = $9} END{printf "%s, %s, %s (DoFs/8)", it, s, t}')
      else a="not run"; fi
      echo "| $k | $n | $v | $m | $c | $a |"
    done ;;
  esac
done
