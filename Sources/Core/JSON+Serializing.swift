extension JSON {
    /// Compact JSON text as UTF-8: no whitespace, object keys in their
    /// stored order, integers without a fraction, doubles in the shortest
    /// form that reads back to the same `Double` (`0.1`, `1e-07`, `2.0`),
    /// and `null` for a NaN or infinity (JSON has neither).
    ///
    /// Strings are escaped per RFC 8259 §7: `"` and `\`, control
    /// characters as `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`; `/` and
    /// non-ASCII characters are written as they are (Swift strings are
    /// always valid UTF-8).
    public var serialized: [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64)
        serialize(into: &buffer)
        return buffer
    }

    /// ``serialized`` as a `String`.
    public var serializedString: String { String(decoding: serialized, as: UTF8.self) }

    /// Appends ``serialized`` to `buffer`, e.g. a response body.
    public func serialize(into buffer: inout [UInt8]) {
        switch self {
        case .null:
            buffer.append(contentsOf: "null".utf8)
        case .bool(let flag):
            buffer.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number):
            buffer.append(contentsOf: String(number).utf8)
        case .double(let number):
            buffer.append(contentsOf: (number.isFinite ? number.description : "null").utf8)
        case .string(let text):
            Self.appendString(text, to: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { buffer.append(UInt8(ascii: ",")) }
                element.serialize(into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            buffer.append(UInt8(ascii: "{"))
            for (position, pair) in object.pairs.enumerated() {
                if position > 0 { buffer.append(UInt8(ascii: ",")) }
                Self.appendString(pair.key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                pair.value.serialize(into: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `"text"`, copying runs that need no escape in one go.
    /// Appends `text` as a JSON string literal (quotes, RFC 8259 escapes):
    /// for writers that build JSON by hand, such as the log line encoder.
    public static func appendString(_ text: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for position in 0..<bytes.count {
                let byte = bytes[position]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                appendEscape(byte, to: &buffer)
                runStart = position + 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
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
                                       hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
        }
    }
}
