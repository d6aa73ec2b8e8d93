#!/usr/bin/env bash
# Multigrid iteration counts and L2 errors of tutorials/ex1 (CG + V-cycle, Chebyshev/Jacobi smoothing,
# LU on the coarse grid, relative residual 1e-9) for k = 1..4 over three refinements in 2D and 3D, and
# the same solves on 1 and 4 MPI ranks. Prints a markdown report; usage:
#   bench/ex1_iterations.sh > bench/results/ex1-iterations-$(date +%F).md
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EX1=./tutorials/ex1
run() { $EX1 -smoother chebyshev "$@" | awk '/^  DoFs:/{n=$2} /iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i + 1)} /^L2 error/{e=$3} END{printf "%s %s %s", n, it, e}'; }

echo "# ex1 baseline (Chebyshev/Jacobi multigrid): iterations and L2 errors"
echo
echo "- date: $(date -u +%F), machine: $(uname -m), $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1))"
echo "- PETSc: $(pkg-config --modversion PETSc 2>/dev/null || echo "PETSC_DIR=${PETSC_DIR:-?}"), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- command: \`$0\`; each cell: \`$EX1 -smoother chebyshev -dm_brick_dim D -dm_brick_cells 2,2[,2] -dm_brick_degree k -dm_brick_refine r\`"
echo "  (defaults: -ksp_type cg -ksp_norm_type unpreconditioned -ksp_rtol 1e-9 -pc_type mg, r+1 levels, -mg_levels_ksp_type chebyshev -mg_levels_pc_type jacobi, LU coarse)"
echo
for dim in 2 3; do
  cells=2,2; [ $dim = 3 ] && cells=2,2,2
  echo "## ${dim}D, coarse grid $cells cells"
  echo
  echo "| k | refine | DoFs | iterations | L2 error | order |"
  echo "|---|---|---|---|---|---|"
  for k in 1 2 3 4; do
    prev=""
    for r in 1 2 3; do
      read -r n it e <<<"$(run -dm_brick_dim $dim -dm_brick_cells $cells -dm_brick_degree $k -dm_brick_refine $r)"
      order=$( [ -n "$prev" ] && awk -v a="$prev" -v b="$e" 'BEGIN{printf "%.2f", log(a/b)/log(2)}' || echo "")
      echo "| $k | $r | $n | $it | $e | $order |"
      prev=$e
    done
  done
  echo
done

echo "## 1 vs 4 MPI ranks (-ksp_rtol 1e-12)"
echo
echo "| case | DoFs | 1 rank: its, L2 error | 4 ranks: its, L2 error | difference of the printed L2 errors |"
echo "|---|---|---|---|---|"
for c in "2 4,4 3 3" "3 4,4,4 2 1" "2 4,4 4 2"; do
  read -r dim cells k r <<<"$c"
  opts="-dm_brick_dim $dim -dm_brick_cells $cells -dm_brick_degree $k -dm_brick_refine $r -ksp_rtol 1e-12"
  read -r n1 i1 e1 <<<"$(run $opts)"
  read -r n4 i4 e4 <<<"$(EX1="mpiexec -n 4 --oversubscribe $EX1"; $EX1 -smoother chebyshev $opts | awk '/^  DoFs:/{n=$2} /iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i + 1)} /^L2 error/{e=$3} END{printf "%s %s %s", n, it, e}')"
  echo "| \`$opts\` | $n1 | $i1, $e1 | $i4, $e4 | $(awk -v a="$e1" -v b="$e4" 'BEGIN{d = a - b; if (d < 0) d = -d; printf "%.1e", d}') |"
done
