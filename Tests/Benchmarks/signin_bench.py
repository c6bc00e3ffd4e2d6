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
import sys

import benchlib as b


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    stack = b.SignInStack("signin")
    try:
        since = stack.wait_ready()
        for i in range(count):
            email = f"bench{i}@example.com"
            assert b.call(stack.public_port, "POST", "/bff/otp/request", {"email": email})[0] == 200
            mail = json.loads(b.call(stack.sim_port, "GET", f"/dev/mailbox?email={email}")[2])
            status, _, _ = b.call(stack.public_port, "POST", "/bff/otp/redeem", {"email": email, "code": mail[0]["code"]})
            assert status == 200, status
        records = stack.simulator_records(since, ("/connect/token", "/connect/userinfo"))
    finally:
        stack.stop()

    upstream = [r for r in records if r["path"] in ("/connect/token", "/connect/userinfo")]
    token = [r["durationMs"] for r in upstream if r["path"] == "/connect/token"]
    userinfo = [r["durationMs"] for r in upstream if r["path"] == "/connect/userinfo"]
    redeem = stack.access_durations("/bff/otp/redeem")
    assert len(redeem) == len(token) == len(userinfo) == count, (len(redeem), len(token), len(userinfo))
    overhead = [total - t - u for total, t, u in zip(redeem, token, userinfo)]
    print(f"# Sign-in overhead: {count} e-mail-code sign-ins, one at a time (release builds, loopback, 2 cores)")
    print()
    print("| | p50 ms | p90 ms | p99 ms |")
    print("|---|---|---|---|")
    for name, values in (("POST /bff/otp/redeem, total in the gateway", redeem),
                         ("time inside Modgud (token + userinfo)", [t + u for t, u in zip(token, userinfo)]),
                         ("**gateway's own overhead**", overhead)):
        print(f"| {name} | {b.percentile(values, .5):.3f} | {b.percentile(values, .9):.3f} | {b.percentile(values, .99):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
