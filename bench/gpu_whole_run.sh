#!/usr/bin/env bash
# The whole of an ex1 run against its solve (issue "One GPU closer to its limit", item 2): for each "k cells refine"
# triple, tutorials/ex1 on the GPU (-dm_vec_type cuda, 3D, default manufactured sine solution, relative residual 1e-9,
# full multigrid start, FGMRES + V(1,1) vertex patch), with -log_view and the process's wall clock. Prints one markdown
# row per run (DoFs, iterations, L2 error, solve, KSPSetUp, PETSc's total time, wall clock, wall / solve, peak host
# memory) and then, per run, -log_view's summary of stages (ex1 pushes one stage per phase) and every event above
# 1 % of the run. EXTRA: more options for every run (e.g. "-separable 0" for the point-function load vector and L2
# error). LOG_DIR: where the logs go.
# Usage: bench/gpu_whole_run.sh "3 4,4,4 6" "7 1,1,1 7" ...
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${LOG_DIR:-/tmp/gpu-whole}
mkdir -p "$LOG"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "- date: $(date -u +%F), device: ${gpu:-none}, commit: $(cat COMMIT 2>/dev/null | head -1 || git rev-parse --short HEAD 2>/dev/null), command: \`bench/gpu_whole_run.sh $*\`${EXTRA:+, EXTRA=\"$EXTRA\"}"
echo
echo "| k | coarse cells, refinements | DoFs | its | L2 error | solve s | KSPSetUp s | PETSc total s | wall s | wall / solve | peak host memory GB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for run in "$@"; do
  set -- $run
  k=$1 cells=$2 refine=$3
  name="k${k}_c${cells//,/x}_r${refine}"
  /usr/bin/time -f "wall %e maxrss %M" ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_degree "$k" -dm_brick_cells "$cells" -dm_brick_refine "$refine" \
    ${EXTRA:-} -log_view ":$LOG/$name.logview" >"$LOG/$name.log" 2>&1
  awk -v k="$k" -v c="$cells" -v r="$refine" '
    /DoFs:/ && !dofs { dofs = $2 }
    /iterations/ { for (i = 1; i < NF; i++) if ($i == "iterations") its = $(i + 1) }
    /^L2 error/ { err = $3 }
    /^solve time/ { solve = $3; setup = $9 }
    /^wall / { wall = $2; rss = $4 }
    END { printf "| %s | %s, %s | %s | %s | %s | %s | %s | TOTAL | %s | %.1f | %.1f |\n", k, c, r, dofs, its, err, solve, setup, wall, (solve > 0 ? wall / solve : 0), rss / 1048576 }' "$LOG/$name.log" |
    sed "s/TOTAL/$(awk '/^Time \(sec\):/ { print $3; exit }' "$LOG/$name.logview" 2>/dev/null)/"
done
for f in "$LOG"/*.logview; do
  [ -f "$f" ] || continue
  echo
  echo "$(basename "$f" .logview): stages (time, % of total) and events above 1 % of the run (count, time, % of total)"
  echo
  echo '```'
  sed -n '/^Summary of Stages/,/^$/p' "$f" | awk 'NR > 2 && NF > 3 { split($0, a, ":"); n = ""; for (i = 2; i < length(a); i++) n = n (i > 2 ? ":" : "") a[i]; split(a[length(a)], v, " "); printf "stage %-28s %10s s %6s\n", n, v[1], v[2] }'
  # events: name count ratio time ... the %T column is the 4th from the end of the global block; PETSc prints
  # "n/a" for GPU-timed events without -log_view_gpu_time, so the % column is what counts
  awk '/^--- Event Stage/ { stage = $0; sub(/^--- Event Stage [0-9]+: /, "", stage); sub(/ *$/, "", stage) }
       /^[A-Za-z][A-Za-z0-9]+ +[0-9]+ +[0-9.]+ / && NF >= 20 { t = $11 + 0; if (t >= 1) printf "  %-22s %-24s count %6s time %10s s  %3d %%\n", $1, "[" stage "]", $2, $4, t }' "$f"
  echo '```'
done
