#!/usr/bin/env bash
# The code-flow callback's own cost, and an id_token verification alone.
# See callback_bench.py; the verification alone is the BENCH-gated Swift
# test OIDCTests.IDTokenBenchmark, in release mode.
# Usage: Tests/Benchmarks/callback.sh [callbacks=300] [verifications=5000]
# Environment: BENCH_SCRATCH (build directory for the release builds).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
python3 Tests/Benchmarks/callback_bench.py "${1:-300}"
echo
BENCH=1 BENCH_N="${2:-5000}" swift test -c release --scratch-path "${BENCH_SCRATCH:-.build}" \
    --filter 'OIDCTests.IDTokenBenchmark' 2>&1 | grep '^BENCH'
