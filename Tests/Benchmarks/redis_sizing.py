"""What one session costs in Redis, measured: signs USERS users in (one
session each) through a gateway on a fresh redis-server, and reads Redis's
own accounting.

Prints, per session: the keys it adds, `MEMORY USAGE` of its record
(`bff:s:<key>`), of its session card, and of its user's index
(`bff:u:<sub>` grows with each session of that user), and `used_memory`
per session over the whole run (what to size Redis by: it includes the
hash table and allocator overhead).

Usage: Tests/Benchmarks/redis_sizing.sh [users=200]
Environment: BENCH_SCRATCH, the build directory (default .build).
"""
import subprocess
import sys

import benchlib as b
import proxy_bench as pb


def redis(port: int, *arguments: str) -> str:
    return subprocess.run(["redis-cli", "-p", str(port), *arguments], capture_output=True, text=True, check=True).stdout.strip()


def used_memory(port: int) -> int:
    info = redis(port, "INFO", "memory")
    return int(next(line.split(":")[1] for line in info.splitlines() if line.startswith("used_memory:")))


def main() -> int:
    users = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    binary, simulator = b.build_release(), b.build_release("modgud-sim")
    backends = pb.start_backends(simulator, lifetime=3600)
    processes = list(backends["processes"])
    try:
        gateway, public_port, _ = pb.start_gateway(binary, backends)
        processes.insert(0, gateway)
        for port in [public_port, *backends["ports"].values()]:
            b.wait_for_port(port)
        redis_port = backends["ports"]["redis"]
        before_keys, before = int(redis(redis_port, "DBSIZE")), used_memory(redis_port)
        for index in range(users):
            pb.sign_in(public_port, backends["ports"]["sim"], email=f"sizing-{index}@example.com")
        keys, after = int(redis(redis_port, "DBSIZE")), used_memory(redis_port)
        kinds: dict[str, list[int]] = {}
        for key in redis(redis_port, "--scan", "--pattern", "bff:*").splitlines():
            kind = ":".join(key.split(":")[:2])
            kinds.setdefault(kind, []).append(int(redis(redis_port, "MEMORY", "USAGE", key) or 0))
        print(f"# Redis sizing: {users} users, one session each (redis-server {redis(redis_port, 'INFO', 'server').split('redis_version:')[1].split()[0]})")
        print()
        print("| key kind | keys | MEMORY USAGE per key (median) |")
        print("|---|---|---|")
        for kind, sizes in sorted(kinds.items()):
            print(f"| `{kind}:…` | {len(sizes)} | {sorted(sizes)[len(sizes) // 2]} bytes |")
        print()
        print(f"keys per session: {(keys - before_keys) / users:.2f}; used_memory per session: {(after - before) / users:,.0f} bytes")
        return 0
    finally:
        for process in processes:
            process.stop()


if __name__ == "__main__":
    sys.exit(main())
