import Core

/// The same-host spoofing cautions: a trusted proxy range that also holds
/// addresses every local client has.
extension GatewayConfig {
    static let loopbackAddresses: [IPAddress] = [.v4(0x7F00_0001), .v6(high: 0, low: 1)]

    static let sameHostFix = "listen on a Unix socket (BFF_LISTEN=unix:/run/modgud-bff/public.sock, "
        + "BFF_TRUSTED_PROXIES empty), or have the proxy connect from a loopback address of its own (nginx "
        + "`proxy_bind 127.0.0.2;`) and trust only that (BFF_TRUSTED_PROXIES=127.0.0.2/32)"

    /// One sentence per trusted range that lets a local client choose its
    /// own address: over TCP a range holding the listener's address, or
    /// 127.0.0.1/::1 while the listener is on loopback (or on every
    /// address); over a Unix socket a range holding 127.0.0.1/::1, the
    /// address the proxy itself names a local client by.
    func proxyTrustCautions() -> [String] {
        let header = forwardedHeader == "forwarded" ? "Forwarded" : "X-Forwarded-For"
        var cautions: [String] = []
        for range in trustedProxies {
            let loopback = Self.loopbackAddresses.filter(range.contains).map(\.description)
            let why: String
            if listen.socketPath != nil {
                guard !loopback.isEmpty else { continue }
                why = "contains \(loopback.joined(separator: " and ")) while BFF_LISTEN is a Unix socket: the proxy "
                    + "names a client on this host by that address, and trusting it lets such a client put an address "
                    + "of its choosing before it in \(header); a peer on the socket is the proxy already, so "
                    + "drop \(range) from BFF_TRUSTED_PROXIES"
            } else if !listen.host.isUnspecified, range.contains(listen.host) {
                why = "contains \(listen.host), the address BFF_LISTEN (\(listen)) is on: every client on this host "
                    + "can connect from it, send its own \(header) and choose the address the gateway and Modgud see; "
                    + Self.sameHostFix
            } else if listen.isLoopback || listen.host.isUnspecified, !loopback.isEmpty {
                why = "contains \(loopback.joined(separator: " and ")) while BFF_LISTEN (\(listen)) takes connections "
                    + "from this host: every client on this host has that address, so any of them can send its own "
                    + "\(header) and choose the address the gateway and Modgud see; " + Self.sameHostFix
            } else {
                continue
            }
            cautions.append("BFF_TRUSTED_PROXIES range \(range) " + why)
        }
        return cautions
    }
}
