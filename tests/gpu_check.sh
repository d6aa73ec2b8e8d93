#!/usr/bin/env bash
# GPU check (make gpu-check, on a machine with a GPU and a CUDA PETSc): the CUDA operator kernels against the
# host (assembled matrices, random vectors), whole solves with VECCUDA vectors against host vectors (same
# iterations), compute-sanitizer memcheck and racecheck on the kernel checks and on a small mixed-precision solve.
# GPU_CHECK_SECTIONS: a subset of "kernels solves mixed ranks slabs dg hfem sanitizer setup defaults forest vtk bc memory" (default: all;
# "operator" and "smoother" run parts of kernels). Last line: "N passed, N failed".
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
want() { case " ${GPU_CHECK_SECTIONS:-all} " in *" all "* | *" $1 "*) return 0 ;; esac; return 1; }
its_of() { awk '/iterations/{for (i = 1; i < NF; i++) if ($i == "iterations" && $(i + 1) ~ /^[0-9]+$/) print $(i + 1)}' "$1"; }

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "device: $(cat "$OUT/device.txt")"
# (parts of it by name: operator, the operator and transfer kernels; smoother, the smoothing kernels' default variants)
if want kernels || want operator; then
ctest gpu_operator_2d_k1-8 ./tests/gpu_operator -dim 2 -kmin 1 -kmax 8 -refine 3
ctest gpu_operator_3d_k1-6 ./tests/gpu_operator -dim 3 -kmin 1 -kmax 6 -refine 1
fi
if want kernels || want smoother; then
ctest gpu_smoother_2d_k1-8 ./tests/gpu_smoother -dim 2 -kmin 1 -kmax 8 -refine 2
ctest gpu_smoother_3d_k1-8 ./tests/gpu_smoother -dim 3 -kmin 1 -kmax 8 -refine 1
fi
if want kernels; then
# c0ip on 2 cells per direction: the biharmonic's 1D matrices stay inside the patch cells there, so the shared kernel
# contracts the x-kinds one by one; on the finer grids above it reads each closure word once for the three of them
ctest gpu_smoother_3d_k2-5_two_cells ./tests/gpu_smoother -dim 3 -kmin 2 -kmax 5 -refine 0
# the 3D laplace shared kernel's variants (-pc_vertexpatch_gpu_lines): generic one-line, one and two lines with the terms
# combined, one line with the folded x step; the run above has the default choice per degree and precision
for lines in 0 1 2 3; do
  ctest gpu_smoother_3d_k1-8_lines$lines ./tests/gpu_smoother -dim 3 -kmin 1 -kmax 8 -refine 1 -pc_vertexpatch_gpu_lines $lines
done
# the grid capped at 2 blocks: every block runs several patches of a color in a row (the next patch's closure copied
# during the current one, the matrices kept from the previous patch, no barrier between two patches), every variant
for lines in -1 1 2 3; do
  ctest gpu_smoother_3d_k1-8_lines${lines}_2blocks ./tests/gpu_smoother -dim 3 -kmin 1 -kmax 8 -refine 1 -pc_vertexpatch_gpu_lines $lines -max_blocks 2
done
ctest gpu_smoother_2d_k1-8_2blocks ./tests/gpu_smoother -dim 2 -kmin 1 -kmax 8 -refine 2 -max_blocks 2
# meshes on which every block runs several patches of a color (47k and 5.6k per color against 12.7k and 4.2k patch slots
# at k = 3 and 5): the cp.async copy of the next patch's closure and the matrices kept from the previous patch
ctest gpu_smoother_3d_k3_several_patches_per_block ./tests/gpu_smoother -dim 3 -kmin 3 -kmax 3 -refine 5 -basic
ctest gpu_smoother_3d_k5_several_patches_per_block ./tests/gpu_smoother -dim 3 -kmin 5 -kmax 5 -refine 4 -basic
fi

# forest domains (p4est): operator, diagonal, transfers and the smoothing steps on device vectors, their fingerprints
# (partition-independent numbers) against the host's, on 1, 2 and 4 ranks (one GPU each where there are several)
if want forest; then
forest_gpu() { # name ranks options...
  local name=$1 n=$2 ok=0; shift 2
  mpirun -n "$n" --oversubscribe ./tests/test_forest "$@" >"$OUT/$name.host.log" 2>&1 || ok=1
  mpirun -n "$n" --oversubscribe ./tests/test_forest "$@" -dm_vec_type cuda >"$OUT/$name.log" 2>&1 || ok=1
  grep -q '^FAIL' "$OUT/$name.log" && ok=1
  grep '^fingerprint' "$OUT/$name.host.log" >"$OUT/$name.fp.host"
  grep '^fingerprint' "$OUT/$name.log" >"$OUT/$name.fp.gpu"
  # double: 1e-12 relative; the single-precision step: 1e-5
  # (the weighted sum to t of itself plus the norm: a sum that cancels to ~0 keeps rounding of the norm's size)
  awk 'NR == FNR { a[$2] = $3; b[$2] = $4; next } { t = ($2 ~ /single/) ? 1e-5 : 1e-12; da = $3 - a[$2]; db = $4 - b[$2]; if (da < 0) da = -da; if (db < 0) db = -db
       sa = a[$2] < 0 ? -a[$2] : a[$2]; if (!($2 in a) || da > t * (sa + b[$2] + 1) || db > t * (b[$2] + 1)) bad = 1; m++ } END { exit bad || m < 8 }' "$OUT/$name.fp.host" "$OUT/$name.fp.gpu" || ok=1
  result "$name" $ok "$(grep -c '^ok ' "$OUT/$name.log") checks, $(wc -l <"$OUT/$name.fp.gpu") fingerprints = host"
}
for n in 1 2 4; do
  forest_gpu gpu_forest_lshape_k3_np$n $n -dim 2 -k 3 -refine 3 -dm_brick_remove 1,1
  forest_gpu gpu_forest_fichera_k3_np$n $n -dim 3 -k 3 -refine 2 -dm_brick_remove 1,1,1
  forest_gpu gpu_forest_periodic_k2_np$n $n -dim 3 -k 2 -refine 2 -dm_brick_periodic 1,0,1
done
for k in 1 2 4 5 6 7 8; do forest_gpu gpu_forest_lshape_k${k}_np1 1 -dim 2 -k $k -refine 2 -dm_brick_remove 1,1; done
for k in 1 2 4 5; do forest_gpu gpu_forest_fichera_k${k}_np1 1 -dim 3 -k $k -refine $([ $k = 1 ] && echo 2 || echo 1) -dm_brick_remove 1,1,1; done
# the 3D steps of every thread layout of the box's kernels with table addressing (0: one line, shared memory; 1, 2: lines of
# the pair kernel; 3: its folded x step), k = 2..4 and on 2 ranks
for l in 0 1 2 3; do
  for k in 2 3 4; do forest_gpu gpu_forest_fichera_k${k}_lines${l}_np1 1 -dim 3 -k $k -refine 1 -dm_brick_remove 1,1,1 -step_pc_vertexpatch_gpu_lines $l; done
  forest_gpu gpu_forest_periodic_k3_lines${l}_np2 2 -dim 3 -k 3 -refine 1 -dm_brick_periodic 1,0,1 -step_pc_vertexpatch_gpu_lines $l
done
# sipg (DG) on forests: the cell kernel with the face table, the patch kernel with the forest's patches, the mixed patches'
# dense kernel, the DG forest transfer
for n in 1 2 4; do
  forest_gpu gpu_forest_sipg_lshape_k3_np$n $n -dim 2 -k 3 -refine 2 -dm_brick_remove 1,1 -dm_brick_operator sipg
  forest_gpu gpu_forest_sipg_fichera_k2_np$n $n -dim 3 -k 2 -refine 1 -dm_brick_remove 1,1,1 -dm_brick_operator sipg
  forest_gpu gpu_forest_sipg_periodic_k2_np$n $n -dim 3 -k 2 -refine 1 -dm_brick_periodic 1,0,1 -dm_brick_operator sipg
done
for k in 1 2 4 5 6 7 8; do forest_gpu gpu_forest_sipg_lshape_k${k}_np1 1 -dim 2 -k $k -refine 1 -dm_brick_remove 1,1 -dm_brick_operator sipg; done
for k in 1 3; do forest_gpu gpu_forest_sipg_fichera_k${k}_np1 1 -dim 3 -k $k -refine 1 -dm_brick_remove 1,1,1 -dm_brick_operator sipg; done
# c0ip on forests: the cell-and-face product, the patch step by pattern (fdm by class, the patterns' dense factors), on
# one rank also every patch solve and the colored sweep against the assembled operator (test_forest's reference)
for n in 1 2 4; do
  forest_gpu gpu_forest_c0ip_lshape_k3_np$n $n -dim 2 -k 3 -refine 2 -dm_brick_remove 1,1 -dm_brick_operator c0ip
  forest_gpu gpu_forest_c0ip_fichera_k2_np$n $n -dim 3 -k 2 -refine 1 -dm_brick_remove 1,1,1 -dm_brick_operator c0ip
  forest_gpu gpu_forest_c0ip_periodic_k2_np$n $n -dim 2 -k 2 -refine 1 -cells 3,3 -dm_brick_periodic 1,1 -dm_brick_operator c0ip
done
for k in 2 4 5 6 7 8; do forest_gpu gpu_forest_c0ip_lshape_k${k}_np1 1 -dim 2 -k $k -refine 1 -dm_brick_remove 1,1 -dm_brick_operator c0ip; done
for k in 3 4; do forest_gpu gpu_forest_c0ip_fichera_k${k}_np1 1 -dim 3 -k $k -refine 1 -dm_brick_remove 1,1,1 -dm_brick_operator c0ip; done
forest_gpu gpu_forest_c0ip_periodic_xz_hole_np1 1 -dim 3 -k 2 -refine 1 -cells 3,2,3 -dm_brick_periodic 1,0,1 -dm_brick_remove 1,0,1 -dm_brick_operator c0ip
# whole solves (ex5): the same iterations on the device as on the host, every rank count
for d in lshape fichera holes periodic sipg_lshape sipg_fichera sipg_periodic c0ip_lshape c0ip_fichera c0ip_periodic; do
  opts="-domain ${d#*_}"; [ "$d" != "${d#sipg_}" ] && opts="$opts -dm_brick_operator sipg"; [ "$d" != "${d#c0ip_}" ] && opts="$opts -dm_brick_operator c0ip -ksp_rtol 1e-8"
  ./tutorials/ex5 $opts >"$OUT/gpu_ex5_$d.host.log" 2>&1
  for n in 1 2 4; do
    mpirun -n $n --oversubscribe ./tutorials/ex5 $opts -dm_vec_type cuda >"$OUT/gpu_ex5_${d}_np$n.log" 2>&1
    h=$(its_of "$OUT/gpu_ex5_$d.host.log"); g=$(its_of "$OUT/gpu_ex5_${d}_np$n.log")
    grep -q "CONVERGED_RTOL" "$OUT/gpu_ex5_${d}_np$n.log" && [ -n "$g" ] && [ "$g" = "$h" ]
    result gpu_ex5_${d}_np$n $? "iterations host $h, GPU $g"
  done
done
if command -v compute-sanitizer >/dev/null; then
  compute-sanitizer --tool memcheck --error-exitcode 99 ./tests/test_forest -dim 3 -k 3 -refine 1 -dm_brick_remove 1,1,1 -dm_vec_type cuda >"$OUT/gpu_forest_memcheck.log" 2>&1
  result gpu_forest_memcheck $?
  compute-sanitizer --tool racecheck --error-exitcode 99 ./tests/test_forest -dim 2 -k 3 -refine 2 -dm_brick_remove 1,1 -dm_vec_type cuda >"$OUT/gpu_forest_racecheck.log" 2>&1
  result gpu_forest_racecheck $?
  compute-sanitizer --tool memcheck --error-exitcode 99 ./tests/test_forest -dim 3 -k 2 -refine 1 -dm_brick_remove 1,1,1 -dm_brick_operator sipg -dm_vec_type cuda >"$OUT/gpu_forest_sipg_memcheck.log" 2>&1
  result gpu_forest_sipg_memcheck $?
  compute-sanitizer --tool racecheck --error-exitcode 99 ./tests/test_forest -dim 2 -k 3 -refine 2 -dm_brick_remove 1,1 -dm_brick_operator sipg -dm_vec_type cuda >"$OUT/gpu_forest_sipg_racecheck.log" 2>&1
  result gpu_forest_sipg_racecheck $?
  compute-sanitizer --tool memcheck --error-exitcode 99 ./tests/test_forest -dim 3 -k 2 -refine 1 -dm_brick_remove 1,1,1 -dm_brick_operator c0ip -dm_vec_type cuda >"$OUT/gpu_forest_c0ip_memcheck.log" 2>&1
  result gpu_forest_c0ip_memcheck $?
  compute-sanitizer --tool racecheck --error-exitcode 99 ./tests/test_forest -dim 2 -k 3 -refine 1 -dm_brick_remove 1,1 -dm_brick_operator c0ip -dm_vec_type cuda >"$OUT/gpu_forest_c0ip_racecheck.log" 2>&1
  result gpu_forest_c0ip_racecheck $?
fi
fi

# device memory (-dm_brick_device_memory_check): a solve whose estimate exceeds the GPU's free memory stops in KSPSetUp with
# PETSc's out-of-memory error naming the bytes it needs and the bytes free, before the KSP's vectors and the hierarchy
# take device memory (no CUDA error): 3D Q3 on 6 x 6 x 7 cells refined 6 times, 1.79e9 DoFs (about 165 GB with CG), on
# one rank, and on 2 ranks sharing the GPU (each rank's half would fit alone: the ranks' needs are added). A solve that
# fits reports after it what it took against the estimate (-info): 10 iterations (the estimate's count), several KSPs,
# problems of 15M-90M DoFs (on small ones the CUDA libraries' workspaces, which the estimate leaves out, weigh in). A
# 64-bit PetscInt build also stops a rank's device vector past 2^31 - 1 entries at its creation (bench/gpu_largest.sh).
if want memory; then
oom_case() { # name ranks
  local name=$1 n=$2 ok=0
  mpirun -n "$n" --oversubscribe ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_cells 6,6,7 -dm_brick_refine 6 -rhs one -fmg 0 -ksp_type cg >"$OUT/$name.log" 2>&1 && ok=1
  grep -q "Out of GPU memory: the solve on this brick needs about" "$OUT/$name.log" && grep -q "bytes are free of" "$OUT/$name.log" || ok=1
  grep -qi "cuda error\|cudaErrorMemoryAllocation" "$OUT/$name.log" && ok=1
  result "$name" $ok "$(grep -o 'needs about [0-9.e+]* bytes' "$OUT/$name.log" | head -1), $(grep -o '[0-9.e+]* bytes are free' "$OUT/$name.log" | head -1)"
}
oom_case gpu_memory_too_large 1
oom_case gpu_memory_too_large_np2_shared 2
fits_case() { # name ranks program options... (the case's options after the defaults, so that they override them)
  local name=$1 n=$2 prog=$3 ok=0 ratio; shift 3
  mpirun -n "$n" --oversubscribe "$prog" -dm_vec_type cuda -info :dm -ksp_max_it 10 -ksp_converged_maxits -ksp_rtol 1e-30 "$@" >"$OUT/$name.log" 2>&1 || ok=1
  ratio=$(grep -o 'ratio [0-9.]*' "$OUT/$name.log" | head -1 | cut -d' ' -f2)
  # the estimate counts vectors only (not the kernels' tables): what the solve took is within 0.6 to 1.1 times it
  awk -v r="$ratio" 'BEGIN { exit !(r != "" && r >= 0.6 && r <= 1.1) }' || ok=1
  result "$name" $ok "taken / estimate $ratio"
}
fits_case gpu_memory_fits_fgmres_k3 1 ./tutorials/ex1 -fmg 0 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 5
fits_case gpu_memory_fits_cg_k3 1 ./tutorials/ex1 -fmg 0 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 5 -ksp_type cg
fits_case gpu_memory_fits_gcr_k3 1 ./tutorials/ex1 -fmg 0 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 5 -ksp_type gcr
fits_case gpu_memory_fits_richardson_k3 1 ./tutorials/ex1 -fmg 0 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 5 -ksp_type richardson -ksp_rtol 1e-9 -ksp_max_it 100
fits_case gpu_memory_fits_cg_k7_np2 2 ./tutorials/ex1 -fmg 0 -dm_brick_dim 3 -dm_brick_degree 7 -dm_brick_refine 4 -ksp_type cg
fits_case gpu_memory_fits_cg_2d_k4 1 ./tutorials/ex1 -fmg 0 -dm_brick_degree 4 -dm_brick_refine 9 -ksp_type cg
fits_case gpu_memory_fits_chebyshev_k3 1 ./tutorials/ex1 -fmg 0 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 5 -smoother chebyshev
fits_case gpu_memory_fits_chebyshev_richardson_k3 1 ./tutorials/ex1 -fmg 0 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 5 -smoother chebyshev -ksp_type richardson -ksp_rtol 1e-9 -ksp_max_it 100
fits_case gpu_memory_fits_sipg_k3 1 ./tutorials/ex3 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 5
fi

# whole solves: VECCUDA (operator on the GPU) against host vectors, same iterations and L2 error
# VTK output of device vectors: the file written from VECCUDA vectors is the host vectors' file byte for byte (the
# writer reads the vectors on the host; the host's file is checked by VTK itself in make test's vtk section)
if want vtk; then
vtk_gpu() { # name ranks test_vtk options...
  local name=$1 n=$2 ok=0; shift 2
  mpirun -n "$n" --oversubscribe ./tests/test_vtk "$@" -file "$OUT/$name.host.vtu" >"$OUT/$name.log" 2>&1 || ok=1
  mpirun -n "$n" --oversubscribe ./tests/test_vtk "$@" -dm_vec_type cuda -file "$OUT/$name.gpu.vtu" >>"$OUT/$name.log" 2>&1 || ok=1
  cmp "$OUT/$name.host.vtu" "$OUT/$name.gpu.vtu" >>"$OUT/$name.log" 2>&1 || ok=1
  result "$name" $ok "$(stat -c %s "$OUT/$name.gpu.vtu" 2>/dev/null) bytes, device file = host file"
}
vtk_gpu gpu_vtk_cg_3d_k3 1 -dim 3 -k 3 -refine 1
vtk_gpu gpu_vtk_cg_3d_k3_np2 2 -dim 3 -k 3 -refine 1
vtk_gpu gpu_vtk_fichera_dg_k3_np2 2 -dim 3 -k 3 -refine 1 -dm_brick_remove 1,1,1 -dm_brick_operator sipg
vtk_gpu gpu_vtk_lshape_k3_np2 2 -dim 2 -k 3 -refine 2 -dm_brick_remove 1,1 -forest_factor
vtk_gpu gpu_vtk_slabs_mpiio_np2 2 -dim 3 -k 2 -refine 2 -dm_brick_slabs 1 -dm_brick_vtk_mpiio
fi

# boundary data with device vectors (the lifting on the host, the solve on the GPU): the host's iterations and L2 error
if want bc; then
bc_gpu() { # name ranks program options...
  local name=$1 n=$2 ok=0 h g eh eg; shift 2
  mpirun -n "$n" --oversubscribe "$@" >"$OUT/$name.host.log" 2>&1 || ok=1
  mpirun -n "$n" --oversubscribe "$@" -dm_vec_type cuda >"$OUT/$name.log" 2>&1 || ok=1
  h=$(its_of "$OUT/$name.host.log"); g=$(its_of "$OUT/$name.log")
  eh=$(awk '/^L2 error/{print $3}' "$OUT/$name.host.log"); eg=$(awk '/^L2 error/{print $3}' "$OUT/$name.log")
  [ -n "$g" ] && [ "$g" = "$h" ] && awk -v a="$eh" -v b="$eg" 'BEGIN { if (a == "" || b == "") exit 1; d = a - b; if (d < 0) d = -d; exit !(d <= 1e-4 * a) }' || ok=1
  result "$name" $ok "iterations host $h, GPU $g; L2 error host $eh, GPU $eg"
}
bc_gpu gpu_bc_ex1_exp_3d 1 ./tutorials/ex1 -rhs exp -dm_brick_dim 3
bc_gpu gpu_bc_ex1_exp_np2 2 ./tutorials/ex1 -rhs exp -dm_brick_refine 3
bc_gpu gpu_bc_ex1_exp_lshape 1 ./tutorials/ex1 -rhs exp -dm_brick_cells 2,2 -dm_brick_remove 1,1 -dm_brick_refine 3
bc_gpu gpu_bc_ex5_singular_np2 2 ./tutorials/ex5 -bc singular
bc_gpu gpu_bc_ex2_exp_c0ip 1 ./tutorials/ex2 -rhs exp -dm_brick_refine 1
bc_gpu gpu_bc_ex2_exp_c0ip_3d_np2 2 ./tutorials/ex2 -rhs exp -dm_brick_dim 3
fi

if want solves; then
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
same solve_ex1_3d_k4_vp_mma ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 4 -dm_brick_refine 2 -fmg 0 -mg_levels_pc_vertexpatch_gpu_kernel mma
same solve_ex2_2d_k3_mvs ./tutorials/ex2 -dm_brick_cells 2,2 -dm_brick_degree 3 -dm_brick_refine 4
same solve_ex2_3d_k2_avs ./tutorials/ex2 -dm_brick_cells 2,2,2 -smoother avs -dm_brick_dim 3 -dm_brick_degree 2 -dm_brick_refine 2
same solve_ex2_3d_k3_mvs ./tutorials/ex2 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 2
same solve_ex2_3d_k3_mvs_global ./tutorials/ex2 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 2 -mg_levels_pc_vertexpatch_gpu_kernel global
fi

# mixed precision (V-cycle smoothing in float, FGMRES in double): the L2 error of the double run (seed 003 Table 7),
# on meshes and tolerances where the discretization error, not the algebraic one, is measured
if want mixed; then
mixed() { # name program options...
  local name=$1 prog=$2; shift 2
  $prog "$@" -dm_vec_type cuda >"$OUT/$name.double.log" 2>&1
  $prog "$@" -dm_vec_type cuda ${MIXED:--mg_levels_pc_vertexpatch_precision single} >"$OUT/$name.mixed.log" 2>&1
  local i1 i2 e1 e2
  i1=$(its_of "$OUT/$name.double.log"); i2=$(its_of "$OUT/$name.mixed.log")
  e1=$(awk '/^L2 error/{print $3}' "$OUT/$name.double.log"); e2=$(awk '/^L2 error/{print $3}' "$OUT/$name.mixed.log")
  # the two iterates differ by what the tolerance leaves of the algebraic error: c0ip (condition ~ h^-4) needs ERRTOL 1e-2
  [ -n "$e1" ] && [ -n "$e2" ] && grep -q "^Linear solve converged" "$OUT/$name.double.log" && grep -q "^Linear solve converged" "$OUT/$name.mixed.log" &&
    awk -v a="$e1" -v b="$e2" -v tol="${ERRTOL:-1e-3}" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(d <= tol * a)}'
  result "$name" $? "double $i1 its error $e1, mixed $i2 its error $e2"
}
mixed mixed_ex1_3d_k3 ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch -dm_brick_coarsen_below 0
mixed mixed_ex1_2d_k5 ./tutorials/ex1 -dm_brick_cells 2,2 -dm_brick_degree 5 -dm_brick_refine 2 -ksp_rtol 1e-12 -fmg 0 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch -dm_brick_coarsen_below 0
# the same with the coarser levels' operators and transfers in float as well
MIXED="-mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single" mixed mixed_levels_ex1_3d_k3 ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_brick_dim 3 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0 -mg_coarse_ksp_type richardson -mg_coarse_ksp_max_it 1 -mg_coarse_pc_type vertexpatch -dm_brick_coarsen_below 0
ERRTOL=1e-2 MIXED="-mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single" mixed mixed_levels_ex2_2d_k3 ./tutorials/ex2 -dm_brick_cells 2,2 -ksp_type fgmres -ksp_rtol 1e-9 -dm_brick_degree 3 -dm_brick_refine 4 -rhs paper
ERRTOL=1e-2 mixed mixed_ex2_2d_k3 ./tutorials/ex2 -dm_brick_cells 2,2 -ksp_type fgmres -ksp_rtol 1e-9 -dm_brick_degree 3 -dm_brick_refine 4 -rhs paper
fi

# ---- several ranks (one per GPU where the machine has several; PETSc puts rank r on GPU r mod the GPU count) ----
if want ranks; then
MPIRUN=${MPIRUN:-mpirun}
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# rank counts of the several-rank checks: 1-3, and 4 where the machine has four GPUs
RANKS_LIST=${RANKS_LIST:-$([ "$NGPU" -ge 4 ] && echo "1 2 3 4" || echo "1 2 3")}
echo "several ranks: $NGPU GPU(s) on this machine; rank counts $RANKS_LIST"
# fingerprints of one application of each operation (tests/test_ranks): every rank count and the GPU give the
# vectors of the host on one rank (relative tol; the dot product relative to the norm)
fpcmp() { # ref other tol
  paste <(grep ^fingerprint "$1") <(grep ^fingerprint "$2") | awk -v tol="$3" '
    { n++; if ($2 != $8) bad = 1; a = $4; b = $10; s = a < 0 ? -a : a; d = a - b; if (d < 0) d = -d; if (d > tol * s) bad = 1
      t = $6 < 0 ? -$6 : $6; if (t < s) t = s; d = $6 - $12; if (d < 0) d = -d; if (d > tol * t) bad = 1 }
    END { exit (bad || n != 5) }'
}
fprun() { # log ranks options...
  local log=$1 n=$2; shift 2
  if [ "$n" = 1 ]; then ./tests/test_ranks "$@" >"$log" 2>&1; else $MPIRUN -n "$n" ./tests/test_ranks "$@" >"$log" 2>&1; fi
}
fpgpu() { # name tol options...
  local name=$1 tol=$2 ok=0 n; shift 2
  fprun "$OUT/$name.host1.log" 1 "$@" || ok=1
  for n in $RANKS_LIST; do
    fprun "$OUT/$name.cuda$n.log" $n -dm_vec_type cuda "$@" || ok=1
    fpcmp "$OUT/$name.host1.log" "$OUT/$name.cuda$n.log" "$tol" || ok=1
  done
  result "$name" $ok "GPU on $RANKS_LIST ranks = host on 1 rank, 5 operations to $tol"
}
fpgpu ranks_fp_laplace_3d_k3 1e-12 -dim 3 -degree 3 -cells 2,2,2 -refine 2
fpgpu ranks_fp_laplace_3d_k3_global 1e-12 -dim 3 -degree 3 -cells 2,2,2 -refine 2 -pc_vertexpatch_gpu_kernel global -pc_vertexpatch_residual global
fpgpu ranks_fp_laplace_2d_k4 1e-12 -dim 2 -degree 4 -cells 3,2 -refine 3
fpgpu ranks_fp_laplace_3d_k2_agglomerated 1e-12 -dim 3 -degree 2 -cells 2,2,2 -refine 1
fpgpu ranks_fp_c0ip_3d_k2 1e-12 -dm_brick_operator c0ip -dim 3 -degree 2 -cells 2,2,2 -refine 2
fpgpu ranks_fp_c0ip_2d_k3 1e-12 -dm_brick_operator c0ip -dim 2 -degree 3 -cells 3,3 -refine 2
fpgpu ranks_fp_laplace_3d_k3_single 1e-5 -dim 3 -degree 3 -cells 2,2,2 -refine 2 -pc_vertexpatch_precision single
# the ghost exchange of device vectors: GPU to GPU through CUDA IPC required (ipc: an error if it cannot serve), and
# PETSc's PetscSF through the host (mpi); the default (auto) is IPC on one host, in every check above
fpgpu ranks_fp_laplace_3d_k3_exchange_ipc 1e-12 -dim 3 -degree 3 -cells 2,2,2 -refine 2 -dm_brick_gpu_exchange ipc
fpgpu ranks_fp_laplace_3d_k2_agglomerated_exchange_ipc 1e-12 -dim 3 -degree 2 -cells 2,2,2 -refine 1 -dm_brick_gpu_exchange ipc
fpgpu ranks_fp_c0ip_3d_k2_exchange_ipc 1e-12 -dm_brick_operator c0ip -dim 3 -degree 2 -cells 2,2,2 -refine 2 -dm_brick_gpu_exchange ipc
fpgpu ranks_fp_laplace_3d_k3_exchange_mpi 1e-12 -dim 3 -degree 3 -cells 2,2,2 -refine 2 -dm_brick_gpu_exchange mpi
# device vectors take slabs where they cut little more (-dm_brick_slabs, chosen by default): the process grid too
fpgpu ranks_fp_laplace_3d_k3_grid 1e-12 -dim 3 -degree 3 -cells 2,2,2 -refine 2 -dm_brick_slabs 0
fpgpu ranks_fp_c0ip_3d_k2_grid 1e-12 -dm_brick_operator c0ip -dim 3 -degree 2 -cells 2,2,2 -refine 2 -dm_brick_slabs 0
$MPIRUN -n 2 compute-sanitizer --tool memcheck --error-exitcode 9 ./tests/test_ranks -dm_vec_type cuda -dim 3 -degree 3 -cells 2,2,2 -refine 1 -dm_brick_gpu_exchange ipc >"$OUT/ranks_exchange_memcheck.log" 2>&1
ok=$?
grep -q "ERROR SUMMARY: 0 errors" "$OUT/ranks_exchange_memcheck.log" || ok=1
result ranks_exchange_ipc_memcheck $ok "compute-sanitizer memcheck, 2 ranks, CUDA IPC exchange: $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/ranks_exchange_memcheck.log") of 2 ranks clean"

# whole solves with VECCUDA on 1, 2 and 3 ranks: the iterations and L2 error of one rank
# true residual ||b - A x||/||b|| as ex1 ("... |b| E") and ex2 ("... |b| = E)") print it
true_of() { awk '/true residual/{for (i = 1; i <= NF; i++) if ($i == "|b" ) { v = $(i + 4); if (v == "=") v = $(i + 5); gsub(/[()]/, "", v); print v; exit }}' "$1"; }
gpuranks() { # name program options...  (converged, with the true residual under the tutorial's default rtol)
  local name=$1 prog=$2 n ok=0 its="" first="" e1="" rtol=1e-9; shift 2
  [ "$prog" = ./tutorials/ex2 ] && rtol=1e-8
  for n in $RANKS_LIST; do
    if [ $n = 1 ]; then $prog -dm_vec_type cuda "$@" >"$OUT/$name.n$n.log" 2>&1; else $MPIRUN -n $n $prog -dm_vec_type cuda "$@" >"$OUT/$name.n$n.log" 2>&1; fi || ok=1
    grep -q "^Linear solve converged" "$OUT/$name.n$n.log" || ok=1
    awk -v t="$(true_of "$OUT/$name.n$n.log")" -v r=$rtol 'BEGIN { exit !(t != "" && t + 0 <= r + 0) }' || ok=1
    its="$its $(its_of "$OUT/$name.n$n.log")"
    [ -z "$first" ] && first=$(its_of "$OUT/$name.n$n.log") && e1=$(awk '/^L2 error/{print $3}' "$OUT/$name.n$n.log")
    [ "$(its_of "$OUT/$name.n$n.log")" = "$first" ] || ok=1
    # same iterations; the L2 errors differ by rounding in the partition-dependent sums (1e-6 of it at 2D Q4, where the
    # discretization error 1e-10 is close to what the tolerance leaves)
    awk -v a="$e1" -v b="$(awk '/^L2 error/{print $3}' "$OUT/$name.n$n.log")" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a == "" || d <= 1e-4 * a)}' || ok=1
  done
  result "$name" $ok "iterations on $RANKS_LIST ranks:$its, L2 error $e1, true residual <= $rtol"
}
gpuranks ranks_solve_ex1_3d_k3 ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0
gpuranks ranks_solve_ex1_3d_k3_mixed ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0 -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single
gpuranks ranks_solve_ex1_2d_k4_additive_cg ./tutorials/ex1 -dm_brick_cells 2,2 -dm_brick_degree 4 -dm_brick_refine 4 -fmg 0 -mg_levels_pc_vertexpatch_type additive -mg_levels_ksp_max_it 2 -ksp_type cg -ksp_norm_type unpreconditioned
gpuranks ranks_solve_ex1_chebyshev ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 3 -smoother chebyshev
gpuranks ranks_solve_ex2_2d_k3 ./tutorials/ex2 -dm_brick_cells 2,2 -dm_brick_degree 3 -dm_brick_refine 4
# the finest level agglomerated too (fewer cells than ranks): the idle ranks follow every reduction
gpuranks ranks_solve_ex1_3d_all_agglomerated ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 1,1,1 -dm_brick_refine 1 -fmg 0
gpuranks ranks_solve_ex2_3d_k2_all_agglomerated ./tutorials/ex2 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 1
gpuranks ranks_solve_ex2_3d_k2_avs ./tutorials/ex2 -smoother avs -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 2
# the overlap of each color's ghost exchange with the patches away from the shared layers (split schedule): on 2 GPUs
# -ksp_view counts the patches before the exchange, and the solve gives one GPU's iterations and L2 error
$MPIRUN -n 2 ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,3,3 -dm_brick_refine 3 -fmg 0 -ksp_view >"$OUT/ranks_split_overlap.n2.log" 2>&1
./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,3,3 -dm_brick_refine 3 -fmg 0 >"$OUT/ranks_split_overlap.n1.log" 2>&1
read -r nshared npatch <<<"$(awk '/several ranks: [0-9]+ of the [0-9]+ patches/ {a = $3; b = $6} END {print a, b}' "$OUT/ranks_split_overlap.n2.log")"
[ -n "$nshared" ] && [ "$nshared" -gt 0 ] && [ "$nshared" -lt "$npatch" ] && [ "$(its_of "$OUT/ranks_split_overlap.n2.log")" = "$(its_of "$OUT/ranks_split_overlap.n1.log")" ] &&
  awk -v a="$(awk '/^L2 error/{print $3}' "$OUT/ranks_split_overlap.n1.log")" -v b="$(awk '/^L2 error/{print $3}' "$OUT/ranks_split_overlap.n2.log")" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-4 * a)}'
result ranks_split_overlap_gpu $? "finest level, first of 2 GPUs: $nshared of $npatch patches before the exchange; iterations $(its_of "$OUT/ranks_split_overlap.n2.log") (1 GPU: $(its_of "$OUT/ranks_split_overlap.n1.log"))"
# the brick's device vectors on several ranks carry no host copy (VECMPICUDA's own creation pins and zeroes one of the
# whole local size: 0.3 s per vector each way at 2.5e8 DoFs a GPU, most of the several-GPU set-up before 2026-11-26)
$MPIRUN -n 2 ./tests/test_ranks -dm_vec_type cuda -dim 3 -degree 3 -refine 2 >"$OUT/ranks_vec_no_host_copy.log" 2>&1 &&
  [ "$(grep -c '^new global vector on rank [01]: offload mask PETSC_OFFLOAD_GPU, pinned host copy 0$' "$OUT/ranks_vec_no_host_copy.log")" = 2 ] &&
  [ "$(grep -c '^duplicated global vector on rank [01]: offload mask PETSC_OFFLOAD_GPU, pinned host copy 0, DM the brick$' "$OUT/ranks_vec_no_host_copy.log")" = 2 ]
result ranks_vec_no_host_copy $? "2 GPUs: $(grep '^new global vector\|^duplicated global vector' "$OUT/ranks_vec_no_host_copy.log" | tr '\n' ' ')"
# the product of the sweep's result reads the sweep's ghosted vector with only its ghosts refreshed (the local mirror:
# one copy of the level less in PCMG's residual); it must equal the product of a copy of the result (ordinary path)
$MPIRUN -n 2 ./tests/test_ranks -dm_vec_type cuda -dim 3 -degree 3 -refine 2 -dm_brick_slabs 0 -info :dm >"$OUT/ranks_local_mirror.log" 2>&1 &&
  grep -q "the product reads the sweep's ghosted vector" "$OUT/ranks_local_mirror.log" &&
  awk '/^product after the step against the product of a copy/ { n++; if ($NF + 0 > 1e-13) bad = 1 } END { exit (bad || n != 1) }' "$OUT/ranks_local_mirror.log"
result ranks_local_mirror $? "2 GPUs: $(grep '^product after the step' "$OUT/ranks_local_mirror.log")"
# the coarse solve on the GPU (PCDENSEINVERSE, ex1's default with device vectors; inside PCREDUNDANT on several ranks)
# against PETSc's sparse LU on the host: the same V-cycles and true residual, and -ksp_view says where the inverse is
# and (several ranks: PCREDUNDANT's host vectors) that the applies copied their values to the GPU and back
for n in $RANKS_LIST; do
  [ $n -gt 2 ] && continue
  c=$([ $n = 1 ] && echo -mg_coarse_pc_type || echo -mg_coarse_redundant_pc_type)
  E="-dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,3 -dm_brick_degree 5 -dm_brick_refine 2 -fmg 0 -rhs one"
  $MPIRUN -n $n ./tutorials/ex1 $E -ksp_view >"$OUT/ranks_coarse_dense.n$n.log" 2>&1 &&
    $MPIRUN -n $n ./tutorials/ex1 $E $c lu >"$OUT/ranks_coarse_lu.n$n.log" 2>&1 &&
    grep -q "unknowns on the GPU (cuSOLVER potrf + potri" "$OUT/ranks_coarse_dense.n$n.log" &&
    { if [ $n = 1 ]; then ! grep -q "had host vectors" "$OUT/ranks_coarse_dense.n$n.log"; else grep -q "applies so far had host vectors: their values went to the GPU and back" "$OUT/ranks_coarse_dense.n$n.log"; fi; } &&
    [ -n "$(its_of "$OUT/ranks_coarse_dense.n$n.log")" ] && [ "$(its_of "$OUT/ranks_coarse_dense.n$n.log")" = "$(its_of "$OUT/ranks_coarse_lu.n$n.log")" ] &&
    awk -v a="$(true_of "$OUT/ranks_coarse_dense.n$n.log")" -v b="$(true_of "$OUT/ranks_coarse_lu.n$n.log")" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1e-3 * b)}'
  result ranks_coarse_denseinverse_gpu_n$n $? "$(grep -m1 -o '[0-9]* unknowns on the GPU' "$OUT/ranks_coarse_dense.n$n.log"); iterations $(its_of "$OUT/ranks_coarse_dense.n$n.log") (LU: $(its_of "$OUT/ranks_coarse_lu.n$n.log")), true residual $(true_of "$OUT/ranks_coarse_dense.n$n.log") (LU: $(true_of "$OUT/ranks_coarse_lu.n$n.log"))"
done
# no silent host path: an option without a device implementation stops with a message naming it
$MPIRUN -n 2 ./tutorials/ex1 -dm_vec_type cuda -mg_levels_pc_vertexpatch_local_solver dense >"$OUT/nohost_dense.log" 2>&1
[ $? != 0 ] && grep -q "pc_vertexpatch_local_solver dense has no GPU implementation" "$OUT/nohost_dense.log"
result ranks_no_host_path_dense $?
./tutorials/ex1 -dm_vec_type cuda -mg_levels_pc_vertexpatch_schedule batched >"$OUT/nohost_batched.log" 2>&1
[ $? != 0 ] && grep -q "pc_vertexpatch_schedule batched has no GPU implementation" "$OUT/nohost_batched.log"
result ranks_no_host_path_batched $?
# what crosses PCIe in a solve on 2 ranks: -log_view's copy counts of KSPSolve. With the IPC exchange (default) the ghost
# messages stay on the GPUs: fewer than 10 host<->device copies per V-cycle (one rank makes 2-3), and the device
# exchange ran (BrickGPUExchange); through PetscSF (mpi) every ghost message is two copies (printed for comparison).
copies_of() { awk '$1 == "KSPSolve" {print $(NF-4), $(NF-3), $(NF-2), $(NF-1)}' "$1"; }
for exch in auto mpi; do
  $MPIRUN -n 2 ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 4 -fmg 0 -dm_brick_gpu_exchange $exch -log_view -log_view_gpu_time >"$OUT/ranks_log_view_$exch.log" 2>&1
done
ok=0
grep -q "^Linear solve converged" "$OUT/ranks_log_view_auto.log" || ok=1
grep -q "^Linear solve converged" "$OUT/ranks_log_view_mpi.log" || ok=1
[ "$(its_of "$OUT/ranks_log_view_auto.log")" = "$(its_of "$OUT/ranks_log_view_mpi.log")" ] || ok=1
read -r h2d h2dmb d2h d2hmb <<<"$(copies_of "$OUT/ranks_log_view_auto.log")"
awk -v a="$h2d" -v b="$d2h" -v i="$(its_of "$OUT/ranks_log_view_auto.log")" 'BEGIN { exit !(i > 0 && a + 0 < 10 * i && b + 0 < 10 * i) }' || ok=1
nex=$(awk '$1 == "BrickGPUExchange" {s += $2} END {print s + 0}' "$OUT/ranks_log_view_auto.log")
[ "${nex:-0}" -gt 0 ] || ok=1
result ranks_log_view $ok "$(its_of "$OUT/ranks_log_view_auto.log") iterations both; KSPSolve copies (h2d n, MB, d2h n, MB): IPC $h2d $h2dmb $d2h $d2hmb ($nex device exchanges), PetscSF $(copies_of "$OUT/ranks_log_view_mpi.log")"
fi

# ---- slabs (-dm_brick_slabs): the ranks split along z, the global device vectors stored inside the ghosted local
# arrays (the sweep and the products skip the copies of the level). Fingerprints of every operation on 2 and 4 GPUs
# against the host on one rank; whole solves with one GPU's iterations; the vectors made without a host copy; the
# in-place global-to-local in use (-info); compute-sanitizer memcheck of a 2-rank run ----
if want slabs; then
MPIRUN=${MPIRUN:-mpirun}
NGPU=${NGPU:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
SLAB_RANKS=$([ "$NGPU" -ge 4 ] && echo "2 4" || echo "2")
slabfp() { # name tol options...
  local name=$1 tol=$2 ok=0 n; shift 2
  ./tests/test_ranks "$@" >"$OUT/$name.host1.log" 2>&1 || ok=1
  for n in $SLAB_RANKS; do
    $MPIRUN -n $n ./tests/test_ranks -dm_vec_type cuda -dm_brick_slabs "$@" >"$OUT/$name.cuda$n.log" 2>&1 || ok=1
    paste <(grep ^fingerprint "$OUT/$name.host1.log") <(grep ^fingerprint "$OUT/$name.cuda$n.log") | awk -v tol="$tol" '
      { n++; if ($2 != $8) bad = 1; a = $4; b = $10; s = a < 0 ? -a : a; d = a - b; if (d < 0) d = -d; if (d > tol * s) bad = 1
        t = $6 < 0 ? -$6 : $6; if (t < s) t = s; d = $6 - $12; if (d < 0) d = -d; if (d > tol * t) bad = 1 }
      END { exit (bad || n != 5) }' || ok=1
    grep -Eq "as (1 x )+$n, .*global vectors stored in the ghosted local arrays" "$OUT/$name.cuda$n.log" || ok=1
  done
  result "$name" $ok "slabs on $SLAB_RANKS GPUs = host on 1 rank, 5 operations to $tol"
}
slabfp slabs_fp_laplace_3d_k3 1e-12 -dim 3 -degree 3 -cells 2,2,4 -refine 2
slabfp slabs_fp_laplace_3d_k3_single 1e-5 -dim 3 -degree 3 -cells 2,2,4 -refine 2 -pc_vertexpatch_precision single
slabfp slabs_fp_c0ip_3d_k2 1e-12 -dm_brick_operator c0ip -dim 3 -degree 2 -cells 2,2,4 -refine 2
slabfp slabs_fp_sipg_3d_k3_dirichlet 1e-12 -dm_brick_operator sipg -dim 3 -degree 3 -cells 2,2,4 -refine 1 -pc_vertexpatch_local_space dirichlet
slabfp slabs_fp_sipg_3d_k3_full 1e-12 -dm_brick_operator sipg -dim 3 -degree 3 -cells 2,2,4 -refine 1 -pc_vertexpatch_local_space full
slabfp slabs_fp_laplace_2d_k4 1e-12 -dim 2 -degree 4 -cells 2,4 -refine 3
slabsolve() { # name program options...
  local name=$1 prog=$2 ok=0 n its="" first="" rtol=1e-9; shift 2
  [ "$prog" != ./tutorials/ex1 ] && rtol=1e-8
  for n in 1 $SLAB_RANKS; do
    $MPIRUN -n $n $prog -dm_vec_type cuda -dm_brick_slabs "$@" >"$OUT/$name.n$n.log" 2>&1 || ok=1
    grep -q "^Linear solve converged" "$OUT/$name.n$n.log" || ok=1
    t=$(awk '/true residual/{for (i = 1; i <= NF; i++) if ($i == "|b" ) { v = $(i + 4); if (v == "=") v = $(i + 5); gsub(/[()]/, "", v); print v; exit }}' "$OUT/$name.n$n.log")
    awk -v t="$t" -v r=$rtol 'BEGIN { exit !(t != "" && t + 0 <= r + 0) }' || ok=1
    its="$its $(its_of "$OUT/$name.n$n.log")"
    [ -z "$first" ] && first=$(its_of "$OUT/$name.n$n.log")
    [ "$(its_of "$OUT/$name.n$n.log")" = "$first" ] || ok=1
  done
  result "$name" $ok "iterations on 1 $SLAB_RANKS GPUs:$its, true residual <= $rtol"
}
slabsolve slabs_solve_ex1_3d_k3_mixed ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,4 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0 -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single
slabsolve slabs_solve_ex1_3d_k3_richardson ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,4 -dm_brick_degree 3 -dm_brick_refine 3 -fmg 0 -rhs one -ksp_type richardson
slabsolve slabs_solve_ex2_3d_k2 ./tutorials/ex2 -dm_brick_dim 3 -dm_brick_cells 2,2,4 -dm_brick_degree 2 -dm_brick_refine 2
slabsolve slabs_solve_ex3_3d_k3 ./tutorials/ex3 -dm_brick_dim 3 -dm_brick_cells 2,2,4 -dm_brick_degree 3 -dm_brick_refine 2 -local_space dirichlet
slabsolve slabs_solve_ex3_3d_k3_full ./tutorials/ex3 -dm_brick_dim 3 -dm_brick_cells 2,2,4 -dm_brick_degree 3 -dm_brick_refine 2 -local_space full
$MPIRUN -n 2 ./tests/test_ranks -dm_vec_type cuda -dm_brick_slabs -dim 3 -degree 3 -cells 2,2,4 -refine 2 -info :dm >"$OUT/slabs_vec.log" 2>&1 &&
  [ "$(grep -c '^new global vector on rank [01]: offload mask PETSC_OFFLOAD_GPU, pinned host copy 0$' "$OUT/slabs_vec.log")" = 2 ] &&
  [ "$(grep -c '^duplicated global vector on rank [01]: offload mask PETSC_OFFLOAD_GPU, pinned host copy 0, DM the brick$' "$OUT/slabs_vec.log")" = 2 ] &&
  grep -q "^ok VecDuplicateVecs(): each vector its own storage" "$OUT/slabs_vec.log" &&
  grep -q "global vectors stored in place (-dm_brick_slabs): DMGlobalToLocal() into their own local vectors fetches the ghosts only" "$OUT/slabs_vec.log" &&
  ! grep -q "no longer has its storage there" "$OUT/slabs_vec.log"
result slabs_vec_in_place $? "2 GPUs: no host copy, duplicates their own storage, the in-place global-to-local in use"
# the default with device vectors: slabs where they cut at most twice the grid of smallest cut (here 1.5 times)
$MPIRUN -n 4 ./tests/test_ranks -dm_vec_type cuda -dim 3 -degree 3 -cells 2,2,2 -refine 2 >"$OUT/slabs_default.log" 2>&1 &&
  grep -q "as 1 x 1 x 4, .*slabs (-dm_brick_slabs, chosen for device vectors): global vectors stored in the ghosted local arrays" "$OUT/slabs_default.log" &&
  ./tests/test_ranks -dim 3 -degree 3 -cells 2,2,2 -refine 2 >"$OUT/slabs_default.host1.log" 2>&1 &&
  $MPIRUN -n 4 ./tests/test_ranks -dim 3 -degree 3 -cells 2,2,2 -refine 2 >"$OUT/slabs_default.host4.log" 2>&1 && grep -q "as 1 x 2 x 2, " "$OUT/slabs_default.host4.log" && ! grep -q "slabs (-dm_brick_slabs" "$OUT/slabs_default.host4.log"
result slabs_default $? "4 ranks, 8 x 8 x 8 cells: device vectors 1 x 1 x 4 slabs in place, host vectors the 1 x 2 x 2 grid"
$MPIRUN -n 2 compute-sanitizer --tool memcheck --error-exitcode 9 ./tests/test_ranks -dm_vec_type cuda -dm_brick_slabs -dim 3 -degree 3 -cells 2,2,4 -refine 1 >"$OUT/slabs_memcheck.log" 2>&1
ok=$?
[ "$(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/slabs_memcheck.log")" = 2 ] || ok=1
result slabs_memcheck $ok "compute-sanitizer memcheck, 2 ranks, slabs: $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/slabs_memcheck.log") of 2 ranks clean"
fi

# ---- DG (sipg): fingerprints of each operation against the host (each local space, double and float), solves with the
# host's iterations on 1-3 ranks, mixed precision, compute-sanitizer ----
if want dg; then
MPIRUN=${MPIRUN:-mpirun}
if ! type fpgpu >/dev/null 2>&1; then
  fpcmp() { paste <(grep ^fingerprint "$1") <(grep ^fingerprint "$2") | awk -v tol="$3" '
    { n++; if ($2 != $8) bad = 1; a = $4; b = $10; s = a < 0 ? -a : a; d = a - b; if (d < 0) d = -d; if (d > tol * s) bad = 1
      t = $6 < 0 ? -$6 : $6; if (t < s) t = s; d = $6 - $12; if (d < 0) d = -d; if (d > tol * t) bad = 1 }
    END { exit (bad || n != 5) }'; }
  fprun() { local log=$1 n=$2; shift 2; if [ "$n" = 1 ]; then ./tests/test_ranks "$@" >"$log" 2>&1; else $MPIRUN -n "$n" ./tests/test_ranks "$@" >"$log" 2>&1; fi; }
  fpgpu() { local name=$1 tol=$2 ok=0 n; shift 2
    fprun "$OUT/$name.host1.log" 1 "$@" || ok=1
    for n in 1 2 3; do fprun "$OUT/$name.cuda$n.log" $n -dm_vec_type cuda "$@" || ok=1; fpcmp "$OUT/$name.host1.log" "$OUT/$name.cuda$n.log" "$tol" || ok=1; done
    result "$name" $ok "GPU on 1, 2, 3 ranks = host on 1 rank, 5 operations to $tol"; }
fi
fpgpu dg_fp_3d_k3_full 1e-12 -dm_brick_operator sipg -dim 3 -degree 3 -cells 2,2,2 -refine 2
fpgpu dg_fp_3d_k3_dirichlet 1e-12 -dm_brick_operator sipg -dim 3 -degree 3 -cells 2,2,2 -refine 2 -pc_vertexpatch_local_space dirichlet
fpgpu dg_fp_3d_k4_clamped 1e-12 -dm_brick_operator sipg -dim 3 -degree 4 -cells 2,2,2 -refine 1 -pc_vertexpatch_local_space clamped
fpgpu dg_fp_2d_k5_dirichlet 1e-12 -dm_brick_operator sipg -dim 2 -degree 5 -cells 3,2 -refine 3 -pc_vertexpatch_local_space dirichlet
fpgpu dg_fp_3d_k2_agglomerated 1e-12 -dm_brick_operator sipg -dim 3 -degree 2 -cells 2,2,2 -refine 1
fpgpu dg_fp_3d_k7_full 1e-12 -dm_brick_operator sipg -dim 3 -degree 7 -cells 2,2,2 -refine 1
# float patch work exists on the GPU only: against the host's double on one rank
dgsingle() { # name options...
  local name=$1 ok=0 n; shift
  fprun "$OUT/$name.host1.log" 1 "$@" || ok=1
  for n in 1 2 3; do fprun "$OUT/$name.cuda$n.log" $n -dm_vec_type cuda -pc_vertexpatch_precision single "$@" || ok=1; fpcmp "$OUT/$name.host1.log" "$OUT/$name.cuda$n.log" 1e-5 || ok=1; done
  result "$name" $ok "GPU float smoothing on 1, 2, 3 ranks = host double on 1 rank, 5 operations to 1e-5"
}
dgsingle dg_fp_3d_k3_dirichlet_single -dm_brick_operator sipg -dim 3 -degree 3 -cells 2,2,2 -refine 2 -pc_vertexpatch_local_space dirichlet
dgsingle dg_fp_3d_k4_full_single -dm_brick_operator sipg -dim 3 -degree 4 -cells 2,2,2 -refine 1
# whole solves: the host's iterations and L2 error on the GPU, 1-3 ranks
dgsame() { # name options...  (ex3 on the host and on the GPU with 1, 2, 3 ranks)
  local name=$1 ok=0 n i0 e0 its=""; shift
  ./tutorials/ex3 "$@" >"$OUT/$name.host.log" 2>&1 || ok=1
  i0=$(its_of "$OUT/$name.host.log"); e0=$(awk '/^L2 error/{print $3}' "$OUT/$name.host.log")
  for n in 1 2 3; do
    if [ $n = 1 ]; then ./tutorials/ex3 -dm_vec_type cuda "$@" >"$OUT/$name.cuda$n.log" 2>&1; else $MPIRUN -n $n ./tutorials/ex3 -dm_vec_type cuda "$@" >"$OUT/$name.cuda$n.log" 2>&1; fi || ok=1
    its="$its $(its_of "$OUT/$name.cuda$n.log")"
    [ "$(its_of "$OUT/$name.cuda$n.log")" = "$i0" ] || ok=1
    grep -q "^Linear solve converged" "$OUT/$name.cuda$n.log" || ok=1
    awk -v a="$e0" -v b="$(awk '/^L2 error/{print $3}' "$OUT/$name.cuda$n.log")" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1e-4 * a)}' || ok=1
  done
  [ -n "$i0" ] || ok=1
  result "$name" $ok "host $i0 its error $e0; GPU on 1..3 ranks:$its"
}
dgsame dg_solve_3d_k3_full -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 2
dgsame dg_solve_3d_k3_dirichlet -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 2 -local_space dirichlet
dgsame dg_solve_3d_k4_clamped -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 4 -dm_brick_refine 2 -local_space clamped
dgsame dg_solve_2d_k3_additive_cg -dm_brick_cells 2,2 -dm_brick_degree 3 -dm_brick_refine 4 -mg_levels_pc_vertexpatch_type additive -mg_levels_ksp_max_it 2 -ksp_type cg -ksp_norm_type unpreconditioned
dgsame dg_solve_3d_k3_chebyshev -smoother chebyshev -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 2
# mixed precision: smoothing, level operators and transfers in float under FGMRES; the L2 error of double
./tutorials/ex3 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 4 -dm_brick_refine 2 -local_space dirichlet -ksp_rtol 1e-10 >"$OUT/dg_mixed.double.log" 2>&1
./tutorials/ex3 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 4 -dm_brick_refine 2 -local_space dirichlet -ksp_rtol 1e-10 -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single >"$OUT/dg_mixed.mixed.log" 2>&1
e1=$(awk '/^L2 error/{print $3}' "$OUT/dg_mixed.double.log"); e2=$(awk '/^L2 error/{print $3}' "$OUT/dg_mixed.mixed.log")
grep -q "^Linear solve converged" "$OUT/dg_mixed.mixed.log" && awk -v a="$e1" -v b="$e2" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-3 * a)}'
result dg_mixed_3d_k4 $? "double $(its_of "$OUT/dg_mixed.double.log") its error $e1, mixed $(its_of "$OUT/dg_mixed.mixed.log") its error $e2"
./tutorials/ex3 -dm_vec_type cuda -local_space dirichlet -ksp_view >"$OUT/dg_view.log" 2>&1
nl=$(awk '/levels=/{ s = $0; sub(/.*levels=/, "", s); sub(/ .*/, "", s); print s; exit }' "$OUT/dg_view.log")
[ -n "$nl" ] && [ "$(grep -c 'smoothing runs on the GPU in double' "$OUT/dg_view.log")" = $((nl - 1)) ]
result dg_view_on_gpu $? "PCView: smoothing on the GPU on each of the $((${nl:-1} - 1)) smoothed levels"
./tutorials/ex3 -dm_vec_type cuda -mg_levels_pc_vertexpatch_local_solver dense >"$OUT/dg_nohost_dense.log" 2>&1
[ $? != 0 ] && grep -q "pc_vertexpatch_local_solver dense has no GPU implementation" "$OUT/dg_nohost_dense.log"
result dg_no_host_path_dense $?
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 99 ./tutorials/ex3 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 1 -local_space dirichlet >"$OUT/dg_sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tutorials/ex3 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 1 -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single >>"$OUT/dg_sanitizer_$tool.log" 2>&1
    result "dg_compute_sanitizer_$tool" $? "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/dg_sanitizer_$tool.log" | tail -1)"
  done
  timeout 300 $MPIRUN -n 2 compute-sanitizer --tool memcheck --error-exitcode 99 ./tutorials/ex3 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 2 -local_space clamped -dm_brick_degree 3 >"$OUT/dg_sanitizer_2ranks.log" 2>&1
  result dg_compute_sanitizer_memcheck_2ranks $? "$(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/dg_sanitizer_2ranks.log") of 2 processes: 0 errors"
fi
fi

if want sanitizer; then
MPIRUN=${MPIRUN:-mpirun}
if command -v compute-sanitizer >/dev/null; then
  timeout 300 $MPIRUN -n 2 compute-sanitizer --tool memcheck --error-exitcode 99 ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 2 -fmg 0 \
    -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single >"$OUT/sanitizer_memcheck_2ranks.log" 2>&1 &&
    timeout 300 $MPIRUN -n 2 compute-sanitizer --tool memcheck --error-exitcode 99 ./tutorials/ex2 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 2 -dm_brick_refine 1 >>"$OUT/sanitizer_memcheck_2ranks.log" 2>&1
  result compute_sanitizer_memcheck_2ranks $? "$(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/sanitizer_memcheck_2ranks.log") of 4 processes: 0 errors"
fi

if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_operator -dim 3 -kmin 2 -kmax 3 -refine 0 >"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 3 -kmin 2 -kmax 2 -refine 0 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 3 -kmin 3 -kmax 3 -refine 1 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 3 -kmin 2 -kmax 2 -refine 1 -pc_vertexpatch_gpu_lines 2 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 3 -kmin 2 -kmax 3 -refine 1 -max_blocks 2 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 3 -kmin 2 -kmax 3 -refine 1 -max_blocks 2 -pc_vertexpatch_gpu_lines 2 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 3 -kmin 2 -kmax 3 -refine 1 -max_blocks 2 -pc_vertexpatch_gpu_lines 1 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 3 -kmin 4 -kmax 4 -refine 1 -max_blocks 2 -pc_vertexpatch_gpu_lines 3 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tests/gpu_smoother -dim 2 -kmin 3 -kmax 3 -refine 1 >>"$OUT/sanitizer_$tool.log" 2>&1 &&
      compute-sanitizer --tool $tool --error-exitcode 99 ./tutorials/ex1 -dm_brick_cells 2,2,2 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_degree 2 -dm_brick_refine 1 -fmg 0 \
        -mg_levels_pc_vertexpatch_precision single -dm_brick_mg_precision single >>"$OUT/sanitizer_$tool.log" 2>&1
    rc=$?
    result "compute_sanitizer_$tool" $rc "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer_$tool.log" | tail -1)"
  done
else
  result compute_sanitizer_available 1 "compute-sanitizer not found"
fi
fi
# ---- PCHFEM (seed 004) on the GPU against the host (whose half, bfloat16 and TF32 are emulated): direct solves in the
# four precisions, CG around half precision to 1e-10, many right-hand sides in several passes, PCMG's coarse solver,
# kappa(Pi) by cuSOLVER against LAPACK, the host/GPU mismatch error, compute-sanitizer ----
if want hfem; then
true_of() { awk '/^true residual/{print $NF}' "$1"; }
HF="./tutorials/ex1 -dm_brick_degree 1 -dm_brick_cells 1,1 -dm_brick_refine 7 -fmg 0 -pc_type hfem"
for p in double single half bfloat16 tf32; do
  opt="-pc_hfem_precision $p"; [ $p = tf32 ] && opt="-pc_hfem_precision single -pc_hfem_tf32"
  $HF -ksp_type preonly $opt >"$OUT/hfem_$p.host.log" 2>&1
  $HF -ksp_type preonly $opt -dm_vec_type cuda >"$OUT/hfem_$p.cuda.log" 2>&1
  th=$(true_of "$OUT/hfem_$p.host.log"); tc=$(true_of "$OUT/hfem_$p.cuda.log")
  # double: rounding level; lower precisions: the GPU's residual within 10x of the emulation's, and above 1e-9
  awk -v p=$p -v h="$th" -v c="$tc" 'BEGIN{ if (h == "" || c == "") exit 1; if (p == "double") exit !(c <= 1e-12); exit !(c <= 10 * h && c >= h / 10 && c >= 1e-9) }'
  result "hfem_preonly_$p" $? "true residual GPU $tc, host $th"
done
$HF -ksp_type cg -ksp_norm_type unpreconditioned -ksp_rtol 1e-10 -pc_hfem_precision half >"$OUT/hfem_cg_half.host.log" 2>&1
$HF -ksp_type cg -ksp_norm_type unpreconditioned -ksp_rtol 1e-10 -pc_hfem_precision half -dm_vec_type cuda >"$OUT/hfem_cg_half.cuda.log" 2>&1
ih=$(its_of "$OUT/hfem_cg_half.host.log"); ic=$(its_of "$OUT/hfem_cg_half.cuda.log"); tc=$(true_of "$OUT/hfem_cg_half.cuda.log")
grep -q "^Linear solve converged" "$OUT/hfem_cg_half.cuda.log" && awk -v t="$tc" -v a="$ih" -v b="$ic" 'BEGIN{exit !(t != "" && t <= 1e-10 && b != "" && b <= a + 1)}'
result hfem_cg_half $? "CG + HFEM(half) to 1e-10: GPU $ic its (true residual $tc), host $ih its"
./tutorials/ex4 -dm_vec_type cuda -dm_brick_refine 6 -nrhs 8 -nmodes 3 -pc_hfem_columns 3 >"$OUT/hfem_ex4_double.log" 2>&1
result hfem_ex4_passes $? "$(grep 'largest relative residual' "$OUT/hfem_ex4_double.log") (8 right-hand sides, 3 per pass)"
# the stencil transform (default) against the sparse T, T^T on the GPU: the same solutions (L2 errors to 6 digits)
./tutorials/ex4 -dm_vec_type cuda -dm_brick_refine 7 -nrhs 16 -max_residual 1e-10 >"$OUT/hfem_ex4_stencil.log" 2>&1 &&
  ./tutorials/ex4 -dm_vec_type cuda -dm_brick_refine 7 -nrhs 16 -max_residual 1e-10 -pc_hfem_transform sparse >"$OUT/hfem_ex4_sparse.log" 2>&1 &&
  [ -n "$(grep '^L2 errors' "$OUT/hfem_ex4_stencil.log")" ] && [ "$(grep '^L2 errors' "$OUT/hfem_ex4_stencil.log" | cut -c1-60)" = "$(grep '^L2 errors' "$OUT/hfem_ex4_sparse.log" | cut -c1-60)" ]
result hfem_transform_stencil_vs_sparse $? "$(grep '^L2 errors' "$OUT/hfem_ex4_stencil.log" | cut -c1-60) (stencil), residual $(grep 'largest relative residual' "$OUT/hfem_ex4_stencil.log" | awk '{print $NF}')"
# the node-major whole-solve path (default from 8 columns) against the column-major stages, in double and in half (20 columns
# in passes of 8, the last of 4)
for p in double half; do
  mr=1e-10; [ $p = half ] && mr=1e-2
  ./tutorials/ex4 -dm_vec_type cuda -dm_brick_refine 7 -nrhs 20 -pc_hfem_columns 8 -pc_hfem_precision $p -max_residual $mr >"$OUT/hfem_ex4_nm_$p.log" 2>&1 &&
    ./tutorials/ex4 -dm_vec_type cuda -dm_brick_refine 7 -nrhs 20 -pc_hfem_columns 8 -pc_hfem_precision $p -max_residual $mr -pc_hfem_node_major 0 >"$OUT/hfem_ex4_cm_$p.log" 2>&1 &&
    awk -v a="$(awk '/^L2 errors/{print $6}' "$OUT/hfem_ex4_nm_$p.log")" -v b="$(awk '/^L2 errors/{print $6}' "$OUT/hfem_ex4_cm_$p.log")" -v tol="$([ $p = half ] && echo 1e-2 || echo 1e-8)" \
      'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= tol * b)}'
  result hfem_node_major_vs_column_$p $? "node-major: $(grep '^L2 errors' "$OUT/hfem_ex4_nm_$p.log" | cut -c1-50), residual $(grep 'largest relative residual' "$OUT/hfem_ex4_nm_$p.log" | awk '{print $NF}'); column-major: residual $(grep 'largest relative residual' "$OUT/hfem_ex4_cm_$p.log" | awk '{print $NF}')"
done
# the fused node-major path (default: transform and packing macro cell by macro cell, couplings folded into the C^-1
# products) against the level-by-level one (-pc_hfem_fused 0, sparse couplings) on a 3 x 2 box of square cells: the four precisions with the default macro grid (16 x 16 fine cells),
# double with macro cells of 32, 4 and 2 fine cells, half and bfloat16 with macro cells of 32 (the shape of the benchmark at
# h = 1/512 and 1/1024: 16 columns a block, whose inner-node loops map a warp's halves to nodes li and li + 16, ForInner);
# 20 columns in passes of 8 (the last of 4)
for cfg in double single half bfloat16 double:1 double:4 double:2:3 half:1 bfloat16:1; do
  IFS=: read -r p m r <<<"$cfg"
  mr=1e-10; tol=1e-9
  case $p in single) mr=1e-4; tol=1e-4 ;; half) mr=1e-2; tol=1e-2 ;; bfloat16) mr=1e-1; tol=5e-2 ;; esac
  common="-dm_vec_type cuda -dm_brick_cells 3,2 -dm_brick_domain 0,1.5,0,1 -dm_brick_refine ${r:-6} -nrhs 20 -pc_hfem_columns 8 -pc_hfem_precision $p -max_residual $mr ${m:+-pc_hfem_macro_level $m}"
  name=hfem_fused_vs_levels_$p${m:+_m$m}${r:+_r$r}
  ./tutorials/ex4 $common -single 1 -ksp_view >"$OUT/$name.fused.log" 2>&1 &&
    ./tutorials/ex4 $common -pc_hfem_fused 0 >"$OUT/$name.levels.log" 2>&1 &&
    grep -q "fused per macro cell" "$OUT/$name.fused.log" && grep -q "E-I couplings: folded into the C^-1 products of the fused passes" "$OUT/$name.fused.log" &&
    awk -v a="$(awk '/^L2 errors/{print $6}' "$OUT/$name.fused.log")" -v b="$(awk '/^L2 errors/{print $6}' "$OUT/$name.levels.log")" -v tol=$tol \
      'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= tol * b)}'
  result $name $? "fused: $(grep '^L2 errors' "$OUT/$name.fused.log" | cut -c1-50), residual $(grep 'largest relative residual' "$OUT/$name.fused.log" | awk '{print $NF}'); level by level: $(grep '^L2 errors' "$OUT/$name.levels.log" | cut -c1-50), residual $(grep 'largest relative residual' "$OUT/$name.levels.log" | awk '{print $NF}')"
done
# the folded couplings (-pc_hfem_fold, default) in the fused passes against LU and against the sparse D, D^T, with point
# loads of 1e8 at macro-grid nodes (the packed back substitution must scale Y_E past Z_I's scale or half overflows)
ctest hfem_fold_gpu ./tests/gpu_hfem
./tutorials/ex4 -dm_vec_type cuda -dm_brick_refine 7 -nrhs 64 -pc_hfem_precision half -max_residual 1e-2 >"$OUT/hfem_ex4_half.log" 2>&1
result hfem_ex4_half $? "$(grep 'largest relative residual' "$OUT/hfem_ex4_half.log")"
./tutorials/ex1 -dm_vec_type cuda -dm_brick_degree 1 -dm_brick_cells 4,4 -dm_brick_refine 3 -fmg 0 -ksp_rtol 1e-10 -mg_coarse_pc_type hfem >"$OUT/hfem_mg_coarse.log" 2>&1
grep -q "^Linear solve converged" "$OUT/hfem_mg_coarse.log"
result hfem_mg_coarse $? "$(its_of "$OUT/hfem_mg_coarse.log") iterations"
$HF -ksp_type preonly -pc_hfem_condition -ksp_view >"$OUT/hfem_kappa.host.log" 2>&1
$HF -ksp_type preonly -pc_hfem_condition -ksp_view -dm_vec_type cuda >"$OUT/hfem_kappa.cuda.log" 2>&1
kh=$(awk '/kappa\(Pi\) =/{gsub(",", "", $6); print $6}' "$OUT/hfem_kappa.host.log"); kc=$(awk '/kappa\(Pi\) =/{gsub(",", "", $6); print $6}' "$OUT/hfem_kappa.cuda.log")
awk -v a="$kh" -v b="$kc" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1e-3 * a)}'
result hfem_kappa_cusolver $? "kappa(Pi) cuSOLVER $kc, LAPACK $kh"
grep -q "on the GPU; C_i^-1 and Pi^-1 in double" "$OUT/hfem_kappa.cuda.log"
result hfem_view_gpu $? "$(grep -m1 'method M1' "$OUT/hfem_kappa.cuda.log" | sed 's/^ *//')"
if command -v compute-sanitizer >/dev/null; then
  compute-sanitizer --tool memcheck --error-exitcode 99 ./tutorials/ex4 -dm_vec_type cuda -dm_brick_refine 5 -nrhs 5 -nmodes 2 -pc_hfem_columns 2 -pc_hfem_precision half -max_residual 1e-2 >"$OUT/hfem_sanitizer.log" 2>&1 &&
    compute-sanitizer --tool memcheck --error-exitcode 99 ./tutorials/ex1 -dm_vec_type cuda -dm_brick_degree 1 -dm_brick_cells 1,1 -dm_brick_refine 5 -fmg 0 -pc_type hfem -ksp_type cg -pc_hfem_precision bfloat16 -pc_hfem_condition >>"$OUT/hfem_sanitizer.log" 2>&1 &&
    compute-sanitizer --tool memcheck --error-exitcode 99 ./tutorials/ex4 -dm_vec_type cuda -dm_brick_refine 5 -nrhs 11 -nmodes 3 -pc_hfem_columns 8 -pc_hfem_precision half -max_residual 1e-2 -pc_hfem_fused 0 >>"$OUT/hfem_sanitizer.log" 2>&1 &&
    compute-sanitizer --tool memcheck --error-exitcode 99 ./tutorials/ex4 -dm_vec_type cuda -dm_brick_cells 3,2 -dm_brick_domain 0,1.5,0,1 -dm_brick_refine 4 -nrhs 11 -nmodes 3 -pc_hfem_columns 8 -pc_hfem_precision half -max_residual 1e-2 >>"$OUT/hfem_sanitizer.log" 2>&1 &&
    compute-sanitizer --tool memcheck --error-exitcode 99 ./tutorials/ex4 -dm_vec_type cuda -dm_brick_cells 3,2 -dm_brick_domain 0,1.5,0,1 -dm_brick_refine 4 -nrhs 11 -nmodes 3 -pc_hfem_columns 8 -max_residual 1e-10 >>"$OUT/hfem_sanitizer.log" 2>&1
  result hfem_compute_sanitizer_memcheck $? "$(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/hfem_sanitizer.log") of 5 runs (the third node-major level by level, the last two fused in half and double): 0 errors"
  # the fused kernels share memory between the threads of a block: racecheck on them
  compute-sanitizer --tool racecheck --error-exitcode 99 ./tutorials/ex4 -dm_vec_type cuda -dm_brick_cells 3,2 -dm_brick_domain 0,1.5,0,1 -dm_brick_refine 4 -nrhs 11 -nmodes 3 -pc_hfem_columns 8 -pc_hfem_precision half -max_residual 1e-2 >"$OUT/hfem_racecheck.log" 2>&1 &&
    compute-sanitizer --tool racecheck --error-exitcode 99 ./tutorials/ex4 -dm_vec_type cuda -dm_brick_cells 3,2 -dm_brick_domain 0,1.5,0,1 -dm_brick_refine 4 -nrhs 11 -nmodes 3 -pc_hfem_columns 8 -max_residual 1e-10 >>"$OUT/hfem_racecheck.log" 2>&1
  result hfem_compute_sanitizer_racecheck $? "$(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/hfem_racecheck.log" | tail -1) (fused path, half and double)"
fi
fi
# ---- the setup on the device: the separable load vector and L2 error (VPCudaSeparableFill, VPCudaSeparableL2Error)
# against the host's point-function versions, CG and DG, 1 and 2 ranks; ex1 with both; memcheck ----
if want setup; then
  ctest setup_separable_2d_cg ./tests/test_separable -dm_vec_type cuda -dim 2 -kmin 1 -kmax 8
  ctest setup_separable_3d_cg ./tests/test_separable -dm_vec_type cuda -dim 3 -kmin 1 -kmax 8
  ctest setup_separable_2d_dg ./tests/test_separable -dm_vec_type cuda -dim 2 -family dg -kmin 1 -kmax 8
  ctest setup_separable_3d_dg ./tests/test_separable -dm_vec_type cuda -dim 3 -family dg -kmin 1 -kmax 6
  ctest setup_separable_3d_cg_2ranks ${MPIRUN:-mpirun} -n 2 ./tests/test_separable -dm_vec_type cuda -dim 3 -kmin 1 -kmax 4
  ctest setup_separable_3d_dg_2ranks ${MPIRUN:-mpirun} -n 2 ./tests/test_separable -dm_vec_type cuda -dim 3 -family dg -kmin 1 -kmax 3
  ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_refine 3 >"$OUT/setup_ex1_separable.log" 2>&1
  ./tutorials/ex1 -dm_vec_type cuda -dm_brick_dim 3 -dm_brick_refine 3 -separable 0 >"$OUT/setup_ex1_pointwise.log" 2>&1
  e1=$(awk '/^L2 error/{print $3}' "$OUT/setup_ex1_separable.log"); e2=$(awk '/^L2 error/{print $3}' "$OUT/setup_ex1_pointwise.log")
  [ -n "$e1" ] && [ "$(its_of "$OUT/setup_ex1_separable.log")" = "$(its_of "$OUT/setup_ex1_pointwise.log")" ] && awk -v a="$e1" -v b="$e2" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * b)}'
  result setup_ex1_separable_equals_pointwise $? "GPU separable $e1, host point functions $e2"
  compute-sanitizer --tool memcheck --error-exitcode 99 ./tests/test_separable -dm_vec_type cuda -dim 3 -kmin 2 -kmax 3 >"$OUT/setup_memcheck.log" 2>&1 &&
    compute-sanitizer --tool memcheck --error-exitcode 99 ./tests/test_separable -dm_vec_type cuda -dim 2 -family dg -kmin 7 -kmax 8 >>"$OUT/setup_memcheck.log" 2>&1
  result setup_compute_sanitizer_memcheck $? "$(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/setup_memcheck.log") of 2 runs: 0 errors"
fi
# PETSc's defaults with device vectors: an application linked against PETSc only (-dll_append) asks for -pc_type mg and
# nothing else; the brick gives its matrix-free levels Chebyshev/Jacobi (PETSc's SOR needs entries) and picks the coarse
# solve by size (a dense inverse on the GPU under -dm_brick_coarse_direct_max, Chebyshev/Jacobi on the shell over it):
# every operator converges on the GPU with the iterations of host vectors, on 1 and 2 ranks
if want defaults; then
  MPIRUN=${MPIRUN:-mpirun}
  true_plain() { awk '/^true residual/{print $NF}' "$1"; }
  for op in laplace c0ip sipg; do
    for n in 1 2; do
      O="-dll_append lib/libpetscvpatch.so -dm_brick_operator $op -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -dm_brick_refine 2 -pc_type mg -ksp_rtol 1e-8"
      $MPIRUN -n $n ./tests/plain_mg $O >"$OUT/defaults_${op}_n$n.host.log" 2>&1
      $MPIRUN -n $n ./tests/plain_mg $O -dm_vec_type cuda -ksp_view >"$OUT/defaults_${op}_n$n.cuda.log" 2>&1
      grep -q "converged due to CONVERGED_RTOL" "$OUT/defaults_${op}_n$n.cuda.log" && [ -n "$(its_of "$OUT/defaults_${op}_n$n.cuda.log")" ] &&
        [ "$(its_of "$OUT/defaults_${op}_n$n.cuda.log")" = "$(its_of "$OUT/defaults_${op}_n$n.host.log")" ] &&
        grep -q "PC Object: brick default: jacobi in place of PETSc's sor" "$OUT/defaults_${op}_n$n.cuda.log" && grep -q "runs on the GPU" "$OUT/defaults_${op}_n$n.cuda.log" &&
        grep -q "brick coarse solve: .*: exact, dense inverse on the GPU" "$OUT/defaults_${op}_n$n.cuda.log" &&
        awk -v a="$(true_plain "$OUT/defaults_${op}_n$n.cuda.log")" -v b="$(true_plain "$OUT/defaults_${op}_n$n.host.log")" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1e-3 * b) }' &&
        $MPIRUN -n $n ./tests/plain_mg $O -dm_vec_type cuda -ksp_pc_side right >"$OUT/defaults_${op}_n$n.right.log" 2>&1 &&
        awk -v t="$(true_plain "$OUT/defaults_${op}_n$n.right.log")" 'BEGIN { exit !(t != "" && t + 0 <= 1e-8) }'
      result defaults_pc_mg_${op}_gpu_n$n $? "$n rank(s): $(its_of "$OUT/defaults_${op}_n$n.cuda.log") iterations (host $(its_of "$OUT/defaults_${op}_n$n.host.log")), true residual $(true_plain "$OUT/defaults_${op}_n$n.cuda.log") (host $(true_plain "$OUT/defaults_${op}_n$n.host.log")); right-preconditioned GMRES: $(true_plain "$OUT/defaults_${op}_n$n.right.log") <= 1e-8"
    done
  done
  # a coarse problem over the bound (3 x 3 x 3 cells cannot halve; Q6: 4,913 unknowns, 1e7 nonzeros): Chebyshev/Jacobi
  # steps on the matrix-free operator on the GPU, no assembly, the iterations of host vectors
  for n in 1 2; do
    E="-dm_brick_dim 3 -dm_brick_cells 3,3,3 -dm_brick_degree 6 -dm_brick_refine 1 -fmg 0"
    $MPIRUN -n $n ./tutorials/ex1 $E >"$OUT/defaults_coarse_over_n$n.host.log" 2>&1
    $MPIRUN -n $n ./tutorials/ex1 $E -dm_vec_type cuda -ksp_view >"$OUT/defaults_coarse_over_n$n.cuda.log" 2>&1 &&
      grep -q "brick coarse solve: 4913 unknowns, .* > -dm_brick_coarse_direct_max 1000000: 20 Chebyshev/Jacobi steps, matrix-free" "$OUT/defaults_coarse_over_n$n.cuda.log" &&
      [ -n "$(its_of "$OUT/defaults_coarse_over_n$n.cuda.log")" ] && [ "$(its_of "$OUT/defaults_coarse_over_n$n.cuda.log")" = "$(its_of "$OUT/defaults_coarse_over_n$n.host.log")" ]
    result defaults_coarse_over_bound_gpu_n$n $? "$n rank(s): $(its_of "$OUT/defaults_coarse_over_n$n.cuda.log") iterations (host $(its_of "$OUT/defaults_coarse_over_n$n.host.log")), $(grep -o -m1 '[0-9][0-9]* Chebyshev/Jacobi steps' "$OUT/defaults_coarse_over_n$n.cuda.log")"
  done
  # the same route under compute-sanitizer (memcheck): Chebyshev/Jacobi levels and the dense coarse inverse on the GPU
  compute-sanitizer --tool memcheck --error-exitcode 99 ./tests/plain_mg -dll_append lib/libpetscvpatch.so -dm_brick_operator laplace -dm_brick_dim 3 -dm_brick_degree 2 -dm_brick_refine 1 \
    -pc_type mg -dm_vec_type cuda >"$OUT/defaults_memcheck.log" 2>&1 && grep -q "ERROR SUMMARY: 0 errors" "$OUT/defaults_memcheck.log"
  result defaults_compute_sanitizer_memcheck $? "$(grep -o 'ERROR SUMMARY: [0-9]* errors' "$OUT/defaults_memcheck.log")"
  # the tutorials' defaults on the GPU: the coarse problem under the bound, a dense inverse there; converged
  for ex in ex1 ex2 ex3; do
    ./tutorials/$ex -dm_brick_dim 3 -dm_vec_type cuda -ksp_view >"$OUT/defaults_${ex}_3d.cuda.log" 2>&1 &&
      grep -q "brick coarse solve: .* <= -dm_brick_coarse_direct_max 1000000: exact, dense inverse on the GPU" "$OUT/defaults_${ex}_3d.cuda.log"
    result defaults_${ex}_3d_gpu $? "$(grep -o -m1 'brick coarse solve: [0-9]* unknowns, [0-9]* nonzeros' "$OUT/defaults_${ex}_3d.cuda.log"); $(its_of "$OUT/defaults_${ex}_3d.cuda.log") iterations"
  done
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
