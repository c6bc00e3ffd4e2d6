"""The cost of the sign-ins that cross over (Docs/handoff.md), against a
session read in the same run.

Starts redis-server, modgud-sim and the gateway (release builds; the
hand-off's own rate limits off, cross-device on), then:

1. The native app hand-off, N times one after another: the app's `start`,
   an e-mail-code sign-in in "the system browser", `code`, and the web
   view's `session`, then `GET /bff/user` in the new session. None of the
   hand-off's steps calls Modgud, so the gateway's access lines give each
   step's whole cost; `GET /bff/user` (one session read) is the reference.
2. The pacing of cross-device polls: one pending request (the simulator's
   interval, 5 s), polled by wrk on 8 connections for S seconds with the
   starting browser's cookie; the simulator's request log counts the
   device-code calls the gateway made meanwhile (at most one per interval),
   and the same wrk load on `GET /bff/user` is the reference.

Usage: Tests/Benchmarks/crossplace.sh [hand-offs=200] [poll seconds=10]
"""
import base64
import hashlib
import json
import os
import sys
import tempfile

import benchlib as b

CALLBACK = "benchapp://auth/callback"


def cookie(headers, name: str) -> str:
    for value in headers.get_all("Set-Cookie") or []:
        pair = value.split(";", 1)[0]
        if pair.startswith(name + "=") and pair != name + "=":
            return pair
    raise AssertionError(f"no {name} cookie")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hand_off(stack, i: int) -> None:
    port = stack.public_port
    verifier = b64url(os.urandom(32))
    challenge = b64url(hashlib.sha256(verifier.encode()).digest())
    status, _, body = b.call(port, "POST", "/bff/app-login/start", {"codeChallenge": challenge, "codeChallengeMethod": "S256"})
    assert status == 201, status
    request_id = json.loads(body)["requestId"]
    email = f"handoff{i}@example.com"
    assert b.call(port, "POST", "/bff/otp/request", {"email": email})[0] == 200
    code = json.loads(b.call(stack.sim_port, "GET", f"/dev/mailbox?email={email}")[2])[0]["code"]
    status, headers, _ = b.call(port, "POST", "/bff/otp/redeem", {"email": email, "code": code})
    assert status == 200, status
    browser = cookie(headers, "__Host-bff")
    status, _, body = b.call(port, "POST", "/bff/app-login/code", {"requestId": request_id, "state": "s"},
                             headers={"Cookie": browser})
    assert status == 200, (status, body)
    handoff = json.loads(body)["redirect"].split("code=", 1)[1].split("&", 1)[0]
    status, headers, _ = b.call(port, "POST", "/bff/app-login/session", {"code": handoff, "codeVerifier": verifier})
    assert status == 200, status
    assert b.call(port, "GET", "/bff/user", headers={"Cookie": cookie(headers, "__Host-bff")})[0] == 200


def wrk_script(method: str, body: str | None, cookie_pair: str) -> str:
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    lines = [f'wrk.method = "{method}"', 'wrk.headers["X-CSRF"] = "1"', f'wrk.headers["Cookie"] = "{cookie_pair}"']
    if body is not None:
        lines += ['wrk.headers["Content-Type"] = "application/json"', f"wrk.body = '{body}'"]
    script.write("\n".join(lines) + "\n")
    script.close()
    return script.name


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    stack = b.SignInStack("crossplace", gateway_env={
        "BFF_APP_CALLBACK_URI": CALLBACK, "BFF_APP_LOGIN_START_RATE": "off", "BFF_APP_LOGIN_SESSION_RATE": "off",
        "BFF_CROSS_DEVICE": "true"})
    try:
        stack.wait_ready()
        for i in range(count):
            hand_off(stack, i)
        steps = {route: stack.access_durations(route)
                 for route in ("/bff/app-login/start", "/bff/app-login/code", "/bff/app-login/session", "/bff/user")}

        status, headers, body = b.call(stack.public_port, "POST", "/bff/cross-device/start")
        assert status == 201, status
        started = json.loads(body)
        xd = cookie(headers, "__Host-bff-xd")
        mark = json.loads(b.call(stack.sim_port, "GET", "/dev/requests?limit=1")[2])["total"]
        poll = b.wrk(f"http://127.0.0.1:{stack.public_port}/bff/cross-device/poll", 8, seconds,
                     script=wrk_script("POST", json.dumps({"requestId": started["requestId"]}), xd))
        asked = [r for r in stack.simulator_records(mark, ("/connect/token",))
                 if r.get("grantType") == "urn:ietf:params:oauth:grant-type:device_code"]
        email = "reference@example.com"
        assert b.call(stack.public_port, "POST", "/bff/otp/request", {"email": email})[0] == 200
        code = json.loads(b.call(stack.sim_port, "GET", f"/dev/mailbox?email={email}")[2])[0]["code"]
        status, headers, _ = b.call(stack.public_port, "POST", "/bff/otp/redeem", {"email": email, "code": code})
        reference = b.wrk(f"http://127.0.0.1:{stack.public_port}/bff/user", 8, seconds,
                          script=wrk_script("GET", None, cookie(headers, "__Host-bff")))
    finally:
        stack.stop()

    print(f"# Hand-off steps: {count} hand-offs one after another (release builds, loopback, 2 cores)")
    print()
    print("| step (the gateway's whole cost: no Modgud call) | p50 ms | p90 ms | p99 ms |")
    print("|---|---|---|---|")
    for route, values in steps.items():
        name = route + (" (reference: one session read)" if route == "/bff/user" else "")
        print(f"| {name} | {b.percentile(values, .5):.3f} | {b.percentile(values, .9):.3f} | {b.percentile(values, .99):.3f} |")
    print()
    interval = started["interval"]
    print(f"# Cross-device polls: one pending request, wrk on 8 connections for {seconds} s (interval {interval} s)")
    print()
    print("| load | requests/s | p50 ms | p99 ms | non-2xx |")
    print("|---|---|---|---|---|")
    print(f"| POST /bff/cross-device/poll | {poll['rps']:.0f} | {poll['p50']:.3f} | {poll['p99']:.3f} | {poll['non2xx']} |")
    print(f"| GET /bff/user (reference) | {reference['rps']:.0f} | {reference['p50']:.3f} | {reference['p99']:.3f} | {reference['non2xx']} |")
    print()
    allowed = seconds // interval + 1
    print(f"RESULT: {poll['requests']} polls asked Modgud {len(asked)} times (at most {allowed} allowed in {seconds} s)")
    return 0 if len(asked) <= allowed else 1


if __name__ == "__main__":
    sys.exit(main())
