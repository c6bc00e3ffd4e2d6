/// One Redis server's address (a server, a sentinel or a cluster node):
/// a host and a port.
public struct RedisNode: Sendable, Hashable, CustomStringConvertible {
    /// A host name in lower case, or an IP address in canonical form (an
    /// IPv6 address without brackets).
    public var host: String
    /// The TCP port.
    public var port: UInt16

    /// A node at `host` and `port`; `host` is taken as given.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `host:port`, an IPv6 address in brackets (`[::1]:6379`).
    public var description: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }
}
