/// Reading the `Cookie` request header (RFC 6265 §5.4 `name=value; …`)
/// and writing `Set-Cookie` values. Values are never logged or printed by
/// this type: callers get them back as `Secret` or raw bytes only.
enum CookieHeader {
    /// The value of the first cookie called `name` in `header`, or nil.
    ///
    /// Tolerant of spaces and tabs around pairs, names and values, of an
    /// empty pair (`a=1;; b=2`) and of a DQUOTE-wrapped value; a pair
    /// without `=` is skipped. Names compare exactly (case-sensitive).
    static func value(named name: String, in header: some StringProtocol) -> Substring.UTF8View? {
        let utf8 = Substring(header).utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: ";")) ?? utf8.endIndex
            let pair = utf8[start..<end]
            start = end < utf8.endIndex ? utf8.index(after: end) : end
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let pairName = trimmed(pair[..<equals])
            guard pairName.elementsEqual(name.utf8) else { continue }
            var value = trimmed(pair[pair.index(after: equals)...])
            if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                value = value.dropFirst().dropLast()
            }
            return value
        }
        return nil
    }

    /// Whether `name` is a non-empty RFC 7230 token (the cookie-name rule).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }
    }

    /// `name=value; Path=/; [Max-Age=n; ]HttpOnly; Secure; SameSite=Strict`,
    /// with no `Domain` (required by the `__Host-` prefix).
    static func setCookie(name: String, value: String, maxAge: Int64?) -> String {
        var text = name + "=" + value + "; Path=/"
        if let maxAge { text += "; Max-Age=\(max(0, maxAge))" }
        return text + "; HttpOnly; Secure; SameSite=Strict"
    }

    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        return bytes
    }
}
