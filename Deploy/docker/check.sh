#!/usr/bin/env bash
# Checks Deploy/docker/ without Docker (no daemon, no image pulls):
#   1. the runtime stage's package list covers every shared library `ldd`
#      reports for the built binaries (each .so mapped to its Debian package
#      with `dpkg -S`; a package counts as covered when the Dockerfile names
#      it or a named package depends on it); Swift runtime libraries must be
#      linked in by --static-swift-stdlib instead;
#   2. the Dockerfile parses and has what the image promises (stages,
#      COPY sources, non-root USER, HEALTHCHECK, EXPOSE, ENTRYPOINT,
#      STOPSIGNAL); the health-check script works against a live gateway;
#   3. compose.yaml parses (python3 yaml), refers to files and stages that
#      exist, trusts exactly the nginx address (or listens on a socket only
#      nginx shares, trusting none), and its gateway settings
#      pass `modgud-bff --check-config`.
# hadolint is not available here, so there is no style lint.
# Usage: Deploy/docker/check.sh [BINARY_DIR...]   (default: .build/debug and
# .build/release, whichever hold modgud-bff). Prints OK/FAIL/WARN/NOTE lines;
# exits 1 if any line is FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec python3 - "$@" <<'PY'
import json, os, re, shlex, signal, socket, subprocess, sys, tempfile, time

ROOT = os.getcwd()
DOCKERFILE = "Deploy/docker/Dockerfile"
COMPOSE = "Deploy/docker/compose.yaml"
HEALTHCHECK = "Deploy/docker/healthcheck.sh"
failures = 0

def report(status, message):
    global failures
    if status == "FAIL":
        failures += 1
    print(f"{status:<4} {message}", flush=True)

def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)

# ---------------------------------------------------------------- Dockerfile
KNOWN = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME",
         "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "MAINTAINER"}

def parse_dockerfile(path):
    """Instructions as (line, KEYWORD, rest), continuation lines joined."""
    instructions, buffer, start = [], "", 0
    for number, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.rstrip("\n")
        if not buffer and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if buffer and line.lstrip().startswith("#"):
            continue  # comment inside a continued instruction
        if not buffer:
            start = number
        if line.endswith("\\"):
            buffer += line[:-1] + " "
            continue
        buffer += line
        keyword, _, rest = buffer.strip().partition(" ")
        instructions.append((start, keyword.upper(), rest.strip()))
        buffer = ""
    if buffer:
        raise ValueError(f"line {start}: continuation runs past the end of the file")
    return instructions

def stages_of(instructions):
    args, stages, current = {}, [], None
    for line, keyword, rest in instructions:
        if keyword == "ARG" and current is None:
            name, _, value = rest.partition("=")
            args[name.strip()] = value.strip()
        elif keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), words[0])
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            current = {"line": line, "image": image, "name": name, "body": []}
            stages.append(current)
        elif current is not None:
            current["body"].append((line, keyword, rest))
    return args, stages

def apt_packages(stage):
    packages = []
    for _, keyword, rest in stage["body"]:
        if keyword != "RUN":
            continue
        for segment in re.split(r"&&|;|\|\|", rest):
            words = segment.split()
            for i in range(len(words) - 1):
                if words[i] in ("apt-get", "apt") and words[i + 1] == "install":
                    packages += [w for w in words[i + 2:] if not w.startswith("-") and "=" not in w]
    return packages

def chain(stages, name):
    """The stage called `name` and the stages it is built FROM, nearest first."""
    by_name = {s["name"]: s for s in stages if s["name"]}
    result, stage = [], by_name.get(name)
    while stage is not None:
        result.append(stage)
        stage = by_name.get(stage["image"])
    return result

try:
    instructions = parse_dockerfile(DOCKERFILE)
    args, stages = stages_of(instructions)
    unknown = [(l, k) for l, k, _ in instructions if k not in KNOWN]
    if unknown:
        report("FAIL", f"Dockerfile: unknown instructions {unknown}")
    else:
        report("OK", f"Dockerfile parses: {len(instructions)} instructions, stages "
                     + ", ".join(s["name"] or "?" for s in stages))
except (OSError, ValueError, IndexError) as error:
    report("FAIL", f"Dockerfile does not parse: {error}")
    stages, args, instructions = [], {}, []

names = {s["name"] for s in stages}
for stage in stages:
    for line, keyword, rest in stage["body"]:
        if keyword in ("COPY", "ADD"):
            words = rest.split()
            source_stage = next((w.split("=", 1)[1] for w in words if w.startswith("--from=")), None)
            if source_stage is not None:
                if source_stage not in names:
                    report("FAIL", f"Dockerfile:{line}: COPY --from={source_stage}: no such stage")
                continue
            sources = [w for w in words if not w.startswith("--")][:-1]
            missing = [s for s in sources if not os.path.exists(os.path.join(ROOT, s))]
            if missing:
                report("FAIL", f"Dockerfile:{line}: COPY source missing in the build context: {missing}")
for image_arg in ("SWIFT_IMAGE", "RUNTIME_IMAGE"):
    value = args.get(image_arg, "")
    if "bookworm" in value:
        report("OK", f"Dockerfile: {image_arg}={value} (Debian 12, the release this check maps packages on)")
    else:
        report("FAIL", f"Dockerfile: {image_arg}={value!r} is not a bookworm image")

def final_stage_checks(stage_name, binary):
    stage_chain = chain(stages, stage_name)
    if not stage_chain:
        report("FAIL", f"Dockerfile: no stage {stage_name}")
        return
    body = [item for stage in reversed(stage_chain) for item in stage["body"]]
    keywords = {}
    for line, keyword, rest in body:
        keywords.setdefault(keyword, []).append(rest)
    users = keywords.get("USER", [])
    if users and users[-1].split(":")[0] not in ("0", "root"):
        report("OK", f"{stage_name}: runs as USER {users[-1]}")
    else:
        report("FAIL", f"{stage_name}: no non-root USER")
    entry = keywords.get("ENTRYPOINT", [None])[-1]
    try:
        entry_args = json.loads(entry) if entry else None
    except json.JSONDecodeError:
        entry_args = None
    if entry_args and entry_args[0].endswith("/" + binary):
        report("OK", f"{stage_name}: ENTRYPOINT {entry_args} (exec form)")
    else:
        report("FAIL", f"{stage_name}: ENTRYPOINT missing or not exec form: {entry!r}")
    if keywords.get("STOPSIGNAL", [""])[-1] == "SIGTERM":
        report("OK", f"{stage_name}: STOPSIGNAL SIGTERM")
    else:
        report("FAIL", f"{stage_name}: STOPSIGNAL SIGTERM missing")
    return keywords

gateway_keywords = final_stage_checks("gateway", "modgud-bff") or {}
final_stage_checks("simulator", "modgud-sim")
if stages and stages[-1]["name"] == "gateway":
    report("OK", "Dockerfile: the last stage is gateway, so a plain `docker build` builds the gateway")
else:
    report("FAIL", "Dockerfile: the last stage should be gateway")

health = gateway_keywords.get("HEALTHCHECK", [])
if health and "CMD" in health[-1]:
    report("OK", f"gateway: HEALTHCHECK {health[-1].split('CMD', 1)[1].strip()}")
else:
    report("FAIL", "gateway: no HEALTHCHECK")
env_text = " ".join(gateway_keywords.get("ENV", []))
env_ports = set(re.findall(r"BFF_(?:ADMIN_)?LISTEN=\S*:(\d+)", env_text))
exposed = set(" ".join(gateway_keywords.get("EXPOSE", [])).split())
if env_ports and env_ports == exposed:
    report("OK", f"gateway: EXPOSE {' '.join(sorted(exposed))} matches BFF_LISTEN/BFF_ADMIN_LISTEN")
else:
    report("FAIL", f"gateway: EXPOSE {sorted(exposed)} vs listen ports {sorted(env_ports)}")

def build_flags(stage_name):
    stage = next((s for s in stages if s["name"] == stage_name), None)
    return " ".join(rest for _, k, rest in stage["body"] if k == "RUN") if stage else ""

# ------------------------------------------------ runtime libraries vs ldd
runtime = chain(stages, "gateway")
named = []
for stage in runtime:
    named += apt_packages(stage)
named = sorted(set(named))
report("NOTE", "runtime packages named in the Dockerfile: " + " ".join(named))

def installed_depends(package, seen):
    """Depends + Pre-Depends of an installed package, recursively."""
    if package in seen:
        return
    seen.add(package)
    result = run(["dpkg-query", "-W", "-f=${Depends}, ${Pre-Depends}", package])
    if result.returncode != 0:
        return
    for clause in result.stdout.split(","):
        for alternative in clause.split("|"):
            name = alternative.strip().split(" ")[0].split(":")[0]
            if name and run(["dpkg-query", "-W", name]).returncode == 0:
                installed_depends(name, seen)
                break

covered_by = {}
for package in sorted(named, key=lambda p: p == "ca-certificates"):  # name a library package first
    closure = set()
    installed_depends(package, closure)
    for dependency in closure:
        covered_by.setdefault(dependency, package)
missing_named = [p for p in named if run(["dpkg-query", "-W", p]).returncode != 0]
if missing_named:
    report("WARN", "not installed on this host, so their dependencies are not followed: " + " ".join(missing_named))
if "ca-certificates" in named:
    report("OK", "ca-certificates is installed (TLS to Modgud and https upstreams)")
else:
    report("FAIL", "ca-certificates missing from the runtime stage")

try:
    release = open("/etc/os-release").read()
    if "bookworm" not in release:
        report("WARN", "this host is not Debian 12: the package mapping may differ from the image's")
except OSError:
    pass

def package_of(path):
    candidates = [path, os.path.realpath(path)]
    for candidate in list(candidates):
        for a, b in (("/lib/", "/usr/lib/"), ("/usr/lib/", "/lib/"), ("/lib64/", "/usr/lib64/")):
            if candidate.startswith(a):
                candidates.append(b + candidate[len(a):])
    for candidate in candidates:
        result = run(["dpkg", "-S", candidate])
        if result.returncode == 0:
            return result.stdout.split(":")[0].strip()
    return None

binary_dirs = sys.argv[1:] or [d for d in (".build/debug", ".build/release")
                               if os.path.exists(os.path.join(d, "modgud-bff"))]
products = {"modgud-bff": "build-bff", "modgud-sim": "build-sim"}
needed_packages = set()
for directory in binary_dirs:
    for product, build_stage in products.items():
        binary = os.path.join(directory, product)
        if not os.path.exists(binary):
            report("WARN", f"{binary} not built; skipped")
            continue
        result = run(["ldd", binary])
        if result.returncode != 0:
            report("FAIL", f"ldd {binary}: {result.stderr.strip()}")
            continue
        swift_libs, unmapped, packages = [], [], {}
        for line in result.stdout.splitlines():
            match = re.match(r"\s*(\S+)\s*(?:=>\s*(\S+))?", line)
            if not match:
                continue
            soname, path = match.group(1), match.group(2) or match.group(1)
            if soname.startswith("linux-vdso") or path == "not":
                if path == "not":
                    report("FAIL", f"{binary}: {soname} not found")
                continue
            if "/swift/" in path or path.startswith("/opt/swift"):
                swift_libs.append(soname)
                continue
            package = package_of(path)
            if package is None:
                unmapped.append(path)
            else:
                packages.setdefault(package, []).append(soname)
        if swift_libs:
            if "--static-swift-stdlib" in build_flags(build_stage):
                report("OK", f"{binary}: {len(swift_libs)} Swift runtime libraries from the toolchain "
                             f"({', '.join(sorted(swift_libs)[:4])}, …) are linked in by --static-swift-stdlib in {build_stage}")
            else:
                report("FAIL", f"{binary}: needs the Swift runtime ({len(swift_libs)} libraries) but {build_stage} "
                               "does not use --static-swift-stdlib and the runtime stage has no toolchain")
        for path in unmapped:
            report("FAIL", f"{binary}: {path} belongs to no Debian package")
        for package, sonames in sorted(packages.items()):
            needed_packages.add(package)
            if package in named:
                how = "named in the Dockerfile"
            elif package in covered_by:
                how = f"pulled in by {covered_by[package]}"
            else:
                report("FAIL", f"{binary}: {', '.join(sonames)} from {package}: not installed by the runtime stage")
                continue
            report("OK", f"{binary}: {', '.join(sonames)} -> {package} ({how})")
if not binary_dirs:
    report("FAIL", "no built modgud-bff found (looked in .build/debug and .build/release)")
for package in named:
    if package != "ca-certificates" and needed_packages and package not in needed_packages:
        report("WARN", f"runtime package {package} provides no library the binaries load")

# ------------------------------------------------------ health-check script
syntax = run(["bash", "-n", HEALTHCHECK])
report("OK" if syntax.returncode == 0 else "FAIL", f"{HEALTHCHECK}: bash -n {syntax.stderr.strip() or 'clean'}")

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

gateway_binary = next((os.path.join(d, "modgud-bff") for d in binary_dirs
                       if os.path.exists(os.path.join(d, "modgud-bff"))), None)
if gateway_binary:
    public, admin = free_port(), free_port()
    environment = {"PATH": "/usr/bin:/bin", "BFF_LISTEN": f"127.0.0.1:{public}",
                   "BFF_ADMIN_LISTEN": f"0.0.0.0:{admin}", "BFF_REDIS_URL": "redis://127.0.0.1:1/0"}
    process = subprocess.Popen([gateway_binary], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        status = None
        for _ in range(50):
            time.sleep(0.1)
            status = run([HEALTHCHECK], env=environment).returncode
            if status == 0:
                break
        report("OK" if status == 0 else "FAIL",
               f"{HEALTHCHECK} against a live {gateway_binary} (admin 0.0.0.0:{admin}): exit {status}")
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)
        closed = run([HEALTHCHECK], env=environment).returncode
        report("OK" if closed != 0 else "FAIL", f"{HEALTHCHECK} after SIGTERM: exit {closed} (unhealthy, as it should be)")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

# ------------------------------------------------------------------ compose
try:
    import yaml
except ImportError:
    yaml = None
    report("FAIL", "python3 yaml module missing: compose.yaml not checked")
if yaml:
    try:
        compose = yaml.safe_load(open(COMPOSE, encoding="utf-8"))
        services = compose["services"]
        report("OK", f"compose.yaml parses: services {', '.join(services)}")
    except Exception as error:  # noqa: BLE001 - report any parse problem
        report("FAIL", f"compose.yaml does not parse: {error}")
        services = {}
    base = os.path.dirname(COMPOSE)
    for wanted in ("redis", "gateway", "modgud-sim", "nginx"):
        if wanted not in services:
            report("FAIL", f"compose.yaml: no service {wanted}")
    for name, service in services.items():
        build = service.get("build")
        if isinstance(build, dict):
            context = os.path.normpath(os.path.join(base, build.get("context", ".")))
            dockerfile = os.path.join(context, build.get("dockerfile", "Dockerfile"))
            target = build.get("target")
            ok = os.path.isdir(context) and os.path.isfile(dockerfile) and (target is None or target in names)
            report("OK" if ok else "FAIL", f"compose.yaml: {name} builds {os.path.relpath(dockerfile)} target {target}")
        for volume in service.get("volumes", []):
            source = volume.split(":")[0] if isinstance(volume, str) else ""
            if source.startswith("."):
                path = os.path.normpath(os.path.join(base, source))
                if os.path.exists(path):
                    report("OK", f"compose.yaml: {name} mounts {os.path.relpath(path)}")
                else:
                    report("WARN", f"compose.yaml: {name} mounts {os.path.relpath(path)}, which does not exist yet")
    sim = services.get("modgud-sim", {})
    if str(sim.get("labels", {}).get("org.example.never-for-production")) == "true":
        report("OK", "compose.yaml: modgud-sim is labelled never-for-production")
    else:
        report("FAIL", "compose.yaml: modgud-sim is not labelled never-for-production")

    gateway = services.get("gateway", {})
    env = {k: str(v) for k, v in (gateway.get("environment") or {}).items()}
    nginx_address = (((services.get("nginx") or {}).get("networks") or {}).get("edge") or {}).get("ipv4_address")
    trusted = env.get("BFF_TRUSTED_PROXIES", "")
    listen = env.get("BFF_LISTEN", "")
    nginx_volumes = " ".join(str(v) for v in (services.get("nginx") or {}).get("volumes", []))
    if listen.startswith("unix:") and not trusted:
        shared = os.path.dirname(listen[len("unix:"):])
        volume = next((str(v).split(":")[0] for v in gateway.get("volumes", []) if str(v).endswith(":" + shared)), None)
        if volume and f"{volume}:{shared}" in nginx_volumes:
            report("OK", f"compose.yaml: the gateway listens on {listen} in volume {volume}, shared with nginx only; "
                   "BFF_TRUSTED_PROXIES is empty")
        else:
            report("FAIL", f"compose.yaml: {listen} is not in a volume nginx mounts at {shared}")
    elif nginx_address and trusted in (nginx_address, nginx_address + "/32"):
        report("OK", f"compose.yaml: BFF_TRUSTED_PROXIES={trusted} is exactly nginx's address")
    else:
        report("FAIL", f"compose.yaml: BFF_TRUSTED_PROXIES={trusted!r} vs nginx address {nginx_address!r}")

    def seconds(text):
        match = re.fullmatch(r"(\d+)(ms|s|m)?", str(text))
        if not match:
            return None
        value = int(match.group(1))
        return value / 1000 if match.group(2) == "ms" else value * 60 if match.group(2) == "m" else value

    grace = seconds(gateway.get("stop_grace_period", "10s"))
    drain = int(env.get("BFF_SHUTDOWN_TIMEOUT_MS", "15000")) / 1000
    if grace is not None and grace > drain:
        report("OK", f"compose.yaml: stop_grace_period {grace:g}s > BFF_SHUTDOWN_TIMEOUT_MS {drain:g}s")
    else:
        report("FAIL", f"compose.yaml: stop_grace_period {grace} must exceed BFF_SHUTDOWN_TIMEOUT_MS {drain:g}s")

    modgud_timeout = int(env.get("BFF_MODGUD_TIMEOUT_MS", "10000")) / 1000
    if drain >= modgud_timeout + 5:
        report("OK", f"compose.yaml: BFF_SHUTDOWN_TIMEOUT_MS {drain:g}s >= BFF_MODGUD_TIMEOUT_MS {modgud_timeout:g}s + 5s")
    else:
        report("FAIL", f"compose.yaml: BFF_SHUTDOWN_TIMEOUT_MS {drain:g}s < BFF_MODGUD_TIMEOUT_MS {modgud_timeout:g}s + 5s: "
                       "a refresh in flight may be cut off by the drain")

    def interpolate(value):
        return re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: os.environ.get(m.group(1), m.group(2)), value)

    if gateway_binary and env:
        settings = {k: interpolate(v) for k, v in env.items()}
        socket_dir = None
        if settings.get("BFF_LISTEN", "").startswith("unix:"):
            # The image makes the socket's directory; here a temporary one stands in.
            socket_dir = tempfile.mkdtemp(prefix="modgud-bff-socket.")
            settings["BFF_LISTEN"] = f"unix:{socket_dir}/{os.path.basename(settings['BFF_LISTEN'])}"
        result = run([gateway_binary, "--check-config"], env={"PATH": "/usr/bin:/bin", **settings})
        if socket_dir:
            os.rmdir(socket_dir)
        if result.returncode == 0:
            report("OK", f"compose.yaml: the gateway's {len(settings)} settings pass modgud-bff --check-config")
        else:
            report("FAIL", "compose.yaml: modgud-bff --check-config refuses the gateway settings: "
                   + " | ".join(result.stderr.strip().splitlines()))

print(f"{'FAIL' if failures else 'OK  '} Deploy/docker/check.sh: {failures} failure(s)")
sys.exit(1 if failures else 0)
PY
