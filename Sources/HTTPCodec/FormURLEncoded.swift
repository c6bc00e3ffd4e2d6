import Core

/// `application/x-www-form-urlencoded` bodies and query strings (WHATWG URL
/// standard): `+` is a space, `%XX` a byte; names and values are UTF-8.
public enum FormURLEncoded {
    /// The pairs in order; nil when a `%` escape is malformed or the bytes
    /// are not UTF-8 (a form is refused, never repaired).
    public static func parse(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)]? {
        var pairs: [(String, String)] = []
        for part in Array(bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let pieces = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pieces[0]), let value = decode(pieces.count > 1 ? pieces[1] : []) else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Parses a query string or form body given as text.
    public static func parse(_ text: some StringProtocol) -> [(name: String, value: String)]? {
        parse(Array(text.utf8))
    }

    /// Serialises pairs; every byte outside `*-._0-9A-Za-z` is escaped and
    /// a space becomes `+`.
    public static func serialize(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// One name or value, form-encoded.
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else if byte == 0x20 {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Percent-encodes a client id or secret for HTTP Basic (RFC 6749
    /// §2.3.1): like `encode`, but a space is `%20`, never `+`, since some
    /// servers (Modgud among them) decode Basic credentials with a plain
    /// percent-decoder that keeps `+` literal. `%20` reads as a space to
    /// every decoder.
    public static func encodeComponent(_ text: String) -> String {
        encode(text).replacing("+", with: "%20")
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    private static func decode(_ bytes: some Collection<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                out.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(PercentDecoding.hexValue), let low = iterator.next().flatMap(PercentDecoding.hexValue)
                else { return nil }
                out.append(high << 4 | low)
            default:
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

}

extension Array where Element == (name: String, value: String) {
    /// The first value of `name`.
    public func first(_ name: String) -> String? { first { $0.name == name }?.value }
}
