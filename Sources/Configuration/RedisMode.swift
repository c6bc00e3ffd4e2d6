/// How the gateway reaches Redis (BFF_REDIS_MODE), and so what the hosts of
/// BFF_REDIS_URL are.
public enum RedisMode: String, Sendable, Hashable, CaseIterable {
    /// One Redis server: the URL names exactly one host.
    case single
    /// Redis Sentinel: the URL lists the sentinels, which name the current
    /// master of BFF_REDIS_SENTINEL_MASTER.
    case sentinel
    /// Redis Cluster: the URL lists seed nodes, from which the slot map is
    /// learnt; only database 0 exists.
    case cluster

    /// The port of a host the URL gives without one: 26379 for the
    /// sentinels, 6379 for a Redis server or a cluster node.
    public var defaultPort: UInt16 {
        switch self {
        case .single, .cluster: 6379
        case .sentinel: 26379
        }
    }
}
