#!/usr/bin/env bash
# make deb: the Debian package postgresql-15-pg-gpu, built with the Debian
# PostgreSQL tooling (pg_buildext through debhelper's pgxs_loop) from a copy of the
# tracked files in tmp/deb/src, so the tree's own build is left alone.  The .deb
# lands in tmp/deb/.  With --check (make test's deb stage) it is then installed
# (apt) and the regression suite runs against the installed files on a throwaway
# preloaded cluster, exactly as `make test` runs it against `make install`; then
# the package is removed and the tree's build installed again.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

need=()
command -v dpkg-buildpackage >/dev/null 2>&1 || need+=(dpkg-dev)
command -v dh >/dev/null 2>&1 || need+=(debhelper)
command -v pg_buildext >/dev/null 2>&1 || need+=(postgresql-server-dev-all)
[ -f /usr/share/perl5/Debian/Debhelper/Sequence/pgxs_loop.pm ] || need+=(postgresql-server-dev-all)
if [ ${#need[@]} -gt 0 ]; then
  echo "pg_gpu: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" > tmp/deb-apt.log 2>&1 ||
    { cat tmp/deb-apt.log; exit 1; }
fi

rm -rf tmp/deb && mkdir -p tmp/deb/src
git ls-files -z | xargs -0 cp --parents -t tmp/deb/src
(cd tmp/deb/src && dpkg-buildpackage -us -uc -b) > tmp/deb/build.log 2>&1 ||
  { tail -40 tmp/deb/build.log; echo "pg_gpu: the package did not build (tmp/deb/build.log)"; exit 1; }
deb=$(ls tmp/deb/postgresql-15-pg-gpu_*.deb)
echo "pg_gpu: built $deb ($(du -h "$deb" | cut -f1)): $(dpkg-deb -c "$deb" | grep -c '/usr/') files"
grep -E "pg_gpu: building|nvcc not found" tmp/deb/build.log | head -1 || true

if [ "${1:-}" = --check ]; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --reinstall "./$deb" > tmp/deb/install.log 2>&1 ||
    { cat tmp/deb/install.log; exit 1; }
  dpkg -s postgresql-15-pg-gpu | grep -E '^(Package|Version|Status)'
  # the installed files are the package's (dpkg owns them)
  dpkg -S "$($PG_CONFIG --pkglibdir)/pg_gpu.so" "$($PG_CONFIG --sharedir)/extension/pg_gpu.control"
  NO_INSTALL=1 scripts/regress.sh
  # leave the server as make test leaves it: the tree's build, owned by no package
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get remove -y -qq postgresql-15-pg-gpu > /dev/null 2>&1
  $SUDO make -s install PG_CONFIG="$PG_CONFIG" > /dev/null
  echo "pg_gpu: the package installed and passed the regression suite; removed again"
fi
