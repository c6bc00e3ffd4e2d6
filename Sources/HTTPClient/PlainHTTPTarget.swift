/// A plain `http` URL taken apart for the client's own HTTP/1.1
/// connections: where to connect, the `Host` field and the request target.
/// Anything unusual (user info, a fragment, another scheme) is left to
/// libcurl, which either handles it or refuses it.
struct PlainHTTPTarget: Equatable {
    /// A host name, an IPv4 literal, or an IPv6 literal without brackets.
    var host: String
    var port: UInt16
    /// The `Host` field: the authority as written.
    var authority: String
    /// Path and query, starting with `/`.
    var target: String

    /// The pool's key: connections are shared by requests with the same one.
    var endpoint: String { authority }

    init?(_ url: String) {
        let bytes = url.utf8
        guard bytes.count > 7, url.utf8.prefix(7).elementsEqual("http://".utf8, by: Self.equalIgnoringCase) else { return nil }
        let rest = url.utf8.dropFirst(7)
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        let authority = Substring(rest[rest.startIndex..<authorityEnd])
        let target = Substring(rest[authorityEnd...])
        guard !authority.isEmpty, !authority.utf8.contains(UInt8(ascii: "@")),
              !target.utf8.contains(UInt8(ascii: "#")), !authority.utf8.contains(UInt8(ascii: "#")) else { return nil }
        var hostPart = authority
        var port: UInt16 = 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Self.port(after.dropFirst()) else { return nil }
                port = value
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let value = Self.port(authority[authority.index(after: colon)...]) else { return nil }
            hostPart = authority[..<colon]
            port = value
        }
        guard !hostPart.isEmpty else { return nil }
        self.host = String(hostPart)
        self.port = port
        self.authority = String(authority)
        self.target = target.isEmpty ? "/" : target.hasPrefix("?") ? "/" + target : String(target)
    }

    private static func port(_ text: Substring) -> UInt16? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let value = UInt16(text), value > 0 else { return nil }
        return value
    }

    private static func equalIgnoringCase(_ a: UInt8, _ b: UInt8) -> Bool {
        (a | 0x20) == (b | 0x20)
    }
}
