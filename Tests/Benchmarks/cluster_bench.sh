#!/usr/bin/env bash
# The API proxy on a three-master Redis Cluster beside one Redis, same run. See cluster_bench.py.
# Environment: BENCH_SCRATCH (build directory, default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
exec python3 Tests/Benchmarks/cluster_bench.py "$@"
