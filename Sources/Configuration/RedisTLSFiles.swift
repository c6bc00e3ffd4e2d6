/// How TLS to Redis is set up for a `rediss://` BFF_REDIS_URL. The server's
/// certificate is always verified; these only say against what, and with
/// which client certificate.
public struct RedisTLSFiles: Sendable, Hashable {
    /// BFF_REDIS_CA_FILE: a PEM bundle of the CA certificates that verify
    /// the servers' certificates; nil: the system's trust store.
    public var caFile: String?
    /// BFF_REDIS_CERT_FILE: the client certificate (PEM), given together
    /// with ``keyFile``; nil: none.
    public var certificateFile: String?
    /// BFF_REDIS_KEY_FILE: the client certificate's private key (PEM).
    public var keyFile: String?
    /// BFF_REDIS_TLS_SERVER_NAME: the name sent as SNI and checked in every
    /// node's certificate; nil: each node's own host (for an IP address,
    /// the address is checked and no SNI is sent).
    public var serverName: String?

    /// TLS settings; all nil is TLS with the system's trust store, no
    /// client certificate and each node's own name.
    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, serverName: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.serverName = serverName
    }
}
