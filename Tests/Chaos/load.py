"""The chaos script's load: threads that loop over the signed-in sessions
(GET /bff/user, then GET /api/items) through nginx, and one thread that
signs new users in, each request recorded with its start, duration, status,
the gateway nginx passed it to (`X-Chaos-Upstream`) and whether a 503 had
`Retry-After`."""
import http.client
import json
import threading
import time
from dataclasses import dataclass

import refresh_race

CLIENT_TIMEOUT_S = 30.0


@dataclass
class Record:
    start: float  # monotonic
    duration: float
    kind: str  # user, api, otp-request, otp-redeem
    status: int  # 0: no answer (connection error or timeout)
    gateway: str  # the upstream nginx used, "" when none
    retry_after: bool
    detail: str  # the error code of a non-200 JSON answer, or the exception


class Session:
    """A signed-in user: the e-mail address and the current cookie."""

    def __init__(self, email: str, cookie: str, signed_in_during_run: bool):
        self.email, self.cookie, self.during_run = email, cookie, signed_in_during_run


class Client:
    """One keep-alive connection to nginx, reopened after any failure."""

    def __init__(self, port: int):
        self.port, self.connection = port, None

    def request(self, kind: str, method: str, path: str, cookie: str | None = None,
                body: dict | None = None) -> tuple[Record, http.client.HTTPResponse | None, bytes]:
        headers = {"X-CSRF": "1", "Origin": "http://localhost:8080", "Host": "localhost:8080"}
        if cookie:
            headers["Cookie"] = f"__Host-bff={cookie}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        start = time.monotonic()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=CLIENT_TIMEOUT_S)
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as error:
            if self.connection is not None:
                self.connection.close()
            self.connection = None
            return Record(start, time.monotonic() - start, kind, 0, "", False, f"{type(error).__name__}: {error}"), None, b""
        detail = ""
        if response.status != 200:
            try:
                detail = str(json.loads(payload).get("error", ""))
            except (ValueError, AttributeError):
                detail = payload[:80].decode(errors="replace")
        record = Record(start, time.monotonic() - start, kind, response.status,
                        response.getheader("X-Chaos-Upstream", "") or "", response.getheader("Retry-After") is not None,
                        detail)
        return record, response, payload


def session_cookie(response) -> str | None:
    """The new value of the session cookie a response sets, if any."""
    for value in response.headers.get_all("Set-Cookie") or []:
        if value.startswith("__Host-bff="):
            cookie = value.split(";", 1)[0].split("=", 1)[1]
            return cookie or None
    return None


class Load:
    """`threads` request loops and one sign-in loop, until stop()."""

    def __init__(self, port: int, sim_port: int, sessions: list[Session], threads: int, signin_interval: float,
                 stamp: str):
        self.port, self.sim_port, self.sessions = port, sim_port, sessions
        self.signin_interval, self.stamp = signin_interval, stamp
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.records: list[list[Record]] = [[] for _ in range(threads + 1)]
        self.threads = [threading.Thread(target=self._loop, args=(i, threads), daemon=True) for i in range(threads)]
        self.threads.append(threading.Thread(target=self._sign_ins, args=(threads,), daemon=True))

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self) -> list[Record]:
        self.stopping.set()
        for thread in self.threads:
            thread.join(CLIENT_TIMEOUT_S + 5)
        return sorted((r for rs in self.records for r in rs), key=lambda r: r.start)

    def _loop(self, index: int, count: int) -> None:
        client, out, position = Client(self.port), self.records[index], index
        while not self.stopping.is_set():
            with self.lock:
                session = self.sessions[position % len(self.sessions)]
            position += count
            for kind, path in (("user", "/bff/user"), ("api", "/api/items")):
                record, response, _ = client.request(kind, "GET", path, cookie=session.cookie)
                out.append(record)
                if response is not None and (cookie := session_cookie(response)):
                    session.cookie = cookie

    def _sign_ins(self, index: int) -> None:
        client, out, number = Client(self.port), self.records[index], 0
        while not self.stopping.wait(self.signin_interval):
            number += 1
            email = f"chaos-{self.stamp}-run-{number}@example.com"
            record, _, _ = client.request("otp-request", "POST", "/bff/otp/request", body={"email": email})
            out.append(record)
            if record.status != 200:
                continue
            try:
                code = json.loads(refresh_race.call(self.sim_port, "GET", f"/dev/mailbox?email={email}")[1])[0]["code"]
            except (OSError, ValueError, IndexError, KeyError):
                continue
            record, response, _ = client.request("otp-redeem", "POST", "/bff/otp/redeem",
                                                 body={"email": email, "code": code})
            out.append(record)
            if record.status == 200 and (cookie := session_cookie(response)):
                with self.lock:
                    self.sessions.append(Session(email, cookie, True))
