#!/usr/bin/env bash
# untracked: a new session's first GpuHashJoin vs its second, EXPLAIN ANALYZE each
cd "$(dirname "$0")"
export PGHOST=/tmp PGUSER=postgres PATH="/opt/pgroot/usr/lib/postgresql/15/bin:$PATH" LD_LIBRARY_PATH="/opt/pgroot/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
Q="SELECT count(*), sum(length(name)) FROM (SELECT tcw.id, tk.name FROM tcw JOIN tk ON tcw.g = tk.k WHERE tk.k < 30 OFFSET 0) x"
for set in "" "SET pg_gpu.pin_workers = 0;" ; do
for i in 1 2 3; do
  echo "=== session $i ($set)"
  psql -X -d postgres <<SQL
SET pg_gpu.force = on; $set
\timing on
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $Q;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $Q;
SQL
done
done
