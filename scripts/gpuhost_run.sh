#!/usr/bin/env bash
# One call on the GPU host: PostgreSQL from .gpuhost, build, install, preload,
# engine unit tests on the GPU, the regression suite with make gpucheck, then the
# benchmark with the given arguments.  Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpuhost/pg-up "$PWD/.gpuhost/pg15.tar.xz" /tmp/pgdata > "$OUT/pgup.log" 2>&1 || { cat "$OUT/pgup.log"; exit 1; }
nvidia-smi -L
make -j16 > "$OUT/build.log" 2>&1 && make install >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
# HUGE_PAGES=1: shared memory in 2 MB pages (huge_pages = on), as PostgreSQL advises
# for a large shared_buffers.  With 4 kB pages every process that touches the pool
# faults its pages in: TPC-H Q6 at SF 10 cost the host 700,000 minor faults, for
# PostgreSQL's 8 workers and for pg_gpu's pin workers alike (bench/hugepages_check.sh).
if [ "${HUGE_PAGES:-0}" = 1 ]; then
  need=$(( $(psql -X -At -c "SHOW shared_memory_size_in_huge_pages") + 64 ))
  sysctl -w vm.nr_hugepages=$need > /dev/null 2>&1 || echo $need > /proc/sys/vm/nr_hugepages
  echo "huge pages: wanted $need, reserved $(awk '/^HugePages_Total/{print $2}' /proc/meminfo)"
  sed -i '/^huge_pages/d' "$PGDATA/postgresql.conf"; echo "huge_pages = on" >> "$PGDATA/postgresql.conf"
fi
grep -q "^shared_preload_libraries = 'pg_gpu'" "$PGDATA/postgresql.conf" ||
  echo "shared_preload_libraries = 'pg_gpu'" >> "$PGDATA/postgresql.conf"
pgrun pg_ctl -D "$PGDATA" -l /tmp/pg.log -w restart > /dev/null || { tail -20 /tmp/pg.log; exit 1; }
if [ "${SKIP_UNITTEST:-0}" != 1 ]; then
  make unittest > "$OUT/unittest.log" 2>&1; echo "unittest rc=$?"; tail -4 "$OUT/unittest.log"
fi
if [ "${DICT_BENCH:-0}" = 1 ]; then
  make bench/dict_bench >> "$OUT/build.log" 2>&1 && bench/dict_bench > "$OUT/dict_bench.md" 2>&1
  echo "dict_bench rc=$?"; cat "$OUT/dict_bench.md"
fi
chown -R postgres .
if [ "${SKIP_GPUCHECK:-0}" != 1 ]; then
  pgrun make gpucheck > "$OUT/gpucheck.log" 2>&1; echo "gpucheck rc=$?"
  tail -25 "$OUT/gpucheck.log"
  [ -f tmp/regress/regression.diffs ] && cp tmp/regress/regression.diffs "$OUT/" && head -80 tmp/regress/regression.diffs
fi
# issue 18's checks, each when asked for: faults (cancels, timeouts, injected
# failures), PostgreSQL's regression suite off vs forced, random differential queries
if [ "${FAULTS:-0}" = 1 ]; then
  PYTHONUNBUFFERED=1 pgrun python3 scripts/faults.py > "$OUT/faults.log" 2>&1; echo "faults rc=$?"
  tail -30 "$OUT/faults.log"
fi
if [ "${PGCHECK:-0}" = 1 ]; then
  PGCHECK_EXISTING=1 PGCHECK_SERVER_LOG=/tmp/pg.log pgrun scripts/pgcheck.sh > "$OUT/pgcheck.log" 2>&1; echo "pgcheck rc=$?"
  tail -25 "$OUT/pgcheck.log"
  [ -d tmp/pgcheck ] && tar czf "$OUT/pgcheck.tgz" -C tmp pgcheck
fi
if [ "${FUZZ:-0}" -gt 0 ]; then
  FUZZ_EXISTING=1 pgrun python3 scripts/fuzz.py --existing --queries "$FUZZ" ${FUZZ_SEED:+--seed $FUZZ_SEED} > "$OUT/fuzz.log" 2>&1; echo "fuzz rc=$?"
  tail -25 "$OUT/fuzz.log"
  [ -d tmp/fuzz ] && tar czf "$OUT/fuzz.tgz" -C tmp fuzz
fi
# the column cache under concurrent writers, on the GPU (CACHECHECK: seconds)
if [ "${CACHECHECK:-0}" -gt 0 ]; then
  CACHECHECK_EXISTING=1 pgrun python3 scripts/cache_writers.py --existing --seconds "$CACHECHECK" > "$OUT/cachecheck.log" 2>&1; echo "cachecheck rc=$?"
  tail -12 "$OUT/cachecheck.log"
fi
# TPC-H Q1 and Q6 over a generated lineitem (bench/numeric_smoke.sh), SMOKE="rows reps"
if [ -n "${SMOKE:-}" ]; then
  bash bench/numeric_smoke.sh $SMOKE > "$OUT/smoke.log" 2>&1; echo "smoke rc=$?"
  tail -40 "$OUT/smoke.log"
fi
# the Star Schema Benchmark (bench/ssb/ssb.py), with the arguments in SSB ("--sf 10")
if [ -n "${SSB:-}" ]; then
  python3 bench/ssb/ssb.py --out "$OUT" $SSB > "$OUT/ssb.log" 2>&1; echo "ssb rc=$?"
  tail -25 "$OUT/ssb.log"
fi
# TPC-H (bench/tpch/tpch.py), with the arguments in TPCH ("--sf 10"; "--sf 10 --modes
# pg8,forced --queries Q1,Q6"): tpchgen-cli from the wheel in .tpchgen/ (`make tpchgen`
# here first; carry .tpchgen with .gpuhost).  Modes default to pg8,default,forced,cache.
if [ -n "${TPCH:-}" ]; then
  PYTHONUNBUFFERED=1 python3 bench/tpch/tpch.py --out "$OUT" $TPCH > "$OUT/tpch.log" 2>&1; echo "tpch rc=$?"
  tail -45 "$OUT/tpch.log"
fi
# BASE_CONF: postgresql.conf lines for a baseline of the connection, bench and SSB runs
# below, run first in the same call ("pg_gpu.service = off"); results under $OUT/base
if [ -n "${BASE_CONF:-}" ]; then
  cp "$PGDATA/postgresql.conf" /tmp/postgresql.conf.saved
  echo "$BASE_CONF" >> "$PGDATA/postgresql.conf"
  pgrun pg_ctl -D "$PGDATA" -l /tmp/pg.log -w restart > /dev/null || { tail -20 /tmp/pg.log; exit 1; }
  mkdir -p "$OUT/base"
  if [ -n "${CONN:-}" ]; then
    python3 bench/connections.py --out "$OUT/base" $CONN > "$OUT/base/connections.log" 2>&1; echo "baseline connections ($BASE_CONF) rc=$?"
    tail -30 "$OUT/base/connections.log"
  fi
  if [ $# -gt 0 ]; then
    python3 bench/bench.py --out "$OUT/base" "$@" > "$OUT/base/bench.log" 2>&1; echo "baseline bench ($BASE_CONF) rc=$?"
    tail -40 "$OUT/base/bench.log"
  fi
  if [ -n "${SSB:-}" ]; then
    python3 bench/ssb/ssb.py --out "$OUT/base" $SSB > "$OUT/base/ssb.log" 2>&1; echo "baseline ssb ($BASE_CONF) rc=$?"
    tail -22 "$OUT/base/ssb.log"
  fi
  cp /tmp/postgresql.conf.saved "$PGDATA/postgresql.conf"
  pgrun pg_ctl -D "$PGDATA" -l /tmp/pg.log -w restart > /dev/null || { tail -20 /tmp/pg.log; exit 1; }
fi
# new connections and a connection per query (bench/connections.py), with the
# arguments in CONN ("--clients 4,16 --hold 64")
if [ -n "${CONN:-}" ]; then
  python3 bench/connections.py --out "$OUT" $CONN > "$OUT/connections.log" 2>&1; echo "connections rc=$?"
  tail -30 "$OUT/connections.log"
fi
if [ $# -gt 0 ]; then
  # after a baseline, the same tables (the baseline built them)
  python3 bench/bench.py --out "$OUT" "$@" ${BASE_CONF:+--skip-build} > "$OUT/bench.log" 2>&1; echo "bench rc=$?"
  cat "$OUT/bench.log" | tail -40
fi
cp /tmp/pg.log "$OUT/pg.log" 2>/dev/null
exit 0
