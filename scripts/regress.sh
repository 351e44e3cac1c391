#!/usr/bin/env bash
# make test's database half: install pg_gpu, then pg_regress on a throwaway
# instance (--temp-instance) with shared_preload_libraries = 'pg_gpu', run as an
# unprivileged user.  Every test runs its queries with pg_gpu.enabled = off and
# with pg_gpu.force = on against one expected output.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

REGRESS=${REGRESS:-$(sed -n 's/^REGRESS *= *//p' Makefile)}

# NO_INSTALL=1: test what is installed already (the Debian package, scripts/deb.sh)
[ "${NO_INSTALL:-0}" = 1 ] || $SUDO make -s install PG_CONFIG="$PG_CONFIG" >/dev/null

# pg_regress runs as an unprivileged user, who may not be able to enter this tree
# (a clone under /root, say): stage the test files in a directory it can use.
work=$(mktemp -d /tmp/pg_gpu_regress.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r sql expected test "$work"/
chmod -R a+rX "$work"
[ "$(id -u)" = 0 ] && chown -R postgres "$work"
rm -rf tmp/regress && mkdir -p tmp/regress

run_suite() {   # $1: label, $2: extra server options for every session, $3: tests,
                # $4: server configuration (default: pg_gpu preloaded), $5: pg_regress options
  local label=$1 opts=$2 tests=${3:-$REGRESS} conf=${4:-test/regress.conf}
  local extra=${5---load-extension=pg_gpu} rc
  echo "== pg_regress: $label"
  rm -rf "$work/out" "$work/instance"
  set +e
  (cd "$work" && as_pg env PGOPTIONS="$opts" "$PG_REGRESS" --bindir="$PGBIN" --inputdir=. \
      --outputdir=out --temp-instance=instance --temp-config="$conf" \
      $extra $tests)
  rc=$?
  set -e
  rm -rf tmp/regress && cp -r "$work/out" tmp/regress
  if [ $rc -ne 0 ]; then
    [ -f tmp/regress/regression.diffs ] && head -200 tmp/regress/regression.diffs
    exit $rc
  fi
  # the GPU-off and the forced run of every include printed the same text
  python3 scripts/check_halves.py tmp/regress/results/*.out
}

# 1. as a user without a GPU gets it: forced GPU plans fall back to PostgreSQL's
run_suite "GPU plans, CPU fallback" ""
# 2. the same suite with the engine emulated on the CPU, so the GpuAgg data path
#    (pinning, visibility, page decoding, partial states) runs end to end; any
#    unplanned fallback prints a warning and fails the comparison
run_suite "GPU plans, engine emulated on the CPU" "-c pg_gpu.emulate_gpu=on -c pg_gpu.expect_gpu=on"
# 3. again emulated, without the per-session table cache: every GpuAgg task (the
#    cache keeps a table's later scans in the backend's own engine) goes through
#    the GPU service's channels, so its protocol runs under the whole suite
#    (table_cache tests the cache itself)
run_suite "GPU plans, emulated, every aggregation through the GPU service" \
  "-c pg_gpu.emulate_gpu=on -c pg_gpu.expect_gpu=on -c pg_gpu.table_cache_size=0" \
  "$(echo $REGRESS | tr ' ' '\n' | grep -vx table_cache | tr '\n' ' ')"
# 4. a server that does not preload pg_gpu: CREATE EXTENSION loads the library
#    late, and it must warn and work (the GPU service's settings exist only
#    when preloaded; PostgreSQL ends a session that defines them later)
if [ -n "${REGRESS_NOPRELOAD-preload_none}" ]; then
  run_suite "pg_gpu not preloaded" "" "${REGRESS_NOPRELOAD-preload_none}" test/regress_nopreload.conf ""
fi
