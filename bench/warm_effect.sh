#!/usr/bin/env bash
# Does a backend that started CUDA and registered the buffer pool run PostgreSQL's own
# plans slower?  TPC-H Q11 (no GPU node at default costs) three times in each of three
# sessions: pg_gpu off; pg_gpu on; pg_gpu on after pg_gpu_register_buffer_pool() (what
# bench/tpch's warm-up does).  On the GPU host after a TPC-H load, PostgreSQL started.
source .gpuhost/pg-up "$PWD/.gpuhost/pg15.tar.xz" /tmp/pgdata > /dev/null 2>&1
Q=$(python3 -c "import sys; sys.path.insert(0,'bench/tpch'); from queries import Q; print(Q['${1:-Q11}'].format(fraction=0.0001/10) if '{fraction}' in Q['${1:-Q11}'] else Q['${1:-Q11}'])")
for s in "SET pg_gpu.enabled=off;" "SET pg_gpu.enabled=on;" "SELECT pg_gpu_register_buffer_pool(); SET pg_gpu.enabled=on;"; do
  printf '%s\n' "SET max_parallel_workers_per_gather=8;" "$s" "\\timing on" "\\o /dev/null" "$Q;" "$Q;" "$Q;" |
    psql -X -q -At 2>&1 | grep -E "^Time|ERROR" | tr '\n' ' ' | sed "s/^/${1:-Q11} [$s]: /"; echo
done
