"""The refresh race across gateway processes, repeated (the issue's proof
as a measurement; Tests/GatewayTests/RefreshRaceTests.swift is the test).

Starts redis-server, modgud-sim (no jitter, rate limits off) and three
modgud-bff processes sharing both, with one route `/api/` (token `user`)
to a small upstream in this script that records the Authorization header.
Then, per run:
  1. the simulator issues 2-second access tokens; a fresh user signs in
     with an e-mail code through the first gateway (the cookie works on
     all three: they share Redis);
  2. the simulator is switched to 1-hour tokens, so the refresh's tokens
     stay fresh and a late request has no reason to refresh again;
  3. after the sign-in token's expiry (gateways refresh 1 s before it),
     150 requests at once: 50 per gateway, every connection opened first,
     then every request written, then the answers read;
  4. from the simulator's request log and /dev/stats: refresh_token
     redemptions (calls with grant_type=refresh_token; target 1), double
     redemptions (every one beyond the first: a replay, or a refresh that
     single flight should have saved), non-200 answers, whether a token family was revoked, and how
     many different tokens reached the upstream (target 1).

Tests/Chaos/chaos.py --refresh-race runs the same races (start_gateways,
run_races) on a Sentinel group or a Redis Cluster.

Usage: Tests/Benchmarks/refresh_race.sh [runs=20] [--debug] [--no-build] [--delay-ms N]
  --debug      debug build instead of release (faster to build)
  --no-build   use the binaries already built
  --delay-ms   make Modgud answer the refresh N ms late (default 0)
Environment: BENCH_SCRATCH, the build directory (default .build).
Exit status 1 when any run has a double redemption, no redemption at all
(the race did not happen), a non-200 answer or a revoked family.
"""
import http.server
import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import benchlib as b

GATEWAYS = 3
PER_GATEWAY = 50
LIFETIME_S = 2


def call(port, method, path, body=None, headers=None, form=False):
    data = None
    if body is not None:
        data = (body if form else json.dumps(body)).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded" if form else "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


class Upstream(http.server.ThreadingHTTPServer):
    """Answers 200 and records every request's Authorization header."""
    daemon_threads = True
    request_queue_size = 512

    def __init__(self):
        self.seen = []
        self.lock = threading.Lock()
        upstream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                with upstream.lock:
                    upstream.seen.append(self.headers.get("Authorization", ""))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    def take(self):
        with self.lock:
            seen, self.seen = self.seen, []
        return seen


def burst(ports, cookie, per_port, timeout=60.0):
    """Statuses of `per_port` GET /api/items on each port, all in flight at once."""
    sockets = []
    for _ in range(per_port):
        for port in ports:
            s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
            sockets.append((s, port))
    for s, port in sockets:
        s.sendall((f"GET /api/items HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\nX-CSRF: 1\r\n"
                   f"Origin: http://localhost:8080\r\nCookie: __Host-bff={cookie}\r\n\r\n").encode())
    selector = selectors.DefaultSelector()
    received = {}
    for s, _ in sockets:
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ)
        received[s] = b""
    deadline = time.time() + timeout
    open_count = len(sockets)
    while open_count and time.time() < deadline:
        for key, _ in selector.select(timeout=0.1):
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                received[key.fileobj] += chunk
            else:
                selector.unregister(key.fileobj)
                open_count -= 1
    statuses = []
    for s, _ in sockets:
        head = received[s].split(b"\r\n", 1)[0].split()
        statuses.append(int(head[1]) if len(head) >= 2 and head[1].isdigit() else 0)
        s.close()
    return statuses


def sign_in(gateway_port, sim_port, email):
    csrf = {"X-CSRF": "1"}
    status, _, _ = call(gateway_port, "POST", "/bff/otp/request", {"email": email}, csrf)
    assert status == 200, f"otp/request: {status}"
    mail = json.loads(call(sim_port, "GET", f"/dev/mailbox?email={email}")[1])
    status, body, headers = call(gateway_port, "POST", "/bff/otp/redeem", {"email": email, "code": mail[0]["code"]}, csrf)
    assert status == 200, f"otp/redeem: {status} {body[:200]}"
    for value in headers.get_all("Set-Cookie") or []:
        if value.startswith("__Host-bff="):
            return value.split(";", 1)[0].split("=", 1)[1]
    raise RuntimeError("no session cookie")


def sim_config(sim_port, patch):
    status, body, _ = call(sim_port, "POST", "/dev/config", patch)
    assert status == 200, f"/dev/config: {status} {body[:200]}"


def stats(sim_port):
    return json.loads(call(sim_port, "GET", "/dev/stats")[1])


def request_total(sim_port):
    return json.loads(call(sim_port, "GET", "/dev/requests?limit=0")[1])["total"]


def refresh_calls(sim_port, since):
    calls, cursor = [], since
    while True:
        page = json.loads(call(sim_port, "GET", f"/dev/requests?since={cursor}&limit=1000&path=/connect/token")[1])["requests"]
        calls += [r for r in page if r.get("grantType") == "refresh_token"]
        if len(page) < 1000:
            return calls
        cursor = page[-1]["seq"]


def binaries(args):
    debug = "--debug" in args
    if "--no-build" not in args:
        for product in ("modgud-bff", "modgud-sim"):
            if not debug:
                b.build_release(product)
                continue
            argv = ["swift", "build", "--product", product]
            if os.environ.get("BENCH_SCRATCH"):
                argv += ["--scratch-path", os.environ["BENCH_SCRATCH"]]
            subprocess.run(argv, cwd=b.ROOT, check=True, stdout=subprocess.DEVNULL)
    directory = b.build_dir() / ("debug" if debug else "release")
    return directory / "modgud-bff", directory / "modgud-sim"


def start_gateways(bff, sim_port, upstream_port, redis_env, processes, count=GATEWAYS, log_dir=None, extra_env=None):
    """`count` modgud-bff processes sharing the simulator and Redis
    (`redis_env`: the BFF_REDIS_* settings), with one route `/api/` (token
    `user`) to the upstream on `upstream_port`; each is appended to
    `processes` as it starts. Returns their (public, admin) ports once every
    one answers /readyz."""
    routes = json.dumps([{"prefix": "/api/", "upstream": f"http://127.0.0.1:{upstream_port}/", "token": "user"}])
    gateways = []
    for index in range(count):
        public, admin = b.free_port(), b.free_port()
        processes.append(b.Process([str(bff)], log_name=f"gateway{index}", inherit_env=False, log_dir=log_dir, env={
            "BFF_LISTEN": f"127.0.0.1:{public}", "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin}",
            "BFF_MODGUD_URL": f"http://127.0.0.1:{sim_port}", "BFF_CLIENT_ID": "bff",
            "BFF_CLIENT_SECRET": "bff-secret", **redis_env,
            "BFF_ROUTES": routes, "BFF_REFRESH_SKEW_S": "1", "BFF_PUBLIC_ORIGIN": "http://localhost:8080",
            "BFF_LOG_LEVEL": "warning", "BFF_ACCESS_LOG": "false", "BFF_SHUTDOWN_TIMEOUT_MS": "1000",
            **(extra_env or {})}))
        gateways.append((public, admin))
    for _, admin in gateways:
        deadline = time.time() + 60
        while True:
            try:
                if call(admin, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise RuntimeError(f"gateway on admin port {admin} not ready; logs in {log_dir or '/tmp'}/bench-gateway*")
            time.sleep(0.05)
    return gateways


def run_races(ports, sim_port, upstream, runs, delay_ms=0) -> int:
    """The races, one table row each, and the totals; 1 when any run has a
    double redemption, no redemption, a non-200 answer or a revoked family."""
    print(f"{runs} runs, {len(ports)} gateways x {PER_GATEWAY} requests, Modgud delay {delay_ms} ms")
    print(f"{'run':>4} {'redemptions':>11} {'double':>6} {'non-200':>7} {'tokens':>6} {'revoked':>7} {'ms':>6}")
    total_double = total_non200 = total_revoked = total_missed = 0
    stamp = int(time.time())
    for run in range(1, runs + 1):
        sim_config(sim_port, {"accessTokenLifetimeSeconds": LIFETIME_S})
        cookie = sign_in(ports[0], sim_port, f"race-{stamp}-{run}@example.com")
        signed_in = time.monotonic()
        sim_config(sim_port, {"accessTokenLifetimeSeconds": 3600})
        if delay_ms:
            status = call(sim_port, "POST", "/dev/faults",
                          {"path": "/connect/token", "count": 1, "delayMs": delay_ms})[0]
            assert status == 200, f"/dev/faults: {status}"
        time.sleep(max(0.0, signed_in + LIFETIME_S + 0.5 - time.monotonic()))
        mark = request_total(sim_port)
        before = stats(sim_port)
        upstream.take()

        started = time.monotonic()
        statuses = burst(ports, cookie, PER_GATEWAY)
        elapsed_ms = (time.monotonic() - started) * 1000

        redemptions = len(refresh_calls(sim_port, mark))
        after = stats(sim_port)
        revoked = (after.get("store", {}).get("revokedFamilies", 0)
                   - before.get("store", {}).get("revokedFamilies", 0)) > 0
        double = max(0, redemptions - 1)
        non200 = sum(1 for s in statuses if s != 200)
        tokens = len(set(upstream.take()))
        total_double += double
        total_missed += int(redemptions == 0)
        total_non200 += non200
        total_revoked += int(revoked)
        print(f"{run:>4} {redemptions:>11} {double:>6} {non200:>7} {tokens:>6} {'yes' if revoked else 'no':>7} "
              f"{elapsed_ms:>6.0f}", flush=True)
    print(f"double redemptions: {total_double} over {runs} runs (target 0)")
    print(f"non-200 answers: {total_non200}; runs with a revoked family: {total_revoked}; "
          f"runs without a redemption: {total_missed}")
    return 1 if total_double or total_non200 or total_revoked or total_missed else 0


def start_simulator(sim, processes, log_dir=None):
    """modgud-sim (no jitter, rate limits off, LIFETIME_S access tokens) on a
    free port, appended to `processes`; returns the port once it listens."""
    sim_port = b.free_port()
    processes.append(b.Process([str(sim), "--listen", f"127.0.0.1:{sim_port}", "--jitter-ms", "0",
                                "--rate-limits", "off", "--log-level", "warning",
                                "--access-token-lifetime", str(LIFETIME_S)], log_name="sim", inherit_env=False,
                               log_dir=log_dir))
    b.wait_for_port(sim_port)
    return sim_port


def main() -> int:
    args = sys.argv[1:]
    delay_ms = 0
    if "--delay-ms" in args:
        delay_ms = int(args[args.index("--delay-ms") + 1])
        del args[args.index("--delay-ms"):args.index("--delay-ms") + 2]
    positional = [a for a in args if not a.startswith("--")]
    runs = int(positional[0]) if positional else 20
    bff, sim = binaries(args)

    workdir = tempfile.mkdtemp(prefix="bench-refresh-race-")
    upstream = Upstream()
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    redis_port = b.free_port()
    processes = []
    try:
        processes.append(b.Process(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                                    "--appendonly", "no", "--dir", workdir], log_name="redis", inherit_env=False))
        b.wait_for_port(redis_port)
        sim_port = start_simulator(sim, processes)
        gateways = start_gateways(bff, sim_port, upstream.server_address[1],
                                  {"BFF_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0"}, processes)
        return run_races([public for public, _ in gateways], sim_port, upstream, runs, delay_ms)
    finally:
        for process in reversed(processes):
            process.stop()
        upstream.shutdown()


if __name__ == "__main__":
    sys.exit(main())
