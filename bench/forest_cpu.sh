#!/usr/bin/env bash
# Forest domains on the CPU (one core): the forest path (-dm_brick_partition p4est) against the box path on the same full
# box, and a Fichera corner against the box of about the same DoFs, with tutorials/ex1 and tutorials/ex5. Each case runs
# REPEAT times (default 3); the table gives the fastest solve, the operator's time per application (MatMult in -log_view,
# the finest level's share dominating) and the V-cycles.
# Usage: bench/forest_cpu.sh > bench/results/forest-cpu-DATE.md
set -uo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-3}
echo "# Forest domains on one CPU core: the p4est path against the box path"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), PETSc $(pkg-config --modversion PETSc 2>/dev/null), p4est $(dpkg-query -W -f '${Version}' libp4est-dev 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`bench/forest_cpu.sh\` (REPEAT=$REPEAT; the fastest of the repeats); one MPI rank, one thread"
echo "- solver: FGMRES, one V-cycle of PCMG with one multiplicative vertex-patch sweep (fdm) before and after, exact coarse solve"
echo "  on the -dm_brick_cells grid (-dm_brick_coarsen_below 0 on the box: the forest's hierarchy starts at its trees), f = 1,"
echo "  rtol 1e-9, no full-multigrid start (-fmg 0 for ex1; ex5 has none)"
echo
run() { # label command...
  local label=$1 best="" its="" mm="" dofs t; shift
  for _ in $(seq "$REPEAT"); do
    out=$("$@" -log_view 2>&1)
    t=$(echo "$out" | awk '/^solve time/{print $3}')
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$t
      its=$(echo "$out" | awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") print $(i + 1)}' | head -1)
      mm=$(echo "$out" | awk '$1 == "MatMult" { printf "%.3g", 1000 * $4 / $2; exit }')
      dofs=$( (echo "$out" | grep -o 'DoFs: [0-9]*' | awk '{print $2}'; echo "$out" | grep -o '[0-9]* DoFs' | awk '{print $1}') | head -1)
    fi
  done
  echo "| $label | $dofs | $its | $best | $(awk -v d="$dofs" -v t="$best" 'BEGIN { if (t > 0) printf "%.2f", d / t / 1e6 }') | $mm |"
}
echo "## Full box: the same problem on both paths"
echo
echo "| case | DoFs | V-cycles | solve (s) | MDoF/s | MatMult (ms, mean over levels) |"
echo "|---|---|---|---|---|---|"
for k in 3; do
  common="-dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree $k -dm_brick_refine 4 -dm_brick_coarsen_below 0 -fmg 0 -rhs one"
  run "3D Q$k 32^3 cells, box path (grid)" ./tutorials/ex1 $common
  run "3D Q$k 32^3 cells, forest path (p4est)" ./tutorials/ex1 $common -dm_brick_partition p4est
done
common="-dm_brick_dim 2 -dm_brick_cells 2,2 -dm_brick_degree 4 -dm_brick_refine 7 -dm_brick_coarsen_below 0 -fmg 0 -rhs one"
run "2D Q4 256^2 cells, box path (grid)" ./tutorials/ex1 $common
run "2D Q4 256^2 cells, forest path (p4est)" ./tutorials/ex1 $common -dm_brick_partition p4est
echo
echo "## Fichera corner against the full box (3D Q3)"
echo
echo "| case | DoFs | V-cycles | solve (s) | MDoF/s | MatMult (ms, mean over levels) |"
echo "|---|---|---|---|---|---|"
run "Fichera corner 2x2x2 - 1, refine 4" ./tutorials/ex5 -domain fichera -dm_brick_degree 3 -dm_brick_refine 4
run "full box 2x2x2, refine 4 (forest path)" ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 4 -fmg 0 -rhs one -dm_brick_partition p4est
run "full box 2x2x2, refine 4 (box path, its own hierarchy)" ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 4 -fmg 0 -rhs one
peer="-ksp_type cg -ksp_norm_type unpreconditioned -mg_levels_ksp_type chebyshev -mg_levels_pc_type jacobi -mg_levels_ksp_max_it 2"
run "peer: Fichera corner, refine 4, Chebyshev/Jacobi levels (CG, 2 steps a level)" ./tutorials/ex5 -domain fichera -dm_brick_degree 3 -dm_brick_refine 4 $peer
run "peer: full box 2x2x2, refine 4 (box path), Chebyshev/Jacobi levels" ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 4 -fmg 0 -rhs one $peer
