import Synchronization
import System

/// One ``RedisConnection`` per event loop of a group. A call made on loop
/// *k*'s thread uses connection *k* (no thread hop); a call from anywhere
/// else, or when connection *k* is not ready, takes the next ready
/// connection in turn. When none is ready, calls fail at once with
/// ``RedisError/unavailable``.
///
/// With ``RedisConfiguration/cluster`` set, the client holds no connection
/// of its own: a ``ClusterRouter`` sends each command to the node serving
/// its key's slot, through that node's own client.
public final class RedisClient: Sendable {
    /// The connections, in the order of the loops they were made for (none
    /// for a cluster).
    public let connections: [RedisConnection]
    private let cursor = Atomic<Int>(0)
    let router: ClusterRouter?

    /// Creates one connection per loop, or the cluster's router; nothing
    /// happens until ``start()``.
    public init(configuration: RedisConfiguration, loops: [EventLoop]) {
        precondition(!loops.isEmpty, "a RedisClient needs at least one loop")
        if let seeds = configuration.cluster {
            router = ClusterRouter(seeds: seeds, configuration: configuration, loops: loops)
            connections = []
        } else {
            router = nil
            connections = loops.map { RedisConnection(configuration: configuration, loop: $0) }
        }
    }

    /// Starts connecting every connection in the background.
    public func start() {
        router?.start()
        for connection in connections { connection.start() }
    }

    /// Whether at least one connection can take commands; for a cluster,
    /// whether every slot's node can.
    public var isReady: Bool { router?.isReady ?? connections.contains { $0.isReady } }

    /// Whether every connection can take commands.
    public var isFullyReady: Bool { router?.isReady ?? connections.allSatisfy(\.isReady) }

    /// The first connection's failure, if any, for a log line or `/readyz`.
    public var lastFailureReason: String? { router?.lastFailureReason ?? connections.lazy.compactMap(\.lastFailureReason).first }

    /// Waits until every connection is ready; false after `timeout`.
    public func waitUntilReady(timeout: Duration = .seconds(5)) async -> Bool {
        if let router { return await router.waitUntilReady(timeout: timeout) }
        return await withTaskGroup(of: Bool.self) { group in
            for connection in connections { group.addTask { await connection.waitUntilReady(timeout: timeout) } }
            return await group.allSatisfy { $0 }
        }
    }

    /// Sends one command; see ``RedisConnection/send(_:)``.
    public func send(_ arguments: [[UInt8]]) async throws(RedisError) -> RedisValue {
        guard let router else { return try await connection().send(arguments) }
        return try await router.routed(ClusterSlot.of(command: arguments)) { connection, asking throws(RedisError) in
            guard asking else { return try await connection.send(arguments) }
            let replies = try await connection.send(batch: [Command.asking, arguments])
            if case .error(let text) = replies[1] { throw .server("\(commandName(arguments[0])): \(text)") }
            return replies[1]
        }
    }

    /// Sends a pipelined batch on one connection; see
    /// ``RedisConnection/send(batch:)``. For a cluster, the batch goes to
    /// the node of its first command's key.
    public func send(batch: [[[UInt8]]]) async throws(RedisError) -> [RedisValue] {
        guard let router else { return try await connection().send(batch: batch) }
        return try await router.routed(batch.first.flatMap(ClusterSlot.of(command:))) { connection, asking throws(RedisError) in
            guard asking else { return try await connection.send(batch: batch) }
            return Array(try await connection.send(batch: [Command.asking] + batch).dropFirst())
        }
    }

    /// Runs `body` on the connection for `slot` (see ``ClusterRouter/routed(_:_:)``);
    /// without a cluster, on this client's connection, never asking.
    func routed<T>(_ slot: @autoclosure () -> Int?,
                   _ body: (RedisConnection, _ asking: Bool) async throws(RedisError) -> T) async throws(RedisError) -> T {
        guard let router else { return try await body(try connection(), false) }
        return try await router.routed(slot(), body)
    }

    /// Closes every connection.
    public func close() async {
        await router?.close()
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
