import Core

/// Where and how a ``RedisConnection`` connects. Every default lives here.
///
/// `host` is an IP literal (IPv4 or IPv6, without brackets), `localhost`
/// (taken as 127.0.0.1 without a lookup) or a DNS name. A DNS name is
/// resolved before every connect attempt with `getaddrinfo` on a private
/// Dispatch queue — never on an event loop and never on Swift's cooperative
/// pool — and the first address (IPv4 preferred) is used.
public struct RedisConfiguration: Sendable {
    /// An IP literal, `localhost` or a DNS name (see above).
    public var host: String
    /// The TCP port (6379 by default).
    public var port: Int
    /// The ACL user (Redis 6+); nil authenticates as the default user.
    public var username: String?
    /// Sent with `AUTH` on every connect; nil sends no `AUTH`.
    public var password: Secret?
    /// The logical database, `SELECT`ed on every connect when not 0.
    public var database: Int
    /// With Sentinel: the master comes from the sentinels before every
    /// connect (`host` and `port` are then unused), is confirmed with
    /// `ROLE`, and connections move when the sentinels announce a failover.
    public var sentinel: SentinelMonitor?
    /// With Redis Cluster: seed nodes. A ``RedisClient`` then learns the
    /// slots and nodes from them and routes each command by its key's slot
    /// (`host` and `port` are unused). Connections and subscribers, which
    /// talk to one server, take the seeds in turn when one cannot be reached.
    public var cluster: [RedisAddress]?
    /// TLS, when set: every connection runs a TLS handshake after the TCP
    /// connect and checks the server's certificate.
    public var security: WireSecurity?
    /// How long a TCP connect plus the `AUTH`/`SELECT` handshake may take.
    public var connectTimeout: Duration
    /// How long a command may wait for its reply. A command past it fails
    /// with ``RedisError/timedOut``; since replies come in order, the
    /// connection is then dropped and made again.
    public var commandTimeout: Duration
    /// The delay before a reconnect attempt: it starts at the lower bound,
    /// doubles with each failed attempt up to the upper bound, and a random
    /// jitter takes up to half of it off.
    public var reconnectBackoff: ClosedRange<Duration>

    /// Every setting with its default.
    public init(host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: Secret? = nil,
                database: Int = 0, sentinel: SentinelMonitor? = nil, security: WireSecurity? = nil, connectTimeout: Duration = .seconds(1), commandTimeout: Duration = .milliseconds(500),
                reconnectBackoff: ClosedRange<Duration> = .milliseconds(50) ... .seconds(2)) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.security = security
        self.sentinel = sentinel
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.reconnectBackoff = reconnectBackoff
    }
}

extension RedisConfiguration {
    /// These settings for one node at `address`: the same credentials, TLS
    /// and timeouts, that node's host and port, and no cluster seeds.
    func node(at address: RedisAddress) -> RedisConfiguration {
        var node = self
        node.host = address.host
        node.port = address.port
        node.cluster = nil
        return node
    }
}
