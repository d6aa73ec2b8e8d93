#!/usr/bin/env bash
# DG (sipg) GPU benchmark, [CK24] (run on the device with the CUDA PETSc and a CUDA build; see bench/results/):
# 1. throughput: the SIPG operator (MatMult) and one multiplicative smoothing step for each local space (full:
#    with its global residual per color; dirichlet, clamped: patch-local residual), double and single, 3D k = 2..7,
#    4-17 million DoFs (bench/bench_gpu), with the fraction of the FP64 / FP32 FMA peak;
# 2. ncu: shared-memory bank conflicts (Nsight Compute) of one launch of the operator and the patch kernel, k = 2..7;
# 3. solve: 3D -Delta u = 1, one-cell coarse mesh refined L times, FGMRES + V-cycle to ||b - A x|| <= 1e-9 ||b||
#    (tutorials/ex3), per local space in double and mixed precision (smoothing, level operators and transfers in float);
#    in the same run PCMG with Chebyshev/Jacobi on the SIPG shell (CG), and PCGAMG on the assembled SIPG matrix
#    (aijcusparse, CG, no aggressive coarsening: cuSPARSE's SpGEMM of the squared graph runs out of resources) on a mesh
#    three levels coarser (its host assembly and setup dominate at the larger sizes); 4-33 million DoFs for ours.
# Usage: bench/gpu_dg_bench.sh [throughput] [ncu] [solve]; prints markdown. LOG_DIR: where the logs go.
set -uo pipefail
cd "$(dirname "$0")/.."
parts=${*:-throughput ncu solve}
LOG=${LOG_DIR:-/tmp/gpu-dg-bench}
mkdir -p "$LOG"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
clock=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits 2>/dev/null | head -1)
sms=132
peak64=$(awk -v s="$sms" -v c="${clock:-1980}" 'BEGIN{printf "%.0f", s * 64 * 2 * c * 1e-3}')
peak32=$((2 * peak64))
echo "- date: $(date -u +%F), device: $gpu ($sms multiprocessors, max SM clock ${clock} MHz: FP64 peak $peak64 GFLOP/s, FP32 peak $peak32 GFLOP/s), command: \`bench/gpu_dg_bench.sh $parts\`"
# refinements of a 2 x 2 x 2 coarse grid for 4-17M DoFs
refine_of() { awk -v k=$1 'BEGIN{print int(log(300/(k+1))/log(2)) - 1}'; }
for p in $parts; do
  case $p in
  throughput)
    echo
    echo "| k | DoFs | space | matvec MDoF/s | GFLOP/s (% FP64) | step double: s, MDoF/s, GFLOP/s (% FP64) | step single: MDoF/s, GFLOP/s (% FP32) |"
    echo "|---|---|---|---|---|---|---|"
    for k in 2 3 4 5 6 7; do
      r=$(refine_of $k)
      for space in full dirichlet clamped; do
        [ $space = clamped ] && [ $k -lt 3 ] && continue
        f="$LOG/throughput_k${k}_$space.log"
        ./bench/bench_gpu -dm_vec_type cuda -dm_brick_operator sipg -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine $r -reps 10 -pc_vertexpatch_local_space $space >"$f" 2>&1
        grep '^dim' "$f" | awk -v p64="$peak64" -v p32="$peak32" -v sp=$space '
          function pc(g, p) { return sprintf("%.1f%%", 100 * g / p) }
          {printf "| %s | %s | %s | %s | %s (%s) | %.3e, %s, %s (%s) | %s, %s (%s) |\n", $4, $6, sp, $10, $12, pc($12, p64), $29, $31, $33, pc($33, p64), $38, $40, pc($40, p32)}'
      done
    done ;;
  ncu)
    echo
    echo "Nsight Compute, one launch of each DG kernel (double), 3D; \`$LOG/ncu_*.txt\` hold the full output."
    echo
    echo "| k | kernel | duration us | shared ld wavefronts | ld bank conflicts | shared st wavefronts | st bank conflicts | SM throughput % |"
    echo "|---|---|---|---|---|---|---|---|"
    metrics=gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
    for k in 2 3 4 5 6 7; do
      for kern in VPDGApplyKernel VPDGPatchKernel; do
        f="$LOG/ncu_k${k}_$kern.txt"
        ncu --clock-control none --kernel-name "regex:$kern" --launch-count 1 --metrics "$metrics" ./bench/bench_gpu -dm_vec_type cuda -dm_brick_operator sipg -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine 2 -reps 1 -pc_vertexpatch_local_space dirichlet >"$f" 2>&1
        awk -v k=$k -v kern=$kern '
          $1 == "gpu__time_duration.sum" {t = $NF; if ($2 == "msecond") t *= 1000; if ($2 == "nsecond") t /= 1000}
          $1 ~ /wavefronts_mem_shared_op_ld/ {wl = $NF} $1 ~ /bank_conflicts_pipe_lsu_mem_shared_op_ld/ {cl = $NF}
          $1 ~ /wavefronts_mem_shared_op_st/ {ws = $NF} $1 ~ /bank_conflicts_pipe_lsu_mem_shared_op_st/ {cs = $NF}
          $1 == "sm__throughput.avg.pct_of_peak_sustained_elapsed" {st = $NF}
          END {printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k, kern, t, wl, cl, ws, cs, st}' "$f"
      done
    done ;;
  solve)
    echo
    echo "3D, f = 1, FGMRES + V-cycle (1 pre-, 1 post-smoothing step), ||b - A x|| <= 1e-9 ||b||; times in seconds (solve excludes setup); its/frac: iterations and fractional iterations."
    echo
    echo "| k | L | DoFs | solver | its/frac | solve s | setup s | MDoF/s (solve) | true residual |"
    echo "|---|---|---|---|---|---|---|---|---|"
    row() { # k L label options...
      local k=$1 L=$2 label=$3; shift 3
      local f="$LOG/solve_k${k}_L${L}_${label// /_}.log"
      ./tutorials/ex3 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 1,1,1 -dm_brick_degree $k -dm_brick_refine $L -rhs one -ksp_rtol 1e-9 -ksp_max_it 200 "$@" >"$f" 2>&1
      awk -v k=$k -v L=$L -v lab="$label" '
        /DoFs:/ && !n {n = $2} /^Linear solve/ {for (i = 1; i < NF; i++) if ($i == "iterations") its = $(i + 1); conv = ($3 == "converged")}
        /^fractional iterations/ {fr = $3} /^true residual/ {tr = $NF} /^solve time/ {s = $3; su = $(NF - 1)}
        END {printf "| %s | %s | %s | %s | %s/%s%s | %s | %s | %.0f | %s |\n", k, L, n, lab, its, fr, conv ? "" : " (not converged)", s, su, (s > 0 ? n / s * 1e-6 : 0), tr}' "$f"
    }
    for k in 2 3 4 5 6 7; do
      L=$([ $k -le 4 ] && echo 6 || echo 5)
      for space in full dirichlet clamped; do
        [ $space = clamped ] && [ $k -lt 3 ] && continue
        row $k $L "$space double" -local_space $space
        row $k $L "$space mixed" -local_space $space -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single
      done
      row $k $L "chebyshev-jacobi" -smoother chebyshev
      [ $k -le 4 ] && row $k $((L - 3)) "gamg aijcusparse" -pc_type gamg -pc_gamg_aggressive_coarsening 0 -ksp_type cg -ksp_norm_type unpreconditioned -dm_mat_type aijcusparse -dm_brick_coarse_mat_type aijcusparse -mg_levels_ksp_type chebyshev -mg_levels_pc_type jacobi -mg_levels_ksp_max_it 2
    done ;;
  esac
done
