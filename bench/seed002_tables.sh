#!/usr/bin/env bash
# Seed 002 ([CK24], Cui and Kanschat 2024), Tables 1, 2 and 4, on this CPU with tutorials/ex3.
# Problem: -Delta u = 1 on the unit cube, SIPG DG Q_k (penalty k(k+1)/h, twice that on the boundary), coarse mesh
# one cell refined L times (level L: 2^L cells per direction, (2^L (k+1))^3 DoFs).
# Solver: FGMRES (right preconditioning: the Euclidean norm of b - A x, as the paper measures), one V-cycle per
# iteration, one pre- and one post-smoothing step of the multiplicative vertex-patch smoother (2^3 colors, exact
# local solves by fast diagonalization) with the local space full (Table 1), dirichlet or clamped (Table 2); the
# one-cell coarse level solved by LU; relative residual 1e-8. Each cell: the fractional iteration count
# n log(1e-8) / log(||r_n|| / ||r_0||) of the paper, then the integer count. Table 4: the dirichlet kernel on 1-4 MPI
# ranks. Usage: bench/seed002_tables.sh [t1] [t2] [t4] > bench/results/seed002-tables-cpu-DATE.md
# LMAX (default 4) is the finest level; KMAX4 (default 5): the largest degree run on level 4; EX3_OPTS: options added to
# every run (on the GPU machine: -dm_vec_type cuda); T4RANKS: the rank counts of Table 4 (default 1 2 3 4).
set -uo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
parts=${*:-t1 t2 t4}
LMAX=${LMAX:-4}
KMAX4=${KMAX4:-5}
COMMON="-dm_brick_dim 3 -dm_brick_cells 1,1,1 -rhs one -ksp_rtol 1e-8 -ksp_max_it 100 ${EX3_OPTS:-}"
T4RANKS=${T4RANKS:-1 2 3 4}
run() { # options...: "frac (its, true residual)" or err; ex3's KSP checks a claimed convergence against ||b - A x|| too
  "$@" 2>&1 | awk '/^Linear solve converged/{for (i = 1; i < NF; i++) if ($i == "iterations") its = $(i + 1)} /^fractional iterations/{f = $3} /^true residual/{t = $NF}
    END{if (its != "" && f != "" && t + 0 <= 1e-8) printf "%s (%s, %.0e)", f, its, t; else printf "err"}'
}

# the paper's Tables 1 and 2 (3D; its columns are its levels, the first one smallest)
declare -A P1=([2]="3.4 2.9 2.8 2.6 2.4" [3]="3.7 3.2 2.8 2.6 2.3" [4]="3.6 3.1 2.7 2.5 2.2" [5]="3.4 2.8 2.5 2.4 2.0" [6]="3.0 2.6 2.4 2.2 1.8" [7]="2.8 2.5 1.9 1.9 -")
declare -A PD=([2]="4.9 4.4 4.8 4.8 5.0" [3]="5.7 5.9 6.1 6.2 6.5" [4]="5.6 6.1 6.1 6.1 6.4" [5]="5.4 5.7 5.8 5.8 6.2" [6]="5.3 5.5 5.6 5.6 5.9" [7]="4.9 5.3 5.4 - -")
declare -A PC=([2]="18.6 11.1 7.9 6.6 5.4" [3]="22.7 12.2 7.7 6.6 5.2" [4]="21.7 11.6 7.4 5.8 4.8" [5]="19.0 10.7 6.9 5.7 4.7" [6]="17.6 9.7 6.6 5.5 4.6" [7]="16.4 8.8 6.0 - -")
declare -A P4=([2]="5.3 5.8 5.8 5.9" [3]="6.2 6.3 6.3 6.3" [4]="6.0 6.1 6.1 6.2" [5]="5.8 5.9 5.9 5.8" [6]="5.6 5.7 5.9 5.9" [7]="5.5 5.5 5.6 5.7")

echo "# Seed 002 ([CK24]) Tables 1, 2 and 4 on the CPU"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), PETSc $(pkg-config --modversion PETSc 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`LMAX=$LMAX KMAX4=$KMAX4 bench/seed002_tables.sh $parts\`; each cell is"
echo "  \`./tutorials/ex3 $COMMON -dm_brick_degree k -dm_brick_refine L -local_space S\`"
echo "- cells: ours \"fractional (iterations, true residual ||b - A x||/||b||)\"; the last column: the paper's five levels, smallest first"
echo

table() { # space paper-array-name
  local space=$1 name=$2
  printf "| k | source |"; for ((L = 2; L <= LMAX; L++)); do printf " L=%d |" $L; done; echo " paper's 5 levels |"
  printf "|---|---|"; for ((L = 2; L <= LMAX; L++)); do printf -- "---|"; done; echo "---|"
  for k in 2 3 4 5 6 7; do
    printf "| %d | ours |" $k
    for ((L = 2; L <= LMAX; L++)); do
      if [ "$L" -ge 4 ] && [ "$k" -gt "$KMAX4" ]; then printf " - |"; continue; fi
      if [ "$space" = clamped ] && [ "$k" -lt 3 ]; then printf " n/a (k < 3) |"; continue; fi
      printf " %s |" "$(run ./tutorials/ex3 $COMMON -dm_brick_degree $k -dm_brick_refine $L -local_space $space)"
    done
    local -n arr=$name
    echo " ${arr[$k]} |"
  done
  echo
}

if [[ " $parts " == *" t1 "* ]]; then
  echo "## Table 1: full kernel"
  echo
  table full P1
fi
if [[ " $parts " == *" t2 "* ]]; then
  echo "## Table 2: Dirichlet kernel"
  echo
  table dirichlet PD
  echo "## Table 2: clamped kernel"
  echo
  table clamped PC
fi
if [[ " $parts " == *" t4 "* ]]; then
  echo "## Table 4: Dirichlet kernel on 1-4 MPI ranks (level 3; the paper: 1-4 GPUs, its largest problems)"
  echo
  printf "| k |"; for n in $T4RANKS; do printf " %s rank(s) |" $n; done; echo " paper 1-4 GPUs |"
  printf "|---|"; for n in $T4RANKS; do printf -- "---|"; done; echo "---|"
  for k in 2 3 4 5 6 7; do
    printf "| %d |" $k
    for n in $T4RANKS; do printf " %s |" "$(run mpiexec -n $n --oversubscribe ./tutorials/ex3 $COMMON -dm_brick_degree $k -dm_brick_refine 3 -local_space dirichlet)"; done
    echo " ${P4[$k]} |"
  done
  echo
fi
