#!/usr/bin/env bash
# Forest domains on the GPU: the GPU check's forest section, then one H200 against the box path: the forest path on the
# full box (-dm_brick_partition p4est) and the Fichera corner against the box, Q3 at 56M and 455M DoFs, Q7 at 11M; each row
# once with -log_view (solve time, set-up events) and, at 56M, once more with -log_view_gpu_time (the events' GPU times:
# smoother, operator, transfers). On a GPU machine from a CUDA build (make PETSC_DIR=/opt/petsc-cuda), with p4est's and
# libsc's shared libraries next to the plugin in lib/ (README, CUDA section):
#   . ../shared/petsc-cuda/device-env.sh; export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH; bench/forest_gpu.sh PART [OUTDIR]
# PART: check (the GPU check's forest section), rows (56M and 11M rows), q7 (the 11M rows), large (the 455M and 394M rows), or all.
set -u
cd "$(dirname "$0")/.."
part=${1:-all}
out=${2:-/tmp/forest-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$out/device.txt"
if [ "$part" = check ] || [ "$part" = all ]; then
  OUT_DIR=$out GPU_CHECK_SECTIONS="forest" timeout 500 bash tests/gpu_check.sh >"$out/gpu_check.txt" 2>&1
  tail -1 "$out/gpu_check.txt"
fi
ev() { # log: the GPU times (s) of the smoother, the operator, the prolongation and the restriction, summed over levels
  sed -n '/Event                Count/,$p' "$1" | awk '$1 == "VPatchSmooth" { s += $4 } $1 == "MatMult" { m += $4 } $1 == "MatMultAdd" { p += $4 } $1 == "MatMultTranspose" { r += $4 }
    END { printf "smoother %.4f operator %.4f prolongation %.4f restriction %.4f", s, m, p, r }'
}
t() { # name gputime(0/1) command...: iterations, solve and set-up times, the set-up events (their share of the run's time,
      # summed over the levels; without -log_view_gpu_time the log has no event times on device runs)
  local name=$1 g=$2; shift 2
  if [ "$g" = 1 ]; then
    timeout 300 "$@" -log_view -log_view_gpu_time >"$out/$name.gputime.log" 2>&1
    echo "$name (GPU times): $(ev "$out/$name.gputime.log")"
  fi
  timeout 400 "$@" -log_view -ksp_view >"$out/$name.log" 2>&1
  echo "$name: $(grep -m1 -oE 'iterations [0-9]+' "$out/$name.log") $(grep -m1 -E 'solve time' "$out/$name.log") $(grep -m1 -oE '[0-9]+ DoFs|DoFs: [0-9]+' "$out/$name.log")" \
    "$(awk '/^Time \(sec\):/ { total = $3 } /Event                Count/ { ev = 1 }
             ev && $1 ~ /^(BrickForestMesh|BrickForestLayout|BrickForestTrSetUp|VPatchSetUp|BrickSetUp|BrickLoadVector)$/ { t[$1] += $11 }
             END { for (e in t) printf "%s %.1f s, ", e, t[e] / 100 * total }' "$out/$name.log")"
}
box="./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -fmg 0 -rhs one -dm_vec_type cuda"
if [ "$part" = rows ] || [ "$part" = all ]; then
  t box_q3_r6 1 $box -dm_brick_degree 3 -dm_brick_refine 6 -dm_brick_coarsen_below 0
  t boxforest_q3_r6 1 $box -dm_brick_degree 3 -dm_brick_refine 6 -dm_brick_partition p4est
  t fichera_q3_r6 1 ./tutorials/ex5 -domain fichera -dm_brick_degree 3 -dm_brick_refine 6 -dm_vec_type cuda
  t boxforest_q3_r6_tile 0 $box -dm_brick_degree 3 -dm_brick_refine 6 -dm_brick_partition p4est -mg_levels_pc_vertexpatch_gpu_lines 0
fi
if [ "$part" = rows ] || [ "$part" = q7 ] || [ "$part" = all ]; then
  t box_q7_r4 1 $box -dm_brick_degree 7 -dm_brick_refine 4 -dm_brick_coarsen_below 0
  t boxforest_q7_r4 1 $box -dm_brick_degree 7 -dm_brick_refine 4 -dm_brick_partition p4est
  t fichera_q7_r4 1 ./tutorials/ex5 -domain fichera -dm_brick_degree 7 -dm_brick_refine 4 -dm_vec_type cuda
fi
if [ "$part" = large ] || [ "$part" = all ]; then
  t box_q3_r7 0 $box -dm_brick_degree 3 -dm_brick_refine 7 -dm_brick_coarsen_below 0
  t boxforest_q3_r7 0 $box -dm_brick_degree 3 -dm_brick_refine 7 -dm_brick_partition p4est
  t fichera_q3_r7 0 ./tutorials/ex5 -domain fichera -dm_brick_degree 3 -dm_brick_refine 7 -dm_vec_type cuda
fi
