#!/usr/bin/env bash
# The test suite of petsc-vpatch (run by `make test`). Each case prints PASS or FAIL with its log in
# tests/out/; the last line is the summary "N passed, N failed". Exit status: 0 only if nothing failed.
set -u
cd "$(dirname "$0")/.."
OUT=tests/out
rm -rf "$OUT"
mkdir -p "$OUT"
MPIEXEC=${MPIEXEC:-mpiexec}
# Open MPI refuses root without these; CI and containers run as root
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
MPI4="$MPIEXEC -n 4 --oversubscribe"
EX1=./tutorials/ex1
passed=0
failed=0
skipped=0

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

echo "== operators and transfer (random vectors vs assembled, exact identities)"
ctest operator_2d_k1-8 ./tests/test_operator -dim 2 -kmin 1 -kmax 8
ctest operator_3d_k1-6 ./tests/test_operator -dim 3 -kmin 1 -kmax 6
ctest operator_2d_vec_type_mpi ./tests/test_operator -dim 2 -kmin 2 -kmax 2 -dm_vec_type mpi
ctest interp_2d_k1-8 ./tests/test_interp -dim 2 -kmin 1 -kmax 8
ctest interp_3d_k1-6 ./tests/test_interp -dim 3 -kmin 1 -kmax 6
ctest operator_2d_4ranks $MPI4 ./tests/test_operator -dim 2 -kmin 1 -kmax 8 -cells 4,6
ctest operator_3d_4ranks $MPI4 ./tests/test_operator -dim 3 -kmin 1 -kmax 4 -cells 3,3,3
ctest interp_2d_4ranks $MPI4 ./tests/test_interp -dim 2 -kmin 1 -kmax 8 -cells 4,6
ctest interp_3d_4ranks $MPI4 ./tests/test_interp -dim 3 -kmin 1 -kmax 4 -cells 3,3,3

echo "== L2 convergence order k+1 over three refinements (ex1, manufactured solution)"
conv() { # dim k coarse-cells refinements...
  local dim=$1 k=$2 cells=$3; shift 3
  local name="order_${dim}d_k$k" errs="" r ok=0 detail
  for r in "$@"; do
    $EX1 -dm_brick_dim "$dim" -dm_brick_cells "$cells" -dm_brick_degree "$k" -dm_brick_refine "$r" -ksp_rtol 1e-13 >"$OUT/$name.r$r.log" 2>&1 || ok=1
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
for k in 1 2 3 4; do conv 2 $k 2,2 2 3 4; done
for k in 1 2 3; do conv 3 $k 2,2,2 0 1 2; done

echo "== multigrid iterations do not grow with refinement (ex1 baseline: CG + V-cycle, Chebyshev/Jacobi; and the vertex-patch default)"
mgits() { # smoother dim k coarse-cells refinements...
  local smoother=$1 dim=$2 k=$3 cells=$4; shift 4
  local name="mg_its_${smoother}_${dim}d_k$k" its="" r ok=0
  for r in "$@"; do
    $EX1 -smoother $smoother -dm_brick_dim "$dim" -dm_brick_cells "$cells" -dm_brick_degree "$k" -dm_brick_refine "$r" >"$OUT/$name.r$r.log" 2>&1 || ok=1
    its="$its $(its_of "$OUT/$name.r$r.log")"
  done
  # no step up by more than one iteration, and the finest no more than one above the coarsest
  echo "$its" | awk '{ for (i = 2; i <= NF; i++) if ($i > $(i-1) + 1 || $i > $1 + 1) exit 1; exit (NF < 2) }' || ok=1
  echo "iterations$its" >"$OUT/$name.log"
  result "$name" $ok "iterations$its"
}
# four successive meshes past the two-level start (where the coarse solve still dominates); 3D Q3/Q4 on three
for k in 1 2 3 4; do mgits chebyshev 2 $k 2,2 2 3 4 5; done
mgits chebyshev 3 1 2,2,2 2 3 4 5
mgits chebyshev 3 2 2,2,2 1 2 3 4
for k in 3 4; do mgits chebyshev 3 $k 2,2,2 1 2 3; done
for k in 1 2 3 4; do mgits vertexpatch 2 $k 2,2 2 3 4 5; done
for k in 1 2 3; do mgits vertexpatch 3 $k 2,2,2 1 2 3; done

echo "== 1 vs 4 MPI ranks: same iterations, same L2 error to 1e-10 (absolute; and 1e-5 relative, the printed precision)"
ranks() { # name ex1-options... (RANKS_TOL: allowed absolute difference of the L2 errors, default 1e-10)
  local name=$1 tol=${RANKS_TOL:-1e-10}; shift
  $EX1 -ksp_rtol 1e-12 "$@" >"$OUT/$name.n1.log" 2>&1
  local rc1=$?
  $MPI4 $EX1 -ksp_rtol 1e-12 "$@" >"$OUT/$name.n4.log" 2>&1
  local rc4=$? i1 i4 e1 e4 ok=1
  i1=$(its_of "$OUT/$name.n1.log"); i4=$(its_of "$OUT/$name.n4.log")
  e1=$(err_of "$OUT/$name.n1.log"); e4=$(err_of "$OUT/$name.n4.log")
  if [ $rc1 = 0 ] && [ $rc4 = 0 ] && [ -n "$i1" ] && [ "$i1" = "$i4" ] && \
     awk -v a="$e1" -v b="$e4" -v tol="$tol" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol && d <= 1e-5 * a) }'; then ok=0; fi
  echo "1 rank: $i1 its, error $e1; 4 ranks: $i4 its, error $e4" >"$OUT/$name.log"
  result "$name" $ok "1 rank $i1 its error $e1, 4 ranks $i4 its error $e4, allowed difference $tol"
}
ranks ranks_cheb_2d_k3 -smoother chebyshev -dm_brick_dim 2 -dm_brick_cells 4,4 -dm_brick_degree 3 -dm_brick_refine 3
ranks ranks_cheb_3d_k2 -smoother chebyshev -dm_brick_dim 3 -dm_brick_cells 4,4,4 -dm_brick_degree 2 -dm_brick_refine 1
ranks ranks_cheb_2d_k2_lu -smoother chebyshev -dm_brick_dim 2 -dm_brick_cells 4,4 -dm_brick_degree 2 -dm_brick_refine 2 -mg_coarse_pc_type lu -mg_coarse_pc_factor_mat_solver_type mumps
ranks ranks_cheb_2d_k4_itcoarse -smoother chebyshev -dm_brick_dim 2 -dm_brick_cells 4,4 -dm_brick_degree 4 -dm_brick_refine 2 -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14
ranks ranks_vp_2d_k3 -dm_brick_dim 2 -dm_brick_cells 4,4 -dm_brick_degree 3 -dm_brick_refine 3
ranks ranks_vp_2d_k2_global -dm_brick_dim 2 -dm_brick_cells 5,4 -dm_brick_degree 2 -dm_brick_refine 2 -mg_levels_pc_vertexpatch_residual global
ranks ranks_vp_3d_k2 -dm_brick_dim 3 -dm_brick_cells 4,4,4 -dm_brick_degree 2 -dm_brick_refine 1
ranks ranks_vp_2d_k2_additive -dm_brick_dim 2 -dm_brick_cells 4,6 -dm_brick_degree 2 -dm_brick_refine 2 -mg_levels_pc_vertexpatch_type additive -mg_levels_ksp_max_it 2
# single-precision V-cycles: the iterates differ by float round-off once MPI reductions reorder double sums
RANKS_TOL=1e-8 ranks ranks_vp_2d_k3_single -dm_brick_dim 2 -dm_brick_cells 4,4 -dm_brick_degree 3 -dm_brick_refine 2 -mg_levels_pc_vertexpatch_precision single

echo "== PCVERTEXPATCH: every schedule, ordering, residual and local solver vs explicit dense sweeps (one rank)"
ctest vertexpatch_2d_k1 ./tests/test_vertexpatch -dim 2 -degree 1 -cells 5,4
ctest vertexpatch_2d_k2 ./tests/test_vertexpatch -dim 2 -degree 2 -cells 4,3
ctest vertexpatch_2d_k3 ./tests/test_vertexpatch -dim 2 -degree 3 -cells 5,4
ctest vertexpatch_3d_k1 ./tests/test_vertexpatch -dim 3 -degree 1 -cells 4,3,3
ctest vertexpatch_3d_k2 ./tests/test_vertexpatch -dim 3 -degree 2 -cells 3,3,4
ctest vertexpatch_coarse_direct ./tests/test_vertexpatch -dim 2 -degree 4 -cells 2,2

echo "== V-cycle counts against seed 003 Tables 1-2 (f = 1, one-cell coarse mesh refined L times, within one iteration)"
paper() { # dim L k expected
  local dim=$1 L=$2 k=$3 want=$4 cells=1,1 it
  [ "$dim" = 3 ] && cells=1,1,1
  $EX1 -fmg 0 -rhs one -dm_brick_dim "$dim" -dm_brick_cells $cells -dm_brick_degree "$k" -dm_brick_refine "$L" -pc_mg_levels "$L" \
    -ksp_type richardson -ksp_norm_type unpreconditioned -mg_coarse_ksp_type preonly -mg_coarse_pc_type vertexpatch >"$OUT/paper_${dim}d_L${L}_k$k.log" 2>&1
  it=$(its_of "$OUT/paper_${dim}d_L${L}_k$k.log")
  [ -n "$it" ] && [ "$it" -ge $((want - 1)) ] && [ "$it" -le $((want + 1)) ]
  result "paper_${dim}d_L${L}_k$k" $? "$it V-cycles, paper $want"
}
k=1; for want in 7 5 3 3 3 2 2 2; do paper 2 6 $k $want; k=$((k + 1)); done
k=1; for want in 6 5 3 3 3; do paper 3 3 $k $want; k=$((k + 1)); done

echo "== C0IP biharmonic (seed 000): operator, vertex-patch smoothers, convergence orders, ranks, iteration regression"
EX2=./tutorials/ex2
ctest c0ip_operator_2d_k2-8 ./tests/test_c0ip -dim 2 -kmin 2 -kmax 8
ctest c0ip_operator_3d_k2-4 ./tests/test_c0ip -dim 3 -kmin 2 -kmax 4
ctest c0ip_operator_3d_k5-8_spd ./tests/test_c0ip -dim 3 -kmin 5 -kmax 8 -refine 0
ctest c0ip_operator_2d_4ranks $MPI4 ./tests/test_c0ip -dim 2 -kmin 2 -kmax 6 -cells 4,6 -spd 0
ctest c0ip_operator_3d_4ranks $MPI4 ./tests/test_c0ip -dim 3 -kmin 2 -kmax 3 -cells 4,4,4 -spd 0
ctest c0ip_vertexpatch_2d_k2 ./tests/test_vertexpatch -dm_brick_operator c0ip -dim 2 -degree 2 -cells 5,4
ctest c0ip_vertexpatch_2d_k3 ./tests/test_vertexpatch -dm_brick_operator c0ip -dim 2 -degree 3 -cells 6,5
ctest c0ip_vertexpatch_3d_k2 ./tests/test_vertexpatch -dm_brick_operator c0ip -dim 3 -degree 2 -cells 5,4,4
ctest c0ip_vertexpatch_coarse_2d_k4 ./tests/test_vertexpatch -dm_brick_operator c0ip -dim 2 -degree 4 -cells 2,2
ctest c0ip_vertexpatch_coarse_3d_k3 ./tests/test_vertexpatch -dm_brick_operator c0ip -dim 3 -degree 3 -cells 2,2,2

# orders over three refinements: L2 k+1 (2 for k = 2), broken H2 k-1 (ex2's clamped manufactured solution, and -rhs paper)
conv2() { # dim k coarse-cells refinements...
  local dim=$1 k=$2 cells=$3; shift 3
  local rhs=${C0RHS:-sine2} r ok=0 l2="" h2="" detail wl2=$((k + 1))
  local name="c0ip_order_${rhs}_${dim}d_k$k"
  [ "$k" = 2 ] && wl2=2
  for r in "$@"; do
    $EX2 -rhs "$rhs" -dm_brick_dim "$dim" -dm_brick_cells "$cells" -dm_brick_degree "$k" -dm_brick_refine "$r" -ksp_rtol 1e-12 >"$OUT/$name.r$r.log" 2>&1 || ok=1
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
for k in 2 3 4; do conv2 2 $k 2,2 2 3 4; done
conv2 3 2 2,2,2 1 2 3
conv2 3 3 2,2,2 1 2 3
# seed 000's problem: u = prod sin(pi x_i), its boundary slope imposed weakly (DMBrickC0IPAddNormalDerivative)
C0RHS=paper conv2 2 2 2,2 2 3 4
C0RHS=paper conv2 2 3 2,2 2 3 4
C0RHS=paper conv2 3 3 2,2,2 1 2 3

# k = 8: the errors of a fine solution are small (a regression test for the broken-H2 quadrature buffers)
$EX2 -dm_brick_cells 3,3 -dm_brick_degree 8 -dm_brick_refine 1 -ksp_rtol 1e-12 >"$OUT/c0ip_errors_k8.log" 2>&1
l2=$(awk '/^L2 error/{print $3}' "$OUT/c0ip_errors_k8.log"); h2=$(awk '/^broken H2 error/{print $4}' "$OUT/c0ip_errors_k8.log")
[ -n "$h2" ] && awk -v a="$l2" -v b="$h2" 'BEGIN{exit !(a < 1e-8 && b < 1e-5)}'
result c0ip_errors_k8 $? "L2 $l2 (< 1e-8), broken H2 $h2 (< 1e-5)"
expect_error c0ip_diverged_avs_3d_k5 "fractional iterations: none, the solve did not converge" $EX2 -smoother avs -dm_brick_dim 3 -dm_brick_degree 5 -dm_brick_refine 1

# 1 vs 4 ranks: same iterations and L2 error (MVS with GMRES, AVS with CG); c0ip needs 3 coarse cells on the first rank of a split direction
EX1_SAVE=$EX1; EX1=$EX2
ranks c0ip_ranks_2d_k3_mvs -dm_brick_dim 2 -dm_brick_cells 6,6 -dm_brick_degree 3 -dm_brick_refine 2 -coarse lu -mg_coarse_pc_factor_mat_solver_type mumps
ranks c0ip_ranks_2d_k2_avs -smoother avs -dm_brick_dim 2 -dm_brick_cells 6,8 -dm_brick_degree 2 -dm_brick_refine 2 -coarse lu -mg_coarse_pc_factor_mat_solver_type mumps
ranks c0ip_ranks_3d_k2_mvs -dm_brick_dim 3 -dm_brick_cells 6,6,6 -dm_brick_degree 2 -dm_brick_refine 1 -coarse lu -mg_coarse_pc_factor_mat_solver_type mumps
EX1=$EX1_SAVE

# iteration regression (measured 2026-11-21; +-1 iteration): seed 000's setup, -rhs paper, fdm unless said
c0its() { # name expected ex2-options...
  local name=$1 want=$2 it; shift 2
  $EX2 -rhs paper "$@" >"$OUT/$name.log" 2>&1
  it=$(its_of "$OUT/$name.log")
  [ -n "$it" ] && [ "$it" -ge $((want - 1)) ] && [ "$it" -le $((want + 1)) ]
  result "$name" $? "$it iterations, expected $want ($(awk '/^fractional/{print "nu_frac " $4}' "$OUT/$name.log"))"
}
c0its c0ip_its_2d_k2_L5_mvs 12 -dm_brick_cells 2,2 -dm_brick_degree 2 -dm_brick_refine 4
c0its c0ip_its_2d_k2_L5_avs 16 -smoother avs -dm_brick_cells 2,2 -dm_brick_degree 2 -dm_brick_refine 4
c0its c0ip_its_2d_k4_L5_mvs_dense 4 -dm_brick_cells 2,2 -dm_brick_degree 4 -dm_brick_refine 4 -mg_levels_pc_vertexpatch_local_solver dense -mg_coarse_pc_vertexpatch_local_solver dense
c0its c0ip_its_3d_k2_L3_mvs 9 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 2
c0its c0ip_its_3d_k2_L3_avs 16 -smoother avs -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 2

$EX2 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 2 -ksp_view >"$OUT/c0ip_views.log" 2>&1
grep -q "brick c0ip: C0 interior penalty biharmonic, CG Q2 in 3D, level 2" "$OUT/c0ip_views.log" && grep -q "multiplicative vertex-patch Schwarz, local solver fdm, local residual, damping 0.7" "$OUT/c0ip_views.log" &&
  grep -q "343 patches in 16 color(s), 27 interior / 729 closure DoFs per patch" "$OUT/c0ip_views.log" &&
  grep -q "precision double, GPU kernel global" "$OUT/c0ip_views.log"
result c0ip_ksp_view $?
expect_error c0ip_bad_degree_1 "-dm_brick_degree 1 with -dm_brick_operator c0ip: allowed degrees 2..8" $EX2 -dm_brick_degree 1
expect_error c0ip_bad_avs_damping "-pc_vertexpatch_damping 0.: must be a positive number" $EX2 -smoother avs -mg_levels_pc_vertexpatch_damping 0
expect_error c0ip_bad_avs_damping_negative "-pc_vertexpatch_damping -0.25: must be a positive number" $EX2 -smoother avs -mg_levels_pc_vertexpatch_damping -0.25
expect_error c0ip_normal_derivative_laplace "DMBrickC0IPAddNormalDerivative() needs -dm_brick_operator c0ip, not laplace" $EX2 -dm_brick_operator laplace -rhs paper
expect_error c0ip_bad_smoother "-smoother jacobi: allowed mvs, avs" $EX2 -smoother jacobi
expect_error c0ip_bad_coarse "-coarse cg: allowed smoother, lu" $EX2 -coarse cg
expect_error c0ip_bad_rhs "-rhs cosine: allowed sine2, paper" $EX2 -rhs cosine
expect_error make_cuda_on_without_cuda "CUDA=on but the PETSc" make -n CUDA=on
expect_error vp_gpu_kernel_shared_c0ip "-pc_vertexpatch_gpu_kernel shared needs a patch closure of the patch cells alone (one ghost cell: laplace); -dm_brick_operator c0ip has 2; allowed: global, auto" $EX2 -mg_levels_pc_vertexpatch_gpu_kernel shared
expect_error vp_gpu_kernel_unknown "-pc_vertexpatch_gpu_kernel fast: unknown value; allowed: auto, shared, global" $EX1 -mg_levels_pc_vertexpatch_gpu_kernel fast
expect_error dm_mg_precision_unknown "-dm_brick_mg_precision half: unknown precision; allowed: double, single" $EX1 -dm_brick_mg_precision half
expect_error c0ip_bad_solver "-pc_vertexpatch_local_solver lu: unknown value; allowed: fdm, dense, separable_dense" $EX2 -mg_levels_pc_vertexpatch_local_solver lu

echo "== the plugin route: a PETSc-only program gets the brick from -dll_append"
$EX1 -help >"$OUT/help.log" 2>&1
grep -q -- "-dm_brick_degree" "$OUT/help.log" && grep -q -- "-dm_brick_operator" "$OUT/help.log" && grep -q -- "-dm_brick_coarse_mat_type" "$OUT/help.log" && grep -q -- "-dm_brick_mg_precision" "$OUT/help.log"
result help_lists_brick_options $?
./tests/plain_dll_append -dll_append lib/libpetscvpatch.so -dm_brick_cells 3,3 -dm_brick_degree 2 >"$OUT/dll_append.log" 2>&1 && \
  ./tests/plain_dll_append -dll_append lib/libpetscvpatch.so -dm_brick_cells 3,3 -dm_brick_degree 2 -dm_mat_type aij >"$OUT/dll_append_aij.log" 2>&1
rc=$?
s1=$(grep "brick DoFs" "$OUT/dll_append.log"); s2=$(grep "brick DoFs" "$OUT/dll_append_aij.log")
# (2*3-1)^2 = 25 interior nodes; the shell and the assembled operator agree on A*1
[ $rc = 0 ] && [ "${s1#brick DoFs 25 }" != "$s1" ] && [ "$s1" = "$s2" ]
result dll_append_brick $? "$s1"
expect_error without_dll_append "Unknown DM type: brick" ./tests/plain_dll_append -dm_brick_cells 3,3

echo "== PETSc views and logs"
$EX1 -dm_brick_cells 2,2 -dm_brick_degree 2 -dm_brick_refine 2 -ksp_view -log_view >"$OUT/views.log" 2>&1
grep -q "brick laplace: CG Q2 in 2D, level 2" "$OUT/views.log" && grep -q "BrickInterp" "$OUT/views.log" && grep -q "type: brick" "$OUT/views.log" &&
  grep -q "multiplicative vertex-patch Schwarz, local solver fdm, local residual, damping 1" "$OUT/views.log" && grep -q "49 patches in 4 color(s), 9 interior / 25 closure DoFs per patch" "$OUT/views.log" && grep -q "VPatchSmooth" "$OUT/views.log" &&
  grep -q "precision double, GPU kernel shared" "$OUT/views.log"
result ksp_view_and_log_view $?
# -dm_brick_mg_precision reaches the coarser bricks only: their matrix-free operators (level 1 here; level 0 is
# assembled) say so in -ksp_view, the finest one does not;
# host vectors compute in double, so the solve is the same as without it
$EX1 -dm_brick_cells 2,2 -dm_brick_degree 2 -dm_brick_refine 2 -dm_brick_mg_precision single -ksp_view -dm_view >"$OUT/mg_precision.log" 2>&1
n=$(grep -c "float arithmetic on VECCUDA vectors" "$OUT/mg_precision.log")
grep -q "GPU arithmetic of the operator and transfers: double on this level, single on the coarser levels" "$OUT/mg_precision.log" && [ "$n" = 1 ] &&
  [ "$(its_of "$OUT/mg_precision.log" | tail -1)" = "$(its_of "$OUT/views.log" | tail -1)" ] && [ "$(err_of "$OUT/mg_precision.log")" = "$(err_of "$OUT/views.log")" ]
result dm_mg_precision_levels $? "$n coarse operators in float"
$EX1 -help >"$OUT/help_vertexpatch.log" 2>&1
grep -q -- "pc_vertexpatch_schedule <now colored" "$OUT/help_vertexpatch.log" && grep -q -- "pc_vertexpatch_local_solver <now fdm" "$OUT/help_vertexpatch.log" && grep -q -- "pc_vertexpatch_precision <now double" "$OUT/help_vertexpatch.log" && grep -q -- "pc_vertexpatch_gpu_kernel <now auto" "$OUT/help_vertexpatch.log"
result help_lists_vertexpatch_options $?

echo "== bad input ends in a PETSc error naming the option"
expect_error bad_degree_0 "-dm_brick_degree 0: allowed 1..8" $EX1 -dm_brick_degree 0
expect_error bad_degree_9 "-dm_brick_degree 9: allowed 1..8" $EX1 -dm_brick_degree 9
expect_error bad_cells_zero "-dm_brick_cells: 0 cells along x; allowed: a positive number" $EX1 -dm_brick_cells 0,2
expect_error bad_cells_negative "-dm_brick_cells: -3 cells along y; allowed: a positive number" $EX1 -dm_brick_cells 2,-3
expect_error bad_cells_count "-dm_brick_cells needs 3 values" $EX1 -dm_brick_dim 3 -dm_brick_cells 2,2
expect_error bad_dim "-dm_brick_dim 4: allowed 2 or 3" $EX1 -dm_brick_dim 4
expect_error bad_coarsen_odd "3 cells along x cannot be halved; use fewer -pc_mg_levels" $EX1 -dm_brick_cells 3,4 -dm_brick_refine 0 -pc_mg_levels 2
expect_error bad_coarsen_too_many "1 cells along x cannot be halved; use fewer -pc_mg_levels" $EX1 -dm_brick_cells 2,2 -dm_brick_degree 2 -dm_brick_refine 1 -pc_mg_levels 4
expect_error bad_operator "-dm_brick_operator foo: unknown operator; allowed: laplace, c0ip" $EX1 -dm_brick_operator foo
expect_error bad_family "-dm_brick_family xyz: unknown family; allowed: cg" $EX1 -dm_brick_family xyz
expect_error bad_family_dg "-dm_brick_family dg is not supported yet; allowed: cg" $EX1 -dm_brick_family dg
expect_error bad_domain "-dm_brick_domain: along x the upper end 0. is not above the lower end 1." $EX1 -dm_brick_domain 1,0,0,1
expect_error bad_domain_empty "-dm_brick_domain: along y the upper end 2. is not above the lower end 2." $EX1 -dm_brick_domain 0,1,2,2
expect_error bad_no_interior_dof "-dm_brick_degree 1 with a single cell along x has no interior degree of freedom" $EX1 -dm_brick_cells 1,2 -dm_brick_degree 1
expect_error bad_too_many_ranks "too few for 4 MPI ranks" $MPI4 $EX1 -dm_brick_cells 1,2 -dm_brick_degree 2
expect_error bad_refine_huge "Brick level 33 (-dm_brick_refine 33, coarsened 0 times): allowed -24..24" $EX1 -dm_brick_cells 3,3 -dm_brick_refine 33
expect_error bad_domain_inf "-dm_brick_domain: along y the ends must be finite numbers" $EX1 -dm_brick_domain 0,1,0,inf
expect_error bad_cells_too_many "-dm_brick_cells needs 2 values (one per direction, -dm_brick_dim 2), got 4" $EX1 -dm_brick_cells 2,2,2,2
expect_error bad_coarse_mat_type "-dm_brick_coarse_mat_type foo: not a matrix type" $EX1 -dm_brick_coarse_mat_type foo
expect_error bad_mat_type "-dm_mat_type bar: not a matrix type" $EX1 -dm_mat_type bar
expect_error bad_vp_type "-pc_vertexpatch_type foo: unknown value; allowed: multiplicative, additive" $EX1 -mg_levels_pc_vertexpatch_type foo
expect_error bad_vp_solver "-pc_vertexpatch_local_solver lu: unknown value; allowed: fdm, dense" $EX1 -mg_levels_pc_vertexpatch_local_solver lu
expect_error bad_vp_damping "-pc_vertexpatch_damping 0.: must be a positive number" $EX1 -mg_levels_pc_vertexpatch_damping 0
expect_error bad_vp_damping_negative "-pc_vertexpatch_damping -0.5: must be a positive number" $EX1 -mg_levels_pc_vertexpatch_damping -0.5
expect_error bad_vp_foreign_pmat "the preconditioning matrix must be the brick's own operator" ./tests/test_vertexpatch -foreign_pmat
expect_error bad_vp_batch "-pc_vertexpatch_batch_size 0: must be at least 1" $EX1 -mg_levels_pc_vertexpatch_schedule batched -mg_levels_pc_vertexpatch_batch_size 0
expect_error bad_vp_batched_additive "-pc_vertexpatch_schedule batched with -pc_vertexpatch_type additive" $EX1 -mg_levels_pc_vertexpatch_type additive -mg_levels_pc_vertexpatch_schedule batched
expect_error bad_vp_single_global "-pc_vertexpatch_schedule single with -pc_vertexpatch_residual global" $EX1 -mg_levels_pc_vertexpatch_schedule single -mg_levels_pc_vertexpatch_residual global
expect_error bad_vp_single_mpi "-pc_vertexpatch_schedule single runs on one MPI rank only" $MPI4 $EX1 -dm_brick_cells 4,4 -mg_levels_pc_vertexpatch_schedule single
expect_error bad_vp_dense_single "-pc_vertexpatch_local_solver dense is double precision only" $EX1 -mg_levels_pc_vertexpatch_local_solver dense -mg_levels_pc_vertexpatch_precision single
expect_error bad_vp_no_patch "has a single cell along some direction, hence no interior vertex" $EX1 -dm_brick_cells 1,1 -dm_brick_degree 2 -pc_type vertexpatch
expect_error bad_vp_not_brick "PCVERTEXPATCH needs the brick (DMBRICK) of its operator" ./tests/test_vertexpatch -no_brick
expect_error bad_vp_setter_range "PCVertexPatchOrdering 7: out of range; allowed 0..2 (lexicographic ... hierarchical)" ./tests/test_vertexpatch -bad_setter
expect_error bad_ex1_rhs "-rhs cosine: allowed sine, one" $EX1 -rhs cosine
expect_error bad_ex1_smoother "-smoother jacobi: allowed vertexpatch, chebyshev" $EX1 -smoother jacobi

echo "== memory: valgrind (Open MPI's own blocks suppressed) and PETSc's -malloc_dump"
if command -v valgrind >/dev/null; then
  VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=97 --suppressions=tests/valgrind.supp"
  [ -f /usr/share/openmpi/openmpi-valgrind.supp ] && VG="$VG --suppressions=/usr/share/openmpi/openmpi-valgrind.supp"
  $VG $EX1 -dm_brick_cells 2,2 -dm_brick_degree 3 -dm_brick_refine 1 >"$OUT/valgrind_ex1.log" 2>&1
  result valgrind_ex1_2d $?
  $VG ./tests/test_interp -dim 3 -kmin 2 -kmax 2 -cells 1,1,2 >"$OUT/valgrind_interp.log" 2>&1
  result valgrind_interp_3d $?
  $VG ./tests/test_vertexpatch -dim 3 -degree 2 -cells 3,2,2 >"$OUT/valgrind_vertexpatch.log" 2>&1
  result valgrind_vertexpatch_3d $?
  $VG ./tests/test_vertexpatch -dm_brick_operator c0ip -dim 2 -degree 2 -cells 5,4 >"$OUT/valgrind_vertexpatch_c0ip.log" 2>&1
  result valgrind_vertexpatch_c0ip_2d $?
  $VG ./tutorials/ex2 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 1 -smoother avs >"$OUT/valgrind_ex2.log" 2>&1
  result valgrind_ex2_3d_avs $?
else
  result valgrind_available 1 "valgrind is not installed (scripts/setup-debian.sh installs it)"
fi
$EX1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 1 -mg_levels_pc_vertexpatch_local_solver dense -malloc_debug -malloc_dump >"$OUT/malloc_dump.log" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -qiE "allocated|malloc" "$OUT/malloc_dump.log"
result malloc_dump_clean $?

echo "== builds without warnings against PETSc 3.22 with CUDA (nvcc for cuda/*.cu; the bundle, when /opt/petsc-cuda is installed)"
if [ -f /opt/petsc-cuda/lib/petsc/conf/petscvariables ]; then
  tmp=$(mktemp -d)
  cp -r include src tutorials tests cuda makefile petsc-plugin.conf "$tmp"/
  make -C "$tmp" PETSC_DIR=/opt/petsc-cuda PETSC_ARCH= VP_OPT="-O2 -Werror" lib/libpetscvpatch.so tutorials/ex1 tutorials/ex2 tests/gpu_operator >"$OUT/build_petsc322.log" 2>&1 && grep -q nvcc "$OUT/build_petsc322.log"
  result build_petsc322_cuda_Werror $?
  rm -rf "$tmp"
else
  skipped=$((skipped + 1)); echo "SKIP build_petsc322_Werror (no /opt/petsc-cuda; bash ../shared/petsc-cuda/host-setup.sh installs it)"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
