#!/usr/bin/env bash
# Q6 and Q1 over a loaded TPC-H lineitem (bench/tpch/tpch.py --load-only first), forced,
# three runs per setting: GPU Time, CPU Page Time and wall from EXPLAIN ANALYZE with
# pin workers, chunk size and buffer registration varied, to tell the GPU side of a
# page scan from the pinning side (issue 31, Q6 from pages).  On the GPU host, after
# scripts/gpuhost_run.sh has started PostgreSQL: bash bench/page_knobs.sh > $OUT/knobs.txt
source .gpuhost/pg-up "$PWD/.gpuhost/pg15.tar.xz" /tmp/pgdata > /dev/null 2>&1
Q6="SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
Q6c="SELECT count(*) FROM lineitem WHERE l_orderkey < 0"
Q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90' day GROUP BY 1,2 ORDER BY 1,2"
run() { # label, settings, query
  for r in 1 2 3; do
    psql -X -At -c "SET pg_gpu.force=on; $2; EXPLAIN (ANALYZE, COSTS OFF) $3" 2>&1 | grep -E "GPU Time|Wall Time|CPU Page Time|CPU Wait|Chunks:|Pin Workers|Execution Time|Page Access|ERROR|WARN" | tr '\n' ' ' | sed "s/^/$1 r$r: /"; echo
  done
}
run "q6 default" "" "$Q6"
run "q6 count-only(int col 1)" "" "$Q6c"
for pw in 4 12 15; do run "q6 pin_workers=$pw" "SET pg_gpu.pin_workers=$pw" "$Q6"; done
for cp in 1024 16384; do run "q6 chunk_pages=$cp" "SET pg_gpu.chunk_pages=$cp" "$Q6"; done
run "q6 register_buffers=off" "SET pg_gpu.register_buffers=off" "$Q6"
run "q1 default" "" "$Q1"
