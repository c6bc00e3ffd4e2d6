import Synchronization

/// Why a connection is not (or was not) ready, for logs and `/readyz`.
/// Never contains a password or a command's arguments.
public enum RedisConnectionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host name could not be resolved (the resolver's message).
    case resolve(String)
    /// The TCP connect failed (the system's reason, e.g. `Connection refused`).
    case connect(String)
    /// The TLS settings could not be loaded, or the TLS handshake failed
    /// (OpenSSL's reason or the certificate check's verdict).
    case tls(String)
    /// TCP connect plus handshake took longer than `connectTimeout`.
    case connectTimedOut
    /// `AUTH` was refused (the server's error, e.g. `WRONGPASS …`).
    case authentication(String)
    /// `SELECT` was refused (e.g. the index is out of range).
    case selectDatabase(String)
    /// The connect-time `PING` was refused (e.g. `NOAUTH` when the server
    /// wants a password and none is configured).
    case handshake(String)
    /// No sentinel named the master (the last sentinel's problem).
    case sentinel(String)
    /// The server the sentinels named answered `ROLE` as a replica (a
    /// failover under way), or a write found it read-only.
    case notMaster(String)
    /// A ready connection was closed by the server or by an I/O error.
    case connectionLost(String)
    /// A command timed out, so the connection was dropped.
    case commandTimedOut

    /// One line for a log or `/readyz`; no secrets.
    public var description: String {
        switch self {
        case .resolve(let text): "host name lookup failed: \(text)"
        case .connect(let text): "connect failed: \(text)"
        case .tls(let text): "TLS failed: \(text)"
        case .connectTimedOut: "connect timed out"
        case .authentication(let text): "AUTH failed: \(text)"
        case .selectDatabase(let text): "SELECT failed: \(text)"
        case .handshake(let text): "handshake failed: \(text)"
        case .sentinel(let text): "no master from the sentinels: \(text)"
        case .notMaster(let role): "the server is not the master (role \(role))"
        case .connectionLost(let text): "connection lost: \(text)"
        case .commandTimedOut: "a command timed out; connection dropped"
        }
    }
}

/// What other threads may read about a connection: whether it is ready
/// (checked before every command, so one atomic load) and the last failure.
final class ConnectionStatus: Sendable {
    private let ready = Atomic<Bool>(false)
    private let failure = Mutex<RedisConnectionFailure?>(nil)

    var isReady: Bool { ready.load(ordering: .acquiring) }
    var lastFailure: RedisConnectionFailure? { failure.withLock { $0 } }

    func becameReady() {
        failure.withLock { $0 = nil }
        ready.store(true, ordering: .releasing)
    }

    func notReady(because reason: RedisConnectionFailure?) {
        ready.store(false, ordering: .releasing)
        if let reason { failure.withLock { $0 = reason } }
    }
}
