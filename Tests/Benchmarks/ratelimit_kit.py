"""The rate-limit pass-through load kit: does every 429 of Modgud reach the
browser unchanged, through nginx and the gateway, under load?

Starts redis-server, modgud-sim (release, no jitter, small `native-otp`
limits, `RateLimit-*` headers on, a request log large enough for the run),
the gateway (release, on a Unix socket; BFF_TRUSTED_PROXIES=127.0.0.1: wrk
plays a load balancer in front of nginx, whose X-Forwarded-For the gateway
believes) and nginx in front of it, run from Deploy/nginx/modgud-bff.conf
(its ports, paths and certificates rewritten: loopback port, a self-signed
certificate made with openssl for this run, a throwaway static root, pid,
log and temp paths, the gateway's socket).

Load: wrk over HTTPS to nginx, `POST /bff/otp/request` with `X-CSRF: 1`,
the public `Origin`, `{"email": <one of M mailboxes>}` and
`X-Forwarded-For: <one of B simulated browsers>` (198.18.0.0/15), both
chosen at random per request. nginx appends its peer (wrk, 127.0.0.1); the
gateway walks the list right to left past the trusted 127.0.0.1 and sends
the browser's address to Modgud in `Modgud-Forwarded-For` (the gateway logs
a caution about that range: on a real host 127.0.0.1 is every local
client's address). Limits:
  source  token bucket per browser, burst 20, refill 20/min
  target  fixed window per mailbox, 5/hour (Modgud's default)
  client  token bucket, burst 3000, refill 200/s   (the gateway as a whole)
  app     token bucket, burst 1000, refill 100/s   (the realm's one App)
so that every dimension refuses during the run. The wrk Lua script checks
every answer in `response()`: a 429 must have the simulator's exact body
shape `{"error":"rate_limited","policy","dimension","retryAfterSeconds"}`,
`Retry-After` equal to `retryAfterSeconds`, `RateLimit-Reset` equal to it,
`RateLimit-Remaining: 0` and `RateLimit-Limit` equal to the dimension's
capacity; a 200 must be the simulator's uniform body byte for byte.
At the end of the timed phase the script switches to a static file served
by nginx (with a pause), so no sign-in request is cut off by wrk's stop and
every count below must match exactly.

Meanwhile a small Python client (TLS through nginx, checked against the
run's certificate) sends the same request through the chain and straight to
the simulator, in pairs at the same moment, to compare the 429 bytes and
headers the browser gets with those Modgud sends: per source (one address),
per target (one mailbox) and for the gateway as a whole (fresh both).

Then the checks:
  (a) fidelity: the simulator's 429 count (its /dev/stats) equals the 429s
      the clients received, per dimension, every one of them well formed;
  (b) retries: requests the gateway received (bff_http_requests_total) =
      its calls to Modgud (bff_modgud_calls_total) = the simulator's count
      of otp/request calls from the gateway;
  (c) dimensions: the simulator's request log holds, per simulated browser,
      exactly as many requests with that `Modgud-Forwarded-For` as wrk sent
      from it, and no browser was throttled on `source` before its own
      bucket was empty; target and client/app counts from /dev/stats;
  (d) throughput and p50/p99 through nginx -> gateway -> simulator, and the
      same load straight to the simulator (Basic auth and
      Modgud-Forwarded-For, as the gateway sends them) after a /dev/reset;
  (e) the gateway's RSS at the start, middle and end of the chain run.
Exit status 1 when fidelity is below 100 %, anything was retried, a count
does not reconcile, or any answer other than 200/429 (or a socket error)
occurred. The throughput target (>= 2,000 requests/s through the whole
chain) is reported, not enforced.

Usage: Tests/Benchmarks/ratelimit_kit.sh [seconds=20] [browsers=5000] [mailboxes=10000]
Environment: BENCH_SCRATCH (build directory, default .build),
RLKIT_CONNECTIONS (wrk connections, 64), RLKIT_THREADS (wrk threads, 2).
"""
import http.client
import json
import math
import os
import re
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import benchlib as b

CLIENT_ID, CLIENT_SECRET = "bff", "bff-secret"  # the simulator's demo client (Docs/simulator.md)
BASIC = "Basic YmZmOmJmZi1zZWNyZXQ="             # base64("bff:bff-secret")
OTP_PATH = "/api/account/native/otp/request"
OTP_ENDPOINT = f"POST {OTP_PATH}"
IDLE_BODY = "rlkit-idle\n"

# The native-otp policy for the run: every dimension refuses at some point.
LIMITS = {
    "source": {"limit": 20, "windowSeconds": 60, "burst": 20},
    "target": {"limit": 5, "windowSeconds": 3600},
    "client": {"limit": 12000, "windowSeconds": 60, "burst": 3000},
    "app": {"limit": 6000, "windowSeconds": 60, "burst": 1000},
}
CAPACITY = {dimension: rule.get("burst", rule["limit"]) for dimension, rule in LIMITS.items()}

# The lines of Deploy/nginx/modgud-bff.conf a deployment changes (listed in
# its header), then the paths of Debian's layout; the same strings as
# NginxFront.siteLines in the test suite.
SITE_LINES = ("server unix:/run/modgud-bff/public.sock;", "listen 443 ssl http2;", "/etc/nginx/certs/modgud-bff.crt",
              "/etc/nginx/certs/modgud-bff.key", "root /usr/share/nginx/html;", "pid /run/nginx.pid;",
              "/var/log/nginx/", "/var/lib/nginx/")

# The wrk script. args: mode (chain|direct), deadline (epoch s), browsers,
# mailboxes, idle path, idle body, the uniform 200 body, origin,
# "source=20,target=5,…" (capacities for RateLimit-Limit).
LUA = r"""
local mode, deadline, browsers, mailboxes, idle_path, idle_body, ok_body, origin
local capacity = {}
local headers, idle_headers = {}, {}
local pattern = '^{"error":"rate_limited","policy":"([%w%-]+)","dimension":"(%a+)","retryAfterSeconds":(%d+)}$'

-- per thread (read by done() through thread:get)
sent, idle_sent, idle_done, answered, ok, bad_ok, limited, bad429, other = 0, 0, 0, 0, 0, 0, 0, 0, 0
statuses, dims, per_browser, sample_bad = {}, {}, {}, ""

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  mode, deadline, browsers, mailboxes = args[1], tonumber(args[2]), tonumber(args[3]), tonumber(args[4])
  idle_path, idle_body, ok_body, origin = args[5], args[6], args[7], args[8]
  for name, value in string.gmatch(args[9], "(%a+)=(%d+)") do capacity[name] = value end
  math.randomseed(os.time() * 97 + tid)
  headers["Content-Type"] = "application/json"
  if mode == "chain" then
    headers["X-CSRF"] = "1"
    headers["Origin"] = origin
  else
    headers["Authorization"] = "Basic YmZmOmJmZi1zZWNyZXQ="
  end
end

function delay()
  if os.time() >= deadline then return 1000 end
  return 0
end

function request()
  if tid == 1 and not verified then
    -- wrk calls request() once in the first thread's state before the run,
    -- to check the request, and never sends it: not counted.
    verified = true
    return wrk.format("GET", idle_path, idle_headers, nil)
  end
  if os.time() >= deadline then
    idle_sent = idle_sent + 1
    return wrk.format("GET", idle_path, idle_headers, nil)
  end
  sent = sent + 1
  local n = math.random(0, browsers - 1)
  local address = "198." .. (18 + math.floor(n / 65536)) .. "." .. (math.floor(n / 256) % 256) .. "." .. (n % 256)
  per_browser[address] = (per_browser[address] or 0) + 1
  local email = "load" .. math.random(0, mailboxes - 1) .. "@example.com"
  if mode == "chain" then
    headers["X-Forwarded-For"] = address
    return wrk.format("POST", "/bff/otp/request", headers, '{"email":"' .. email .. '"}')
  end
  headers["Modgud-Forwarded-For"] = address
  return wrk.format("POST", "/api/account/native/otp/request", headers, '{"Email":"' .. email .. '"}')
end

local function header(all, name)
  local wanted = string.lower(name)
  for key, value in pairs(all) do
    if string.lower(key) == wanted then return value end
  end
  return nil
end

function response(status, all, body)
  if status == 200 and body == idle_body then
    idle_done = idle_done + 1
    return
  end
  answered = answered + 1
  statuses[status] = (statuses[status] or 0) + 1
  if status == 200 then
    if body == ok_body then ok = ok + 1 else bad_ok = bad_ok + 1 end
  elseif status == 429 then
    local policy, dimension, seconds = string.match(body, pattern)
    local fine = dimension ~= nil
      and header(all, "Retry-After") == seconds
      and header(all, "RateLimit-Reset") == seconds
      and header(all, "RateLimit-Remaining") == "0"
      and header(all, "RateLimit-Limit") == capacity[dimension]
      and header(all, "Content-Type") == "application/json"
    if fine then
      limited = limited + 1
      local key = policy .. "/" .. dimension
      dims[key] = (dims[key] or 0) + 1
    else
      bad429 = bad429 + 1
      if sample_bad == "" then
        sample_bad = body .. " Retry-After=" .. tostring(header(all, "Retry-After"))
          .. " RateLimit-Limit=" .. tostring(header(all, "RateLimit-Limit"))
      end
    end
  else
    other = other + 1
    if sample_bad == "" then sample_bad = status .. " " .. body end
  end
end

local function quote(text)
  local escaped = string.gsub(string.gsub(string.gsub(text, '\\', '\\\\'), '"', '\\"'), '%c', ' ')
  return '"' .. escaped .. '"'
end

local function object(map)
  local parts = {}
  for key, value in pairs(map) do table.insert(parts, quote(tostring(key)) .. ":" .. value) end
  return "{" .. table.concat(parts, ",") .. "}"
end

function done(summary, latency, requests)
  local total = {sent = 0, idle_sent = 0, idle_done = 0, answered = 0, ok = 0, bad_ok = 0, limited = 0, bad429 = 0, other = 0}
  local all_statuses, all_dims, all_browsers, bad = {}, {}, {}, ""
  for _, thread in ipairs(threads) do
    for key, _ in pairs(total) do total[key] = total[key] + thread:get(key) end
    for key, value in pairs(thread:get("statuses")) do all_statuses[key] = (all_statuses[key] or 0) + value end
    for key, value in pairs(thread:get("dims")) do all_dims[key] = (all_dims[key] or 0) + value end
    for key, value in pairs(thread:get("per_browser")) do all_browsers[key] = (all_browsers[key] or 0) + value end
    if bad == "" then bad = thread:get("sample_bad") end
  end
  local fields = {}
  for key, value in pairs(total) do table.insert(fields, quote(key) .. ":" .. value) end
  table.insert(fields, '"statuses":' .. object(all_statuses))
  table.insert(fields, '"dims":' .. object(all_dims))
  table.insert(fields, '"perBrowser":' .. object(all_browsers))
  table.insert(fields, '"sampleBad":' .. quote(bad))
  table.insert(fields, '"p50us":' .. latency:percentile(50) .. ',"p99us":' .. latency:percentile(99))
  table.insert(fields, '"errors":' .. (summary.errors.connect + summary.errors.read + summary.errors.write
                                       + summary.errors.timeout))
  io.write("RLKIT " .. "{" .. table.concat(fields, ",") .. "}\n")
end
"""

RETRY_IN_BODY = re.compile(rb'"retryAfterSeconds":(\d+)')


# ----------------------------------------------------------------- helpers

def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed P-256 certificate for localhost and 127.0.0.1."""
    crt, key = directory / "modgud-bff.crt", directory / "modgud-bff.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(crt)], check=True, capture_output=True)
    return crt, key


def nginx_site(port: int, socket: Path, crt: Path, key: Path, root: Path, prefix: Path) -> str:
    """Deploy/nginx/modgud-bff.conf with its site-specific lines and paths set for this run."""
    text = (b.ROOT / "Deploy" / "nginx" / "modgud-bff.conf").read_text()
    replacements = dict(zip(SITE_LINES, (
        f"server unix:{socket};", f"listen 127.0.0.1:{port} ssl http2;", str(crt), str(key),
        f"root {root};", f"pid {prefix}/nginx.pid;", f"{prefix}/logs/", f"{prefix}/")))
    for old, new in replacements.items():
        if old not in text:
            raise SystemExit(f"Deploy/nginx/modgud-bff.conf no longer contains {old!r}; update SITE_LINES")
        text = text.replace(old, new)
    return text


def sim_config(path: Path, capacity: int) -> None:
    path.write_text(json.dumps({
        "requestLogCapacity": capacity,
        "rateLimits": {"mode": "enforce", "allowlist": [], "policies": {"native-otp": LIMITS}},
    }))


class Client:
    """One keep-alive connection: to nginx over TLS (the chain) or to the
    simulator (direct, as the gateway calls it)."""

    def __init__(self, port: int, tls_ca: Path | None = None):
        if tls_ca:
            context = ssl.create_default_context(cafile=str(tls_ca))
            self.connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=10)
        else:
            self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def call(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        """Returns (status, {lower-case name: value}, body bytes)."""
        for attempt in (1, 2):
            try:
                self.connection.request(method, path, body=body, headers=headers or {})
                response = self.connection.getresponse()
                return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()  # a keep-alive connection closed while idle; reconnect once
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def get_json(self, path: str):
        status, _, body = self.call("GET", path)
        if status != 200:
            raise SystemExit(f"GET {path} answered {status}: {body[:200]!r}")
        return json.loads(body)


def chain_otp(client: Client, origin: str, address: str, email: str):
    return client.call("POST", "/bff/otp/request", json.dumps({"email": email}).encode(), {
        "Content-Type": "application/json", "X-CSRF": "1", "Origin": origin, "X-Forwarded-For": address})


def direct_otp(client: Client, address: str, email: str):
    return client.call("POST", OTP_PATH, json.dumps({"Email": email}).encode(), {
        "Content-Type": "application/json", "Authorization": BASIC, "Modgud-Forwarded-For": address})


def check_429(status: int, headers: dict, body: bytes) -> str | None:
    """The dimension of a well-formed 429 (simulator's exact body shape,
    Retry-After = RateLimit-Reset = retryAfterSeconds), else None."""
    match = re.fullmatch(rb'\{"error":"rate_limited","policy":"([\w-]+)","dimension":"(\w+)","retryAfterSeconds":(\d+)\}',
                         body)
    if status != 429 or not match:
        return None
    seconds = match.group(3).decode()
    dimension = match.group(2).decode()
    if (headers.get("retry-after") == seconds and headers.get("ratelimit-reset") == seconds
            and headers.get("ratelimit-remaining") == "0" and headers.get("ratelimit-limit") == str(CAPACITY.get(dimension))
            and headers.get("content-type") == "application/json"):
        return f"{match.group(1).decode()}/{dimension}"
    return None


RELAYED_HEADERS = ("retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "content-type")


class Sampler(threading.Thread):
    """Pairs of identical requests, one through nginx and the gateway, one
    straight to the simulator, sent back to back while wrk runs."""

    def __init__(self, nginx_port: int, sim_port: int, ca: Path, origin: str, stop_at: float):
        super().__init__(daemon=True)
        self.nginx_port, self.sim_port, self.ca, self.origin, self.stop_at = nginx_port, sim_port, ca, origin, stop_at
        self.pairs: list[tuple[str, tuple, tuple]] = []
        self.error: BaseException | None = None

    def run(self):
        try:
            chain, direct = Client(self.nginx_port, self.ca), Client(self.sim_port)
            k = 0
            while time.time() < self.stop_at - 0.5:
                mode = ("source", "target", "gateway")[k % 3]
                fresh = f"100.64.{(k // 256) % 256}.{k % 256}"
                address = "100.127.0.1" if mode == "source" else fresh
                email = "sample-target@example.com" if mode == "target" else f"sample{k}@example.com"
                self.pairs.append((mode, chain_otp(chain, self.origin, address, email), direct_otp(direct, address, email)))
                k += 1
                time.sleep(0.05)
        except BaseException as error:  # reported by main()
            self.error = error

    def summary(self) -> dict:
        result = {"pairs": len(self.pairs), "chain429": 0, "chainGood429": 0, "direct429": 0, "chainOther": 0,
                  "bothLimited": 0, "sameDimension": 0, "identical": 0, "retryOnly": 0, "different": [],
                  "chainDims": {}, "directDims": {}}
        for mode, (cs, ch, cb), (ds, dh, db) in self.pairs:
            if cs == 429:
                result["chain429"] += 1
                dimension = check_429(cs, ch, cb)
                if dimension:
                    result["chainGood429"] += 1
                    result["chainDims"][dimension] = result["chainDims"].get(dimension, 0) + 1
            elif cs != 200:
                result["chainOther"] += 1
            if ds == 429:
                result["direct429"] += 1
                dimension = check_429(ds, dh, db) or "malformed"
                result["directDims"][dimension] = result["directDims"].get(dimension, 0) + 1
            if cs == 429 and ds == 429:
                result["bothLimited"] += 1
                if check_429(cs, ch, cb) != check_429(ds, dh, db):
                    continue  # a shared bucket moved between the two calls: another dimension refused
                result["sameDimension"] += 1
                same_headers = all(ch.get(name) == dh.get(name) for name in RELAYED_HEADERS)
                if cb == db and same_headers:
                    result["identical"] += 1
                elif (RETRY_IN_BODY.sub(b"", cb) == RETRY_IN_BODY.sub(b"", db) and check_429(cs, ch, cb)
                      and check_429(ds, dh, db)):
                    result["retryOnly"] += 1  # the bucket moved on between the two calls
                else:
                    result["different"].append((mode, cb.decode(errors="replace"), db.decode(errors="replace")))
        return result


def prometheus(admin_port: int) -> dict[tuple[str, frozenset], float]:
    """The gateway's /metrics as {(name, labels): value}."""
    status, _, body = Client(admin_port).call("GET", "/metrics")
    if status != 200:
        raise SystemExit(f"/metrics answered {status}")
    values = {}
    for line in body.decode().splitlines():
        match = re.fullmatch(r'(\w+)(?:\{(.*)\})?\s+([-+\d.eE]+|NaN)', line.strip())
        if match and not line.startswith("#"):
            labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(2) or ""))
            values[(match.group(1), labels)] = float(match.group(3))
    return values


def metric_sum(values: dict, name: str, **wanted) -> int:
    return int(sum(v for (n, labels), v in values.items()
                   if n == name and all((k, w) in labels for k, w in wanted.items())))


def metric_delta(before: dict, after: dict, name: str, **wanted) -> int:
    return metric_sum(after, name, **wanted) - metric_sum(before, name, **wanted)


def run_wrk(url: str, script: str, args: list[str], deadline: int, connections: int, threads: int,
            during=None) -> dict:
    """wrk until a little after `deadline`; `during(elapsed_fraction)` is
    called at the half. Returns the script's RLKIT figures plus rate and
    the phase's length."""
    started = time.time()
    seconds = math.ceil(deadline - started) + 2
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", script, url, "--", *args]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if during:
        time.sleep(max(0.0, (deadline - started) / 2))
        during()
    out, _ = process.communicate(timeout=seconds + 60)
    line = next((l for l in out.splitlines() if l.startswith("RLKIT ")), None)
    if line is None:
        raise SystemExit(f"wrk printed no RLKIT line:\n{out}")
    figures = json.loads(line[len("RLKIT "):])
    figures["phase"] = deadline - started
    figures["rps"] = figures["answered"] / figures["phase"]
    figures["raw"] = out
    return figures


def fetch_log(sim: Client) -> list[dict]:
    """Every recorded otp/request call since the last reset (the ring is sized for the run)."""
    page = sim.get_json(f"/dev/requests?since=0&limit=100000000&path={OTP_PATH}")
    return page["requests"]


# -------------------------------------------------------------------- main

def main() -> int:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    browsers = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    mailboxes = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    connections = int(os.environ.get("RLKIT_CONNECTIONS", "64"))
    threads = int(os.environ.get("RLKIT_THREADS", "2"))
    if not b.nginx_available():
        raise SystemExit("nginx is not installed (Deploy/local/ensure-packages.sh bench)")

    gateway_binary = b.build_release()
    sim_binary = b.build_release("modgud-sim")
    nginx_port, admin_port, redis_port, sim_port = (b.free_port() for _ in range(4))
    origin = f"https://localhost:{nginx_port}"
    workdir = Path(tempfile.mkdtemp(prefix="bench-ratelimit-"))
    workdir.chmod(0o755)  # nginx's workers (www-data when started as root) read the static root below it
    crt, key = make_certificate(workdir)
    root = workdir / "www"
    root.mkdir()
    socket = workdir / "public.sock"
    (root / "index.html").write_text("<!doctype html><title>front end</title>\n")
    (root / "rlkit-idle.txt").write_text(IDLE_BODY)
    config = workdir / "sim.json"
    sim_config(config, capacity=max(200_000, seconds * 20_000))

    redis = b.Process(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                       "--appendonly", "no", "--dir", str(workdir)], log_name="redis")
    sim = b.Process([str(sim_binary), "--listen", f"127.0.0.1:{sim_port}", "--config", str(config), "--jitter-ms", "0",
                     "--rate-limits", "enforce", "--rate-limit-headers", "--log-level", "warning"], log_name="sim")
    gateway = b.Process([str(gateway_binary)], inherit_env=False, env={
        "BFF_LISTEN": f"unix:{socket}",
        # nginx's workers run as www-data when the kit runs as root.
        **({"BFF_LISTEN_GROUP": "www-data"} if os.geteuid() == 0 else {}),
        "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin_port}",
        "BFF_PUBLIC_ORIGIN": origin,
        "BFF_TRUSTED_PROXIES": "127.0.0.1",
        "BFF_FORWARDED_HEADER": "x-forwarded-for",
        "BFF_MODGUD_URL": f"http://127.0.0.1:{sim_port}",
        "BFF_CLIENT_ID": CLIENT_ID,
        "BFF_CLIENT_SECRET": CLIENT_SECRET,
        "BFF_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "BFF_ACCESS_LOG": "false",
        "BFF_LOG_LEVEL": "warning",
    }, log_name="gateway")
    nginx_prefix = workdir / "nginx"
    (nginx_prefix / "logs").mkdir(parents=True)
    nginx_prefix.chmod(0o755)
    (nginx_prefix / "nginx.conf").write_text(nginx_site(nginx_port, socket, crt, key, root, nginx_prefix))
    nginx = b.Process([b.nginx_available(), "-p", str(nginx_prefix), "-c", str(nginx_prefix / "nginx.conf"),
                       "-g", "daemon off;"], log_name="nginx")
    lua = workdir / "ratelimit_kit.lua"
    lua.write_text(LUA)
    gateway_status = None
    try:
        for port in (redis_port, sim_port, admin_port, nginx_port):
            b.wait_for_port(port)
        time.sleep(0.3)
        for name, process in (("gateway", gateway), ("nginx", nginx), ("modgud-sim", sim)):
            if process.popen.poll() is not None:
                raise SystemExit(f"{name} exited at start ({process.popen.returncode}); see {process.log.name}")
        sim_client = Client(sim_port)
        chain_client = Client(nginx_port, crt)

        # Preflight: the uniform answer, the static root, the forwarded address.
        _, _, ok_body = direct_otp(sim_client, "203.0.113.7", "preflight-direct@example.com")
        status, _, body = chain_otp(chain_client, origin, "203.0.113.8", "preflight@example.com")
        if status != 200 or body != ok_body:
            raise SystemExit(f"preflight through nginx: {status} {body[:300]!r}, expected 200 {ok_body!r}")
        forwarded = fetch_log(sim_client)[-1]["forwardedFor"]
        if forwarded != "203.0.113.8":
            raise SystemExit(f"the gateway forwarded {forwarded!r}, not the browser's 203.0.113.8: check the trust chain")
        status, _, body = chain_client.call("GET", "/rlkit-idle.txt")
        if status != 200 or body.decode() != IDLE_BODY:
            raise SystemExit(f"nginx's static root answered {status} {body[:100]!r}")
        sim_client.call("POST", "/dev/reset", b'{"keepConfig":true}', {"Content-Type": "application/json"})

        _, _, health_body = sim_client.call("GET", "/healthz")
        capacities = ",".join(f"{d}={c}" for d, c in CAPACITY.items())

        def load(mode: str, deadline: int, during=None) -> dict:
            """One timed wrk phase through the chain or straight to the simulator."""
            if mode == "chain":
                url, idle_path, idle_body = f"https://127.0.0.1:{nginx_port}", "/rlkit-idle.txt", IDLE_BODY
            else:
                url, idle_path, idle_body = f"http://127.0.0.1:{sim_port}", "/healthz", health_body.decode()
            return run_wrk(url, str(lua), [mode, str(deadline), str(browsers), str(mailboxes), idle_path, idle_body,
                                           ok_body.decode(), origin, capacities], deadline, connections, threads, during)

        def reset_simulator(patch: dict | None = None) -> None:
            """Fresh buckets, counters and request log; the configuration kept (and patched)."""
            sim_client.call("POST", "/dev/reset", b'{"keepConfig":true}', {"Content-Type": "application/json"})
            if patch:
                status, _, body = sim_client.call("POST", "/dev/config", json.dumps(patch).encode(),
                                                  {"Content-Type": "application/json"})
                if status != 200:
                    raise SystemExit(f"POST /dev/config answered {status}: {body[:300]!r}")

        reset_simulator()
        # (a)-(c), (e): the chain run with the sampler beside it.
        runs, stats, metrics = {}, {}, {}
        metrics["before"] = prometheus(admin_port)
        rss = {"start": b.rss_kib(gateway.pid)}
        deadline = math.ceil(time.time()) + seconds
        sampler = Sampler(nginx_port, sim_port, crt, origin, deadline)
        sampler.start()
        runs["chain"] = load("chain", deadline, during=lambda: rss.__setitem__("middle", b.rss_kib(gateway.pid)))
        sampler.join(timeout=15)
        time.sleep(0.5)
        rss["end"] = b.rss_kib(gateway.pid)
        metrics["after"] = prometheus(admin_port)
        stats["chain"] = sim_client.get_json("/dev/stats")
        log = fetch_log(sim_client)

        # (d): the same load straight to the simulator, fresh buckets; then
        # both again with the limits off (every request a registration and
        # a mail, as many 200s as the chain can carry).
        reset_simulator()
        runs["direct"] = load("direct", math.ceil(time.time()) + seconds)
        stats["direct"] = sim_client.get_json("/dev/stats")
        reset_simulator({"rateLimitMode": "off"})
        metrics["before off"] = prometheus(admin_port)
        runs["chain off"] = load("chain", math.ceil(time.time()) + seconds)
        time.sleep(0.5)
        metrics["after off"] = prometheus(admin_port)
        stats["chain off"] = sim_client.get_json("/dev/stats")
        reset_simulator()
        runs["direct off"] = load("direct", math.ceil(time.time()) + seconds)
        stats["direct off"] = sim_client.get_json("/dev/stats")
        rss["after all runs"] = b.rss_kib(gateway.pid)
    finally:
        gateway_status = gateway.stop()
        nginx.stop()
        sim.stop()
        redis.stop()
    return report(seconds, browsers, mailboxes, connections, threads, runs, stats, metrics, sampler, log, rss,
                  gateway_status, nginx_prefix)


def report(seconds, browsers, mailboxes, connections, threads, runs, stats, metrics, sampler, log, rss,
           gateway_status, nginx_prefix) -> int:
    chain, chain_stats = runs["chain"], stats["chain"]
    before, after = metrics["before"], metrics["after"]
    failures = []
    samples = sampler.summary()
    if sampler.error:
        failures.append(f"sampler failed: {sampler.error!r}")

    def expect(what, got, wanted):
        if got != wanted:
            failures.append(f"{what}: {got} != {wanted}")

    print(f"# Rate-limit pass-through: nginx (TLS) -> gateway -> modgud-sim, {seconds} s per run")
    print()
    print(f"- wrk -t{threads} -c{connections}, HTTPS keep-alive to nginx; `POST /bff/otp/request`, "
          f"{browsers} simulated browsers (X-Forwarded-For in 198.18.0.0/15), {mailboxes} mailboxes, chosen at random.")
    print("- native-otp limits: " + "; ".join(
        f"{d} {r['limit']}/{r['windowSeconds']:g}s" + (f" burst {r['burst']}" if "burst" in r else " window")
        for d, r in LIMITS.items()) + ". Simulator jitter 0, RateLimit-* headers on.")
    print(f"- Sampler: {samples['pairs']} request pairs (through the chain, then straight to the simulator) during the run.")
    print()

    # (a) fidelity
    sim_rejections = chain_stats.get("rateLimits", {}).get("rejections", {})
    sim_by_dim = {f"{p}/{d}": n for p, dims in sim_rejections.items() for d, n in dims.items()}
    sim_429 = sum(sim_by_dim.values())
    to_gateway_429 = sim_429 - samples["direct429"]
    client_429 = chain["limited"] + chain["bad429"] + samples["chain429"]
    good_429 = chain["limited"] + samples["chainGood429"]
    client_dims = dict(chain["dims"])
    for key, value in samples["chainDims"].items():
        client_dims[key] = client_dims.get(key, 0) + value
    expected_dims = dict(sim_by_dim)
    for key, value in samples["directDims"].items():
        expected_dims[key] = expected_dims.get(key, 0) - value
    print("## (a) 429 fidelity")
    print()
    print("| policy/dimension | simulator issued to the gateway | client received, well formed |")
    print("|---|---|---|")
    for key in sorted(set(expected_dims) | set(client_dims)):
        print(f"| {key} | {expected_dims.get(key, 0)} | {client_dims.get(key, 0)} |")
        expect(f"429s {key}: client vs simulator", client_dims.get(key, 0), expected_dims.get(key, 0))
    print(f"| **total** | {to_gateway_429} | {good_429} |")
    print()
    relayed = metric_delta(before, after, "bff_modgud_calls_total", endpoint="otp_request", outcome="rate_limited")
    print(f"- Simulator's 429s: {sim_429} in all ({samples['direct429']} of them to the sampler's direct calls); "
          f"gateway relayed {relayed} (bff_modgud_calls_total outcome=rate_limited); clients received {client_429}, "
          f"{good_429} well formed (exact body shape, Retry-After = RateLimit-Reset = retryAfterSeconds, "
          f"RateLimit-Remaining 0, RateLimit-Limit = the dimension's capacity, Content-Type application/json).")
    print(f"- Side by side (same request, same moment, chain vs simulator): {samples['bothLimited']} pairs both 429, "
          f"{samples['sameDimension']} of them refused on the same dimension (in the others the first call spent a "
          f"shared bucket, so the second was refused on another); of these {samples['identical']} byte-identical bodies and identical Retry-After/RateLimit-*/Content-Type, "
          f"{samples['retryOnly']} identical but for retryAfterSeconds (the bucket moved on between the two calls; "
          f"each consistent with its own headers), {len(samples['different'])} different.")
    for mode, cb, db in samples["different"][:5]:
        print(f"  - DIFFERENT ({mode}): chain {cb!r} vs simulator {db!r}")
    if chain["sampleBad"]:
        print(f"- first malformed or unexpected answer seen by wrk: {chain['sampleBad']!r}")
    expect("gateway relayed vs simulator issued to the gateway", relayed, to_gateway_429)
    expect("well-formed 429s received vs simulator issued to the gateway", good_429, to_gateway_429)
    if samples["different"]:
        failures.append(f"{len(samples['different'])} sampled 429s differed from the simulator's")
    print()
    print(f"fidelity: {good_429}/{to_gateway_429} 429s relayed unchanged")
    print()

    # (b) retries
    received = metric_delta(before, after, "bff_http_requests_total", route="/bff/otp/request")
    calls = metric_delta(before, after, "bff_modgud_calls_total", endpoint="otp_request")
    sim_calls = chain_stats.get("endpoints", {}).get(OTP_ENDPOINT, 0)
    sent_by_clients = chain["answered"] + samples["pairs"]
    sim_from_gateway = sim_calls - samples["pairs"]
    print("## (b) one upstream call per request")
    print()
    print("| count | value |")
    print("|---|---|")
    print(f"| answers to wrk + sampler requests through nginx | {sent_by_clients} |")
    print(f"| requests the gateway received (bff_http_requests_total route=/bff/otp/request) | {received} |")
    print(f"| calls the gateway made (bff_modgud_calls_total endpoint=otp_request) | {calls} |")
    print(f"| otp/request calls at the simulator, minus the sampler's direct ones | {sim_from_gateway} |")
    outcomes = {labels_dict(l)["outcome"]: int(v - before.get((n, l), 0)) for (n, l), v in after.items()
                if n == "bff_modgud_calls_total" and ("endpoint", "otp_request") in l}
    print(f"| gateway call outcomes | {json.dumps(outcomes, sort_keys=True)} |")
    print()
    retries = max(calls - received, sim_from_gateway - received, 0)
    expect("gateway received vs requests sent", received, sent_by_clients)
    expect("gateway upstream calls vs received", calls, received)
    expect("simulator calls from the gateway vs gateway received", sim_from_gateway, received)
    print(f"retries: {retries}" + ("" if calls == received == sim_from_gateway else
                                    f" (counts differ: calls {calls}, received {received}, at the simulator {sim_from_gateway})"))
    print()

    # (c) dimensions
    rl = chain_stats.get("rateLimits", {})
    per_browser_log: dict[str, list[str | None]] = {}
    for record in log:
        per_browser_log.setdefault(record.get("forwardedFor") or "-", []).append(record.get("rateLimited"))
    load_addresses = {a for a in per_browser_log if a.startswith("198.18.") or a.startswith("198.19.")}
    mismatched = [a for a in set(chain["perBrowser"]) | load_addresses
                  if len(per_browser_log.get(a, [])) != chain["perBrowser"].get(a, 0)]
    burst = LIMITS["source"]["burst"]
    early = [a for a in load_addresses
             if "native-otp/source" in per_browser_log[a] and per_browser_log[a].index("native-otp/source") < burst]
    throttled = [a for a in load_addresses if "native-otp/source" in per_browser_log[a]]
    shared_hits = {d: len({a for a in load_addresses if f"native-otp/{d}" in per_browser_log[a]}) for d in ("client", "app")}
    logged = len(log)
    print("## (c) per dimension")
    print()
    print(f"- Request log: {logged} otp/request records (of {sim_calls} calls); "
          f"{len(load_addresses)} distinct Modgud-Forwarded-For addresses from the load, wrk sent from "
          f"{len(chain['perBrowser'])}; {len(mismatched)} addresses whose count differs from what wrk sent from it; "
          f"{sum(1 for r in log if r.get('forwardedFor') in ('127.0.0.1', None))} records with 127.0.0.1 or none.")
    print(f"- source: {len(throttled)} browsers throttled, each on its own bucket: {len(early)} of them refused "
          f"before their own {burst} requests were spent. Simulator: distinct source keys "
          f"{rl.get('distinctKeys', {}).get('source')} (distinct Modgud-Forwarded-For values in its log: "
          f"{len(per_browser_log)}, {len(load_addresses)} from wrk, the rest the sampler's), rejected keys "
          f"{rl.get('rejectedKeys', {}).get('source')}.")
    print(f"- target: distinct mailboxes seen by the target dimension {rl.get('distinctKeys', {}).get('target')}, "
          f"refused mailboxes {rl.get('rejectedKeys', {}).get('target')} (limit {LIMITS['target']['limit']} per mailbox).")
    print(f"- client/app: one key each (distinct {rl.get('distinctKeys', {}).get('client')}/"
          f"{rl.get('distinctKeys', {}).get('app')}): the gateway as a whole; {shared_hits['client']} and "
          f"{shared_hits['app']} different browsers got a client and an app 429 respectively.")
    print(f"- Requests counted per dimension at the simulator: {json.dumps(rl.get('requestsPerDimension'))}.")
    gateway_dims = {f"{labels_dict(l)['policy']}/{labels_dict(l)['dimension']}": int(v - before.get((n, l), 0))
                    for (n, l), v in after.items() if n == "bff_modgud_rate_limited_total"
                    and ("endpoint", "otp_request") in l}
    print(f"- Gateway's bff_modgud_rate_limited_total for otp_request: {json.dumps(gateway_dims, sort_keys=True)}.")
    if logged != sim_calls:
        failures.append(f"the request log holds {logged} of {sim_calls} calls (ring too small?)")
    if mismatched:
        failures.append(f"{len(mismatched)} browsers' forwarded counts differ, e.g. {sorted(mismatched)[:3]}")
    if early:
        failures.append(f"{len(early)} browsers refused on source before their own bucket was empty")
    print()

    # (d) throughput
    print("## (d) throughput and latency")
    print()
    print("| run | requests/s | p50 ms | p99 ms | answers | 200 | 429 | other | socket errors |")
    print("|---|---|---|---|---|---|---|---|---|")
    names = {"chain": "nginx -> gateway -> simulator, limits as above",
             "direct": "straight to the simulator, limits as above",
             "chain off": "nginx -> gateway -> simulator, limits off",
             "direct off": "straight to the simulator, limits off"}
    for key, name in names.items():
        run = runs[key]
        print(f"| {name} | {run['rps']:.0f} | {run['p50us'] / 1000:.2f} | {run['p99us'] / 1000:.2f} | {run['answered']} "
              f"| {run['ok']} | {run['limited'] + run['bad429']} | {run['other'] + run['bad_ok']} | {run['errors']} |")
    print()
    print("- Requests/s = answered sign-in requests / the timed phase ("
          + ", ".join(f"{runs[k]['phase']:.1f}" for k in names) + " s); latencies are wrk's over every request, "
          "including the " + "/".join(str(runs[k]["idle_done"]) for k in names) + " paced idle requests after "
          "each phase (nginx's static file, or the simulator's /healthz). With the limits off every request "
          "writes a pending registration and a mail at the simulator.")
    for key in ("direct", "direct off"):
        run, sim_stats = runs[key], stats[key]
        issued = sum(n for dims in sim_stats.get("rateLimits", {}).get("rejections", {}).values() for n in dims.values())
        expect(f"{key} run: 429s received vs simulator issued", run["limited"], issued)
        expect(f"{key} run: answers vs simulator calls", run["answered"], sim_stats.get("endpoints", {}).get(OTP_ENDPOINT, 0))
    off, off_before, off_after = runs["chain off"], metrics["before off"], metrics["after off"]
    off_received = metric_delta(off_before, off_after, "bff_http_requests_total", route="/bff/otp/request")
    off_calls = metric_delta(off_before, off_after, "bff_modgud_calls_total", endpoint="otp_request")
    off_sim = stats["chain off"].get("endpoints", {}).get(OTP_ENDPOINT, 0)
    print(f"- Limits off through the chain: wrk {off['answered']} answers, gateway received {off_received}, "
          f"called Modgud {off_calls} times, simulator counted {off_sim}.")
    expect("limits off: gateway received vs wrk answers", off_received, off["answered"])
    expect("limits off: gateway calls vs received", off_calls, off_received)
    expect("limits off: simulator calls vs gateway calls", off_sim, off_calls)
    print()
    print(f"throughput: {chain['rps']:.0f} requests/s through nginx -> gateway -> simulator with the limits "
          f"({chain['ok']} 200s, {chain['limited']} 429s), {off['rps']:.0f} requests/s with the limits off "
          f"(all 200s); target >= 2,000: {'met' if min(chain['rps'], off['rps']) >= 2000 else 'MISSED'}. "
          f"Straight to the simulator: {runs['direct']['rps']:.0f} and {runs['direct off']['rps']:.0f} requests/s. "
          f"p50/p99 with the limits: {chain['p50us'] / 1000:.2f}/{chain['p99us'] / 1000:.2f} ms through the chain vs "
          f"{runs['direct']['p50us'] / 1000:.2f}/{runs['direct']['p99us'] / 1000:.2f} ms straight")
    print()

    # (e) memory
    print("## (e) gateway RSS")
    print()
    print("| " + " | ".join(rss) + " |")
    print("|" + "---|" * len(rss))
    print("| " + " | ".join(f"{value / 1024:.1f} MiB" for value in rss.values()) + " |")
    print()
    print("(start, middle and end of the limited chain run; then after the three other runs)")
    print()

    unexpected = samples["chainOther"] + sum(run["other"] + run["bad_ok"] + run["bad429"] + run["errors"]
                                             for run in runs.values())
    if unexpected:
        failures.append(f"{unexpected} unexpected answers or socket errors")
    if gateway_status != 0:
        failures.append(f"gateway exit status after SIGTERM: {gateway_status}")
    print(f"errors other than 429: {unexpected}")
    print(f"gateway exit status after SIGTERM: {gateway_status}")
    for failure in failures:
        print(f"FAILED: {failure}")
    if failures:
        print(f"(nginx prefix with its error log: {nginx_prefix})")
    return 1 if failures else 0


def labels_dict(labels: frozenset) -> dict:
    return dict(labels)


if __name__ == "__main__":
    sys.exit(main())
