#!/usr/bin/env bash
# make test's database half: install pg_gpu, then pg_regress on a throwaway
# instance (--temp-instance) with shared_preload_libraries = 'pg_gpu', run as an
# unprivileged user.  Every test runs its queries with pg_gpu.enabled = off and
# with pg_gpu.force = on against one expected output.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

REGRESS=${REGRESS:-$(sed -n 's/^REGRESS *= *//p' Makefile)}

$SUDO make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
rm -rf tmp/regress tmp/instance
mkdir -p tmp/regress
if [ "$(id -u)" = 0 ]; then chown -R postgres tmp; chmod -R a+rX sql expected test; fi

run_suite() {   # $1: label, $2: extra server options for every session
  local label=$1 opts=$2
  echo "== pg_regress: $label"
  rm -rf tmp/regress/results tmp/instance
  set +e
  as_pg env PGOPTIONS="$opts" "$PG_REGRESS" --bindir="$PGBIN" --inputdir=. --outputdir=tmp/regress \
    --temp-instance=tmp/instance --temp-config=test/regress.conf \
    --load-extension=pg_gpu $REGRESS
  local rc=$?
  set -e
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
