import Testing
import Core
import HTTP
@testable import Gateway

@Suite("Client address from trusted proxies")
struct ClientAddressResolverTests {
    static let resolver = ClientAddressResolver(trustedProxies: [CIDR("10.0.0.0/8")!, CIDR("::1/128")!, CIDR("127.0.0.1/32")!])
    static let rfc7239 = ClientAddressResolver(trustedProxies: [CIDR("10.0.0.0/8")!], header: .forwarded)

    static func resolve(_ resolver: ClientAddressResolver, peer: String, _ headers: [(String, String)]) -> String {
        resolver.clientAddress(peer: IPAddress(peer)!, headers: HTTPHeaders(headers.map { HTTPField(name: $0.0, value: $0.1) })).description
    }

    @Test(arguments: [
        // An untrusted peer is the client, whatever it claims.
        ("203.0.113.9", [("X-Forwarded-For", "198.51.100.1")], "203.0.113.9"),
        // A trusted proxy: the rightmost untrusted entry.
        ("10.0.0.2", [("X-Forwarded-For", "198.51.100.1")], "198.51.100.1"),
        ("10.0.0.2", [("X-Forwarded-For", "1.1.1.1, 198.51.100.1, 10.0.0.7")], "198.51.100.1"),
        ("10.0.0.2", [("X-Forwarded-For", "1.1.1.1"), ("X-Forwarded-For", "198.51.100.1")], "198.51.100.1"),
        // All hops trusted: the leftmost.
        ("10.0.0.2", [("X-Forwarded-For", "10.9.9.9, 10.0.0.7")], "10.9.9.9"),
        // No header from a trusted proxy: the peer.
        ("10.0.0.2", [], "10.0.0.2"),
        // Malformed where it is read: the peer.
        ("10.0.0.2", [("X-Forwarded-For", "1.1.1.1, not-an-ip")], "10.0.0.2"),
        ("10.0.0.2", [("X-Forwarded-For", "1.1.1.1, ")], "10.0.0.2"),
        ("10.0.0.2", [("X-Forwarded-For", "unknown")], "10.0.0.2"),
        // Garbage to the left of the client is never reached.
        ("10.0.0.2", [("X-Forwarded-For", "garbage, 198.51.100.1")], "198.51.100.1"),
        // Ports and brackets; IPv4-mapped IPv6 written as IPv4.
        ("10.0.0.2", [("X-Forwarded-For", "198.51.100.1:4433")], "198.51.100.1"),
        ("10.0.0.2", [("X-Forwarded-For", "[2001:db8::1]:443")], "2001:db8::1"),
        ("10.0.0.2", [("X-Forwarded-For", "2001:db8::1")], "2001:db8::1"),
        ("10.0.0.2", [("X-Forwarded-For", "::ffff:198.51.100.1")], "198.51.100.1"),
        ("::1", [("X-Forwarded-For", "198.51.100.1")], "198.51.100.1"),
        ("::ffff:127.0.0.1", [("X-Forwarded-For", "198.51.100.2")], "198.51.100.2"),
        // The other header is ignored: a browser could have forged it.
        ("10.0.0.2", [("Forwarded", "for=198.51.100.1")], "10.0.0.2"),
    ] as [(String, [(String, String)], String)])
    func xForwardedFor(peer: String, headers: [(String, String)], expected: String) {
        #expect(Self.resolve(Self.resolver, peer: peer, headers) == expected)
    }

    @Test(arguments: [
        ("10.0.0.2", [("Forwarded", "for=198.51.100.1;proto=https")], "198.51.100.1"),
        ("10.0.0.2", [("Forwarded", "for=1.1.1.1, for=\"[2001:db8:cafe::17]:4711\"")], "2001:db8:cafe::17"),
        ("10.0.0.2", [("Forwarded", "for=198.51.100.1, for=10.0.0.9")], "198.51.100.1"),
        ("10.0.0.2", [("Forwarded", "For=\"198.51.100.1:80\"")], "198.51.100.1"),
        ("10.0.0.2", [("Forwarded", "for=unknown")], "10.0.0.2"),
        ("10.0.0.2", [("Forwarded", "for=_hidden")], "10.0.0.2"),
        ("10.0.0.2", [("Forwarded", "proto=https")], "10.0.0.2"),
        ("10.0.0.2", [("X-Forwarded-For", "198.51.100.1")], "10.0.0.2"),
        ("203.0.113.9", [("Forwarded", "for=198.51.100.1")], "203.0.113.9"),
    ] as [(String, [(String, String)], String)])
    func forwarded(peer: String, headers: [(String, String)], expected: String) {
        #expect(Self.resolve(Self.rfc7239, peer: peer, headers) == expected)
    }
}
