"""The API proxy on a three-master Redis Cluster against the same on one
Redis, in one run: paired.py's builds taking turns, with the same binary
twice, the second ("new") set to BFF_REDIS_MODE=cluster on a six-node
cluster (three masters, a replica each; Tests/Chaos/topology.py) and the
first ("base") on paired.py's one redis-server.

Three measurements, printed one after the other:
  1. proxy, default settings: both keep the session cache (CLIENT
     TRACKING; on the cluster one tracking connection per master);
  2. proxy with the session cache off on both: the cost of slot routing
     alone, each request reading Redis either way;
  3. instructions (callgrind), the cache off on both: the routing's added
     cost per request, counted.

Usage: Tests/Benchmarks/cluster_bench.sh [rounds=5] [seconds=5]
Environment: BENCH_SCRATCH, the build directory (default .build).
"""
import json
import os
import sys
import tempfile
from pathlib import Path

import benchlib as b
import paired

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Chaos"))
import topology  # noqa: E402 (after the path above)

CACHE_OFF = {"BFF_SESSION_CACHE_STALENESS_MS": "0"}


def run(mode: str, binary: Path, cluster_env: dict, both_env: dict, rounds: str, seconds: str) -> int:
    os.environ["BENCH_GATEWAY_ENV"] = json.dumps(both_env)
    os.environ["BENCH_NEW_GATEWAY_ENV"] = json.dumps(cluster_env)
    sys.argv = ["paired.py", mode, str(binary), str(binary)] + ([rounds, seconds] if mode != "instructions" else ["1", seconds])
    return paired.main()


def main() -> int:
    rounds = sys.argv[1] if len(sys.argv) > 1 else "5"
    seconds = sys.argv[2] if len(sys.argv) > 2 else "5"
    binary = b.build_release()
    cluster = topology.start("cluster", Path(tempfile.mkdtemp(prefix="bench-cluster-")))
    try:
        env = cluster.gateway_env()
        print("## 1. proxy, default settings (base: one Redis; new: the cluster; the session cache on both)\n")
        status = run("proxy", binary, env, {}, rounds, seconds)
        print("\n## 2. proxy, the session cache off on both (base: one Redis; new: the cluster)\n")
        status |= run("proxy", binary, env, CACHE_OFF, rounds, seconds)
        print("\n## 3. instructions per request, the session cache off on both (base: one Redis; new: the cluster)\n")
        status |= run("instructions", binary, env, CACHE_OFF, rounds, "10")
        return status
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
