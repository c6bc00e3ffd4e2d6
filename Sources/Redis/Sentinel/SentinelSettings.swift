import Core

/// A host and port of a Redis server or sentinel.
public struct RedisAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IP literal, `localhost` or a DNS name.
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, an IPv6 literal in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Where the sentinels are and how to ask them about one master.
public struct SentinelSettings: Sendable {
    /// The sentinels, asked in this order.
    public var sentinels: [RedisAddress]
    /// The name the sentinels monitor the master under.
    public var masterName: String
    /// The sentinels' own ACL user and password (not the data nodes').
    public var username: String?
    public var password: Secret?
    /// TLS to the sentinels (the data nodes' setting).
    public var security: WireSecurity?
    /// How long one sentinel may take to connect and answer.
    public var timeout: Duration

    public init(sentinels: [RedisAddress], masterName: String, username: String? = nil, password: Secret? = nil,
                security: WireSecurity? = nil, timeout: Duration = .seconds(1)) {
        self.sentinels = sentinels
        self.masterName = masterName
        self.username = username
        self.password = password
        self.security = security
        self.timeout = timeout
    }
}
