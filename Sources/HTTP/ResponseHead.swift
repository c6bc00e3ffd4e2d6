import Core

/// Serialises a response's status line and header section. The server owns
/// framing: any Content-Length, Transfer-Encoding, Connection, Keep-Alive or
/// Date the handler set is replaced, and a field whose name or value could
/// split the response (CR, LF, NUL) is dropped.
enum ResponseHead {
    private static let crlf: [UInt8] = [0x0D, 0x0A]

    static func write(status: HTTPStatus, headers: HTTPHeaders, date: [UInt8], contentLength: Int?,
                      chunked: Bool, keepAlive: Bool, announceKeepAlive: Bool, into out: inout [UInt8]) {
        out.append(contentsOf: statusLine(status))
        // Over the array's storage: each field is read in place, not
        // copied (and its two strings retained) per step.
        headers.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices where isSendable(fields[index]) {
                out.appendField(fields[index].name, fields[index].value)
            }
        }
        out.append(contentsOf: "Date: ".utf8)
        out.append(contentsOf: date)
        out.append(contentsOf: crlf)
        if chunked {
            out.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        } else if let contentLength {
            out.append(contentsOf: contentLengthName)
            appendDecimal(contentLength, to: &out)
            out.append(contentsOf: crlf)
        }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if announceKeepAlive {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: crlf)
    }

    private static let contentLengthName = Array("Content-Length: ".utf8)
    private static let common: [Int: [UInt8]] = Dictionary(uniqueKeysWithValues: [200, 201, 204, 302, 304, 400, 401, 403, 404, 405,
        408, 413, 415, 429, 431, 500, 502, 503, 504].map { ($0, Array("HTTP/1.1 \($0) \(HTTPStatus($0).reasonPhrase)\r\n".utf8)) })

    private static func statusLine(_ status: HTTPStatus) -> [UInt8] {
        common[status.code] ?? Array("HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n".utf8)
    }

    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private static let serverOwned = FieldNameSet(["content-length", "transfer-encoding", "connection", "keep-alive", "date"])

    /// Whether a handler's field may be written: a token-ish name that is
    /// not one the server owns, and a value that cannot split the response.
    private static func isSendable(_ field: HTTPField) -> Bool {
        guard !serverOwned.contains(field.name) else { return false }
        return field.name.withContiguousUTF8 { name in
            guard !name.isEmpty else { return false }
            for byte in name where byte <= 0x20 || byte == 0x3A || byte >= 0x7F { return false }
            return true
        } && field.value.withContiguousUTF8 { value in
            for byte in value where byte == 0x0D || byte == 0x0A || byte == 0 { return false }
            return true
        }
    }
}
