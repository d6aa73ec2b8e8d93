#!/usr/bin/env bash
# The 3D laplace shared smoothing kernel's variants on the GPU (-pc_vertexpatch_gpu_lines; run on the device with the
# CUDA PETSc and a CUDA build of this project; see bench/results/gpu-pair-h100-2026-11-26.md):
# 1. steps: one smoothing step (bench/bench_gpu, 3D, k = 2..8, 2-7 million DoFs) with the generic one-line kernel (0),
#    one line per thread with the terms combined (1), two (2) and one with the x step folded at the vertex (3), double
#    and single precision;
# 2. solves: tutorials/ex1, 3D Poisson, f = 1, relative residual 1e-9, k = 2..7 (11-56 million DoFs): the vertex-patch
#    V-cycle with the default choice per degree and precision and with the generic kernel, in double and in mixed
#    precision, beside PCMG with Chebyshev/Jacobi on the same operators;
# 3. mma: the FP64 tensor-core kernel (-pc_vertexpatch_gpu_kernel mma; one patch per warp at k = 2, 3, one per block
#    above) against the default in one step (k = 2..8, same process) and in the double solves of 2. (k = 2..4).
# Usage: bench/gpu_lines.sh [steps] [solves] [mma]; prints markdown tables. LOG_DIR: where the logs go.
set -uo pipefail
cd "$(dirname "$0")/.."
parts=${*:-steps solves}
LOG=${LOG_DIR:-/tmp/gpu-lines}
mkdir -p "$LOG"
echo "- date: $(date -u +%F), device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), command: \`bench/gpu_lines.sh $parts\`"
# the meshes: one step at 2-7 million DoFs, solves at 11-56 million
step_refine() { awk -v k=$1 'BEGIN{print int(log(215/k)/log(2)) - 1}'; }
solve_refine() { awk -v k=$1 'BEGIN{print int(log(400/k)/log(2)) - 1}'; }
solve_dofs() { awk -v k=$1 -v r=$2 'BEGIN{n = k * 2^(r+1) - 1; printf "%.0f", n^3}'; }
step() { ./bench/bench_gpu -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $1 -dm_brick_refine $(step_refine $1) -reps 10 "${@:3}" >"$2" 2>&1; }
solve_opts() { echo "-dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $1 -dm_brick_refine $2 -rhs one -ksp_rtol 1e-9 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch -dm_brick_coarsen_below 0"; }
# iterations, solve time of an ex1 log
g() { awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)} /^solve time/{t = $3} END{printf "%s, %s", it, t}' "$1"; }
for p in $parts; do
  case $p in
  steps)
    echo
    echo "| k | DoFs | double step ms: lines 0 / 1 / 2 / 3 | single step ms: lines 0 / 1 / 2 / 3 |"
    echo "|---|---|---|---|"
    for k in 2 3 4 5 6 7 8; do
      d="" s="" n=""
      for l in 0 1 2 3; do
        step $k "$LOG/step_k${k}_l$l.log" -pc_vertexpatch_gpu_lines $l
        set -- $(awk '/^dim/{for (i = 1; i <= NF; i++) {if ($i == "DoFs") n = $(i + 1); if ($i == "smooth_shared_double") dd = $(i + 1); if ($i == "smooth_shared_single") ss = $(i + 1)}} END{printf "%s %.3f %.3f", n, 1e3 * dd, 1e3 * ss}' "$LOG/step_k${k}_l$l.log")
        n=$1 d="$d${d:+ / }$2" s="$s${s:+ / }$3"
      done
      echo "| $k | $n | $d | $s |"
    done ;;
  solves)
    echo
    echo "| k | DoFs | double: default, generic (its, s) | mixed: default, generic (its, s) | Chebyshev/Jacobi MG (its, s) |"
    echo "|---|---|---|---|---|"
    for k in 2 3 4 5 6 7; do
      r=$(solve_refine $k) && n=$(solve_dofs $k $r) && o=$(solve_opts $k $r)
      mx="-mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single"
      ./tutorials/ex1 $o -fmg 0 >"$LOG/solve_k${k}_double.log" 2>&1
      ./tutorials/ex1 $o -fmg 0 -mg_levels_pc_vertexpatch_gpu_lines 0 >"$LOG/solve_k${k}_double_generic.log" 2>&1
      ./tutorials/ex1 $o -fmg 0 $mx >"$LOG/solve_k${k}_mixed.log" 2>&1
      ./tutorials/ex1 $o -fmg 0 $mx -mg_levels_pc_vertexpatch_gpu_lines 0 >"$LOG/solve_k${k}_mixed_generic.log" 2>&1
      ./tutorials/ex1 $o -smoother chebyshev >"$LOG/solve_k${k}_cheb.log" 2>&1
      echo "| $k | $n | $(g "$LOG/solve_k${k}_double.log"); $(g "$LOG/solve_k${k}_double_generic.log") | $(g "$LOG/solve_k${k}_mixed.log"); $(g "$LOG/solve_k${k}_mixed_generic.log") | $(g "$LOG/solve_k${k}_cheb.log") |"
    done ;;
  mma)
    echo
    echo "| k | DoFs | double step ms: default / mma | mma / default |"
    echo "|---|---|---|---|"
    for k in 2 3 4 5 6 7 8; do
      step $k "$LOG/mma_step_k$k.log"
      awk -v k=$k '/^dim/{for (i = 1; i <= NF; i++) {if ($i == "DoFs") n = $(i + 1); if ($i == "smooth_shared_double") d = $(i + 1); if ($i == "smooth_mma_double") m = $(i + 1)}} END{printf "| %s | %s | %.3f / %.3f | %.2f |\n", k, n, 1e3 * d, 1e3 * m, m / d}' "$LOG/mma_step_k$k.log"
    done
    echo
    echo "| k | DoFs | double solve: default (its, s) | mma (its, s) |"
    echo "|---|---|---|---|"
    for k in 2 3 4; do
      r=$(solve_refine $k) && n=$(solve_dofs $k $r) && o="$(solve_opts $k $r) -fmg 0"
      ./tutorials/ex1 $o >"$LOG/mma_solve_k${k}_default.log" 2>&1
      ./tutorials/ex1 $o -mg_levels_pc_vertexpatch_gpu_kernel mma >"$LOG/mma_solve_k${k}_mma.log" 2>&1
      echo "| $k | $n | $(g "$LOG/mma_solve_k${k}_default.log") | $(g "$LOG/mma_solve_k${k}_mma.log") |"
    done ;;
  *) echo "unknown part $p: allowed steps, solves, mma" >&2; exit 1 ;;
  esac
done
