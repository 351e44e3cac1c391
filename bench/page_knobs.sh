#!/usr/bin/env bash
# Q6 and Q1 over a loaded TPC-H lineitem (bench/tpch/tpch.py --load-only first), forced,
# three runs per setting: GPU Time, CPU Page Time and wall from EXPLAIN ANALYZE with
# the copy kernel (pg_gpu.stage_pages), pin workers, chunk size and buffer registration
# varied, to tell the GPU side of a page scan from the pinning side (issue 31, Q6 from
# pages).  The column cache is off (pg_gpu.use_cache): every run reads pages.  On the GPU host, after
# scripts/gpuhost_run.sh has started PostgreSQL: bash bench/page_knobs.sh [quick] > $OUT/knobs.txt
source .gpuhost/pg-up "$PWD/.gpuhost/pg15.tar.xz" /tmp/pgdata > /dev/null 2>&1
Q6="SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
Q6c="SELECT count(*) FROM lineitem WHERE l_orderkey < 0"
Q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90' day GROUP BY 1,2 ORDER BY 1,2"
run() { # label, settings, query
  for r in 1 2 3; do
    psql -X -At -c "SET pg_gpu.force=on; SET pg_gpu.use_cache=off; $2; EXPLAIN (ANALYZE, COSTS OFF) $3" 2>&1 | grep -E "GPU Time|Wall Time|CPU Page Time|CPU Wait|Chunks|Pin Workers|Execution Time|Page Access|ERROR|WARN" | tr '\n' ' ' | sed "s/^/$1 r$r: /"; echo
  done
}
if [ "${1:-}" = quick ]; then   # the default settings, staged and in place
  for st in on off; do
    run "q6 stage=$st" "SET pg_gpu.stage_pages=$st" "$Q6"
    run "q1 stage=$st" "SET pg_gpu.stage_pages=$st" "$Q1"
  done
  exit 0
fi
for st in on off; do
  run "q6 stage=$st" "SET pg_gpu.stage_pages=$st" "$Q6"
  run "q6 count-only stage=$st" "SET pg_gpu.stage_pages=$st" "$Q6c"
  run "q1 stage=$st" "SET pg_gpu.stage_pages=$st" "$Q1"
  for pw in 12 15; do run "q6 stage=$st pin_workers=$pw" "SET pg_gpu.stage_pages=$st; SET pg_gpu.pin_workers=$pw" "$Q6"; done
done
for cp in 1024 16384; do run "q6 stage=on chunk_pages=$cp" "SET pg_gpu.chunk_pages=$cp" "$Q6"; done
run "q6 stage=on register_buffers=off" "SET pg_gpu.register_buffers=off" "$Q6"
# the answers, staged and in place, and PostgreSQL's
for st in on off; do
  echo "answer stage=$st: $(psql -X -At -c "SET pg_gpu.force=on; SET pg_gpu.use_cache=off; SET pg_gpu.stage_pages=$st; $Q6" | md5sum) $(psql -X -At -c "SET pg_gpu.force=on; SET pg_gpu.use_cache=off; SET pg_gpu.stage_pages=$st; $Q1" | md5sum)"
done
echo "answer pg: $(psql -X -At -c "SET pg_gpu.enabled=off; SET max_parallel_workers_per_gather=8; $Q6" | md5sum) $(psql -X -At -c "SET pg_gpu.enabled=off; SET max_parallel_workers_per_gather=8; $Q1" | md5sum)"
