#!/usr/bin/env bash
# Scaling of the vertex-patch multigrid over the GPUs of one host (issue "Four GPUs"); run on the device with the CUDA
# PETSc and a CUDA build (bench/results/). One MPI rank per GPU (PETSc puts rank r on GPU r mod the GPU count); the
# ghost exchange of the device vectors is GPU to GPU through CUDA IPC (-dm_brick_gpu_exchange auto; EXCHANGE=mpi for
# PETSc's PetscSF through the host). Device vectors take slabs by default where they cut at most twice the best grid
# (-dm_brick_slabs: the global vectors live inside the ghosted local arrays); EXTRA="-dm_brick_slabs 0" for the grid.
# Parts:
#   strong   one 3D Poisson problem (CG, tutorials/ex1, f = 1) of about 1e9 DoFs at k = 3 (2 x 3 x 3 cells refined 7
#            times, 1.016e9) and k = 7 (3 x 5 x 6, refined 5 times, 1.008e9) on 1..4 GPUs, double and mixed (float
#            smoothing, float levels). One GPU's vector stays under 2^30 entries: PETSc 3.22 logs a CUDA VecAXPY's flops
#            as 2 n in a 32-bit int, and -log_view then stops at PetscFinalize ("Minimum flop ... negative");
#            V-cycles from zero as a stationary iteration (Richardson: no Krylov vectors, so that 1e9 DoFs fit one GPU),
#            stopped at ||b - A x|| <= 1e-9 ||b||
#   weak     the same with a fixed mesh per GPU: 2 x 2 x 2 cells per GPU refined 7 times at k = 3 (451M DoFs per GPU),
#            1 x 2 x 2 cells per GPU refined 6 times at k = 7 (358M: four GPUs' 1.4e9 stay under the 2^31 of 32-bit
#            PetscInt), the cells stacked along z then y
#   dg       SIPG (tutorials/ex3, f = 1, FGMRES + V-cycle, 1e-9), Dirichlet and full local spaces, one problem on 1..4
#            GPUs (k = 3: one cell refined 7 times, 134M DoFs; k = 7: refined 6 times, 134M) and a weak series
#            (1 x 1 x P cells refined 7 times at k = 3)
#   largest  the largest CG Poisson problem on all GPUs of the list (LARGEST="k cells refine", default 3 2,4,4 7: 1.8e9
#            DoFs; the CUDA PETSc bundle has 32-bit PetscInt, so 2^31 DoFs at most)
#   t4       seed 002 Table 4 on 1..4 GPUs (bench/seed002_tables.sh t4)
# Per run: DoFs, V-cycles, true residual, solve time (the tutorial's clock on rank 0), KSPSolve (-log_view, maximum over
# ranks), setup time, KSPSolve per V-cycle, and the share of KSPSolve in the device exchange (BrickGPUExchange;
# VecScatter with EXCHANGE=mpi), from -log_view -log_view_gpu_time (maximum over ranks; the event waits for the
# device's earlier work before its messages, so the share is an upper bound). On several GPUs the tutorial's clock
# has run 0.4-1.5 s longer than KSPSolve (bench/results/gpu-four-h200-scaling-2026-11-26.md): both are printed.
# Usage: bench/gpu_scaling.sh [strong] [weak] [dg] [largest] [t4]; GPUS (default "1 2 3 4"), STRONG_DEGREES and
# WEAK_DEGREES (default "3 7"), STRONG_PRECISIONS and WEAK_PRECISIONS (default "double mixed"), DG_DEGREES (default
# "3 7"), DG_SPACES (default "dirichlet full"), DG_WEAK (empty: no DG weak series), DG_WEAK_SPACES (default "dirichlet"), LOG_DIR, MPIRUN, LOGVIEW (default "-log_view -log_view_gpu_time"; -log_view_gpu_time waits for every
# timed kernel, which also stops the sweep's interior patches from running during a ghost exchange: LOGVIEW=-log_view
# times the overlap, its exchange share then counts host time only), EXTRA (more options for every run, e.g.
# "-solves 3": ex1 then prints the times of two more solves from the same start, in their own -log_view stage, so the
# table's KSPSolve columns stay those of the first solve).
set -uo pipefail
cd "$(dirname "$0")/.."
parts=${*:-strong weak dg largest t4}
LOG=${LOG_DIR:-/tmp/gpu-scaling}
GPUS=${GPUS:-1 2 3 4}
MPIRUN=${MPIRUN:-mpirun}
EXCHANGE=${EXCHANGE:-auto}
LOGVIEW=${LOGVIEW:--log_view -log_view_gpu_time}
EXTRA=${EXTRA:-}
mkdir -p "$LOG"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
echo "- date: $(date -u +%F), device: $ngpu x ${gpu:-none}, commit: $(head -1 COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null), command: \`GPUS=\"$GPUS\" EXCHANGE=$EXCHANGE LOGVIEW=\"$LOGVIEW\"${EXTRA:+ EXTRA=\"$EXTRA\"} bench/gpu_scaling.sh $parts\`"
MIXED="-mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single"

# run log ranks program options...
run() {
  local log=$1 n=$2 prog=$3
  shift 3
  /usr/bin/time -f "wall %e" $MPIRUN -n "$n" "$prog" -dm_vec_type cuda -dm_brick_gpu_exchange "$EXCHANGE" $LOGVIEW "$@" $EXTRA >"$log" 2>&1
}
# row log label ranks -> | label | GPUs | DoFs | its | true residual | solve s | KSPSolve s | setup s | KSPSolve s per V-cycle | exchange % of KSPSolve | wall s |
row() {
  awk -v lab="$2" -v n="$3" '
    /DoFs:/ && !dofs { dofs = $2 }
    /^Linear solve/ { for (i = 1; i < NF; i++) if ($i == "iterations") its = $(i + 1); conv = ($3 == "converged") }
    /true residual/ { tr = $NF }
    /^solve time/ { s = $3; su = $(NF - 1) }
    /^later solves/ { for (i = 6; i <= NF; i++) later = later (later == "" ? "" : ", ") $i }
    /^--- Event Stage/ { solve = ($0 ~ /: solve$/) } # the first solve (ex1 -solves N: the others are "ex1: later solves")
    $1 == "KSPSolve" { if (solve) ksp = $4; else kspall = $4 }
    $1 == "BrickGPUExchange" || $1 == "VecScatterBegin" || $1 == "VecScatterEnd" { if (solve) ex += $4; else exall += $4 }
    /^wall / { wall = $2 }
    END { if (ksp == "") { ksp = kspall; ex = exall } # a program without a solve stage (ex3): its main stage
          if (ksp == "") ksp = s # no -log_view table (a run stopped in PetscFinalize): the clock of the tutorial
          printf "| %s | %s | %s | %s%s | %s | %s | %.4f | %s | %.4f | %.1f%% | %s |\n", lab, n, dofs, its, conv ? "" : " (not converged)", tr, s (later == "" ? "" : " (later " later ")"), ksp, su, (its > 0 ? ksp / its : 0), (ksp > 0 ? 100 * ex / ksp : 0), wall }' "$1"
}
header() {
  echo
  echo "| problem | GPUs | DoFs | V-cycles | true residual | solve s (later solves) | KSPSolve s | setup s | KSPSolve s per V-cycle | exchange share of KSPSolve | wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
}
ex1opts() { echo "-dm_brick_dim 3 -dm_brick_degree $1 -dm_brick_cells $2 -dm_brick_refine $3 -rhs one -fmg 0 -ksp_type richardson -ksp_rtol 1e-9"; }
# cells of the weak series: 2 x 2 x 2 per GPU (k = 7: 1 x 2 x 2)
weakcells() { case $1 in 1) echo 2,2,2 ;; 2) echo 2,2,4 ;; 3) echo 2,2,6 ;; 4) echo 2,4,4 ;; *) echo 2,2,$((2 * $1)) ;; esac; }
weakcells7() { case $1 in 1) echo 1,2,2 ;; 2) echo 2,2,2 ;; 3) echo 3,2,2 ;; 4) echo 2,2,4 ;; *) echo $1,2,2 ;; esac; }
# ex1series part k cells refine precisions: one row per precision and GPU count; cells "weak": weakcells of the count
ex1series() {
  local part=$1 k=$2 cells=$3 r=$4 prec n c f
  for prec in $5; do
    for n in $GPUS; do
      case $cells in weak) c=$(weakcells $n) ;; weak7) c=$(weakcells7 $n) ;; *) c=$cells ;; esac
      f="$LOG/${part}_k${k}_${prec}_n$n.log"
      run "$f" $n ./tutorials/ex1 $(ex1opts $k $c $r) $([ $prec = mixed ] && echo "$MIXED")
      row "$f" "k=$k $prec, cells $c refined $r" $n
    done
  done
}
dgweakcells() { case $1 in 1) echo 1,1,1 ;; 2) echo 1,1,2 ;; 3) echo 1,1,3 ;; 4) echo 1,2,2 ;; *) echo 1,1,$1 ;; esac; }

for p in $parts; do
  case $p in
  strong)
    echo
    echo "Strong scaling, 3D Poisson CG ($(ex1opts k C r) on P GPUs):"
    header
    for k in ${STRONG_DEGREES:-3 7}; do
      case $k in 3) ex1series strong 3 2,3,3 7 "${STRONG_PRECISIONS:-double mixed}" ;; 7) ex1series strong 7 3,5,6 5 "${STRONG_PRECISIONS:-double mixed}" ;; esac
    done ;;
  weak)
    echo
    echo "Weak scaling, 3D Poisson CG, 2 x 2 x 2 coarse cells per GPU (k = 7: 1 x 2 x 2):"
    header
    for k in ${WEAK_DEGREES:-3 7}; do
      case $k in 3) ex1series weak 3 weak 7 "${WEAK_PRECISIONS:-double mixed}" ;; 7) ex1series weak 7 weak7 6 "${WEAK_PRECISIONS:-double mixed}" ;; esac
    done ;;
  dg)
    echo
    echo "DG (SIPG), tutorials/ex3 -rhs one -ksp_rtol 1e-9 (FGMRES + V-cycle), strong (one problem) and weak (1 x 1 x 1 cell per GPU, k = 3):"
    header
    for cfg in ${DG_DEGREES:-3 7}; do
      case $cfg in 3) set -- 3 1,1,1 7 ;; 7) set -- 7 1,1,1 6 ;; *) continue ;; esac
      for space in ${DG_SPACES:-dirichlet full}; do
        for n in $GPUS; do
          f="$LOG/dg_k$1_${space}_n$n.log"
          run "$f" $n ./tutorials/ex3 -dm_brick_dim 3 -dm_brick_degree $1 -dm_brick_cells $2 -dm_brick_refine $3 -rhs one -ksp_rtol 1e-9 -local_space $space
          row "$f" "sipg k=$1 $space, cells $2 refined $3" $n
        done
      done
    done
    if [ -n "${DG_WEAK-yes}" ]; then for space in ${DG_WEAK_SPACES:-dirichlet}; do for n in $GPUS; do
      f="$LOG/dgweak_k3_${space}_n$n.log"
      run "$f" $n ./tutorials/ex3 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_cells $(dgweakcells $n) -dm_brick_refine 7 -rhs one -ksp_rtol 1e-9 -local_space $space
      row "$f" "sipg k=3 $space weak, cells $(dgweakcells $n) refined 7" $n
    done; done; fi ;;
  largest)
    set -- ${LARGEST:-3 2,4,4 7}
    n=$(echo $GPUS | awk '{print $NF}')
    echo
    echo "The largest CG Poisson problem run here, on $n GPUs (double; -log_view's setup and the whole run's wall clock):"
    header
    f="$LOG/largest_k$1_n$n.log"
    run "$f" $n ./tutorials/ex1 $(ex1opts $1 $2 $3)
    row "$f" "k=$1 double, cells $2 refined $3" $n ;;
  t4)
    echo
    echo "Seed 002 Table 4 on GPUs (\`T4RANKS=\"$GPUS\" EX3_OPTS=\"-dm_vec_type cuda\" bench/seed002_tables.sh t4\`):"
    T4RANKS="$GPUS" EX3_OPTS="-dm_vec_type cuda -dm_brick_gpu_exchange $EXCHANGE" MPIRUN="$MPIRUN" bash bench/seed002_tables.sh t4 ;;
  esac
done
