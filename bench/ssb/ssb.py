#!/usr/bin/env python3
"""The Star Schema Benchmark for pg_gpu: data generated inside PostgreSQL, the 13
queries timed with PostgreSQL's 8-worker plan, with pg_gpu at default costs and
(--serial) PostgreSQL serial, the answers compared, the GPU nodes that ran listed.

  bench/ssb/ssb.py [--sf 10] [--load | --skip-load] [--queries Q1.1,Q3.1] [--reps 3]
                   [--serial] [--procs 16] [--cache] [--clients 1,16 [--seconds 20]
                   [--force]] [--out DIR]

--clients: then that many clients at once (each count of the list in turn) run the
queries for --seconds, each query in a new connection (bench/connections.py's loop),
at default costs (or --force): queries/s, p50, p95, errors, and every answer against
PostgreSQL's; the GPU service's workers are named, so that runs with one GPU and with
several (pg_gpu.service_devices) compare.  --reps 0 skips the per-query table.

Needs a running cluster that preloads pg_gpu (PGHOST/PGPORT/PGUSER/PGDATABASE as
psql takes them; on the GPU host `source .gpuhost/pg-up`).  The tables are loaded
when missing or when --load is given, by --procs psql sessions side by side
(bench/ssb/generate.sql: deterministic values from the specification's domains).
Writes ssb_results.md, ssb.csv (query, mode, median ms, GPU nodes) and ssb_plans.txt
(pg_gpu's EXPLAIN ANALYZE of each query, warm) to --out.
"""
import argparse
import csv
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from bench import psql, timed, SETTLE, WARM  # noqa: E402  (bench/bench.py)

# lineorder's columns that the 13 queries read (--cache)
FACT_COLUMNS = ["lo_custkey", "lo_partkey", "lo_suppkey", "lo_orderdate", "lo_quantity",
                "lo_extendedprice", "lo_discount", "lo_revenue", "lo_supplycost"]

# The 13 queries of the specification (flights 1-4)
Q = {
    "Q1.1": "SELECT sum(lo_extendedprice::int8 * lo_discount) AS revenue FROM lineorder, date "
            "WHERE lo_orderdate = d_datekey AND d_year = 1993 AND lo_discount BETWEEN 1 AND 3 "
            "AND lo_quantity < 25",
    "Q1.2": "SELECT sum(lo_extendedprice::int8 * lo_discount) AS revenue FROM lineorder, date "
            "WHERE lo_orderdate = d_datekey AND d_yearmonthnum = 199401 "
            "AND lo_discount BETWEEN 4 AND 6 AND lo_quantity BETWEEN 26 AND 35",
    "Q1.3": "SELECT sum(lo_extendedprice::int8 * lo_discount) AS revenue FROM lineorder, date "
            "WHERE lo_orderdate = d_datekey AND d_weeknuminyear = 6 AND d_year = 1994 "
            "AND lo_discount BETWEEN 5 AND 7 AND lo_quantity BETWEEN 26 AND 35",
    "Q2.1": "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier "
            "WHERE lo_orderdate = d_datekey AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey "
            "AND p_category = 'MFGR#12' AND s_region = 'AMERICA' "
            "GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1",
    "Q2.2": "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier "
            "WHERE lo_orderdate = d_datekey AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey "
            "AND p_brand1 BETWEEN 'MFGR#2221' AND 'MFGR#2228' AND s_region = 'ASIA' "
            "GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1",
    "Q2.3": "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier "
            "WHERE lo_orderdate = d_datekey AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey "
            "AND p_brand1 = 'MFGR#2239' AND s_region = 'EUROPE' "
            "GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1",
    "Q3.1": "SELECT c_nation, s_nation, d_year, sum(lo_revenue) AS revenue "
            "FROM customer, lineorder, supplier, date "
            "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey "
            "AND c_region = 'ASIA' AND s_region = 'ASIA' AND d_year >= 1992 AND d_year <= 1997 "
            "GROUP BY c_nation, s_nation, d_year ORDER BY d_year ASC, revenue DESC",
    "Q3.2": "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue "
            "FROM customer, lineorder, supplier, date "
            "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey "
            "AND c_nation = 'UNITED STATES' AND s_nation = 'UNITED STATES' "
            "AND d_year >= 1992 AND d_year <= 1997 "
            "GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC",
    "Q3.3": "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue "
            "FROM customer, lineorder, supplier, date "
            "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey "
            "AND (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') "
            "AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5') "
            "AND d_year >= 1992 AND d_year <= 1997 "
            "GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC",
    "Q3.4": "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue "
            "FROM customer, lineorder, supplier, date "
            "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey "
            "AND (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') "
            "AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5') AND d_yearmonth = 'Dec1997' "
            "GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC",
    "Q4.1": "SELECT d_year, c_nation, sum(lo_revenue - lo_supplycost) AS profit "
            "FROM date, customer, supplier, part, lineorder "
            "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey "
            "AND lo_orderdate = d_datekey AND c_region = 'AMERICA' AND s_region = 'AMERICA' "
            "AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') "
            "GROUP BY d_year, c_nation ORDER BY d_year, c_nation",
    "Q4.2": "SELECT d_year, s_nation, p_category, sum(lo_revenue - lo_supplycost) AS profit "
            "FROM date, customer, supplier, part, lineorder "
            "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey "
            "AND lo_orderdate = d_datekey AND c_region = 'AMERICA' AND s_region = 'AMERICA' "
            "AND (d_year = 1997 OR d_year = 1998) AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') "
            "GROUP BY d_year, s_nation, p_category ORDER BY d_year, s_nation, p_category",
    "Q4.3": "SELECT d_year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) AS profit "
            "FROM date, customer, supplier, part, lineorder "
            "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey "
            "AND lo_orderdate = d_datekey AND c_region = 'AMERICA' AND s_nation = 'UNITED STATES' "
            "AND (d_year = 1997 OR d_year = 1998) AND p_category = 'MFGR#14' "
            "GROUP BY d_year, s_city, p_brand1 ORDER BY d_year, s_city, p_brand1",
}

DATE_SQL = """
INSERT INTO date
SELECT to_char(d, 'YYYYMMDD')::int4, to_char(d, 'FMMonth FMDD, YYYY'), to_char(d, 'FMDay'),
       to_char(d, 'FMMonth'), extract(year FROM d)::int4,
       (extract(year FROM d) * 100 + extract(month FROM d))::int4,
       to_char(d, 'Mon') || extract(year FROM d)::int4, extract(dow FROM d)::int4 + 1,
       extract(day FROM d)::int4, extract(doy FROM d)::int4, extract(month FROM d)::int4,
       (extract(doy FROM d)::int4 - 1) / 7 + 1,
       CASE WHEN extract(month FROM d) IN (1, 2) THEN 'Winter'
            WHEN extract(month FROM d) IN (3, 4) THEN 'Spring'
            WHEN extract(month FROM d) BETWEEN 5 AND 8 THEN 'Summer'
            WHEN extract(month FROM d) IN (9, 10) THEN 'Fall' ELSE 'Christmas' END,
       extract(dow FROM d) = 6, d = (date_trunc('month', d) + interval '1 month - 1 day')::date,
       to_char(d, 'MMDD') IN ('0101', '0704', '1225', '1231'),
       extract(dow FROM d) BETWEEN 1 AND 5
  FROM generate_series(date '1992-01-01', date '1998-12-31', interval '1 day') g(d0),
       LATERAL (SELECT d0::date AS d) x;
"""

# customer and supplier: a nation (and region), a city of it, phone by nation
PARTY_SQL = """
INSERT INTO {t}
SELECT k, '{name}#' || lpad(k::text, 9, '0'),
       substr(md5(k::text || '{t}'), 1, 10 + ssb_rand(k, 3, 16)::int),
       ssb_city(ssb_nation(ssb_rand(k, 1, 25)), ssb_rand(k, 2, 10)),
       ssb_nation(ssb_rand(k, 1, 25)), ssb_region(ssb_rand(k, 1, 25)),
       (10 + ssb_rand(k, 1, 25))::text || '-' || lpad(ssb_rand(k, 4, 1000)::text, 3, '0') || '-'
         || lpad(ssb_rand(k, 5, 1000)::text, 3, '0') || '-' || lpad(ssb_rand(k, 6, 10000)::text, 4, '0')
       {extra}
  FROM generate_series({lo}, {hi}) k;
"""
SEGMENT = (", (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'])"
           "[1 + ssb_rand(k, 7, 5)]")

COLORS = ("ARRAY['almond', 'antique', 'aquamarine', 'azure', 'beige', 'bisque', 'black', "
          "'blanched', 'blue', 'blush', 'brown', 'burlywood', 'burnished', 'chartreuse', "
          "'chiffon', 'chocolate', 'coral', 'cornflower', 'cornsilk', 'cream', 'cyan', 'dark', "
          "'deep', 'dim', 'dodger', 'drab', 'firebrick', 'floral', 'forest', 'frosted', "
          "'gainsboro', 'ghost', 'goldenrod', 'green', 'grey', 'honeydew', 'hot', 'indian', "
          "'ivory', 'khaki', 'lace', 'lavender', 'lawn', 'lemon', 'light', 'lime', 'linen', "
          "'magenta', 'maroon', 'medium', 'metallic', 'midnight', 'mint', 'misty', 'moccasin', "
          "'navajo', 'navy', 'olive', 'orange', 'orchid', 'pale', 'papaya', 'peach', 'peru', "
          "'pink', 'plum', 'powder', 'puff', 'purple', 'red', 'rose', 'rosy', 'royal', "
          "'saddle', 'salmon', 'sandy', 'seashell', 'sienna', 'sky', 'slate', 'smoke', "
          "'snow', 'spring', 'steel', 'tan', 'thistle', 'tomato', 'turquoise', 'violet', "
          "'wheat', 'white', 'yellow']")
PART_SQL = f"""
INSERT INTO part
SELECT k, c1 || ' ' || c2, 'MFGR#' || m, 'MFGR#' || m || c,
       'MFGR#' || m || c || lpad(b::text, 2, '0'), c1,
       (ARRAY['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'])[1 + ssb_rand(k, 24, 6)]
         || ' ' || (ARRAY['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'])[1 + ssb_rand(k, 25, 5)]
         || ' ' || (ARRAY['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'])[1 + ssb_rand(k, 26, 5)],
       1 + ssb_rand(k, 27, 50)::int4,
       (ARRAY['SM', 'LG', 'MED', 'JUMBO', 'WRAP'])[1 + ssb_rand(k, 28, 5)] || ' '
         || (ARRAY['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'])[1 + ssb_rand(k, 29, 8)]
  FROM generate_series({{lo}}, {{hi}}) k,
       LATERAL (SELECT 1 + ssb_rand(k, 20, 5) AS m, 1 + ssb_rand(k, 21, 5) AS c,
                       1 + ssb_rand(k, 22, 40) AS b,
                       ({COLORS})[1 + ssb_rand(k, 23, 92)] AS c1,
                       ({COLORS})[1 + ssb_rand(k, 30, 92)] AS c2) x;
"""

# an order's lines: 1 to 7; the order fixes customer, date and priority
LINEORDER_SQL = """
INSERT INTO lineorder
SELECT o, l, cust, pk, 1 + ssb_rand(o * 8 + l, 14, {nsupp})::int4, ssb_datekey(d0),
       prio, '0', q, q * ssb_price(pk), tot, disc, q * ssb_price(pk) * (100 - disc) / 100,
       6 * ssb_price(pk) / 10, ssb_rand(o * 8 + l, 17, 9)::int4,
       ssb_datekey(d0 + 30 + ssb_rand(o * 8 + l, 18, 61)),
       (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[1 + ssb_rand(o * 8 + l, 19, 7)]
  FROM generate_series({lo}, {hi}) o,
       LATERAL (SELECT 1 + ssb_rand(o, 11, {ncust})::int4 AS cust, ssb_rand(o, 12, 2406) AS d0,
                       (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECI', '5-LOW'])
                         [1 + ssb_rand(o, 13, 5)] AS prio,
                       (100000 + ssb_rand(o, 16, 50000000))::int4 AS tot) oo,
       LATERAL generate_series(1, 1 + ssb_rand(o, 10, 7)::int) l,
       LATERAL (SELECT 1 + ssb_rand(o * 8 + l, 13, {npart})::int4 AS pk,
                       1 + ssb_rand(o * 8 + l, 15, 50)::int4 AS q,
                       ssb_rand(o * 8 + l, 16, 11)::int4 AS disc) ll;
"""


def sizes(sf):
    npart = 200000 * int(math.floor(1 + math.log2(sf))) if sf >= 1 else max(1000, int(200000 * sf))
    return {"customer": max(1, int(30000 * sf)), "supplier": max(1, int(2000 * sf)),
            "part": npart, "orders": max(1, int(1500000 * sf))}


def parallel(stmts):
    ps = [subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", s]) for s in stmts]
    if any(p.wait() != 0 for p in ps):
        raise SystemExit("ssb: loading failed")


def chunks(n, procs):
    step = (n + procs - 1) // procs
    return [(lo, min(n, lo + step - 1)) for lo in range(1, n + 1, step)]


def load(sf, procs):
    n = sizes(sf)
    t0 = time.time()
    psql(open(os.path.join(HERE, "schema.sql")).read() + open(os.path.join(HERE, "generate.sql")).read())
    stmts = [DATE_SQL]
    stmts += [PARTY_SQL.format(t="customer", name="Customer", lo=lo, hi=hi, extra=SEGMENT)
              for lo, hi in chunks(n["customer"], 2)]
    stmts += [PARTY_SQL.format(t="supplier", name="Supplier", lo=1, hi=n["supplier"], extra="")]
    stmts += [PART_SQL.format(lo=lo, hi=hi) for lo, hi in chunks(n["part"], 2)]
    parallel(stmts)
    parallel([LINEORDER_SQL.format(lo=lo, hi=hi, ncust=n["customer"], nsupp=n["supplier"],
                                   npart=n["part"]) for lo, hi in chunks(n["orders"], procs)])
    psql(SETTLE + "VACUUM ANALYZE date, customer, supplier, part, lineorder; "
         "ALTER TABLE lineorder SET (parallel_workers = 8);")
    return time.time() - t0


def answer(settings, q, warm=False):
    out = psql((WARM if warm else "") + "".join(f"SET {s};\n" for s in settings)
               + "\\echo ==answer==\n" + q + ";\n")
    return out.split("==answer==\n", 1)[1].strip().split("\n")


def fact_blocks():
    # lineorder's blocks read from outside shared buffers and found in them, so far
    return [int(x) for x in psql(
        "SELECT pg_stat_force_next_flush(); SELECT pg_stat_clear_snapshot(); "
        "SELECT heap_blks_read || ' ' || heap_blks_hit FROM pg_statio_user_tables "
        "WHERE relname = 'lineorder'").split()[-2:]]


def gpu_nodes(settings, q):
    # in a warm session, as timed: a session plans GPU paths once its engine is up
    b0 = fact_blocks()
    out = psql(WARM + "".join(f"SET {s};\n" for s in settings) +
               f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {q};\n")
    b1 = fact_blocks()
    out += f"\nlineorder blocks (pg_statio, this EXPLAIN and its warm-up): read {b1[0] - b0[0]}, hit {b1[1] - b0[1]}\n"
    # the nodes that ran (a GPU node's fallback child holds others, never executed)
    nodes = [m.group(1) for m in re.finditer(r"Custom Scan \((Gpu\w+)\)[^\n]*", out)
             if "never executed" not in m.group(0)]
    fb = re.findall(r"Fallback: ([^\n]+)", out)
    counts = {}
    for n in nodes:
        counts[n] = counts.get(n, 0) + 1
    desc = ", ".join(f"{k}×{v}" if v > 1 else k for k, v in counts.items()) or "none"
    return desc + (f" (fallback: {'; '.join(fb)})" if fb else ""), out


def clients_run(a, pr):
    """--clients: the queries by many clients at once; returns the wrong answers."""
    import connections  # noqa: E402  (bench/connections.py: the client loop)
    names = a.queries.split(",")
    settings = "SET extra_float_digits = 0; SET max_parallel_workers_per_gather = 8;\n"
    want = {}
    for n in names:
        _, r = connections.run_psql(settings + "SET pg_gpu.enabled = off;\n" + Q[n] + ";\n")
        if r.returncode != 0:
            raise SystemExit(f"{n} with pg_gpu off failed: {r.stderr.strip()}")
        want[Q[n]] = r.stdout.strip()
    svc = psql("SELECT coalesce((SELECT string_agg('worker ' || device || ': GPU ' || gpu, '; ' "
               "ORDER BY device) FROM pg_gpu_service()), 'off')").strip()
    pr()
    pr(f"### {len(names)} queries by many clients, each query in a new connection, "
       f"{'forced' if a.force else 'default costs'}, {a.seconds:g} s each")
    pr()
    pr(f"GPU service: {svc}")
    pr()
    pr("| clients | queries | queries/s | p50 ms | p95 ms | errors | wrong answers | GPU memory peak MiB |")
    pr("|---|---|---|---|---|---|---|---|")
    wrong = 0
    for c in [int(x) for x in a.clients.split(",") if x]:
        r = connections.conn_per_query(c, a.seconds, want, [Q[n] for n in names],
                                       settings + ("SET pg_gpu.force = on;\n" if a.force else ""))
        wrong += r["wrong"] + r["errors"]
        pr(f"| {c} | {r['queries']} | {r['qps']:.1f} | {r['p50']:.0f} | {r['p95']:.0f} | "
           f"{r['errors']} | {r['wrong']} | {r['gpu_mib'] if r['gpu_mib'] is not None else '-'} |")
        if r["first_error"]:
            pr(f"\nfirst error: {r['first_error']}\n")
    return wrong


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=10)
    ap.add_argument("--load", action="store_true", help="generate the tables even if present")
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--queries", default=",".join(Q))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--serial", action="store_true", help="also time PostgreSQL serial")
    ap.add_argument("--procs", type=int, default=16)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--clients", default="", help="clients at once, a list (1,16)")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--force", action="store_true", help="--clients' queries forced")
    ap.add_argument("--cache", action="store_true",
                    help="put lineorder's columns that the queries read in the GPU service's "
                         "column cache first (pg_gpu_cache_table)")
    a = ap.parse_args()

    psql("CREATE EXTENSION IF NOT EXISTS pg_gpu; DROP TABLE IF EXISTS t_warm; "
         "CREATE TABLE t_warm AS SELECT 1 AS x; VACUUM t_warm;")
    have = psql("SELECT to_regclass('lineorder') IS NOT NULL").strip() == "t"
    load_s = None
    if a.load or (not have and not a.skip_load):
        load_s = load(a.sf, a.procs)
    lo_rows = int(psql("SELECT reltuples::int8 FROM pg_class WHERE relname = 'lineorder'").strip())
    lo_bytes = int(psql("SELECT pg_relation_size('lineorder')").strip())
    # bring the fact table into shared buffers where it fits
    psql("SELECT count(*) FROM lineorder;")
    cache_s = None
    if a.cache:
        # a block is cached once all-visible: a VACUUM after the load's
        # (which an overlapping autovacuum snapshot can leave short) marks the rest
        psql(SETTLE + "VACUUM lineorder;")
        t0 = time.time()
        psql("SELECT pg_gpu_cache_table('lineorder', ARRAY[" +
             ", ".join(f"'{c}'" for c in FACT_COLUMNS) + "]);")
        cache_s = time.time() - t0
    dev = psql("SELECT coalesce((SELECT name FROM pg_gpu_devices() LIMIT 1), 'no GPU')").strip()
    lines = []

    def pr(s=""):
        print(s, flush=True)
        lines.append(s)

    pr(f"## SSB, scale factor {a.sf:g} — {time.strftime('%Y-%m-%d')}")
    pr()
    pr(f"GPU: {dev}; CPU: {os.cpu_count()} cores; PostgreSQL {psql('SHOW server_version').strip()}; "
       f"shared_buffers {psql('SHOW shared_buffers').strip()}")
    pr(f"lineorder: {lo_rows:,} rows, {lo_bytes / 1e9:.2f} GB"
       + (f"; loaded in {load_s:.0f} s" if load_s is not None else "")
       + (f"; its {len(FACT_COLUMNS)} columns put in the GPU cache in {cache_s:.1f} s"
          if cache_s is not None else ""))
    pr()
    pg_off = ["pg_gpu.enabled = off"]
    modes = [("PG 8 workers", pg_off + ["max_parallel_workers_per_gather = 8"])]
    if a.serial:
        modes.insert(0, ("PG serial", pg_off + ["max_parallel_workers_per_gather = 0"]))
    gpu = ["pg_gpu.enabled = on", "max_parallel_workers_per_gather = 8"]
    hdr = "| query | " + " | ".join(f"{m} ms" for m, _ in modes) + \
        " | pg_gpu ms | vs 8 workers | answers | GPU nodes |"
    if a.reps > 0:
        pr(hdr)
        pr("|" + "---|" * (hdr.count("|") - 1))
    rows = []
    ratios = []
    totals = {m: 0.0 for m, _ in modes}
    totals["pg_gpu"] = 0.0
    bad = 0
    plans = []
    for name in a.queries.split(",") if a.reps > 0 else []:
        q = Q[name]
        ms = {}
        for m, s in modes:
            ms[m], _, _ = timed(s, q, a.reps, warm=False, explain=False)
        ms["pg_gpu"], _, _ = timed(gpu, q, a.reps, warm=True, explain=False)
        want, got = answer(modes[-1][1], q), answer(gpu, q, warm=True)
        same = want == got or sorted(want) == sorted(got)
        bad += 0 if same else 1
        nodes, plan = gpu_nodes(gpu, q)
        plans.append(f"==== {name}\n{q}\n{plan}")
        r = ms["PG 8 workers"] / ms["pg_gpu"]
        ratios.append(r)
        for k in totals:
            totals[k] += ms[k]
        pr(f"| {name} | " + " | ".join(f"{ms[m]:,.0f}" for m, _ in modes) +
           f" | {ms['pg_gpu']:,.0f} | {r:.2f}× | {'same' if same else '**DIFFERENT**'} | {nodes} |")
        for m in ms:
            rows.append((name, m, f"{ms[m]:.1f}", nodes if m == "pg_gpu" else ""))
    geo = statistics.geometric_mean(ratios) if ratios else 0
    if a.reps > 0:
        pr("| all | " + " | ".join(f"{totals[m]:,.0f}" for m, _ in modes) +
           f" | {totals['pg_gpu']:,.0f} | geomean {geo:.2f}× | {bad} different | |")
    if a.clients:
        bad += clients_run(a, pr)
    cache = psql("SELECT \"table\" || ': ' || blocks || ' blocks, ' || bytes || ' bytes, ' || scans "
                 "|| ' scans, ' || hits || ' from the cache' FROM pg_gpu_cache ORDER BY 1").strip()
    pr()
    pr("GPU column cache after the run: " + ("; ".join(cache.split("\n")) if cache else "empty"))
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "ssb_results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "ssb_plans.txt"), "w") as f:
        f.write("\n".join(plans))
    with open(os.path.join(a.out, "ssb.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["query", "mode", "ms", "gpu_nodes"])
        w.writerows(rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
