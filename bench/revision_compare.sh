#!/usr/bin/env bash
# CPU speed of this checkout against another revision (issue 16): builds REV in a temporary git worktree, then runs
# tutorials/ex1 (vertex-patch V-cycle, 3D Q_k, rtol 1e-9, one rank, no full-multigrid start) with both builds in turn and
# prints, per k, the iterations, the L2 error and the solve time (the least of RUNS runs; ex1's own "solve time", setup
# excluded). Usage: [KS="2 3 4"] [RUNS=3] [R=3] bash bench/revision_compare.sh REV > table.md
set -eu
cd "$(dirname "$0")/.."
REV=${1:?usage: bench/revision_compare.sh REV}
KS=${KS:-"2 3 4"}
RUNS=${RUNS:-3}
R=${R:-3}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/old" "$REV"
make -s -C "$tmp/old" -j2 lib/libpetscvpatch.so tutorials/ex1 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
make -s -j2 lib/libpetscvpatch.so tutorials/ex1 >/dev/null
echo "machine: $(lscpu | awk -F: '/Model name/{gsub(/^ +/, "", $2); print $2; exit}'), $(nproc) cores; date: $(date -u +%F); this: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src include || echo ' + local changes'); against: $(git -C "$tmp/old" rev-parse --short HEAD)"
echo
echo "| k | build | iterations | L2 error | solve s (min of $RUNS) |"
echo "| --- | --- | --- | --- | --- |"
for k in $KS; do
  for build in "$REV" this; do
    exe=./tutorials/ex1; [ "$build" = this ] || exe="$tmp/old/tutorials/ex1"
    best=
    for r in $(seq "$RUNS"); do
      $exe -dm_brick_dim 3 -dm_brick_degree "$k" -dm_brick_refine "$R" -fmg 0 -ksp_rtol 1e-9 >"$tmp/run.log" 2>&1
      t=$(awk '/^solve time/{print $3}' "$tmp/run.log")
      best=$(awk -v a="$best" -v b="$t" 'BEGIN{print (a == "" || b < a) ? b : a}')
    done
    its=$(awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") print $(i + 1)}' "$tmp/run.log" | head -1)
    err=$(awk '/^L2 error/{print $3}' "$tmp/run.log")
    echo "| $k | $build | $its | $err | $best |"
  done
done
