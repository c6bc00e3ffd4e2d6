"""What the browser tests share: the check that records a failure, the
processes' ports, the simulator's dev API and TOTP codes."""
import base64
import hashlib
import hmac
import json
import socket
import struct
import subprocess
import time
import urllib.request

failures: list[str] = []


def totp(secret: str, at: float | None = None) -> str:
    """RFC 6238: HMAC-SHA1, 30 s steps, 6 digits."""
    key = base64.b32decode(secret)
    counter = struct.pack(">Q", int((time.time() if at is None else at) // 30))
    digest = hmac.new(key, counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def check(condition: bool, what: str, detail: object = "") -> None:
    print(("PASS " if condition else "FAIL ") + what + ("" if condition or detail == "" else f": {detail}"), flush=True)
    if not condition:
        failures.append(what)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, name: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{name} exited at start ({process.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{name} did not listen on {port}")


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def post_json(url: str, body: object):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
        return json.loads(text) if text else None
