"""The gateway's own overhead per sign-in (e-mail code redemption).

Starts redis-server, modgud-sim (release, no jitter, rate limits off) and
the gateway (release), then signs N fresh users in one after another. For
each sign-in the gateway's access line gives the total time of
`POST /bff/otp/redeem`, and the simulator's request log gives the time it
spent in `/connect/token` and `/connect/userinfo`; the difference is the
gateway's own work (request checks, two libcurl calls' client side, the
sealed session write to Redis, the response). Prints p50/p90/p99.

Usage: Tests/Benchmarks/signin.sh [sign-ins=300]
"""
import json
import subprocess
import sys
import tempfile
import time

import benchlib as b


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    release = b.build_release().parent
    b.build_release("modgud-sim")
    redis_port, sim_port, public_port, admin_port = (b.free_port() for _ in range(4))
    workdir = tempfile.mkdtemp(prefix="bench-signin-")
    redis = b.Process(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                       "--appendonly", "no", "--dir", workdir], log_name="redis")
    sim = b.Process([str(release / "modgud-sim"), "--listen", f"127.0.0.1:{sim_port}", "--jitter-ms", "0",
                     "--rate-limits", "off", "--log-level", "warning"], log_name="sim")
    gateway_log = tempfile.NamedTemporaryFile(prefix="bench-gateway-", suffix=".log", delete=False)
    gateway = subprocess.Popen([str(release / "modgud-bff")], stdout=gateway_log, stderr=subprocess.STDOUT, env={
        "PATH": "/usr/bin:/bin", "BFF_LISTEN": f"127.0.0.1:{public_port}", "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin_port}",
        "BFF_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0", "BFF_MODGUD_URL": f"http://127.0.0.1:{sim_port}",
        "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "bff-secret"})
    try:
        for port in (redis_port, sim_port, public_port):
            b.wait_for_port(port)
        time.sleep(0.5)
        since = json.loads(b.call(sim_port, "GET", "/dev/requests?limit=1")[2])["total"]
        for i in range(count):
            email = f"bench{i}@example.com"
            assert b.call(public_port, "POST", "/bff/otp/request", {"email": email})[0] == 200
            mail = json.loads(b.call(sim_port, "GET", f"/dev/mailbox?email={email}")[2])
            status, _, _ = b.call(public_port, "POST", "/bff/otp/redeem", {"email": email, "code": mail[0]["code"]})
            assert status == 200, status
        records = []
        for path in ("/connect/token", "/connect/userinfo"):
            cursor = since
            while True:
                page = json.loads(b.call(sim_port, "GET", f"/dev/requests?since={cursor}&limit=1000&path={path}")[2])["requests"]
                records += page
                if len(page) < 1000:
                    break
                cursor = page[-1]["seq"]
    finally:
        gateway.terminate()
        gateway.wait(timeout=15)
        sim.stop()
        redis.stop()

    upstream = [r for r in records if r["path"] in ("/connect/token", "/connect/userinfo")]
    token = [r["durationMs"] for r in upstream if r["path"] == "/connect/token"]
    userinfo = [r["durationMs"] for r in upstream if r["path"] == "/connect/userinfo"]
    lines = [json.loads(l) for l in open(gateway_log.name) if '"http.access"' in l]
    redeem = [l["durationMs"] for l in lines if l.get("route") == "/bff/otp/redeem"]
    assert len(redeem) == len(token) == len(userinfo) == count, (len(redeem), len(token), len(userinfo))
    overhead = [total - t - u for total, t, u in zip(redeem, token, userinfo)]
    print(f"# Sign-in overhead: {count} e-mail-code sign-ins, one at a time (release builds, loopback, 2 cores)")
    print()
    print("| | p50 ms | p90 ms | p99 ms |")
    print("|---|---|---|---|")
    for name, values in (("POST /bff/otp/redeem, total in the gateway", redeem),
                         ("time inside Modgud (token + userinfo)", [t + u for t, u in zip(token, userinfo)]),
                         ("**gateway's own overhead**", overhead)):
        print(f"| {name} | {percentile(values, .5):.3f} | {percentile(values, .9):.3f} | {percentile(values, .99):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
