import Core

/// Appends JSON text to a byte buffer: the pieces of one log line.
/// Internal and allocation-free beyond the buffer's own growth.
enum JSONLine {
    /// Appends `text` as a JSON string (shared with Core's JSON writer).
    static func appendString(_ text: String, to buffer: inout [UInt8]) {
        JSON.appendString(text, to: &buffer)
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
