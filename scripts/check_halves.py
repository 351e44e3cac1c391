#!/usr/bin/env python3
"""Every test runs its include files (sql/include/*.sql) once with
pg_gpu.enabled = off and then, unchanged, with pg_gpu.force = on (sometimes under
several GPU settings).  Check, in pg_regress result or expected files, that every
forced run of an include prints exactly what the preceding GPU-off run printed, so
one expected output really covers both modes."""
import re
import sys

STOP = re.compile(r"^(SET|RESET|ROLLBACK|DROP|EXPLAIN|DELETE|UPDATE|VACUUM|ALTER|BEGIN|COMMIT|INSERT|CREATE|\\i)\b")
OFF = re.compile(r"^SET (LOCAL )?pg_gpu\.enabled = off;")
bad = checked = 0
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    reference = {}
    gpu_off = False
    i = 0
    while i < len(lines):
        if OFF.match(lines[i]):
            gpu_off = True
        m = re.match(r"^\\i (sql/include/\S+)", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not STOP.match(lines[j]):
            j += 1
        k = j
        while k > i + 1 and (lines[k - 1] == "" or lines[k - 1].startswith("--")):
            k -= 1
        out = "\n".join(lines[i + 1:k])
        inc = m.group(1)
        if gpu_off:
            reference[inc] = out
            gpu_off = False
        elif inc in reference:
            checked += 1
            if out != reference[inc]:
                bad += 1
                print(f"{path}: forced run of {inc} at line {i + 1} differs from its GPU-off run")
        i = j
print(f"{checked - bad} passed, {bad} failed")
sys.exit(1 if bad or checked == 0 else 0)
