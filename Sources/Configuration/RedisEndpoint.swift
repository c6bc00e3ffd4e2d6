import Core

/// Where the session store lives and how to reach it: BFF_REDIS_URL,
/// `redis://` or `rediss://` (TLS)
/// `[[user]:password@]host[:port][,host[:port]…][/db]`, with BFF_REDIS_MODE
/// and the other BFF_REDIS_* settings.
///
/// The user and password are those of the data nodes (the one server, the
/// master Sentinel names, the cluster nodes). The password is
/// percent-decoded (write `%40` for `@`, `%2F` for `/`, though a raw `@` or
/// `/` in it also works: the last `@` ends it) and kept as a ``Secret``;
/// ``description`` shows it as `<redacted>`. A host without a port gets the
/// mode's ``RedisMode/defaultPort``; the database defaults to 0.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// BFF_REDIS_MODE: one server, Sentinel or Cluster.
    public var mode: RedisMode
    /// The hosts of the URL, in order: the server (``RedisMode/single``),
    /// the sentinels (``RedisMode/sentinel``) or the seed nodes
    /// (``RedisMode/cluster``). Never empty once parsed.
    public var nodes: [RedisNode]
    /// The ACL user (Redis 6+) of the data nodes; nil for the default user.
    public var username: String?
    /// The data nodes' password, from the URL or BFF_REDIS_PASSWORD_FILE.
    public var password: Secret?
    /// The logical database, `SELECT`ed after connecting; always 0 in
    /// cluster mode.
    public var database: Int
    /// The TLS settings; non-nil exactly for a `rediss://` URL.
    public var tls: RedisTLSFiles?
    /// BFF_REDIS_SENTINEL_MASTER: the master's name at the sentinels; set
    /// exactly in sentinel mode.
    public var sentinelMaster: String?
    /// BFF_REDIS_SENTINEL_USERNAME: the ACL user at the sentinels; nil for
    /// the default user.
    public var sentinelUsername: String?
    /// BFF_REDIS_SENTINEL_PASSWORD_FILE's contents: the sentinels' password;
    /// nil when they ask for none.
    public var sentinelPassword: Secret?
    /// BFF_REDIS_WAIT_REPLICAS: replicas that must acknowledge a new session
    /// or a rotated refresh token (`WAIT`) before the answer goes out; 0
    /// sends no `WAIT`.
    public var waitReplicas: Int
    /// BFF_REDIS_WAIT_TIMEOUT_MS: the timeout given to `WAIT`.
    public var waitTimeout: Duration

    /// The first node's host (the one server in single mode).
    public var host: String {
        get { nodes.first?.host ?? "" }
        set {
            if nodes.isEmpty { nodes.append(RedisNode(host: newValue, port: mode.defaultPort)) } else { nodes[0].host = newValue }
        }
    }

    /// The first node's port (the one server's in single mode).
    public var port: UInt16 {
        get { nodes.first?.port ?? mode.defaultPort }
        set {
            if nodes.isEmpty { nodes.append(RedisNode(host: "", port: newValue)) } else { nodes[0].port = newValue }
        }
    }

    /// One Redis server over plain TCP, without `WAIT`.
    public init(host: String, port: UInt16 = 6379, username: String? = nil, password: Secret? = nil, database: Int = 0) {
        self.init(mode: .single, nodes: [RedisNode(host: host, port: port)], username: username, password: password,
                  database: database)
    }

    /// Any mode; every setting but the nodes has the default of its
    /// BFF_REDIS_* setting.
    public init(mode: RedisMode, nodes: [RedisNode], username: String? = nil, password: Secret? = nil, database: Int = 0,
                tls: RedisTLSFiles? = nil, sentinelMaster: String? = nil, sentinelUsername: String? = nil,
                sentinelPassword: Secret? = nil, waitReplicas: Int = 0, waitTimeout: Duration = .milliseconds(100)) {
        self.mode = mode
        self.nodes = nodes
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.sentinelMaster = sentinelMaster
        self.sentinelUsername = sentinelUsername
        self.sentinelPassword = sentinelPassword
        self.waitReplicas = waitReplicas
        self.waitTimeout = waitTimeout
    }

    /// The URL with every node and the database, the password as
    /// `<redacted>`: `rediss://app:<redacted>@r1:6379,r2:6379/0`.
    public var redactedURL: String {
        var userInfo = ""
        if username != nil || password != nil {
            userInfo = (username ?? "") + (password == nil ? "" : ":<redacted>") + "@"
        }
        let scheme = tls == nil ? "redis" : "rediss"
        return "\(scheme)://\(userInfo)\(nodes.map(\.description).joined(separator: ","))/\(database)"
    }

    /// ``redactedURL``, followed in sentinel mode by the master's name
    /// (`redis://s1:26379,s2:26379/0 (sentinel master main)`) and in
    /// cluster mode by `(cluster)`. No password ever appears.
    public var description: String {
        switch mode {
        case .single: redactedURL
        case .sentinel: redactedURL + " (sentinel master \(sentinelMaster ?? "not set"))"
        case .cluster: redactedURL + " (cluster)"
        }
    }
}
