#!/usr/bin/env bash
# Page faults and huge pages (issue 31, Q6 from pages).  Pin workers are new processes
# each query: every 4 kB page of shared memory they touch (each buffer's page header,
# the descriptors) is a minor fault in a fresh page table.  This counts the host's
# faults (/proc/vmstat pgfault) during TPC-H Q6 forced and during PostgreSQL's 8
# workers, then, if the kernel lets us reserve 2 MB pages for shared memory, restarts
# PostgreSQL with huge_pages = on and times both again.  On the GPU host after a TPC-H
# load with PostgreSQL up (it is left running with huge pages).
source .gpuhost/pg-up "$PWD/.gpuhost/pg15.tar.xz" /tmp/pgdata > /dev/null 2>&1
Q6="SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
faults() { awk '/^pgfault /{print $2}' /proc/vmstat; }
one() { # label, settings
  local f0 f1 t
  f0=$(faults)
  t=$(printf '%s\n' "$2" "\\timing on" "\\o /dev/null" "$Q6;" | psql -X -q -At 2>&1 | grep -E "^Time|ERROR" | tr '\n' ' ')
  f1=$(faults)
  echo "$1: $t faults $((f1 - f0))"
}
gpu="SET pg_gpu.force=on; SET pg_gpu.use_cache=off;"
pg="SET pg_gpu.enabled=off; SET max_parallel_workers_per_gather=8;"
for r in 1 2 3; do one "4k pages gpu r$r" "$gpu"; done
for r in 1 2 3; do one "4k pages pg8 r$r" "$pg"; done
psql -X -At -c "SET pg_gpu.force=on; SET pg_gpu.use_cache=off; EXPLAIN (ANALYZE, COSTS OFF) $Q6" | grep -E "Time|Pin Workers"
need=$(( ($(psql -X -At -c "SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'") / 2097152) + 1200 ))
sysctl -w vm.nr_hugepages=$need > /dev/null 2>&1 || echo $need > /proc/sys/vm/nr_hugepages 2>/dev/null
got=$(awk '/^HugePages_Total/{print $2}' /proc/meminfo)
echo "huge pages wanted $need, reserved $got"
if [ "${got:-0}" -lt "$need" ]; then echo "huge pages: not available here"; exit 0; fi
sed -i '/^huge_pages/d' "$PGDATA/postgresql.conf"; echo "huge_pages = on" >> "$PGDATA/postgresql.conf"
pgrun pg_ctl -D "$PGDATA" -l /tmp/pg.log -w restart > /dev/null || { tail -5 /tmp/pg.log; exit 1; }
psql -X -At -c "SHOW huge_pages"
sleep 8   # the service registers the pool
psql -X -q -At -c "SET pg_gpu.enabled=off; SET max_parallel_workers_per_gather=8; SELECT count(*) FROM lineitem" > /dev/null
psql -X -q -At -c "SET pg_gpu.enabled=off; SET max_parallel_workers_per_gather=8; SELECT count(*) FROM lineitem" > /dev/null
for r in 1 2 3; do one "2M pages gpu r$r" "$gpu"; done
for r in 1 2 3; do one "2M pages pg8 r$r" "$pg"; done
psql -X -At -c "SET pg_gpu.force=on; SET pg_gpu.use_cache=off; EXPLAIN (ANALYZE, COSTS OFF) $Q6" | grep -E "Time|Pin Workers"
