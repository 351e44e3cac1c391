#!/usr/bin/env python3
"""
make cachecheck — the GPU service's column cache under concurrent writers (issue 21).

Writer sessions change a cached fact table and its dimensions while they are read:
INSERT, UPDATE (HOT and not), DELETE, ROLLBACK, savepoints, VACUUM, each committing
(or not) at its own pace.  Reader sessions run, in one REPEATABLE READ transaction (one
snapshot), each query twice: with pg_gpu off (PostgreSQL's plan, the reference) and
forced on the GPU, whose scan reads every all-visible block whose visibility-map page
is unchanged from the cache and every other block from its page.  The two answers must
be equal, row for row.  The run fails on any difference or error, and unless the
forced queries read blocks from the cache (pg_gpu_cache's hits), which is what is
being tested.

Modes, as scripts/fuzz.py's (whose wire-protocol client and clusters this reuses): by
default a throwaway cluster with the engine emulated on the CPU (CI); --existing (or
CACHECHECK_EXISTING=1) the server of PGHOST/PGPORT/PGUSER, with the real GPU.
"""
import argparse
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz import ExistingServer, OwnCluster, PgConn  # noqa: E402

ROWS = 200000
QUERIES = [
    "SELECT count(*), sum(v), min(id), max(id), count(g) FROM cw",
    "SELECT g % 10 AS k, count(*), sum(v), max(v) FROM cw GROUP BY 1 ORDER BY 1",
    "SELECT count(*), sum(v) FROM cw WHERE id % 7 = 3 AND v > 1000",
    # a star join: the fact from the cache, the dimension as a key set with its payload
    "SELECT d.name, count(*), sum(c.v) FROM cw c, cwd d WHERE c.g = d.k AND d.grp < 3 "
    "GROUP BY d.name ORDER BY 1",
]
SETUP = [
    "DROP TABLE IF EXISTS cw, cwd",
    "CREATE TABLE cw (id int4 NOT NULL, g int4, v int8)",
    f"INSERT INTO cw SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 500 END, i * 3 "
    f"FROM generate_series(1, {ROWS}) i",
    "CREATE TABLE cwd (k int4, name text, grp int4)",
    "INSERT INTO cwd SELECT i, 'n' || (i % 11), i % 5 FROM generate_series(0, 499) i",
    "SET synchronous_commit = on",
    "VACUUM ANALYZE cw, cwd",
]


def writer(srv, db, seed, stop, out):
    r = random.Random(seed)
    c = PgConn(srv.host, srv.port, srv.user, db, app="pg_gpu_cachecheck")
    c.query("SET synchronous_commit = on")
    n = 0
    while not stop.is_set():
        op = r.random()
        a = r.randint(1, ROWS)
        if op < 0.25:
            sql = [f"INSERT INTO cw SELECT i, i % 500, i FROM generate_series({ROWS + a}, {ROWS + a + r.randint(1, 300)}) i"]
        elif op < 0.45:
            sql = [f"UPDATE cw SET v = v + 1 WHERE id BETWEEN {a} AND {a + r.randint(0, 400)}"]
        elif op < 0.55:
            sql = [f"DELETE FROM cw WHERE id BETWEEN {a} AND {a + r.randint(0, 200)}"]
        elif op < 0.65:
            sql = ["BEGIN", f"UPDATE cw SET v = 0 WHERE id BETWEEN {a} AND {a + 2000}", "ROLLBACK"]
        elif op < 0.75:
            sql = ["BEGIN", f"UPDATE cw SET g = g + 1 WHERE id BETWEEN {a} AND {a + 100}",
                   "SAVEPOINT s", f"DELETE FROM cw WHERE id BETWEEN {a} AND {a + 5000}",
                   "ROLLBACK TO SAVEPOINT s", "COMMIT"]
        elif op < 0.82:
            sql = [f"UPDATE cwd SET name = 'n' || ({a} % 13) WHERE k = {a % 500}"]
        elif op < 0.97:
            # the truncation at the end of VACUUM waits up to 5 s for readers'
            # locks: mostly without it, sometimes with (the table shrinks)
            sql = ["VACUUM (TRUNCATE false) cw"]
        else:
            sql = ["VACUUM cw"]
        for s in sql:
            res = c.query(s)
            if res.error:
                out.append(f"writer {seed}: {s}: {res.error.get('M')}")
                stop.set()
                break
        n += 1
        time.sleep(r.random() * 0.02)
    out.append(n)
    c.close()


def reader(srv, db, seed, stop, emulate, out, stats):
    r = random.Random(seed)
    c = PgConn(srv.host, srv.port, srv.user, db, app="pg_gpu_cachecheck")
    for s in ["SET max_parallel_workers_per_gather = 0",
              f"SET pg_gpu.emulate_gpu = {'on' if emulate else 'off'}"]:
        c.query(s)
    while not stop.is_set():
        q = r.choice(QUERIES)
        c.query("BEGIN ISOLATION LEVEL REPEATABLE READ")
        c.query("SET LOCAL pg_gpu.enabled = off")
        want = c.query(q)
        c.query("SET LOCAL pg_gpu.enabled = on")
        c.query("SET LOCAL pg_gpu.force = on")
        got = c.query(q)
        c.query("COMMIT")
        stats["queries"] += 1
        if want.error or got.error or want.rows != got.rows:
            out.append(f"reader {seed}: {q}\n  off: {want.error and want.error.get('M') or want.rows[:6]}"
                       f"\n  gpu: {got.error and got.error.get('M') or got.rows[:6]}")
            stop.set()
            break
    c.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--writers", type=int, default=3)
    ap.add_argument("--readers", type=int, default=3)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--existing", action="store_true",
                    default=os.environ.get("CACHECHECK_EXISTING") == "1")
    ap.add_argument("--emulate", action="store_true", help="emulate the engine on an existing server too")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    emulate = a.emulate or not a.existing
    srv = ExistingServer() if a.existing else OwnCluster()
    srv.start()
    db = f"pg_gpu_cachecheck_{os.getpid()}"
    admin = PgConn(srv.host, srv.port, srv.user, srv.admin_db, app="pg_gpu_cachecheck")
    admin.query(f"CREATE DATABASE {db}")
    rc = 1
    try:
        c = PgConn(srv.host, srv.port, srv.user, db, app="pg_gpu_cachecheck")
        for s in ["CREATE EXTENSION pg_gpu"] + SETUP + [
                f"SET pg_gpu.emulate_gpu = {'on' if emulate else 'off'}"]:
            res = c.query(s)
            if res.error:
                sys.exit(f"cachecheck: setup: {s}: {res.error.get('M')}")
        # cached once VACUUM has marked its pages all-visible (a snapshot held
        # elsewhere, autovacuum's say, can keep it from doing so at once)
        for _ in range(10):
            res = c.query("SELECT pg_gpu_cache_table('cw', ARRAY['id', 'g', 'v'])")
            if res.error:
                sys.exit(f"cachecheck: pg_gpu_cache_table: {res.error.get('M')}")
            if int(res.rows[0][0]) > 0:
                break
            time.sleep(1)
            c.query("VACUUM cw")
        h0 = c.query("SELECT coalesce(sum(hits), 0), coalesce(sum(blocks), 0) FROM pg_gpu_cache "
                     "WHERE \"table\" = 'cw'::regclass").rows[0]
        stop = threading.Event()
        out, wn = [], []
        stats = {"queries": 0}
        threads = [threading.Thread(target=writer, args=(srv, db, seed + i, stop, wn))
                   for i in range(a.writers)]
        threads += [threading.Thread(target=reader, args=(srv, db, seed + 100 + i, stop, emulate, out, stats))
                    for i in range(a.readers)]
        t0 = time.time()
        for t in threads:
            t.start()
        while time.time() - t0 < a.seconds and not stop.is_set():
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join()
        h1 = c.query("SELECT coalesce(sum(hits), 0), coalesce(sum(scans), 0) FROM pg_gpu_cache "
                     "WHERE \"table\" = 'cw'::regclass").rows[0]
        errors = [x for x in out] + [x for x in wn if isinstance(x, str)]
        changes = sum(x for x in wn if isinstance(x, int))
        hits = int(h1[0]) - int(h0[0])
        for e in errors:
            print(e)
        ok = not errors and hits > 0
        print(f"cachecheck: seed {seed}, {stats['queries']} query pairs, {changes} writer statements, "
              f"{len(errors)} differences or errors, {hits} forced scans read the cache"
              f" ({'emulated' if emulate else 'GPU'}, {time.time() - t0:.0f}s)"
              + ("" if ok else ": FAILED"))
        rc = 0 if ok else 1
        c.close()
    finally:
        admin.query(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        admin.close()
        srv.stop()
    return rc


if __name__ == "__main__":
    sys.exit(main())
