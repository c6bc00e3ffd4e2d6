import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A Redis Cluster on loopback: six ``RedisServer`` nodes
/// (`--cluster-enabled yes`, `--cluster-node-timeout 1000`, a cluster bus
/// port of their own from ``LoopbackPort/free()``, replicas synced without
/// delay: `repl-diskless-sync-delay 0`) joined by
/// `redis-cli --cluster create ... --cluster-replicas 1`: three masters,
/// each with one replica. ``start(password:)`` returns once every node
/// reports `cluster_state:ok`, knows all six nodes, and every replica is in
/// sync. Every node is killed and its directory removed when the group is
/// released.
public final class RedisClusterGroup: Sendable {
    /// `redis-cli` (package `redis-tools`, installed with `redis-server`).
    public static let cli = "/usr/bin/redis-cli"

    /// The password of every node, if any.
    public let password: String?
    /// The nodes.
    public let servers: [RedisServer]

    /// Every node's port.
    public var nodePorts: [UInt16] { servers.map(\.port) }

    /// Starts six nodes, joins them into a cluster and waits until it is ready.
    public static func start(password: String? = nil) async throws -> RedisClusterGroup {
        var servers: [RedisServer] = []
        for _ in 0..<6 { servers.append(try await startNode(password: password)) }
        let group = RedisClusterGroup(password: password, servers: servers)
        try await group.create()
        return group
    }

    private init(password: String?, servers: [RedisServer]) {
        self.password = password
        self.servers = servers
    }

    /// Kills the node on `port` with SIGKILL and waits for it.
    public func killNode(port: UInt16) async {
        await servers.first { $0.port == port }?.kill()
    }

    /// The ports of the masters a live node lists in `CLUSTER NODES`
    /// (flag `master`, not `fail`) that serve slots, sorted.
    public func masters() async -> [UInt16] {
        await blocking { [self] in
            for server in servers where server.isRunning {
                guard let nodes = RedisControl.call(port: server.port, password: password, ["CLUSTER", "NODES"])?.string else { continue }
                return Self.masters(inNodes: nodes)
            }
            return []
        }
    }

    /// Kills every node and waits for each.
    public func stop() async {
        for server in servers { await server.kill() }
    }

    /// Masters serving slots in a `CLUSTER NODES` reply.
    static func masters(inNodes nodes: String) -> [UInt16] {
        nodes.split(separator: "\n").compactMap { line -> UInt16? in
            let fields = line.split(separator: " ")
            guard fields.count > 8 else { return nil }
            let flags = fields[2].split(separator: ",")
            guard flags.contains("master"), !flags.contains("fail"), !flags.contains("fail?") else { return nil }
            let address = fields[1].split(separator: "@")[0]
            return address.split(separator: ":").last.flatMap { UInt16($0) }
        }.sorted()
    }

    /// A node with a bus port of its own; a new bus port when that one was taken.
    private static func startNode(password: String?) async throws -> RedisServer {
        var attempt = 0
        while true {
            attempt += 1
            guard let bus = LoopbackPort.free() else { throw RedisServerError.noFreePort }
            let arguments = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1000",
                             "--cluster-port", String(bus), "--repl-diskless-sync-delay", "0"] + (password.map { ["--masterauth", $0] } ?? [])
            do {
                return try await RedisServer.start(password: password, arguments: arguments)
            } catch RedisServerError.didNotStart(let log) where log.contains("Address already in use") && attempt < 3 {
                continue
            }
        }
    }

    /// `redis-cli --cluster create`, then the readiness polls.
    private func create() async throws {
        let auth = password.map { ["-a", $0, "--no-auth-warning"] } ?? []
        let argv = [Self.cli] + auth + ["--cluster", "create"] + nodePorts.map { "127.0.0.1:\($0)" }
            + ["--cluster-replicas", "1", "--cluster-yes"]
        let status = await blocking {
            guard let pid = try? ChildProcess.spawn(argv) else { return Int32(-1) }
            return ChildProcess.waitForExit(pid)
        }
        guard status == 0 else { throw RedisServerError.didNotStart(log: "redis-cli --cluster create exited with \(status)") }
        let ready = await blocking { [self] in
            RedisSentinelGroup.poll(timeout: 20) { isReady() }
        }
        guard ready else { throw RedisServerError.didNotStart(log: "cluster not ready") }
    }

    /// Every node reports `cluster_state:ok` and knows all six; half the
    /// nodes are replicas whose link to their master is up, and the other
    /// half are masters each with one replica online. A node that is still
    /// a master only because `CLUSTER REPLICATE` has not reached it yet
    /// does not count: a replica promoted before its first sync would take
    /// over its master's slots without their keys.
    private func isReady() -> Bool {
        var replicas = 0
        var mastersInSync = 0
        for port in nodePorts {
            let info = RedisControl.call(port: port, password: password, ["CLUSTER", "INFO"])?.string ?? ""
            guard info.contains("cluster_state:ok"), info.contains("cluster_known_nodes:6") else { return false }
            let replication = RedisControl.call(port: port, password: password, ["INFO", "replication"])?.string ?? ""
            if replication.contains("role:slave") && replication.contains("master_link_status:up") {
                replicas += 1
            } else if replication.contains("role:master") && replication.contains("connected_slaves:1")
                && replication.contains("state=online") {
                mastersInSync += 1
            }
        }
        return replicas == nodePorts.count / 2 && mastersInSync == nodePorts.count / 2
    }
}
