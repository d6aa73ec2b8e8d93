#!/usr/bin/env bash
# Seed 004 Fig. 5: the L2 error of the discrete solution against the level (h = 2^-level) when the solve runs in half
# precision, with the prehandling (hierarchical basis and scaling) and without it (-pc_hfem_prehandle false: nodal E and
# I nodes, only the macro-grid nodes get their macro hats, which M1's block structure needs), and in double as the
# reference. A strongly oscillating solution u = sin(M pi x) sin(pi y), M = 16 (-mode). One direct solve by M1
# (ex4, -ksp_type preonly -pc_type hfem, default macro grid). Usage: bash bench/seed004_fig5.sh [LEVELS] [DEV] >
# table.md, DEV "-dm_vec_type cuda" for the GPU (real fp16 tensor cores), empty for the host (fp16 emulated).
set -u
cd "$(dirname "$0")/.."
LEVELS=${1:-"2 3 4 5 6 7 8 9 10"}
DEV=${2-"-dm_vec_type cuda"}
MODE=${MODE:-16}
VARIANTS=${VARIANTS:-"double half half-nodal"}
OUT=${OUT_DIR:-bench/out-fig5}
mkdir -p "$OUT"
echo "where: ${DEV:-host (half emulated)}, date: $(date -u +%F), u = sin($MODE pi x) sin(pi y)"
echo
echo "| level | N | L2 error double | L2 error half, prehandled | L2 error half, not prehandled | relative residual: double, half prehandled, half not prehandled |"
echo "| --- | --- | --- | --- | --- | --- |"
for l in $LEVELS; do
  line="| $l |"
  res=""
  for v in $VARIANTS; do
    opt="-pc_hfem_precision ${v%-nodal}"; [ $v = half-nodal ] && opt="$opt -pc_hfem_prehandle false"
    ./tutorials/ex4 $DEV -dm_brick_refine $l -nrhs 1 -nmodes 1 -mode $MODE $opt -max_residual 10 >"$OUT/fig5_l${l}_$v.log" 2>&1
    [ $v = double ] && line="$line $(awk '/unknowns per right-hand side/{print substr($6, 2)}' "$OUT/fig5_l${l}_$v.log") |"
    line="$line $(awk '/^L2 errors from/{print $4}' "$OUT/fig5_l${l}_$v.log") |"
    res="$res $(awk '/largest relative residual/{print $NF}' "$OUT/fig5_l${l}_$v.log")"
  done
  echo "$line$res |"
done
