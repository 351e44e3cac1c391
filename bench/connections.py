#!/usr/bin/env python3
"""What a GPU query costs a new connection, and many clients that each connect per
query (issue 21's baseline and its targets).  Needs a running cluster that preloads
pg_gpu (on the GPU host `source .gpuhost/pg-up`; psql on PATH, PGHOST and friends as
psql takes them).

  bench/connections.py [--rows 5000000] [--first 8] [--clients 4,16] [--seconds 20]
                       [--hold 64] [--set 'pg_gpu.x = y' ...] [--out DIR]

1. First query of a new connection: --first fresh psql sessions each run the same
   query twice with \\timing (pg_gpu.force = on); the first run pays the session's
   GPU start-up, the second is a warm session's.  The same with pg_gpu off.
2. Connection per query: for each count in --clients, that many threads run a mix
   of three GPU queries (an aggregate, a grouping, an IN lookup; forced) for
   --seconds, each query in a new psql session: queries/s, p50, p95, errors, and
   the answers compared with one PostgreSQL run of each query.
3. --hold N sessions connected at once, each running one GPU query and staying
   connected: the GPU memory they hold (nvidia-smi, if present).

Writes connections.md to --out.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import psql, SETTLE  # noqa: E402

MIX = [
    # 0-2: issue 21's mix (aggregations only)
    "SELECT min(f8), max(f8), round(avg(f8)::numeric, 6), count(*) FROM tc",
    "SELECT g % 100 AS k, count(*), round(avg(f8)::numeric, 6) FROM tc GROUP BY 1 ORDER BY 1 LIMIT 5",
    "SELECT count(*) FROM tc WHERE i4 IN (SELECT i4 FROM tc WHERE id % 5000 = 0)",
    # 3-6 with 0-2: issue 32's mix, which also sorts and returns rows: a filtered sum,
    # a top-N (GpuSort), NOT EXISTS (an anti-join's key set), an IN lookup that
    # returns rows in text order (GpuSort probing a key set)
    "SELECT count(*), sum(g), sum(i4) FROM tc WHERE f8 < 50000 AND g BETWEEN 100 AND 599",
    "SELECT id, f8 FROM tc ORDER BY f8 DESC, id LIMIT 25",
    "SELECT count(*) FROM tc WHERE NOT EXISTS (SELECT 1 FROM tk WHERE tk.k = tc.g)",
    "SELECT id, w FROM tcw WHERE g IN (SELECT k FROM tk WHERE k < 30) ORDER BY w COLLATE \"C\", id LIMIT 10",
    # 7: a GpuHashJoin that returns rows with a column of its build side (kept rows)
    "SELECT count(*), sum(length(name)) FROM (SELECT tcw.id, tk.name FROM tcw JOIN tk ON tcw.g = tk.k "
    "WHERE tk.k < 30 OFFSET 0) x",
    # 8: a star join grouped by its dimension's text column (the dimension's rows,
    # text keys in an arena, grouped in the service before the fact scan); run
    # side by side by many clients it checks that concurrent tasks keep their keys
    # (the arena race found under Citus, 2026-11-29)
    "SELECT tk.name, count(*), sum(tc.i4::int8) FROM tc JOIN tk ON tc.g = tk.k "
    "WHERE tk.k < 300 GROUP BY tk.name ORDER BY 1",
]
# the first query of a new connection, by node (--first-nodes)
FIRST = {"GpuAgg": 0, "GpuSort": 4, "GpuHashJoin": 7}
# answers compared with averages rounded: float sums differ in the last bits by
# summation order, between any two plans
FORCE = "SET extra_float_digits = 0; SET pg_gpu.force = on;\n"


def build(rows):
    have = psql("SELECT count(*) FROM pg_class WHERE relname IN ('tc', 'tcw', 'tk')").strip() == "3"
    if have and int(psql("SELECT reltuples::int8 FROM pg_class WHERE relname = 'tc'")) == rows:
        return
    psql(f"DROP TABLE IF EXISTS tc, tcw, tk; CREATE TABLE tc AS SELECT i::int8 AS id, "
         f"(random() * 2e9 - 1e9)::int4 AS i4, random() * 100000 AS f8, (random() * 999)::int4 AS g "
         f"FROM generate_series(1, {rows}) i;"
         # a fifth of tc's rows with a text column; a small dimension of every third g
         "CREATE TABLE tcw AS SELECT id, g, md5(g::text) AS w FROM tc WHERE id % 5 = 0;"
         "CREATE TABLE tk AS SELECT g AS k, 'name ' || g AS name FROM generate_series(0, 999, 3) g;")
    psql(SETTLE + "VACUUM ANALYZE tc; VACUUM ANALYZE tcw; VACUUM ANALYZE tk;")


def run_psql(script):
    t0 = time.monotonic()
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", "postgres"],
                       input=script, text=True, capture_output=True)
    return (time.monotonic() - t0) * 1000.0, r


def first_query(n, settings, q=MIX[0]):
    """Per fresh session: wall ms of the whole psql, first and second query ms."""
    out = []
    for _ in range(n):
        wall, r = run_psql(settings + "\\timing on\n" + q + ";\n" + q + ";\n")
        if r.returncode != 0:
            raise SystemExit("first query failed: " + r.stderr)
        t = [float(x) for x in re.findall(r"^Time: ([\d.]+) ms", r.stdout, re.M)]
        out.append((wall, t[0], t[1]))
    return out


def gpu_memory_mib():
    if not shutil.which("nvidia-smi"):
        return None
    r = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                       capture_output=True, text=True)
    try:
        return sum(int(x) for x in r.stdout.split())
    except ValueError:
        return None


class Sampler(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.peak = None
        self.stop = False

    def run(self):
        while not self.stop:
            m = gpu_memory_mib()
            if m is not None:
                self.peak = m if self.peak is None else max(self.peak, m)
            time.sleep(0.5)


def conn_per_query(clients, seconds, want, mix, prefix=FORCE):
    """clients threads for seconds, each running the queries of mix in turn (from its
    own offset), each in a new psql session after prefix: queries/s, p50, p95,
    errors, and answers that differ from want[q] (rows in another order pass)."""
    lat, errors, wrong = [], [], []
    per = {q: [] for q in mix}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(c):
        i = c
        while time.monotonic() < deadline:
            q = mix[i % len(mix)]
            i += 1
            ms, r = run_psql(prefix + q + ";\n")
            got = r.stdout.strip()
            with lock:
                if r.returncode != 0:
                    errors.append(r.stderr.strip()[:200])
                else:
                    lat.append(ms)
                    per[q].append(ms)
                    if got != want[q] and sorted(got.split("\n")) != sorted(want[q].split("\n")):
                        wrong.append(q)

    t0 = time.monotonic()
    sampler = Sampler()
    sampler.start()
    ts = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    sampler.stop = True
    elapsed = time.monotonic() - t0
    lat.sort()
    pct = (lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]) if lat else (lambda p: float("nan"))
    return {"clients": clients, "queries": len(lat), "qps": len(lat) / elapsed,
            "p50": pct(0.50), "p95": pct(0.95), "errors": len(errors), "wrong": len(wrong),
            "first_error": errors[0] if errors else "", "gpu_mib": sampler.peak,
            "per": {q: statistics.median(v) if v else float("nan") for q, v in per.items()}}


def gpu_processes():
    """The processes that hold GPU memory (nvidia-smi): 'name pid MiB' each."""
    if not shutil.which("nvidia-smi"):
        return None
    r = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,process_name,used_memory",
                        "--format=csv,noheader,nounits"], capture_output=True, text=True)
    return [", ".join(x.strip() for x in line.split(",")) for line in r.stdout.splitlines() if line.strip()]


def hold(n):
    """n sessions at once, each after one GPU query (an aggregation, a sort or a join,
    in turn), still connected: GPU memory, and which processes hold it."""
    base = gpu_memory_mib()
    procs = []
    for i in range(n):
        p = subprocess.Popen(["psql", "-X", "-q", "-At", "-d", "postgres"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        q = MIX[list(FIRST.values())[i % len(FIRST)]]
        p.stdin.write(FORCE + q + ";\nSELECT pg_sleep(600);\n")
        p.stdin.flush()
        procs.append(p)
    peak = base
    t_end = time.monotonic() + 120
    # until every session has run its query (the sleep follows it)
    while time.monotonic() < t_end:
        n_run = int(psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(600)%' "
                         "AND state = 'active'").strip())
        m = gpu_memory_mib()
        if m is not None:
            peak = m if peak is None else max(peak, m)
        if n_run >= n:
            break
        time.sleep(0.5)
    holders = gpu_processes()
    for p in procs:
        p.kill()
    psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(600)%'")
    return base, peak, n_run, holders


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--first", type=int, default=8)
    ap.add_argument("--clients", default="4,16")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--hold", type=int, default=0)
    ap.add_argument("--mix", default="0,1,2",
                    help="which of the mix's queries the clients run (0 aggregate, 1 grouping, 2 IN "
                         "lookup; issue 32's mix: 0,1,3,4,2,5,6; 8 a star join grouped by text)")
    ap.add_argument("--first-nodes", default="GpuAgg",
                    help="the nodes whose first query in a new connection is timed (GpuAgg, GpuSort, "
                         "GpuHashJoin)")
    ap.add_argument("--set", action="append", default=[],
                    help="a setting for every GPU session (pg_gpu.register_buffers = off), repeatable")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    a = ap.parse_args()
    global FORCE
    FORCE += "".join(f"SET {x};\n" for x in a.set)

    psql("CREATE EXTENSION IF NOT EXISTS pg_gpu; ALTER EXTENSION pg_gpu UPDATE;")
    build(a.rows)
    lines = []

    def pr(s=""):
        print(s, flush=True)
        lines.append(s)

    # the GPU service starts the GPU when the server starts: wait for it
    svc = ""
    for _ in range(120):
        # a row per GPU's worker (pg_gpu.service_devices)
        svc = psql("SELECT coalesce((SELECT string_agg(state || ', GPU ' || gpu || ', start-up ' || "
                   "coalesce(round(gpu_start_ms)::text, '-') || ' ms', '; ' ORDER BY device) "
                   "FROM pg_gpu_service()), 'off')").strip()
        if svc == "off" or "GPU starting" not in svc:
            break
        time.sleep(0.5)
    dev = psql("SELECT coalesce((SELECT name FROM pg_gpu_devices() LIMIT 1), 'no GPU')").strip()
    pr(f"## Connections — {time.strftime('%Y-%m-%d')}, {dev}, {os.cpu_count()} cores, "
       f"table tc: {a.rows:,} rows, {int(psql('SELECT pg_relation_size(' + repr('tc') + ')')) / 1e9:.2f} GB")
    pr(f"GPU service: {svc}")
    if a.set:
        pr("GPU sessions' settings: " + "; ".join(a.set))
    pr()
    for node in [x for x in a.first_nodes.split(",") if x]:
        q = MIX[FIRST[node]]
        pr(f"### A new connection's first query, {node} ({q})")
        pr()
        pr("| | psql wall ms (median) | first query ms | second query ms | first − second |")
        pr("|---|---|---|---|---|")
        for label, s in (("pg_gpu off", "SET pg_gpu.enabled = off;\n"), ("pg_gpu forced", FORCE)):
            r = first_query(a.first, s, q)
            w, f, sec = (statistics.median(x[i] for x in r) for i in range(3))
            pr(f"| {label} | {w:,.1f} | {f:,.1f} | {sec:,.1f} | {f - sec:,.1f} |")
        if node != "GpuAgg":
            plan = psql(FORCE + "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + q + ";")
            ran = node in plan and "Fallback" not in plan
            pr(f"\n{node} ran on the GPU in a forced EXPLAIN ANALYZE: {'yes' if ran else 'NO'}")
        pr()
    want = {q: psql("SET extra_float_digits = 0; SET pg_gpu.enabled = off;\n" + q + ";").strip()
            for q in MIX}
    mix = [MIX[int(i)] for i in a.mix.split(",") if i]
    pr(f"### A connection per query, {len(mix)} GPU queries of the mix ({a.mix}; forced), "
       f"{a.seconds:g} s each")
    pr()
    pr("| clients | queries | queries/s | p50 ms | p95 ms | median ms per query (" + a.mix +
       ") | errors | wrong answers | GPU memory peak MiB |")
    pr("|---|---|---|---|---|---|---|---|---|")
    for c in [int(x) for x in a.clients.split(",") if x]:
        r = conn_per_query(c, a.seconds, want, mix)
        per = " / ".join(f"{r['per'][q]:,.0f}" for q in mix)
        pr(f"| {c} | {r['queries']} | {r['qps']:.1f} | {r['p50']:,.0f} | {r['p95']:,.0f} | {per} | "
           f"{r['errors']} | {r['wrong']} | {r['gpu_mib'] if r['gpu_mib'] is not None else 'n/a'} |")
        if r["first_error"]:
            pr(f"|  | first error: {r['first_error']} | | | | | | |")
    if a.hold > 0:
        base, peak, n_run, holders = hold(a.hold)
        pr()
        pr(f"### {a.hold} sessions connected at once, each after one GPU query "
           f"({', '.join(FIRST)} in turn)")
        pr()
        pr(f"GPU memory: {base} MiB before, {peak} MiB at the peak ({n_run} sessions had run "
           f"their query)")
        if holders is not None:
            pr()
            pr(f"Processes holding GPU memory while they were connected (nvidia-smi): "
               f"{'; '.join(holders) if holders else 'none'}")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "connections.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
