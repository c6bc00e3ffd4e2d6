#!/usr/bin/env bash
# Two builds of the gateway taking turns under one load: CPU per request. See paired.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh bench
exec python3 Tests/Benchmarks/paired.py "$@"
