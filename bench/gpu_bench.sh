#!/usr/bin/env bash
# GPU benchmark (run on the device, with the CUDA PETSc and a CUDA build of this project; see bench/results/):
# 1. throughput: the operator and one smoothing step (bench/bench_gpu), laplace, k = 1..8, 2D and 3D, 2-10 million
#    DoFs, for both smoothing kernels (shared: patch in shared memory; global: per-block scratch in global memory)
#    in double and single precision, the FP64 tensor-core kernel (mma) in double, and in 3D the generic one-line shared
#    kernel (-pc_vertexpatch_gpu_lines 0) beside the default choice, with the fraction of the GPU's FP64 / FP32 FMA peak
#    (the tensor cores' FP64 peak is twice the FMA one);
# 2. ncu: Nsight Compute counters of one launch of each smoothing kernel (shared-memory bank conflicts, wavefronts,
#    duration, throughput), 3D and 2D, smaller meshes;
# 3. time to solution, 3D Poisson (-rhs one), relative residual 1e-9, for k = 2..7: our multigrid with the
#    vertex-patch smoother in double, in mixed precision (V-cycle smoothing in float), and in mixed precision with
#    the coarser levels' operators and transfers in float too (-dm_brick_mg_precision single); PCMG with
#    Chebyshev/Jacobi on our operators (same mesh); PCGAMG on the assembled operator (aijcusparse) on a coarser
#    mesh of the same brick (its setup takes minutes at the largest sizes), without aggressive coarsening (the
#    squared graph of the Q_k stencils (up to (4k+1)^3 entries per row) makes cuSPARSE's SpGEMM fail with
#    CUSPARSE_STATUS_INSUFFICIENT_RESOURCES for k >= 3).
# 4. ranks: the same solves on 1 and 2 MPI ranks with VECCUDA vectors (one rank per GPU; on a machine with one GPU both
#    ranks share it, which measures what the several-rank path costs, not scaling): laplace k = 3 and 7, double and
#    mixed, c0ip k = 3; iterations, solve time, time per V-cycle, the share of KSPSolve spent in VecScatter (the ghost
#    exchange and the coarse-box gathers) and -log_view's host<->device copies per V-cycle; beside them PETSc's ksp
#    tutorial ex45 (7-point Laplacian on a DMDA, aijcusparse, CG + PCMG Chebyshev/Jacobi, Galerkin coarse operators)
#    at 257^3 on 1 and 2 ranks when EX45 names its binary.
# Usage: bench/gpu_bench.sh [throughput] [ncu] [solve] [ranks]; prints markdown tables. LOG_DIR: where the logs go;
# SOLVE_SCALE: mesh size of the solve part (see there); THROUGHPUT_DIMS: the dimensions of the throughput part (default
# "2 3").
set -uo pipefail
cd "$(dirname "$0")/.."
parts=${*:-throughput ncu solve}
LOG=${LOG_DIR:-/tmp/gpu-bench}
mkdir -p "$LOG"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
clock=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits 2>/dev/null | head -1)
sms=$(python3 -c "import torch; print(torch.cuda.get_device_properties(0).multi_processor_count)" 2>/dev/null || echo 132)
# FMA pipes: 64 FP64 and 128 FP32 lanes per multiprocessor on Hopper, 2 flops per FMA
peak64=$(awk -v s="$sms" -v c="${clock:-1980}" 'BEGIN{printf "%.0f", s * 64 * 2 * c * 1e-3}')
peak32=$((2 * peak64))
echo "- date: $(date -u +%F), device: $gpu ($sms multiprocessors, max SM clock ${clock} MHz: FP64 peak $peak64 GFLOP/s, FP32 peak $peak32 GFLOP/s), command: \`bench/gpu_bench.sh $parts\`"
for p in $parts; do
  case $p in
  throughput)
    echo
    echo "| dim | k | DoFs | matvec MDoF/s | GFLOP/s (% FP64) | shared double: step s, MDoF/s, GFLOP/s (% FP64) | shared single: MDoF/s, GFLOP/s (% FP32) | global double: step s, MDoF/s, GFLOP/s (% FP64) | global single: MDoF/s | mma double: step s, MDoF/s, GFLOP/s (% FP64) | shared generic one-line (3D): double step s, MDoF/s (% FP64); single MDoF/s |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for dim in ${THROUGHPUT_DIMS:-2 3}; do
      for k in 1 2 3 4 5 6 7 8; do
        if [ $dim = 2 ]; then r=$(awk -v k=$k 'BEGIN{r = int(log(3200/k)/log(2)) - 1; print r}'); c=2,2; else r=$(awk -v k=$k 'BEGIN{r = int(log(215/k)/log(2)) - 1; print r}'); c=2,2,2; fi
        o="-dm_vec_type cuda -dm_brick_dim $dim -dm_brick_cells $c -dm_brick_degree $k -dm_brick_refine $r -reps 10"
        ./bench/bench_gpu $o >"$LOG/throughput_${dim}d_k$k.log" 2>&1
        grep '^dim' "$LOG/throughput_${dim}d_k$k.log" | awk -v p64="$peak64" -v p32="$peak32" '
          function pc(g, p) { return g == "n/a" ? "n/a" : sprintf("%.1f%%", 100 * g / p) }
          {printf "| %s | %s | %s | %s | %s (%s) | %.3e, %s, %s (%s) | %s, %s (%s) | %.3e, %s, %s (%s) | %s | %s, %s, %s (%s) | %s, %s (%s); %s |\n", $2, $4, $6, $10, $12, pc($12, p64), $15, $17, $19, pc($19, p64), $24, $26, pc($26, p32), $29, $31, $33, pc($33, p64), $38, $43, $45, $47, pc($47, p64), $50, $52, pc($54, p64), $59}'
      done
    done ;;
  ncu)
    echo
    echo "Nsight Compute, one launch (the first color of the warm-up step) of each kernel, double precision; \`$LOG/ncu_*.txt\` hold the full output."
    echo
    echo "| dim | k | DoFs | kernel | duration us | shared ld wavefronts | ld bank conflicts | shared st wavefronts | st bank conflicts | warps active % | SM throughput % |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    metrics=gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed
    for cfg in "3 2 4" "3 3 3" "3 4 3" "3 5 2" "3 6 2" "3 7 2" "2 3 6" "2 6 5"; do
      set -- $cfg
      dim=$1 k=$2 r=$3
      c=$([ $dim = 2 ] && echo 2,2 || echo 2,2,2)
      n=$(awk -v k=$k -v r=$r -v d=$dim 'BEGIN{n = k * 2^(r+1) - 1; printf "%.0f", n^d}')
      for kern in VPTileKernel VPSmoothKernel; do
        f="$LOG/ncu_${dim}d_k${k}_$kern.txt"
        ncu --clock-control none --kernel-name "regex:$kern" --launch-count 1 --metrics "$metrics" ./bench/bench_gpu -dm_vec_type cuda -dm_brick_dim $dim -dm_brick_cells $c -dm_brick_degree $k -dm_brick_refine $r -reps 1 >"$f" 2>&1
        awk -v d=$dim -v k=$k -v n=$n -v kern=$([ $kern = VPTileKernel ] && echo shared || echo global) '
          $1 == "gpu__time_duration.sum" {t = $NF; if ($2 == "msecond") t *= 1000; if ($2 == "nsecond") t /= 1000}
          $1 ~ /wavefronts_mem_shared_op_ld/ {wl = $NF} $1 ~ /bank_conflicts_pipe_lsu_mem_shared_op_ld/ {cl = $NF}
          $1 ~ /wavefronts_mem_shared_op_st/ {ws = $NF} $1 ~ /bank_conflicts_pipe_lsu_mem_shared_op_st/ {cs = $NF}
          $1 == "sm__warps_active.avg.pct_of_peak_sustained_active" {wa = $NF} $1 == "sm__throughput.avg.pct_of_peak_sustained_elapsed" {st = $NF}
          END {printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", d, k, n, kern, t, wl, cl, ws, cs, wa, st}' "$f"
      done
    done ;;
  solve)
    echo
    echo "| k | DoFs | vertex patch double: its, solve s | mixed (float smoothing): its, solve s | mixed + float levels: its, solve s | Chebyshev/Jacobi MG: its, solve s | GAMG (aijcusparse): its, setup s, solve s |"
    echo "|---|---|---|---|---|---|---|"
    for k in 2 3 4 5 6 7; do
      # meshes of 2x2x2 * 2^r cells: by default 11-56 million DoFs; SOLVE_SCALE=900 gives the largest that fit one
      # H100 (133-717 million); GAMG one or two levels coarser
      r=$(awk -v k=$k -v s="${SOLVE_SCALE:-400}" 'BEGIN{print int(log(s/k)/log(2)) - 1}')
      rg=$(awk -v k=$k 'BEGIN{print int(log(200/k)/log(2)) - 2}')
      o="-dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine $r -rhs one -ksp_rtol 1e-9 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch -dm_brick_coarsen_below 0"
      n=$(awk -v k=$k -v r=$r 'BEGIN{n = k * 2^(r+1) - 1; printf "%.0f", n^3}')
      g() { awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)} /^solve time/{t = $3; s = $9} END{printf "%s, %s", it, t}' "$1"; }
      ./tutorials/ex1 $o -fmg 0 >"$LOG/solve_k${k}_double.log" 2>&1
      ./tutorials/ex1 $o -fmg 0 -mg_levels_pc_vertexpatch_precision single >"$LOG/solve_k${k}_mixed.log" 2>&1
      ./tutorials/ex1 $o -fmg 0 -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single >"$LOG/solve_k${k}_mixedlevels.log" 2>&1
      ./tutorials/ex1 $o -smoother chebyshev >"$LOG/solve_k${k}_cheb.log" 2>&1
      if [ $k -le 4 ]; then
        ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine $rg -rhs one -ksp_rtol 1e-9 -smoother chebyshev -pc_type gamg -pc_gamg_aggressive_coarsening 0 -dm_mat_type aijcusparse >"$LOG/solve_k${k}_gamg.log" 2>&1
        a=$(awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)} /^solve time/{t = $3; s = $9} END{printf "%s, %s, %s (%d DoFs)", it, s, t, n}' n=$(awk -v k=$k -v r=$rg 'BEGIN{n = k * 2^(r+1) - 1; printf "%.0f", n^3}') "$LOG/solve_k${k}_gamg.log")
      else a="not run"; fi
      echo "| $k | $n | $(g "$LOG/solve_k${k}_double.log") | $(g "$LOG/solve_k${k}_mixed.log") | $(g "$LOG/solve_k${k}_mixedlevels.log") | $(g "$LOG/solve_k${k}_cheb.log") | $a |"
    done ;;
  ranks)
    MPIRUN=${MPIRUN:-mpirun}
    echo
    echo "$(nvidia-smi -L | grep -c '^GPU') GPU(s); rank r uses GPU r mod the GPU count. Per V-cycle: KSPSolve's copies / iterations (FGMRES applies one V-cycle per iteration)."
    echo
    echo "| problem | DoFs | ranks | its | solve s | s per V-cycle | VecScatter share of KSPSolve | host->device copies, MB per V-cycle | device->host copies, MB per V-cycle |"
    echo "|---|---|---|---|---|---|---|---|---|"
    lv() { # log its -> "scatter share | h2d | d2h" from -log_view
      awk -v its="$2" '
        $1 == "KSPSolve" {t = $4; h2d = $(NF-4); h2dmb = $(NF-3); d2h = $(NF-2); d2hmb = $(NF-1)}
        $1 == "VecScatterBegin" || $1 == "VecScatterEnd" {sc += $4}
        END {if (its < 1) its = 1; printf "%.0f%% | %.1f, %.2f | %.1f, %.2f", (t > 0 ? 100 * sc / t : 0), h2d / its, h2dmb / its, d2h / its, d2hmb / its}' "$1"
    }
    for cfg in "laplace_k3_double ex1 3 4 4,4,4" "laplace_k3_mixed ex1 3 4 4,4,4" "laplace_k3_double ex1 3 5 4,4,4" "laplace_k7_double ex1 7 4 2,2,2" "laplace_k7_mixed ex1 7 4 2,2,2" "c0ip_k3_double ex2 3 4 2,2,2"; do
      set -- $cfg
      name=$1 prog=./tutorials/$2 k=$3 r=$4 c=$5
      o="-dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells $c -dm_brick_degree $k -dm_brick_refine $r -log_view -log_view_gpu_time"
      if [ $2 = ex1 ]; then o="$o -rhs one -fmg 0 -ksp_rtol 1e-9"; else o="$o -ksp_rtol 1e-6"; fi
      case $name in *mixed) o="$o -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single" ;; esac
      for n in 1 2; do
        f="$LOG/ranks_${name}_r${r}_n$n.log"
        $MPIRUN -n $n $prog $o >"$f" 2>&1
        its=$(awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)} END{print it}' "$f")
        read -r dofs t <<<"$(awk '/^  DoFs:/{n = $2} /^solve time/{t = $3} END{print n, t}' "$f")"
        grep -q "^Linear solve converged" "$f" || its="$its (not converged)"
        echo "| $name | $dofs | $n | $its | $t | $(awk -v t="$t" -v i="${its%% *}" 'BEGIN{printf "%.4f", (i > 0 ? t / i : 0)}') | $(lv "$f" "${its%% *}") |"
      done
    done
    if [ -n "${EX45:-}" ] && [ -x "$EX45" ]; then
      for n in 1 2; do
        f="$LOG/ranks_ex45_257_n$n.log"
        $MPIRUN -n $n "$EX45" -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -da_refine 5 -ksp_type cg -ksp_rtol 1e-9 -pc_type mg -pc_mg_levels 6 -pc_mg_galerkin both \
          -mg_levels_ksp_type chebyshev -mg_levels_pc_type jacobi -dm_mat_type aijcusparse -dm_vec_type cuda -ksp_converged_reason -log_view -log_view_gpu_time >"$f" 2>&1
        its=$(awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)} END{print it}' "$f")
        t=$(awk '$1 == "KSPSolve" {print $4}' "$f")
        grep -q "converged due to CONVERGED" "$f" || its="$its (not converged)"
        echo "| ex45 257^3 (KSPSolve) | 16974593 | $n | $its | $t | $(awk -v t="$t" -v i="${its%% *}" 'BEGIN{printf "%.4f", (i > 0 ? t / i : 0)}') | $(lv "$f" "${its%% *}") |"
      done
    fi ;;
  esac
done
