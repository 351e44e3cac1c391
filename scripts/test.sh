#!/usr/bin/env bash
# make test: every stage with its output in tmp/test-logs/<stage>.log and one line
# here (what it checked, or where it failed, with the end of its log), then one
# verdict line.  V=1 shows every stage's output as it runs.
#
# Stages: build; engine unit tests; pg_regress on a throwaway preloaded cluster
# (plain, with the engine emulated on the CPU, and emulated with every aggregation
# through the GPU service; after each, the off/forced halves compared); PostgreSQL's own regression files off vs forced (pgcheck); 300 random
# differential queries with a new seed (fuzz); the column cache read while writers
# change its table (cachechk); SSB over a coordinator and 2 postgres_fdw shards
# against one plain PostgreSQL (shardchk); the Debian package built, installed and tested (deb).
set -uo pipefail
cd "$(dirname "$0")/.."
logs=tmp/test-logs
rm -rf "$logs" && mkdir -p "$logs"
MAKE=${MAKE:-make}
failed=0
stages=0

# stage NAME SUMMARY-REGEX COMMAND...: run it, print one line
stage() {
  local name=$1 pat=$2 rc t0 t1 line
  shift 2
  stages=$((stages + 1))
  t0=$(date +%s)
  if [ "${V:-0}" = 1 ]; then
    "$@" 2>&1 | tee "$logs/$name.log"
    rc=${PIPESTATUS[0]}
  else
    "$@" > "$logs/$name.log" 2>&1
    rc=$?
  fi
  t1=$(date +%s)
  line=$(grep -E "$pat" "$logs/$name.log" | tail -3 | tr '\n' ' ' | sed 's/  */ /g; s/ $//')
  if [ "$rc" = 0 ]; then
    printf '%-9s ok    %4ss  %s\n' "$name" $((t1 - t0)) "$line"
  else
    failed=$((failed + 1))
    printf '%-9s FAIL  %4ss  %s (log: %s)\n' "$name" $((t1 - t0)) "$line" "$logs/$name.log"
    tail -40 "$logs/$name.log" | sed 's/^/    /'
  fi
  return "$rc"
}

# the build, and a line saying what it did: what had to be compiled (nothing, after
# an earlier build), and whether pg_gpu.so has the GPU engine (nvcc found) or the
# stub of a build without CUDA
build() {
  local stamp=$logs/.build-start n engine note lib=cuda/libpg_gpu_engine.a
  touch "$stamp"
  $MAKE -s all || return
  n=$(find src cuda -name '*.o' -newer "$stamp" | wc -l)
  if ar t "$lib" | grep -qx engine_stub.o; then
    engine="without the GPU engine (nvcc not found: CPU plans only)"
  else
    # make names nvcc and the archs when it rebuilds the engine's library
    note=$(sed -nE 's/^pg_gpu: building the GPU engine with (.*)/\1/p' "$logs/build.log" | tail -1)
    engine="with the GPU engine ($(ar t "$lib" | wc -l) CUDA objects built by ${note:-nvcc})"
  fi
  if [ pg_gpu.so -nt "$stamp" ]; then
    case $n in 0) n="nothing compiled" ;; 1) n="1 object compiled" ;; *) n="$n objects compiled" ;; esac
    [ "$lib" -nt "$stamp" ] && n="$n, the engine's library rebuilt"
    echo "build: pg_gpu.so linked ($n), $engine"
  else
    echo "build: up to date, nothing rebuilt; pg_gpu.so $engine"
  fi
}

stage build '^build: ' build ||
  { echo "pg_gpu tests: the build failed, nothing else ran"; exit 1; }
stage unittest '^[0-9]+ passed, [0-9]+ failed$|^GPU engine tests skipped' $MAKE -s unittest
# regress.sh's last line: each of its three pg_regress passes and its halves checks
stage regress '^regress: ' scripts/regress.sh
stage pgcheck '^pgcheck: [0-9]+ files' scripts/pgcheck.sh
stage fuzz '^fuzz: seed [0-9]+, ' python3 scripts/fuzz.py --queries 300
stage cachechk '^cachecheck: seed [0-9]+, ' python3 scripts/cache_writers.py --seconds 20
stage shardchk '^shardcheck: ' scripts/shard.sh --engine fdw --shards 2 --sf 0.05
# the Debian package: built, installed, the regression suite against it (needs
# root or sudo for apt)
if [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; then
  stage deb '^pg_gpu: built|^regress: |^pg_gpu: the package installed' scripts/deb.sh --check
else
  echo "deb       skipped: building and installing the package needs root or sudo"
fi
echo "pg_gpu tests: $stages stages, $failed failed (logs in $logs/)"
[ "$failed" = 0 ]
