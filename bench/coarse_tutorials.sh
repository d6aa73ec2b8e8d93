#!/usr/bin/env bash
# Every tutorial (ex1 Poisson CG, ex2 C0IP biharmonic, ex3 SIPG DG) in 2D and 3D at k = 1..8 (ex2: 2..8) with its
# default cells and refinements, on one rank of the CPU: the coarse problem PCMG solves (the -ksp_view of its coarse
# level: unknowns, nonzeros, solver, from the brick's name for it), the iterations, the setup (KSPSetUp) and solve
# times the tutorial prints, and the true residual. Prints a markdown table.
#   bench/coarse_tutorials.sh [ex...]     (default: ex1 ex2 ex3); TIMEOUT (s, default 600) per run
set -u
cd "$(dirname "$0")/.."
exs=("$@")
[ ${#exs[@]} = 0 ] && exs=(ex1 ex2 ex3)
log=$(mktemp)
echo "| tutorial | dim | k | DoFs | levels | coarse cells | coarse unknowns | coarse nonzeros | coarse solve | iterations | true residual | setup s | solve s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for ex in "${exs[@]}"; do
  for dim in 2 3; do
    for k in 1 2 3 4 5 6 7 8; do
      [ "$ex" = ex2 ] && [ $k = 1 ] && continue
      timeout "${TIMEOUT:-600}" ./tutorials/$ex -dm_brick_dim $dim -dm_brick_degree $k -ksp_view >"$log" 2>&1
      rc=$?
      dofs=$(awk '/DoFs: /{print $2; exit}' "$log")
      levels=$(awk '/levels=/{s = $0; sub(/.*levels=/, "", s); sub(/ .*/, "", s); print s; exit}' "$log")
      ccells=$(awk '/hierarchy:/{s = $0; sub(/.*level -?[0-9]+, /, "", s); sub(/ cells.*/, "", s); print s; exit}' "$log")
      read -r cu cz csolve < <(awk '/KSP Object: brick coarse solve:/{ s = $0; sub(/.*coarse solve: /, "", s); split(s, a, " ");
        t = s; sub(/^[^:]*: /, "", t); sub(/ \(mg_coarse_\).*/, "", t); gsub(/ /, "_", t); print a[1], a[3], t; exit }' "$log")
      its=$(awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations" && $(i + 1) ~ /^[0-9]+$/) {print $(i + 1); exit}}' "$log")
      tr=$(awk '/true residual/{for (i = 1; i <= NF; i++) if ($i == "|b") { v = $(i + 4); if (v == "=") v = $(i + 5); gsub(/[()]/, "", v); print v; exit }}' "$log")
      times=$(awk '/^solve time/{ print $3, $(NF - 1) }' "$log")
      [ $rc = 124 ] && times="timeout -"
      echo "| $ex | $dim | $k | ${dofs:-?} | ${levels:-?} | ${ccells:-?} | ${cu:-?} | ${cz:-?} | ${csolve//_/ } | ${its:-?} | ${tr:-?} | ${times#* } | ${times%% *} |"
    done
  done
done
rm -f "$log"
