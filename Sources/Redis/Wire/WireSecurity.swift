import Crypto

/// How a connection protects its stream: not at all, or TLS with these
/// settings, the certificate checked for `serverName`.
public struct WireSecurity: Sendable {
    /// The trust anchors and client certificate.
    public let configuration: TLSClientConfiguration
    /// The name the certificate must carry (a DNS name, sent as SNI, or an
    /// IP literal); nil: the host the connection was made to.
    public let serverName: String?

    /// TLS with `configuration`; the certificate is checked for
    /// `serverName`, or for each connection's own host when nil.
    public init(configuration: TLSClientConfiguration, serverName: String? = nil) {
        self.configuration = configuration
        self.serverName = serverName
    }
}
