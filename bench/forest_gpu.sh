#!/usr/bin/env bash
# Forest domains on the GPU (the runs of bench/results/forest-gpu-h200-2026-11-28.md): the GPU check's forest and smoother
# sections, then one H200 and two H200s against the box path. On a GPU machine from a CUDA build (make PETSC_DIR=/opt/petsc-cuda),
# with p4est's and libsc's shared libraries next to the plugin in lib/ (README, CUDA section):
#   . ../shared/petsc-cuda/device-env.sh; export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH; bench/forest_gpu.sh [OUTDIR]
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/forest-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$out/device.txt"
OUT_DIR=$out GPU_CHECK_SECTIONS="forest smoother" timeout 600 bash tests/gpu_check.sh >"$out/gpu_check.txt" 2>&1
tail -1 "$out/gpu_check.txt"
t() { # name ranks command...: iterations, solve and set-up times, the ghost exchange's kind
  local name=$1 n=$2; shift 2
  timeout 300 mpirun -n "$n" --oversubscribe "$@" -log_view -dm_view >"$out/$name.log" 2>&1
  echo "$name: $(grep -E 'iterations|solve time' "$out/$name.log" | tr '\n' ' ') $(grep -m1 -E 'ghost exchange' "$out/$name.log")"
}
box="./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 3 -fmg 0 -rhs one -dm_vec_type cuda"
for n in 1 2; do
  t fichera_q3_r6_np$n $n ./tutorials/ex5 -domain fichera -dm_brick_degree 3 -dm_brick_refine 6 -dm_vec_type cuda
  t box_q3_r6_np$n $n $box -dm_brick_refine 6 -dm_brick_coarsen_below 0
done
t boxforest_q3_r6_np1 1 $box -dm_brick_refine 6 -dm_brick_partition p4est
t box_q3_r6_tile_np1 1 $box -dm_brick_refine 6 -dm_brick_coarsen_below 0 -mg_levels_pc_vertexpatch_gpu_lines 0
t fichera_q7_r4_np1 1 ./tutorials/ex5 -domain fichera -dm_brick_degree 7 -dm_brick_refine 4 -dm_vec_type cuda
t box_q7_r4_np1 1 ./tutorials/ex1 -dm_brick_dim 3 -dm_brick_cells 2,2,2 -dm_brick_degree 7 -dm_brick_refine 4 -dm_brick_coarsen_below 0 -fmg 0 -rhs one -dm_vec_type cuda
t fichera_q3_r7_np2 2 ./tutorials/ex5 -domain fichera -dm_brick_degree 3 -dm_brick_refine 7 -dm_vec_type cuda
