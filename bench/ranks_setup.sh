#!/usr/bin/env bash
# Setup time, solve time and memory of tutorials/ex1 (vertex-patch multigrid, 3D Q3) on 1, 2, 4 and 8 MPI ranks,
# with the coarse levels agglomerated where they have fewer cells than ranks. Each row is two runs: one plain for the
# times and iterations, one with -malloc_debug -memory_view for PetscMalloc's peak and the process peak (RSS) per
# rank (max and min over the ranks: how evenly the data is spread, and what agglomeration costs rank 0). Prints a
# markdown report; usage:
#   bench/ranks_setup.sh > bench/results/ranks-setup-cpu-$(date +%F).md
# Times on a machine with fewer cores than ranks are oversubscribed: read the memory columns there, not the times.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EX1=./tutorials/ex1
MPIEXEC=${MPIEXEC:-mpiexec}
RANKS=${RANKS:-1 2 4 8}

# its setup solve
times() { $MPIEXEC -n "$1" --oversubscribe $EX1 "${@:2}" | awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i + 1)} /^solve time/{s=$3; u=$(NF-1)} END{printf "%s %s %s", it, u, s}'; }
# malloc max, malloc total, rss max, rss min (MB)
memory() {
  $MPIEXEC -n "$1" --oversubscribe $EX1 "${@:2}" -malloc_debug -memory_view | awk '
    /^Maximum \(over computational time\) process memory/{rmax=$(NF-2); rmin=$NF}
    /^Maximum \(over computational time\) space PetscMalloc/{mtot=$(NF-4); mmax=$(NF-2)}
    END{printf "%.1f %.1f %.1f %.1f", mmax/1e6, mtot/1e6, rmax/1e6, rmin/1e6}'
}

echo "# Setup, solve and memory per MPI rank (tutorials/ex1, CPU)"
echo
echo "- date: $(date -u +%F), machine: $(uname -m), $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1))"
echo "- PETSc: $(pkg-config --modversion PETSc 2>/dev/null || echo "PETSC_DIR=${PETSC_DIR:-?}"), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- command: \`$0\`; each row: \`$MPIEXEC -n P $EX1 -dm_brick_dim 3 -dm_brick_cells C -dm_brick_refine R\` (Q3, FGMRES + V-cycle,"
echo "  one multiplicative vertex-patch sweep, LU coarse, rtol 1e-9), then the same with \`-malloc_debug -memory_view\`"
echo "- malloc: PetscMalloc peak of the largest rank / summed over ranks; RSS: the process peak, largest and smallest rank"
echo "- $(nproc) cores: runs with more ranks than cores are oversubscribed (times not comparable)"
echo
for case in "4,4,4 2" "4,4,4 3" "2,2,2 3"; do
  read -r cells refine <<<"$case"
  echo "## coarse grid $cells, refined $refine times"
  echo
  echo "| ranks | iterations | setup s | solve s | malloc MB max rank | malloc MB total | RSS MB max rank | RSS MB min rank |"
  echo "|---|---|---|---|---|---|---|---|"
  for p in $RANKS; do
    read -r it setup solve <<<"$(times "$p" -dm_brick_dim 3 -dm_brick_cells "$cells" -dm_brick_refine "$refine")"
    read -r mmax mtot rmax rmin <<<"$(memory "$p" -dm_brick_dim 3 -dm_brick_cells "$cells" -dm_brick_refine "$refine")"
    echo "| $p | $it | $setup | $solve | $mmax | $mtot | $rmax | $rmin |"
  done
  echo
done
