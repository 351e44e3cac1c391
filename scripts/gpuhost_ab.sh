#!/usr/bin/env bash
# A before/after benchmark on the GPU host, in one call, for a change that must not
# move the numbers (a restructuring) or must move them by a stated amount.  Here,
# make the baseline's tree once:
#   echo /.before.tar >> .git/info/exclude; git archive -o .before.tar <commit>
# then, in one call with carry [".gpuhost", ".before.tar"]:
#   scripts/gpuhost_ab.sh all <bench.py arguments>
# (`base` or `head` alone runs one phase; two calls rarely land on the same machine,
# so compare only phases of one call.)  Each phase builds, installs and preloads its
# tree, runs the engine unit tests and the benchmark; logs under $OUT/base and
# $OUT/head.  The head phase reuses the tables the base phase built (--skip-build)
# and measures PostgreSQL again, so each phase's ratios stand on their own.
# SKIP_GPUCHECK=0 adds make gpucheck to the head phase.
set -uo pipefail
cd "$(dirname "$0")/.."
phase=${1:?all, base or head}; shift
OUT=${OUT:-/tmp/out}
case "$phase" in
  base)
    rm -rf /tmp/ab-base && mkdir -p /tmp/ab-base && tar -C /tmp/ab-base -xf .before.tar || exit 1
    ln -s "$PWD/.gpuhost" /tmp/ab-base/.gpuhost
    OUT=$OUT/base SKIP_GPUCHECK=1 bash /tmp/ab-base/scripts/gpuhost_run.sh "$@"
    rc=$?
    # the next phase starts the cluster again (pg-up starts it)
    .gpuhost/pgrun /opt/pgroot/usr/lib/postgresql/15/bin/pg_ctl -D /tmp/pgdata -w stop > /dev/null
    exit $rc ;;
  head)
    OUT=$OUT/head SKIP_GPUCHECK=${SKIP_GPUCHECK:-1} bash scripts/gpuhost_run.sh --skip-build "$@" ;;
  all)
    bash "$0" base "$@" && bash "$0" head "$@" ;;
  *) echo "phase: all, base or head"; exit 2 ;;
esac
