"""Redis faults under load, measured: a Sentinel failover, a Redis Cluster
failover, or a slot migration, behind three gateways and nginx on loopback.

Starts the topology (topology.py), modgud-sim (short access tokens, so
refreshes happen throughout), three modgud-bff processes (BFF_REDIS_MODE
for the topology, BFF_REDIS_WAIT_REPLICAS from --wait-replicas) with a route
`/api/` (token `user`) to an nginx upstream, and nginx in front of the three
(`proxy_next_upstream off`, so a gateway's 503 is seen). Signs users in
through nginx (on a cluster, until every master holds sessions), then runs
the load (load.py) for --seconds; at --kill-at of the run it SIGKILLs the
master (sentinel: the one the sentinels name; cluster: one of three), or
with --reshard moves slots between two masters with `redis-cli --cluster
reshard`, back and forth, through the middle third of the run.

Prints and checks (report.py): status counts, failures, the longest request,
each gateway's outage window, the failover time (kill to the new master
answering ROLE master), whether each gateway served again within failover
+ 2 s, sessions lost after the run, refresh redemptions and double
redemptions at the simulator. Exit status 1 on any hard failure.

--refresh-race N instead runs the refresh race of Tests/Benchmarks/
refresh_race.py N times on the topology (3 gateways x 50 requests).

Usage: Tests/Chaos/chaos.sh [--topology sentinel|cluster] [--bounded] [--reshard]
       [--seconds S] [--users K] [--threads T] [--wait-replicas N]
       [--kill-at F] [--restart-killed S] [--reshard-slots N] [--hang-s S] [--refresh-race N]
       [--debug] [--no-build]
"""
import argparse
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Benchmarks"))

import benchlib as b  # noqa: E402
import refresh_race  # noqa: E402
import load as loadlib  # noqa: E402
import report  # noqa: E402
import topology as topo  # noqa: E402

UPSTREAM_BODY = '{"ok":true}'


def arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topology", choices=["sentinel", "cluster"], required=True)
    parser.add_argument("--bounded", action="store_true", help="short: 20 s, 12 users (the test suite's form)")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--users", type=int)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--wait-replicas", type=int, default=1)
    parser.add_argument("--kill-at", type=float, default=1 / 3, help="fraction of the run")
    parser.add_argument("--reshard", action="store_true", help="cluster: move slots instead of killing a master")
    parser.add_argument("--reshard-slots", type=int, default=1000)
    parser.add_argument("--restart-killed", type=float, metavar="S",
                        help="start the killed node again S seconds after the failover (it rejoins as a replica)")
    parser.add_argument("--access-token-lifetime", type=int, default=3)
    parser.add_argument("--signin-interval", type=float, default=0.5)
    parser.add_argument("--hang-s", type=float, default=5.0, help="a request longer than this is a hang")
    parser.add_argument("--refresh-race", type=int, metavar="N", help="run the refresh race N times instead")
    parser.add_argument("--debug", action="store_true")
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args(argv)
    if args.reshard and args.topology != "cluster":
        parser.error("--reshard needs --topology cluster")
    args.seconds = args.seconds or (20.0 if args.bounded else 60.0)
    args.users = args.users or (12 if args.bounded else 30)
    return args


def start_upstream(workdir: Path) -> tuple[b.Process, int]:
    """The API behind the route: nginx, 401 without a bearer token."""
    upstream_port = b.free_port()
    upstream, _ = b.start_nginx(f"""
    server {{
        listen 127.0.0.1:{upstream_port};
        default_type application/json;
        location / {{
            if ($http_authorization !~ "^Bearer .") {{ return 401 '{{"error":"no_token"}}'; }}
            return 200 '{UPSTREAM_BODY}';
        }}
    }}""", workers=1, parent=workdir)
    b.wait_for_port(upstream_port)
    return upstream, upstream_port


def start_front(workdir: Path, gateways: list[int]) -> tuple[b.Process, int]:
    """nginx in front of the gateways, round robin, a gateway's error passed
    on as it is (no next upstream, never marked down); `X-Chaos-Upstream`
    names the gateway that answered."""
    front_port = b.free_port()
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=0;" for port in gateways)
    front, _ = b.start_nginx(f"""
    upstream gateways {{
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{front_port};
        location / {{
            proxy_pass http://gateways;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_next_upstream off;
            proxy_read_timeout 60s;
            add_header X-Chaos-Upstream $upstream_addr always;
        }}
    }}""", workers=2, parent=workdir)
    b.wait_for_port(front_port)
    return front, front_port


def sign_in_all(front: int, sim_port: int, stamp: str, count: int) -> list[loadlib.Session]:
    client, sessions = loadlib.Client(front), []
    for number in range(count):
        email = f"chaos-{stamp}-{number}@example.com"
        record, _, _ = client.request("otp-request", "POST", "/bff/otp/request", body={"email": email})
        if record.status != 200:
            raise RuntimeError(f"sign-in of {email}: otp/request answered {record.status} {record.detail}")
        code = refresh_race.json.loads(refresh_race.call(sim_port, "GET", f"/dev/mailbox?email={email}")[1])[0]["code"]
        record, response, _ = client.request("otp-redeem", "POST", "/bff/otp/redeem", body={"email": email, "code": code})
        cookie = loadlib.session_cookie(response) if response is not None else None
        if record.status != 200 or not cookie:
            raise RuntimeError(f"sign-in of {email}: otp/redeem answered {record.status} {record.detail}")
        sessions.append(loadlib.Session(email, cookie, False))
    return sessions


def first_sign_ins(gateways: list[tuple[int, int]], sim_port: int, stamp: str) -> list[str]:
    """One sign-in straight to each gateway as soon as its /readyz answers
    200: a 503 then is a readiness failure (ready, yet the store is not),
    reported; the sign-in is retried for up to 10 s so the run can go on."""
    problems = []
    for index, (public, _) in enumerate(gateways):
        client, deadline, failed = loadlib.Client(public), time.monotonic() + 10, []
        while True:
            email = f"chaos-{stamp}-ready-{index}-{len(failed)}@example.com"
            record, _, _ = client.request("otp-request", "POST", "/bff/otp/request", body={"email": email})
            if record.status == 200:
                mail = refresh_race.call(sim_port, "GET", f"/dev/mailbox?email={email}")[1]
                code = refresh_race.json.loads(mail)[0]["code"]
                record, _, _ = client.request("otp-redeem", "POST", "/bff/otp/redeem", body={"email": email, "code": code})
            if record.status == 200 or time.monotonic() > deadline:
                break
            failed.append(f"{record.kind} {record.status} {record.detail}")
            time.sleep(0.1)
        if failed:
            outcome = "then a 200" if record.status == 200 else "no 200 within 10 s"
            problems.append(f"gateway{index}: /readyz answered 200, yet its first sign-in got {failed[0]} "
                            f"({len(failed)} failed attempts, {outcome})")
    for problem in problems:
        print(f"readiness: {problem}", flush=True)
    return problems


class Fault(threading.Thread):
    """At `at` (monotonic), kills the master and times the failover, or
    moves slots back and forth until `until`."""

    def __init__(self, topology, args, at: float, until: float):
        super().__init__(daemon=True)
        self.topology, self.args, self.at, self.until = topology, args, at, until
        self.killed_port = self.killed_at = self.failover_s = self.new_master = None
        self.reshards: list[tuple[float, float, int]] = []  # (start, seconds, exit status)
        self.reshard_output = ""
        self.restarted_at = self.replica_back_at = None
        self.error: str | None = None

    def run(self):
        try:
            time.sleep(max(0.0, self.at - time.monotonic()))
            if self.args.reshard:
                forward = True
                while time.monotonic() < self.until:
                    started = time.monotonic()
                    result = self.topology.reshard(self.args.reshard_slots, forward)
                    self.reshards.append((started, time.monotonic() - started, result.returncode))
                    if result.returncode != 0:
                        self.reshard_output = (result.stdout + result.stderr)[-2000:]
                        break
                    forward = not forward
                return
            self.killed_port, self.killed_at = self.topology.kill_master()
            self.new_master = topo.wait_until("the failover", lambda: self.topology.failed_over(self.killed_port),
                                              timeout=60, interval=0.02)
            self.failover_s = time.monotonic() - self.killed_at
            if self.args.restart_killed is not None:
                time.sleep(self.args.restart_killed)
                self.topology.restart(self.killed_port)
                self.restarted_at = time.monotonic()
                topo.wait_until("the restarted node in sync as a replica",
                                lambda: topo.try_command(self.new_master, "WAIT", 1, 100) == 1, timeout=60, interval=0.1)
                self.replica_back_at = time.monotonic()
        except Exception as error:  # noqa: BLE001 (reported as a failure)
            self.error = f"{type(error).__name__}: {error}"


def chaos(args, bff, sim) -> int:
    workdir = Path(tempfile.mkdtemp(prefix=f"chaos-{args.topology}-"))
    print(f"== chaos: {args.topology}{' reshard' if args.reshard else ' master killed'}, {args.seconds:.0f} s, "
          f"{args.users} users, {args.threads} threads, BFF_REDIS_WAIT_REPLICAS={args.wait_replicas} "
          f"(logs in {workdir})", flush=True)
    processes: list[b.Process] = []
    topology = None
    try:
        topology = topo.start(args.topology, workdir)
        sim_port = refresh_race.start_simulator(sim, processes, log_dir=workdir)
        refresh_race.sim_config(sim_port, {"accessTokenLifetimeSeconds": args.access_token_lifetime})
        upstream, upstream_port = start_upstream(workdir)
        processes.append(upstream)
        redis_env = {**topology.gateway_env(), "BFF_REDIS_WAIT_REPLICAS": str(args.wait_replicas)}
        gateway_processes: list[b.Process] = []
        gateways = refresh_race.start_gateways(bff, sim_port, upstream_port, redis_env, gateway_processes,
                                               log_dir=workdir, extra_env={"BFF_MAX_CONNECTIONS_PER_ADDRESS": "0",
                                                                      "BFF_ACCESS_LOG": "true", "BFF_LOG_LEVEL": "info"})
        processes += gateway_processes
        front, front_port = start_front(workdir, [public for public, _ in gateways])
        processes.append(front)

        stamp = f"{int(time.time())}-{args.topology}"
        readiness = first_sign_ins(gateways, sim_port, stamp)
        sessions = sign_in_all(front_port, sim_port, stamp, args.users)
        spread = topology.session_keys()
        while args.topology == "cluster" and min(spread.values()) == 0 and len(sessions) < 3 * args.users:
            sessions += sign_in_all(front_port, sim_port, f"{stamp}-more{len(sessions)}", 3)
            spread = topology.session_keys()
        print(f"signed in {len(sessions)} users; session records per master: "
              + ", ".join(f"{port}: {n}" for port, n in spread.items()), flush=True)
        stats_before = refresh_race.stats(sim_port)

        run = loadlib.Load(front_port, sim_port, sessions, args.threads, args.signin_interval, stamp)
        started = time.monotonic()
        fault = Fault(topology, args, started + args.kill_at * args.seconds,
                      started + (2 / 3) * args.seconds)
        run.start()
        fault.start()
        crashed: dict[int, int] = {}
        while time.monotonic() < started + args.seconds:
            time.sleep(0.2)
            for index, process in enumerate(gateway_processes):
                if index not in crashed and process.popen.poll() is not None:
                    crashed[index] = process.popen.returncode
        records = run.stop()
        fault.join(90)
        for index, process in enumerate(gateway_processes):
            if index not in crashed and process.popen.poll() is not None:
                crashed[index] = process.popen.returncode

        if args.reshard:
            print("session records per master after the moves: "
                  + ", ".join(f"{port}: {n}" for port, n in topology.session_keys().items()), flush=True)
        lost = report.check_sessions(front_port, sessions)
        stats_after = refresh_race.stats(sim_port)
        gateway_ports = {f"127.0.0.1:{public}": index for index, (public, _) in enumerate(gateways)}
        return report.summarise(args, records, started, fault, gateway_ports, crashed, sessions, lost,
                                stats_before, stats_after, [p.log.name for p in gateway_processes], readiness)
    finally:
        for process in reversed(processes):
            process.stop()
        if topology is not None:
            topology.stop()


def race(args, bff, sim) -> int:
    workdir = Path(tempfile.mkdtemp(prefix=f"chaos-race-{args.topology}-"))
    print(f"== refresh race on {args.topology}, BFF_REDIS_WAIT_REPLICAS={args.wait_replicas} (logs in {workdir})",
          flush=True)
    processes: list[b.Process] = []
    topology = None
    upstream = refresh_race.Upstream()
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    try:
        topology = topo.start(args.topology, workdir)
        sim_port = refresh_race.start_simulator(sim, processes, log_dir=workdir)
        redis_env = {**topology.gateway_env(), "BFF_REDIS_WAIT_REPLICAS": str(args.wait_replicas)}
        gateways = refresh_race.start_gateways(bff, sim_port, upstream.server_address[1], redis_env, processes,
                                               log_dir=workdir)
        readiness = first_sign_ins(gateways, sim_port, f"{int(time.time())}-{args.topology}-race")
        status = refresh_race.run_races([public for public, _ in gateways], sim_port, upstream, args.refresh_race)
        return 1 if readiness else status
    finally:
        for process in reversed(processes):
            process.stop()
        if topology is not None:
            topology.stop()
        upstream.shutdown()


def interrupted(signum, _frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main() -> int:
    args = arguments(sys.argv[1:])
    # SIGINT (also when inherited as ignored, in a background job) and
    # SIGTERM end the run: the finally blocks stop every process.
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    build_args = (["--debug"] if args.debug else []) + (["--no-build"] if args.no_build else [])
    bff, sim = refresh_race.binaries(build_args)
    if args.refresh_race:
        return race(args, bff, sim)
    return chaos(args, bff, sim)


if __name__ == "__main__":
    sys.exit(main())
