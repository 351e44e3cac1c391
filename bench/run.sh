#!/usr/bin/env bash
# Run on the GPU host after: source .gpuhost/pg-up (with pg_gpu preloaded) and make install.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 bench/bench.py "$@"
