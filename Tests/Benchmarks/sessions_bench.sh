#!/usr/bin/env bash
# Session load per request (cookie → Redis → decrypt) beside a bare GET:
# our RedisClient's GET of a record-sized value and
# `redis-benchmark -t get -n 100000 -c 1 --csv`, against the same loopback
# redis-server, in the same run. Release build; the measurement is the
# BENCH-gated Swift test SessionsTests.SessionBenchmark.
# Usage: Tests/Benchmarks/sessions_bench.sh [requests per variant, default 50000]
# Environment: SCRATCH (build directory, default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh test
command -v redis-benchmark >/dev/null || { echo "redis-benchmark is missing (package redis-tools)" >&2; exit 1; }

export BENCH=1 BENCH_N="${1:-50000}"
swift test -c release --scratch-path "${SCRATCH:-.build}" --filter 'SessionsTests.SessionBenchmark' 2>&1 \
    | grep -vE '^\[[0-9]+/[0-9]+\]|^◇|^↳|^Test Suite|Executed 0 tests|^warning: '
