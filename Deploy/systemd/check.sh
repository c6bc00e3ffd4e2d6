#!/usr/bin/env bash
# Checks Deploy/systemd/modgud-bff.service:
#   1. a syntax check of its own (sections, Key=Value lines, the sandbox
#      directives this unit promises) — always;
#   2. `systemd-analyze verify` and `systemd-analyze security --offline=true`
#      when systemd-analyze is installed (the unit is verified with its
#      /usr/local/bin/modgud-bff replaced by the built binary, since verify
#      insists the command exists); without it the script says so and ends
#      after the syntax check;
#   3. the ExecStartPre option exists, and Config/modgud-bff.env.example, read
#      as systemd reads an EnvironmentFile, passes `modgud-bff --check-config`;
#      TimeoutStopSec exceeds BFF_SHUTDOWN_TIMEOUT_MS; LimitNOFILE covers
#      BFF_MAX_CONNECTIONS;
#   4. best effort, when the tools are here: a sign-in through the gateway
#      (on a Unix socket, as the unit has it) running as an unprivileged user without capabilities, with
#      no_new_privs and memory-deny-write-execute (prctl PR_SET_MDWE, the
#      kernel's form of MemoryDenyWriteExecute=), under strace, then every
#      system call it made is compared with @system-service minus @privileged.
# Usage: Deploy/systemd/check.sh [BINARY_DIR]   (default .build/debug, else .build/release)
# Prints OK/FAIL/WARN/NOTE/SKIP lines; exits 1 if any line is FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec python3 - "$@" <<'PY'
import http.client, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

UNIT = "Deploy/systemd/modgud-bff.service"
ENV_EXAMPLE = "Config/modgud-bff.env.example"
failures = 0

def report(status, message):
    global failures
    if status == "FAIL":
        failures += 1
    print(f"{status:<4} {message}", flush=True)

def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)

# ------------------------------------------------------------- 1. syntax
def parse_unit(path):
    sections, current, problems = {}, None, []
    lines = open(path, encoding="utf-8").read().split("\n")
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text[0] in "#;":
            continue
        if text.startswith("["):
            if not text.endswith("]"):
                problems.append(f"line {number}: bad section header")
            current = text[1:-1]
            sections.setdefault(current, [])
            continue
        if current is None:
            problems.append(f"line {number}: setting outside a section")
            continue
        if "=" not in text or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", text.split("=", 1)[0].strip()):
            problems.append(f"line {number}: not Key=Value: {text!r}")
            continue
        key, value = (part.strip() for part in text.split("=", 1))
        sections[current].append((key, value))
    return sections, problems

sections, problems = parse_unit(UNIT)
for problem in problems:
    report("FAIL", f"{UNIT}: {problem}")
if not problems:
    report("OK", f"{UNIT}: syntax: sections {', '.join('[' + s + ']' for s in sections)}")
service = {}
for key, value in sections.get("Service", []):
    service.setdefault(key, []).append(value)

def last(key):
    return service.get(key, [None])[-1]

expected = {
    "DynamicUser": "yes", "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
    "NoNewPrivileges": "yes", "PrivateDevices": "yes", "ProtectKernelTunables": "yes",
    "ProtectKernelModules": "yes", "ProtectKernelLogs": "yes", "ProtectControlGroups": "yes",
    "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX", "RestrictNamespaces": "yes",
    "LockPersonality": "yes", "MemoryDenyWriteExecute": "yes", "CapabilityBoundingSet": "",
    "KillSignal": "SIGTERM", "Restart": "on-failure",
    "EnvironmentFile": "/etc/modgud-bff/modgud-bff.env",
    "ExecStart": "/usr/local/bin/modgud-bff",
    "ExecStartPre": "/usr/local/bin/modgud-bff --check-config",
}
for key, value in expected.items():
    values = service.get(key, [])
    if value in values:
        report("OK", f"{key}={value}")
    else:
        report("FAIL", f"{key}={value} missing (found {values})")
if "@system-service" in service.get("SystemCallFilter", []):
    report("OK", "SystemCallFilter=" + " / ".join(service["SystemCallFilter"]))
else:
    report("FAIL", "SystemCallFilter=@system-service missing")

binary_dir = sys.argv[1] if len(sys.argv) > 1 else next(
    (d for d in (".build/debug", ".build/release") if os.path.exists(os.path.join(d, "modgud-bff"))), None)
binary = os.path.abspath(os.path.join(binary_dir, "modgud-bff")) if binary_dir else None
simulator = os.path.abspath(os.path.join(binary_dir, "modgud-sim")) if binary_dir else None
if not binary or not os.path.exists(binary):
    report("FAIL", "no built modgud-bff (looked in .build/debug and .build/release)")
    binary = None

# --------------------------------------------------- 2. systemd-analyze
analyze = shutil.which("systemd-analyze")
if not analyze:
    report("NOTE", "systemd-analyze is not installed (Debian package: systemd); only the syntax check ran")
    print(f"{'FAIL' if failures else 'OK  '} Deploy/systemd/check.sh: {failures} failure(s)")
    sys.exit(1 if failures else 0)

version = run([analyze, "--version"]).stdout.split("\n")[0]
scratch = tempfile.mkdtemp(prefix="modgud-bff-unit.")
try:
    unit_copy = os.path.join(scratch, "modgud-bff.service")
    text = open(UNIT, encoding="utf-8").read()
    open(unit_copy, "w").write(text.replace("/usr/local/bin/modgud-bff", binary or "/bin/true"))
    verify = run([analyze, "verify", unit_copy])
    output = (verify.stdout + verify.stderr).strip()
    if verify.returncode == 0 and not output:
        report("OK", f"systemd-analyze verify ({version}): clean (ExecStart pointed at {binary})")
    else:
        report("FAIL", f"systemd-analyze verify: exit {verify.returncode}: {output}")
    security = run([analyze, "security", "--offline=true", "--no-pager", unit_copy])
    overall = [l for l in security.stdout.splitlines() if "Overall exposure level" in l]
    if security.returncode == 0 and overall:
        report("OK", "systemd-analyze security --offline=true: " + overall[-1].split(":", 1)[1].strip())
        for line in security.stdout.splitlines():
            if line.startswith("✗"):
                report("NOTE", "  not set: " + re.sub(r"\s{2,}", " — ", line[1:].strip()))
    else:
        report("WARN", f"systemd-analyze security --offline=true: exit {security.returncode} {security.stderr.strip()[:200]}")
finally:
    shutil.rmtree(scratch, ignore_errors=True)

# ----------------------------------------- 3. the binary and the env file
def read_environment_file(path):
    """As systemd reads an EnvironmentFile: KEY=VALUE lines, # and ; comments,
    quotes around a whole value, backslash escapes, trailing blanks dropped."""
    result = {}
    for raw in open(path, encoding="utf-8").read().split("\n"):
        line = raw.strip()
        if not line or line[0] in "#;" or "=" not in line:
            continue
        key, value = line.split("=", 1)
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            inner = value[1:-1]
            value = re.sub(r"\\(.)", r"\1", inner) if value[0] == '"' else inner
        else:
            value = re.sub(r"\\(.)", r"\1", value)
        result[key] = value
    return result

example = read_environment_file(ENV_EXAMPLE)
if binary:
    help_text = run([binary, "--help"]).stdout
    report("OK" if "--check-config" in help_text else "FAIL", "modgud-bff --help lists --check-config (used by ExecStartPre)")
    check = run([binary, "--check-config"], env={"PATH": "/usr/bin:/bin", **example})
    if check.returncode == 0:
        report("OK", f"{ENV_EXAMPLE} ({len(example)} settings, read as an EnvironmentFile) passes --check-config")
    else:
        report("FAIL", f"{ENV_EXAMPLE} refused by --check-config: " + " | ".join(check.stderr.strip().splitlines()))

def seconds(text):
    match = re.fullmatch(r"(\d+)\s*(ms|s|min|m)?", text or "")
    if not match:
        return None
    value, unit = int(match.group(1)), match.group(2) or "s"
    return value / 1000 if unit == "ms" else value * 60 if unit in ("min", "m") else value

stop = seconds(last("TimeoutStopSec"))
drain = int(example.get("BFF_SHUTDOWN_TIMEOUT_MS", "15000")) / 1000
if stop is not None and stop > drain:
    report("OK", f"TimeoutStopSec {stop:g}s > BFF_SHUTDOWN_TIMEOUT_MS {drain:g}s")
else:
    report("FAIL", f"TimeoutStopSec {last('TimeoutStopSec')} must exceed BFF_SHUTDOWN_TIMEOUT_MS {drain:g}s")
modgud_timeout = int(example.get("BFF_MODGUD_TIMEOUT_MS", "10000")) / 1000
if stop is not None and stop > modgud_timeout + 5:
    report("OK", f"TimeoutStopSec {stop:g}s leaves room for BFF_SHUTDOWN_TIMEOUT_MS >= BFF_MODGUD_TIMEOUT_MS + 5s ({modgud_timeout + 5:g}s)")
else:
    report("FAIL", f"TimeoutStopSec {last('TimeoutStopSec')} must exceed BFF_MODGUD_TIMEOUT_MS + 5s ({modgud_timeout + 5:g}s)")
if drain < modgud_timeout + 5:
    report("WARN", f"{ENV_EXAMPLE}: BFF_SHUTDOWN_TIMEOUT_MS {drain:g}s < BFF_MODGUD_TIMEOUT_MS {modgud_timeout:g}s + 5s; "
                   "set 15000 in production (Docs/operations.md, Upgrades)")
connections = int(example.get("BFF_MAX_CONNECTIONS", "16384"))
nofile = int((last("LimitNOFILE") or "0").split(":")[-1])
if nofile >= 2 * connections + 1024:
    report("OK", f"LimitNOFILE {nofile} >= 2 x BFF_MAX_CONNECTIONS ({connections}) + 1024")
else:
    report("FAIL", f"LimitNOFILE {nofile} < 2 x BFF_MAX_CONNECTIONS ({connections}) + 1024")

# -------------------------------------------- 4. sandbox smoke test
def skip(reason):
    report("SKIP", f"sandbox smoke test: {reason}")

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

class UnixConnection(http.client.HTTPConnection):
    """HTTP over the gateway's Unix socket, as nginx reaches it."""
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)

def request(port, method, path, body=None, cookie=None):
    """`port` is a TCP port on 127.0.0.1 or a Unix socket's path."""
    connection = (UnixConnection(port, timeout=10) if isinstance(port, str)
                  else http.client.HTTPConnection("127.0.0.1", port, timeout=10))
    headers = {"X-CSRF": "1"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if cookie:
        headers["Cookie"] = cookie
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, response.getheader("Set-Cookie"), data

def traced_child(process):
    """strace runs the gateway as its child; signals must go to that child
    (strace itself detaches on SIGTERM and leaves the gateway running)."""
    try:
        with open(f"/proc/{process.pid}/task/{process.pid}/children") as children:
            pids = [int(p) for p in children.read().split()]
        return pids[0] if pids else None
    except OSError:
        return None

def stop_gateway(process):
    target = traced_child(process) if tools["strace"] else None
    try:
        os.kill(target or process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass

def expand_filter(group, seen=None):
    seen = seen if seen is not None else set()
    result = set()
    for line in run([analyze, "syscall-filter", group]).stdout.splitlines()[1:]:
        token = line.strip().split(" ")[0] if line.strip() else ""
        if not token or token.startswith("#"):
            continue
        if token.startswith("@"):
            if token not in seen:
                seen.add(token)
                result |= expand_filter(token, seen)
        else:
            result.add(token)
    return result

tools = {name: shutil.which(name) for name in ("cc", "redis-server", "setpriv", "strace")}
if not binary or not simulator or not os.path.exists(simulator):
    skip("modgud-bff and modgud-sim must both be built")
elif not tools["cc"] or not tools["redis-server"]:
    skip("needs a C compiler and redis-server")
else:
    work = tempfile.mkdtemp(prefix="modgud-bff-sandbox.")
    processes = []
    try:
        source = os.path.join(work, "mdwe.c")
        open(source, "w").write(
            "#include <stdio.h>\n#include <sys/prctl.h>\n#include <unistd.h>\n"
            "int main(int c, char **v) {\n"
            "  if (c < 2) return 2;\n"
            "  if (prctl(65 /* PR_SET_MDWE */, 1 /* PR_MDWE_REFUSE_EXEC_GAIN */, 0L, 0L, 0L) != 0) { perror(\"PR_SET_MDWE\"); return 3; }\n"
            "  execv(v[1], v + 1); perror(\"execv\"); return 4;\n}\n")
        mdwe = os.path.join(work, "mdwe-exec")
        compiled = run([tools["cc"], "-O2", "-o", mdwe, source])
        os.chmod(work, 0o755)
        probe = run([mdwe, "/bin/true"]) if compiled.returncode == 0 else compiled
        if probe.returncode != 0:
            skip(f"this kernel has no PR_SET_MDWE (Linux >= 6.3): {probe.stderr.strip()}")
            raise StopIteration
        redis_port, sim_port, admin = free_port(), free_port(), free_port()
        # The public listener as the unit has it: a Unix socket, in a
        # directory of the gateway's user (RuntimeDirectory= in the unit).
        runtime = os.path.join(work, "run")
        os.mkdir(runtime, 0o750)
        if os.geteuid() == 0:
            os.chown(runtime, 65534, 65534)
        public = os.path.join(runtime, "public.sock")
        processes.append(subprocess.Popen(
            [tools["redis-server"], "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        processes.append(subprocess.Popen(
            [simulator, "--listen", f"127.0.0.1:{sim_port}", "--jitter-ms", "0", "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        environment = {"PATH": "/usr/bin:/bin", **example,
                       "BFF_LISTEN": f"unix:{public}", "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin}",
                       "BFF_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
                       "BFF_MODGUD_URL": f"http://127.0.0.1:{sim_port}",
                       "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "bff-secret",
                       "BFF_ROUTES": json.dumps([{"prefix": "/api/", "upstream": f"http://127.0.0.1:{sim_port}/",
                                                  "token": "user"}]),
                       # every use of the access token refreshes it: exercises the lock and pub/sub
                       "BFF_REFRESH_SKEW_S": "3600"}
        command = [mdwe, binary]
        sandbox = ["MemoryDenyWriteExecute (PR_SET_MDWE)"]
        if os.geteuid() == 0 and tools["setpriv"]:
            command = [tools["setpriv"], "--reuid=65534", "--regid=65534", "--clear-groups",
                       "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"] + command
            sandbox = ["uid 65534", "no capabilities", "no_new_privs"] + sandbox
        trace = os.path.join(work, "strace.txt")
        if tools["strace"]:
            command = [tools["strace"], "-f", "-qq", "-o", trace] + command
        log = open(os.path.join(work, "gateway.log"), "w")
        gateway = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT)
        processes.append(gateway)
        for _ in range(100):
            time.sleep(0.1)
            try:
                if request(admin, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
        steps = []
        email = "sandbox@example.com"
        steps.append(("otp/request", request(public, "POST", "/bff/otp/request", {"email": email})[0]))
        sim = http.client.HTTPConnection("127.0.0.1", sim_port, timeout=10)
        sim.request("GET", f"/dev/mailbox?email={email}")
        code = json.loads(sim.getresponse().read())[-1]["code"]
        status, set_cookie, _ = request(public, "POST", "/bff/otp/redeem", {"email": email, "code": code})
        steps.append(("otp/redeem", status))
        cookie = set_cookie.split(";", 1)[0] if set_cookie else None
        steps.append(("/api/ (refresh + proxy)", request(public, "GET", "/api/connect/userinfo", cookie=cookie)[0]))
        steps.append(("/api/ again", request(public, "GET", "/api/connect/userinfo", cookie=cookie)[0]))
        steps.append(("bff/user", request(public, "GET", "/bff/user", cookie=cookie)[0]))
        steps.append(("bff/logout", request(public, "POST", "/bff/logout", cookie=cookie)[0]))
        steps.append(("metrics", request(admin, "GET", "/metrics")[0]))
        refreshes = [l for l in request(admin, "GET", "/metrics")[2].decode().splitlines()
                     if l.startswith("bff_refresh_total")]
        stop_gateway(gateway)
        gateway.wait(timeout=20)
        log.close()
        wanted = {"otp/request": 200, "otp/redeem": 200, "/api/ (refresh + proxy)": 200, "/api/ again": 200,
                  "bff/user": 200, "bff/logout": 204, "metrics": 200}
        summary = ", ".join(f"{name} {status}" for name, status in steps)
        if all(status == wanted[name] for name, status in steps):
            report("OK", f"sandbox smoke test ({', '.join(sandbox)}): {summary}; {' '.join(refreshes) or 'no refresh metric'}")
        else:
            tail = open(os.path.join(work, "gateway.log")).read().strip().splitlines()[-5:]
            report("FAIL", f"sandbox smoke test ({', '.join(sandbox)}): {summary}; log: {' | '.join(tail)}")
        if tools["strace"] and os.path.exists(trace):
            # Count only what the gateway did: the lines after its execve
            # (setpriv and the MDWE helper run before it, in the same process).
            used, started = set(), False
            for line in open(trace, errors="replace"):
                match = re.match(r"\d+\s+([a-z_0-9]+)\(", line)
                if not match:
                    continue
                if not started:
                    started = match.group(1) == "execve" and f'"{binary}"' in line and line.rstrip().endswith("= 0")
                    continue
                used.add(match.group(1))
            allowed = expand_filter("@system-service") - expand_filter("@privileged")
            outside = sorted(used - allowed)
            if not used:
                report("FAIL", "strace: the gateway's execve was not found in the trace")
            elif not outside:
                report("OK", f"strace: all {len(used)} system calls the gateway made are in @system-service minus @privileged")
            else:
                report("FAIL", f"strace: system calls outside @system-service minus @privileged: {', '.join(outside)}")
        else:
            report("SKIP", "strace not installed: system calls not compared with SystemCallFilter")
    except StopIteration:
        pass
    finally:
        if "gateway" in locals() and gateway.poll() is None:
            stop_gateway(gateway)
        for process in reversed(processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        shutil.rmtree(work, ignore_errors=True)

print(f"{'FAIL' if failures else 'OK  '} Deploy/systemd/check.sh: {failures} failure(s)")
sys.exit(1 if failures else 0)
PY
