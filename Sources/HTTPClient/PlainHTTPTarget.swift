import Core

/// A plain `http` URL taken apart for the client's own HTTP/1.1
/// connections: where to connect, the `Host` field and the request target.
/// Anything unusual (user info, a fragment, another scheme) is left to
/// libcurl, which either handles it or refuses it.
///
/// The URL's parts sit in one immutable object shared by every target
/// appended to it (`appending`): a target is copied on its way to a
/// connection, and a copy then retains that object and the suffix, not
/// each of the parts' strings.
struct PlainHTTPTarget: Equatable {
    final class Origin: Sendable {
        /// A host name, an IPv4 literal, or an IPv6 literal without brackets.
        let host: String
        let port: UInt16
        /// The `Host` field: the authority as written.
        let authority: String
        /// The URL's own path and query, starting with `/`.
        let path: String
        /// Whether the URL's authority ends with a `/` or `?`, so that text
        /// appended to the URL extends its path or query (and not its host).
        let takesSuffix: Bool
        /// The endpoint's number in the client that made the base (see
        /// `slot`).
        let slot: Int?

        init(host: String, port: UInt16, authority: String, path: String, takesSuffix: Bool, slot: Int?) {
            self.host = host
            self.port = port
            self.authority = authority
            self.path = path
            self.takesSuffix = takesSuffix
            self.slot = slot
        }
    }

    let origin: Origin
    /// What a request built on the URL as a base appends (`appending`),
    /// written out after the URL's own path and query.
    private(set) var suffix = ""

    var host: String { origin.host }
    var port: UInt16 { origin.port }
    var authority: String { origin.authority }
    var path: String { origin.path }
    /// The endpoint's number in the client that made the base this target
    /// was appended to (`HTTPClient.base`): its pools find the endpoint's
    /// connections by it. Nil for other targets.
    var slot: Int? { origin.slot }

    /// The request target: path and query.
    var target: String { path + suffix }

    /// The pool's key: connections are shared by requests with the same one.
    var endpoint: String { authority }

    init?(_ url: String) {
        // Over the contiguous bytes: a route's base is parsed once, other
        // URLs once per request, and the generic `String.UTF8View`
        // searches showed in profiles.
        guard let origin = url.withContiguousUTF8({ Self.parse($0) }) else { return nil }
        self.origin = origin
    }

    private init(origin: Origin, suffix: String) {
        self.origin = origin
        self.suffix = suffix
    }

    /// This target with its endpoint numbered `slot`.
    func numbered(_ slot: Int) -> PlainHTTPTarget {
        PlainHTTPTarget(origin: Origin(host: host, port: port, authority: authority, path: path,
                                       takesSuffix: origin.takesSuffix, slot: slot),
                        suffix: suffix)
    }

    /// The target of this URL with `text` appended: what parsing the URL
    /// followed by `text` would give, without parsing it. Nil when that
    /// would not be a plain target (a fragment) or the URL's authority is
    /// not closed (`http://h` followed by `x` names another host).
    func appending(_ text: String) -> PlainHTTPTarget? {
        guard origin.takesSuffix, suffix.isEmpty, !text.withContiguousUTF8({ $0.contains(UInt8(ascii: "#")) })
        else { return nil }
        return PlainHTTPTarget(origin: origin, suffix: text)
    }

    static func == (a: PlainHTTPTarget, b: PlainHTTPTarget) -> Bool {
        a.host == b.host && a.port == b.port && a.authority == b.authority && a.path == b.path && a.suffix == b.suffix
            && a.slot == b.slot && a.origin.takesSuffix == b.origin.takesSuffix
    }

    private static func parse(_ url: UnsafeBufferPointer<UInt8>) -> Origin? {
        let scheme: StaticString = "http://"
        let start = scheme.utf8CodeUnitCount
        guard url.count > start else { return nil }
        // An indexed loop: `zip` over the two made an iterator call per byte.
        for index in 0..<start where !equalIgnoringCase(url[index], scheme.utf8Start[index]) { return nil }
        var authorityEnd = start
        while authorityEnd < url.count, url[authorityEnd] != UInt8(ascii: "/"), url[authorityEnd] != UInt8(ascii: "?") {
            authorityEnd += 1
        }
        let authority = start..<authorityEnd
        guard !authority.isEmpty, !url[authority].contains(UInt8(ascii: "@")),
              !url[start...].contains(UInt8(ascii: "#")) else { return nil }
        var host = authority
        var port: UInt16 = 80
        if url[start] == UInt8(ascii: "[") {
            guard let close = url[authority].firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = (start + 1)..<close
            if close + 1 < authorityEnd {
                guard url[close + 1] == UInt8(ascii: ":"), let value = Self.port(url[(close + 2)..<authorityEnd]) else { return nil }
                port = value
            }
        } else if let colon = url[authority].lastIndex(of: UInt8(ascii: ":")) {
            guard let value = Self.port(url[(colon + 1)..<authorityEnd]) else { return nil }
            host = start..<colon
            port = value
        }
        guard !host.isEmpty else { return nil }
        let path: String
        if authorityEnd == url.count {
            path = "/"
        } else if url[authorityEnd] == UInt8(ascii: "?") {
            path = "/" + text(url, authorityEnd..<url.count)
        } else {
            path = text(url, authorityEnd..<url.count)
        }
        return Origin(host: text(url, host), port: port, authority: text(url, authority), path: path,
                      takesSuffix: authorityEnd < url.count, slot: nil)
    }

    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private static func port(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt16? {
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
