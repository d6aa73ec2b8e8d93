#!/usr/bin/env bash
# VTK output speed: tests/test_vtk writes two fields (p, q) of a 3D Q_k brick to one .vtu, rank 0 gathering the pieces
# (the default) or every rank writing its own through MPI-IO (-dm_brick_vtk_mpiio), on 1..NP ranks; the time is the
# BrickVTKWrite event of -log_view (building the pieces, moving them, writing), the file's size from ls.
# Usage: bench/vtk_write.sh [REFINE (default 5)] [K (default 3)] [NP (default 2)] [DIR (default /tmp)] > bench/results/vtk-write-DATE.md
# CELLS (default 2,2,2): the coarse cells; RANKS (default 1..NP): the rank counts to run.
set -u
cd "$(dirname "$0")/.."
r=${1:-5}
k=${2:-3}
np=${3:-2}
dir=${4:-/tmp}
cells=${CELLS:-2,2,2}
ranks=${RANKS:-$(seq 1 "$np")}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
echo "# VTK output: one .vtu, rank 0 gathering against MPI-IO"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`CELLS=$cells RANKS=\"$(echo $ranks)\" bench/vtk_write.sh $r $k $np $dir\` (tests/test_vtk -dim 3 -k $k -refine $r -cells $cells; two fields)"
echo
echo "| ranks | writer | DoFs | file (MB) | BrickVTKWrite (s) | MB/s |"
echo "|---|---|---|---|---|---|"
for n in $ranks; do
  for w in gather mpiio; do
    f="$dir/vtk_bench.vtu"
    rm -f "$f"
    opt=""; [ $w = mpiio ] && opt="-dm_brick_vtk_mpiio"
    out=$(mpiexec -n "$n" --oversubscribe ./tests/test_vtk -dim 3 -k "$k" -refine "$r" -cells "$cells" -file "$f" $opt -log_view 2>&1)
    t=$(echo "$out" | awk '$1 == "BrickVTKWrite" { print $4 }')
    mb=$(du -m --apparent-size "$f" | cut -f1)
    dofs=$(echo "$cells" | awk -F, -v k="$k" -v r="$r" '{ n = 1; for (d = 1; d <= 3; d++) n *= k * $d * 2 ^ r - 1; printf "%d", n }')
    echo "| $n | $w | $dofs | $mb | $t | $(awk -v m="$mb" -v t="$t" 'BEGIN { if (t > 0) printf "%.0f", m / t }') |"
  done
done
rm -f "$dir/vtk_bench.vtu"
