#!/usr/bin/env bash
# The largest 3D CG Poisson problems one GPU holds (issue 47, item 3), and what the device memory check does with the
# ones it does not: for each "k cells refine" triple, tutorials/ex1 on the GPU (f = 1, Richardson with one V-cycle a step
# to 1e-9, no FMG: the fewest Krylov vectors), with -log_view, the device memory check's -info lines and the wall clock.
# One markdown row per run: DoFs, V-cycles, true residual, set-up and solve (the tutorial's clock), PETSc's total and the
# process's wall clock, the device memory the solve took (bytes per DoF, from the check's free figure and the free
# memory after the solve), the check's estimate (bytes per DoF), and how the run ended (solved, refused by the check,
# or the first error line). LABEL names the build (e.g. "32-bit PetscInt"), EX1 the binary (default ./tutorials/ex1);
# LOG_DIR keeps the logs.
# Usage: LABEL=... bench/gpu_largest.sh "3 5,6,6 6" "7 2,2,3 6" ...
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${LOG_DIR:-/tmp/gpu-largest}
mkdir -p "$LOG"
gpu=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)
echo "- date: $(date -u +%F), device: ${gpu:-none}, build: ${LABEL:-?}, command: \`LABEL=\"${LABEL:-}\" bench/gpu_largest.sh $*\`"
echo
echo "| build | k | cells, refinements | DoFs | V-cycles | true residual | set-up s | solve s | PETSc total s | wall s | device bytes / DoF taken | estimate bytes / DoF | ended |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for run in "$@"; do
  set -- $run
  k=$1 cells=$2 refine=$3
  name="$(echo "${LABEL:-run}" | tr -c 'A-Za-z0-9\n' '_')_k${k}_c${cells//,/x}_r${refine}"
  /usr/bin/time -f "wall %e" ${EX1:-./tutorials/ex1} ${VEC_TYPE:--dm_vec_type cuda} -dm_brick_dim 3 -dm_brick_degree "$k" -dm_brick_cells "$cells" -dm_brick_refine "$refine" \
    -rhs one -fmg 0 -ksp_type richardson -ksp_rtol 1e-9 -log_view ":$LOG/$name.logview" -info ":dm" ${EXTRA:-} >"$LOG/$name.log" 2>&1
  grep -v "^\[0\] <dm>" "$LOG/$name.log" >"$LOG/$name.short.log"
  grep "^\[0\] <dm>.*device" "$LOG/$name.log" >>"$LOG/$name.short.log"
  awk -v lab="${LABEL:-?}" -v k="$k" -v c="$cells" -v r="$refine" -v lv="$LOG/$name.logview" '
    /DoFs:/ && !dofs { dofs = $2 }
    /^Linear solve/ { for (i = 1; i < NF; i++) if ($i == "iterations") its = $(i + 1); conv = ($3 == "converged") }
    /true residual/ && !/-dm_brick_verify_convergence/ { tr = $NF }
    /^solve time/ { s = $3; su = $(NF - 1) }
    /the solve needs about/ && !need { for (i = 1; i < NF; i++) if ($i == "about") need = $(i + 1) }
    /taken since the memory check/ && !taken { for (i = 1; i < NF; i++) if ($i == "solve:") taken = $(i + 1) }
    /Out of GPU memory/ { refused = 1 }
    /^\[0\]PETSC ERROR: / && nerr < 2 && !/^\[0\]PETSC ERROR: -+/ { line = $0; sub(/^\[0\]PETSC ERROR: /, "", line); err = err (nerr ? ": " : "") line; nerr++ }
    /^wall / { wall = $2 }
    END {
      while ((getline line < lv) > 0) if (line ~ /^Time \(sec\):/) { split(line, f); total = f[3] }
      ended = refused ? "refused by the memory check" : (err != "" ? err : (conv ? "solved" : "not converged"))
      printf "| %s | %s | %s, %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", lab, k, c, r, dofs, its, tr, su, s, total, wall,
        (taken != "" && dofs > 0 ? sprintf("%.1f", taken / dofs) : ""), (need != "" && dofs > 0 ? sprintf("%.1f", need / dofs) : ""), ended }' "$LOG/$name.log"
done
