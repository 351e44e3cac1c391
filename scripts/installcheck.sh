#!/usr/bin/env bash
# make installcheck: the pg_regress suite against a running server that preloads
# pg_gpu, chosen by the usual libpq variables (PGHOST, PGPORT, PGUSER), in the
# database contrib_regression.  The test files are staged in a directory of
# their own, so it works from a tree the server's user cannot write (or read);
# run as root, pg_regress runs as the 'postgres' user, whom peer authentication
# over the local socket then admits.  Results land in tmp/regress/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

REGRESS=${REGRESS:-$(sed -n 's/^REGRESS *= *//p' Makefile)}
work=$(mktemp -d /tmp/pg_gpu_installcheck.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r sql expected test "$work"/
chmod -R a+rX "$work"
[ "$(id -u)" = 0 ] && chown -R postgres "$work"
set +e
(cd "$work" && as_pg env PGOPTIONS="${PGOPTIONS:-}" "$PG_REGRESS" --bindir="$PGBIN" --inputdir=. \
    --outputdir=out --dbname=contrib_regression --load-extension=pg_gpu $REGRESS)
rc=$?
set -e
if rm -rf tmp/regress 2>/dev/null && mkdir -p tmp && cp -r "$work/out" tmp/regress 2>/dev/null; then
  out=tmp/regress
else
  out=$(mktemp -d /tmp/pg_gpu_installcheck_out.XXXXXX)
  cp -r "$work/out/." "$out"/
fi
echo "installcheck: results in $out/"
if [ $rc -ne 0 ] && [ -f "$out/regression.diffs" ]; then
  echo "installcheck: differences in $out/regression.diffs"
fi
exit $rc
