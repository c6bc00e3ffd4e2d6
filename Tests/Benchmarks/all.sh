#!/usr/bin/env bash
# Runs every benchmark script here and regenerates its tables in
# Docs/benchmarks.md (between the <!-- bench:NAME:start/end --> markers).
# See all.py.
# Usage: Tests/Benchmarks/all.sh [--only name,name] [--seconds N] [--no-doc] [--list]
# Environment: BENCH_SCRATCH (release builds, default /tmp/build-bench),
# BENCH_TEST_SCRATCH (release test builds, default /tmp/build-bench-test).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
exec python3 Tests/Benchmarks/all.py "$@"
