#!/usr/bin/env bash
# The cost of the app hand-off's steps and of paced cross-device polls. See crossplace_bench.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
exec python3 Tests/Benchmarks/crossplace_bench.py "$@"
