#!/usr/bin/env bash
# TPC-H Q1 and Q6 over a lineitem-shaped table (numeric(15,2) money, char(1)
# flags, dates) generated in PostgreSQL: PostgreSQL's 8 workers, pg_gpu at
# default costs reading pages, forced, and from the column cache, answers
# compared.  A quick check of numeric on the GPU; bench/tpch/ is the benchmark.
#   bench/numeric_smoke.sh [rows (30000000)] [reps (3)]
set -uo pipefail
ROWS=${1:-30000000}
REPS=${2:-3}
P="psql -X -q -v ON_ERROR_STOP=1"
$P -c "DROP TABLE IF EXISTS li_smoke" -c "CREATE TABLE li_smoke (l_orderkey int8, l_quantity numeric(15,2),
  l_extendedprice numeric(15,2), l_discount numeric(15,2), l_tax numeric(15,2),
  l_returnflag char(1), l_linestatus char(1), l_shipdate date, l_comment varchar(44))"
t0=$(date +%s.%N)
for w in $(seq 0 7); do
  $P -c "INSERT INTO li_smoke SELECT i, (i % 50) + 1, ((i * 7919) % 10400000) / 100.0 + 900,
    (i % 11) / 100.0, (i % 9) / 100.0, substr('ANR', (i % 3)::int + 1, 1), substr('FO', (i % 2)::int + 1, 1),
    date '1992-01-02' + (i % 2526)::int, 'comment ' || i
    FROM generate_series($w::int8 * $ROWS / 8 + 1, ($w + 1)::int8 * $ROWS / 8) i" &
done
wait
$P -c "VACUUM (FREEZE, ANALYZE) li_smoke"
echo "loaded $ROWS rows in $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{printf "%.1f", a - b}') s; $(psql -X -At -c "SELECT pg_size_pretty(pg_relation_size('li_smoke'))")"
Q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
  sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
  avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM li_smoke
  WHERE l_shipdate <= date '1998-12-01' - interval '90' day GROUP BY 1, 2 ORDER BY 1, 2"
Q6="SELECT sum(l_extendedprice * l_discount) FROM li_smoke WHERE l_shipdate >= date '1994-01-01'
  AND l_shipdate < date '1994-01-01' + interval '1' year AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
  AND l_quantity < 24"
run() {   # mode settings query -> median ms; answer in /tmp/smoke_<mode>_<q>.txt
  local mode=$1 set=$2 q=$3 name=$4 ms=()
  for r in $(seq 1 $REPS); do
    out=$( { echo "$set"; echo '\timing on'; echo "$q;"; } | psql -X -At 2>&1)
    ms+=($(echo "$out" | grep '^Time:' | tail -1 | awk '{print $2}'))
    echo "$out" | grep -v '^Time:\|^SET$\|^Timing' > /tmp/smoke_${mode}_$name.txt
  done
  printf '%s\n' "${ms[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
PG8="SET pg_gpu.enabled = off; SET max_parallel_workers_per_gather = 8;"
DEF="SET max_parallel_workers_per_gather = 8;"
FORCE="SET pg_gpu.force = on;"
for q in Q1 Q6; do
  sql=${!q}
  pg=$(run pg8 "$PG8" "$sql" $q); d=$(run def "$DEF" "$sql" $q); f=$(run force "$FORCE" "$sql" $q)
  same=$(cmp -s /tmp/smoke_pg8_$q.txt /tmp/smoke_def_$q.txt && cmp -s /tmp/smoke_pg8_$q.txt /tmp/smoke_force_$q.txt && echo yes || echo NO)
  echo "$q: pg8 $pg ms, default $d ms ($(awk -v a="$pg" -v b="$d" 'BEGIN{printf "%.1f", a / b}')x), forced $f ms ($(awk -v a="$pg" -v b="$f" 'BEGIN{printf "%.1f", a / b}')x), answers equal: $same"
  { echo "$DEF"; echo "EXPLAIN (ANALYZE, COSTS OFF) $sql;"; } | psql -X -q 2>&1 | grep -i "gpu\|custom\|seq scan\|time" | head -12
done
t0=$(date +%s.%N)
psql -X -At -c "SELECT pg_gpu_cache_table('li_smoke')" > /dev/null
echo "cached in $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{printf "%.1f", a - b}') s: $(psql -X -At -c "SELECT columns, blocks FROM pg_gpu_cache")"
for q in Q1 Q6; do
  sql=${!q}
  c=$(run cache "$DEF" "$sql" $q)
  same=$(cmp -s /tmp/smoke_pg8_$q.txt /tmp/smoke_cache_$q.txt && echo yes || echo NO)
  echo "$q from the column cache: $c ms, answers equal: $same"
  { echo "$DEF"; echo "EXPLAIN (ANALYZE, COSTS OFF) $sql;"; } | psql -X -q 2>&1 | grep -i "cache\|gpu time\|wall" | head -6
done
diff /tmp/smoke_pg8_Q1.txt /tmp/smoke_force_Q1.txt | head -10
psql -X -c "SELECT * FROM pg_gpu_stats" -c "SELECT * FROM pg_gpu_fallbacks"
