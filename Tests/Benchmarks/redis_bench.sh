#!/usr/bin/env bash
# GET round trip through RedisClient beside `redis-benchmark -t get -n 100000
# -c 1`, against the same throw-away redis-server, in one run (release build).
# Usage: Tests/Benchmarks/redis_bench.sh [requests]   (default 20000)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh test >/dev/null
scratch="${SCRATCH_PATH:-/tmp/build-redis-bench}"
BENCH=1 BENCH_N="${1:-20000}" swift test -c release --scratch-path "$scratch" \
    --filter 'RedisTests.BenchmarkTests' 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write|^warning: prohibited'
