extension RedisServer {
    /// Starts a server with TLS on ``tlsPort`` (certificate, key and CA
    /// from `tls`) beside its plain ``port``, which readiness checks and a
    /// test's own control calls use. With `requireClientCertificate` a TLS
    /// client must present a certificate the CA signed
    /// (`--tls-auth-clients yes`); without it none is asked for.
    public static func start(tls: RedisTLSMaterial, requireClientCertificate: Bool = false,
                             password: String? = nil, arguments: [String] = []) async throws -> RedisServer {
        try await start(password: password, arguments: arguments,
                        tls: TLSSettings(material: tls, requireClientCertificate: requireClientCertificate))
    }
}

/// The TLS side of a server started by ``RedisServer/start(tls:requireClientCertificate:password:arguments:)``.
struct TLSSettings: Sendable {
    let material: RedisTLSMaterial
    let requireClientCertificate: Bool

    func arguments(port: UInt16) -> [String] {
        ["--tls-port", String(port), "--tls-cert-file", material.serverCertificate, "--tls-key-file", material.serverKey,
         "--tls-ca-cert-file", material.caCertificate, "--tls-auth-clients", requireClientCertificate ? "yes" : "no"]
    }
}
