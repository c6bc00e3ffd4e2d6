#!/usr/bin/env bash
# Redis faults under load behind three gateways and nginx: a Sentinel
# failover, a Redis Cluster failover and a slot migration. See chaos.py.
# Usage: Tests/Chaos/chaos.sh [--topology sentinel|cluster] [--reshard] [--bounded]
#        [--seconds S] [--users K] [--wait-replicas N] [--refresh-race N] [--debug] [--no-build] ...
# Without --topology: sentinel, then cluster, then cluster --reshard (with
# --refresh-race N: the race on sentinel, then on cluster).
# Environment: BENCH_SCRATCH (build directory, default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
Deploy/local/ensure-packages.sh test  # redis-server, redis-sentinel, nginx-light

for arg in "$@"; do
    case "$arg" in --topology|--topology=*) exec python3 Tests/Chaos/chaos.py "$@" ;; esac
done

build=()
status=0
race=0
for arg in "$@"; do [ "$arg" = --refresh-race ] && race=1; done
if [ "$race" = 1 ]; then
    runs=(--topology=sentinel --topology=cluster)
else
    runs=("--topology=sentinel" "--topology=cluster" "--topology=cluster --reshard")
fi
for run in "${runs[@]}"; do
    # shellcheck disable=SC2086 # $run holds separate options
    python3 Tests/Chaos/chaos.py $run "$@" "${build[@]}" || status=1
    build=(--no-build)  # built once, by the first run
done
exit "$status"
