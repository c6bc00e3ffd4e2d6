import HTTP

/// Builds the final response head from the lines libcurl hands to
/// CURLOPT_HEADERFUNCTION: status lines, fields, the blank line ending each
/// head and, after a chunked body, trailers. A new status line starts over,
/// so only the final (non-1xx) response's fields are kept.
struct ResponseHeadParser {
    private(set) var status = 0
    private(set) var fields: [HTTPField] = []
    /// The final head is complete; later lines are trailers and ignored.
    private(set) var complete = false
    /// Any response line arrived (the server saw at least part of the request).
    private(set) var receivedAnything = false

    /// Takes one line (with its CRLF). Returns true when it completed the
    /// final head.
    mutating func consume(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        receivedAnything = true
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let text = UnsafeBufferPointer(rebasing: line[0..<end])
        if text.starts(with: [0x48, 0x54, 0x54, 0x50, 0x2F]) { // "HTTP/"
            status = Self.statusCode(text)
            fields.removeAll(keepingCapacity: true)
            complete = false
            return false
        }
        if complete { return false }
        if text.isEmpty {
            guard status >= 200 || status == 0 else { return false } // 1xx: a final head follows
            complete = true
            return true
        }
        if text[0] == 0x20 || text[0] == 0x09 {
            // Obsolete line folding: continues the previous field's value.
            if !fields.isEmpty {
                fields[fields.count - 1].value += " " + Self.trimmed(text[...])
            }
            return false
        }
        guard let colon = text.firstIndex(of: 0x3A) else { return false }
        let name = String(decoding: UnsafeBufferPointer(rebasing: text[..<colon]), as: UTF8.self)
        fields.append(HTTPField(name: name, value: Self.trimmed(text[(colon + 1)...])))
        return false
    }

    var headers: HTTPHeaders { HTTPHeaders(fields) }

    /// The three digits after the protocol version ("HTTP/1.1 429 Too Many").
    private static func statusCode(_ line: UnsafeBufferPointer<UInt8>) -> Int {
        guard let space = line.firstIndex(of: 0x20) else { return 0 }
        var code = 0, digits = 0
        for byte in line[(space + 1)...] {
            guard byte >= 0x30, byte <= 0x39, digits < 3 else { break }
            code = code * 10 + Int(byte - 0x30)
            digits += 1
        }
        return digits == 3 ? code : 0
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return String(decoding: UnsafeBufferPointer(rebasing: slice), as: UTF8.self)
    }
}
