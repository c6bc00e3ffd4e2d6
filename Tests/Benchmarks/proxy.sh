#!/usr/bin/env bash
# The API proxy vs nginx proxy_pass, same upstream, same run. See proxy_bench.py.
# Environment: BENCH_SCRATCH (build directory, default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
exec python3 Tests/Benchmarks/proxy_bench.py "$@"
