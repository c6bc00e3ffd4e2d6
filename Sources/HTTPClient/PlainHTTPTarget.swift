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
        // By bytes throughout: `[`, `]` and `:` never end a longer character.
        let authorityBytes = authority.utf8
        var hostPart = authorityBytes[...]
        var port: UInt16 = 80
        if authorityBytes.first == UInt8(ascii: "[") {
            guard let close = authorityBytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostPart = authorityBytes[authorityBytes.index(after: authorityBytes.startIndex)..<close]
            let after = authorityBytes[authorityBytes.index(after: close)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":"), let value = Self.port(after.dropFirst()) else { return nil }
                port = value
            }
        } else if let colon = authorityBytes.lastIndex(of: UInt8(ascii: ":")) {
            guard let value = Self.port(authorityBytes[authorityBytes.index(after: colon)...]) else { return nil }
            hostPart = authorityBytes[..<colon]
            port = value
        }
        guard !hostPart.isEmpty else { return nil }
        self.host = String(Substring(hostPart))
        self.port = port
        self.authority = String(authority)
        self.target = target.isEmpty ? "/" : target.utf8.first == UInt8(ascii: "?") ? "/" + target : String(target)
    }

    private static func port(_ digits: Substring.UTF8View.SubSequence) -> UInt16? {
        guard !digits.isEmpty, digits.count <= 5 else { return nil }
        var value = 0
        for digit in digits {
            guard digit >= 0x30, digit <= 0x39 else { return nil }
            value = value * 10 + Int(digit - 0x30)
        }
        guard value > 0, value <= Int(UInt16.max) else { return nil }
        return UInt16(value)
    }

    private static func equalIgnoringCase(_ a: UInt8, _ b: UInt8) -> Bool {
        (a | 0x20) == (b | 0x20)
    }
}
