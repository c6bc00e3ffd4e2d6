"""Runs the benchmark scripts one after another and regenerates their tables
in Docs/benchmarks.md.

Each script's output (stdout and stderr) is captured whole to a log. From
it the runner keeps the markdown tables (lines starting with `|`), the
lines marked as a result (`RESULT:` anywhere, or a script's own summary
lines, see RESULT_LINES below) and, for the two Swift-test benchmarks and
the refresh race whose output is plain text, a table made from their
figures. That block replaces what stands between

    <!-- bench:NAME:start -->  and  <!-- bench:NAME:end -->

in Docs/benchmarks.md, headed by a line with the date, the machine and the
exact command. Everything outside the markers is left as it is. A
benchmark that exits non-zero, or prints no table, leaves its block alone,
and the runner exits non-zero.

Usage: Tests/Benchmarks/all.sh [--only name,name] [--seconds N] [--no-doc]
                               [--doc PATH] [--logs DIR] [--list]
  --only     run these benchmarks only (names: see --list)
  --seconds  a quick run: N seconds per load run for the timed benchmarks,
             request counts scaled down to match for the others
  --no-doc   run and show the blocks, leave the document alone
  --doc      the document to update (default Docs/benchmarks.md)
  --logs     where the logs go (default /tmp/bench-all-<UTC time>)
Environment: BENCH_SCRATCH (release builds, default /tmp/build-bench),
BENCH_TEST_SCRATCH (release test builds of the Swift-test benchmarks,
default /tmp/build-bench-test; kept apart from BENCH_SCRATCH because test
builds compile every module with testability on, so sharing one directory
would rebuild everything at each switch).
"""
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "Docs" / "benchmarks.md"


def scaled(default: int, per_second: int, minimum: int):
    """Argument for a count-based benchmark: `default` in a full run,
    `per_second * N` (at least `minimum`) with --seconds N."""
    return lambda seconds: str(default if seconds is None else max(minimum, per_second * seconds))


def timed(default: int):
    return lambda seconds: str(default if seconds is None else seconds)


# name -> script, argument (from --seconds), environment it reads, parser, aliases.
BENCHES = {
    "core": dict(script="core.sh", arg=timed(20), env=["BENCH_SCRATCH"], parse="tables", bullets=True),
    "sessions": dict(script="sessions_bench.sh", arg=scaled(30000, 3000, 2000), env=["SCRATCH"],
                     parse="sessions", aliases=["sessions_bench"]),
    "redis": dict(script="redis_bench.sh", arg=scaled(20000, 2000, 2000), env=["SCRATCH_PATH"],
                  parse="redis", aliases=["redis_bench"]),
    "signin": dict(script="signin.sh", arg=scaled(300, 30, 30), env=[], parse="tables"),
    "callback": dict(script="callback.sh", arg=scaled(300, 30, 30), env=["BENCH_SCRATCH"], parse="tables"),
    "crossplace": dict(script="crossplace.sh", arg=scaled(200, 20, 20), env=["BENCH_SCRATCH"], parse="tables"),
    "proxy": dict(script="proxy.sh", arg=timed(36), env=["BENCH_SCRATCH"], parse="tables"),
    "refresh_race": dict(script="refresh_race.sh", arg=scaled(20, 1, 2), env=["BENCH_SCRATCH"],
                         parse="refresh_race", aliases=["refresh"]),
    "ratelimit": dict(script="ratelimit_kit.sh", arg=timed(60), env=["BENCH_SCRATCH"], parse="tables",
                      bullets=True, aliases=["ratelimit_kit"]),
}

# Lines a script prints as its verdict, kept beside the tables.
RESULT_LINES = re.compile(
    r"^(?:RESULT:|WARNING\b|FAILED:|double redemptions:|non-200 answers:|fidelity:|retries:|throughput:"
    r"|errors other than 429:|\s*added over a bare GET)")
MARKER = "<!-- bench:{name}:{edge} -->"


# --- extraction -------------------------------------------------------------

def strip_result(line: str) -> str:
    line = line.strip()
    return line[len("RESULT:"):].strip() if line.startswith("RESULT:") else line


def render(parts: list[tuple[str, list[str]]]) -> list[str]:
    """`parts`: ("table", lines) / ("results", lines) / ("label", [text]),
    joined with blank lines; results become a bullet list."""
    out: list[str] = []
    for kind, lines in parts:
        if out:
            out.append("")
        if kind == "results":
            out += [f"- {line}" for line in lines]
        elif kind == "label":
            out += [f"**{lines[0]}**"]
        else:
            out += lines
    return out


def extract_tables(text: str, bullets: bool = False) -> tuple[list[str], int]:
    """Tables, result lines (and with `bullets`, the script's `- ` lines and
    `## ` sub-headings, as labels) in the order printed. Returns the block
    and how many tables it holds."""
    parts: list[tuple[str, list[str]]] = []
    tables = 0
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("|"):
            if parts and parts[-1][0] == "table" and parts[-1][2]:
                parts[-1][1].append(line)
            else:
                parts.append(("table", [line], True))
                tables += 1
            continue
        if parts and parts[-1][0] == "table":
            parts[-1] = ("table", parts[-1][1], False)  # closed: a later table starts anew
        if RESULT_LINES.match(line) or "RESULT:" in line:
            item = strip_result(line)
        elif bullets and line.startswith("## "):
            parts.append(("label", [line[3:].strip()], False))
            continue
        elif bullets and re.match(r"^\s*- ", line):
            item = line.strip()[2:]
        else:
            continue
        if parts and parts[-1][0] == "results":
            parts[-1][1].append(item)
        else:
            parts.append(("results", [item], False))
    return render([(kind, lines) for kind, lines, _ in parts]), tables


def extract_sessions(text: str) -> tuple[list[str], int]:
    """SessionsTests.SessionBenchmark prints `  <label>  p50 X µs  p99 Y µs`
    rows under a `session load per request: ...` line."""
    rows, notes, results = [], [], []
    for line in text.splitlines():
        m = re.match(r"^\s+(.+?)\s+p50\s+([\d.]+) µs\s+p99\s+([\d.]+) µs\s*$", line)
        if m:
            rows.append(f"| {m.group(1).strip()} | {m.group(2)} µs | {m.group(3)} µs |")
        elif line.startswith("session load per request:"):
            notes.append(line.strip())
        elif RESULT_LINES.match(line):
            results.append(strip_result(line))
    if not rows:
        return [], 0
    parts = [("results", notes)] if notes else []
    parts += [("table", ["| | p50 | p99 |", "|---|---|---|"] + rows)]
    parts += [("results", results)] if results else []
    return render(parts), 1


def extract_redis(text: str) -> tuple[list[str], int]:
    """RedisTests.BenchmarkTests prints `  <label>: <figures>` lines under a
    `redis GET round trip, ...` line."""
    rows, notes = [], []
    for line in text.splitlines():
        if line.startswith("redis GET round trip"):
            notes.append(line.strip())
            continue
        m = re.match(r"^\s+((?:RedisClient|redis-benchmark)[^:]*):\s+(.*\S)\s*$", line)
        if m:
            figures = re.sub(r"\s{2,}", ", ", m.group(2))
            rows.append(f"| {m.group(1)} | {figures} |")
    if not rows:
        return [], 0
    parts = [("results", notes)] if notes else []
    parts += [("table", ["| | result |", "|---|---|"] + rows)]
    return render(parts), 1


def extract_refresh_race(text: str) -> tuple[list[str], int]:
    """refresh_race.py prints a fixed-width table (`run redemptions double
    ...`) and two summary lines; the table becomes markdown."""
    lines = text.splitlines()
    header_at = next((i for i, l in enumerate(lines) if l.split()[:2] == ["run", "redemptions"]), None)
    if header_at is None:
        return [], 0
    header = lines[header_at].split()
    rows = []
    for line in lines[header_at + 1:]:
        cells = line.split()
        if len(cells) != len(header) or not cells[0].isdigit():
            break
        rows.append("| " + " | ".join(cells) + " |")
    notes = [l.strip() for l in lines[:header_at] if re.match(r"^\d+ runs, ", l)]
    results = [strip_result(l) for l in lines if RESULT_LINES.match(l)]
    parts = [("results", notes)] if notes else []
    parts += [("table", ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + rows)]
    parts += [("results", results)] if results else []
    return render(parts), 1


PARSERS = {
    "tables": extract_tables,
    "sessions": extract_sessions,
    "redis": extract_redis,
    "refresh_race": extract_refresh_race,
}


# --- the machine and the document ------------------------------------------

def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, {platform.system()} {platform.release()}"


def replace_block(doc: Path, name: str, block: list[str]) -> str | None:
    """Puts `block` between the markers of `name`; returns an error, or
    None. Reads the document just before writing (others may edit it) and
    replaces it in one rename."""
    text = doc.read_text()
    start, end = MARKER.format(name=name, edge="start"), MARKER.format(name=name, edge="end")
    if text.count(start) != 1 or text.count(end) != 1:
        return f"{doc}: needs exactly one {start} and one {end}"
    head, rest = text.split(start)
    _, tail = rest.split(end)
    if end in head:
        return f"{doc}: {end} comes before {start}"
    new = head + start + "\n" + "\n".join(block) + "\n" + end + tail
    with tempfile.NamedTemporaryFile("w", dir=doc.parent, prefix=".benchmarks-", delete=False) as out:
        out.write(new)
    os.chmod(out.name, doc.stat().st_mode & 0o777)
    os.replace(out.name, doc)
    return None


# --- running -----------------------------------------------------------------

def parse_args(argv: list[str]) -> dict:
    options = {"only": None, "seconds": None, "doc": DOC, "write": True, "logs": None}
    i = 0
    while i < len(argv):
        arg = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        if arg in ("-h", "--help"):
            print("Usage:" + __doc__.split("Usage:", 1)[1].rstrip())
            sys.exit(0)
        elif arg == "--list":
            for name, spec in BENCHES.items():
                aliases = f" (also: {', '.join(spec.get('aliases', []))})" if spec.get("aliases") else ""
                print(f"{name:<13} Tests/Benchmarks/{spec['script']} {spec['arg'](None)}{aliases}")
            sys.exit(0)
        elif arg == "--no-doc":
            options["write"] = False
            i += 1
            continue
        elif arg in ("--only", "--seconds", "--doc", "--logs") and value is not None:
            options[arg[2:]] = value
            i += 2
            continue
        else:
            sys.exit(f"all.sh: unknown or incomplete argument {arg!r} (see --help)")
    if options["seconds"] is not None:
        if not options["seconds"].isdigit() or int(options["seconds"]) < 1:
            sys.exit("all.sh: --seconds takes a whole number of seconds, at least 1")
        options["seconds"] = int(options["seconds"])
    names = list(BENCHES)
    if options["only"]:
        lookup = {alias: name for name, spec in BENCHES.items() for alias in [name] + spec.get("aliases", [])}
        wanted = [n.strip() for n in options["only"].split(",") if n.strip()]
        unknown = [n for n in wanted if n not in lookup]
        if unknown:
            sys.exit(f"all.sh: unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHES)}")
        names = [n for n in BENCHES if n in {lookup[w] for w in wanted}]
    options["names"] = names
    options["doc"] = Path(options["doc"]).resolve()
    return options


def run_one(name: str, spec: dict, seconds, logs: Path, env: dict) -> dict:
    script = ROOT / "Tests" / "Benchmarks" / spec["script"]
    arg = spec["arg"](seconds)
    command = " ".join([f"{k}={env[k]}" for k in spec["env"] if k in env] + [f"Tests/Benchmarks/{spec['script']}", arg])
    result = {"name": name, "command": command, "log": logs / f"{name}.log", "block": None}
    if not script.exists():
        result.update(status="not run", detail=f"{script.relative_to(ROOT)} does not exist", seconds=0.0)
        return result
    print(f"==> {name}: {command}  (log {result['log']})", flush=True)
    started = time.monotonic()
    when = datetime.now(timezone.utc)
    with open(result["log"], "w") as log:
        log.write(f"# {when:%Y-%m-%d %H:%M:%S} UTC, cwd {ROOT}\n# {command}\n")
        log.flush()
        process = subprocess.Popen(["bash", str(script), arg], cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = process.wait()
        except KeyboardInterrupt:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()
            raise
    result["seconds"] = time.monotonic() - started
    text = result["log"].read_text(errors="replace")
    block, tables = PARSERS[spec["parse"]](text, **({"bullets": True} if spec.get("bullets") else {}))
    if code != 0:
        result.update(status="FAILED", detail=f"exit status {code}")
    elif tables == 0:
        result.update(status="FAILED", detail="exit status 0 but no table in the output")
    else:
        header = (f"Measured {when:%Y-%m-%d %H:%M} UTC on {machine()}; command: `{command}`"
                  + (f" (a quick run: --seconds {seconds})" if seconds is not None else ""))
        result.update(status="ok", detail=f"{tables} table(s)", block=[header, ""] + block)
    return result


def main() -> int:
    options = parse_args(sys.argv[1:])
    env = dict(os.environ)
    env["PATH"] = "/opt/swift/usr/bin:" + env.get("PATH", "/usr/bin:/bin")
    env.setdefault("BENCH_SCRATCH", "/tmp/build-bench")
    test_scratch = env.get("BENCH_TEST_SCRATCH", "/tmp/build-bench-test")
    env.setdefault("SCRATCH", test_scratch)        # sessions_bench.sh
    env.setdefault("SCRATCH_PATH", test_scratch)   # redis_bench.sh
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    logs = Path(options["logs"] or f"/tmp/bench-all-{stamp}")
    logs.mkdir(parents=True, exist_ok=True)
    if options["write"] and not options["doc"].exists():
        sys.exit(f"all.sh: {options['doc']} does not exist")

    started = time.monotonic()
    results = []
    try:
        for name in options["names"]:
            result = run_one(name, BENCHES[name], options["seconds"], logs, env)
            results.append(result)
            if result["block"] is not None:
                print("\n".join("    " + line for line in result["block"]), flush=True)
                if options["write"]:
                    error = replace_block(options["doc"], name, result["block"])
                    if error:
                        result.update(status="FAILED", detail=f"ran, but the document was not updated: {error}")
                    else:
                        result["detail"] += f", written to {options['doc'].relative_to(ROOT) if options['doc'].is_relative_to(ROOT) else options['doc']}"
            if result["status"] != "ok":
                print(f"    {name}: {result['status']}: {result['detail']}", flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        results.append({"name": "(interrupted)", "status": "FAILED", "detail": "Ctrl-C", "seconds": 0.0, "log": logs})

    total = time.monotonic() - started
    print()
    print(f"Summary ({machine()}; logs in {logs}):")
    for r in results:
        print(f"  {r['name']:<13} {r['status']:<8} {r['seconds']:7.0f} s  {r['detail']}")
    failed = [r["name"] for r in results if r["status"] == "FAILED"]
    ran = [r["name"] for r in results if r["status"] == "ok"]
    skipped = [r["name"] for r in results if r["status"] == "not run"]
    print(f"  ran: {', '.join(ran) or 'none'}; failed: {', '.join(failed) or 'none'}; "
          f"not run: {', '.join(skipped) or 'none'}; {total / 60:.1f} min in all")
    if not options["write"]:
        print("  (--no-doc: the document was left alone)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
