#!/usr/bin/env bash
# A before/after benchmark on the GPU host, in two calls on one warm machine, for a
# change that must not move the numbers (a restructuring) or must move them by a
# stated amount.  Here, make the baseline's tree once:
#   echo /.before.tar >> .git/info/exclude; git archive -o .before.tar <commit>
# then, with carry [".gpuhost", ".before.tar"]:
#   call 1:  scripts/gpuhost_ab.sh base  <bench.py arguments>
#   call 2:  scripts/gpuhost_ab.sh head  <the same arguments>   (within the 30 s the
#            machine stays warm: the cluster and its tables are kept; head adds
#            --skip-build and runs make gpucheck on the working tree)
# Each phase builds, installs and preloads its tree, runs the engine unit tests and
# the benchmark; logs under $OUT/base or $OUT/head.  The baseline's PostgreSQL timings
# are measured again in the head phase, so each phase's ratios stand on their own.
set -uo pipefail
cd "$(dirname "$0")/.."
phase=${1:?base or head}; shift
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
    OUT=$OUT/head bash scripts/gpuhost_run.sh --skip-build "$@" ;;
  *) echo "phase: base or head"; exit 2 ;;
esac
