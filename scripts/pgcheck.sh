#!/usr/bin/env bash
# make pgcheck — PostgreSQL 15's own regression files as pg_gpu's differential check.
#
# Every test file runs twice, each time in a fresh database cloned from one template
# (the setup files below + CREATE EXTENSION pg_gpu): once with pg_gpu.enabled = off and
# once with pg_gpu.force = on, through psql as pg_regress runs it.  The two outputs must
# be equal once scripts/pgcheck_diff.py has neutralised EXPLAIN's plan text, per-database
# names and the row order of unordered queries; any other difference that
# scripts/pgcheck_allow.txt does not explain fails the check, and so does a crash or a
# lost connection.  The forced runs go one at a time, so the change in pg_gpu_stats
# (cluster-wide counters) around each is that file's GPU runs and fallbacks; the GPU-off
# runs go beside them (two jobs).
#
# The regression files come from the PostgreSQL 15 Debian source package, fetched at
# test time into .pgregress/ (git-ignored; never copied into the repository):
# sql/, expected/, data/, regress.c.  regress.so is compiled from regress.c with the
# installed server headers.  With .pgregress/ present nothing is fetched, so the folder
# can be carried to a host without network.
#
# Modes:
#   default (CI, no GPU): a throwaway cluster under a temporary directory, as user
#     postgres, with test/regress.conf's settings (but PostgreSQL's default parallelism)
#     and pg_gpu.emulate_gpu = on in every session.
#   PGCHECK_EXISTING=1 (GPU host): the running server named by PGHOST/PGPORT/PGUSER,
#     which must preload pg_gpu; no emulation.  PGCHECK_SERVER_LOG=/tmp/pg.log lets it
#     look for crashes in the server log too.
# Other knobs: PGCHECK_TESTS="a b c" (a subset), PGCHECK_TIMEOUT (seconds per file run,
# default 600), PGCHECK_KEEP=1 (keep the temporary cluster), PGCHECK_OPTS (more
# "-c name=value" for both runs, e.g. parallel_setup_cost=0 to get parallel plans
# everywhere), PGCHECK_GPU_OPTS (more for the forced run only, e.g.
# pg_gpu.join_batch_rows=3 to stress the engine's batching).
#
# Outputs: tmp/pgcheck/{off,gpu}/<test>.out, tmp/pgcheck/diff/<test>.diff,
# tmp/pgcheck/report.txt; the last line printed is the verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. scripts/common.sh

CACHE=$ROOT/.pgregress
OUTDIR=$ROOT/tmp/pgcheck
EXISTING=${PGCHECK_EXISTING:-0}
TIMEOUT=${PGCHECK_TIMEOUT:-600}

# Setup files run once into the template, in this order (pg_regress's schedule runs
# them before every test below):
#   test_setup    the shared tables (onek, tenk1, INT4_TBL, ...), regress.so functions
#   create_index  the indexes on those tables that the later tests' plans rely on
#   create_table, create_misc  the a_star family and other shared tables (join,
#                 with, select_parallel, hash_index read them)
#   create_aggregate  the aggregates that aggregates.sql calls (newavg, aggfns, ...)
SETUP="test_setup create_index create_table create_misc create_aggregate"

# The files compared.  Each runs standalone on the template: its GPU-off output equals
# PostgreSQL's expected output (the report's "vs exp" column), but for rules,
# updatable_views, alter_table and psql, whose few lines differ for the database's name
# ("regression" in expected/) or the 15.20 server running 15.18's files.  Left out:
# files that need contrib modules or many earlier files (triggers, xmlmap), cluster-wide
# state (tablespace, database, prepared_xacts, stats, sysviews), random, and files
# whose COPY FROM STDIN errors make psql 15.20 swallow the rest of the file (copy2,
# copyselect, generated, rowsecurity, privileges).
TESTS_DEFAULT="
  boolean char varchar text int2 int4 int8 float4 float8 numeric bit uuid enum
  strings numerology date time timetz timestamp timestamptz interval horology
  rangetypes multirangetypes json jsonb jsonb_jsonpath tsearch
  expressions case arrays rowtypes tid tidscan tidrangescan
  select select_into select_distinct select_distinct_on select_implicit select_having
  subselect union join join_hash aggregates groupingsets window with limit
  tuplesort incremental_sort memoize equivclass functional_deps tsrf
  partition_join partition_prune partition_aggregate partition_info hash_part inherit
  portals prepare returning insert update delete merge insert_conflict
  btree_index hash_index brin gin gist spgist tablesample bitmapops cluster
  namespace create_view select_views matview create_table_like typed_table rules
  updatable_views constraints foreign_key alter_table indexing compression fast_default
  polymorphism plpgsql create_procedure collate conversion stats_ext misc_functions
  select_parallel write_parallel transactions rangefuncs domain temp truncate
  plancache identity explain guc vacuum psql
"
TESTS=${PGCHECK_TESTS:-$TESTS_DEFAULT}
TESTS=$(echo $TESTS)

# ---- 1. PostgreSQL's regression files -------------------------------------------
fetch_sources() {
  if [ -f "$CACHE/sql/test_setup.sql" ] && [ -d "$CACHE/expected" ] && [ -d "$CACHE/data" ] &&
     [ -f "$CACHE/regress.c" ]; then
    return 0
  fi
  echo "pgcheck: fetching PostgreSQL 15's regression files from the Debian source package"
  local sudo=
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "pgcheck: need root or sudo to add a deb-src entry (or provide .pgregress/)" >&2; exit 1; }
    sudo=sudo
  fi
  command -v apt-get >/dev/null 2>&1 || { echo "pgcheck: no apt-get here; copy .pgregress/ from a Debian machine" >&2; exit 1; }
  if ! apt-cache showsrc postgresql-15 2>/dev/null | grep -q '^Directory: pool/main/'; then
    # Debian 12's main suite.  Match the Signed-By of the existing deb822 entries for
    # deb.debian.org, or apt refuses conflicting values for the same source.
    local opt=
    if grep -rqs '^Signed-By: */usr/share/keyrings/debian-archive-keyring.gpg' /etc/apt/sources.list.d/*.sources; then
      opt='[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] '
    fi
    echo "deb-src ${opt}http://deb.debian.org/debian bookworm main" |
      $sudo tee /etc/apt/sources.list.d/pgcheck-deb-src.list >/dev/null
    $sudo apt-get update -qq
  fi
  # the version served from the main pool (the security suite's newest is not)
  local ver
  ver=$(apt-cache showsrc postgresql-15 | awk '
      /^Version:/ {v=$2} /^Directory:/ {if ($2 ~ /^pool\/main\//) print v}' | sort -V | tail -1)
  [ -n "$ver" ] || { echo "pgcheck: apt-cache showsrc lists no postgresql-15 in pool/main" >&2; exit 1; }
  local dl
  dl=$(mktemp -d /tmp/pgcheck_src.XXXXXX)
  chmod 777 "$dl"     # apt's _apt user downloads into it
  (cd "$dl" && $sudo apt-get source --download-only -qq "postgresql-15=$ver" >/dev/null 2>&1) ||
    (cd "$dl" && $sudo apt-get source --download-only "postgresql-15=$ver")
  local tarball
  tarball=$(ls "$dl"/postgresql-15_*.orig.tar.*)
  case "$tarball" in
    *.bz2) command -v bzip2 >/dev/null 2>&1 || { $sudo apt-get install -y -qq bzip2 >/dev/null; } ;;
  esac
  local top
  top=$(basename "$tarball" | sed 's/^postgresql-15_\(.*\)\.orig\.tar\..*$/postgresql-\1/')
  rm -rf "$CACHE.new" && mkdir -p "$CACHE.new"
  tar -xf "$tarball" -C "$CACHE.new" --strip-components=4 \
      "$top/src/test/regress/sql" "$top/src/test/regress/expected" "$top/src/test/regress/data" \
      "$top/src/test/regress/regress.c" "$top/src/test/regress/parallel_schedule" \
      "$top/src/test/regress/resultmap"
  echo "$ver" > "$CACHE.new/VERSION"
  rm -rf "$CACHE" && mv "$CACHE.new" "$CACHE"
  $sudo rm -rf "$dl"
  echo "pgcheck: PostgreSQL $ver's src/test/regress in .pgregress/"
}

# regress.so: regress.c's functions, which test_setup.sql loads.  Built with the
# installed server's headers (Debian does not ship it); rebuilt when they change.
build_regress_so() {
  local inc stamp
  inc=$($PG_CONFIG --includedir-server)
  stamp="$($PG_CONFIG --version) $inc $(cksum < "$CACHE/regress.c")"
  mkdir -p "$CACHE/lib"
  if [ -f "$CACHE/lib/regress.so" ] && [ "$(cat "$CACHE/lib/regress.stamp" 2>/dev/null)" = "$stamp" ]; then
    return 0
  fi
  ${CC:-cc} -fPIC -shared -O2 -w -I"$inc" "$CACHE/regress.c" -o "$CACHE/lib/regress.so"
  echo "$stamp" > "$CACHE/lib/regress.stamp"
}

fetch_sources
build_regress_so

# ---- 2. a place the server can read and write ------------------------------------
# COPY ... FROM :'abs_srcdir'/data/... is read by the server, and some files write
# under PG_ABS_BUILDDIR: stage them where the user 'postgres' can reach.
WORK=$(mktemp -d /tmp/pgcheck.XXXXXX)
cp -r "$CACHE/sql" "$CACHE/data" "$WORK/"
mkdir -p "$WORK/lib" "$WORK/build" "$WORK/log"
cp "$CACHE/lib/regress.so" "$WORK/lib/"
chmod -R a+rwX "$WORK"
chmod a+rx "$WORK"
[ "$(id -u)" = 0 ] && chown -R postgres "$WORK"
rm -rf "$OUTDIR" && mkdir -p "$OUTDIR"/{off,gpu,diff,stats,setup}

PGDATA_TMP=
cleanup() {
  if [ -n "$PGDATA_TMP" ] && [ "${PGCHECK_KEEP:-0}" != 1 ]; then
    as_pg "$PGBIN/pg_ctl" -D "$PGDATA_TMP" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  if [ "${PGCHECK_KEEP:-0}" != 1 ]; then rm -rf "$WORK"; else echo "pgcheck: kept $WORK"; fi
}
trap cleanup EXIT

# ---- 3. the server ---------------------------------------------------------------
MODE_OPTS=
SERVER_LOG=${PGCHECK_SERVER_LOG:-}
if [ "$EXISTING" = 1 ]; then
  echo "pgcheck: using the running server (PGHOST=${PGHOST:-} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-})"
else
  # a free port (the socket lives in $WORK, so this only avoids TCP clashes)
  PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  PGHOST=$WORK
  PGUSER=postgres
  export PGHOST PGPORT PGUSER
  PGDATA_TMP=$WORK/pgdata
  loc=C.UTF-8
  locale -a 2>/dev/null | grep -qix 'c.utf-\?8' || loc=C
  as_pg "$PGBIN/initdb" -D "$PGDATA_TMP" -U postgres --auth=trust --no-sync -E UTF8 --locale=$loc \
      > "$WORK/log/initdb.log" 2>&1 || { cat "$WORK/log/initdb.log"; exit 1; }
  {
    echo "# pgcheck: test/regress.conf without its max_parallel_workers_per_gather = 0"
    grep -v '^max_parallel_workers_per_gather' test/regress.conf
    # what pg_regress's temporary instance adds
    echo "log_line_prefix = '%m %b[%p] %q%a '"
    echo "log_autovacuum_min_duration = 0"
    echo "log_lock_waits = on"
    echo "max_prepared_transactions = 2"
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$WORK'"
    echo "port = $PGPORT"
    # speed only (CREATE DATABASE for every run): no effect on query results
    echo "fsync = off"
    # no auto-analyze between the two runs of a file: plans stay comparable
    echo "autovacuum = off"
  } >> "$PGDATA_TMP/postgresql.conf"
  SERVER_LOG=$WORK/log/postmaster.log
  as_pg "$PGBIN/pg_ctl" -D "$PGDATA_TMP" -l "$SERVER_LOG" -w start >/dev/null ||
    { cat "$SERVER_LOG"; exit 1; }
  MODE_OPTS="-c pg_gpu.emulate_gpu=on"
  echo "pgcheck: throwaway cluster on port $PGPORT ($PGDATA_TMP), pg_gpu.emulate_gpu = on"
fi

# psql as pg_regress runs it (pg_regress.c: initialize_environment, psql_start_test)
pgenv() {
  as_pg env -u LANGUAGE -u LC_ALL -u PGCLIENTENCODING -u PGDATABASE -u PGSERVICE \
    PGHOST="${PGHOST:-}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-}" \
    PGAPPNAME=pg_regress LC_MESSAGES=C PGTZ=America/Los_Angeles PGDATESTYLE="Postgres, MDY" \
    PG_ABS_SRCDIR="$WORK" PG_LIBDIR="$WORK/lib" PG_DLSUFFIX=.so "$@"
}
sql() {   # sql DB COMMAND...: quiet, fail on error
  local db=$1; shift
  local a=()
  for c in "$@"; do a+=(-c "$c"); done
  pgenv psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "${a[@]}"
}
wait_ready() {
  local i
  for i in $(seq 1 120); do
    pgenv "$PGBIN/pg_isready" -q -d postgres && return 0
    sleep 1
  done
  echo "pgcheck: the server does not answer" >&2
  return 1
}
wait_ready
sql postgres "SHOW shared_preload_libraries" | grep -q pg_gpu ||
  { echo "pgcheck: the server does not preload pg_gpu (shared_preload_libraries)" >&2; exit 1; }

PSQLVARS="-v HIDE_TABLEAM=on -v HIDE_TOAST_COMPRESSION=on"
# pg_regress adds intervalstyle; synchronous_commit = on as on a default cluster (the
# GPU host's runs with it off, and late hint bits change plans: test_setup.sql says so)
BASEOPTS="-c intervalstyle=postgres_verbose -c synchronous_commit=on"

# pg_regress's per-database settings (pg_regress.c: create_database)
DBSET="lc_messages TO 'C'|lc_monetary TO 'C'|lc_numeric TO 'C'|lc_time TO 'C'|bytea_output TO 'hex'|timezone_abbreviations TO 'Default'"
create_db() {   # create_db NAME TEMPLATE
  local a=("SET client_min_messages = warning" "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)"
           "CREATE DATABASE \"$1\" TEMPLATE \"$2\"")
  local IFS='|'
  for s in $DBSET; do a+=("ALTER DATABASE \"$1\" SET $s"); done
  unset IFS
  sql postgres "${a[@]}" >/dev/null
}
drop_db() {
  sql postgres "SET client_min_messages = warning" "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" >/dev/null 2>&1 || true
}

# ---- 4. the template ---------------------------------------------------------------
TEMPLATE=pgcheck_template
sql postgres "SET client_min_messages = warning" \
  "DROP DATABASE IF EXISTS pgcheck_ctl WITH (FORCE)" \
  "ALTER DATABASE $TEMPLATE IS_TEMPLATE false" >/dev/null 2>&1 || true
drop_db $TEMPLATE
create_db $TEMPLATE template0
sql $TEMPLATE "CREATE EXTENSION pg_gpu" >/dev/null
# pg_gpu_stats is read from its own database (cluster-wide counters in shared memory)
sql postgres "CREATE DATABASE pgcheck_ctl TEMPLATE template0" >/dev/null
sql pgcheck_ctl "CREATE EXTENSION pg_gpu" >/dev/null
for s in $SETUP; do
  pgenv env PGOPTIONS="$BASEOPTS -c pg_gpu.enabled=off" \
    PG_ABS_BUILDDIR="$WORK/build" \
    psql -X -a -q -d $TEMPLATE $PSQLVARS < "$WORK/sql/$s.sql" > "$OUTDIR/setup/$s.out" 2>&1 || true
  n_out=$(grep -c '^ERROR:' "$OUTDIR/setup/$s.out" || true)
  n_exp=$(grep -c '^ERROR:' "$CACHE/expected/$s.out" || true)
  if [ "$n_out" != "$n_exp" ]; then
    echo "pgcheck: setup file $s printed $n_out errors, PostgreSQL's expected output has $n_exp:" >&2
    diff "$CACHE/expected/$s.out" "$OUTDIR/setup/$s.out" | head -40 >&2
    exit 1
  fi
done
sql postgres "ALTER DATABASE $TEMPLATE IS_TEMPLATE true" >/dev/null
echo "pgcheck: template $TEMPLATE ready ($SETUP + CREATE EXTENSION pg_gpu)"

# ---- 5. the runs -------------------------------------------------------------------
# Files that create roles (cluster-wide objects) never run at the same time as another
# such file: they share role names.
ROLE_RE='create (role|user|group)'
LOCK=$WORK/roles.lock
lock_roles() {
  if command -v flock >/dev/null 2>&1; then exec 9>"$LOCK"; flock 9
  else until mkdir "$LOCK.d" 2>/dev/null; do sleep 0.2; done; fi
}
unlock_roles() {
  if command -v flock >/dev/null 2>&1; then flock -u 9; exec 9>&-
  else rmdir "$LOCK.d"; fi
}

# Files that read what earlier files of pg_regress's schedule left behind: those run
# first in the same database, with pg_gpu off, and their output is not compared.
prereqs() {
  case $1 in
    horology) echo "date time timetz timestamp timestamptz interval" ;;
    multirangetypes) echo "rangetypes" ;;   # arrayrange, ...
    select_views) echo "create_view" ;;     # street, toyemp, ...
    psql) echo "create_am" ;;               # the heap2 access method
  esac
}

stats_snapshot() {   # node kind -> runs, fallbacks; and fallbacks by reason
  sql pgcheck_ctl "SELECT 'S', node, gpu_executions + emulated_runs, cpu_fallbacks FROM pg_gpu_stats ORDER BY 1, 2" \
    "SELECT 'F', node || ': ' || reason, count, 0 FROM pg_gpu_fallbacks ORDER BY 1, 2" 2>/dev/null || true
}
log_size() { [ -n "$SERVER_LOG" ] && [ -r "$SERVER_LOG" ] && stat -c %s "$SERVER_LOG" || echo 0; }

run_one() {   # run_one MODE TEST
  local mode=$1 t=$2 db="pgcheck_$1_$2" opts out=$OUTDIR/$1/$2.out rc=0 lock=
  case $mode in
    off) opts="-c pg_gpu.enabled=off ${PGCHECK_OPTS:-}" ;;
    gpu) opts="-c pg_gpu.force=on ${PGCHECK_OPTS:-} ${PGCHECK_GPU_OPTS:-}" ;;
  esac
  wait_ready
  if grep -qiE "$ROLE_RE" "$WORK/sql/$t.sql"; then lock_roles; lock=1; fi
  mkdir -p "$WORK/build/$mode/$t/results" && chmod -R a+rwX "$WORK/build/$mode"
  create_db "$db" $TEMPLATE
  for p in $(prereqs $t); do
    pgenv env PGOPTIONS="$BASEOPTS -c pg_gpu.enabled=off $MODE_OPTS" \
      PG_ABS_BUILDDIR="$WORK/build/$mode/$t" PGAPPNAME="pg_regress/$p" \
      psql -X -a -q -d "$db" $PSQLVARS < "$WORK/sql/$p.sql" >> "$OUTDIR/setup/$t.$mode.prereq.out" 2>&1 || true
  done
  local t0=$SECONDS
  pgenv env PGOPTIONS="$BASEOPTS $opts $MODE_OPTS" \
    PG_ABS_BUILDDIR="$WORK/build/$mode/$t" \
    PGAPPNAME="pg_regress/$t" timeout -k 10 "$TIMEOUT" psql -X -a -q -d "$db" $PSQLVARS < "$WORK/sql/$t.sql" > "$out" 2>&1 || rc=$?
  echo "$((SECONDS - t0))" > "$OUTDIR/stats/$t.$mode.time"
  [ $rc = 124 ] || [ $rc = 137 ] && echo "pgcheck: TIMEOUT after ${TIMEOUT}s" >> "$out"
  wait_ready
  drop_db "$db"
  if [ -n "$lock" ]; then unlock_roles; fi
  return 0
}
victim() {   # the run lost its connection to another backend's crash: run it again
  grep -q 'terminating connection because of crash of another server process' "$1" &&
    ! grep -q 'was terminated by signal' "$1.crashlog" 2>/dev/null
}

worker_off() {
  for t in $TESTS; do
    for try in 1 2 3; do
      run_one off $t
      victim "$OUTDIR/off/$t.out" || break
      echo "$t off: lost its connection to another backend's crash, run again" | tee -a "$OUTDIR/reruns.txt" >&2
      mv "$OUTDIR/off/$t.out" "$OUTDIR/off/$t.out.lost$try"
    done
  done
}
worker_gpu() {
  for t in $TESTS; do
    for try in 1 2 3; do
      local before after l0
      wait_ready
      before=$(stats_snapshot); l0=$(log_size)
      run_one gpu $t
      after=$(stats_snapshot)
      printf '%s\n' "$before" > "$OUTDIR/stats/$t.before"
      printf '%s\n' "$after" > "$OUTDIR/stats/$t.after"
      if [ "$(log_size)" -gt "$l0" ]; then
        tail -c +$((l0 + 1)) "$SERVER_LOG" | grep -E 'terminated by signal|Failed process was running|was terminated|PANIC' \
          > "$OUTDIR/gpu/$t.out.crashlog" || true
      fi
      victim "$OUTDIR/gpu/$t.out" || break
      echo "$t forced: lost its connection to another backend's crash, run again" | tee -a "$OUTDIR/reruns.txt" >&2
      mv "$OUTDIR/gpu/$t.out" "$OUTDIR/gpu/$t.out.lost$try"
    done
    echo "  $t: done ($(cat "$OUTDIR/stats/$t.gpu.time")s forced)"
  done
}

T0=$SECONDS
echo "pgcheck: running $(echo $TESTS | wc -w) files (GPU-off runs and forced runs side by side)"
worker_off > "$OUTDIR/worker_off.log" 2>&1 &
off_pid=$!
worker_gpu
wait $off_pid || true
ELAPSED=$((SECONDS - T0))

[ -n "$SERVER_LOG" ] && [ -r "$SERVER_LOG" ] && cp "$SERVER_LOG" "$OUTDIR/server.log"
sql postgres "SET client_min_messages = warning" "DROP DATABASE IF EXISTS pgcheck_ctl WITH (FORCE)" \
  "ALTER DATABASE $TEMPLATE IS_TEMPLATE false" "DROP DATABASE IF EXISTS $TEMPLATE" >/dev/null 2>&1 || true

# ---- 6. compare ----------------------------------------------------------------------
python3 scripts/pgcheck_diff.py --outdir "$OUTDIR" --expected "$CACHE/expected" \
  --allow scripts/pgcheck_allow.txt --elapsed "$ELAPSED" $TESTS
