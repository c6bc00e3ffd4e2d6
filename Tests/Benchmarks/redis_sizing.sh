#!/usr/bin/env bash
# What one session costs in Redis (keys, MEMORY USAGE, used_memory). See redis_sizing.py.
# Environment: BENCH_SCRATCH (build directory, default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
exec python3 Tests/Benchmarks/redis_sizing.py "$@"
