#!/usr/bin/env bash
# CPU speed of this checkout against another revision (issue 16): builds REV in a temporary git worktree, then runs
# tutorials/ex1 (vertex-patch V-cycle, 3D Q_k, rtol 1e-9, one rank, no full-multigrid start) with both builds in turn and
# prints, per k, the iterations, the L2 error and the solve time (the least of RUNS runs; ex1's own "solve time", setup
# excluded). Usage: [KS="2 3 4"] [RUNS=3] [R=3] bash bench/revision_compare.sh REV > table.md
set -eu
cd "$(dirname "$0")/.."
. bench/ex1_solve_row.sh
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
  ex1_solve_row "$tmp/old/tutorials/ex1" "$k" "$R" "$RUNS" "$REV" "$tmp/run.log"
  ex1_solve_row ./tutorials/ex1 "$k" "$R" "$RUNS" this "$tmp/run.log"
done
