#!/usr/bin/env bash
# make demo: a throwaway cluster under ./tmp/demo (run as an unprivileged user),
# pg_gpu preloaded, a sample table of a few million rows, and the sample aggregate
# queries with pg_gpu off and on, printing each one's time and where it ran, a GPU
# plan beside PostgreSQL's, and a conclusion.  Without a GPU the GPU path runs
# through the CPU emulation, labelled so.  The cluster keeps running: `make
# demo-stop` (scripts/demo.sh --stop) stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

ROWS=${DEMO_ROWS:-5000000}
PORT=${DEMO_PORT:-55432}
root=$PWD/tmp/demo
# the cluster runs as an unprivileged user, who may not be able to enter this tree
if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$PWD"; then
  root=/tmp/pg_gpu_demo
  echo "(this tree is not readable by the postgres user: the demo cluster goes to $root)"
fi

if [ "${1:-}" = --stop ]; then
  where=$(cat tmp/demo.where 2>/dev/null || echo "$root")
  if [ -f "$where/data/postmaster.pid" ]; then
    as_pg pg_ctl -D "$where/data" -m fast stop >/dev/null && echo "demo cluster stopped ($where)"
  else
    echo "no demo cluster is running"
  fi
  exit 0
fi
$SUDO make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
if [ -f "$root/data/postmaster.pid" ]; then as_pg pg_ctl -D "$root/data" -m fast stop >/dev/null 2>&1 || true; fi
rm -rf "$root"; mkdir -p "$root"
[ "$(id -u)" = 0 ] && chown -R postgres "$root"
as_pg initdb -D "$root/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$root/initdb.log" 2>&1
cat >> "$root/data/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_gpu'
listen_addresses = ''
port = $PORT
unix_socket_directories = '$root'
shared_buffers = 1GB
max_parallel_workers_per_gather = 4
jit = off
CONF
as_pg pg_ctl -D "$root/data" -l "$root/server.log" -w start >/dev/null
echo "$root" > tmp/demo.where 2>/dev/null || true

q() { psql -X -q -h "$root" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

q -c "CREATE EXTENSION pg_gpu"
gpu=$(q -At -c "SELECT name FROM pg_gpu_devices() LIMIT 1" 2>/dev/null || true)
# the GPU runs: the planner's choice on a GPU; without one, the GPU path forced
# and its engine code run on the CPU (pg_gpu.emulate_gpu), so the demo still
# shows what pg_gpu does, though not how fast
if [ -n "$gpu" ]; then
  echo "GPU: $gpu"
  on_set="SET pg_gpu.enabled = on"
  label="on"
else
  why=$(q -At -c "SELECT count(*) FROM pg_gpu_devices()" 2>&1 | sed -n 's/^DETAIL: *//p' | head -1)
  echo "No usable GPU here (${why:-pg_gpu built without CUDA}): the GPU path runs"
  echo "through pg_gpu's CPU emulation of its engine, so the answers and plans are real"
  echo "but its times say nothing about a GPU's speed."
  on_set="SET pg_gpu.enabled = on; SET pg_gpu.force = on; SET pg_gpu.emulate_gpu = on"
  label="emulated"
fi
echo "Loading demo table t ($ROWS rows)..."
q -c "CREATE TABLE t (id int8, i4 int4, f8 float8, g int4)" \
  -c "INSERT INTO t SELECT i, (random() * 2e9 - 1e9)::int4, random() * 100000, (random() * 999)::int4 FROM generate_series(1, $ROWS) i" \
  -c "VACUUM ANALYZE t"
q -At -c "SET pg_gpu.force = on" -c "SELECT count(*) FROM t" >/dev/null   # warm the session's caches

queries=(
  "SELECT min(f8), max(f8), avg(f8), stddev(f8) FROM t"
  "SELECT g, count(*), avg(f8) FROM t WHERE i4 > 0 GROUP BY g ORDER BY g LIMIT 5"
  "SELECT count(*), sum(i4), sum(id), var_pop(f8) FROM t"
)
printf '\n%-62s %-9s %10s  %s\n' "query" "pg_gpu" "time ms" "ran on"
total_off=0; total_on=0; ran_gpu=0
for sql in "${queries[@]}"; do
  for mode in off on; do
    if [ $mode = off ]; then set="SET pg_gpu.enabled = off"; else set=$on_set; fi
    out=$(q -c "$set" -c "SELECT pg_gpu_register_buffer_pool()" -c '\timing on' \
            -c "$sql" -c "$sql" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $sql" 2>&1)
    ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -2 | head -1)
    if echo "$out" | grep -q "Fallback:"; then
      where="CPU (GPU plan fell back: $(echo "$out" | sed -n 's/.*Fallback: //p' | head -1))"
    elif echo "$out" | grep -q "GpuAgg"; then
      where="GPU ($(echo "$out" | sed -n 's/.*Page Access: //p' | head -1))"
      [ $mode = on ] && ran_gpu=$((ran_gpu + 1))
    else
      where="CPU"
    fi
    printf '%-62s %-9s %10s  %s\n' "${sql:0:62}" "$([ $mode = on ] && echo $label || echo off)" "$ms" "$where"
    if [ $mode = off ]; then total_off=$(awk "BEGIN { print $total_off + ${ms:-0} }")
    else total_on=$(awk "BEGIN { print $total_on + ${ms:-0} }"); fi
  done
done
echo
echo "The first query's plan, pg_gpu off, then $label:"
q -c "SET pg_gpu.enabled = off" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${queries[0]}" | sed 's/^/  /'
q -c "$on_set" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${queries[0]}" | sed 's/^/  /'
echo "Its results, pg_gpu off and $label (15 significant digits: the last bits of float"
echo "sums depend on the order of addition, as in PostgreSQL's parallel plans):"
q -c "SET extra_float_digits = 0" -c "SET pg_gpu.enabled = off" -c "${queries[0]}"
q -c "SET extra_float_digits = 0" -c "$on_set" -c "${queries[0]}"
if [ -n "$gpu" ]; then
  echo "Conclusion: $ran_gpu of ${#queries[@]} queries ran on the GPU; all ${#queries[@]} took" \
       "$total_on ms with pg_gpu against $total_off ms without" \
       "($(awk "BEGIN { printf \"%.1f\", $total_off / ($total_on > 0 ? $total_on : 1) }")x)."
else
  echo "Conclusion: $ran_gpu of ${#queries[@]} queries ran pg_gpu's GPU path (emulated on the CPU)" \
       "and gave PostgreSQL's answers (float sums to within their last digits, as above); on a machine with an NVIDIA GPU the same demo times the GPU."
fi
echo
echo "The demo cluster is still running:  psql -h $root -p $PORT -U postgres"
[ -z "$gpu" ] &&
  echo "  (its GPU path, there as here:        $on_set;)"
echo "Stop it with:                        make demo-stop"
