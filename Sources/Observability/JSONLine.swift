/// Appends JSON text to a byte buffer: the pieces of one log line.
/// Internal and allocation-free beyond the buffer's own growth.
enum JSONLine {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `"text"` with JSON escaping (RFC 8259 §7): `"` and `\` are
    /// escaped, control characters U+0000–U+001F become `\n`, `\r`, `\t`,
    /// `\b`, `\f` or `\u00XX`. Other characters, multi-byte UTF-8 included,
    /// are copied unchanged (Swift strings are always valid UTF-8).
    static func appendString(_ text: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if start < index { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index])) }
                appendEscape(byte, to: &buffer)
                start = index + 1
            }
            if start < bytes.count { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...])) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case 0x0A: buffer.append(UInt8(ascii: "n"))
        case 0x0D: buffer.append(UInt8(ascii: "r"))
        case 0x09: buffer.append(UInt8(ascii: "t"))
        case 0x08: buffer.append(UInt8(ascii: "b"))
        case 0x0C: buffer.append(UInt8(ascii: "f"))
        default:
            buffer.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                       hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
        }
    }

    /// Appends `,"key":value`.
    static func appendField(_ key: String, _ value: LogValue, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: ","))
        appendString(key, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendValue(value, to: &buffer)
    }

    /// Appends a value: strings quoted, numbers bare, non-finite doubles as
    /// `null` (JSON has no NaN or infinity), a secret as `"<redacted>"`.
    static func appendValue(_ value: LogValue, to buffer: inout [UInt8]) {
        switch value {
        case .string(let text):
            appendString(text, to: &buffer)
        case .int(let number):
            buffer.append(contentsOf: String(number).utf8)
        case .double(let number):
            if number.isFinite {
                buffer.append(contentsOf: number.description.utf8)
            } else {
                buffer.append(contentsOf: "null".utf8)
            }
        case .bool(let flag):
            buffer.append(contentsOf: (flag ? "true" : "false").utf8)
        case .secret:
            buffer.append(contentsOf: "\"<redacted>\"".utf8)
        }
    }
}
