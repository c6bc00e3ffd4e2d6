"""Two builds of the gateway side by side: which one costs less CPU per request.

On this shared 2-core machine, nginx's own figure moves by 15-35 % between
runs, so a change worth a few percent does not show in two separate
benchmark runs. Here both builds run at once, on the same machine state,
and take turns under the same load (wrk -t1 -c64, ROUNDS rounds of SECONDS
each, after a warm-up): the medians of their requests/s and of their CPU
per request (user + system time of the process, /proc/PID/stat) compare
like with like.

  core   GET /healthz on the admin listener (as core_bench.py);
  proxy  an authenticated GET /api/items through a route to nginx on
         loopback, each build with its own signed-in session, sharing
         one Redis, simulator and upstream (as proxy_bench.py).
  half   the proxy setup at proxy_bench.py's half load: each connection
         pauses a random 0-20 ms after every answer, with as many
         connections as give half the base build's full-load rate; adds
         each build's median p50 and p99 and the median over the rounds of
         the new build's p99 minus the base's, for changes meant to move
         the latency under a moderate load rather than the CPU.

  instructions
         each build under valgrind's callgrind, one connection at a time
         (wrk -t1 -c1, after a warm-up), on /healthz and on the proxied
         GET: the user-space instructions per request, counted, not timed,
         so that the figure does not move with the machine's load (it
         leaves out the kernel's share, and what a cache miss or an atomic
         costs beyond its instruction).

Usage: Tests/Benchmarks/paired.sh core|proxy|half|instructions BASE_BINARY NEW_BINARY [rounds=5] [seconds=5]
A binary is a release build, e.g. from `swift build -c release
--static-swift-stdlib --scratch-path DIR` at each of the two commits.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib as b
import proxy_bench as pb

CONNECTIONS = 64


def core_targets(binaries: list[str], prefix: list[str] | None = None) -> tuple[list[dict], list[b.Process]]:
    processes, targets = [], []
    for binary in binaries:
        admin_port = b.free_port()
        process = b.Process((prefix or []) + [binary], env={
            "BFF_LISTEN": f"127.0.0.1:{b.free_port()}",
            "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin_port}",
            "BFF_LOG_LEVEL": "warning",
        }, log_name="gateway")
        processes.append(process)
        targets.append({"url": f"http://127.0.0.1:{admin_port}/healthz", "pid": process.pid, "script": None,
                        "wait": [admin_port]})
    return targets, processes


def proxy_targets(binaries: list[str], prefix: list[str] | None = None) -> tuple[list[dict], list[b.Process]]:
    backends = pb.start_backends(b.build_release("modgud-sim"), lifetime=3600)
    processes = list(backends["processes"])
    targets = []
    # BENCH_NEW_GATEWAY_ENV (JSON) sets the second build's settings apart,
    # e.g. the same binary on another Redis topology (cluster_bench.sh).
    extra = [{}, json.loads(os.environ.get("BENCH_NEW_GATEWAY_ENV", "{}"))]
    for binary, extra_env in zip(binaries, extra):
        gateway, public_port, admin_port = pb.start_gateway(binary, backends, prefix, extra_env)
        processes.insert(0, gateway)
        targets.append({"url": f"http://127.0.0.1:{public_port}{pb.PATH}", "pid": gateway.pid,
                        "public_port": public_port, "wait": [public_port, admin_port]})
    for port in backends["ports"].values():
        b.wait_for_port(port)
    for target in targets:
        for port in target["wait"]:
            b.wait_for_port(port)
        cookie = pb.sign_in(target["public_port"], backends["ports"]["sim"])
        headers = {"Cookie": f"__Host-bff={cookie}", "X-CSRF": "1"}
        target["script"] = pb.wrk_script(headers)
        target["paced_script"] = pb.wrk_script(headers, pb.PAUSE_MS)
    return targets, processes


def half_load_connections(target: dict) -> int:
    """How many paced connections give half of `target`'s full-load rate."""
    rate = b.wrk(target["url"], CONNECTIONS, 2, script=target["script"])["rps"] / 2
    return pb.paced_connections(target["url"], rate, target["paced_script"])


def instructions_per_request(target: dict, dumps: str, seconds: int) -> tuple[float, int]:
    """Zeroes `target`'s callgrind counters, sends requests on one
    connection for `seconds`, dumps the counters: instructions per request."""
    pid = target["pid"]
    b.wrk(target["url"], 1, 3, script=target["script"])
    subprocess.run(["callgrind_control", "-z", str(pid)], check=True, capture_output=True)
    for stale in glob.glob(f"{dumps}/callgrind.{pid}.*"):
        os.remove(stale)
    requests = b.wrk(target["url"], 1, seconds, script=target["script"])["requests"]
    subprocess.run(["callgrind_control", "-d", str(pid)], check=True, capture_output=True)
    total = 0
    for dump in glob.glob(f"{dumps}/callgrind.{pid}.*"):
        with open(dump) as file:
            total += sum(int(line.split()[1]) for line in file if line.startswith("summary:"))
    return total / requests, requests


def instructions(binaries: list[str], seconds: int) -> int:
    dumps = tempfile.mkdtemp(prefix="bench-callgrind-")
    prefix = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={dumps}/callgrind.%p", "--dump-instr=no"]
    print("# Paired run, instructions: user-space instructions per request (valgrind callgrind), "
          f"wrk -t1 -c1 for {seconds} s after a 3 s warm-up")
    print()
    print("| path | base | new | new vs base |")
    print("|---|---|---|---|")
    for name, make in (("GET /healthz (admin listener)", core_targets), ("proxied GET /api/items", proxy_targets)):
        targets, processes = make(binaries, prefix)
        try:
            for target in targets:
                for port in target["wait"]:
                    b.wait_for_port(port, timeout=60)
            counts = [instructions_per_request(target, dumps, seconds) for target in targets]
        finally:
            for process in processes:
                process.stop()
        (base, base_n), (new, new_n) = counts
        print(f"| {name} | {base:,.0f} ({base_n} requests) | {new:,.0f} ({new_n} requests) "
              f"| {100 * (new / base - 1):+.1f} % |")
    return 0


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[1] not in ("core", "proxy", "half", "instructions"):
        print(__doc__)
        return 2
    mode, binaries = sys.argv[1], sys.argv[2:4]
    if mode == "instructions":
        return instructions(binaries, int(sys.argv[5]) if len(sys.argv) > 5 else 5)
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    seconds = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    targets, processes = (core_targets if mode == "core" else proxy_targets)(binaries)
    results: list[list[dict]] = [[], []]
    connections, script = CONNECTIONS, "script"
    try:
        for target in targets:
            for port in target["wait"]:
                b.wait_for_port(port)
        time.sleep(0.5)
        for target in targets:
            b.wrk(target["url"], CONNECTIONS, 2, script=target["script"])
        if mode == "half":
            connections, script = half_load_connections(targets[0]), "paced_script"
        for _ in range(rounds):
            for index, target in enumerate(targets):
                results[index].append(b.wrk(target["url"], connections, seconds, script=target[script],
                                            cpu_of=[target["pid"]]))
    finally:
        for process in processes:
            process.stop()

    load = f"{connections} connections paced as proxy_bench.py's half load" if mode == "half" else f"-c{connections}"
    print(f"# Paired run, {mode}: wrk -t1 {load}, {rounds} rounds of {seconds} s, the builds taking turns")
    print()
    print("| build | requests/s (median) | CPU µs per request (median) | CPU µs per request, each round "
          + ("| p50 ms | p99 ms | p99 ms, each round |" if mode == "half" else "|"))
    print("|---|---|---|---|" + ("---|---|---|" if mode == "half" else ""))
    medians = []
    for name, binary, runs in zip(("base", "new"), binaries, results):
        cpu = [run["cpu_us"] for run in runs if run["cpu_us"] is not None]
        medians.append(statistics.median(cpu))
        latency = ""
        if mode == "half":
            p99s = ", ".join(f"{run['p99']:.2f}" for run in runs)
            latency = (f" {statistics.median(run['p50'] for run in runs):.3f} "
                       f"| {statistics.median(run['p99'] for run in runs):.3f} | {p99s} |")
        print(f"| {name} `{binary}` | {statistics.median(run['rps'] for run in runs):.0f} | {medians[-1]:.2f} "
              f"| {', '.join(f'{value:.1f}' for value in cpu)} |{latency}")
    print()
    print(f"CPU per request, new vs base: {100 * (medians[1] / medians[0] - 1):+.1f} %")
    if mode == "half":
        added = statistics.median(new["p99"] - base["p99"] for base, new in zip(*results))
        print(f"p99, new minus base (median over the rounds): {added:+.2f} ms")
    failed = [run for runs in results for run in runs if run["non2xx"] or run["socket_errors"]]
    if failed:
        print(f"WARNING: {len(failed)} runs had non-2xx answers or socket errors")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
