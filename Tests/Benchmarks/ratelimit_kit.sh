#!/usr/bin/env bash
# The rate-limit pass-through load kit: browsers -> nginx (TLS) -> gateway ->
# modgud-sim with small limits; checks that every 429 reaches the client
# unchanged and nothing is retried. See ratelimit_kit.py.
# Usage: Tests/Benchmarks/ratelimit_kit.sh [seconds=20] [browsers=5000] [mailboxes=10000]
# Environment: BENCH_SCRATCH (build directory, default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
command -v openssl >/dev/null || Deploy/local/ensure-packages.sh test
exec python3 Tests/Benchmarks/ratelimit_kit.py "$@"
