#!/usr/bin/env python3
"""Every test runs its include files (sql/include/*.sql) once with
pg_gpu.enabled = off and then, unchanged, with pg_gpu.force = on (sometimes under
several GPU settings).  Check, in pg_regress result or expected files, that every
forced run of an include prints exactly what the preceding GPU-off run printed, so
one expected output really covers both modes.

An include's output is found by its own text: psql echoes every line of it, in
order, so the output runs from the `\\i` line to the last of the include's lines
and that statement's result, up to the main file's next statement."""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OFF = re.compile(r"^SET (LOCAL )?pg_gpu\.enabled = off;")
INCLUDE = re.compile(r"^\\i (sql/include/\S+)")


def statements(lines):
    """Non-empty lines that are not comments: what psql echoes and we can find."""
    return [l for l in lines if l.strip() and not l.startswith("--")]


def include_end(lines, start, inc_lines, next_stmt):
    """Index just past the include's output that begins after lines[start]."""
    j = start + 1
    for want in statements(inc_lines):
        while j < len(lines) and lines[j] != want:
            j += 1
        if j == len(lines):
            return None
        j += 1
    # the last statement's result, up to the main file's next statement
    while j < len(lines) and (next_stmt is None or lines[j] != next_stmt):
        j += 1
    while j > start + 1 and (lines[j - 1] == "" or lines[j - 1].startswith("--")):
        j -= 1
    return j


bad = checked = 0
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    # an alternative expected file (join_set_1.out) belongs to join_set.sql
    test = re.sub(r"_\d+$", "", os.path.splitext(os.path.basename(path))[0])
    main_path = os.path.join(ROOT, "sql", test + ".sql")
    main = open(main_path).read().split("\n") if os.path.exists(main_path) else []
    main_stmts = statements(main)
    # the statement after each \i of the main file, in order
    after = [main_stmts[k + 1] if k + 1 < len(main_stmts) else None
             for k, l in enumerate(main_stmts) if INCLUDE.match(l)]
    reference = {}
    gpu_off = False
    nth = 0
    i = 0
    while i < len(lines):
        if OFF.match(lines[i]):
            gpu_off = True
        m = INCLUDE.match(lines[i])
        if not m:
            i += 1
            continue
        inc = m.group(1)
        inc_lines = open(os.path.join(ROOT, inc)).read().split("\n")
        next_stmt = after[nth] if nth < len(after) else None
        nth += 1
        end = include_end(lines, i, inc_lines, next_stmt)
        if end is None:
            bad += 1
            print(f"{path}: the output of {inc} at line {i + 1} does not echo the include")
            i += 1
            continue
        out = "\n".join(lines[i + 1:end])
        if gpu_off:
            reference[inc] = out
            gpu_off = False
        elif inc in reference:
            checked += 1
            if out != reference[inc]:
                bad += 1
                print(f"{path}: forced run of {inc} at line {i + 1} differs from its GPU-off run")
        i = end
print(f"{checked - bad} passed, {bad} failed")
sys.exit(1 if bad or checked == 0 else 0)
