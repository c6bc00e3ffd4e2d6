import Foundation
import Synchronization

/// A Sentinel deployment on loopback: one master and its replicas
/// (``RedisServer`` children, the replicas started with `--replicaof`) and
/// sentinels monitoring them (``RedisSentinel`` children), with an optional
/// password on every node (`requirepass`, `masterauth`, and in the
/// sentinels' configuration `auth-pass` and `sentinel-pass`).
/// ``start(masterName:replicas:sentinels:password:downAfterMilliseconds:)``
/// returns once the replicas are in sync and every sentinel knows the
/// master, its replicas and the other sentinels, so a killed master fails
/// over. Data nodes sync replicas without delay
/// (`repl-diskless-sync-delay 0`). Every child is killed and its directory removed when the group is
/// released.
public final class RedisSentinelGroup: Sendable {
    /// The name the sentinels monitor the master under.
    public let masterName: String
    /// The password of every node and sentinel, if any.
    public let password: String?
    /// The data nodes, the first master at the start.
    public let servers: [RedisServer]
    /// The sentinels.
    public let sentinels: [RedisSentinel]
    private let lastMaster: Mutex<UInt16>

    /// The sentinels' ports.
    public var sentinelPorts: [UInt16] { sentinels.map(\.port) }
    /// Every data node's port, the first master at the start.
    public var serverPorts: [UInt16] { servers.map(\.port) }

    /// Starts the group and waits until it is ready for a failover.
    /// The sentinels' quorum is a majority of them (2 of 3), with
    /// `down-after-milliseconds`, `failover-timeout 5000` and
    /// `parallel-syncs 1`.
    public static func start(masterName: String = "mymaster", replicas: Int = 1, sentinels: Int = 3,
                             password: String? = nil, downAfterMilliseconds: Int = 1000) async throws -> RedisSentinelGroup {
        // A replica's full sync starts at once, not after the default 5 s
        // wait for more replicas (diskless replication).
        let auth = ["--repl-diskless-sync-delay", "0"] + (password.map { ["--masterauth", $0] } ?? [])
        let master = try await RedisServer.start(password: password, arguments: auth)
        var servers = [master]
        for _ in 0..<replicas {
            servers.append(try await RedisServer.start(password: password,
                                                       arguments: auth + ["--replicaof", "127.0.0.1", String(master.port)]))
        }
        try await waitForSync(master: master.port, replicas: servers.dropFirst().map(\.port), password: password)
        var lines = ["sentinel resolve-hostnames no",
                     "sentinel monitor \(masterName) 127.0.0.1 \(master.port) \(sentinels / 2 + 1)",
                     "sentinel down-after-milliseconds \(masterName) \(downAfterMilliseconds)",
                     "sentinel failover-timeout \(masterName) 5000",
                     "sentinel parallel-syncs \(masterName) 1"]
        if let password {
            lines += ["sentinel auth-pass \(masterName) \(password)", "requirepass \(password)", "sentinel sentinel-pass \(password)"]
        }
        var started: [RedisSentinel] = []
        for _ in 0..<sentinels { started.append(try await RedisSentinel.start(lines: lines)) }
        let group = RedisSentinelGroup(masterName: masterName, password: password, servers: servers,
                                       sentinels: started, master: master.port)
        try await group.waitUntilSentinelsKnowEachOther(replicas: replicas)
        return group
    }

    private init(masterName: String, password: String?, servers: [RedisServer], sentinels: [RedisSentinel], master: UInt16) {
        self.masterName = masterName
        self.password = password
        self.servers = servers
        self.sentinels = sentinels
        lastMaster = Mutex(master)
    }

    /// The current master's port as the first answering sentinel reports it
    /// (`SENTINEL get-master-addr-by-name`); the last one known when none
    /// answers.
    public var masterPort: UInt16 {
        get async {
            if let port = await blocking({ [self] in reportedMaster() }) {
                lastMaster.withLock { $0 = port }
                return port
            }
            return lastMaster.withLock { $0 }
        }
    }

    /// Kills the current master with SIGKILL and returns its port.
    @discardableResult
    public func killMaster() async -> UInt16 {
        let port = await masterPort
        await servers.first { $0.port == port }?.kill()
        return port
    }

    /// Polls the sentinels every 50 ms until they report a master other
    /// than `oldPort` and that node answers `ROLE` as a master; its port,
    /// or nil after `timeout` seconds.
    public func waitForFailover(from oldPort: UInt16, timeout: Double) async -> UInt16? {
        let found = await blocking { [self] () -> UInt16? in
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let port = reportedMaster(), port != oldPort,
                   RedisControl.call(port: port, password: password, ["ROLE"])?.elements?.first?.string == "master" {
                    return port
                }
                usleep(50_000)
            }
            return nil
        }
        if let found { lastMaster.withLock { $0 = found } }
        return found
    }

    /// Kills the sentinels, then the data nodes, and waits for each.
    public func stop() async {
        for sentinel in sentinels { await sentinel.kill() }
        for server in servers { await server.kill() }
    }
}
