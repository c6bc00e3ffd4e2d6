"""Helpers shared by the benchmark scripts: start and stop processes on
loopback ports, run wrk and parse its figures, read a process's RSS.

Environment: BENCH_SCRATCH, the build directory for build_release
(default: the package's own .build)."""
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def call(port: int, method: str, path: str, body=None, headers: dict | None = None):
    """One request to 127.0.0.1:`port` with `X-CSRF: 1` (and a JSON body
    when `body` is given); returns (status, headers, body bytes)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    request.add_header("X-CSRF", "1")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def rss_kib(pid: int) -> int:
    """Resident set size of `pid` (and, for nginx, pass each worker)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]
    except OSError:
        return []


class Process:
    """A background process that is always stopped (SIGTERM, then KILL)."""

    def __init__(self, argv, env=None, log_name="process", inherit_env=True, log_dir=None):
        """`inherit_env=False` starts from PATH alone, so that settings in
        the caller's environment (BFF_*, say) cannot leak in. The log is a
        new file in `log_dir` (default: the system's temporary directory)."""
        self.log = tempfile.NamedTemporaryFile(prefix=f"bench-{log_name}-", suffix=".log", delete=False, dir=log_dir)
        full_env = dict(os.environ) if inherit_env else {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        full_env.update(env or {})
        self.popen = subprocess.Popen(argv, env=full_env, stdout=self.log, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        return self.popen.returncode


def nginx_available() -> str | None:
    for candidate in (shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def start_nginx(server_block: str, workers: int = 2, parent: Path | None = None) -> tuple[Process, Path]:
    """Starts nginx in the foreground with a throwaway prefix directory
    (made in `parent`, default the system's temporary directory)."""
    prefix = Path(tempfile.mkdtemp(prefix="bench-nginx-", dir=parent))
    (prefix / "logs").mkdir()
    conf = prefix / "nginx.conf"
    conf.write_text(f"""
worker_processes {workers};
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log warn;
events {{ worker_connections 20000; }}
worker_rlimit_nofile 20000;
http {{
    access_log off;
    keepalive_requests 100000000;
    keepalive_timeout 60s;
    {server_block}
}}
""")
    process = Process([nginx_available(), "-p", str(prefix), "-c", str(conf)], log_name="nginx", log_dir=parent)
    return process, prefix


WRK_LATENCY = re.compile(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$", re.M)


def _to_ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds `pids` have used so far (all their threads)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / os.sysconf("SC_CLK_TCK")


def wrk(url: str, connections: int, seconds: int, threads: int = 1, script: str | None = None,
        cpu_of: list[int] | None = None) -> dict:
    """One wrk run. With `cpu_of`, also the CPU those processes used per
    answered request (`cpu_us`), from /proc before and after the run."""
    before = cpu_seconds(cpu_of) if cpu_of else 0.0
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if script:
        argv += ["-s", script]
    argv.append(url)
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    latencies = {m.group(1): _to_ms(m.group(2), m.group(3)) for m in WRK_LATENCY.finditer(out)}
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    answered = re.search(r"(\d+) requests in", out)
    cpu_us = None
    if cpu_of and answered and int(answered.group(1)) > 0:
        cpu_us = (cpu_seconds(cpu_of) - before) / int(answered.group(1)) * 1e6
    return {
        "rps": rps,
        "requests": int(answered.group(1)) if answered else 0,
        "cpu_us": cpu_us,
        "p50": latencies.get("50"),
        "p99": latencies.get("99"),
        "non2xx": int(errors.group(1)) if errors else 0,
        "socket_errors": socket_errors.group(1) if socket_errors else "",
        "raw": out,
    }


def median_round(results: list[dict]) -> dict:
    """Each figure's median over several `wrk` runs of one load (CPU where
    it was measured)."""
    cpu = [r["cpu_us"] for r in results if r["cpu_us"] is not None]
    return {
        "rps": statistics.median(r["rps"] for r in results),
        "p50": statistics.median(r["p50"] for r in results),
        "p99": statistics.median(r["p99"] for r in results),
        "cpu_us": statistics.median(cpu) if cpu else None,
    }


def micros(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def build_dir() -> Path:
    """Where build_release builds: $BENCH_SCRATCH, else the package's .build."""
    scratch = os.environ.get("BENCH_SCRATCH")
    return Path(scratch) if scratch else ROOT / ".build"


def build_release(product: str = "modgud-bff") -> Path:
    """Builds `product` in release mode with the Swift runtime linked in, as
    the container image and Deploy/local/run ship it (in $BENCH_SCRATCH when
    set, so a benchmark need not share .build with a concurrent build) and
    returns the binary's path."""
    argv = ["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", product]
    if os.environ.get("BENCH_SCRATCH"):
        argv += ["--scratch-path", os.environ["BENCH_SCRATCH"]]
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return build_dir() / "release" / product


def percentile(values, fraction):
    """The value at `fraction` (0…1) of `values` sorted."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class SignInStack:
    """redis-server, modgud-sim (release, no jitter, rate limits off) and the
    gateway (release) on loopback, for the sign-in benchmarks; `stop()`
    ends all three. The gateway logs to `gateway_log` (its access lines)."""

    def __init__(self, prefix: str, gateway_env: dict | None = None):
        release = build_release().parent
        build_release("modgud-sim")
        self.redis_port, self.sim_port, self.public_port, admin_port = (free_port() for _ in range(4))
        workdir = tempfile.mkdtemp(prefix=f"bench-{prefix}-")
        self.redis = Process(["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", workdir], log_name="redis")
        self.sim = Process([str(release / "modgud-sim"), "--listen", f"127.0.0.1:{self.sim_port}", "--jitter-ms", "0",
                            "--rate-limits", "off", "--log-level", "warning"], log_name="sim")
        self.gateway = Process([str(release / "modgud-bff")], log_name="gateway", inherit_env=False, env={
            "BFF_LISTEN": f"127.0.0.1:{self.public_port}", "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin_port}",
            "BFF_REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0", "BFF_MODGUD_URL": f"http://127.0.0.1:{self.sim_port}",
            "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "bff-secret", **(gateway_env or {})})
        self.gateway_log = self.gateway.log.name

    def wait_ready(self) -> int:
        """Waits for the three ports; returns the simulator's request-log mark."""
        for port in (self.redis_port, self.sim_port, self.public_port):
            wait_for_port(port)
        time.sleep(0.5)
        return json.loads(call(self.sim_port, "GET", "/dev/requests?limit=1")[2])["total"]

    def simulator_records(self, since: int, paths: tuple) -> list:
        """The simulator's request records for `paths` after the mark `since`."""
        records = []
        for path in paths:
            cursor = since
            while True:
                query = urllib.parse.urlencode({"since": cursor, "limit": 1000, "path": path})
                page = json.loads(call(self.sim_port, "GET", f"/dev/requests?{query}")[2])["requests"]
                records += page
                if len(page) < 1000:
                    break
                cursor = page[-1]["seq"]
        return records

    def access_durations(self, route: str) -> list:
        """`durationMs` of every access line of the gateway for `route`."""
        lines = [json.loads(line) for line in open(self.gateway_log) if '"http.access"' in line]
        return [line["durationMs"] for line in lines if line.get("route") == route]

    def stop(self) -> None:
        self.gateway.stop()
        self.sim.stop()
        self.redis.stop()
