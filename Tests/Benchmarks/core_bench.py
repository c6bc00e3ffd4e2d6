"""The HTTP core against nginx, measured in one run on this machine.

Starts the gateway (release build) and nginx (`return 200` with the same
body, 2 workers, keep-alive) on loopback ports, drives each with wrk at 64
and 256 connections, and prints requests/s, p50/p99 latency and the ratio,
side by side. Then the same for a static file of 1 KiB: the gateway's
public listener serving it from `BFF_STATIC_ROOT` (kept in memory and
answered on the loop) against nginx serving the same file from the same
directory. Then measures the gateway's idle RSS and its RSS while it
holds 10,000 idle keep-alive connections.

Each server gets `seconds` of load per connection count, in `rounds`
rounds that alternate between the two: this shared machine has slow
spells (another tenant's load, the hypervisor taking time), and a spell
that lands on one server's single run skews that run's ratio by 15-30 %.
Alternating puts both servers through the same spells; the table shows
each server's median round and the median of the rounds' ratios, and the
line under it every round's ratio.

Usage: Tests/Benchmarks/core.sh [seconds=20] [rounds=5]
"""
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import benchlib as b

BODY = '{"status":"ok"}'
STATIC_NAME = "asset.js"
STATIC_BYTES = 1024


def hold_idle_connections(port: int, count: int) -> list[socket.socket]:
    """Opens `count` connections, sends one request on each, reads the
    answer, and keeps them open (keep-alive) for the caller to measure."""
    request = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(request)
        sockets.append(s)
    for s in sockets:
        data = b""
        while b"\r\n\r\n" not in data or not data.endswith(BODY.encode()):
            chunk = s.recv(4096)
            if not chunk:
                raise RuntimeError("connection closed while held")
            data += chunk
    return sockets


def ratios(ours: list[dict], theirs: list[dict]) -> list[float]:
    return [mine["rps"] / nginx["rps"] for mine, nginx in zip(ours, theirs)]


def print_table(rows) -> None:
    print("| connections | gateway rps | p50 ms | p99 ms | CPU µs/req | nginx rps | p50 ms | p99 ms | CPU µs/req | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for connections, ours, theirs in rows:
        mine, nginx_median = b.median_round(ours), b.median_round(theirs)
        print(f"| {connections} | {mine['rps']:.0f} | {mine['p50']:.2f} | {mine['p99']:.2f} | {b.micros(mine['cpu_us'])} "
              f"| {nginx_median['rps']:.0f} | {nginx_median['p50']:.2f} | {nginx_median['p99']:.2f} "
              f"| {b.micros(nginx_median['cpu_us'])} | {statistics.median(ratios(ours, theirs)):.2f} |")


def main() -> int:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    per_round = max(2, round(seconds / rounds))
    binary = b.build_release()
    public_port, admin_port, nginx_port = b.free_port(), b.free_port(), b.free_port()
    nginx_static_port = b.free_port()
    site = Path(tempfile.mkdtemp(prefix="bench-static-"))
    (site / STATIC_NAME).write_text(("console.log('static');" * 64)[:STATIC_BYTES])
    # nginx's workers may run as another user (nobody, when started as root).
    site.chmod(0o755)
    (site / STATIC_NAME).chmod(0o644)

    gateway = b.Process([str(binary)], env={
        "BFF_LISTEN": f"127.0.0.1:{public_port}",
        "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin_port}",
        "BFF_LOG_LEVEL": "warning",
        "BFF_MAX_CONNECTIONS": "16384",
        "BFF_STATIC_ROOT": str(site),
        "BFF_ACCESS_LOG": "false",
        # wrk's connections all come from one address.
        "BFF_MAX_CONNECTIONS_PER_ADDRESS": "0",
    }, log_name="gateway")
    nginx, _ = b.start_nginx(f"""
    server {{
        listen 127.0.0.1:{nginx_port};
        location / {{ default_type application/json; return 200 '{BODY}'; }}
    }}
    server {{
        listen 127.0.0.1:{nginx_static_port};
        location / {{ root {site}; default_type text/javascript; etag on; add_header Cache-Control "public, max-age=300"; }}
    }}""")
    try:
        b.wait_for_port(admin_port)
        b.wait_for_port(nginx_port)
        b.wait_for_port(public_port)
        time.sleep(0.5)
        idle_rss = b.rss_kib(gateway.pid)

        rows = []
        gateway_url, nginx_url = f"http://127.0.0.1:{admin_port}/healthz", f"http://127.0.0.1:{nginx_port}/healthz"
        for connections in (64, 256):
            b.wrk(gateway_url, connections, 2)  # warm-up
            b.wrk(nginx_url, connections, 2)
            ours, theirs = [], []
            for _ in range(rounds):
                ours.append(b.wrk(gateway_url, connections, per_round, cpu_of=[gateway.pid]))
                theirs.append(b.wrk(nginx_url, connections, per_round, cpu_of=b.children(nginx.pid)))
            rows.append((connections, ours, theirs))

        static_rows = []
        gateway_url, nginx_url = (f"http://127.0.0.1:{public_port}/{STATIC_NAME}",
                                  f"http://127.0.0.1:{nginx_static_port}/{STATIC_NAME}")
        for connections in (64, 256):
            b.wrk(gateway_url, connections, 2)  # warm-up (the first request reads the file)
            b.wrk(nginx_url, connections, 2)
            ours, theirs = [], []
            for _ in range(rounds):
                ours.append(b.wrk(gateway_url, connections, per_round, cpu_of=[gateway.pid]))
                theirs.append(b.wrk(nginx_url, connections, per_round, cpu_of=b.children(nginx.pid)))
            static_rows.append((connections, ours, theirs))

        loaded_rss = b.rss_kib(gateway.pid)
        held = hold_idle_connections(admin_port, 10_000)
        time.sleep(0.5)
        held_rss = b.rss_kib(gateway.pid)
        for s in held:
            s.close()
    finally:
        gateway_status = gateway.stop()
        nginx.stop()
        for path in site.iterdir():
            path.unlink()
        site.rmdir()

    print(f"# HTTP core vs nginx `return 200` ({rounds} alternating rounds of {per_round}s per server, "
          "wrk -t1, loopback, 2 cores)")
    print()
    print_table(rows)
    print()
    print("Each column is the median over the rounds; ratio is the median of the rounds' ratios "
          "(gateway requests/s over nginx's in the round that followed). CPU µs/req: user + system CPU of the "
          "gateway process (all its threads), or of nginx's workers, during the timed run, per answered "
          "request (/proc/PID/stat).")
    for connections, ours, theirs in rows:
        listed = ", ".join(f"{ratio:.2f}" for ratio in ratios(ours, theirs))
        print(f"- ratio by round, {connections} connections: {listed}")
    print()
    print(f"**Static file ({STATIC_BYTES // 1024} KiB) from the gateway vs nginx serving the same file, same run**")
    print()
    print_table(static_rows)
    for connections, ours, theirs in static_rows:
        listed = ", ".join(f"{ratio:.2f}" for ratio in ratios(ours, theirs))
        print(f"- static ratio by round, {connections} connections: {listed}")
    for connections, ours, theirs in rows + static_rows:
        for name, results in (("gateway", ours), ("nginx", theirs)):
            for result in results:
                if result["non2xx"] or result["socket_errors"]:
                    print(f"WARNING {name} c={connections}: non-2xx {result['non2xx']}, "
                          f"socket errors {result['socket_errors']}")
    print()
    print("| gateway memory | RSS MiB |")
    print("|---|---|")
    print(f"| idle, after start | {idle_rss / 1024:.1f} |")
    print(f"| after the load runs | {loaded_rss / 1024:.1f} |")
    print(f"| holding 10,000 idle keep-alive connections | {held_rss / 1024:.1f} |")
    print()
    print(f"gateway exit status after SIGTERM: {gateway_status}")
    return 0 if gateway_status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
