"""What a chaos run measured, printed, and whether it failed."""
import collections
import json
import time

import load as loadlib

EXPECTED = {200, 401, 503}  # 401: a lost session (a failure with WAIT); 503: store_unavailable


def check_sessions(front: int, sessions: list) -> dict[str, int]:
    """GET /bff/user for every session after the run: email -> status (a
    503 is retried for up to 10 s, the store may still be settling)."""
    client, result = loadlib.Client(front), {}
    for session in sessions:
        deadline = time.monotonic() + 10
        while True:
            record, _, _ = client.request("check", "GET", "/bff/user", cookie=session.cookie)
            if record.status != 503 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        result[session.email] = record.status
    return result


def counter_delta(before: dict, after: dict, group: str, name: str) -> int:
    return int(after.get(group, {}).get(name, 0)) - int(before.get(group, {}).get(name, 0))


def outage(records, gateway: str, since: float):
    """One gateway's outage after `since` (the kill): (first 503, last 503
    of the outage, the end of its first 200 after that, later 503s). The
    outage is the run of whole seconds from `since` each holding a 503 from
    that gateway; 503s after it are counted apart. Nones when the gateway
    answered no 503."""
    mine = [r for r in records if r.gateway == gateway and r.start >= since]
    unavailable = [r for r in mine if r.status == 503]
    if not unavailable:
        return None, None, None, []
    seconds = {int(r.start - since) for r in unavailable}
    span = 0
    while span in seconds:
        span += 1
    in_outage = [r for r in unavailable if r.start - since < span] or unavailable[:1]
    last = max(r.start for r in in_outage)
    later = [r for r in unavailable if r.start > last]
    served = [r.start + r.duration for r in mine if r.status == 200 and r.start > last]
    return in_outage[0].start, last, min(served) if served else None, later


def timeline(records, started: float, from_s: float, to_s: float) -> None:
    print(f"{'second':>6} {'200':>5} {'503':>5} {'other':>5}")
    buckets = collections.defaultdict(collections.Counter)
    for r in records:
        second = int(r.start - started)
        if from_s <= second <= to_s:
            buckets[second]["200" if r.status == 200 else "503" if r.status == 503 else "other"] += 1
    for second in range(int(from_s), int(to_s) + 1):
        c = buckets[second]
        print(f"{second:>6} {c['200']:>5} {c['503']:>5} {c['other']:>5}")


def phase(records, name: str, start: float, end: float) -> None:
    """Requests/s and latency percentiles of the requests started in [start, end)."""
    mine = [r for r in records if start <= r.start < end]
    if not mine or end <= start:
        print(f"{name:>22}: no requests")
        return
    durations = sorted(r.duration * 1000 for r in mine)
    ok = sum(1 for r in mine if r.status == 200)
    print(f"{name:>22}: {len(mine) / (end - start):7.0f} requests/s, {ok / (end - start):7.0f} 200s/s, "
          f"p50 {durations[len(durations) // 2]:6.1f} ms, p99 {durations[min(len(durations) - 1, int(0.99 * len(durations)))]:7.1f} ms")


def log_evidence(logs: list[str], slow_ms: float) -> list[str]:
    """Counts of the gateways' events (access lines left out), the first
    error lines, and access lines slower than `slow_ms`."""
    events, errors, slow = collections.Counter(), [], []
    for index, path in enumerate(logs):
        for line in open(path, errors="replace"):
            try:
                entry = json.loads(line)
            except ValueError:
                errors.append(f"gateway{index}: {line.strip()[:300]}")
                continue
            level = entry.get("level", "?")
            if entry.get("event") == "http.access":
                if entry.get("durationMs", 0) > slow_ms and len(slow) < 8:
                    slow.append(f"gateway{index}: {line.strip()[:400]}")
                continue
            events[(level, entry.get("event", entry.get("msg", "?")))] += 1
            if level in ("error", "critical", "fatal") and len(errors) < 8:
                errors.append(f"gateway{index}: {line.strip()[:400]}")
    lines = [f"  {level} {event}: {count}" for (level, event), count in sorted(events.items())]
    return lines + [f"  > {e}" for e in errors[:8]] + [f"  slow > {e}" for e in slow]


def summarise(args, records, started, fault, gateway_ports, crashed, sessions, lost, before, after, logs,
              readiness) -> int:
    failures: list[str] = [f"readiness: {problem}" for problem in readiness]
    kinds = sorted({r.kind for r in records})
    statuses = sorted({r.status for r in records})
    print(f"\nrequests: {len(records)} in {args.seconds:.0f} s ({len(records) / args.seconds:.0f}/s)")
    print(f"{'kind':>12} " + " ".join(f"{s:>6}" for s in statuses))
    for kind in kinds:
        counts = collections.Counter(r.status for r in records if r.kind == kind)
        print(f"{kind:>12} " + " ".join(f"{counts[s]:>6}" for s in statuses))
    details = collections.Counter((r.status, r.detail) for r in records if r.status != 200)
    for (status, detail), count in sorted(details.items()):
        print(f"  {status} {detail or '-'}: {count}")

    def fail(what: str, bad: list) -> None:
        if bad:
            example = bad[0]
            failures.append(f"{what}: {len(bad)} (first at {example.start - started:.2f} s: {example.kind} "
                            f"{example.status} {example.detail} via {example.gateway or '-'})")

    fail("500 answers", [r for r in records if r.status == 500])
    fail("no answer (connection error or timeout)", [r for r in records if r.status == 0])
    fail("503 without Retry-After", [r for r in records if r.status == 503 and not r.retry_after])
    fail("other 5xx (502/504: nginx lost the gateway or it timed out)",
         [r for r in records if r.status >= 500 and r.status not in (500, 503)])
    fail("unexpected status", [r for r in records if r.status and r.status not in EXPECTED and r.status < 500])
    if args.wait_replicas > 0:
        fail("401 during the run (a session lost with WAIT)", [r for r in records if r.status == 401])
    if args.reshard:
        fail("failed requests while slots moved", [r for r in records if r.status != 200])
    longest = max(records, key=lambda r: r.duration)
    print(f"longest request: {longest.duration * 1000:.0f} ms ({longest.kind} {longest.status} at "
          f"{longest.start - started:.1f} s); hang limit {args.hang_s:.0f} s")
    hangs = [r for r in records if r.duration > args.hang_s]
    fail(f"requests longer than {args.hang_s:.0f} s (hangs)", hangs)
    for r in sorted(hangs, key=lambda r: -r.duration)[:5]:
        print(f"  hang: {r.kind} started at {r.start - started:.2f} s, {r.duration:.2f} s, answered {r.status} "
              f"{r.detail} via {r.gateway or '-'}")

    if args.reshard:
        for start, seconds, status in fault.reshards:
            print(f"reshard of {args.reshard_slots} slots at {start - started:.1f} s: {seconds:.1f} s, exit {status}")
        if not fault.reshards:
            failures.append("no reshard ran")
        elif any(status for _, _, status in fault.reshards):
            failures.append(f"redis-cli --cluster reshard failed: {fault.reshard_output}")
        timeline(records, started, fault.at - started - 1, fault.until - started + 2)
        phase(records, "before the moves", started, fault.at)
        phase(records, "while slots moved", fault.at, fault.reshards[-1][0] + fault.reshards[-1][1] if fault.reshards else fault.until)
    elif fault.killed_at is None:
        failures.append(f"the master was not killed: {fault.error}")
    else:
        kill_s = fault.killed_at - started
        if fault.failover_s is None:
            failures.append(f"no failover seen after the kill at {kill_s:.1f} s: {fault.error}")
            failover = args.seconds
        else:
            failover = fault.failover_s
            print(f"master 127.0.0.1:{fault.killed_port} killed at {kill_s:.2f} s; failover (kill to "
                  f"127.0.0.1:{fault.new_master} answering ROLE master): {failover:.2f} s")
        outage_end = fault.killed_at + failover
        for gateway, index in sorted(gateway_ports.items(), key=lambda item: item[1]):
            first, last, served, later = outage(records, gateway, fault.killed_at)
            outage_end = max(outage_end, last or 0)
            if first is None:
                print(f"gateway{index} ({gateway}): no 503 seen")
                continue
            again = "never" if served is None else f"{served - fault.killed_at:.2f} s after the kill"
            window = "open" if served is None else f"{served - first:.2f} s"
            print(f"gateway{index} ({gateway}): first 503 {first - fault.killed_at:+.2f} s, last 503 of the outage "
                  f"{last - fault.killed_at:+.2f} s, outage window {window}, served again {again}")
            if later:
                print(f"  then {len(later)} more 503s, from {later[0].start - fault.killed_at:+.2f} s to "
                      f"{later[-1].start - fault.killed_at:+.2f} s: "
                      + ", ".join(f"{d or '-'} {n}" for d, n in collections.Counter(r.detail for r in later).items()))
            if served is None or served - fault.killed_at > failover + 2:
                failures.append(f"gateway{index} did not serve again within failover + 2 s ({again})")
        timeline(records, started, kill_s - 2, min(args.seconds, outage_end - started + 3))
        end = max(r.start for r in records)
        phase(records, "before the kill", started, fault.killed_at)
        phase(records, "kill to failover + 2 s", fault.killed_at, fault.killed_at + failover + 2)
        if fault.restarted_at is None:
            phase(records, "after that", fault.killed_at + failover + 2, end)
        else:
            back = fault.replica_back_at or end
            print(f"killed node restarted at {fault.restarted_at - started:.2f} s, in sync as a replica at "
                  + (f"{back - started:.2f} s" if fault.replica_back_at else "never"))
            phase(records, "then, without a replica", fault.killed_at + failover + 2, back)
            phase(records, "with the replica back", back, end)

    for index, code in sorted(crashed.items()):
        failures.append(f"gateway{index} exited during the run (status {code}); log {logs[index]}")

    lost_sessions = {email: status for email, status in lost.items() if status != 200}
    during = sum(1 for s in sessions if s.during_run)
    print(f"sessions checked after the run: {len(lost)} ({during} signed in during the run); not 200: "
          f"{len(lost_sessions)} " + (str(collections.Counter(lost_sessions.values())) if lost_sessions else ""))
    if lost_sessions:
        if args.wait_replicas > 0 or args.reshard:
            failures.append(f"sessions lost: {len(lost_sessions)} of {len(lost)}")
        else:
            print(f"(reported, not a failure: BFF_REDIS_WAIT_REPLICAS=0 may lose writes in a failover)")

    redemptions = counter_delta(before, after, "refresh", "redemptions")
    replays = counter_delta(before, after, "refresh", "replaysRejected")
    leeway = counter_delta(before, after, "refresh", "leewayReplays")
    revoked = counter_delta(before, after, "refresh", "familyRevocations")
    print(f"refresh redemptions: {redemptions}; double redemptions (replays rejected {replays} + within leeway "
          f"{leeway}): {replays + leeway} (target 0); families revoked: {revoked}")
    if replays + leeway:
        if args.wait_replicas > 0 or args.reshard:
            failures.append(f"double refresh redemptions: {replays + leeway}")
        else:
            print("(reported, not a failure: with BFF_REDIS_WAIT_REPLICAS=0 a lost rotation is replayed)")
    if redemptions == 0:
        failures.append("no refresh happened during the run (the load did not exercise refreshes)")

    print("gateway log events:")
    for line in log_evidence(logs, args.hang_s * 1000):
        print(line)
    if failures:
        print("FAILED:")
        for failure in failures:
            print(f"  - {failure}")
        return 1
    print("PASSED")
    return 0
