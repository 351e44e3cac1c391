#!/usr/bin/env python3
"""Cancels and faults against GPU queries (issue 18), on a running server that
preloads pg_gpu (PGHOST/PGPORT/PGUSER from the environment; the GPU host):

1. first GPU query of a new connection under statement_timeout = 150 ms: the
   timeout must end it within 100 ms of firing, while CUDA starts up, and the
   session's next GPU query must run and answer as PostgreSQL does;
2. 100 GPU queries (GpuAgg, grouped GpuAgg, GpuSort, GpuHashJoin, GpuSemiJoin)
   cancelled at random points by a random statement_timeout; then every query
   again without a timeout: same answers as with pg_gpu off, the session
   usable, pg_gpu_stats consistent, and device memory where it was;
3. cancel latency per node, on a larger table (FAULTS_CANCEL_ROWS, 30 M rows):
   a GpuSort top-N, a full GpuSort, a grouped GpuAgg, a GpuHashJoin and a
   GpuSemiJoin timed out at several points of their run (from 5% to 90% of
   their warm time): each must end within 100 ms of its timeout, and then
   answer as PostgreSQL does;
4. an injected GPU failure in each node kind: the query still answers as
   PostgreSQL does;
5. the GPU service (issue 21), when it runs: a CUDA error in its task, an error
   it restarts for, a hung task (its watchdog), the service out of host memory
   in its thread (std::bad_alloc: the tasks fall back, counted, the same
   process serves the next ones on the GPU), GPU memory taken by another
   process, a cancel mid-task (the task's work gone within 100 ms), and, last,
   the service killed (a cluster reset: what it costs is measured).

Prints one line per check and a verdict; exit status 1 on any failure."""
import argparse
import os
import random
import re
import subprocess
import sys
import time

DB = "pg_gpu_faults"
ROWS = int(os.environ.get("FAULTS_ROWS", 5_000_000))
CANCEL_ROWS = int(os.environ.get("FAULTS_CANCEL_ROWS", 30_000_000))

# section 3: queries long enough on the GPU that a timeout lands inside their
# scan, their sort (a run sorted, the top-N selected) or their join's probe;
# OFFSET 0 keeps the join nodes under the aggregate on top
CANCEL_QUERIES = {
    "GpuSort top-N": "SELECT id, f8 FROM fl_big ORDER BY f8 DESC, id LIMIT 5",
    "GpuSort full": f"SELECT id, f8 FROM fl_big ORDER BY f8, id OFFSET {CANCEL_ROWS - 1}",
    "GpuAgg grouped": "SELECT g, count(*), sum(i4), min(f8) FROM fl_big GROUP BY g ORDER BY g LIMIT 3",
    "GpuHashJoin": "SELECT count(*), sum(i4) FROM (SELECT t.i4, d.name FROM fl_big t "
                   "JOIN fl_dim d ON t.g = d.g OFFSET 0) s",
    "GpuSemiJoin": "SELECT count(*), sum(id) FROM (SELECT t.id FROM fl_big t WHERE t.g IN "
                   "(SELECT g FROM fl_dim WHERE name < 'd5') OFFSET 0) s",
}
CANCEL_LIMIT_MS = 100

QUERIES = {
    "GpuAgg": "SELECT count(*), sum(i4), min(f8), max(f8) FROM fl_t WHERE i4 % 7 <> 3",
    "GpuAgg grouped": "SELECT g, count(*), sum(i4), avg(f8)::numeric(20,6) FROM fl_t "
                      "GROUP BY g ORDER BY g LIMIT 5",
    "GpuSort": "SELECT id, f8 FROM fl_t WHERE i4 < 900000 ORDER BY f8 DESC, id LIMIT 5",
    "GpuSort full": "SELECT sum(x) FROM (SELECT i4 AS x FROM fl_t WHERE g < 20 "
                    "ORDER BY f8, id) s",
    "GpuHashJoin": "SELECT count(*), sum(t.i4) FROM fl_t t JOIN fl_dim d ON t.g = d.g",
    "GpuSemiJoin": "SELECT count(*) FROM (SELECT t.id FROM fl_t t WHERE t.g IN "
                   "(SELECT g FROM fl_dim WHERE name < 'd5') OFFSET 0) s",
}


def psql(sql, db=DB, opts=(), timeout=600):
    p = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=0", "-d", db, *opts],
                       input=sql, capture_output=True, text=True, timeout=timeout)
    return p.stdout, p.stderr


def one(sql, db=DB):
    out, err = psql(sql, db)
    if "ERROR" in err:
        raise RuntimeError(f"{sql}: {err}")
    return out.strip()


def setup():
    psql(f"DROP DATABASE IF EXISTS {DB}", db="postgres")
    one(f"CREATE DATABASE {DB}", db="postgres")
    one(f"""CREATE EXTENSION pg_gpu;
SET synchronous_commit = on;
CREATE TABLE fl_t (id int8, g int4, i4 int4, f8 float8);
INSERT INTO fl_t SELECT i, i % 1000, (i::int8 * 7919 % 1000003)::int4, ((i * 31) % 100003) / 7.0
  FROM generate_series(1, {ROWS}) i;
CREATE TABLE fl_dim AS SELECT i AS g, 'd' || i AS name FROM generate_series(0, 999, 3) i;
CREATE TABLE fl_big (id int8, g int4, i4 int4, f8 float8);
INSERT INTO fl_big SELECT i, i % 1000, (i::int8 * 7919 % 1000003)::int4, ((i * 31) % 100003) / 7.0
  FROM generate_series(1, {CANCEL_ROWS}) i;
VACUUM ANALYZE fl_big;
VACUUM ANALYZE fl_t;
VACUUM ANALYZE fl_dim;""")


def device_free():
    """Free device memory seen from a new session, once backends that ended
    have given theirs back (a context's teardown takes a while)."""
    last = None
    for _ in range(20):
        out = one("SELECT free_memory FROM pg_gpu_devices() WHERE ordinal = 0")
        if not out:
            return None
        cur = int(out)
        if last is not None and abs(cur - last) < (16 << 20):
            return cur
        last = cur
        time.sleep(0.5)
    return last


def durations():
    """Each query's time on the GPU, warm, in ms."""
    script = ["\\timing on", "SET pg_gpu.force = on;"]
    for q in QUERIES.values():
        script += [f"{q};", f"{q};"]
    out, err = psql("\n".join(script) + "\n")
    times = [float(m) for m in re.findall(r"Time: ([0-9.]+) ms", out + err)]
    times = times[-2 * len(QUERIES):]
    return {name: times[2 * i + 1] for i, name in enumerate(QUERIES)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cancels", type=int, default=100)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    print(f"faults: seed {seed}")
    failures = []
    setup()

    expected = {}
    for name, q in QUERIES.items():
        out, err = psql(f"SET pg_gpu.enabled = off;\n{q};")
        expected[name] = out.strip()

    if os.environ.get("FAULTS_ONLY") == "3":
        # FAULTS_CANCEL_SETS: settings variants, '|' between them, ';' within one
        for variant in os.environ.get("FAULTS_CANCEL_SETS", "").split("|"):
            os.environ["FAULTS_CANCEL_SET"] = variant
            print(f"== section 3 with settings: {variant or '(none)'}")
            cancel_latency(failures)
        for f in failures:
            print("FAIL:", f)
        print(f"faults: section 3 only, {len(failures)} failed")
        sys.exit(1 if failures else 0)

    # 1. the first GPU query of new connections, under a 150 ms timeout
    t0 = time.time()
    psql("SELECT 1")
    connect = time.time() - t0
    worst = 0.0
    for i in range(5):
        t0 = time.time()
        out, err = psql("SET pg_gpu.force = on;\nSET statement_timeout = '150ms';\n"
                        f"{QUERIES['GpuAgg']};\nRESET statement_timeout;\n{QUERIES['GpuAgg']};\n"
                        "SELECT gpu_executions FROM pg_gpu_stats WHERE node = 'GpuAgg';")
        wall = time.time() - t0 - connect
        lines = out.strip().splitlines()
        timed_out = "statement timeout" in err
        # psql's own time to the error is not printed: the wall time less a
        # connection's and the second query's, bounded above by the whole
        over = wall
        worst = max(worst, over)
        ok_answer = len(lines) >= 2 and lines[0] == expected["GpuAgg"]
        print(f"first query {i}: timed out {timed_out}, wall {wall * 1000:.0f} ms beyond connecting "
              f"(incl. a second query), then answer ok {ok_answer}, GPU runs {lines[-1] if lines else '?'}")
        if timed_out and not ok_answer:
            failures.append(f"first query {i}: wrong answer after the timeout: {lines} {err}")
    # the timeout alone, timed by psql itself
    for i in range(5):
        out, err = psql("\\timing on\nSET pg_gpu.force = on;\nSET statement_timeout = '150ms';\n"
                        f"{QUERIES['GpuAgg']};\n")
        times = [float(m) for m in re.findall(r"Time: ([0-9.]+) ms", out + err)]
        q_ms = times[-1] if times else -1
        hit = "statement timeout" in err
        print(f"first query {i}: statement_timeout 150 ms: {'cancelled' if hit else 'finished'} "
              f"after {q_ms:.0f} ms")
        if hit and q_ms > 250:
            failures.append(f"first query cancelled only after {q_ms:.0f} ms (limit 250)")

    # 2. cancels at random points, in one session: a timeout anywhere from 1 ms
    # to the query's own warm time
    took = durations()
    print("warm times, ms: " + ", ".join(f"{n} {t:.0f}" for n, t in took.items()))
    free0 = device_free()
    one("SELECT pg_gpu_stats_reset()")
    # no table cache: its copies would count as memory not given back
    script = ["\\timing on", "SET pg_gpu.force = on;", "SET pg_gpu.table_cache_size = 0;"]
    names = list(QUERIES)
    # warm: every query twice, so the engine's pools hold what they will hold
    for name in names * 2:
        script.append(f"{QUERIES[name]};")
    free_sql = "SELECT 'free|' || free_memory FROM pg_gpu_devices() WHERE ordinal = 0;"
    # the GPU service's tasks: channels taken and device memory held once every
    # task has ended (its pool keeps freed blocks for the next tasks)
    svc_sql = ("SELECT 'svc|' || channels_in_use || '|' || memory_in_use || '|' || memory_cached "
               "FROM pg_gpu_service() WHERE gpu = 'ready';")
    script.append(free_sql)
    script.append(svc_sql)
    plan = []
    for i in range(args.cancels):
        name = rnd.choice(names)
        ms = rnd.randint(1, max(2, int(took[name] * 1.1)))
        plan.append((name, ms))
        script.append(f"SET statement_timeout = '{ms}ms';")
        script.append(f"{QUERIES[name]};")
    script.append("RESET statement_timeout;")
    for name in names * 2:
        script.append(f"{QUERIES[name]};")
    script.append(free_sql)
    script.append(svc_sql)
    script.append("SELECT node, gpu_executions, cpu_fallbacks FROM pg_gpu_stats ORDER BY node;")
    script.append("SELECT reason, sum(count) FROM pg_gpu_fallbacks GROUP BY reason ORDER BY 1;")
    out, err = psql("\n".join(script) + "\n", timeout=3600)
    cancelled = err.count("canceling statement due to statement timeout")
    other_errors = [l for l in err.splitlines() if "ERROR" in l and "statement timeout" not in l]
    print(f"random cancels: {len(plan)} queries, {cancelled} cancelled, other errors: {len(other_errors)}")
    for l in other_errors[:10]:
        print("   ", l)
    if other_errors:
        failures.append(f"{len(other_errors)} errors other than the timeout")
    free1 = device_free()
    in_session = [int(l.split("|")[1]) for l in out.splitlines() if l.startswith("free|")]
    svc = [l.split("|")[1:] for l in out.splitlines() if l.startswith("svc|")]
    if len(in_session) == 2:
        print(f"device free memory in the cancelling session: {in_session[0] / 2**20:.0f} MiB "
              f"after the warm-up, {in_session[1] / 2**20:.0f} MiB after {len(plan)} cancels "
              "and a run of each query")
        # with the GPU service, the aggregations' memory is the service's: its
        # tasks must hold none once they have ended (below); its pool may keep
        # more blocks than after the warm-up, for the next tasks
        if not svc and in_session[1] < in_session[0] - (256 << 20):
            failures.append(f"device memory not returned in the session: {in_session}")
    if len(svc) == 2:
        print("GPU service after the warm-up and after the cancels: channels in use, task memory, "
              "pool: " + "; ".join(f"{a}, {int(b) / 2**20:.0f} MiB, {int(c) / 2**20:.0f} MiB"
                                   for a, b, c in svc))
        if svc[1][0] != "0" or svc[1][1] != "0":
            failures.append(f"GPU service: a task not ended after the cancels: {svc[1]}")
    # the final answers: the last len(names) query results before the stats
    body = [l for l in out.splitlines() if l and not l.startswith("Time:") and l != "SET" and l != "RESET"]
    print("stats and fallbacks after the cancels:")
    for l in body[-12:]:
        print("   ", l)
    for name in names:
        out2, err2 = psql(f"SET pg_gpu.force = on;\n{QUERIES[name]};")
        if out2.strip() != expected[name] or "ERROR" in err2:
            failures.append(f"{name}: after the cancels, forced answer differs: {out2!r} {err2!r}")
    if free0 is not None and free1 is not None:
        print(f"device free memory: {free0 / 2**20:.0f} MiB before, {free1 / 2**20:.0f} MiB after "
              "(the session that ran the cancels has ended)")
        if free1 < free0 - (256 << 20):
            failures.append(f"device memory not returned: {free0} -> {free1}")

    # 3. cancel latency per node, from the timeout to the error
    cancel_latency(failures)

    # 4. an injected failure in each node kind: PostgreSQL's plan answers
    for name, q in QUERIES.items():
        out, err = psql(f"SET pg_gpu.force = on;\nSET pg_gpu.debug_fail_after_chunks = 1;\n{q};")
        ok = out.strip() == expected[name] and "ERROR" not in err
        print(f"injected failure, {name}: answer ok {ok}")
        if not ok:
            failures.append(f"injected failure in {name}: {out!r} {err!r}")

    if one("SELECT count(*) FROM pg_gpu_service() WHERE gpu = 'ready'") == "1":
        service_faults(expected, failures)

    psql(f"DROP DATABASE IF EXISTS {DB}", db="postgres")
    verdict = "0 failed" if not failures else f"{len(failures)} failed"
    for f in failures:
        print("FAIL:", f)
    print(f"faults: seed {seed}, {len(plan)} random cancels, {verdict}")
    sys.exit(1 if failures else 0)


def oom_fallbacks():
    return int(one("SELECT coalesce(sum(count), 0) FROM pg_gpu_fallbacks "
                   "WHERE reason = 'out of memory in the gpu service'"))


def cancel_latency(failures):
    """Each node of CANCEL_QUERIES timed out at points spread over its warm run:
    psql's time for the statement less the timeout is how long the query went on
    after the timeout fired (the error's way back to psql included)."""
    for name, q in CANCEL_QUERIES.items():
        out, err = psql(f"SET pg_gpu.enabled = off;\n{q};")
        want = out.strip()
        plan, _ = psql(f"SET pg_gpu.force = on;\nEXPLAIN (COSTS OFF) {q};")
        nodes = sorted(set(re.findall(r"Custom Scan \((\w+)\)", plan)))
        # warm: the second run's time (the first may start CUDA, fill caches)
        out, err = psql(f"\\timing on\nSET pg_gpu.force = on;\n{q};\n{q};\n")
        times = [float(m) for m in re.findall(r"Time: ([0-9.]+) ms", out + err)]
        if len(times) < 2 or "ERROR" in err:
            failures.append(f"cancel latency, {name}: the query did not run: {err.strip()[:200]}")
            continue
        warm = times[-1]
        # where the time goes, once (EXPLAIN ANALYZE's phases)
        ea, _ = psql(f"SET pg_gpu.force = on;\nEXPLAIN (ANALYZE, COSTS OFF) {q};")
        print(f"cancel latency, {name}: EXPLAIN ANALYZE\n    " + "\n    ".join(ea.strip().splitlines()))
        script = ["\\timing on", "SET pg_gpu.force = on;"] + \
            [f"SET {x};" for x in os.environ.get("FAULTS_CANCEL_SET", "").split(";") if x.strip()]
        points = [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9] * 2
        plan_ms = []
        for frac in points:
            ms = max(2, int(warm * frac))
            plan_ms.append(ms)
            script += [f"SET statement_timeout = '{ms}ms';", f"{q};"]
        script += ["RESET statement_timeout;", f"{q};"]
        out, err = psql("\n".join(script) + "\n")
        # psql prints Time: after every statement, SETs included: take those
        # of the timed queries (every second line after the first SET)
        times = [float(m) for m in re.findall(r"Time: ([0-9.]+) ms", out + err)]
        skip = 2 + len([x for x in os.environ.get("FAULTS_CANCEL_SET", "").split(";") if x.strip()])
        qtimes = times[skip:skip + 2 * len(points):2]
        print(f"cancel latency, {name}: timeout ms -> statement ms: "
              + ", ".join(f"{ms}->{t:.0f}" for ms, t in zip(plan_ms, qtimes)))
        over = []
        cancelled = err.count("canceling statement due to statement timeout")
        for ms, t in zip(plan_ms, qtimes):
            if t >= ms:     # timed out (a run that finished first took less)
                over.append(t - ms)
        lines = [l for l in out.splitlines() if l and not l.startswith("Time:")
                 and l not in ("SET", "RESET")]
        answer = "\n".join(lines[-len(want.splitlines()):]) if want else ""
        other = [l for l in err.splitlines() if "ERROR" in l and "statement timeout" not in l]
        if over:
            over.sort()
            print(f"cancel latency, {name} ({', '.join(nodes) or 'no GPU node'}; warm {warm:.0f} ms): "
                  f"{cancelled} of {len(points)} timed out, ended {over[len(over) // 2]:.1f} ms (median) "
                  f"and {over[-1]:.1f} ms (most) after the timeout")
            if over[-1] > CANCEL_LIMIT_MS:
                failures.append(f"cancel latency, {name}: ended {over[-1]:.0f} ms after its timeout "
                                f"(limit {CANCEL_LIMIT_MS})")
        else:
            print(f"cancel latency, {name}: none of {len(points)} timed out (warm {warm:.0f} ms)")
        if not nodes:
            failures.append(f"cancel latency, {name}: no GPU node in the plan")
        if other:
            failures.append(f"cancel latency, {name}: errors other than the timeout: {other[:3]}")
        if answer != want:
            failures.append(f"cancel latency, {name}: after the timeouts, the forced answer "
                            f"differs: {answer!r} (want {want!r})")


def service_state():
    return one("SELECT state || '|' || gpu || '|' || restarts || '|' || channels_in_use "
               "FROM pg_gpu_service()").split("|")


def wait_service(restarts, limit=60.0):
    """Seconds until the service is ready again after so many restarts (None: never)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        try:
            st = service_state()
            if st[0] == "ready" and st[1] == "ready" and int(st[2]) >= restarts:
                return time.monotonic() - t0
        except (RuntimeError, subprocess.SubprocessError):
            pass
        time.sleep(0.05)
    return None


def hog_gpu_memory(leave_mib):
    """A process holding all but leave_mib of the GPU's free memory (cudaMalloc
    through ctypes), or None when the CUDA runtime library is not found."""
    code = f"""
import ctypes, glob, sys, time
libs = glob.glob('/usr/local/cuda/lib64/libcudart.so*') + glob.glob('/usr/lib/x86_64-linux-gnu/libcudart.so*')
rt = ctypes.CDLL(sorted(libs)[0])
free, total = ctypes.c_size_t(), ctypes.c_size_t()
rt.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total))
want = free.value - {leave_mib} * 2**20
p = ctypes.c_void_p()
held = 0
while want - held > 2**28 and rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(2**28)) == 0:
    held += 2**28
print(held // 2**20, flush=True)
sys.stdin.read()
"""
    try:
        p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        held = p.stdout.readline().strip()
        return p, int(held)
    except (OSError, ValueError, IndexError):
        return None, 0


def service_faults(expected, failures):
    names = ["GpuAgg", "GpuAgg grouped", "GpuSemiJoin"]
    restarts = int(service_state()[2])
    # a CUDA error in the task, an error the service restarts for, a hung task,
    # std::bad_alloc in the service's thread (its catch fails the task only)
    for fault, extra, restart in (("error", "", 0), ("alloc", "", 0), ("exit", "", 1),
                                  ("hang", "SET pg_gpu.service_timeout = '2s';", 1)):
        pid0, oom0 = one("SELECT pid FROM pg_gpu_service()"), oom_fallbacks()
        t0 = time.monotonic()
        for name in names:
            out, err = psql(f"SET pg_gpu.force = on; SET pg_gpu.table_cache_size = 0; {extra}\n"
                            f"SET pg_gpu.debug_service_fault = '{fault}';\n{QUERIES[name]};")
            ok = out.strip() == expected[name] and "ERROR" not in err
            if not ok:
                failures.append(f"service fault {fault}, {name}: {out!r} {err!r}")
        took = time.monotonic() - t0
        restarts += restart
        back = wait_service(restarts)
        print(f"service fault {fault}: {len(names)} queries answered as PostgreSQL does in "
              f"{took:.2f} s; service ready again after "
              f"{'never' if back is None else f'{back:.2f} s'} (restarts {service_state()[2]})")
        if back is None:
            failures.append(f"service fault {fault}: the service did not come back")
        if fault == "alloc":
            # the same process, no restart; the tasks counted; the next task on the GPU
            pid1, oom = one("SELECT pid FROM pg_gpu_service()"), oom_fallbacks() - oom0
            runs0 = int(one("SELECT gpu_executions FROM pg_gpu_stats WHERE node = 'GpuAgg'"))
            out, err = psql(f"SET pg_gpu.force = on; SET pg_gpu.table_cache_size = 0;\n"
                            f"{QUERIES['GpuAgg']};")
            runs = int(one("SELECT gpu_executions FROM pg_gpu_stats WHERE node = 'GpuAgg'")) - runs0
            print(f"service fault alloc: {oom} fallbacks 'out of memory in the gpu service', "
                  f"service pid {pid0} -> {pid1}, the next GpuAgg ran on the GPU {runs} time(s)")
            if pid1 != pid0 or oom < 1:
                failures.append(f"service fault alloc: pid {pid0} -> {pid1}, {oom} fallbacks counted")
            if out.strip() != expected["GpuAgg"] or "ERROR" in err or runs < 1:
                failures.append(f"after service fault alloc: {out!r} {err!r}, {runs} GPU runs")
    # GPU memory taken by another process: the queries still answer
    hog, held = hog_gpu_memory(leave_mib=256)
    if hog is None:
        print("GPU memory taken by another process: no CUDA runtime for the test, skipped")
    else:
        bad = 0
        for name in names:
            out, err = psql(f"SET pg_gpu.force = on;\n{QUERIES[name]};")
            if out.strip() != expected[name] or "ERROR" in err:
                bad += 1
                failures.append(f"GPU memory taken, {name}: {out!r} {err!r}")
        hog.stdin.close()
        hog.wait()
        fb = one("SELECT coalesce(sum(count), 0) FROM pg_gpu_fallbacks WHERE reason = 'out of gpu memory'")
        print(f"GPU memory taken by another process ({held} MiB held): {len(names)} queries, "
              f"{bad} wrong or failed; out-of-memory fallbacks so far: {fb}")
    # a cancel mid-task: how long after the timeout fires the query has ended
    over = []
    for i in range(20):
        ms = 3 + (i % 10) * 3
        out, err = psql(f"SET pg_gpu.force = on; SET pg_gpu.table_cache_size = 0;\n\\timing on\n"
                        f"SET statement_timeout = '{ms}ms';\n{QUERIES['GpuAgg grouped']};")
        t = [float(x) for x in re.findall(r"^Time: ([\d.]+) ms", out, re.M)]
        if "statement timeout" in err and t:
            over.append(t[-1] - ms)
    st = service_state()
    if over:
        over.sort()
        print(f"cancel mid-task: {len(over)} cancelled, ended {over[len(over) // 2]:.1f} ms "
              f"(median) and {over[-1]:.1f} ms (most) after the timeout; channels in use after: {st[3]}")
        if over[-1] > 100:
            failures.append(f"a cancelled task ended {over[-1]:.0f} ms after its timeout (limit 100)")
    if st[3] != "0":
        failures.append(f"channels still in use after the cancels: {st[3]}")
    # last: the service killed outright.  A crashed process attached to shared
    # memory makes the postmaster reset the cluster: sessions end, the server
    # restarts, the service starts the GPU again.  Measured, not avoided.
    t0 = time.monotonic()
    out, err = psql("SET pg_gpu.force = on; SET pg_gpu.table_cache_size = 0;\n"
                    f"SET pg_gpu.debug_service_fault = 'crash';\n{QUERIES['GpuAgg']};")
    lost = "terminat" in err or "connection" in err
    up = None
    while time.monotonic() - t0 < 120:
        try:
            if one("SELECT 1", db="postgres") == "1":
                up = time.monotonic() - t0
                break
        except (RuntimeError, subprocess.SubprocessError):
            pass
        time.sleep(0.1)
    back = wait_service(0, limit=120)
    print(f"service killed (SIGKILL): the session {'lost its connection' if lost else 'kept going'}; "
          f"the server accepted connections again after {'never' if up is None else f'{up:.1f} s'}, "
          f"the GPU service ready {'never' if back is None else f'{(up or 0) + back:.1f} s'} after the kill")
    if up is None or back is None:
        failures.append("the server or the GPU service did not come back after the service was killed")
    else:
        out, err = psql(f"SET pg_gpu.force = on;\n{QUERIES['GpuAgg']};")
        if out.strip() != expected["GpuAgg"] or "ERROR" in err:
            failures.append(f"after the reset: {out!r} {err!r}")


if __name__ == "__main__":
    main()
