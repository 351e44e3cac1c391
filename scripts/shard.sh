#!/usr/bin/env bash
# scripts/shard.sh [ARGS...]: a coordinator and N shard servers on this machine, the
# Star Schema Benchmark (or, --bench tpch, TPC-H under Citus) distributed over them,
# its queries through the coordinator compared with one plain PostgreSQL
# (scripts/shard.py says what is checked; its options pass through).  Without a
# GPU (no nvidia-smi, or it lists none) the shards run pg_gpu's engine on the CPU and
# forced (--emulate --force), as `make shardcheck` does in CI.  Run as root, the
# clusters belong to the user postgres.
set -euo pipefail
cd "$(dirname "$0")/.."
extra=()
if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
  case " $* " in
    *" --emulate "*) ;;
    *) extra=(--emulate --force) ;;
  esac
fi
exec python3 scripts/shard.py "${extra[@]}" "$@"
