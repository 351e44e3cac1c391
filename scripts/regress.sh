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
# the last line, passed or not: every pass's tests and every pass's halves check
# (scripts/test.sh shows it as the stage's line)
passes=() halves=()
join() { local sep=$1 out=$2; shift 2; for x; do out+="$sep$x"; done; printf '%s' "$out"; }
finish() {
  rm -rf "$work"
  [ ${#passes[@]} -gt 0 ] || return 0
  echo "regress: $(join ', ' "${passes[@]}")${halves[0]:+; forced runs of includes equal to their GPU-off runs: $(join ', ' "${halves[@]}")}"
}
trap finish EXIT
cp -r sql expected test "$work"/
chmod -R a+rX "$work"
[ "$(id -u)" = 0 ] && chown -R postgres "$work"
rm -rf tmp/regress && mkdir -p tmp/regress

# $1: label, $2: its short name in the last line, $3: extra server options for every
# session, $4: tests, $5: server configuration (default: pg_gpu preloaded), $6:
# pg_regress options (default: install the extension in the test database)
run_suite() {
  local label=$1 name=$2 opts=$3 tests=${4:-$REGRESS} conf=${5:-test/regress.conf}
  local extra=${6---load-extension=pg_gpu} rc res left= out p f
  echo "== pg_regress: $label"
  rm -rf "$work/out" "$work/instance"
  set +e
  (cd "$work" && as_pg env PGOPTIONS="$opts" "$PG_REGRESS" --bindir="$PGBIN" --inputdir=. \
      --outputdir=out --temp-instance=instance --temp-config="$conf" \
      $extra $tests) 2>&1 | tee "$work/pass.log"
  rc=${PIPESTATUS[0]}
  set -e
  # pg_regress's verdict: "All N tests passed.", "F of N tests failed." (", K of
  # these failures ignored."), "P of N tests passed, K failed test(s) ignored."
  res=$(sed -nE 's/^ *All ([0-9]+) tests passed\. *$/\1\/\1/p
    s/^ *([0-9]+) of ([0-9]+) tests passed, ([0-9]+) failed.*/\1\/\2 (\3 failures ignored)/p
    s/^ *([0-9]+) of ([0-9]+) tests failed.*/-\1 \2/p' "$work/pass.log" | tail -1)
  case $res in
    -*) set -- $res; res="$(($2 + ${1}))/$2 (${1#-} FAILED)" ;;
    '') res="did not finish (pg_regress exit $rc)" ;;
  esac
  # tests of the suite this pass leaves out
  [ -z "${5:-}" ] &&
    left=$(comm -23 <(printf '%s\n' $REGRESS | sort) <(printf '%s\n' $tests | sort) | tr '\n' ' ')
  passes+=("$name $res${left:+ (${left% } not in this pass)}")
  rm -rf tmp/regress && cp -r "$work/out" tmp/regress
  if [ $rc -ne 0 ]; then
    [ -f tmp/regress/regression.diffs ] && head -200 tmp/regress/regression.diffs
    exit $rc
  fi
  # the GPU-off and the forced run of every include printed the same text (a
  # pass on another server configuration runs tests without includes)
  [ -z "${5:-}" ] || [ "${7:-}" = halves ] || return 0
  set +e
  out=$(python3 scripts/check_halves.py tmp/regress/results/*.out)
  rc=$?
  set -e
  echo "$out"
  p=$(echo "$out" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' | tail -1)
  f=$(echo "$out" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' | tail -1)
  if [ "$f" = 0 ]; then
    halves+=("$p/$p")
  elif [ -n "$f" ]; then
    halves+=("$p/$((p + f)) ($f DIFFER)")
  else
    halves+=("$name: check_halves.py did not finish")
  fi
  [ $rc = 0 ] || exit $rc
}

# 1. as a user without a GPU gets it: forced GPU plans fall back to PostgreSQL's
run_suite "GPU plans, CPU fallback" plain ""
# 2. the same suite with the engine emulated on the CPU, so the GpuAgg data path
#    (pinning, visibility, page decoding, partial states) runs end to end; any
#    unplanned fallback prints a warning and fails the comparison
run_suite "GPU plans, engine emulated on the CPU" emulated "-c pg_gpu.emulate_gpu=on -c pg_gpu.expect_gpu=on"
# 3. again emulated, without the per-session table cache: every GpuAgg task (the
#    cache keeps a table's later scans in the backend's own engine) goes through
#    the GPU service's channels, so its protocol runs under the whole suite
#    (table_cache tests the cache itself)
run_suite "GPU plans, emulated, every aggregation through the GPU service" service \
  "-c pg_gpu.emulate_gpu=on -c pg_gpu.expect_gpu=on -c pg_gpu.table_cache_size=0" \
  "$(echo $REGRESS | tr ' ' '\n' | grep -vx table_cache | tr '\n' ' ')"
# 4. a server that does not preload pg_gpu: CREATE EXTENSION loads the library
#    late, and it must warn and work (the GPU service's settings exist only
#    when preloaded; PostgreSQL ends a session that defines them later)
if [ -n "${REGRESS_DEVICES-service_devices}" ]; then
  run_suite "two GPU service workers, emulated" "two workers" \
    "-c pg_gpu.emulate_gpu=on -c pg_gpu.expect_gpu=on -c pg_gpu.table_cache_size=0" \
    "${REGRESS_DEVICES-service_devices}" test/regress_devices.conf --load-extension=pg_gpu halves
fi
if [ -n "${REGRESS_NOPRELOAD-preload_none}" ]; then
  run_suite "pg_gpu not preloaded" "not preloaded" "" "${REGRESS_NOPRELOAD-preload_none}" \
    test/regress_nopreload.conf ""
fi
