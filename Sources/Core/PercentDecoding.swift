/// `%XX` escapes, decoded strictly: one place for every reader of them (a
/// URL's user info, HTTP Basic credentials, a path, a form).
public enum PercentDecoding {
    /// The value of one hexadecimal digit of a percent escape, or nil.
    @inline(__always)
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` with every `%XX` decoded; nil for a `%` not followed by two
    /// hex digits, or bytes that are not UTF-8. `+` stays `+` (forms decode
    /// it as a space themselves).
    public static func decode(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
