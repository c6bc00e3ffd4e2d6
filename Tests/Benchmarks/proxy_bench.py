"""The API proxy against nginx proxy_pass, measured in one run on this machine.

One upstream API, nginx `return 200` with a small JSON body (1 worker),
sits behind two proxies on loopback ports:
  - the reference: nginx `proxy_pass` (2 workers) with an upstream
    keep-alive pool, setting the same request headers the gateway sets;
  - the gateway (release build, its default one event loop per core) with
    one route, `/api/` -> the upstream, token mode `user`: every request
    finds its session (stored sealed in Redis; between idle renewals the
    gateway's tracked cache of sealed records serves it from memory, opened
    and checked per request) and attaches the user's access token.
redis-server and modgud-sim (release, no jitter, rate limits off) are
started too; one user signs in through the gateway with an e-mail code
(read from the simulator's dev mailbox) as signin_bench.py does, and every
measured request is `GET /api/items` with that session cookie and
`X-CSRF: 1`, to both proxies alike. The upstream answers 401 to a request
without a bearer token, so a 200 proves the token was attached.

Two phases, each run against both proxies:
  - full load: wrk -t1 -c64 (as core_bench.py): requests/s, p50, p99;
  - half load: wrk paced to half the gateway's full-load rate, the same
    pacing for both: each connection pauses a random 0-20 ms (wrk's Lua
    `delay()`) after every answer, and the number of connections is set
    by a short calibration run so that the gateway gets about that rate.
    wrk times each request from its send, so the pauses are not counted.
    (No open-loop tool is packaged in Debian: wrk2 is not; hey is, with a
    per-worker rate limit, but its Go client's own delay, ~1 ms at p50
    against nginx at 5,000/s, would swamp the difference measured here.)
Then one connection alone (wrk -t1 -c1) against each: a request's time
through the proxy with nothing queued. Then the gateway's RSS after the runs.

In the two load phases each proxy gets `seconds` of load, in `rounds`
rounds that alternate between the two, as core_bench.py does: a slow
spell of this shared machine then falls on both. The table shows each
proxy's median round; the ratio and the p99 added are the medians of the
rounds' own, and the rows under them list every round's. Twelve rounds
of 3 s by default: one round's p99 added moved by ±10 ms with the host,
and the median of five was a coin toss around a 1 ms target.

Usage: Tests/Benchmarks/proxy.sh [seconds=36] [rounds=12]
"""
import json
import os
import statistics
import sys
import tempfile
import time

import benchlib as b

BODY = '{"ok":true,"items":[{"id":1,"name":"first"},{"id":2,"name":"second"}]}'
PATH = "/api/items"
FULL_CONNECTIONS = 64
PAUSE_MS = 10  # mean pause between an answer and the next request, half-load phase
REFRESH_SKEW_S = 60  # the gateway's BFF_REFRESH_SKEW_S default


def sign_in(public_port: int, sim_port: int, cookie_name: str = "__Host-bff", email: str = "proxy-bench@example.com") -> str:
    """Signs one user in with an e-mail code; returns the session cookie's value."""
    status, _, body = b.call(public_port, "POST", "/bff/otp/request", {"email": email})
    if status != 200:
        raise SystemExit(f"POST /bff/otp/request answered {status}: {body[:300]!r}")
    mail = json.loads(b.call(sim_port, "GET", f"/dev/mailbox?email={email}")[2])
    status, headers, body = b.call(public_port, "POST", "/bff/otp/redeem", {"email": email, "code": mail[0]["code"]})
    if status != 200:
        raise SystemExit(f"POST /bff/otp/redeem answered {status}: {body[:300]!r}")
    for cookie in headers.get_all("Set-Cookie") or []:
        name, _, rest = cookie.partition("=")
        if name.strip() == cookie_name:
            return rest.split(";", 1)[0]
    raise SystemExit(f"POST /bff/otp/redeem set no {cookie_name} cookie")


def verify(name: str, port: int, headers: dict, log: str) -> None:
    """One request through a proxy: must be 200 with the upstream's body."""
    status, _, body = b.call(port, "GET", PATH, headers=headers)
    print(f"verification: {name} GET {PATH} -> {status}, {len(body)} bytes", file=sys.stderr)
    if status != 200 or body.decode(errors="replace") != BODY:
        raise SystemExit(f"{name} did not relay the upstream's answer: {status} {body[:300]!r} (log: {log})")


def wrk_script(headers: dict, pause_ms: int | None = None) -> str:
    """A wrk Lua script that sends `headers` with every request and, with
    `pause_ms`, waits a random 0 to 2 × pause_ms ms (whole ms, wrk's timer
    unit) on each connection before its next request."""
    script = tempfile.NamedTemporaryFile("w", prefix="bench-proxy-", suffix=".lua", delete=False)
    for name, value in headers.items():
        script.write(f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}\n")
    if pause_ms:
        script.write(f"function delay() return math.random(0, {2 * pause_ms}) end\n")
    script.close()
    return script.name


def paced_connections(url: str, rate: float, paced_script: str) -> int:
    """How many connections paced by `paced_script` give `url` about
    `rate` requests/s: a guess from the pause, then a 2 s run to correct it."""
    connections = max(1, round(rate * (PAUSE_MS + 0.5) / 1000))
    probe = b.wrk(url, connections, 2, script=paced_script)
    return max(1, round(connections * rate / probe["rps"]))


def start_backends(simulator, lifetime: int) -> dict:
    """redis-server, modgud-sim (no jitter, rate limits off, access tokens
    living `lifetime` s) and the upstream API (nginx, 1 worker: 401 without
    a bearer token, else BODY), each on a free loopback port."""
    ports = {name: b.free_port() for name in ("redis", "sim", "upstream")}
    workdir = tempfile.mkdtemp(prefix="bench-proxy-")
    redis = b.Process(["redis-server", "--port", str(ports["redis"]), "--bind", "127.0.0.1", "--save", "",
                       "--appendonly", "no", "--dir", workdir], log_name="redis")
    sim = b.Process([str(simulator), "--listen", f"127.0.0.1:{ports['sim']}", "--jitter-ms", "0",
                     "--rate-limits", "off", "--log-level", "warning", "--access-token-lifetime", str(lifetime)],
                    log_name="sim")
    upstream, _ = b.start_nginx(f"""
    server {{
        listen 127.0.0.1:{ports['upstream']};
        default_type application/json;
        location / {{
            if ($http_authorization !~ "^Bearer .") {{ return 401 '{{"error":"no_token"}}'; }}
            return 200 '{BODY}';
        }}
    }}""", workers=1)
    return {"ports": ports, "processes": [upstream, sim, redis]}


def start_gateway(binary, backends: dict, prefix: list[str] | None = None,
                  extra_env: dict | None = None) -> tuple[b.Process, int, int]:
    """The gateway with one route, `/api/` -> the upstream, token mode
    `user` (run under `prefix`, a tool such as valgrind, when given);
    returns it and its public and admin ports. BENCH_GATEWAY_ENV, a JSON
    object, adds or overrides settings (e.g. the session cache off), and
    `extra_env` after it."""
    ports = backends["ports"]
    public_port, admin_port = b.free_port(), b.free_port()
    routes = [{"prefix": "/api/", "upstream": f"http://127.0.0.1:{ports['upstream']}/", "token": "user"}]
    gateway = b.Process((prefix or []) + [str(binary)], inherit_env=False, env={
        "BFF_LISTEN": f"127.0.0.1:{public_port}",
        "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin_port}",
        "BFF_PUBLIC_ORIGIN": f"http://localhost:{public_port}",
        "BFF_MODGUD_URL": f"http://127.0.0.1:{ports['sim']}",
        "BFF_CLIENT_ID": "bff",
        "BFF_CLIENT_SECRET": "bff-secret",
        "BFF_REDIS_URL": f"redis://127.0.0.1:{ports['redis']}/0",
        "BFF_ROUTES": json.dumps(routes),
        "BFF_ACCESS_LOG": "false",
        "BFF_LOG_LEVEL": "warning",
        # Every paced connection comes from 127.0.0.1: no per-address cap.
        "BFF_MAX_CONNECTIONS_PER_ADDRESS": "0",
    } | json.loads(os.environ.get("BENCH_GATEWAY_ENV", "{}")) | (extra_env or {}), log_name="gateway")
    return gateway, public_port, admin_port


def alternate(targets: dict, rounds: int, run) -> dict:
    """`run(name, url)` for each target in turn, `rounds` times: each
    target's results, in order."""
    results = {name: [] for name in targets}
    for _ in range(rounds):
        for name, url in targets.items():
            results[name].append(run(name, url))
    return results


def main() -> int:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 36
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    per_round = max(2, round(seconds / rounds))
    single_seconds = max(2, seconds // 4)
    binary = b.build_release()
    simulator = b.build_release("modgud-sim")
    reference_port = b.free_port()

    # The one sign-in comes before all runs; a refresh is due `REFRESH_SKEW_S`
    # before the access token expires. The simulator's default lifetime
    # (900 s) outlasts the runs at the default length; longer runs get a
    # longer lifetime, so no run ever includes a refresh.
    # The timed runs, warm-ups and calibration, start-up and slack.
    planned = 4 * rounds * per_round + 2 * single_seconds + 3 * 2 + 60
    lifetime = max(900, 2 * planned + REFRESH_SKEW_S)

    backends = start_backends(simulator, lifetime)
    upstream_port, sim_port = backends["ports"]["upstream"], backends["ports"]["sim"]
    redis_port = backends["ports"]["redis"]
    gateway, public_port, admin_port = start_gateway(binary, backends)
    # The reference proxy: the request headers mirror the gateway's
    # (cookie and X-CSRF dropped, a bearer token and X-Forwarded-* added).
    reference, _ = b.start_nginx(f"""
    upstream api {{ server 127.0.0.1:{upstream_port}; keepalive 64; }}
    server {{
        listen 127.0.0.1:{reference_port};
        location /api/ {{
            proxy_pass http://api/;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Cookie "";
            proxy_set_header X-CSRF "";
            proxy_set_header Authorization "Bearer reference-token";
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto http;
            proxy_set_header X-Forwarded-Host localhost:{public_port};
        }}
    }}""", workers=2)
    gateway_status = None
    try:
        for port in (redis_port, sim_port, upstream_port, reference_port, public_port, admin_port):
            b.wait_for_port(port)
        time.sleep(0.5)
        if gateway.popen.poll() is not None:
            raise SystemExit(f"the gateway exited at start ({gateway.popen.returncode}); see {gateway.log.name}")

        cookie = sign_in(public_port, sim_port)
        signed_in_at = time.monotonic()
        headers = {"Cookie": f"__Host-bff={cookie}", "X-CSRF": "1"}
        verify("nginx proxy_pass", reference_port, headers, reference.log.name)
        verify("gateway", public_port, headers, gateway.log.name)
        script = wrk_script(headers)
        targets = {"nginx": f"http://127.0.0.1:{reference_port}{PATH}",
                   "gateway": f"http://127.0.0.1:{public_port}{PATH}"}
        start_rss = b.rss_kib(gateway.pid)

        # Full load: a 2 s warm-up, then the timed run, each proxy in turn.
        # CPU per request: the gateway process, or nginx proxy_pass's workers.
        cpu_of = {"gateway": [gateway.pid], "nginx": b.children(reference.pid)}
        for url in targets.values():
            b.wrk(url, FULL_CONNECTIONS, 2, script=script)
        full_rounds = alternate(targets, rounds, lambda name, url: b.wrk(
            url, FULL_CONNECTIONS, per_round, script=script, cpu_of=cpu_of[name]))
        full = {name: b.median_round(results) for name, results in full_rounds.items()}

        # Half load: each connection sends about 1000 / (PAUSE_MS + latency)
        # requests/s; a 2 s run against the gateway corrects the guess of
        # how many connections make half its full-load rate, then both
        # proxies get that many.
        rate = full["gateway"]["rps"] / 2
        paced_script = wrk_script(headers, PAUSE_MS)
        connections = paced_connections(targets["gateway"], rate, paced_script)
        paced_rounds = alternate(targets, rounds, lambda name, url: b.wrk(
            url, connections, per_round, script=paced_script, cpu_of=cpu_of[name]))
        paced = {name: b.median_round(results) for name, results in paced_rounds.items()}

        # One connection, one request at a time: the time a request takes
        # through each proxy with nothing queued.
        single = {name: b.wrk(url, 1, single_seconds, script=script) for name, url in targets.items()}

        elapsed = time.monotonic() - signed_in_at
        end_rss = b.rss_kib(gateway.pid)
    finally:
        gateway_status = gateway.stop()
        reference.stop()
        for process in backends["processes"]:
            process.stop()

    print(f"# API proxy: gateway vs nginx proxy_pass ({rounds} alternating rounds of {per_round}s per proxy "
          "and phase, loopback, 2 cores)")
    print()
    print(f"- Upstream: nginx `return 200`, {len(BODY)}-byte JSON body, 1 worker, 401 without a bearer token.")
    print("- Reference: nginx `proxy_pass`, 2 workers, `keepalive 64` upstream pool, HTTP/1.1, "
          "same header changes as the gateway (cookie and X-CSRF dropped, bearer and X-Forwarded-* set).")
    print("- Gateway: release build, route `/api/` token `user`; each request finds its session (sealed in Redis, "
          "served between idle renewals by the tracked cache of sealed records, opened per request) "
          "and attaches the user's access token; access log off, log level warning.")
    print(f"- Every request: `GET {PATH}`, `Cookie: __Host-bff=<session>`, `X-CSRF: 1`, keep-alive.")
    print(f"- Access token lifetime {lifetime} s, refresh due {REFRESH_SKEW_S} s before expiry; the runs took "
          f"{elapsed:.0f} s after sign-in, so no request included a token refresh.")
    print(f"- Full load: `wrk -t1 -c{FULL_CONNECTIONS}`, after a 2 s warm-up per proxy.")
    print(f"- Both load phases: {rounds} rounds of {per_round} s, the proxies taking turns (nginx, then the gateway); "
          "each figure is the median round, the ratio and the p99 added the median of the rounds' own.")
    print(f"- One connection: `wrk -t1 -c1`, {single_seconds} s per proxy: a request's time with nothing queued.")
    print(f"- Half load: target {rate:.0f} requests/s (half the gateway's full-load rate). `wrk -t1 -c{connections}` "
          f"where each connection pauses a random 0-{2 * PAUSE_MS} ms after every answer (Lua `delay()`); "
          "the connection count comes from a 2 s calibration run against the gateway, and both proxies get the "
          "same count and pauses. This is paced closed-loop, not open-loop (wrk2 is not packaged): a slow answer "
          "delays that connection's next request instead of letting requests queue behind it, so a stall counts "
          "once, not for every request an open-loop client would have sent meanwhile. Latency is timed from each "
          "request's send; the pauses are not counted.")
    print()
    print("| | nginx proxy_pass | gateway | gateway vs nginx | target |")
    print("|---|---|---|---|---|")
    ratios = [g["rps"] / n["rps"] for n, g in zip(full_rounds["nginx"], full_rounds["gateway"])]
    ratio = statistics.median(ratios)
    print(f"| full load ({FULL_CONNECTIONS} conn): requests/s | {full['nginx']['rps']:.0f} | {full['gateway']['rps']:.0f} "
          f"| ratio {ratio:.2f} | ≥ 0.6: {'met' if ratio >= 0.6 else 'MISSED'} |")
    for key in ("p50", "p99"):
        print(f"| full load: {key} ms | {full['nginx'][key]:.2f} | {full['gateway'][key]:.2f} "
              f"| {full['gateway'][key] - full['nginx'][key]:+.2f} | |")
    print(f"| full load: CPU µs per request (the proxy alone) | {b.micros(full['nginx']['cpu_us'])} "
          f"| {b.micros(full['gateway']['cpu_us'])} | | |")
    print(f"| full load: ratio by round | | | {', '.join(f'{r:.2f}' for r in ratios)} | |")
    print(f"| half load: requests/s | {paced['nginx']['rps']:.0f} | {paced['gateway']['rps']:.0f} "
          f"| target {rate:.0f} | |")
    added_p99 = [g["p99"] - n["p99"] for n, g in zip(paced_rounds["nginx"], paced_rounds["gateway"])]
    for key in ("p50", "p99"):
        added = statistics.median(added_p99) if key == "p99" else paced["gateway"][key] - paced["nginx"][key]
        target = f"≤ +1 ms: {'met' if added <= 1.0 else 'MISSED'}" if key == "p99" else ""
        print(f"| half load: {key} ms | {paced['nginx'][key]:.3f} | {paced['gateway'][key]:.3f} | {added:+.3f} | {target} |")
    print(f"| half load: p99 added by round, ms | | | {', '.join(f'{a:+.2f}' for a in added_p99)} | |")
    print(f"| half load: CPU µs per request (the proxy alone) | {b.micros(paced['nginx']['cpu_us'])} "
          f"| {b.micros(paced['gateway']['cpu_us'])} | | |")
    for key in ("p50", "p99"):
        print(f"| one connection: {key} ms | {single['nginx'][key]:.3f} | {single['gateway'][key]:.3f} "
              f"| {single['gateway'][key] - single['nginx'][key]:+.3f} | |")
    for name, result in paced.items():
        if abs(result["rps"] - rate) > 0.1 * rate:
            print(f"WARNING half load, {name}: {result['rps']:.0f} requests/s, more than 10% off the {rate:.0f} targeted")
    clean = True
    single_rounds = {name: [result] for name, result in single.items()}
    for phase, results in (("full load", full_rounds), ("half load", paced_rounds), ("one connection", single_rounds)):
        for name, runs in results.items():
            for result in runs:
                if result["non2xx"] or result["socket_errors"]:
                    clean = False
                    print(f"WARNING {phase}, {name}: non-2xx {result['non2xx']}, errors {result['socket_errors']}")
    print()
    print("| gateway memory | RSS MiB |")
    print("|---|---|")
    print(f"| after sign-in, before the runs | {start_rss / 1024:.1f} |")
    print(f"| after the runs | {end_rss / 1024:.1f} |")
    print()
    print(f"gateway exit status after SIGTERM: {gateway_status}")
    return 0 if gateway_status == 0 and clean else 1


if __name__ == "__main__":
    sys.exit(main())
