# The helpers of tests/run.sh, sourced by it: how a case reports (result), the kinds of case (ctest: a C test program's
# "ok"/"FAIL" lines; expect_error: bad input that must end in a PETSc error naming the option), readers of the tutorials'
# logs, and the checks that several sections share. Each uses run.sh's OUT, MPIEXEC, MPI4, EX1..EX4 and counters.

result() { # name status [detail]
  if [ "$2" = 0 ]; then
    passed=$((passed + 1)); echo "PASS $1${3:+ ($3)}"
  else
    failed=$((failed + 1)); echo "FAIL $1${3:+ ($3)} - log: $OUT/$1.log"
  fi
}

# a C test program: exit 0, at least one "ok" line and no "FAIL" line
ctest() { # name command...
  local name=$1; shift
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$? n
  n=$(grep -c '^ok ' "$OUT/$name.log")
  if [ $rc = 0 ] && [ "$n" -gt 0 ] && ! grep -q '^FAIL' "$OUT/$name.log"; then result "$name" 0 "$n checks"; else result "$name" 1; fi
}

# bad input: a PETSc error (non-zero exit, no signal) whose message contains the given text
expect_error() { # name text command...
  local name=$1 text=$2; shift 2
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  if [ $rc != 0 ] && grep -qF -- "$text" "$OUT/$name.log" && ! grep -q "Caught signal" "$OUT/$name.log"; then result "$name" 0; else result "$name" 1 "expected an error containing: $text"; fi
}

# value of "iterations N" and "L2 error E" in an ex1 log
its_of() { awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations" && $(i + 1) ~ /^[0-9]+$/) print $(i + 1)}' "$1"; }

err_of() { awk '/^L2 error/{print $3}' "$1"; }

# "true residual |b - A x|/|b| E" (ex1) or "... true residual |b - A x|/|b| = E)" (ex2)
true_of() { awk '/true residual/{for (i = 1; i <= NF; i++) if ($i == "|b" ) { v = $(i + 4); if (v == "=") v = $(i + 5); gsub(/[()]/, "", v); print v; exit }}' "$1"; }

# a converged run: status 0, CONVERGED_RTOL (or _ATOL) and a true residual at or below the tolerance
converged_ok() { # log rtol
  grep -q "^Linear solve converged due to CONVERGED_" "$1" && awk -v t="$(true_of "$1")" -v r="$2" 'BEGIN { exit !(t != "" && t + 0 <= r + 0) }'
}

kspcount() { awk -v st="$2" '/^--- Event Stage/ { on = ($0 ~ st "$") } on && $1 == "KSPSolve" { print $2; exit }' "$1"; }

conv() { # dim k coarse-cells refinements...
  local dim=$1 k=$2 cells=$3; shift 3
  local name="order_${dim}d_k$k" errs="" r ok=0 detail
  for r in "$@"; do
    $EX1 -dm_brick_dim "$dim" -dm_brick_cells "$cells" -dm_brick_degree "$k" -dm_brick_refine "$r" -ksp_rtol 1e-12 >"$OUT/$name.r$r.log" 2>&1 || ok=1
    errs="$errs $(err_of "$OUT/$name.r$r.log")"
  done
  # orders between successive refinements; a pair whose finer error is near round-off (1e-11) is not judged
  detail=$(echo "$errs" | awk -v k="$k" '{ s = "errors"; for (i = 1; i <= NF; i++) s = s " " $i; bad = 0
      for (i = 2; i <= NF; i++) { o = log($(i-1)/$i)/log(2); s = s sprintf(" order %.2f", o); if ($i > 1e-11 && (o < k+1-0.2 || o > k+1+0.2)) bad = 1 }
      print (NF < 3 ? 1 : bad) " " s }')
  [ "${detail%% *}" = 0 ] || ok=1
  printf '%s\n' "${detail#* }" >"$OUT/$name.log"
  result "$name" $ok "${detail#* }"
}

mgits() { # smoother dim k coarse-cells refinements...
  local smoother=$1 dim=$2 k=$3 cells=$4; shift 4
  local name="mg_its_${smoother}_${dim}d_k$k" its="" r ok=0
  for r in "$@"; do
    $EX1 -smoother $smoother -dm_brick_dim "$dim" -dm_brick_cells "$cells" -dm_brick_degree "$k" -dm_brick_refine "$r" >"$OUT/$name.r$r.log" 2>&1 || ok=1
    converged_ok "$OUT/$name.r$r.log" 1e-9 || ok=1 # every run converged, and its true residual says so
    its="$its $(its_of "$OUT/$name.r$r.log")"
  done
  # no step up by more than one iteration, and none more than two above the fewest
  echo "$its" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; for (i = 2; i <= NF; i++) if ($i > $(i-1) + 1 || $i > m + 2) exit 1; exit (NF < 2) }' || ok=1
  echo "iterations$its" >"$OUT/$name.log"
  result "$name" $ok "iterations$its, each converged with true residual <= 1e-9"
}

ranks() { # name ex1-options... (RANKS_TOL: allowed absolute difference of the L2 errors, default 1e-10; RANKS_RTOL: -ksp_rtol, default 1e-12)
  local name=$1 tol=${RANKS_TOL:-1e-10} rtol=${RANKS_RTOL:-1e-12}; shift
  $EX1 -ksp_rtol $rtol "$@" >"$OUT/$name.n1.log" 2>&1
  local rc1=$?
  $MPI4 $EX1 -ksp_rtol $rtol "$@" >"$OUT/$name.n4.log" 2>&1
  local rc4=$? i1 i4 e1 e4 ok=1
  i1=$(its_of "$OUT/$name.n1.log"); i4=$(its_of "$OUT/$name.n4.log")
  e1=$(err_of "$OUT/$name.n1.log"); e4=$(err_of "$OUT/$name.n4.log")
  if [ $rc1 = 0 ] && [ $rc4 = 0 ] && [ -n "$i1" ] && [ "$i1" = "$i4" ] && grep -q "converged due to" "$OUT/$name.n1.log" && grep -q "converged due to" "$OUT/$name.n4.log" && \
     awk -v a="$e1" -v b="$e4" -v tol="$tol" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol && d <= 1e-5 * a) }'; then ok=0; fi
  echo "1 rank: $i1 its, error $e1; 4 ranks: $i4 its, error $e4" >"$OUT/$name.log"
  result "$name" $ok "1 rank $i1 its error $e1, 4 ranks $i4 its error $e4, allowed difference $tol"
}

# one application of each operation (operator, prolongation, restriction, multiplicative and additive step) gives the
# one-rank vector on other rank counts: fingerprints (norm, dot with a fixed function) equal to 1e-12 relative
fingerprints() { # name ranks... -- test_ranks options...
  local name=$1 n ok=0 ref=""; shift
  local counts=()
  while [ "$1" != "--" ]; do counts+=("$1"); shift; done
  shift
  for n in "${counts[@]}"; do
    if [ "$n" = 1 ]; then ./tests/test_ranks "$@" >"$OUT/$name.n$n.log" 2>&1; else $MPIEXEC -n "$n" --oversubscribe ./tests/test_ranks "$@" >"$OUT/$name.n$n.log" 2>&1; fi || ok=1
    grep -q "^ok ran on" "$OUT/$name.n$n.log" || ok=1
    [ -z "$ref" ] && ref="$OUT/$name.n$n.log" && continue
    paste <(grep ^fingerprint "$ref") <(grep ^fingerprint "$OUT/$name.n$n.log") | awk '
      { n++; if ($2 != $8) bad = 1; a = $4; b = $10; s = a < 0 ? -a : a; d = a - b; if (d < 0) d = -d; if (d > 1e-12 * s) bad = 1
        t = $6 < 0 ? -$6 : $6; if (t < s) t = s; d = $6 - $12; if (d < 0) d = -d; if (d > 1e-12 * t) bad = 1 }
      END { exit (bad || n != 5) }' || ok=1
  done
  result "$name" $ok "ranks ${counts[*]}: 5 operations, fingerprints equal to 1e-12"
}

# whole solves: the iteration count of one rank on 2, 3 and 4 ranks, coarse grids too small to split included
itsranks() { # name program options...  (each run converged with its true residual under the tutorial's default rtol)
  local name=$1 prog=$2 n its="" first="" ok=0 rtol=1e-9; shift 2
  [ "$prog" = "$EX2" ] || [ "$prog" = "$EX3" ] && rtol=1e-8
  for n in 1 2 3 4; do
    # (a timeout: a rank that skips a reduction hangs the others)
    if [ $n = 1 ]; then timeout 300 $prog "$@" >"$OUT/$name.n$n.log" 2>&1; else timeout 300 $MPIEXEC -n $n --oversubscribe $prog "$@" >"$OUT/$name.n$n.log" 2>&1; fi || ok=1
    converged_ok "$OUT/$name.n$n.log" $rtol || ok=1
    its="$its $(its_of "$OUT/$name.n$n.log")"
    [ -z "$first" ] && first=$(its_of "$OUT/$name.n$n.log")
    [ -n "$first" ] && [ "$(its_of "$OUT/$name.n$n.log")" = "$first" ] || ok=1
  done
  result "$name" $ok "iterations on 1..4 ranks:$its, true residual <= $rtol"
}

# balance: a coarse grid whose cell counts do not divide among the ranks (3 cells along y and z) still gives every rank
# of a fine level the same share within 2 % of the cells (8 % of the DoFs here: a split direction's first rank lacks a
# layer of nodes, 1 of 35 to 47 at this size); dealing whole coarse cells gave 2 ranks 2 and 1 of them, one rank twice
# the other's work
balance_of() { awk '/DoFs per rank/{split($(NF - 4), r, "\\.\\."); sub(/,$/, "", r[2]); print r[1], r[2]; exit}' "$1"; }

# The paper's convention (its Algorithm 2.2): one full multigrid cycle, then whole V-cycles, each followed by ||b - A x||,
# at least one; ex1 -fmg with -ksp_type richardson counts exactly that. Our counts must not exceed the paper's, and must
# stay what we measured (2026-11-23). Counted from a zero start instead, the V-cycles are also pinned (the docs compare
# both conventions with the paper).
paper() { # convention(fmg|zero) dim L k measured paper
  local conv=$1 dim=$2 L=$3 k=$4 want=$5 pap=$6 cells=1,1 it name fmg=1
  [ "$dim" = 3 ] && cells=1,1,1
  [ "$conv" = zero ] && fmg=0
  name="paper_${conv}_${dim}d_L${L}_k$k"
  $EX1 -fmg $fmg -rhs one -dm_brick_dim "$dim" -dm_brick_cells $cells -dm_brick_degree "$k" -dm_brick_refine "$L" -pc_mg_levels "$L" \
    -ksp_type richardson -ksp_norm_type unpreconditioned -mg_coarse_ksp_type preonly -mg_coarse_pc_type vertexpatch >"$OUT/$name.log" 2>&1
  it=$(its_of "$OUT/$name.log")
  if [ "$conv" = fmg ]; then
    [ -n "$it" ] && converged_ok "$OUT/$name.log" 1e-9 && [ "$it" = "$want" ] && [ "$it" -le "$pap" ]
    result "$name" $? "$it V-cycles after FMG (measured $want), paper $pap"
  else
    [ -n "$it" ] && converged_ok "$OUT/$name.log" 1e-9 && [ "$it" = "$want" ]
    result "$name" $? "$it V-cycles from zero (measured $want); paper (FMG) $pap"
  fi
}

# orders over three refinements: L2 k+1 (2 for k = 2), broken H2 k-1 (ex2's clamped manufactured solution, and -rhs paper)
conv2() { # dim k coarse-cells refinements...
  local dim=$1 k=$2 cells=$3; shift 3
  local rhs=${C0RHS:-sine2} r ok=0 l2="" h2="" detail wl2=$((k + 1))
  local name="c0ip_order_${rhs}_${dim}d_k$k"
  [ "$k" = 2 ] && wl2=2
  for r in "$@"; do
    # the C0IP residual has a round-off floor near 1e-9 on these meshes (it grows like h^-4): 1e-8 is reachable
    $EX2 -rhs "$rhs" -dm_brick_dim "$dim" -dm_brick_cells "$cells" -dm_brick_degree "$k" -dm_brick_refine "$r" -ksp_rtol 1e-8 >"$OUT/$name.r$r.log" 2>&1 || ok=1
    l2="$l2 $(awk '/^L2 error/{print $3}' "$OUT/$name.r$r.log")"
    h2="$h2 $(awk '/^broken H2 error/{print $4}' "$OUT/$name.r$r.log")"
  done
  detail=$(echo "$l2 | $h2" | awk -v a="$wl2" -v b=$((k - 1)) -F'|' '{ n = split($1, e, " "); split($2, f, " "); bad = (n < 3); s = ""
      for (i = 2; i <= n; i++) { o = log(e[i-1]/e[i])/log(2); p = log(f[i-1]/f[i])/log(2); s = s sprintf(" L2 %.2f H2 %.2f", o, p)
        if (o < a - 0.2 || o > a + 0.3 || p < b - 0.1 || p > b + 0.2) bad = 1 }
      print bad " orders" s " (want L2 " a ", H2 " b ")" }')
  [ "${detail%% *}" = 0 ] || ok=1
  printf '%s\n' "${detail#* }" >"$OUT/$name.log"
  result "$name" $ok "${detail#* }"
}

# iteration regression (measured 2026-11-21; +-1 iteration): seed 000's setup, -rhs paper, fdm unless said
c0its() { # name expected ex2-options...
  local name=$1 want=$2 it; shift 2
  $EX2 -rhs paper "$@" >"$OUT/$name.log" 2>&1
  it=$(its_of "$OUT/$name.log")
  [ -n "$it" ] && [ "$it" -ge $((want - 1)) ] && [ "$it" -le $((want + 1)) ]
  result "$name" $? "$it iterations, expected $want ($(awk '/^fractional/{print "nu_frac " $4}' "$OUT/$name.log"))"
}

# seed 002 Tables 1-2 (3D, f = 1, one-cell coarse mesh refined L = 3 times, FGMRES to 1e-8): the fractional iteration
# count of each local space stays at or below a bound set from bench/results/seed002-tables (ours there, plus 10 %)
dgits() { # name max-fractional-iterations ex3-options...
  local name=$1 max=$2 f; shift 2
  $EX3 -dm_brick_dim 3 -dm_brick_cells 1,1,1 -rhs one -dm_brick_refine 3 "$@" >"$OUT/$name.log" 2>&1
  f=$(awk '/^fractional iterations/{print $3}' "$OUT/$name.log")
  converged_ok "$OUT/$name.log" 1e-8 && awk -v f="$f" -v m="$max" 'BEGIN{exit !(f != "" && f + 0 > 0 && f + 0 <= m + 0)}'
  result "$name" $? "fractional iterations $f, bound $max"
}

defaults_ranks() { # name program
  local name=$1 prog=$2 n its="" ok=0 first=""
  for n in 1 2 3 4; do
    if [ $n = 1 ]; then $prog >"$OUT/$name.n$n.log" 2>&1; else $MPIEXEC -n $n --oversubscribe $prog >"$OUT/$name.n$n.log" 2>&1; fi
    [ $? = 0 ] && grep -q "converged due to CONVERGED_RTOL" "$OUT/$name.n$n.log" || ok=1
    its="$its $(its_of "$OUT/$name.n$n.log")"
    [ -z "$first" ] && first=$(its_of "$OUT/$name.n$n.log")
    [ "$(its_of "$OUT/$name.n$n.log")" = "$first" ] || ok=1
  done
  # the default problem has several levels: several thousand DoFs
  [ "$(awk '/^  DoFs:/{print $2; exit}' "$OUT/$name.n1.log")" -gt 5000 ] || ok=1
  result "$name" $ok "$(awk '/^  DoFs:/{print $2 " DoFs"; exit}' "$OUT/$name.n1.log"), iterations on 1..4 ranks:$its"
}

honest() { # name rtol program options...
  local name=$1 rtol=$2 prog=$3 rc; shift 3
  $prog -ksp_rtol "$rtol" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  [ $rc = 0 ] && converged_ok "$OUT/$name.log" "$rtol"
  result "$name" $? "$(grep -o 'CONVERGED_[A-Z]* iterations [0-9]*' "$OUT/$name.log" | head -1), true residual $(true_of "$OUT/$name.log") <= $rtol"
}

sweep() { # name program kmin kmax dim options...
  local name=$1 prog=$2 kmin=$3 kmax=$4 dim=$5 k its="" ok=0 log rtol=1e-9; shift 5
  [ "$prog" = "$EX2" ] || [ "$prog" = "$EX3" ] && rtol=1e-8
  for k in $(seq "$kmin" "$kmax"); do
    log="$OUT/$name.k$k.log"
    if [ "$dim" = 2 ]; then $prog -dm_brick_dim 2 -dm_brick_cells 2,2 -dm_brick_refine 2 -dm_brick_degree "$k" "$@" >"$log" 2>&1
    else $prog -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_refine 1 -dm_brick_degree "$k" "$@" >"$log" 2>&1; fi
    if [ $? = 0 ] && converged_ok "$log" $rtol && [ "$(its_of "$log")" -le 30 ]; then its="$its $(its_of "$log")"; else its="$its FAIL(k=$k)"; ok=1; fi
  done
  result "$name" $ok "iterations for k = $kmin..$kmax:$its"
}

# OpenMP threads for the patches of one color (which touch disjoint nodes) and for the host operator products (laplace:
# planes of one parity; sipg: rows of cells; c0ip: the rows of each contraction): 2 threads give the 1-thread iterates
# digit for digit (double and float patches, local and global residual, batched, additive; the DG and c0ip smoothers and
# products), and 2 ranks x 2 threads the iterations and error of one rank
threads_same() { # name options...  (TEXE: the tutorial, default ex1; TOP: its operator, default laplace; TO: its options)
  local name=$1 exe=${TEXE:-$EX1} op=${TOP:-laplace}; shift
  local o=${TO:-"-dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 2 -fmg 0 -ksp_rtol 1e-10"}
  $exe $o -ksp_monitor_true_residual "$@" -mg_levels_pc_vertexpatch_threads 1 >"$OUT/$name.t1.log" 2>&1
  OMP_NUM_THREADS=2 $exe $o -ksp_monitor_true_residual "$@" -mg_levels_pc_vertexpatch_threads 2 -dm_brick_threads 2 -ksp_view -dm_view >"$OUT/$name.t2.log" 2>&1
  local h1 h2
  h1=$(grep 'true resid norm' "$OUT/$name.t1.log"); h2=$(grep 'true resid norm' "$OUT/$name.t2.log")
  [ -n "$h1" ] && [ "$h1" = "$h2" ] && [ "$(err_of "$OUT/$name.t1.log")" = "$(err_of "$OUT/$name.t2.log")" ] && grep -Eq '2 OpenMP thread\(s\) per color|batch size [0-9]+ \(2 thread\(s\)\)' "$OUT/$name.t2.log" && grep -q "host $op product: 2 OpenMP thread(s) per rank" "$OUT/$name.t2.log"
  result "$name" $? "$(echo "$h1" | wc -l) residuals equal, L2 error $(err_of "$OUT/$name.t2.log")"
}

# SIMD groups on the CPU (-pc_vertexpatch_simd: patches of one class in the lanes of a vector; -dm_brick_simd: cells of a
# row in the laplace product): every lane does the one-patch (one-cell) arithmetic in the same order, so the residual
# histories equal those of one patch (cell) at a time digit for digit, in double and float, local and global residual,
# additive, batched, dense local solves, 2D, c0ip (two ghost cells, boundary nodes inside a class) and on 2 ranks
simd_same() { # name executable options...
  local name=$1 exe=$2; shift 2
  $exe "$@" -ksp_monitor_true_residual -mg_levels_pc_vertexpatch_simd 0 -dm_brick_simd 0 >"$OUT/$name.off.log" 2>&1
  $exe "$@" -ksp_monitor_true_residual -ksp_view -dm_view >"$OUT/$name.on.log" 2>&1
  local h1 h2
  h1=$(grep 'true resid norm' "$OUT/$name.off.log"); h2=$(grep 'true resid norm' "$OUT/$name.on.log")
  [ -n "$h1" ] && [ "$h1" = "$h2" ] && grep -Eq 'CPU steps in SIMD groups of [0-9]+ patches' "$OUT/$name.on.log" && ! grep -q 'CPU steps in SIMD' "$OUT/$name.off.log"
  result "$name" $? "$(echo "$h1" | wc -l) residuals equal, SIMD groups: $(grep -Eo 'SIMD groups of [0-9]+ patches' "$OUT/$name.on.log" | sort -u | tr '\n' ' ')"
}

# An application linked against PETSc only (-dll_append), with -pc_type mg and no other multigrid option: PCMG's levels
# smooth with Chebyshev and PETSc's default SOR, which needs matrix entries; the brick gives its matrix-free levels
# Jacobi instead (PCView names it) and every operator converges, with the iterations of one rank on 2-4 ranks. PETSc's
# default GMRES stops on the preconditioned residual; the same run right-preconditioned (-ksp_pc_side right, the true
# residual as its norm) must reach rtol in the true residual.
plainmg() { # name rtol options...
  local name=$1 rtol=$2 n its="" first="" ok=0; shift 2
  for n in 1 2 3 4; do
    $MPIEXEC -n $n --oversubscribe ./tests/plain_mg -dll_append lib/libpetscvpatch.so -ksp_rtol "$rtol" "$@" -ksp_view >"$OUT/$name.n$n.log" 2>&1 || ok=1
    grep -q "^Linear solve converged due to CONVERGED_RTOL" "$OUT/$name.n$n.log" || ok=1
    grep -q "type: chebyshev" "$OUT/$name.n$n.log" && grep -q "PC Object: brick default: jacobi in place of PETSc's sor, which needs matrix entries (-dm_brick_jacobi_for_sor) (mg_levels_1_)" "$OUT/$name.n$n.log" || ok=1
    its="$its $(its_of "$OUT/$name.n$n.log")"
    [ -z "$first" ] && first=$(its_of "$OUT/$name.n$n.log")
    [ -n "$first" ] && [ "$(its_of "$OUT/$name.n$n.log")" = "$first" ] || ok=1
  done
  $MPIEXEC -n 2 --oversubscribe ./tests/plain_mg -dll_append lib/libpetscvpatch.so -ksp_rtol "$rtol" "$@" -ksp_pc_side right >"$OUT/$name.right.log" 2>&1 && converged_ok "$OUT/$name.right.log" "$rtol" || ok=1
  result "$name" $ok "iterations on 1..4 ranks:$its, Chebyshev/Jacobi levels named in -ksp_view; right-preconditioned: true residual $(true_of "$OUT/$name.right.log") <= $rtol"
}

# A partition whose cells do not divide among the ranks, split along one direction: the ranks with an extra cell must be
# the first ones, the first also lacking the boundary node, so that the DoFs per rank differ by at most one cell layer of
# nodes (k node layers across the rest of the grid); the extra cells on the last ranks would make it k + 1 (ex1's DMView).
balance_uneven() { # name ranks k ex1-options...
  local name=$1 n=$2 k=$3 out; shift 3
  $MPIEXEC -n "$n" --oversubscribe $EX1 -dm_brick_degree "$k" "$@" -ksp_max_it 1 >"$OUT/$name.log" 2>&1
  out=$(awk -v k="$k" '/interior nodes/ && nodes == "" { s = $0; sub(/.*interior nodes /, "", s); sub(/\).*/, "", s); nodes = s }
    /MPI ranks: .* as / && grid == "" { g = $0; sub(/.* as /, "", g); sub(/,.*/, "", g); grid = g; d = $0; sub(/.*DoFs per rank /, "", d); sub(/,.*/, "", d); dofs = d }
    END { nn = split(nodes, N, " x "); split(grid, P, " x "); split(dofs, R, "[.][.]"); nsplit = 0; layer = 1
      for (i = 1; i <= nn; i++) if (P[i] > 1) { nsplit++; sd = i }
      for (i = 1; i <= nn; i++) if (i != sd) layer *= N[i]
      spread = R[2] - R[1]; printf "%d ranks as %s: DoFs per rank %s, spread %d <= %d (one cell layer)", '"$n"', grid, dofs, spread, k * layer
      exit !(nsplit == 1 && R[1] > 0 && spread <= k * layer) }' "$OUT/$name.log")
  result "$name" $? "$out"
}
