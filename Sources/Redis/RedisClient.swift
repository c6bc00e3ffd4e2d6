import Synchronization
import System

/// One ``RedisConnection`` per event loop of a group. A call made on loop
/// *k*'s thread uses connection *k* (no thread hop); a call from anywhere
/// else, or when connection *k* is not ready, takes the next ready
/// connection in turn. When none is ready, calls fail at once with
/// ``RedisError/unavailable``.
public final class RedisClient: Sendable {
    /// The connections, in the order of the loops they were made for.
    public let connections: [RedisConnection]
    private let cursor = Atomic<Int>(0)

    /// Creates one connection per loop; nothing happens until ``start()``.
    public init(configuration: RedisConfiguration, loops: [EventLoop]) {
        precondition(!loops.isEmpty, "a RedisClient needs at least one loop")
        connections = loops.map { RedisConnection(configuration: configuration, loop: $0) }
    }

    /// Starts connecting every connection in the background.
    public func start() {
        for connection in connections { connection.start() }
    }

    /// Whether at least one connection can take commands.
    public var isReady: Bool { connections.contains { $0.isReady } }

    /// Whether every connection can take commands.
    public var isFullyReady: Bool { connections.allSatisfy(\.isReady) }

    /// The first connection's failure, if any, for a log line or `/readyz`.
    public var lastFailureReason: String? { connections.lazy.compactMap(\.lastFailureReason).first }

    /// Waits until every connection is ready; false after `timeout`.
    public func waitUntilReady(timeout: Duration = .seconds(5)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            for connection in connections { group.addTask { await connection.waitUntilReady(timeout: timeout) } }
            return await group.allSatisfy { $0 }
        }
    }

    /// Sends one command; see ``RedisConnection/send(_:)``.
    public func send(_ arguments: [[UInt8]]) async throws(RedisError) -> RedisValue {
        try await connection().send(arguments)
    }

    /// Sends a pipelined batch on one connection; see
    /// ``RedisConnection/send(batch:)``.
    public func send(batch: [[[UInt8]]]) async throws(RedisError) -> [RedisValue] {
        try await connection().send(batch: batch)
    }

    /// Closes every connection.
    public func close() async {
        for connection in connections { await connection.close() }
    }

    /// The connection of the calling loop when ready, else the next ready one.
    func connection() throws(RedisError) -> RedisConnection {
        for connection in connections where connection.loop.inLoop {
            if connection.isReady { return connection }
            break
        }
        let count = connections.count
        let start = cursor.add(1, ordering: .relaxed).oldValue
        for offset in 0..<count {
            let connection = connections[(start &+ offset) % count]
            if connection.isReady { return connection }
        }
        throw .unavailable
    }
}
