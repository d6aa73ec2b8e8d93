#!/usr/bin/env bash
# NATIVE=yes (-march=native) against the portable default build on the same 3D problem (issue "CPU speed", Deliver 1):
# builds a NATIVE=yes copy of this checkout in a temporary folder, then runs tutorials/ex1 (vertex-patch V-cycle, 3D Q_k,
# the default 2^3 coarse cells refined R times, rtol 1e-9) with each build RUNS times on one rank and prints a table of
# iterations, L2 error and solve times (min over the runs). Usage: [RUNS=3] [R=3] bash bench/native_compare.sh [K...] > table.md
set -u
cd "$(dirname "$0")/.."
. bench/ex1_solve_row.sh
RUNS=${RUNS:-3}
R=${R:-3}
KS=${*:-"2 3 4"}
tmp=$(mktemp -d)
cp -r include src tutorials tests cuda makefile petsc-plugin.conf "$tmp"/
make -s -C "$tmp" -j2 NATIVE=yes lib/libpetscvpatch.so tutorials/ex1 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
[ -x tutorials/ex1 ] || make -s -j2 >/dev/null
echo "machine: $(lscpu | awk -F: '/Model name/{gsub(/^ +/, "", $2); print $2; exit}'), $(nproc) cores; date: $(date -u +%F); commit: $(git rev-parse --short HEAD 2>/dev/null)"
echo
echo "| k | build | iterations | L2 error | solve s (min of $RUNS) |"
echo "| --- | --- | --- | --- | --- |"
for k in $KS; do
  ex1_solve_row ./tutorials/ex1 "$k" "$R" "$RUNS" portable "$tmp/run.log"
  ex1_solve_row "$tmp/tutorials/ex1" "$k" "$R" "$RUNS" native "$tmp/run.log"
done
rm -rf "$tmp"
