#!/usr/bin/env bash
# Seed 003 (Cui, Grosse-Bley, Kanschat, Strzodka 2024), Tables 1-3, on this CPU with tutorials/ex1.
# Problem: -Delta u = 1 on the unit square/cube, CG Q_k, coarse mesh one cell refined L times.
# Solver: the multigrid V-cycle as an iteration (KSP richardson), one pre- and one post-smoothing step of the
# multiplicative vertex-patch smoother (FDM local solver, local residuals, 2^d colors), the coarsest level
# (2^d cells = one vertex patch) solved by one patch sweep, relative residual ||b - A x|| <= 1e-9 ||b||.
# Counting: whole V-cycles, each followed by ||b - A x|| (ex1 turns off PCMG's own Richardson loop, which stops
# inside a cycle after the pre-smoothing). "FMG" columns are the paper's convention (Algorithm 2.2): one PETSc
# full-multigrid cycle (-fmg), then the while loop, at least one V-cycle. "V" columns start from zero instead.
# Part "extra": the average contraction per V-cycle, (||r_n||/||b||)^(1/n), and the symmetric V-cycle (reverse
# post-smoothing sweep). Usage: bench/seed003_tables.sh [2d] [3d] [gs] [extra] > bench/results/seed003-tables-....md
set -uo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
parts=${*:-2d 3d gs extra}
COMMON="-rhs one -ksp_type richardson -ksp_norm_type unpreconditioned -ksp_rtol 1e-9 -ksp_max_it 100 -mg_coarse_ksp_type preonly -mg_coarse_pc_type vertexpatch"
its() { ./tutorials/ex1 "$@" 2>&1 | awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") print $(i + 1); f=1} END{if(!f) print "err"}'; }
dofs() { awk -v k="$1" -v L="$2" -v d="$3" 'BEGIN{n = k*2^L - 1; printf "%.0f", n^d}'; }

echo "# Seed 003 Tables 1-3 on the CPU"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), PETSc $(pkg-config --modversion PETSc 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`bench/seed003_tables.sh $parts\`; each cell is"
echo "  \`./tutorials/ex1 -dm_brick_dim D -dm_brick_cells 1,1[,1] -dm_brick_degree k -dm_brick_refine L -pc_mg_levels L $COMMON -fmg 0|1\`"
echo

table() { # dim maxL-per-k...
  local dim=$1; shift
  local maxl=("$@") cells=1,1; [ "$dim" = 3 ] && cells=1,1,1
  local nk=${#maxl[@]} top=0
  for m in "${maxl[@]}"; do [ "$m" -gt "$top" ] && top=$m; done
  printf "| L |"; for ((k = 1; k <= nk; k++)); do printf " Q%d V | Q%d FMG |" $k $k; done; echo
  printf "|---|"; for ((k = 1; k <= nk; k++)); do printf -- "---|---|"; done; echo
  for ((L = 3; L <= top; L++)); do
    printf "| %d |" $L
    for ((k = 1; k <= nk; k++)); do
      if [ "$L" -le "${maxl[$((k - 1))]}" ]; then
        o="-dm_brick_dim $dim -dm_brick_cells $cells -dm_brick_degree $k -dm_brick_refine $L -pc_mg_levels $L $COMMON"
        printf " %s | %s |" "$(its $o -fmg 0)" "$(its $o -fmg 1)"
      else printf " - | - |"; fi
    done
    echo
  done
  echo
  printf "DoFs of the largest level per degree:"; for ((k = 1; k <= nk; k++)); do printf " Q%d %s," $k "$(dofs $k ${maxl[$((k - 1))]} $dim)"; done; echo; echo
}

if [[ " $parts " == *" 2d "* ]]; then
  echo "## Table 1: 2D (largest levels about 4M DoFs)"
  echo
  table 2 11 10 9 9 8 8 8 8
fi
if [[ " $parts " == *" 3d "* ]]; then
  echo "## Table 2: 3D (largest levels up to about 2M DoFs)"
  echo
  table 3 7 6 5 5 4
fi
if [[ " $parts " == *" extra "* ]]; then
  echo "## Contraction per V-cycle and the symmetric V-cycle (2D, L = 6, from zero)"
  echo
  echo "Contraction: (||b - A x_n|| / ||b||)^(1/n) of the V-cycle iteration from zero. Symmetric: post-smoothing sweeps the colors"
  echo "and patches in reverse (\`-pc_mg_distinct_smoothup -mg_levels_up_ksp_type richardson -mg_levels_up_ksp_max_it 1 -mg_levels_up_pc_type vertexpatch -mg_levels_up_pc_vertexpatch_reverse\`)."
  echo
  echo "| | Q1 | Q2 | Q3 | Q4 | Q5 | Q6 | Q7 | Q8 |"
  echo "|---|---|---|---|---|---|---|---|---|"
  fw="| V-cycles (forward post-smoothing) |"; rate="| contraction per V-cycle |"; sym="| V-cycles, symmetric V-cycle |"
  for k in 1 2 3 4 5 6 7 8; do
    o="-fmg 0 -dm_brick_dim 2 -dm_brick_cells 1,1 -dm_brick_degree $k -dm_brick_refine 6 -pc_mg_levels 6 $COMMON"
    out=$(./tutorials/ex1 $o 2>&1)
    n=$(echo "$out" | awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations") print $(i + 1)}')
    t=$(echo "$out" | awk '/^true residual/{print $NF}')
    fw="$fw $n |"; rate="$rate $(awk -v t="$t" -v n="$n" 'BEGIN{printf "%.1e", t^(1/n)}') |"
    sym="$sym $(its $o -pc_mg_distinct_smoothup -mg_levels_up_ksp_type richardson -mg_levels_up_ksp_max_it 1 -mg_levels_up_pc_type vertexpatch -mg_levels_up_pc_vertexpatch_reverse) |"
  done
  echo "$fw"; echo "$rate"; echo "$sym"; echo
fi
if [[ " $parts " == *" gs "* ]]; then
  echo "## Table 3: vertex patch vs point Gauss-Seidel (3D)"
  echo
  echo "Point Gauss-Seidel: PETSc's SOR smoother (\`-mg_levels_pc_type sor -mg_levels_pc_sor_local_forward\`, omega 1, one forward"
  echo "sweep before and after) on assembled level matrices (\`-dm_mat_type aij\`, coarse level LU); same V-cycle iteration from zero."
  echo "Level L = 3 for k <= 4 and L = 2 for k >= 5 (assembled Q5-Q8 matrices on finer 3D meshes do not fit this machine's memory)."
  echo
  echo "| | Q1 | Q2 | Q3 | Q4 | Q5 | Q6 | Q7 | Q8 |"
  echo "|---|---|---|---|---|---|---|---|---|"
  gs="| point GS |"; vp="| vertex patch |"
  for k in 1 2 3 4 5 6 7 8; do
    L=3; [ $k -ge 5 ] && L=2
    base="-fmg 0 -dm_brick_dim 3 -dm_brick_cells 1,1,1 -dm_brick_degree $k -dm_brick_refine $L -pc_mg_levels $L -rhs one -ksp_type richardson -ksp_norm_type unpreconditioned -ksp_rtol 1e-9 -ksp_max_it 200"
    gs="$gs $(its $base -dm_mat_type aij -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type sor -mg_levels_pc_sor_local_forward -mg_coarse_pc_type lu) |"
    vp="$vp $(its $base -mg_coarse_ksp_type preonly -mg_coarse_pc_type vertexpatch) |"
  done
  echo "$gs"; echo "$vp"; echo
fi
