#!/usr/bin/env bash
# Seed 000 (Cui, Witte, Bonizzoni, Kanschat 2024), Tables 1-3, on this CPU with tutorials/ex2.
# Problem: the clamped plate with seed 000's right-hand side f = Delta^2 prod sin(pi x_i) (-rhs paper), C0IP
# on CG Q_k, coarse grid 2^d cells, L = log2 of the cells per direction.
# Solver as in the paper: MVS with FGMRES (ex2's default; the iterates of the paper's right-preconditioned GMRES
# with a fixed preconditioner), one pre- and one post-smoothing step, 2^(d+1) colors, damping 1 (2D) / 0.7 (3D); AVS
# with CG (unpreconditioned residual norm), two pre- and post-steps, damping 1/4 (2D) / 1/8 (3D; ex2's default limits
# it by 1.8/lambda_max(B A) estimated at setup); the coarsest level one smoothing step; relative residual 1e-8 in the
# Krylov method's norm. nu_frac = -8 / log10((|r_n|/|r_0|)^(1/n)).
# On these meshes 1e-8 is below the round-off floor of the true residual |b - A x| (the C0IP condition number grows
# like h^-4), so the runs count the paper's way, on the Krylov residual, with the brick's convergence check off
# (-dm_brick_verify_convergence false), and each cell also gives the true residual |b - A x|/|b| reached.
# Table 1: exact local solvers (-mg_levels_pc_vertexpatch_local_solver dense), Tables 2-3: fdm (eq. 28/29).
# Usage: bench/seed000_tables.sh [t1] [t2] [t3] > bench/results/seed000-tables-....md
# Environment: T1/T2/T3 "k:L,L ..." (the cells), SMOOTHERS (default "avs mvs"), EXTRA (more ex2 options, e.g.
# "-ksp_pc_side left": GMRES on the preconditioned residual, deal.II's default), TIMEOUT per run (600 s).
set -uo pipefail
cd "$(dirname "$0")/.."
parts=${*:-t1 t2 t3}
TIMEOUT=${TIMEOUT:-600}
SMOOTHERS=${SMOOTHERS:-avs mvs}
EXTRA=${EXTRA:-}
run() { # prints "nu_frac (iterations, true residual, solve-time)"
  timeout "$TIMEOUT" ./tutorials/ex2 -rhs paper -dm_brick_verify_convergence false "$@" 2>&1 | awk '/iterations [0-9]/{for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i + 1)} /^Linear solve did not converge/{why = $8} /^fractional/{nu = $4; tr = $NF; gsub(/\)/, "", tr)} /^solve time/{t = $3}
    END{if (why != "") printf "%s after %s its", why, it; else if (nu == "" || nu == "none,") print "err"; else printf "%s (%s, %s, %.1fs)", nu, it, tr, t}'
}

echo "# Seed 000 Tables 1-3 on the CPU"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), PETSc $(pkg-config --modversion PETSc 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`${T1:+T1=\"$T1\" }${T2:+T2=\"$T2\" }${T3:+T3=\"$T3\" }${EXTRA:+EXTRA=\"$EXTRA\" }SMOOTHERS=\"$SMOOTHERS\" bench/seed000_tables.sh $parts\`; each cell is nu_frac (FGMRES/CG iterations, true residual, solve time) of"
echo "  \`./tutorials/ex2 -rhs paper -dm_brick_verify_convergence false -smoother mvs|avs -dm_brick_dim D -dm_brick_cells 2,2[,2] -dm_brick_degree k -dm_brick_refine L-1 [-mg_levels_pc_vertexpatch_local_solver dense -mg_coarse_pc_vertexpatch_local_solver dense]\`"
echo

table() { # title dim solver "k:L1,L2 ..."
  local title=$1 dim=$2 solver=$3 spec=$4 cells=2,2 extra=""
  [ "$dim" = 3 ] && cells=2,2,2
  [ "$solver" = dense ] && extra="-mg_levels_pc_vertexpatch_local_solver dense -mg_coarse_pc_vertexpatch_local_solver dense"
  echo "## $title"
  echo
  echo "| smoother | k | L | DoFs | ours: nu_frac (its, true residual, time) |"
  echo "|---|---|---|---|---|"
  for sm in $SMOOTHERS; do
    for kl in $spec; do
      k=${kl%%:*}
      for L in ${kl#*:}; do
        L=${L//,/ }
        for l in $L; do
          n=$(awk -v k=$k -v l=$l -v d=$dim 'BEGIN{printf "%.0f", (k*2^l-1)^d}')
          echo "| $sm | $k | $l | $n | $(run -smoother $sm -dm_brick_dim $dim -dm_brick_cells $cells -dm_brick_degree $k -dm_brick_refine $((l - 1)) $extra $EXTRA) |"
        done
      done
    done
  done
  echo
}
for p in $parts; do
  case $p in
  t1) table "Table 1: 2D, exact local solvers" 2 dense "${T1:-2:7,8 3:7,8 4:6,7,8 5:6,7 6:6,7}" ;;
  t2) table "Table 2: 2D, fdm (inexact) local solvers" 2 fdm "${T2:-2:7,8 3:7,8 4:6,7,8 5:6,7 6:6,7}" ;;
  t3) table "Table 3: 3D, fdm (inexact) local solvers" 3 fdm "${T3:-2:4,5 3:4,5 4:4 5:4 6:4}" ;;
  esac
done
