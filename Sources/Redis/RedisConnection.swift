import Synchronization
import System

/// One connection to Redis, owned by one event loop: a ``RedisWire`` (the
/// project's own socket, plain or TLS) driven by that loop's epoll set.
///
/// - Commands from many tasks share the connection: each is appended to
///   the wire's output buffer, everything issued in one loop round leaves in
///   one write, and replies are matched in order.
/// - Not ready (connecting, backing off after a failure, closed): every
///   command fails at once with ``RedisError/unavailable``; nothing is
///   queued while the server is away.
/// - A command not answered within ``RedisConfiguration/commandTimeout``
///   fails with ``RedisError/timedOut``; the connection is then dropped and
///   made again (a late reply would answer the wrong command), and the other
///   pending commands fail with ``RedisError/connectionLost``.
/// - Reconnects on its own, with exponential back-off and jitter.
///
/// Calls are cheapest from a task running on ``loop`` (`Task(executorPreference:)`):
/// the command is written and the reply resumed on that thread, no hop.
/// From elsewhere the command is queued onto the loop.
///
/// Plain writes use `send(MSG_NOSIGNAL)`; OpenSSL writes with `write(2)`,
/// so over TLS a server that has gone away raises `SIGPIPE`: the process
/// must ignore it, as the gateway's `main` does.
public final class RedisConnection: Sendable {
    /// The loop that owns the connection.
    public let loop: EventLoop
    /// The settings it connects with.
    public let configuration: RedisConfiguration
    let core: LoopBound<ConnectionCore>
    private let status: ConnectionStatus

    /// Creates the connection; nothing happens until ``start()``.
    public init(configuration: RedisConfiguration, loop: EventLoop) {
        self.loop = loop
        self.configuration = configuration
        status = ConnectionStatus()
        core = LoopBound(ConnectionCore(configuration: configuration, loop: loop, status: status), loop: loop)
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
        core.withValue { $0.start() }
    }

    /// Whether commands can be sent now: connected, authenticated, database
    /// selected.
    public var isReady: Bool { status.isReady }

    /// Why the last connect attempt failed or the connection dropped, until
    /// the next success. Never contains the password.
    public var lastFailure: RedisConnectionFailure? { status.lastFailure }

    /// ``lastFailure`` as text, for a log line or `/readyz`.
    public var lastFailureReason: String? { lastFailure?.description }

    /// Waits until the connection is ready; false after `timeout` or once
    /// closed.
    public func waitUntilReady(timeout: Duration = .seconds(5)) async -> Bool {
        if status.isReady { return true }
        return await withCheckedContinuation { continuation in
            core.withValue { $0.waitUntilReady(timeout: timeout, continuation: continuation) }
        }
    }

    /// Sends one command (name first, then the arguments, all binary-safe)
    /// and returns its reply. An error reply is thrown as
    /// ``RedisError/server(_:)``.
    public func send(_ arguments: [[UInt8]]) async throws(RedisError) -> RedisValue {
        guard let name = arguments.first else { throw .protocolError }
        guard status.isReady else { throw .unavailable }
        let command = RESPCommand.encode(arguments)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<RedisValue, RedisError>, Never>) in
            core.withValue { $0.send(command, name: name, continuation: continuation) }
        }
        return try result.get()
    }

    /// Sends several commands in one write (pipelined) and returns their
    /// replies in order. An error reply to one command is its
    /// ``RedisValue/error(_:)`` element; the others still count. A timeout
    /// or lost connection fails the whole batch.
    public func send(batch: [[[UInt8]]]) async throws(RedisError) -> [RedisValue] {
        if batch.isEmpty { return [] }
        guard !batch.contains(where: \.isEmpty) else { throw .protocolError }
        guard status.isReady else { throw .unavailable }
        let commands = batch.map(RESPCommand.encode)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[RedisValue], RedisError>, Never>) in
            core.withValue { $0.send(batch: commands, continuation: continuation) }
        }
        return try result.get()
    }

    /// Closes the connection and stops reconnecting; pending commands fail
    /// with ``RedisError/connectionLost``. The socket and its wire
    /// are freed before this returns.
    public func close() async {
        closed.store(true, ordering: .releasing)
        await core.withValueAndWait { $0.close() }
    }
}
