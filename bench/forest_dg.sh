#!/usr/bin/env bash
# sipg (DG) on forests: the forest path (-dm_brick_partition p4est) against the box path on the same full 3D box (ex3),
# and the Fichera corner (ex5 -domain fichera) against the box of about the same DoFs, Q3, f = 1, rtol 1e-9 for all.
# On the host (one core, one rank) by default; VEC=cuda runs the same on one GPU (device vectors) at the larger REFINE.
# Each case runs REPEAT times (default 3): the fastest solve, its V-cycles, and ns per DoF and V-cycle.
# Usage: bench/forest_dg.sh > bench/results/forest-dg-cpu-DATE.md ; VEC=cuda REFINE="4 5" bench/forest_dg.sh (GPU)
set -uo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-3}
VEC=${VEC:-standard}
REFINE=${REFINE:-3}
echo "# sipg (DG) on forest domains: the p4est path against the box path ($VEC vectors)"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1))$(command -v nvidia-smi >/dev/null && echo ", $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`VEC=$VEC REFINE=\"$REFINE\" bench/forest_dg.sh\` (REPEAT=$REPEAT, the fastest); one MPI rank"
echo "- solver: FGMRES, one V-cycle of PCMG, one multiplicative DG vertex-patch sweep (full local space, fdm; mixed forest"
echo "  patches by their dense factor) before and after, exact coarse solve on the 2 x 2 x 2 coarse cells, rtol 1e-9, f = 1"
echo
echo "| case | DoFs | V-cycles | solve (s) | ns per DoF and V-cycle | set-up (s) |"
echo "|---|---|---|---|---|---|"
run() { # label command...
  local label=$1 best="" its="" dofs="" setup="" t; shift
  for _ in $(seq "$REPEAT"); do
    out=$("$@" -dm_vec_type "$VEC" 2>&1)
    t=$(echo "$out" | awk '/^solve time/{print $3}')
    if [ -n "$t" ] && { [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then
      best=$t
      setup=$(echo "$out" | awk '/^solve time/{print $(NF - 1)}')
      its=$(echo "$out" | awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") print $(i + 1)}' | head -1)
      dofs=$( (echo "$out" | grep -o 'DoFs: [0-9]*' | awk '{print $2}'; echo "$out" | grep -o '[0-9]* DoFs' | awk '{print $1}') | head -1)
    fi
  done
  echo "| $label | $dofs | $its | $best | $(awk -v d="$dofs" -v t="$best" -v n="$its" 'BEGIN { if (d > 0 && n > 0) printf "%.2f", 1e9 * t / d / n }') | $setup |"
}
for r in $REFINE; do
  box="-dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine $r -dm_brick_coarsen_below 0 -rhs one -ksp_rtol 1e-9"
  run "full box, box path (ex3), refine $r" ./tutorials/ex3 $box
  run "full box, forest path (ex3 -dm_brick_partition p4est), refine $r" ./tutorials/ex3 $box -dm_brick_partition p4est
  run "Fichera corner (ex5 -domain fichera -dm_brick_operator sipg), refine $r" ./tutorials/ex5 -domain fichera -dm_brick_operator sipg -dm_brick_degree 3 -dm_brick_refine $r
done
