/// Named byte values and the character classes of RFC 9110 §5.6, for every
/// reader and writer of HTTP/1.1 in the gateway. Constants are computed and
/// checks inlinable, so a check inlined in another module reads no global.
public enum HTTPByte {
    /// Horizontal tab (HTAB), 0x09.
    @inlinable public static var tab: UInt8 { 0x09 }
    /// Line feed (LF), 0x0A.
    @inlinable public static var lf: UInt8 { 0x0A }
    /// Carriage return (CR), 0x0D.
    @inlinable public static var cr: UInt8 { 0x0D }
    /// Space (SP), 0x20.
    @inlinable public static var space: UInt8 { 0x20 }
    /// Double quote `"`, 0x22.
    @inlinable public static var doubleQuote: UInt8 { 0x22 }
    /// Percent sign `%`, 0x25.
    @inlinable public static var percent: UInt8 { 0x25 }
    /// Asterisk `*`, 0x2A.
    @inlinable public static var asterisk: UInt8 { 0x2A }
    /// Comma `,`, 0x2C: separates the items of a list.
    @inlinable public static var comma: UInt8 { 0x2C }
    /// Full stop `.`, 0x2E.
    @inlinable public static var dot: UInt8 { 0x2E }
    /// Slash `/`, 0x2F.
    @inlinable public static var slash: UInt8 { 0x2F }
    /// Digit `0`, 0x30.
    @inlinable public static var zero: UInt8 { 0x30 }
    /// Digit `9`, 0x39.
    @inlinable public static var nine: UInt8 { 0x39 }
    /// Colon `:`, 0x3A: ends a field name.
    @inlinable public static var colon: UInt8 { 0x3A }
    /// Semicolon `;`, 0x3B.
    @inlinable public static var semicolon: UInt8 { 0x3B }
    /// Equals sign `=`, 0x3D.
    @inlinable public static var equals: UInt8 { 0x3D }
    /// Left square bracket `[`, 0x5B.
    @inlinable public static var leftBracket: UInt8 { 0x5B }
    /// Backslash `\`, 0x5C.
    @inlinable public static var backslash: UInt8 { 0x5C }
    /// Right square bracket `]`, 0x5D.
    @inlinable public static var rightBracket: UInt8 { 0x5D }
    /// Delete (DEL), 0x7F.
    @inlinable public static var delete: UInt8 { 0x7F }

    /// tchar (RFC 9110 §5.6.2): ! # $ % & ' * + - . ^ _ ` | ~, digits and
    /// letters, as bit sets over bytes 0-63 and 64-127.
    @inlinable static var tcharLow: UInt64 { 0x03FF_6CFA_0000_0000 }
    @inlinable static var tcharHigh: UInt64 { 0x57FF_FFFF_C7FF_FFFE }
    /// unreserved and sub-delims of RFC 3986: - . _ ~ ! $ & ' ( ) * + , ; =,
    /// digits and letters.
    @inlinable static var hostLow: UInt64 { 0x2BFF_7FD2_0000_0000 }
    @inlinable static var hostHigh: UInt64 { 0x47FF_FFFE_87FF_FFFE }

    @inlinable @inline(__always)
    static func isMember(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (high >> UInt64(byte &- 64)) & 1 == 1 }
        return false
    }

    /// A token character (RFC 9110 §5.6.2).
    @inlinable @inline(__always)
    public static func isTChar(_ byte: UInt8) -> Bool { isMember(byte, low: tcharLow, high: tcharHigh) }

    /// A reg-name character other than `%` (RFC 3986 §3.2.2).
    @inlinable @inline(__always)
    public static func isHostChar(_ byte: UInt8) -> Bool { isMember(byte, low: hostLow, high: hostHigh) }

    /// A control character (0x00-0x1F) or DEL.
    @inlinable @inline(__always)
    public static func isControl(_ byte: UInt8) -> Bool { byte < space || byte == delete }

    @inlinable static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @inlinable static var highBits: UInt64 { 0x8080_8080_8080_8080 }

    /// Whether any of the eight bytes in `word` is a control character or
    /// DEL (exact "has less than" and "has value" tests, no false positives).
    @inlinable @inline(__always)
    public static func hasControl(_ word: UInt64) -> Bool {
        let below = (word &- ones &* UInt64(space)) & ~word & highBits
        let del = word ^ (ones &* UInt64(delete))
        let isDelete = (del &- ones) & ~del & highBits
        return below | isDelete != 0
    }

    /// Whether every control character or DEL in `bytes` is one that
    /// `allowed` lets through; the other bytes always pass. Tests eight
    /// bytes at a time, and byte by byte only a word that holds a
    /// control character.
    @inlinable @inline(__always)
    public static func controlsPass(_ bytes: UnsafeRawBufferPointer, _ allowed: (UInt8) -> Bool) -> Bool {
        let count = bytes.count
        // Shorter than a word: in a word of spaces (which pass).
        guard count >= 8 else {
            var word = ones &* UInt64(space)
            if count > 0 { withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: bytes) } }
            return !hasControl(word) || bytesPass(bytes, 0..<count, allowed)
        }
        var i = 0
        while i + 8 <= count {
            if hasControl(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)),
               !bytesPass(bytes, i..<(i + 8), allowed) { return false }
            i += 8
        }
        // The rest: the last eight bytes, overlapping the word before.
        guard i < count, hasControl(bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) else { return true }
        return bytesPass(bytes, (count - 8)..<count, allowed)
    }

    @inlinable @inline(__always)
    static func bytesPass(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ allowed: (UInt8) -> Bool) -> Bool {
        for j in range where isControl(bytes[j]) && !allowed(bytes[j]) { return false }
        return true
    }

    /// SP or HTAB.
    @inlinable @inline(__always)
    public static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// A byte allowed in a field value: VCHAR, obs-text, SP or HTAB.
    @inlinable @inline(__always)
    public static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= space && byte != delete)
    }

    /// A byte allowed in a request target: visible ASCII.
    @inlinable @inline(__always)
    public static func isTargetByte(_ byte: UInt8) -> Bool { byte > space && byte < delete }

    /// An ASCII digit, `0` to `9`.
    @inlinable @inline(__always)
    public static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }

    /// The value of a hex digit, or nil.
    @inlinable @inline(__always)
    public static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte &- 0x30)
        case 0x41...0x46: Int(byte &- 0x41 &+ 10)
        case 0x61...0x66: Int(byte &- 0x61 &+ 10)
        default: nil
        }
    }
}
