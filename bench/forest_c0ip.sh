#!/usr/bin/env bash
# c0ip (C0 interior penalty biharmonic) on forests: the forest path (-dm_brick_partition p4est) against the box path on the
# same full box (ex5 -domain box), the box path with the forest's global residual, and the L-shape / Fichera corner
# (ex5), Q_k, f = 1, rtol 1e-8, in 2D and 3D. On the host (one core, one rank) by default; VEC=cuda runs the same on one
# GPU (device vectors) at the refinements REFINE2 (2D, default 5) and REFINE3 (3D, default 3).
# Each case runs REPEAT times (default 3): the fastest solve, its V-cycles, ns per DoF and V-cycle, set-up, and the
# share of the solve in MatMult (-log_view). The smoother's residual is local (each patch's, the default) or global (once
# per color: 2^(d+1) colors; 3 x 2^d with a periodic direction of 4m + 2 cells); rows for both on the box and forest paths.
# Usage: bench/forest_c0ip.sh > bench/results/forest-c0ip-cpu-DATE.md ; VEC=cuda REFINE2=8 REFINE3=5 bench/forest_c0ip.sh (GPU)
set -uo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-3}
K=${K:-3}
VEC=${VEC:-standard}
REFINE2=${REFINE2:-5}
REFINE3=${REFINE3:-3}
echo "# c0ip on forest domains: the p4est path against the box path ($VEC vectors)"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1))$(command -v nvidia-smi >/dev/null && echo ", $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`VEC=$VEC K=$K REFINE2=$REFINE2 REFINE3=$REFINE3 bench/forest_c0ip.sh\` (REPEAT=$REPEAT, the fastest); one MPI rank"
echo "- solver (ex5): FGMRES, one V-cycle of PCMG, one multiplicative vertex-patch sweep (fdm; mixed forest patches by the dense"
echo "  factor of their pattern) before and after, exact coarse solve on the coarse cells (2 x 2 / 2 x 2 x 2), rtol 1e-8, f = 1"
echo
echo "| case | DoFs | V-cycles | solve (s) | ns per DoF and V-cycle | set-up (s) | MatMult share |"
echo "|---|---|---|---|---|---|---|"
run() { # label command...
  local label=$1 best="" its="" dofs="" setup="" share="" t; shift
  for _ in $(seq "$REPEAT"); do
    out=$("$@" -dm_vec_type "$VEC" -log_view 2>&1)
    t=$(echo "$out" | awk '/^solve time/{print $3}')
    if [ -n "$t" ] && { [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then
      best=$t
      setup=$(echo "$out" | awk '/^solve time/{print $(NF - 1)}')
      its=$(echo "$out" | awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations" && $(i + 1) ~ /^[0-9]+$/) print $(i + 1)}' | head -1)
      dofs=$(echo "$out" | awk '/^domain /{print $(NF - 1)}')
      share=$(echo "$out" | awk '/^MatMult /{m = $4} /^KSPSolve /{s = $4} END { if (s > 0) printf "%.0f %%", 100 * m / s }')
    fi
  done
  echo "| $label | $dofs | $its | $best | $(awk -v d="$dofs" -v t="$best" -v n="$its" 'BEGIN { if (d > 0 && n > 0) printf "%.0f", 1e9 * t / d / n }') | $setup | $share |"
}
for case in "2 $REFINE2" "3 $REFINE3"; do
  set -- $case
  dim=$1 r=$2 dom=$([ "$1" = 3 ] && echo fichera || echo lshape)
  common="-dm_brick_operator c0ip -dm_brick_degree $K -dm_brick_refine $r -ksp_rtol 1e-8"
  run "${dim}D full box, box path (local residual), refine $r" ./tutorials/ex5 -domain box -dm_brick_dim $dim $common
  run "${dim}D full box, box path, global residual, refine $r" ./tutorials/ex5 -domain box -dm_brick_dim $dim $common -mg_levels_pc_vertexpatch_residual global
  run "${dim}D full box, forest path (-dm_brick_partition p4est), refine $r" ./tutorials/ex5 -domain box -dm_brick_dim $dim $common -dm_brick_partition p4est
  run "${dim}D full box, forest path, global residual, refine $r" ./tutorials/ex5 -domain box -dm_brick_dim $dim $common -dm_brick_partition p4est -mg_levels_pc_vertexpatch_residual global
  run "${dim}D $dom (ex5 -domain $dom), refine $r" ./tutorials/ex5 -domain $dom $common
done
