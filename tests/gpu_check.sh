#!/usr/bin/env bash
# GPU check (make gpu-check, on a machine with a GPU and a CUDA PETSc): the CUDA operator kernels against the
# host (assembled matrices, random vectors), whole solves with VECCUDA vectors against host vectors (same
# iterations), compute-sanitizer memcheck and racecheck on the kernel checks and on a small mixed-precision solve.
# Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
OUT=${OUT_DIR:-tests/out-gpu}
mkdir -p "$OUT"
passed=0
failed=0
result() { if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "PASS $1${3:+ ($3)}"; else failed=$((failed + 1)); echo "FAIL $1${3:+ ($3)} - log: $OUT/$1.log"; fi; }
ctest() {
  local name=$1; shift
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$? n
  n=$(grep -c '^ok ' "$OUT/$name.log")
  if [ $rc = 0 ] && [ "$n" -gt 0 ] && ! grep -q '^FAIL' "$OUT/$name.log"; then result "$name" 0 "$n checks"; else result "$name" 1; fi
}
its_of() { awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations" && $(i + 1) ~ /^[0-9]+$/) print $(i + 1)}' "$1"; }

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "device: $(cat "$OUT/device.txt")"
ctest gpu_operator_2d_k1-8 ./tests/gpu_operator -dim 2 -kmin 1 -kmax 8 -refine 3
ctest gpu_operator_3d_k1-6 ./tests/gpu_operator -dim 3 -kmin 1 -kmax 6 -refine 1
ctest gpu_smoother_2d_k1-8 ./tests/gpu_smoother -dim 2 -kmin 1 -kmax 8 -refine 2
ctest gpu_smoother_3d_k1-5 ./tests/gpu_smoother -dim 3 -kmin 1 -kmax 5 -refine 1

# whole solves: VECCUDA (operator on the GPU) against host vectors, same iterations and L2 error
same() { # name program options...
  local name=$1 prog=$2; shift 2
  $prog "$@" >"$OUT/$name.host.log" 2>&1
  $prog "$@" -dm_vec_type cuda >"$OUT/$name.cuda.log" 2>&1
  local i1 i2 e1 e2
  i1=$(its_of "$OUT/$name.host.log"); i2=$(its_of "$OUT/$name.cuda.log")
  e1=$(awk '/^L2 error/{print $3}' "$OUT/$name.host.log"); e2=$(awk '/^L2 error/{print $3}' "$OUT/$name.cuda.log")
  # the L2 errors agree to the algebraic error left by the Krylov tolerance (1e-4 relative, or round-off)
  [ -n "$i1" ] && [ "$i1" = "$i2" ] && [ -n "$e1" ] && awk -v a="$e1" -v b="$e2" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(d <= 1e-4 * a + 1e-11)}'
  result "$name" $? "host $i1 its error $e1, cuda $i2 its error $e2"
}
same solve_ex1_3d_k3 ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 3 -smoother chebyshev
same solve_ex1_2d_k4_vp ./tutorials/ex1 -dm_brick_cells 2,2 -dm_brick_degree 4 -dm_brick_refine 5
same solve_ex1_3d_k3_vp ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0
same solve_ex1_3d_k3_vp_global ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0 -mg_levels_pc_vertexpatch_gpu_kernel global
same solve_ex2_2d_k3_mvs ./tutorials/ex2 -dm_brick_cells 2,2 -dm_brick_degree 3 -dm_brick_refine 4
same solve_ex2_3d_k2_avs ./tutorials/ex2 -dm_brick_cells 2,2,2 -smoother avs -dm_brick_dim 3 -dm_brick_degree 2 -dm_brick_refine 2

# mixed precision (V-cycle smoothing in float, FGMRES in double): the L2 error of the double run (seed 003 Table 7),
# on meshes and tolerances where the discretization error, not the algebraic one, is measured
mixed() { # name program options...
  local name=$1 prog=$2; shift 2
  $prog "$@" -dm_vec_type cuda >"$OUT/$name.double.log" 2>&1
  $prog "$@" -dm_vec_type cuda ${MIXED:--mg_levels_pc_vertexpatch_precision single} >"$OUT/$name.mixed.log" 2>&1
  local i1 i2 e1 e2
  i1=$(its_of "$OUT/$name.double.log"); i2=$(its_of "$OUT/$name.mixed.log")
  e1=$(awk '/^L2 error/{print $3}' "$OUT/$name.double.log"); e2=$(awk '/^L2 error/{print $3}' "$OUT/$name.mixed.log")
  [ -n "$e1" ] && [ -n "$e2" ] && awk -v a="$e1" -v b="$e2" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(d <= 1e-3 * a)}'
  result "$name" $? "double $i1 its error $e1, mixed $i2 its error $e2"
}
mixed mixed_ex1_3d_k3 ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch
mixed mixed_ex1_2d_k5 ./tutorials/ex1 -dm_brick_cells 2,2 -dm_brick_degree 5 -dm_brick_refine 2 -ksp_rtol 1e-12 -fmg 0 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch
# the same with the coarser levels' operators and transfers in float as well
MIXED="-mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single" mixed mixed_levels_ex1_3d_k3 ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch
MIXED="-mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single" mixed mixed_levels_ex2_2d_k3 ./tutorials/ex2 -dm_brick_cells 2,2 -ksp_type fgmres -ksp_rtol 1e-9 -dm_brick_degree 3 -dm_brick_refine 4 -rhs paper
mixed mixed_ex2_2d_k3 ./tutorials/ex2 -dm_brick_cells 2,2 -ksp_type fgmres -ksp_rtol 1e-9 -dm_brick_degree 3 -dm_brick_refine 4 -rhs paper

if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_operator -dim 3 -kmin 2 -kmax 3 -refine 0 >"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 3 -kmin 2 -kmax 2 -refine 0 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 2 -kmin 3 -kmax 3 -refine 1 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_degree 2 -dm_brick_refine 1 -fmg 0 \
        -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single >>"$OUT/sanitizer_$tool.log" 2>&1
    rc=$?
    result "compute_sanitizer_$tool" $rc "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer_$tool.log" | tail -1)"
  done
else
  result compute_sanitizer_available 1 "compute-sanitizer not found"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
