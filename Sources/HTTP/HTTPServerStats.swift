import Synchronization

/// Counters a server keeps for its metrics; read at scrape time.
public final class HTTPServerStats: Sendable {
    public let openConnections = Atomic<Int>(0)
    public let acceptedConnections = Atomic<Int>(0)
    public let requests = Atomic<Int>(0)
    /// Requests refused by the parser (400, 413, 414, 417, 431, 501, 505).
    public let rejectedRequests = Atomic<Int>(0)
    /// Connections ended by a header, body, idle or write timeout.
    public let timeouts = Atomic<Int>(0)
    /// Request bodies cut off for falling behind the minimum rate (also
    /// counted in `timeouts`).
    public let slowBodies = Atomic<Int>(0)
    /// Connections refused at accept because their peer address already
    /// held `maxConnectionsPerAddress`.
    public let refusedConnections = Atomic<Int>(0)
    /// Tasks started to answer requests; each answers many in turn.
    public let workersStarted = Atomic<Int>(0)
    /// Requests the immediate responder answered on the loop thread, now
    /// or later, without a task.
    public let answeredWithoutTask = Atomic<Int>(0)

    public init() {}
}
