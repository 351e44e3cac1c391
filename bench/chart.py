#!/usr/bin/env python3
"""Bar charts of pg_gpu's speed-up per query, from the runners' CSVs.

  bench/chart.py --out chart.png [--title T] LABEL=run.csv [LABEL=run.csv ...]

Each CSV has the rows bench/ssb/ssb.py writes: query, mode, ms[, gpu_nodes], with
modes "PG serial" (optional), "PG 8 workers" and "pg_gpu".  For every run and query
it draws pg_gpu's speed-up against PostgreSQL's 8-worker plan (and against serial
where the run has it), on a log scale with a line at 1x; several runs side by side
compare them (before and after a change, say).  Needs matplotlib (Debian:
python3-matplotlib, then run it with /usr/bin/python3).
"""
import argparse
import csv
import math
import statistics
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("chart.py: matplotlib is missing (apt-get install python3-matplotlib; /usr/bin/python3)")


def read(path):
    ms = {}
    order = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            q = row["query"]
            if q not in ms:
                ms[q] = {}
                order.append(q)
            ms[q][row["mode"]] = float(row["ms"])
    return order, ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="pg_gpu speed-up per query")
    ap.add_argument("runs", nargs="+", help="LABEL=file.csv")
    a = ap.parse_args()

    series = []      # (label, baseline, {query: ratio})
    queries = []
    for spec in a.runs:
        label, _, path = spec.partition("=")
        if not path:
            sys.exit(f"chart.py: {spec}: expected LABEL=file.csv")
        order, ms = read(path)
        for q in order:
            if q not in queries:
                queries.append(q)
        for base in ("PG 8 workers", "PG serial"):
            ratios = {q: m[base] / m["pg_gpu"] for q, m in ms.items()
                      if base in m and m.get("pg_gpu")}
            if ratios:
                series.append((label, base, ratios))
    if not series:
        sys.exit("chart.py: no query has both a PostgreSQL and a pg_gpu time")

    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(queries) + 2), 4.5))
    for i, (label, base, ratios) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(queries))]
        ys = [ratios.get(q, float("nan")) for q in queries]
        geo = statistics.geometric_mean(ratios.values())
        bars = ax.bar(xs, ys, width, label=f"{label}: vs {base} (geomean {geo:.2f}x)")
        for b, y in zip(bars, ys):
            if not math.isnan(y):
                ax.annotate(f"{y:.1f}", (b.get_x() + b.get_width() / 2, y), ha="center",
                            va="bottom", fontsize=7)
    ax.set_yscale("log")
    vals = [r for _, _, rs in series for r in rs.values()]
    ticks = [2.0 ** k for k in range(math.floor(math.log2(min(vals))), math.ceil(math.log2(max(vals))) + 2)]
    ax.set_yticks(ticks)
    ax.set_yticklabels([f"{t:g}x" for t in ticks])
    ax.minorticks_off()
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(queries)))
    ax.set_xticklabels(queries, rotation=45, ha="right")
    ax.set_ylabel("speed-up (PostgreSQL ms / pg_gpu ms), log scale")
    ax.set_title(a.title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"chart.py: {a.out}")


if __name__ == "__main__":
    main()
