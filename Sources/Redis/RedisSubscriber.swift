import Synchronization
import System

/// A dedicated connection in subscribe mode, owned by one event loop.
/// Each ``subscribe(_:bufferingNewest:)`` returns a stream of the messages
/// published on a channel; after a reconnect every channel is subscribed
/// again (messages published while disconnected are lost, as with any
/// Redis pub/sub). Ending a stream's iteration unsubscribes it; when a
/// channel has no stream left, the connection sends `UNSUBSCRIBE`.
public final class RedisSubscriber: Sendable {
    /// The loop that owns the connection.
    public let loop: EventLoop
    let core: LoopBound<SubscriberCore>
    private let status: ConnectionStatus
    private let nextID = Atomic<UInt64>(1)

    /// Creates the subscriber; nothing happens until ``start()``. Only
    /// `AUTH` is used from `configuration`'s handshake settings that matter
    /// (pub/sub ignores the database index).
    ///
    /// With `sharded`, channels are Redis 7 sharded channels
    /// (`SSUBSCRIBE`), which the server refuses unless it serves their slot.
    public init(configuration: RedisConfiguration, loop: EventLoop, sharded: Bool = false) {
        self.loop = loop
        status = ConnectionStatus()
        let connection = ConnectionCore(configuration: configuration, loop: loop, status: status)
        core = LoopBound(SubscriberCore(connection: connection, sharded: sharded), loop: loop)
    }

    /// Set by `close()`, so that `deinit` leaves a closed core alone: a
    /// closure queued on a loop that has stopped would never run, and would
    /// keep the loop and the core alive.
    private let closed = Atomic<Bool>(false)

    /// Dropped without `close()`: close on the loop (if it still runs).
    deinit {
        if !closed.load(ordering: .acquiring) { core.later { $0.close() } }
    }

    /// Starts connecting in the background. Idempotent.
    public func start() {
        core.withValue { $0.connection.start() }
    }

    /// Whether the connection is up (and its channels subscribed or being so).
    public var isReady: Bool { status.isReady }

    /// Why the last connect attempt failed or the connection dropped.
    public var lastFailure: RedisConnectionFailure? { status.lastFailure }

    /// Waits until connected; false after `timeout` or once closed.
    public func waitUntilReady(timeout: Duration = .seconds(5)) async -> Bool {
        if status.isReady { return true }
        return await withCheckedContinuation { continuation in
            core.withValue { $0.connection.waitUntilReady(timeout: timeout, continuation: continuation) }
        }
    }

    /// Listens on `channel`. When connected, returns once the server has
    /// confirmed the subscription, so a message published after the return
    /// is delivered; when not, returns at once and subscribes on connect.
    /// At most `limit` undelivered messages are kept (the oldest are dropped).
    public func subscribe(_ channel: [UInt8], bufferingNewest limit: Int = 1024) async -> AsyncStream<[UInt8]> {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        let core = self.core
        continuation.onTermination = { _ in core.withValue { $0.remove(id: id, channel: channel) } }
        await withCheckedContinuation { (confirmed: CheckedContinuation<Void, Never>) in
            core.withValue { $0.add(continuation, id: id, channel: channel, confirmed: confirmed) }
        }
        return stream
    }

    /// Closes the connection and finishes every stream.
    public func close() async {
        closed.store(true, ordering: .releasing)
        await core.withValueAndWait { $0.close() }
    }
}
