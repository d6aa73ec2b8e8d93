#!/usr/bin/env bash
# Seed 001 (Wichrowski, Munch, Kronbichler, Kanschat 2023) on this CPU: the cost of one multiplicative
# vertex-patch smoothing step in units of one matrix-free matrix-vector product of the same operator
# (their Figure 2: 8 to 16), for the schedules (combined = local residual, separated = one global residual
# per color) and patch orderings, and the batch-size sweep of the batched, thread-parallel schedule.
# Measured with bench/bench_smooth (best of 3 blocks of repetitions, PetscTime). Usage:
#   make bench && bench/seed001_cost.sh > bench/results/seed001-smoothing-cost-....md
set -uo pipefail
cd "$(dirname "$0")/.."
B=./bench/bench_smooth
run() { $B "$@" 2>&1 | awk '/^DoFs/{printf "%s %s %s %s", $2, $4, $7, $10}'; }

echo "# Seed 001 on the CPU: smoothing cost in matvecs, orderings, batch sizes"
echo
echo "- date: $(date -u +%F), machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), PETSc $(pkg-config --modversion PETSc 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "- command: \`bench/seed001_cost.sh\`; each row: \`$B -dm_brick_dim D -dm_brick_cells N,N[,N] -dm_brick_degree k -pc_vertexpatch_schedule S -pc_vertexpatch_residual R -pc_vertexpatch_ordering O -reps n\`"
echo "- one rank; OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset} (the batched schedule uses OpenMP threads inside a batch; the others are sequential)"
echo
echo "## Cost of one smoothing step / one matvec, by mesh size"
echo
echo "| dim | k | cells | DoFs | matvec [s] | combined single (Z-curve) | combined colored | separated colored |"
echo "|---|---|---|---|---|---|---|---|"
for cfg in "2 5 16 20" "2 5 32 10" "2 5 64 5" "2 5 128 3" "2 5 256 2" "3 2 8 10" "3 2 16 5" "3 2 32 2" "3 4 8 5" "3 4 16 2"; do
  read -r dim k n reps <<<"$cfg"
  cells=$n,$n; [ "$dim" = 3 ] && cells=$n,$n,$n
  base="-dm_brick_dim $dim -dm_brick_cells $cells -dm_brick_degree $k -reps $reps"
  read -r N tm ts1 r1 <<<"$(run $base -pc_vertexpatch_schedule single -pc_vertexpatch_ordering zcurve)"
  read -r _ _ ts2 r2 <<<"$(run $base -pc_vertexpatch_schedule colored)"
  read -r _ _ ts3 r3 <<<"$(run $base -pc_vertexpatch_schedule colored -pc_vertexpatch_residual global)"
  echo "| $dim | $k | $cells | $N | $tm | $r1 | $r2 | $r3 |"
done
echo
echo "## Orderings (combined, single loop and colored), 2D Q5, 256 x 256 cells"
echo
echo "| ordering | single: cost in matvecs | colored: cost in matvecs |"
echo "|---|---|---|"
for o in lexicographic zcurve hierarchical; do
  base="-dm_brick_dim 2 -dm_brick_cells 256,256 -dm_brick_degree 5 -reps 2 -pc_vertexpatch_ordering $o"
  read -r _ _ _ r1 <<<"$(run $base -pc_vertexpatch_schedule single)"
  read -r _ _ _ r2 <<<"$(run $base -pc_vertexpatch_schedule colored)"
  echo "| $o | $r1 | $r2 |"
done
echo
echo "## Batch-size sweep (batched schedule, Z-curve, 2D Q5, 256 x 256 cells, OpenMP threads: ${OMP_NUM_THREADS:-all})"
echo
echo "| batch size | smoothing step [s] | cost in matvecs |"
echo "|---|---|---|"
for bs in 16 64 256 1024 4096 16384; do
  read -r _ _ ts r <<<"$(run -dm_brick_dim 2 -dm_brick_cells 256,256 -dm_brick_degree 5 -reps 2 -pc_vertexpatch_schedule batched -pc_vertexpatch_ordering zcurve -pc_vertexpatch_batch_size $bs)"
  echo "| $bs | $ts | $r |"
done
