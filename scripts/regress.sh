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

set +e
as_pg "$PG_REGRESS" --bindir="$PGBIN" --inputdir=. --outputdir=tmp/regress \
  --temp-instance=tmp/instance --temp-config=test/regress.conf \
  --load-extension=pg_gpu $REGRESS
rc=$?
set -e
if [ $rc -ne 0 ] && [ -f tmp/regress/regression.diffs ]; then
  head -200 tmp/regress/regression.diffs
fi
[ $rc -eq 0 ] || exit $rc
# the GPU-off and the forced run of every include printed the same text
python3 scripts/check_halves.py tmp/regress/results/*.out
