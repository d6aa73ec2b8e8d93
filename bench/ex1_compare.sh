#!/usr/bin/env bash
# tutorials/ex1 with its default vertex-patch multigrid against peers on the same problem, in one run:
# PCMG with Chebyshev/Jacobi smoothing on the same matrix-free operators (ex1 -smoother chebyshev), and
# algebraic multigrid on the assembled operator (PETSc's GAMG, and hypre's BoomerAMG where Debian's PETSc
# has it). Every row stops at ||b - A x|| <= 1e-9 ||b|| (vertex patch: FGMRES; the others: CG with ex1's default
# -ksp_norm_type unpreconditioned), and the brick checks the claim against the true residual. Reports the converged
# reason, iterations, the true residual of the returned solution, setup and solve time, and the L2 error.
# Usage: make && bench/ex1_compare.sh > bench/results/ex1-compare-....md
set -uo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
row() { # label options...
  local label=$1; shift
  ./tutorials/ex1 "$@" 2>&1 | awk -v l="$label" '/^  DoFs/{n=$2} /^Linear solve/{for (i = 1; i < NF; i++) { if ($i == "to" && r == "") r = $(i + 1); if ($i == "iterations") it = $(i + 1) }} /^true residual/{t=$NF} /^L2 error/{e=$3} /solve time/{s=$3; u=$(NF-1)} /ERROR/{err=1}
    END{ if (err || it == "") printf "| %s | failed | | | | | | |\n", l; else printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", l, n, r, it, t, u, s, e }'
}
echo "# ex1: vertex-patch multigrid vs peers, time to solution"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), one MPI rank, PETSc $(pkg-config --modversion PETSc 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`bench/ex1_compare.sh\`; problem: -Delta u = f, u = prod sin(pi x_i), unit box, coarse grid 2^d cells"
echo
for cfg in "2 2 8" "2 4 7" "3 2 5" "3 3 4"; do
  read -r dim k r <<<"$cfg"
  cells=2,2; [ "$dim" = 3 ] && cells=2,2,2
  P="-dm_brick_dim $dim -dm_brick_cells $cells -dm_brick_degree $k -dm_brick_refine $r"
  echo "## ${dim}D Q$k, refine $r"
  echo
  echo "| solver | DoFs | reason | iterations | true residual | setup [s] | solve [s] | L2 error |"
  echo "|---|---|---|---|---|---|---|---|"
  row "MG + vertex patch (ex1 default: FGMRES, FMG + V(1,1), FDM)" $P
  row "MG + Chebyshev/Jacobi (ex1 -smoother chebyshev: CG, V(2,2))" $P -smoother chebyshev
  row "GAMG on assembled AIJ (CG)" $P -smoother chebyshev -dm_mat_type aij -pc_type gamg
  row "hypre BoomerAMG on assembled AIJ (CG)" $P -smoother chebyshev -dm_mat_type aij -pc_type hypre
  echo
done
