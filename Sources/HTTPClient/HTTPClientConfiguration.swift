/// Everything an `HTTPClient` needs to know; every default lives here.
/// Per-request settings in `HTTPClientRequest` override the matching ones.
public struct HTTPClientConfiguration: Sendable {
    /// Time allowed to resolve the host and establish TCP (and TLS).
    public var connectTimeout: Duration
    /// For `execute`: the whole exchange, from start to the last body byte.
    /// For `stream`: the longest stretch with no bytes moving either way
    /// while neither the body source nor the body consumer holds the
    /// transfer paused.
    public var timeout: Duration
    /// The largest response body `execute` accepts; past it the transfer is
    /// aborted with `.responseTooLarge`. Streams are unlimited unless the
    /// request sets its own limit.
    public var maxResponseBytes: Int
    /// A PEM file of CA certificates to trust instead of the system's (for
    /// a private CA).
    public var caFile: String?
    /// Whether the server's certificate and host name are checked. Only a
    /// test against a throwaway server should turn this off.
    public var verifyTLS: Bool
    /// Open connections to one host at most, per event loop; requests past
    /// it wait for a free connection. Nil means no limit.
    public var maxConnectionsPerHost: Int?
    /// Idle connections kept for reuse, per event loop. libcurl's own
    /// default follows the number of transfers running when the pool
    /// fills, so a lull would close connections a burst then reopens.
    public var maxIdleConnections: Int
    /// An idle pooled connection older than this is not reused (it is
    /// closed and a new one opened). Keep it below the upstream's own
    /// keep-alive timeout so a request never races the server's close.
    public var maxIdleConnectionAge: Duration
    /// Bytes a stream buffers between the connection and its consumer (each
    /// way) before the transfer is paused.
    public var streamBufferBytes: Int
    /// Whether `stream` speaks HTTP/1.1 itself over its own pooled
    /// connections for plain `http` URLs (libcurl still serves `https`,
    /// `execute`, and URLs it alone understands). The limits and timeouts
    /// above apply to both.
    public var ownPlainHTTP: Bool

    /// The defaults suit a call to an identity server on a private network.
    public init(connectTimeout: Duration = .seconds(2),
                timeout: Duration = .seconds(10),
                maxResponseBytes: Int = 1 << 20,
                caFile: String? = nil,
                verifyTLS: Bool = true,
                maxConnectionsPerHost: Int? = nil,
                maxIdleConnections: Int = 256,
                maxIdleConnectionAge: Duration = .seconds(30),
                streamBufferBytes: Int = 512 * 1024,
                ownPlainHTTP: Bool = true) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.caFile = caFile
        self.verifyTLS = verifyTLS
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxIdleConnections = maxIdleConnections
        self.maxIdleConnectionAge = maxIdleConnectionAge
        self.streamBufferBytes = streamBufferBytes
        self.ownPlainHTTP = ownPlainHTTP
    }
}
