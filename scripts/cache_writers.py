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
being tested.  Each writer changes only rows of its own key band, so writers never
wait for one another's row locks and cannot deadlock; a writer's deadlock or
serialization failure would still be retried and counted apart, not failed.

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


# Writers cannot deadlock one another: writer w of W owns the ids of its own band,
# [lo, hi] of 1..ROWS and the same band shifted by ROWS for the rows it inserts, and
# the dimension's keys k with k % W == w.  Every UPDATE and DELETE names ids (or keys)
# of its writer's band only and ids never change, so a writer never waits for a row
# lock another writer holds: no wait-for cycle can form, whatever each transaction
# does in which order.  VACUUM waits only for another VACUUM of the table (holding
# nothing else) and takes its truncation lock conditionally.  As a safety net, a
# writer transaction that still fails with a deadlock (40P01) or a serialization
# failure (40001) is rolled back and retried, counted apart (the summary line says
# how many): that is PostgreSQL resolving writers' conflicts, not a wrong answer.
# Any other writer error fails the run, as does any reader difference or error.
WRITER_RETRY = {"40P01", "40001"}


def writer(srv, db, w, nwriters, seed, stop, out, retried):
    r = random.Random(seed)
    c = PgConn(srv.host, srv.port, srv.user, db, app="pg_gpu_cachecheck")
    c.query("SET synchronous_commit = on")
    band = ROWS // nwriters
    lo, hi = w * band + 1, (w + 1) * band if w < nwriters - 1 else ROWS

    def span(n, inserted=None):
        """ids [a, b] of at most n + 1 rows in this writer's band: of the table as
        loaded, or (inserted, or 1 time in 4) of the band its inserts use"""
        if inserted is None:
            inserted = r.random() < 0.25
        base = ROWS if inserted else 0
        a = r.randint(lo, hi)
        return base + a, base + min(a + n, hi)

    n = 0
    while not stop.is_set():
        op = r.random()
        if op < 0.25:
            a, b = span(r.randint(1, 300), inserted=True)
            sql = [f"INSERT INTO cw SELECT i, i % 500, i FROM generate_series({a}, {b}) i"]
        elif op < 0.45:
            a, b = span(r.randint(0, 400))
            sql = [f"UPDATE cw SET v = v + 1 WHERE id BETWEEN {a} AND {b}"]
        elif op < 0.55:
            a, b = span(r.randint(0, 200))
            sql = [f"DELETE FROM cw WHERE id BETWEEN {a} AND {b}"]
        elif op < 0.65:
            a, b = span(2000)
            sql = ["BEGIN", f"UPDATE cw SET v = 0 WHERE id BETWEEN {a} AND {b}", "ROLLBACK"]
        elif op < 0.75:
            a, b = span(5000)
            sql = ["BEGIN", f"UPDATE cw SET g = g + 1 WHERE id BETWEEN {a} AND {min(a + 100, b)}",
                   "SAVEPOINT s", f"DELETE FROM cw WHERE id BETWEEN {a} AND {b}",
                   "ROLLBACK TO SAVEPOINT s", "COMMIT"]
        elif op < 0.82:
            k = r.randrange((500 - w + nwriters - 1) // nwriters) * nwriters + w
            sql = [f"UPDATE cwd SET name = 'n' || ({r.randint(1, ROWS)} % 13) WHERE k = {k}"]
        elif op < 0.97:
            # the truncation at the end of VACUUM waits up to 5 s for readers'
            # locks: mostly without it, sometimes with (the table shrinks)
            sql = ["VACUUM (TRUNCATE false) cw"]
        else:
            sql = ["VACUUM cw"]
        for attempt in range(4):
            err = None
            for s in sql:
                res = c.query(s)
                if res.error:
                    err = (s, res.error)
                    break
            if err is None:
                break
            if err[1].get("C") not in WRITER_RETRY or attempt == 3:
                out.append(f"writer {w} (seed {seed}): {err[0]}: {err[1].get('M')} "
                           f"(SQLSTATE {err[1].get('C')})")
                stop.set()
                break
            retried.append(f"writer {w}: {err[0]}: {err[1].get('M')}")
            if len(sql) > 1:
                c.query("ROLLBACK")
            time.sleep(r.random() * 0.05)
        if stop.is_set() and err is not None:
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
        out, wn, retried = [], [], []
        stats = {"queries": 0}
        threads = [threading.Thread(target=writer, args=(srv, db, i, a.writers, seed + i, stop, wn, retried))
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
        for e in retried:
            print(f"retried (not a failure): {e}")
        ok = not errors and hits > 0
        print(f"cachecheck: seed {seed}, {stats['queries']} query pairs, {changes} writer transactions"
              f" ({len(retried)} retried after a deadlock or serialization failure), "
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
