#!/usr/bin/env bash
# HTTP core vs nginx `return 200`, same machine, same run. See core_bench.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
exec python3 Tests/Benchmarks/core_bench.py "$@"
