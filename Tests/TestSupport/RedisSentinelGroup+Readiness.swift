import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The blocking polls behind ``RedisSentinelGroup``'s start and failover waits.
extension RedisSentinelGroup {
    /// How long the start waits for each stage (replication, discovery).
    static let readinessTimeout = 20.0

    /// Waits until the master lists every replica `state=online` and every
    /// replica reports `master_link_status:up`.
    static func waitForSync(master: UInt16, replicas: [UInt16], password: String?) async throws {
        let synced = await blocking {
            poll(timeout: readinessTimeout) {
                let info = RedisControl.call(port: master, password: password, ["INFO", "replication"])?.string ?? ""
                guard info.components(separatedBy: "state=online").count - 1 == replicas.count else { return false }
                return replicas.allSatisfy {
                    (RedisControl.call(port: $0, password: password, ["INFO", "replication"])?.string ?? "")
                        .contains("master_link_status:up")
                }
            }
        }
        guard synced else { throw RedisServerError.didNotStart(log: "replicas of \(master) not in sync") }
    }

    /// Waits until every sentinel lists the master's replicas and the other sentinels.
    func waitUntilSentinelsKnowEachOther(replicas: Int) async throws {
        let ready = await blocking { [self] in
            Self.poll(timeout: Self.readinessTimeout) {
                sentinels.allSatisfy { sentinel in
                    let known = RedisControl.call(port: sentinel.port, password: password, ["SENTINEL", "replicas", masterName])
                    let peers = RedisControl.call(port: sentinel.port, password: password, ["SENTINEL", "sentinels", masterName])
                    return known?.elements?.count == replicas && peers?.elements?.count == sentinels.count - 1
                }
            }
        }
        guard ready else { throw RedisServerError.didNotStart(log: "sentinels did not discover \(masterName)'s replicas and each other") }
    }

    /// The master's port as the first answering sentinel reports it (blocking).
    func reportedMaster() -> UInt16? {
        for sentinel in sentinels where sentinel.isRunning {
            let reply = RedisControl.call(port: sentinel.port, password: password, ["SENTINEL", "get-master-addr-by-name", masterName])
            if let port = reply?.elements?.last?.string.flatMap(UInt16.init) { return port }
        }
        return nil
    }

    /// Calls `condition` every 50 ms until it holds (true) or `timeout` seconds pass (false). Blocking.
    static func poll(timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return false
    }
}
