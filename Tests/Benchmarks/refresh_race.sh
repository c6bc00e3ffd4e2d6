#!/usr/bin/env bash
# The refresh race across three gateway processes, repeated: one refresh
# token redemption per race is the target. See refresh_race.py.
# Usage: Tests/Benchmarks/refresh_race.sh [runs=20] [--debug] [--no-build] [--delay-ms N]
# Environment: BENCH_SCRATCH (build directory, default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh test
exec python3 Tests/Benchmarks/refresh_race.py "$@"
