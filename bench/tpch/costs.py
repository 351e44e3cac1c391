#!/usr/bin/env python3
"""The planner's view of TPC-H queries next to what they cost: for each query and
mode, EXPLAIN (ANALYZE, COSTS ON, TIMING OFF) in a warm session (pg8: PostgreSQL's
8-worker plan; default: pg_gpu at default costs; forced: pg_gpu.force).  Estimated
rows and costs beside actual rows and times are what the cost model is calibrated
from (issue 31: Q21 at default).  Needs the tables loaded (tpch.py --load-only).

    python3 bench/tpch/costs.py --queries Q21,Q11 --modes pg8,default,forced > costs.txt
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from queries import Q  # noqa: E402
from bench import WARM  # noqa: E402
from tpch import mode_settings, PSQL  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", default="Q21")
    ap.add_argument("--modes", default="pg8,default,forced")
    ap.add_argument("--sf", type=float, default=10)
    ap.add_argument("--timeout-s", type=float, default=60)
    ap.add_argument("--emulate", action="store_true")
    ap.add_argument("--plan-only", action="store_true",
                    help="EXPLAIN (COSTS ON) without running the query")
    a = ap.parse_args()
    for name in a.queries.split(","):
        q = Q[name]
        if "{fraction}" in q:
            q = q.format(fraction=0.0001 / a.sf)
        for mode in a.modes.split(","):
            pre, s = mode_settings(mode, a.emulate)
            script = f"SET statement_timeout = '{int(a.timeout_s * 1000)}ms';\n"
            script += "".join(f"SET {x};\n" for x in pre)
            if mode != "pg8":
                script += WARM
            script += "".join(f"SET {x};\n" for x in s)
            opts = "COSTS ON" if a.plan_only else "ANALYZE, COSTS ON, TIMING OFF"
            script += f"EXPLAIN ({opts}) {q};\n"
            r = subprocess.run([*PSQL, "-q", "-At"], input=script, capture_output=True,
                               text=True, timeout=a.timeout_s * 2 + 60)
            print(f"==== {name} {mode}", flush=True)
            print(r.stdout + r.stderr, flush=True)


if __name__ == "__main__":
    main()
