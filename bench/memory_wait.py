#!/usr/bin/env python3
"""GPU tasks that want more memory than is free (issue 32's admission): several
clients run a grouping with many groups at once under a small
pg_gpu.device_memory_limit, first with pg_gpu.memory_wait = 0 (a task that finds
the memory taken falls back at once) and then with a wait.  Per setting: queries,
the GPU's runs and out-of-memory fallbacks (pg_gpu_stats, pg_gpu_fallbacks), the
service's waits and the waits that gave up (pg_gpu_service()), p50/p95, and every
answer against PostgreSQL's.  Needs a running cluster that preloads pg_gpu, with
the table tc of bench/connections.py; the limit is the caller's (postgresql.conf,
restart), the waits are set here (ALTER SYSTEM, reload).

  bench/memory_wait.py [--clients 16] [--queries 8] [--waits 0,5000] [--out DIR]
"""
import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import psql  # noqa: E402

Q = ("SELECT count(*), sum(n), round(sum(s)::numeric, 0) FROM "
     "(SELECT i4 % 1500000 AS k, count(*) AS n, sum(g) AS s FROM tc GROUP BY 1) x")


def one(results, lock):
    t0 = time.monotonic()
    r = subprocess.run(["psql", "-X", "-q", "-At", "-d", "postgres"],
                       input="SET pg_gpu.force = on;\n" + Q + ";\n", text=True,
                       capture_output=True)
    ms = (time.monotonic() - t0) * 1000.0
    with lock:
        results.append((ms, r.returncode, r.stdout.strip(), r.stderr.strip()))


def counters():
    runs = int(psql("SELECT gpu_executions FROM pg_gpu_stats WHERE node = 'GpuAgg'"))
    oom = int(psql("SELECT coalesce(sum(count), 0) FROM pg_gpu_fallbacks "
                   "WHERE node = 'GpuAgg' AND reason LIKE '%memory%'"))
    w = psql("SELECT sum(memory_waits), sum(memory_wait_timeouts) FROM pg_gpu_service()").split("|")
    return runs, oom, int(w[0]), int(w[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--queries", type=int, default=8, help="per client")
    ap.add_argument("--waits", default="0,5000", help="pg_gpu.memory_wait values, ms")
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    truth = psql("SET pg_gpu.enabled = off; " + Q).strip()
    limit = psql("SHOW pg_gpu.device_memory_limit")
    lines = [f"# GPU tasks waiting for memory ({a.clients} clients x {a.queries} queries, "
             f"pg_gpu.device_memory_limit = {limit})", "",
             f"Query: `{Q}` (forced; PostgreSQL's answer `{truth}`).", "",
             "| pg_gpu.memory_wait | queries | on the GPU | fell back (out of memory) | waits | "
             "waits that gave up | wrong | errors | p50 ms | p95 ms | wall s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for wait in [int(x) for x in a.waits.split(",")]:
        psql(f"ALTER SYSTEM SET pg_gpu.memory_wait = {wait}; SELECT pg_reload_conf();")
        time.sleep(1.0)
        c0 = counters()
        results, lock = [], threading.Lock()
        t0 = time.monotonic()

        def client():
            for _ in range(a.queries):
                one(results, lock)
        th = [threading.Thread(target=client) for _ in range(a.clients)]
        for t in th:
            t.start()
        for t in th:
            t.join()
        wall = time.monotonic() - t0
        c1 = counters()
        ms = sorted(r[0] for r in results)
        wrong = sum(1 for r in results if r[1] == 0 and r[2] != truth)
        errors = sum(1 for r in results if r[1] != 0)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        lines.append(f"| {wait} | {len(results)} | {c1[0] - c0[0]} | {c1[1] - c0[1]} | "
                     f"{c1[2] - c0[2]} | {c1[3] - c0[3]} | {wrong} | {errors} | "
                     f"{statistics.median(ms):.0f} | {p95:.0f} | {wall:.1f} |")
        if errors:
            lines.append(f"|  | first error: {[r[3] for r in results if r[1] != 0][0][:200]} |")
        print(lines[-1], flush=True)
    psql("ALTER SYSTEM RESET pg_gpu.memory_wait; SELECT pg_reload_conf();")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(a.out, "memory_wait.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
