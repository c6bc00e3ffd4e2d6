"""Redis topologies on loopback for the chaos script: a Sentinel group (a
master, one replica, three sentinels) or a Redis Cluster (three masters with
a replica each), each node a real redis-server / redis-sentinel process in a
temporary directory, and what the script does to them (kill the master, move
slots) and reads from them (ROLE, the sentinels' master, slot owners)."""
import signal
import socket
import subprocess
import time
from pathlib import Path

import benchlib as b

MASTER_NAME = "chaos"


def command(port: int, *args, timeout: float = 1.0):
    """One Redis command to 127.0.0.1:`port` over a fresh connection; the
    reply decoded (bulk strings as str, arrays as lists, errors raised as
    RuntimeError)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        payload = f"*{len(args)}\r\n".encode()
        for arg in args:
            data = str(arg).encode()
            payload += b"$%d\r\n%s\r\n" % (len(data), data)
        s.sendall(payload)
        return _Reader(s).reply()


class _Reader:
    def __init__(self, s):
        self.s, self.buffer = s, b""

    def _line(self) -> bytes:
        while b"\r\n" not in self.buffer:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _exactly(self, n: int) -> bytes:
        while len(self.buffer) < n + 2:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n + 2:]
        return data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:].decode()
        if kind == b"+":
            return rest
        if kind == b"-":
            raise RuntimeError(rest)
        if kind == b":":
            return int(rest)
        if kind == b"$":
            return None if int(rest) < 0 else self._exactly(int(rest)).decode(errors="replace")
        if kind == b"*":
            return None if int(rest) < 0 else [self.reply() for _ in range(int(rest))]
        raise RuntimeError(f"unexpected reply {line[:40]!r}")


def try_command(port: int, *args, timeout: float = 0.5):
    """`command`, or None when the node does not answer."""
    try:
        return command(port, *args, timeout=timeout)
    except (OSError, RuntimeError):
        return None


def role(port: int) -> str | None:
    reply = try_command(port, "ROLE")
    return reply[0] if reply else None


def cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) exists and is free too."""
    while True:
        port = b.free_port()
        if port + 10000 > 65535:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue


def wait_until(what: str, predicate, timeout: float = 30.0, interval: float = 0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise RuntimeError(f"timed out waiting for {what}")


class Topology:
    """Common to both: the processes by port, their logs, stop()."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.nodes: dict = {}  # redis-server by port (a killed one by "<port>-restarted")
        self.argv: dict[int, list[str]] = {}
        self.others: list[b.Process] = []  # sentinels
        self.killed: list[int] = []

    def _server(self, port: int, *extra) -> None:
        directory = self.workdir / f"node-{port}"
        directory.mkdir(exist_ok=True)
        self.argv[port] = [
            "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--protected-mode", "no", "--save", "",
             "--appendonly", "no", "--dir", str(directory), "--repl-diskless-sync", "yes",
             "--repl-diskless-sync-delay", "0", *extra]
        self.nodes[port] = b.Process(self.argv[port], log_name=f"redis-{port}", inherit_env=False, log_dir=self.workdir)

    def restart(self, port: int) -> None:
        """Starts the killed node on `port` again, as it was started (empty:
        nothing is persisted); the sentinels or the cluster make it a replica
        of the new master."""
        self.nodes[f"{port}-restarted"] = self.nodes.pop(port)
        self.nodes[port] = b.Process(self.argv[port], log_name=f"redis-{port}-restarted", inherit_env=False,
                                     log_dir=self.workdir)
        self.killed.remove(port)

    def kill(self, port: int) -> float:
        """SIGKILL to the node on `port`; returns the monotonic time of the kill."""
        self.nodes[port].popen.send_signal(signal.SIGKILL)
        killed_at = time.monotonic()
        self.nodes[port].popen.wait()
        self.killed.append(port)
        return killed_at

    def stop(self) -> None:
        for process in self.others + list(self.nodes.values()):
            try:
                process.stop()
            except Exception:  # noqa: BLE001 (stop every process whatever one does)
                pass

    def logs(self) -> list[str]:
        return [p.log.name for p in list(self.nodes.values()) + self.others]


class SentinelTopology(Topology):
    """A master, one replica and three sentinels (quorum 2)."""
    name = "sentinel"

    def boot(self) -> None:
        self.master_port, self.replica_port = b.free_port(), b.free_port()
        self.sentinel_ports = [b.free_port() for _ in range(3)]
        self._server(self.master_port)
        self._server(self.replica_port, "--replicaof", "127.0.0.1", str(self.master_port))
        for port in (self.master_port, self.replica_port):
            b.wait_for_port(port)
        wait_until("the replica in sync", lambda: try_command(self.master_port, "WAIT", 1, 100) == 1)
        for port in self.sentinel_ports:
            directory = self.workdir / f"sentinel-{port}"
            directory.mkdir()
            conf = directory / "sentinel.conf"
            conf.write_text(f"""port {port}
bind 127.0.0.1
protected-mode no
daemonize no
dir {directory}
sentinel resolve-hostnames no
sentinel monitor {MASTER_NAME} 127.0.0.1 {self.master_port} 2
sentinel down-after-milliseconds {MASTER_NAME} 1000
sentinel failover-timeout {MASTER_NAME} 5000
sentinel parallel-syncs {MASTER_NAME} 1
""")
            self.others.append(b.Process(["redis-sentinel", str(conf)], log_name=f"sentinel-{port}",
                                         inherit_env=False, log_dir=self.workdir))
        for port in self.sentinel_ports:
            b.wait_for_port(port)
        # Each sentinel must know the other two and the replica, or a failover
        # cannot be authorised (quorum, then a majority of the sentinels).
        for port in self.sentinel_ports:
            wait_until(f"sentinel {port} to see its peers and the replica", lambda port=port: self._settled(port))

    def _settled(self, port: int) -> bool:
        reply = try_command(port, "SENTINEL", "MASTER", MASTER_NAME)
        if not reply:
            return False
        fields = dict(zip(reply[::2], reply[1::2]))
        return fields.get("num-other-sentinels") == "2" and fields.get("num-slaves") == "1"

    def gateway_env(self) -> dict:
        return {"BFF_REDIS_MODE": "sentinel", "BFF_REDIS_SENTINEL_MASTER": MASTER_NAME,
                "BFF_REDIS_URL": "redis://" + ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports) + "/0"}

    def current_master(self) -> int | None:
        """The master's port as a live sentinel names it."""
        for port in self.sentinel_ports:
            reply = try_command(port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
            if reply:
                return int(reply[1])
        return None

    def masters(self) -> list[int]:
        return [self.current_master()]

    def kill_master(self) -> tuple[int, float]:
        port = self.current_master()
        return port, self.kill(port)

    def failed_over(self, old: int) -> int | None:
        """The new master's port once the sentinels name another node and it
        answers ROLE master; else None."""
        new = self.current_master()
        if new and new != old and role(new) == "master":
            return new
        return None

    def session_keys(self) -> dict[int, int]:
        master = self.current_master()
        return {master: count_keys(master, "bff:s:*")}


class ClusterTopology(Topology):
    """Six nodes: three masters, a replica each."""
    name = "cluster"

    def boot(self) -> None:
        self.ports = [cluster_port() for _ in range(6)]
        for port in self.ports:
            self._server(port, "--cluster-enabled", "yes", "--cluster-config-file",
                         str(self.workdir / f"node-{port}" / "nodes.conf"), "--cluster-node-timeout", "1000")
        for port in self.ports:
            b.wait_for_port(port)
        subprocess.run(["redis-cli", "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
                        "--cluster-replicas", "1", "--cluster-yes"], check=True, capture_output=True, timeout=60)
        for port in self.ports:
            wait_until(f"cluster_state:ok on {port}",
                       lambda port=port: "cluster_state:ok" in (try_command(port, "CLUSTER", "INFO") or ""))
        for port in self.masters():
            wait_until(f"the replica of {port} in sync", lambda port=port: try_command(port, "WAIT", 1, 100) == 1)

    def gateway_env(self) -> dict:
        return {"BFF_REDIS_MODE": "cluster",
                "BFF_REDIS_URL": "redis://" + ",".join(f"127.0.0.1:{p}" for p in self.ports[:3]) + "/0"}

    def live(self) -> list[int]:
        return [p for p in self.ports if p not in self.killed]

    def shards(self) -> list[dict]:
        """[{master, replica, slots}] from CLUSTER SLOTS at a live node."""
        for port in self.live():
            reply = try_command(port, "CLUSTER", "SLOTS")
            if reply is None:
                continue
            by_master: dict[int, dict] = {}
            for start, end, master, *replicas in reply:
                shard = by_master.setdefault(master[1], {"master": master[1], "replicas": set(), "slots": 0})
                shard["slots"] += end - start + 1
                shard["replicas"].update(r[1] for r in replicas)
            return list(by_master.values())
        return []

    def masters(self) -> list[int]:
        return sorted(s["master"] for s in self.shards())

    def node_id(self, port: int) -> str:
        return command(port, "CLUSTER", "MYID")

    def kill_master(self) -> tuple[int, float]:
        shard = min(self.shards(), key=lambda s: s["master"])
        self.replica_of_killed = sorted(shard["replicas"])
        return shard["master"], self.kill(shard["master"])

    def failed_over(self, old: int) -> int | None:
        """The promoted replica's port once it answers ROLE master and every
        live node reports cluster_state:ok and names it in CLUSTER SLOTS;
        else None."""
        for port in self.replica_of_killed:
            if role(port) == "master" and all(self._settled_without(p, old) for p in self.live()):
                return port
        return None

    @staticmethod
    def _settled_without(port: int, old: int) -> bool:
        """`port` reports cluster_state:ok and a slot map without `old`."""
        if "cluster_state:ok" not in (try_command(port, "CLUSTER", "INFO") or ""):
            return False
        slots = try_command(port, "CLUSTER", "SLOTS")
        return slots is not None and all(entry[2][1] != old for entry in slots)

    def reshard(self, slots: int, forward: bool) -> subprocess.CompletedProcess:
        """`redis-cli --cluster reshard`: `slots` slots from the first master
        to the second (or back), once every node agrees on the slots."""
        wait_until("every node to agree on the slots", self.agreed, timeout=30, interval=0.2)
        first, second = self.masters()[:2]
        source, target = (first, second) if forward else (second, first)
        return subprocess.run(["redis-cli", "--cluster", "reshard", f"127.0.0.1:{self.live()[0]}",
                               "--cluster-from", self.node_id(source), "--cluster-to", self.node_id(target),
                               "--cluster-slots", str(slots), "--cluster-yes"],
                              capture_output=True, text=True, timeout=300)

    def agreed(self) -> bool:
        """`redis-cli --cluster check`: every node agrees on the slots, none open."""
        result = subprocess.run(["redis-cli", "--cluster", "check", f"127.0.0.1:{self.live()[0]}"],
                                capture_output=True, text=True, timeout=30)
        return result.returncode == 0 and "[ERR]" not in result.stdout and "[WARNING]" not in result.stdout

    def session_keys(self) -> dict[int, int]:
        return {port: count_keys(port, "bff:s:*") for port in self.masters()}


def count_keys(port: int, pattern: str) -> int:
    cursor, total = "0", 0
    while True:
        cursor, keys = command(port, "SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
        total += len(keys)
        if cursor == "0":
            return total


def start(name: str, workdir: Path) -> Topology:
    """The topology `name`, running and settled; every process it started is
    stopped again when it fails to settle."""
    topology = {"sentinel": SentinelTopology, "cluster": ClusterTopology}[name](workdir)
    try:
        topology.boot()
    except BaseException:
        topology.stop()
        raise
    return topology
