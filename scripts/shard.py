#!/usr/bin/env python3
"""
make shardcheck / scripts/shard.sh — pg_gpu on every node of a sharded PostgreSQL.

A coordinator and N shard servers on this machine, each its own throwaway cluster
(initdb under /tmp, as the user postgres when run as root).  The Star Schema
Benchmark (bench/ssb/ssb.py's generator) is distributed by the fact table's key
(lo_orderkey % N) with the dimensions copied to every shard, and its 13 queries run
through the coordinator; each answer is compared with PostgreSQL's on one plain
database that holds all the data (the coordinator's database "single", where pg_gpu
is not loaded).  Every shard preloads pg_gpu; its GPU service takes the GPU named for
it (--gpus: CUDA_VISIBLE_DEVICES of that cluster's postmaster).

Engines (--engine):
  fdw    PostgreSQL's postgres_fdw.  Each shard has a view lineorder_flat (the fact
         table joined with its four dimensions); the coordinator imports it as a
         foreign table per shard (schema s1, s2, ...).  PostgreSQL 15 pushes a
         whole aggregate to a foreign server but no partial one, so a query over
         every shard is written as the union of one aggregate per shard, combined
         on the coordinator (sum of sums); the servers are async_capable, so the
         shards run at once.  This script writes that form from each SSB query.
  citus  Citus (scripts/citus_build.sh), when its extension is installed: the fact
         table distributed by lo_orderkey, the dimensions reference tables, the
         queries unchanged; Citus sends each shard's part to its worker as SQL.

--bench tpch (Citus only): TPC-H from tpchgen-cli (bench/tpch/tpch.py's loading), orders
and lineitem distributed by the order key and co-located, the six other tables
reference tables; the 22 queries through the coordinator, each answer checked, the
GPU nodes that ran on each shard reported (a query over reference tables alone runs
on one node; Citus refuses some correlated subqueries: those are listed as not run,
after the same error without pg_gpu).

Checks, per query: the answer equals single-node PostgreSQL's, and on every shard
GpuAgg ran (pg_gpu_stats: a GPU or emulated run more) with no fallback.  --emulate
(CI, no GPU) runs the shards' engine on the CPU; --force plans the GPU paths whatever
their cost.  --reps N also times each query (median of N): single-node PostgreSQL
with 8 workers, the sharded cluster with pg_gpu, and the same cluster without it
(pg_gpu.enabled = off on the shards' connections).  --rounds N sends every query N
times (answers checked each time against the oracle's one answer; timed once).

  scripts/shard.py [--engine fdw|citus|both] [--bench ssb|tpch] [--shards 2] [--sf 0.05] [--emulate]
                   [--force] [--gpus 0,1] [--reps 0] [--rounds 1] [--queries Q1.1,Q2.1]
                   [--shared-buffers 256MB] [--out DIR] [--keep] [--state FILE] [--reuse FILE]
                   [--compare-gpus 0,0] [--compare-one-worker] [--no-cpu-timing]
                   [--coordinator-gpu]

Long runs across calls of a machine (the GPU host's 600 s a call): --keep leaves the
clusters running and describes them in --state; --reuse FILE runs the queries on them
again without loading (restarting the shards when --gpus differs).  --compare-gpus
LIST restarts the shards on other GPUs after the timed pass and times the sharded
runs again: `--gpus 0,1 --compare-gpus 0,0` is a second GPU against one shared GPU.
--compare-one-worker (Citus) then moves every shard to the first worker
(citus_drain_node) and times again: one worker with one GPU.  --coordinator-gpu
(Citus) preloads pg_gpu on the coordinator too, where Citus runs a query over
reference tables alone (its database "single" keeps pg_gpu.enabled = off).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "bench", "ssb"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "bench", "tpch"))
from fuzz import OwnCluster, PgConn, pg_bindir  # noqa: E402
import ssb  # noqa: E402  (bench/ssb/ssb.py: the generator and the 13 queries)
import tpch  # noqa: E402  (bench/tpch/tpch.py: tpchgen-cli's loading)
import queries as tpch_queries  # noqa: E402  (bench/tpch/queries.py: the 22 queries)

PG8 = ["max_parallel_workers_per_gather = 8"]
DB = "ssb"          # the sharded database: "ssb" or "tpch" (--bench)
SINGLE = "single"
DIMS = ["date", "customer", "supplier", "part"]
FLAT_VIEW = ("CREATE VIEW lineorder_flat AS SELECT * FROM lineorder "
             "JOIN date ON lo_orderdate = d_datekey JOIN customer ON lo_custkey = c_custkey "
             "JOIN supplier ON lo_suppkey = s_suppkey JOIN part ON lo_partkey = p_partkey")


def die(msg):
    sys.exit("shard: " + msg)


def conn(srv, db):
    return PgConn(srv.host, srv.port, srv.user, db, app="pg_gpu_shard")


def run(srv, db, sql):
    """Each ;-separated statement of sql on a new connection; stops at an error."""
    c = conn(srv, db)
    try:
        r = c.query(sql, timeout=3600)
        if r.error:
            die("%s (port %d, %s): %s\n  in: %s" % (r.error.get("C"), srv.port, db,
                                                    r.error.get("M"), sql[:300]))
        return r.rows
    finally:
        c.close()


def side_by_side(fn, jobs):
    """fn(*job) for every job, each in a thread; the first failure (die) after all
    have ended (a thread's SystemExit would otherwise vanish)."""
    errs = []

    def one(j):
        try:
            fn(*j)
        except SystemExit as e:
            errs.append(str(e))
    ts = [threading.Thread(target=one, args=(j,)) for j in jobs]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errs:
        die(errs[0])


def load_ssb(targets, sf, procs, tables=True):
    """
    Generate SSB into each (server, db, part, nparts): the dimensions whole, the fact
    table's orders o with o % nparts = part (all when nparts is 1), side by side.
    """
    n = ssb.sizes(sf)
    schema = open(os.path.join(ROOT, "bench", "ssb", "schema.sql")).read() + \
        open(os.path.join(ROOT, "bench", "ssb", "generate.sql")).read()
    if not tables:             # created already (Citus): the generator's functions only
        schema = open(os.path.join(ROOT, "bench", "ssb", "generate.sql")).read()
    for srv, db, _, _ in targets:
        run(srv, db, schema)
    dims = []
    facts = []
    for srv, db, part, nparts in targets:
        dims.append((srv, db, ssb.DATE_SQL))
        dims += [(srv, db, ssb.PARTY_SQL.format(t="customer", name="Customer", lo=lo, hi=hi,
                                                extra=ssb.SEGMENT))
                 for lo, hi in ssb.chunks(n["customer"], 2)]
        dims.append((srv, db, ssb.PARTY_SQL.format(t="supplier", name="Supplier", lo=1,
                                                   hi=n["supplier"], extra="")))
        dims += [(srv, db, ssb.PART_SQL.format(lo=lo, hi=hi)) for lo, hi in ssb.chunks(n["part"], 2)]
        where = "" if nparts == 1 else " WHERE o %% %d = %d" % (nparts, part)
        for lo, hi in ssb.chunks(n["orders"], max(1, procs // len(targets))):
            sql = ssb.LINEORDER_SQL.format(lo=lo, hi=hi, ncust=n["customer"],
                                           nsupp=n["supplier"], npart=n["part"]).rstrip()
            facts.append((srv, db, sql.rstrip(";") + where + ";"))
    side_by_side(run, dims)
    side_by_side(run, facts)
    side_by_side(run, [(srv, db, "VACUUM ANALYZE date, customer, supplier, part, lineorder")
              for srv, db, _, _ in targets])


# ---- the queries as the postgres_fdw coordinator runs them -------------------------

def split_top(s, sep=","):
    """s split at sep outside parentheses and quotes."""
    out, depth, cur, q = [], 0, "", False
    for ch in s:
        if ch == "'":
            q = not q
        elif not q and ch == "(":
            depth += 1
        elif not q and ch == ")":
            depth -= 1
        if ch == sep and depth == 0 and not q:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def fdw_query(q, schemas):
    """
    An SSB query over every shard: one aggregate per shard over its flat view (which
    postgres_fdw sends whole), then the sums of their sums.  Every SSB aggregate is a
    sum; the join conditions (lo_x = dimension key) are the view's.
    """
    m = re.match(r"SELECT (.*?) FROM (.*?) WHERE (.*?)(?: GROUP BY (.*?))?(?: ORDER BY (.*))?$",
                 q, re.S)
    if not m:
        die("cannot split the query: " + q)
    items, _, where, group, order = m.groups()
    where = re.sub(r"\blo_\w+ = [cdsp]_\w+ AND ", "", where)
    if re.search(r"\blo_\w+ = [cdsp]_\w+", where):
        die("a join condition left in: " + where)
    keys, aggs, outer = [], [], []
    for it in split_top(items):
        a = re.match(r"(sum\(.*\))(?: AS (\w+))?$", it, re.S)
        if a:
            name = "a%d" % len(aggs)
            aggs.append("%s AS %s" % (a.group(1), name))
            outer.append("sum(%s)%s" % (name, " AS " + a.group(2) if a.group(2) else ""))
        else:
            if not re.match(r"\w+$", it):
                die("not a column or a sum: " + it)
            keys.append(it)
            outer.append(it)
    inner = []
    for s in schemas:
        b = "SELECT %s FROM %s.lineorder_flat WHERE %s" % (", ".join(keys + aggs), s, where)
        if group:
            b += " GROUP BY " + group
        inner.append(b)
    sql = "SELECT %s FROM (%s) per_shard" % (", ".join(outer), " UNION ALL ".join(inner))
    if group:
        sql += " GROUP BY " + group
    if order:
        sql += " ORDER BY " + order
    return sql


# ---- the clusters ------------------------------------------------------------------

def have_citus():
    share = subprocess.run([os.path.join(pg_bindir(), "pg_config"), "--sharedir"],
                           capture_output=True, text=True).stdout.strip()
    return os.path.exists(os.path.join(share, "extension", "citus.control"))


def base_conf(a):
    return ("shared_buffers = %s\nmax_connections = 100\nmax_parallel_workers_per_gather = 8\n"
            "max_prepared_transactions = 20\nwork_mem = 256MB\n" % a.shared_buffers)


def shard_conf(a):
    c = base_conf(a)
    if a.emulate:
        c += "pg_gpu.emulate_gpu = on\npg_gpu.table_cache_size = 0\n"
    if a.force:
        c += "pg_gpu.force = on\n"
    return c + a.shard_conf.replace("\\n", "\n") + "\n"


GPU_NODES = ("GpuAgg", "GpuHashJoin", "GpuSemiJoin", "GpuSort")


def gpu_runs(srv, nodes=("GpuAgg",)):
    """The nodes' runs (on the GPU or emulated) and fallbacks on a shard so far."""
    r = run(srv, DB, "SELECT coalesce(sum(gpu_executions + emulated_runs), 0), "
                     "coalesce(sum(cpu_fallbacks), 0) FROM pg_gpu_stats WHERE node IN (%s)"
            % ", ".join("'%s'" % n for n in nodes))
    return int(r[0][0]), int(r[0][1])


def cache_line(shards):
    """What each shard's column cache holds now, against its size: a form that leaves
    a worker's data out of its cache reads pages instead, and is timed so."""
    parts = []
    for i, s in enumerate(shards):
        n, mb = run(s, DB, "SELECT count(*), (coalesce(sum(bytes), 0) / 1048576)::bigint FROM pg_gpu_cache")[0]
        size = run(s, DB, "SHOW pg_gpu.cache_size")[0][0]
        parts.append("worker %d %s entries, %s MB of %s" % (i + 1, n, mb, size))
    return "Column cache: " + "; ".join(parts) + "."


def answer(srv, db, sql, settings=()):
    """sql's rows as text lines and its seconds; settings: SET first (or, starting
    with BEGIN, SET or COMMIT, statements run as they are, around it)."""
    c = conn(srv, db)
    try:
        post = []
        for s in settings:
            if s == "COMMIT":
                post.append(s)
            else:
                c.query(s if s.startswith(("BEGIN", "SET ")) else "SET " + s)
        r = c.query(sql, timeout=3600)
        for s in post:
            c.query(s)
        if r.error:
            return ["ERROR %s: %s" % (r.error.get("C"), r.error.get("M"))], r.seconds
        return ["|".join("" if v is None else v for v in row) for row in r.rows], r.seconds
    finally:
        c.close()


def timed(srv, db, sql, reps, settings=()):
    # no warm-up run of its own: each query's answers were taken just before, reading
    # the same pages
    ms = []
    for _ in range(reps):
        rows, sec = answer(srv, db, sql, settings)
        if rows and rows[0].startswith("ERROR"):
            die("timing failed: %s\n  in: %s" % (rows[0], sql[:300]))
        ms.append(sec * 1000)
    return statistics.median(ms)


def setup_fdw(coord, shards):
    """postgres_fdw: per shard, a schema of its flat view with pg_gpu (sI) and without (sI_cpu)."""
    stmts = ["CREATE EXTENSION IF NOT EXISTS postgres_fdw"]
    for i, s in enumerate(shards, 1):
        for suffix, opts in (("", ""), ("_cpu", ", options '-c pg_gpu.enabled=off'")):
            name = "s%d%s" % (i, suffix)
            stmts += [
                "CREATE SERVER %s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '%s', "
                "port '%d', dbname '%s', async_capable 'true', fetch_size '10000'%s)"
                % (name, s.host, s.port, DB, opts),
                "CREATE USER MAPPING FOR CURRENT_USER SERVER %s OPTIONS (user '%s')"
                % (name, s.user),
                "CREATE SCHEMA %s" % name,
                "IMPORT FOREIGN SCHEMA public LIMIT TO (lineorder_flat) FROM SERVER %s INTO %s"
                % (name, name)]
    run(coord, DB, ";\n".join(stmts))


def setup_citus(coord, shards):
    """Citus: the extension on every node, the workers added to the coordinator."""
    run(coord, DB, "CREATE EXTENSION citus")
    run(coord, DB, "SELECT citus_set_coordinator_host('%s', %d)" % (coord.host, coord.port))
    for s in shards:
        run(s, DB, "CREATE EXTENSION citus")
        run(coord, DB, "SELECT citus_add_node('%s', %d)" % (s.host, s.port))


def setup_citus_ssb(coord, shard_count):
    """SSB under Citus: the dimensions reference tables, the fact table distributed."""
    run(coord, DB, open(os.path.join(ROOT, "bench", "ssb", "schema.sql")).read())
    run(coord, DB, "; ".join("SELECT create_reference_table('%s')" % t for t in DIMS) +
        "; SELECT create_distributed_table('lineorder', 'lo_orderkey', shard_count => %d)"
        % shard_count)


# TPC-H under Citus: orders and lineitem distributed by the order key and co-located
# (a shard of lineitem joins the same shard of orders on its worker), the rest
# reference tables (copied to every node)
TPCH_REFERENCE = ["region", "nation", "part", "supplier", "partsupp", "customer"]


def setup_citus_tpch(coord, shard_count):
    run(coord, DB, open(os.path.join(ROOT, "bench", "tpch", "schema.sql")).read())
    run(coord, DB, "; ".join("SELECT create_reference_table('%s')" % t for t in TPCH_REFERENCE) +
        "; SELECT create_distributed_table('orders', 'o_orderkey', shard_count => %d)"
        "; SELECT create_distributed_table('lineitem', 'l_orderkey', colocate_with => 'orders')"
        % shard_count)


def load_tpch(srv, db, sf, procs, distributed=False):
    """tpchgen-cli's data into db (tables created already), its indexes, statistics.
    distributed: a Citus coordinator (COPY and CREATE INDEX reach the shards; the
    primary keys stay unique indexes)."""
    argv = [os.path.join(pg_bindir(), "psql"), "-X", "-h", srv.host, "-p", str(srv.port),
            "-U", srv.user, "-d", db]
    tpch.run_parallel(tpch.copy_job, tpch.copy_jobs(tpch.tpchgen(), sf, procs, argv), procs)
    creates, rest = tpch.index_statements()
    for c in creates:
        run(srv, db, c)
    if not distributed:
        run(srv, db, "\n".join(rest) + "".join(
            "ALTER TABLE %s SET (parallel_workers = 8);" % t for t in tpch.BIG))
    run(srv, db, "VACUUM (FREEZE, ANALYZE) " + ", ".join(tpch.TABLES))


CITUS_NOGPU = ["SET citus.propagate_set_commands = 'local'", "BEGIN",
               "SET LOCAL pg_gpu.enabled = off", "COMMIT"]


def gpu_env(gpus, i):
    return {"CUDA_VISIBLE_DEVICES": gpus[i % len(gpus)]} if gpus else None


def gpu_list(gpus, n):
    """The GPUs of n shards given gpus in turn, as text."""
    return ",".join(gpus[i % len(gpus)] for i in range(n))


def citus_shard_count(a):
    """The fact table's Citus shards: --citus-shards, else 4 a worker."""
    return a.citus_shards or 4 * a.shards


def setup_of(a, engine):
    """What a kept cluster was built with, for --reuse to match."""
    return {"engine": engine, "bench": a.bench, "sf": a.sf, "shards": a.shards,
            "citus_shards": a.citus_shards, "emulate": a.emulate, "force": a.force,
            "coordinator_gpu": a.coordinator_gpu, "shard_conf": a.shard_conf,
            "shared_buffers": a.shared_buffers}


def clusters(a, engine, gpus):
    """The coordinator and the shard servers, not started; with --reuse, those an
    earlier --keep run left running (restarted when --gpus differs from theirs)."""
    pre = "citus" if engine == "citus" else ""
    if a.reuse:
        with open(a.reuse) as f:
            st = json.load(f)
        if st["setup"] != setup_of(a, engine):
            die("--reuse %s: its clusters were set up as %s, not %s" % (
                a.reuse, st["setup"], setup_of(a, engine)))
        if st["drained"]:
            die("--reuse %s: every shard was moved to one worker (--compare-one-worker)" % a.reuse)
        coord = OwnCluster.attach(*st["coord"])
        shards = [OwnCluster.attach(b, p, gpu_env(st["gpus"], i))
                  for i, (b, p) in enumerate(st["shards"])]
        if st["gpus"] != gpus:
            for i, s in enumerate(shards):
                s.restart(gpu_env(gpus, i))
        return coord, shards
    cpre, cconf = ("citus,pg_gpu", shard_conf(a)) if a.coordinator_gpu else (pre, base_conf(a))
    coord = OwnCluster(keep=a.keep, preload=cpre, conf=cconf, prefix="pg_gpu_coord.")
    shards = [OwnCluster(keep=a.keep, preload=(pre + ",pg_gpu").lstrip(","), conf=shard_conf(a),
                         env=gpu_env(gpus, i), prefix="pg_gpu_shard%d." % (i + 1))
              for i in range(a.shards)]
    if engine == "citus":
        # the node's own address for Citus' connections to itself (moving shards):
        # the clusters listen on their socket directories only
        for s in [coord] + shards:
            s.conf += "\ncitus.local_hostname = '%s'\n" % s.base
        # a query's tasks on a worker run over as many connections at once, and
        # Citus keeps one a worker open by default: the others would be new
        # backends every query (README, Scale-out)
        coord.conf += "citus.max_cached_conns_per_worker = %d\n" % citus_shard_count(a)
        # and a worker runs that many tasks at once, a star join's holding two of
        # its GPU service's channels (README, Scale-out): room for every shard on one
        for s in shards:
            s.conf += "pg_gpu.service_tasks = %d\n" % max(16, 4 * citus_shard_count(a))
    return coord, shards


def build(a, engine, coord, shards):
    """Start the clusters, create the databases, distribute and load the benchmark."""
    for s in [coord] + shards:
        s.start()
    run(coord, "postgres", "CREATE DATABASE %s" % DB)
    run(coord, "postgres", "CREATE DATABASE %s" % SINGLE)
    for s in shards:
        run(s, "postgres", "CREATE DATABASE %s" % DB)
    if engine == "fdw":
        targets = [(coord, SINGLE, 0, 1)] + [(s, DB, i, a.shards) for i, s in enumerate(shards)]
        load_ssb(targets, a.sf, a.procs)
        for s in shards:
            run(s, DB, "CREATE EXTENSION pg_gpu; " + FLAT_VIEW)
        setup_fdw(coord, shards)
        return
    for s in shards:
        run(s, DB, "CREATE EXTENSION pg_gpu")
    if a.coordinator_gpu:
        # the oracle and the 8-worker baseline stay PostgreSQL's own
        run(coord, "postgres", "ALTER DATABASE %s SET pg_gpu.enabled = off" % SINGLE)
        run(coord, DB, "CREATE EXTENSION pg_gpu")
    setup_citus(coord, shards)
    procs = max(1, a.procs // 2)
    if a.bench == "tpch":
        setup_citus_tpch(coord, citus_shard_count(a))
        run(coord, SINGLE, open(os.path.join(ROOT, "bench", "tpch", "schema.sql")).read())
        tpch.tpchgen()      # installed from .tpchgen once, before the two loads
        side_by_side(load_tpch, [(coord, SINGLE, a.sf, procs), (coord, DB, a.sf, procs, True)])
        n = [run(coord, db, "SELECT count(*) FROM lineitem")[0][0] for db in (SINGLE, DB)]
        if n[0] != n[1] or n[0] == "0":
            die("TPC-H loaded %s lineitem rows on one node, %s through Citus" % tuple(n))
    else:
        setup_citus_ssb(coord, citus_shard_count(a))
        # the one-node copy and the distributed one side by side, half the sessions each
        side_by_side(load_ssb, [([(coord, SINGLE, 0, 1)], a.sf, procs),
                                ([(coord, DB, 0, 1)], a.sf, procs, False)])


def forms(a, engine, bench_q):
    """Each query as sent through the coordinator with pg_gpu and without it, and the
    statements around the latter."""
    if engine == "fdw":
        schemas = ["s%d" % (i + 1) for i in range(a.shards)]
        return ({q: fdw_query(ssb.Q[q], schemas) for q in ssb.Q},
                {q: fdw_query(ssb.Q[q], [s + "_cpu" for s in schemas]) for q in ssb.Q}, [])
    # Citus: the queries unchanged; SET LOCAL travels to the workers' connections of
    # the transaction
    return dict(bench_q), dict(bench_q), CITUS_NOGPU


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="fdw", choices=["fdw", "citus", "both"])
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--sf", type=float, default=0.05)
    ap.add_argument("--emulate", action="store_true", help="the shards' engine on the CPU")
    ap.add_argument("--force", action="store_true", help="pg_gpu.force on the shards")
    ap.add_argument("--gpus", default="", help="GPUs for the shards in turn (CUDA_VISIBLE_DEVICES)")
    ap.add_argument("--compare-gpus", default="",
                    help="then restart the shards with these GPUs and time the sharded runs again")
    ap.add_argument("--compare-one-worker", action="store_true",
                    help="Citus: then move every shard to the first worker and time again")
    ap.add_argument("--coordinator-gpu", action="store_true",
                    help="Citus: pg_gpu on the coordinator too (queries over reference "
                         "tables alone run there)")
    ap.add_argument("--reps", type=int, default=0, help="time each query (median of N)")
    ap.add_argument("--no-cpu-timing", action="store_true",
                    help="with --reps: skip timing the shards without pg_gpu")
    ap.add_argument("--bench", default="ssb", choices=["ssb", "tpch"],
                    help="tpch: Citus only (orders and lineitem co-located)")
    ap.add_argument("--queries", default="", help="default: all of the benchmark's")
    ap.add_argument("--shared-buffers", default="256MB")
    ap.add_argument("--rounds", type=int, default=1, help="check every answer N times")
    ap.add_argument("--shard-conf", default="", help="more postgresql.conf lines for the shards")
    ap.add_argument("--citus-shards", type=int, default=0,
                    help="Citus: the fact table's shards (default 4 per worker)")
    ap.add_argument("--procs", type=int, default=4, help="generating sessions in all")
    ap.add_argument("--out", default=os.environ.get("OUT", ""))
    ap.add_argument("--keep", action="store_true",
                    help="leave the clusters running, described in --state")
    ap.add_argument("--state", default="/tmp/pg_gpu_shard_state.json",
                    help="where --keep describes the clusters for --reuse")
    ap.add_argument("--reuse", default="",
                    help="a --state file: run on the clusters a --keep run left (no loading); "
                         "they are stopped and removed after it unless --keep is given again")
    a = ap.parse_args()

    global DB
    DB = a.bench
    bench_q = ssb.Q if a.bench == "ssb" else \
        {q: tpch_queries.query(q, a.sf) for q in tpch_queries.Q}
    a.queries = a.queries or ",".join(bench_q)
    # SSB: every query is one GpuAgg (the star join inside it) on every shard;
    # TPC-H: whichever GPU nodes the shards plan (reported, not required)
    nodes = ("GpuAgg",) if a.bench == "ssb" else GPU_NODES
    engines = ["fdw", "citus"] if a.engine == "both" else [a.engine]
    if a.bench == "tpch" and "fdw" in engines:
        die("--bench tpch runs under Citus only: PostgreSQL 15's postgres_fdw pushes no "
            "partial aggregate, and shard.py writes the per-shard form of SSB's queries only")
    if (a.reuse or a.keep) and len(engines) > 1:
        die("--keep and --reuse take one engine (one state file)")
    if "citus" in engines and not have_citus():
        if a.engine == "citus":
            die("the citus extension is not installed (scripts/citus_build.sh)")
        print("shard: citus not installed (scripts/citus_build.sh): postgres_fdw only", flush=True)
        engines = ["fdw"]
    gpus = [g for g in a.gpus.split(",") if g != ""]
    other = [g for g in a.compare_gpus.split(",") if g != ""]
    if (other or a.compare_one_worker) and not a.reps:
        die("--compare-gpus and --compare-one-worker need --reps")
    if a.coordinator_gpu and engines != ["citus"]:
        die("--coordinator-gpu: --engine citus")
    if a.compare_one_worker and engines != ["citus"]:
        die("--compare-one-worker moves Citus shards: --engine citus")
    lines = []

    def pr(s=""):
        print(s, flush=True)
        lines.append(s)

    failures = 0
    for engine in engines:
        t0 = time.time()
        coord, shards = clusters(a, engine, gpus)
        now_gpus = gpus
        try:
            if not a.reuse:
                build(a, engine, coord, shards)
            load_s = time.time() - t0
            sharded, nogpu, nogpu_set = forms(a, engine, bench_q)
            pr("## %s: a coordinator and %d shards, %s scale factor %g — %s" %
               ("postgres_fdw" if engine == "fdw" else "Citus", a.shards,
                "SSB" if a.bench == "ssb" else "TPC-H", a.sf, time.strftime("%Y-%m-%d")))
            pr()
            pr("Shards: pg_gpu %s%s%s; %s in %.0f s." % (
                "emulated on the CPU" if a.emulate else "on the GPU",
                ", forced" if a.force else ", default costs",
                (", GPUs " + gpu_list(gpus, a.shards)) if gpus else "",
                "reused (" + a.reuse + ")" if a.reuse else "set up and loaded", load_s))
            pr()
            n_bad, t_sh, wants = check(a, engine, coord, shards, bench_q, sharded, nogpu,
                                       nogpu_set, nodes, pr)
            failures += n_bad
            pr()
            pr(cache_line(shards))
            if other:
                for i, s in enumerate(shards):
                    s.restart(gpu_env(other, i))
                now_gpus = other
                failures += compare(a, coord, shards, nodes, sharded, wants, t_sh,
                                    "Shards restarted on GPUs %s (first pass: %s)" % (
                                        gpu_list(other, a.shards),
                                        gpu_list(gpus, a.shards) if gpus else "as started"),
                                    "GPUs " + ",".join(other), True, pr)
                pr()
                pr(cache_line(shards))
            if a.compare_one_worker:
                # every shard moved to the first worker (Citus copies them over), the
                # others left without any: one worker, one GPU
                t1 = time.time()
                for s in shards[1:]:
                    run(coord, DB, "SELECT citus_drain_node('%s', %d, 'block_writes')"
                        % (s.host, s.port))
                fact = "lineorder" if a.bench == "ssb" else "lineitem"
                # the copies Citus made are not all-visible yet, and the column cache
                # keeps only all-visible pages: vacuumed as the load's tables were
                for t in [fact] + (["orders"] if a.bench == "tpch" else []):
                    run(coord, DB, "VACUUM ANALYZE " + t)
                per = run(coord, DB, "SELECT count(*) FILTER (WHERE nodeport = %d), count(*) "
                          "FROM citus_shards WHERE table_name = '%s'::regclass"
                          % (shards[0].port, fact))[0]
                failures += compare(a, coord, shards, nodes, sharded, wants, t_sh,
                                    "Every shard moved to worker 1 (in %.0f s; %s of %s %s "
                                    "shards there), which alone runs them on its GPU"
                                    % (time.time() - t1, per[0], per[1], fact),
                                    "one worker", False, pr)
                pr()
                pr(cache_line(shards))
            for i, s in enumerate(shards):
                fb = run(s, DB, "SELECT node, reason, count FROM pg_gpu_fallbacks ORDER BY 1, 2")
                if fb:
                    pr("Shard %d fallbacks: %s" % (i + 1, "; ".join("%s %s %s" % tuple(r) for r in fb)))
        finally:
            if a.out:
                os.makedirs(a.out, exist_ok=True)
                for i, s in enumerate(shards):
                    try:
                        shutil.copy(s.log, os.path.join(a.out, "%s-shard%d.log" % (engine, i + 1)))
                    except OSError:
                        pass
            if a.keep:
                with open(a.reuse or a.state, "w") as f:
                    json.dump({"setup": setup_of(a, engine), "gpus": now_gpus,
                               "drained": a.compare_one_worker,
                               "coord": [coord.base, coord.port],
                               "shards": [[s.base, s.port] for s in shards]}, f)
                print("shard: kept (%s): %s" % (a.reuse or a.state, ", ".join(
                    "%s port %d" % (s.base, s.port) for s in [coord] + shards)))
            else:
                for s in [coord] + shards:
                    s.keep = False      # reused ones too: stopped and removed
                    s.stop()
                if a.reuse:
                    os.remove(a.reuse)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "shard_results.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
    sys.exit(1 if failures else 0)


def check(a, engine, coord, shards, bench_q, sharded, nogpu, nogpu_set, nodes, pr):
    """Every query through the coordinator, --rounds times: its answer against the
    oracle's, the GPU runs on each shard; with --reps its times.  Returns the
    failures, the sharded run's ms a query and the oracle's answers."""
    gpu_col = "GPU on every shard" if a.bench == "ssb" else \
        "shards where a GPU node ran (runs on each)"
    if a.reps:
        pr("| query | PG 8 workers ms | sharded, pg_gpu ms | sharded, no pg_gpu ms "
           "| vs PG | vs no pg_gpu | answers | %s |" % gpu_col)
        pr("|---|---|---|---|---|---|---|---|")
    else:
        pr("| query | answers | %s |" % gpu_col)
        pr("|---|---|---|")
    ok_ans = ok_gpu = not_run = 0
    r_pg, r_cpu, t_shard = [], [], {}
    servers = shards + ([coord] if a.coordinator_gpu else [])
    names = a.queries.split(",") * a.rounds
    wants = {}
    for q in names:
        first = q not in wants
        if first:  # the oracle's answer once a query; later rounds check against it
            wants[q], _ = answer(coord, SINGLE, bench_q[q], PG8)
            if wants[q][:1] and wants[q][0].startswith("ERROR"):
                die("%s on one node: %s" % (q, wants[q][0]))
        want = wants[q]
        before = [gpu_runs(s, nodes) for s in servers]
        got, _ = answer(coord, DB, sharded[q])
        after = [gpu_runs(s, nodes) for s in servers]
        runs = [b[0] - a0[0] for a0, b in zip(before, after)]
        fell = sum(b[1] - a0[1] for a0, b in zip(before, after))
        crun = runs.pop() if a.coordinator_gpu else 0
        gpu_ok = all(runs) and (fell == 0 or not a.force)
        err = got[0] if got[:1] and got[0].startswith("ERROR") else None
        if err and a.bench == "tpch" and err.startswith("ERROR 0A000"):
            # Citus' own limit (the same error without pg_gpu), or a failure
            cpu, _ = answer(coord, DB, nogpu[q], nogpu_set)
            if cpu[:1] == [err]:
                verdict = "not run by %s: %s" % (engine, err[:120])
                not_run += 1
                pr("| %s | %s | |" % (q, verdict) if not a.reps else
                   "| %s | | | | | | %s | |" % (q, verdict))
                continue
        same = not err and (want == got or sorted(want) == sorted(got))
        ok_ans += same
        ok_gpu += gpu_ok
        if not same:
            pr("<!-- %s: want %s got %s -->" % (q, want[:5], got[:5]))
        verdict = ("same (%d rows)" % len(want)) if same else "**DIFFERENT**"
        if a.bench == "ssb":
            gpu_txt = "yes" if gpu_ok else "no"
        else:
            gpu_txt = "%d of %d (%s)" % (sum(1 for r in runs if r), len(runs),
                                         ", ".join(str(r) for r in runs))
            if a.coordinator_gpu:
                gpu_txt += "; coordinator %d" % crun
        if fell:
            gpu_txt += " (%d fallbacks)" % fell
        if a.reps and first:
            t_pg = timed(coord, SINGLE, bench_q[q], a.reps, PG8)
            t_sh = t_shard[q] = timed(coord, DB, sharded[q], a.reps)
            r_pg.append(t_pg / t_sh)
            cpu_txt = ("–", "–")
            if not a.no_cpu_timing:
                before = [gpu_runs(s, nodes) for s in servers]
                t_cpu = timed(coord, DB, nogpu[q], a.reps, nogpu_set)
                if any(b[0] != a0[0] for a0, b in zip(before, [gpu_runs(s, nodes) for s in servers])):
                    die("%s: the run without pg_gpu used the GPU" % q)
                r_cpu.append(t_cpu / t_sh)
                cpu_txt = ("%.1f" % t_cpu, "%.2f×" % (t_cpu / t_sh))
            pr("| %s | %.1f | %.1f | %s | %.2f× | %s | %s | %s |" % (
                q, t_pg, t_sh, cpu_txt[0], t_pg / t_sh, cpu_txt[1], verdict, gpu_txt))
        elif a.reps:
            pr("| %s | | | | | | %s | %s |" % (q, verdict, gpu_txt))
        else:
            pr("| %s | %s | %s |" % (q, verdict, gpu_txt))
    if r_pg:
        pr()
        pr("Geometric mean: %.2f× PostgreSQL's 8 workers on one node%s." % (
            statistics.geometric_mean(r_pg), ", %.2f× the same shards without pg_gpu" % statistics.geometric_mean(r_cpu) if r_cpu else ""))
    pr()
    checked = len(names) - not_run
    summary = ("shardcheck: %s, %s, %d shards, SF %g: %d queries, answers identical %d/%d, "
               "%s %d/%d" % (engine, a.bench, a.shards, a.sf, len(names), ok_ans, checked,
                             "GpuAgg ran on every shard" if a.bench == "ssb" else
                             "a GPU node ran on every shard", ok_gpu, checked))
    if not_run:
        summary += ", not run by %s %d" % (engine, not_run)
    pr(summary)
    # TPC-H: the GPU nodes are reported; a query on reference tables alone runs on one
    # node, and small shards may keep PostgreSQL's plans at default costs
    bad = (checked - ok_ans) + ((checked - ok_gpu) if a.bench == "ssb" else 0)
    return bad + (checked == 0), t_shard, wants


def compare(a, coord, shards, nodes, sharded, wants, t_shard, title, label, every_shard, pr):
    """The sharded runs again after a change of the cluster (the shards restarted on
    other GPUs; every shard on one worker): answers checked, times against the first
    pass.  every_shard: every shard holds data (else only some, after a move).
    Returns the failures: wrong answers and, for SSB, GpuAgg not run where the
    data is."""
    pr()
    pr(title + ":")
    pr()
    pr("| query | %s ms | first pass ms | first pass vs this | answers | GPU runs on each shard |"
       % label)
    pr("|---|---|---|---|---|---|")
    bad, ratios = 0, []
    for q in [q for q in a.queries.split(",") if q in t_shard]:
        want = wants[q]
        before = [gpu_runs(s, nodes) for s in shards]
        got, _ = answer(coord, DB, sharded[q])
        after = [gpu_runs(s, nodes) for s in shards]
        same = want == got or sorted(want) == sorted(got)
        # SSB: GpuAgg on every shard that holds data, without fallbacks (a GPU the
        # host lacks would fall back to the CPU and be timed as the GPU)
        gpu = [b[0] - a0[0] for a0, b in zip(before, after)]
        fell = sum(b[1] - a0[1] for a0, b in zip(before, after))
        gpu_ok = a.bench != "ssb" or (any(gpu) and (fell == 0 or not a.force) and
                                      (all(gpu) or not every_shard))
        bad += (not same) + (not gpu_ok)
        t = timed(coord, DB, sharded[q], a.reps)
        ratios.append(t / t_shard[q])
        pr("| %s | %.1f | %.1f | %.2f× | %s | %s |" % (
            q, t, t_shard[q], t / t_shard[q], "same" if same else "**DIFFERENT**",
            ", ".join(str(g) for g in gpu) + (" (%d fallbacks)" % fell if fell else "")))
    if ratios:
        pr()
        pr("Geometric mean: the first pass %.2f× as fast as %s." % (statistics.geometric_mean(ratios), label))
    return bad


if __name__ == "__main__":
    main()
