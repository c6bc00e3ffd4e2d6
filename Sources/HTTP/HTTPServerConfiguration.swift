import Core
import System

/// Answers one request. Never throws: the gateway's middleware turns
/// errors into responses before they reach the server. Runs on the
/// caller's executor (`nonisolated(nonsending)`, as the gateway's own async
/// functions do): a plain async function type made every call go through
/// a reabstraction thunk, one more async frame and executor switch per
/// request. A function passed as one must be declared so too (Swift 6.3.1
/// crashes converting a plain `async` function reference to this type).
public typealias HTTPResponder = nonisolated(nonsending) @Sendable (HTTPRequest) async -> HTTPResponse

/// Asked first about each request without a body, on the loop thread as
/// it arrives: answers it now, promises an answer `later` through the
/// `HTTPLaterAnswer` it is given, or declines it (the request then goes to
/// the `HTTPResponder`). An answer given here, now or later, costs no
/// task: no worker is woken, no executor switch happens (see
/// `RequestWorkers`).
public typealias HTTPImmediateResponder = @Sendable (HTTPRequest, HTTPLaterAnswer) -> HTTPImmediateAnswer

/// What an `HTTPImmediateResponder` says about a request.
public enum HTTPImmediateAnswer: Sendable {
    /// The answer.
    case now(HTTPResponse)
    /// The responder keeps the `HTTPLaterAnswer` and sends the answer
    /// through it once, after returning: usually from a callback on the
    /// connection's loop thread (an upstream exchange's), where it is
    /// written at once; from any other thread it is queued there. The
    /// server sets no deadline while it waits: the responder must send.
    case later
    /// The request goes to the `HTTPResponder`.
    case declined
}

/// Everything an HTTP listener needs to know; every default lives here.
public struct HTTPServerConfiguration: Sendable {
    /// Where to listen; port 0 picks a free port (see `HTTPServer.localAddress`).
    /// Unused when `unixSocket` is set.
    public var address: SocketAddress
    /// A Unix-domain socket to listen on instead of `address`: its peers
    /// have no address (`HTTPRequest.peer` is nil), so the per-address
    /// cap never counts them.
    public var unixSocket: UnixSocketFile?
    public var parserLimits: HTTPParserLimits
    /// Open connections at most, across all loops; past it the listener
    /// stops accepting (the kernel backlog holds newcomers) until one closes.
    public var maxConnections: Int
    /// Time allowed to receive a whole request head (slowloris defence).
    public var headerTimeout: Duration
    /// Time a handler may wait for the next body bytes.
    public var bodyTimeout: Duration
    /// A body's minimum rate, in bytes per second: once `bodyRateGrace`
    /// is spent, every `bodyMinRate` bytes received buy one more second
    /// (time the server itself stops reading, under back-pressure, is not
    /// counted). A body that falls behind gets 408 and the connection
    /// closes. 0 turns the deadline off (the gaps' `bodyTimeout` remains).
    public var bodyMinRate = 500
    /// Time a body has before `bodyMinRate` counts: from its head, or from
    /// `100 Continue` for a client that waits for one.
    public var bodyRateGrace: Duration = .seconds(20)
    /// Open connections one peer address may hold; the one past it is
    /// answered 429 (with `Retry-After`) and closed without being read.
    /// 0 turns the cap off.
    public var maxConnectionsPerAddress = 0
    /// Peers the per-address cap does not count (trusted reverse proxies,
    /// which carry many clients' connections).
    public var uncappedPeers: [CIDR] = []
    /// Time a keep-alive connection may sit between requests.
    public var idleTimeout: Duration
    /// Time a pending write may make no progress.
    public var writeTimeout: Duration
    /// Idle request tasks kept per loop for the next requests (see
    /// `RequestWorkers`); a busy server starts more as it needs them.
    public var maxIdleWorkers = 64

    public init(address: SocketAddress,
                parserLimits: HTTPParserLimits = HTTPParserLimits(),
                maxConnections: Int = 16384,
                headerTimeout: Duration = .seconds(10),
                bodyTimeout: Duration = .seconds(30),
                idleTimeout: Duration = .seconds(60),
                writeTimeout: Duration = .seconds(30)) {
        self.address = address
        self.parserLimits = parserLimits
        self.maxConnections = maxConnections
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
    }

    /// How often each loop checks its connections' deadlines: a quarter of
    /// the shortest timeout, between 10 ms and 250 ms.
    var sweepInterval: Duration {
        let shortest = [headerTimeout, bodyTimeout, idleTimeout, writeTimeout, bodyRateGrace].min()!
        return min(.milliseconds(250), max(.milliseconds(10), shortest / 4))
    }
}
