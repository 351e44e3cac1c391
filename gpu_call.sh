#!/usr/bin/env bash
# untracked driver for one GPU-host call
set -uo pipefail
cd "$(dirname "$0")"
export PGUP_CONF="${PGUP_CONF:-shared_buffers = 16GB
max_connections = 200}"
mkdir -p "$OUT/x"
( [ -f /tmp/.s.PGSQL.5432.lock ] && kill "$(head -1 /tmp/.s.PGSQL.5432.lock)" 2>/dev/null; sleep 2; rm -rf /tmp/pgdata ) || true
OUT=$OUT/x bash scripts/gpuhost_run.sh 2>&1 | tee "$OUT/x/run.log" | tail -120
[ "${EXPLAIN:-0}" = 1 ] && bash gpu_explain.sh > "$OUT/x/explain.txt" 2>&1 && grep -E "===|Wall|Pin Workers|Execution|Setup|Page Time|Wait|Build Time|Collect" "$OUT/x/explain.txt" | head -90
nvidia-smi > "$OUT/x/nvidia-smi.txt" 2>&1
tar czf "$OUT/logs.tgz" -C "$OUT" x && rm -rf "$OUT/x"
