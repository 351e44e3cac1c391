#!/usr/bin/env bash
# make gpucheck — on a GPU host, with a running cluster that preloads pg_gpu and
# pg_gpu installed (see DEVELOPERS.md).  Runs the regression suite with
# pg_gpu.expect_gpu = on, so any query planned for the GPU that falls back to the
# CPU (other than the deliberate fallback tests) prints a WARNING and fails the
# diff; then checks pg_gpu_stats: the GPU must have run, and no fallback may have
# a reason that means "the GPU could not do it".
set -euo pipefail
cd "$(dirname "$0")/.."
psql -X -q -d postgres -c "CREATE EXTENSION IF NOT EXISTS pg_gpu" -c "SELECT pg_gpu_stats_reset()" >/dev/null
PGOPTIONS="-c pg_gpu.expect_gpu=on" make -s installcheck
python3 scripts/check_halves.py tmp/regress/results/*.out
psql -X -d postgres -c "SELECT * FROM pg_gpu_stats" -c "SELECT * FROM pg_gpu_fallbacks"
runs=$(psql -X -At -d postgres -c "SELECT gpu_executions FROM pg_gpu_stats WHERE node = 'GpuAgg'")
bad=$(psql -X -At -d postgres -c "SELECT coalesce(sum(count), 0) FROM pg_gpu_fallbacks
  WHERE reason NOT IN ('injected failure', 'out of gpu memory', 'serializable isolation',
                     'expression error', 'toasted value', 'long key ties',
                     'over slot_sort_memory', 'duplicate join keys', 'null preserved join key', 'parameter value',
                     'out of memory in the gpu service')")
finals=$(psql -X -At -d postgres -c "SELECT gpu_executions FROM pg_gpu_stats WHERE node = 'gpu_aggregates'")
sorts=$(psql -X -At -d postgres -c "SELECT gpu_executions FROM pg_gpu_stats WHERE node = 'GpuSort'")
joins=$(psql -X -At -d postgres -c "SELECT sum(gpu_executions) FROM pg_gpu_stats WHERE node IN ('GpuHashJoin', 'GpuSemiJoin')")
echo "gpucheck: GpuAgg ran on the GPU $runs times, GpuSort $sorts times, GpuHashJoin and GpuSemiJoin $joins times, gpu_* final reductions $finals times; unexpected fallbacks: $bad"
[ "$runs" -ge 50 ] && [ "$sorts" -ge 30 ] && [ "$joins" -ge 20 ] && [ "$finals" -ge 100 ] && [ "$bad" -eq 0 ]
