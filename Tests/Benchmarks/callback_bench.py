"""The code-flow callback's own cost (`GET /bff/callback`).

Starts redis-server, modgud-sim (release, no jitter, rate limits off) and
the gateway (release), then signs a user in through Modgud's pages N times
one after another, each as a fresh browser: `GET /bff/login`, the
simulator's sign-in page (e-mail and password), `GET /bff/callback`. The gateway's access
line gives the callback's total time; the simulator's request log gives
the time it spent in `/connect/token` and `/connect/userinfo`. The
difference is the gateway's own work: taking the flow record from Redis,
the client side of two calls, the id_token verification (RS256 against the
held JWKS, the claim checks), the sealed session write, the redirect. The
first 20 sign-ins (JWKS fetch, warm-up) are left out. Prints p50/p90/p99.

Usage: Tests/Benchmarks/callback.sh [callbacks=300]
"""
import html
import http.client
import re
import sys
import urllib.parse

import benchlib as b

WARMUP = 20
ORIGIN = "http://localhost:8080"


def request(port: int, method: str, target: str, cookie: str | None = None, form: list | None = None):
    """One request to 127.0.0.1:`port`, no redirect followed: (status, headers, body text)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Cookie": cookie} if cookie else {}
    body = None
    if form is not None:
        body = urllib.parse.urlencode(form)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request(method, target, body=body, headers=headers)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, response.headers, text


def get(port: int, target: str, cookie: str | None = None):
    status, headers, _ = request(port, "GET", target, cookie)
    return status, headers


HIDDEN = re.compile(r'<input type="hidden" name="([^"]*)" value="([^"]*)">')


def authorize_to_callback(sim_port: int, location: str, email: str, password: str = "simulator") -> str:
    """Modgud's sign-in from the authorize URL to the redirect back, as a
    person at the simulator's sign-in page: its form posted back with the
    page's hidden fields, the e-mail address and the seeded password.
    Returns the callback's path and query."""
    target = location.split(f"127.0.0.1:{sim_port}", 1)[1]
    status, headers, page = request(sim_port, "GET", target)
    if status == 200:
        fields = [(html.unescape(n), html.unescape(v)) for n, v in HIDDEN.findall(page)]
        status, headers, _ = request(sim_port, "POST", "/connect/authorize",
                                     form=fields + [("email", email), ("password", password)])
    assert status == 302, status
    back = headers["Location"]
    assert back.startswith(ORIGIN + "/bff/callback?"), back
    return back[len(ORIGIN):]


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    stack = b.SignInStack("callback", {"BFF_PUBLIC_ORIGIN": ORIGIN})
    try:
        since = stack.wait_ready()
        for _ in range(WARMUP + count):
            status, headers = get(stack.public_port, "/bff/login?loginHint=ada%40example.com&returnUrl=%2Fapp")
            assert status == 302, status
            flow = headers["Set-Cookie"].split(";", 1)[0]
            back = authorize_to_callback(stack.sim_port, headers["Location"], "ada@example.com")
            status, headers = get(stack.public_port, back, cookie=flow)
            assert status == 302 and headers["Location"] == "/app", (status, headers["Location"])
        records = stack.simulator_records(since, ("/connect/token", "/connect/userinfo"))
    finally:
        stack.stop()

    token = [r["durationMs"] for r in records if r["path"] == "/connect/token"][WARMUP:]
    userinfo = [r["durationMs"] for r in records if r["path"] == "/connect/userinfo"][WARMUP:]
    callback = stack.access_durations("/bff/callback")[WARMUP:]
    assert len(callback) == len(token) == len(userinfo) == count, (len(callback), len(token), len(userinfo))
    own = [total - t - u for total, t, u in zip(callback, token, userinfo)]
    print(f"# Code-flow callback: {count} sign-ins through /bff/login, one at a time (release builds, loopback, 2 cores)")
    print()
    print("| | p50 ms | p90 ms | p99 ms |")
    print("|---|---|---|---|")
    for name, values in (("GET /bff/callback, total in the gateway", callback),
                         ("time inside Modgud (token + userinfo)", [t + u for t, u in zip(token, userinfo)]),
                         ("**the callback's own cost**", own)):
        print(f"| {name} | {b.percentile(values, .5):.3f} | {b.percentile(values, .9):.3f} | {b.percentile(values, .99):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
