#!/usr/bin/env bash
# make demo: a throwaway cluster under ./tmp/demo (run as an unprivileged user),
# pg_gpu preloaded, a sample table of a few million rows, and the sample aggregate
# queries with pg_gpu off and on, printing each one's time and where it ran.
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
trap 'as_pg pg_ctl -D "$root/data" -m fast stop >/dev/null 2>&1 || true' EXIT

q() { psql -X -q -h "$root" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

q -c "CREATE EXTENSION pg_gpu"
gpu=$(q -At -c "SELECT name FROM pg_gpu_devices() LIMIT 1" 2>/dev/null || true)
if [ -n "$gpu" ]; then
  echo "GPU: $gpu"
else
  echo "No usable GPU (or pg_gpu built without CUDA): every query runs on PostgreSQL's CPU plans."
fi
echo "Loading demo table t ($ROWS rows)..."
q -c "CREATE TABLE t (id int8, i4 int4, f8 float8, g int4)" \
  -c "INSERT INTO t SELECT i, (random() * 2e9 - 1e9)::int4, random() * 100000, (random() * 999)::int4 FROM generate_series(1, $ROWS) i" \
  -c "VACUUM ANALYZE t"
q -At -c "SET pg_gpu.force = on" -c "SELECT count(*) FROM t" >/dev/null   # warm the session's caches

queries=(
  "SELECT min(f8), max(f8), avg(f8), stddev(f8) FROM t"
  "SELECT min(i4), max(i4), avg(i4), stddev(i4) FROM t"
  "SELECT count(*), sum(i4), sum(id), var_pop(f8) FROM t"
)
printf '\n%-62s %-12s %10s  %s\n' "query" "pg_gpu" "time ms" "ran on"
for sql in "${queries[@]}"; do
  for mode in off on; do
    out=$(q -c "SET pg_gpu.enabled = $mode" -c "SELECT pg_gpu_register_buffer_pool()" -c '\timing on' \
            -c "$sql" -c "$sql" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $sql" 2>&1)
    ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -2 | head -1)
    if echo "$out" | grep -q "Fallback:"; then
      where="CPU (GPU plan fell back: $(echo "$out" | sed -n 's/.*Fallback: //p' | head -1))"
    elif echo "$out" | grep -q "GpuAgg"; then
      where="GPU ($(echo "$out" | sed -n 's/.*Page Access: //p' | head -1))"
    else
      where="CPU"
    fi
    printf '%-62s %-12s %10s  %s\n' "${sql:0:62}" "$mode" "$ms" "$where"
  done
done
echo
echo "Results of the first query, pg_gpu off and on (15 significant digits: the last"
echo "bits of float sums depend on the order of addition, as in PostgreSQL's parallel plans):"
q -c "SET extra_float_digits = 0" -c "SET pg_gpu.enabled = off" -c "${queries[0]}"
q -c "SET extra_float_digits = 0" -c "SET pg_gpu.enabled = on" -c "${queries[0]}"
