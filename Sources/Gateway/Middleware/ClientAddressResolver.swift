import Core
import HTTP
import System

/// Which header a trusted reverse proxy uses to pass on the client address.
public enum ForwardedHeader: String, Sendable, CaseIterable {
    /// `X-Forwarded-For: client, proxy1, proxy2` (nginx, Traefik, HAProxy).
    case xForwardedFor = "x-forwarded-for"
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    case forwarded
}

/// Finds the browser's address: the TCP peer, unless the peer is a trusted
/// proxy, in which case the proxy's header is walked right to left over
/// trusted hops and the first untrusted address is the client. A chain that
/// is missing or malformed where it is read falls back to the peer, so a
/// client can never choose its own address.
///
/// On a Unix-domain socket listener (`peersAreProxies`) every peer is the
/// proxy, whatever `trustedProxies` says: its header is walked the same
/// way, and where it is missing or malformed the client is
/// ``unknownClient``.
///
/// Only the configured header is read: a proxy appends to its own header
/// and passes the other through untouched, so reading both would let a
/// browser forge an address in the one the proxy ignores.
public struct ClientAddressResolver: Sendable {
    /// Networks whose TCP peers' header is believed, and the hops a
    /// header's chain is walked over.
    public let trustedProxies: [CIDR]
    /// The header read.
    public let header: ForwardedHeader
    /// Every peer is the reverse proxy: the listener is a Unix-domain
    /// socket, whose file permissions decide who may connect.
    public let peersAreProxies: Bool

    /// The client of a request over a Unix-domain socket whose proxy named
    /// none (no header, or a malformed last entry): `0.0.0.0`, which no
    /// client has. Every such request shares it, in `Modgud-Forwarded-For`
    /// and in every limit per address.
    public static let unknownClient = IPAddress.v4(0)

    /// The resolver of a listener; `peersAreProxies` for a Unix-domain socket.
    public init(trustedProxies: [CIDR], header: ForwardedHeader = .xForwardedFor, peersAreProxies: Bool = false) {
        self.trustedProxies = trustedProxies
        self.header = header
        self.peersAreProxies = peersAreProxies
    }

    /// Whether some request's header is read at all.
    public var readsForwardedHeader: Bool { peersAreProxies || !trustedProxies.isEmpty }

    /// Whether `address` is in `trustedProxies`.
    public func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// Whose `traceparent` a request's trace continues: the proxy's, as
    /// its forwarded address is believed (every peer of a Unix-domain
    /// socket, the trusted proxies over TCP); nil when no peer is a proxy
    /// (every request then starts a trace).
    public var tracePeers: (@Sendable (SocketAddress?) -> Bool)? {
        if peersAreProxies { return { _ in true } }
        guard !trustedProxies.isEmpty else { return nil }
        let resolver = self
        return { peer in peer.map { resolver.isTrusted($0.ip) } ?? false }
    }

    /// The browser's address for `request`: over a Unix-domain socket the
    /// proxy's header decides, over TCP ``clientAddress(peer:headers:)``
    /// (a request without a peer, built in a test, counts as loopback).
    public func clientAddress(of request: HTTPRequest) -> IPAddress {
        if peersAreProxies { return forwardedClient(request.headers) ?? Self.unknownClient }
        return clientAddress(peer: request.peer?.ip ?? .v4(0x7F00_0001), headers: request.headers)
    }

    /// The browser's address behind TCP peer `peer`.
    public func clientAddress(peer: IPAddress, headers: HTTPHeaders) -> IPAddress {
        guard isTrusted(peer) else { return peer }
        return forwardedClient(headers) ?? peer
    }

    /// The header's chain walked right to left over trusted hops: the first
    /// untrusted address, or the leftmost when all are trusted; nil when
    /// the chain is empty or an entry read is malformed.
    private func forwardedClient(_ headers: HTTPHeaders) -> IPAddress? {
        let chain: [IPAddress?]
        switch header {
        case .xForwardedFor: chain = Self.xForwardedFor(headers.values("X-Forwarded-For"))
        case .forwarded: chain = Self.forwarded(headers.values("Forwarded"))
        }
        var client: IPAddress?
        for entry in chain.reversed() {
            guard let address = entry else { return nil }
            client = address
            if !isTrusted(address) { return address }
        }
        return client
    }

    /// Every entry of every X-Forwarded-For field, in order; nil for an
    /// entry that is not an address.
    static func xForwardedFor(_ values: [String]) -> [IPAddress?] {
        values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { parseNode($0.trimmingSpacesAndTabs) }
    }

    /// The `for=` parameter of every element of every Forwarded field; nil
    /// for an element without one or with `unknown`/an obfuscated name.
    static func forwarded(_ values: [String]) -> [IPAddress?] {
        values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { element in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingSpacesAndTabs.equalsIgnoringASCIICase("for") else { continue }
                var value = parts[1].trimmingSpacesAndTabs
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
                return parseNode(value)
            }
            return nil
        }
    }

    /// An address with an optional port: `1.2.3.4`, `1.2.3.4:80`, `::1`,
    /// `[::1]`, `[::1]:80`.
    static func parseNode(_ text: Substring) -> IPAddress? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit) && rest.count > 1) else { return nil }
            return IPAddress(text[text.index(after: text.startIndex)..<close])
        }
        if let address = IPAddress(text) { return address }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit),
              case .v4? = IPAddress(parts[0]) else { return nil }
        return IPAddress(parts[0])
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
