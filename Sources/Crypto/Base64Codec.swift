/// The shared RFC 4648 base64 engine behind `Base64` and `Base64URL`.
///
/// Decoding is strict: only the alphabet's characters, no whitespace, and
/// the unused low bits of the last character must be zero, so each byte
/// string has exactly one accepted encoding.
@usableFromInline
enum Base64Codec {
    @usableFromInline
    enum Alphabet {
        case standard  // RFC 4648 §4: + and /, padded
        case url       // RFC 4648 §5: - and _, unpadded

        var table: StaticString {
            switch self {
            case .standard: return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
            case .url: return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
            }
        }
    }

    @usableFromInline
    static func encode(_ input: UnsafeRawBufferPointer, alphabet: Alphabet) -> String {
        let padded = alphabet == .standard
        let fullGroups = input.count / 3
        let remainder = input.count % 3
        let length = fullGroups * 4 + (remainder == 0 ? 0 : (padded ? 4 : remainder + 1))
        guard length > 0 else { return "" }
        let table = alphabet.table.utf8Start
        return String(unsafeUninitializedCapacity: length) { output in
            var o = 0
            var i = 0
            for _ in 0..<fullGroups {
                let value = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                output[o] = table[Int(value >> 18)]
                output[o + 1] = table[Int(value >> 12 & 0x3F)]
                output[o + 2] = table[Int(value >> 6 & 0x3F)]
                output[o + 3] = table[Int(value & 0x3F)]
                i += 3
                o += 4
            }
            if remainder > 0 {
                let second = remainder == 2 ? UInt32(input[i + 1]) : 0
                let value = UInt32(input[i]) << 16 | second << 8
                output[o] = table[Int(value >> 18)]
                output[o + 1] = table[Int(value >> 12 & 0x3F)]
                o += 2
                if remainder == 2 {
                    output[o] = table[Int(value >> 6 & 0x3F)]
                    o += 1
                }
                if padded {
                    while o < length { output[o] = UInt8(ascii: "="); o += 1 }
                }
            }
            return length
        }
    }

    @usableFromInline
    static func decode(_ input: UnsafeRawBufferPointer, alphabet: Alphabet) -> [UInt8]? {
        var count = input.count
        if alphabet == .standard {
            guard count % 4 == 0 else { return nil }
            if count > 0, input[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if count > 0, input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        let fullGroups = count / 4
        let remainder = count % 4
        guard remainder != 1 else { return nil }
        let outputCount = fullGroups * 3 + (remainder == 0 ? 0 : remainder - 1)
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            initialized = 0
            var i = 0
            var o = 0
            for _ in 0..<fullGroups {
                let a = value(input[i], alphabet), b = value(input[i + 1], alphabet)
                let c = value(input[i + 2], alphabet), d = value(input[i + 3], alphabet)
                guard a | b | c | d < 64 else { valid = false; return }
                let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                buffer[o] = UInt8(truncatingIfNeeded: group >> 16)
                buffer[o + 1] = UInt8(truncatingIfNeeded: group >> 8)
                buffer[o + 2] = UInt8(truncatingIfNeeded: group)
                i += 4
                o += 3
            }
            if remainder > 0 {
                let a = value(input[i], alphabet), b = value(input[i + 1], alphabet)
                let c = remainder == 3 ? value(input[i + 2], alphabet) : 0
                guard a | b | c < 64 else { valid = false; return }
                let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                // Non-canonical: bits past the last whole byte must be zero.
                guard group & (remainder == 2 ? 0xFFFF : 0xFF) == 0 else { valid = false; return }
                buffer[o] = UInt8(truncatingIfNeeded: group >> 16)
                if remainder == 3 { buffer[o + 1] = UInt8(truncatingIfNeeded: group >> 8) }
            }
            initialized = outputCount
        }
        return valid ? output : nil
    }

    /// The 6-bit value of one character, or 0xFF if it is not in the alphabet.
    @inline(__always)
    private static func value(_ c: UInt8, _ alphabet: Alphabet) -> UInt8 {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c &- 65
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c &- 71
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c &+ 4
        case UInt8(ascii: "+"): return alphabet == .standard ? 62 : 0xFF
        case UInt8(ascii: "/"): return alphabet == .standard ? 63 : 0xFF
        case UInt8(ascii: "-"): return alphabet == .url ? 62 : 0xFF
        case UInt8(ascii: "_"): return alphabet == .url ? 63 : 0xFF
        default: return 0xFF
        }
    }
}
