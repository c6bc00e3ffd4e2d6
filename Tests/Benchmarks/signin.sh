#!/usr/bin/env bash
# The gateway's own overhead per sign-in. See signin_bench.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
exec python3 Tests/Benchmarks/signin_bench.py "$@"
