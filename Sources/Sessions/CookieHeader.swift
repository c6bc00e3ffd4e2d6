import Core
#if canImport(Glibc)
import Glibc
#endif

/// Reading the `Cookie` request header (RFC 6265 §5.4 `name=value; …`)
/// and writing `Set-Cookie` values. Values are never logged or printed by
/// this type: callers get them back as `Secret` or raw bytes only.
enum CookieHeader {
    /// The value of the cookie called `name` in `header`; nil when there
    /// is none, and nil when there are several. A second cookie of the
    /// gateway's names is never a browser's own doing: a sibling subdomain
    /// or a page that could write cookies placed it to make the gateway
    /// pick the one it chose (`Path` and `Domain` decide the order a
    /// browser sends them in). Neither is used; the answer expires it.
    ///
    /// Tolerant of spaces and tabs around pairs, names and values, of an
    /// empty pair (`a=1;; b=2`) and of a DQUOTE-wrapped value; a pair
    /// without `=` is skipped. Names compare exactly (case-sensitive).
    static func value(named name: String, in header: some StringProtocol) -> Substring.UTF8View? {
        let text = Substring(header)
        // Scanned over the contiguous bytes (every request with a session
        // passes here): index arithmetic on a `Substring.UTF8View` costs a
        // call per step.
        let found = text.withContiguousUTF8 { bytes in
            name.withContiguousUTF8 { name in valueRange(named: name, in: bytes) }
        }
        guard let found else { return nil }
        let utf8 = text.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: found.lowerBound)
        return utf8[lower..<utf8.index(lower, offsetBy: found.count)]
    }

    /// Where the value of the one pair called `name` lies in `bytes`; nil
    /// when no pair or several are called `name` (see `value(named:in:)`).
    static func valueRange(named name: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let first = firstValueRange(named: name, in: bytes, from: 0),
              // The rest of the header, past the first pair, names it no more.
              firstValueRange(named: name, in: bytes, from: first.upperBound) == nil else { return nil }
        return first
    }

    /// Whether more than one pair in `bytes` is called `name`.
    static func namesSeveral(_ name: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = firstValueRange(named: name, in: bytes, from: 0) else { return false }
        return firstValueRange(named: name, in: bytes, from: first.upperBound) != nil
    }

    /// Where the value of the first pair called `name` at or after
    /// `offset` (a pair's start or inside the pair before it) lies.
    private static func firstValueRange(named name: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>,
                                        from offset: Int) -> Range<Int>? {
        var start = offset
        if start > 0 {
            // Inside the pair found before: the next pair starts after its `;`.
            guard let end = index(of: UInt8(ascii: ";"), in: bytes, start..<bytes.count) else { return nil }
            start = end + 1
        }
        while start < bytes.count {
            // `memchr` for the delimiters: the session cookie's value is a
            // hundred bytes or so, scanned on every request.
            let end = index(of: UInt8(ascii: ";"), in: bytes, start..<bytes.count) ?? bytes.count
            let pair = start..<end
            start = end + 1
            guard let equals = index(of: UInt8(ascii: "="), in: bytes, pair) else { continue }
            let pairName = trimmed(pair.lowerBound..<equals, in: bytes)
            guard pairName.count == name.count, pairName.indices.allSatisfy({ bytes[$0] == name[$0 - pairName.lowerBound] }) else {
                continue
            }
            var value = trimmed((equals + 1)..<pair.upperBound, in: bytes)
            if value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\""), bytes[value.upperBound - 1] == UInt8(ascii: "\"") {
                value = (value.lowerBound + 1)..<(value.upperBound - 1)
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

    /// `name=value; Path=/; [Max-Age=n; ]HttpOnly; Secure; SameSite=Strict` (or `sameSite`),
    /// with no `Domain` (required by the `__Host-` prefix).
    static func setCookie(name: String, value: String, maxAge: Int64?, sameSite: String = "Strict") -> String {
        var text = name + "=" + value + "; Path=/"
        if let maxAge { text += "; Max-Age=\(max(0, maxAge))" }
        return text + "; HttpOnly; Secure; SameSite=" + sameSite
    }

    /// The first offset of `byte` in `bytes[range]`, or nil.
    private static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base = bytes.baseAddress,
              let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    private static func trimmed(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var (lower, upper) = (range.lowerBound, range.upperBound)
        while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
        while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
        return lower..<upper
    }
}
