#!/usr/bin/env bash
# PCHFEM on one GPU (seed 004, issue "PCHFEM"): for h = 1/256, 1/512, 1/1024 (1 x 1 cell refined 8, 9, 10 times; the
# default macro grid, h0 about sqrt(h)) and the four precisions (and TF32): setup time (host part and GPU part, -info),
# then GFLOP/s and MDoF/s of M1 for N_rhs = 1 (KSPSolve, GEMV-bound) and many (KSPMatSolve, and PCMatApply alone, without its zeroing of X); in the same run, per
# right-hand side, our PCMG + vertex patch (ex1, 2D Q1, rtol 1e-9), PETSc's GAMG on the assembled operator
# (aijcusparse), and CG in double around HFEM in half (rtol 1e-9). Usage (on the GPU machine, from a build with a
# CUDA PETSc): [MANY=256] [PRECISIONS="double single tf32 half bfloat16"] [PEERS="mg gamg cghfem"] [EXTRA="-pc_hfem_fold 0"] bash bench/gpu_hfem_bench.sh [LEVELS] > table.md
# (EXTRA: more PCHFEM options for every ex4 row, named in its precision column and its log);
# logs (with -log_view; the timed solves are their own stage, "Timed solves", with HFEMApplyT (transform), HFEMApplyD (E-I couplings) and HFEMApplyDense) in $OUT_DIR (default
# bench/out-hfem).
set -u
cd "$(dirname "$0")/.."
LEVELS=${1:-"8 9 10"}
OUT=${OUT_DIR:-bench/out-hfem}
MANY=${MANY:-256}
PRECISIONS=${PRECISIONS:-"double single tf32 half bfloat16"}
PEERS=${PEERS:-"mg gamg cghfem"}
DEV=${DEV--dm_vec_type cuda} # DEV= (empty): the same on the host, to try the script
EXTRA=${EXTRA:-}
tag=$(echo "$EXTRA" | tr -c 'a-z0-9\n' '_')
mkdir -p "$OUT"
val() { awk -v k="$2" 'index($0, k) == 1 {print; exit}' "$1"; }
echo "device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1), date: $(date -u +%F), commit: $(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
echo
echo "| h | precision | N | setup s (host transform + dense) | N_rhs = 1: s per rhs, GFLOP/s, MDoF/s | N_rhs = $MANY: s per rhs, GFLOP/s, MDoF/s | largest relative residual | L2 error (mode 1) | N_rhs = $MANY, PCMatApply alone (no zeroing of X): s per rhs, GFLOP/s, MDoF/s |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for r in $LEVELS; do
  for p in $PRECISIONS; do
    opt="-pc_hfem_precision $p"; [ $p = tf32 ] && opt="-pc_hfem_precision single -pc_hfem_tf32"
    log="$OUT/ex4_r${r}_$p$tag.log"
    ./tutorials/ex4 $DEV -dm_brick_refine $r $opt $EXTRA -nrhs $MANY -repeat 3 -single 10 -max_residual 1 -info :pc -log_view >"$log" 2>&1
    awk -v h="1/$((1 << r))" -v p="$p${EXTRA:+ $EXTRA}" '
      /PCHFEM setup: sparse transform and sets/ {tr = $(NF-1)}
      /PCHFEM setup: dense inverses/ {de = $(NF-2)}
      /^setup time/ {st = $3; many = $12}
      /^(GPU|host): / {mg = $2; mm = $4; n = substr($6, 2)}
      /^one right-hand side/ {os = $5; og = $7; om = $9}
      /largest relative residual/ {res = $NF}
      /^L2 errors from/ {l2 = $4}
      /^PCMatApply alone \(without/ {ps = $(NF-5); pg = $(NF-3); pm = $(NF-1)}
      END {printf "| %s | %s | %s | %s (%s + %s) | %s, %s, %s | %s, %s, %s | %s | %s | %s, %s, %s |\n", h, p, n, st, tr, de, os, og, om, many, mg, mm, res, l2, ps, pg, pm}' "$log"
  done
  # the same mesh solved one right-hand side at a time by the peers
  n2=$((1 << (r - 1)))
  peer_opts() { case $1 in mg) echo "" ;; gamg) echo "-smoother chebyshev -pc_type gamg -pc_gamg_aggressive_coarsening 0 -dm_mat_type aijcusparse" ;; cghfem) echo "-fmg 0 -ksp_type cg -ksp_norm_type unpreconditioned -pc_type hfem -pc_hfem_precision half" ;; esac; }
  for peer in $PEERS; do
    ./tutorials/ex1 $DEV -dm_brick_dim 2 -dm_brick_degree 1 -dm_brick_cells 2,2 -dm_brick_refine $((r - 1)) -rhs one -ksp_rtol 1e-9 $(peer_opts $peer) >"$OUT/${peer}_r$r.log" 2>&1
  done
  for peer in $PEERS; do
    awk -v h="1/$((1 << r))" -v peer="$peer" '
      /iterations [0-9]/ {for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i+1)}
      /^true residual/ {tr = $NF}
      /^solve time/ {t = $3; s = $9}
      END {name = peer == "mg" ? "PCMG + vertexpatch (ex1 default), double" : (peer == "gamg" ? "GAMG (aijcusparse), Chebyshev/Jacobi" : "CG + HFEM(half), double"); printf "| %s | peer: %s | | setup %s | %s s per rhs (%s its, true residual %s) | | | |\n", h, name, s, t, it, tr}' "$OUT/${peer}_r$r.log"
  done
done
