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
/// Only the configured header is read: a proxy appends to its own header
/// and passes the other through untouched, so reading both would let a
/// browser forge an address in the one the proxy ignores.
public struct ClientAddressResolver: Sendable {
    public let trustedProxies: [CIDR]
    public let header: ForwardedHeader

    public init(trustedProxies: [CIDR], header: ForwardedHeader = .xForwardedFor) {
        self.trustedProxies = trustedProxies
        self.header = header
    }

    public func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// Whose `traceparent` a request's trace continues: the trusted
    /// proxies', as their forwarded address is believed; nil when no proxy
    /// is trusted (every request then starts a trace).
    public var tracePeers: (@Sendable (SocketAddress) -> Bool)? {
        guard !trustedProxies.isEmpty else { return nil }
        let resolver = self
        return { peer in resolver.isTrusted(peer.ip) }
    }

    public func clientAddress(peer: IPAddress, headers: HTTPHeaders) -> IPAddress {
        guard isTrusted(peer) else { return peer }
        let chain: [IPAddress?]
        switch header {
        case .xForwardedFor: chain = Self.xForwardedFor(headers.values("X-Forwarded-For"))
        case .forwarded: chain = Self.forwarded(headers.values("Forwarded"))
        }
        var client = peer
        for entry in chain.reversed() {
            guard let address = entry else { return peer }
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
