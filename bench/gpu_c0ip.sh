#!/usr/bin/env bash
# The 3D C0IP (biharmonic) vertex-patch smoother on one GPU (run on the device, from a CUDA build's folder; see
# bench/results/gpu-c0ip-*.md):
# 1. steps: one colored multiplicative smoothing step (bench/bench_gpu -dm_brick_operator c0ip), k = 2..5, 2-7 million
#    DoFs, the shared-memory kernel (the default) and the global-scratch one in the same process, double and single;
#    MDoF/s, and the shared kernel's useful work against the FP64 FMA peak (its own flop count per patch, from the
#    loops it runs: the cross of the closure, the narrow and wide 1D ranges, one z contraction per z kind, the fast
#    diagonalization);
# 2. solves: tutorials/ex2 (mvs V-cycle, FGMRES, rtol 1e-8), shared against global kernel, k = 2..5.
# Usage: bench/gpu_c0ip.sh [steps] [solves]; prints markdown tables. LOG_DIR: where the logs go. PEAK_TFLOPS: the
# GPU's FP64 FMA peak (default: an H100 SXM, 132 multiprocessors x 64 FP64 lanes x 2 flops x 1.98 GHz = 33.5).
set -u
LOG=${LOG_DIR:-/tmp/gpu_c0ip}
PEAK=${PEAK_TFLOPS:-33.5}
mkdir -p "$LOG"
[ $# -eq 0 ] && set -- steps solves
# flops of the shared kernel per patch at degree k (per thread-line counts times the lines; see cuda/vpsmooth_c0ip.cu)
flops() {
  awk -v k=$1 'BEGIN{ne = 4*k+1; nc = 2*k+1; ni = 2*k-1; na = 2*k
    x = ni * (nc*nc*ne + nc*nc*nc + nc*nc*nc + 2*na*nc*nc)          # x step: B (wide, centre lines), K, M (centre, y and z arms)
    y = ni*ni * (6*nc*nc + na*nc + na*nc)                           # y step: six terms over the centre, MBM y arms, MMB z arms
    z = ni*ni * ni * (nc + ne + nc)                                 # z step: one per z kind (M, B wide, K)
    f = 6 * ni*ni*ni*ni + ni*ni*ni                                  # fast diagonalization: six 1D contractions, the division
    printf "%.0f", 2 * (x + y + z + f)}'
}
for p in "$@"; do
  case $p in
  steps)
    echo
    echo "| k | DoFs | patches | shared double: step ms, MDoF/s | % FP64 peak | shared float MDoF/s | global double: ms, MDoF/s | global float MDoF/s | shared / global, double |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for k in 2 3 4 5; do
      r=5; [ $k -ge 4 ] && r=4
      ./bench/bench_gpu -dm_vec_type cuda -dm_brick_operator c0ip -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine $r -reps 10 >"$LOG/step_k$k.log" 2>&1
      awk -v k=$k -v r=$r -v fp=$(flops $k) -v peak=$PEAK '/^dim/{for (i = 1; i <= NF; i++) {if ($i == "DoFs") n = $(i + 1); if ($i == "smooth_shared_double") {sd = $(i + 1); md = $(i + 3)}; if ($i == "smooth_shared_single") ms = $(i + 3); if ($i == "smooth_global_double") {gd = $(i + 1); mg = $(i + 3)}; if ($i == "smooth_global_single") mgs = $(i + 3)}}
        END{v = 2^(r + 1) - 1; np = v^3; printf "| %d | %d | %d | %.3f, %.1f | %.1f %% | %.1f | %.3f, %.1f | %.1f | %.2f |\n", k, n, np, 1e3 * sd, md, 100 * np * fp / sd / (peak * 1e12), ms, 1e3 * gd, mg, mgs, gd / sd}' "$LOG/step_k$k.log"
    done ;;
  solves)
    echo
    echo "| k | r | DoFs | iterations shared / global | true residual shared / global | solve s shared / global | speed-up |"
    echo "|---|---|---|---|---|---|---|"
    for kr in "2 5" "3 4" "4 4" "5 3"; do
      set -- $kr
      k=$1 r=$2
      for kern in shared global; do
        ./tutorials/ex2 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine $r -mg_levels_pc_vertexpatch_gpu_kernel $kern -log_view >"$LOG/solve_k${k}_$kern.log" 2>&1
      done
      g() { awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)} /true residual/{t = $NF; sub(/\)$/, "", t)} /^solve time/{s = $3} END{print it, t, s}' "$1"; }
      read -r is ts ss <<<"$(g "$LOG/solve_k${k}_shared.log")"
      read -r ig tg sg <<<"$(g "$LOG/solve_k${k}_global.log")"
      n=$(awk -v k=$k -v r=$r 'BEGIN{printf "%.0f", (k * 2^(r+1) - 1)^3}')
      echo "| $k | $r | $n | $is / $ig | $ts / $tg | $ss / $sg | $(awk -v a=$ss -v b=$sg 'BEGIN{if (a > 0) printf "%.2f", b / a}') |"
    done ;;
  *) echo "unknown part $p: allowed steps, solves" >&2; exit 1 ;;
  esac
done
