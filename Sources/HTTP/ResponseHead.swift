/// Serialises a response's status line and header section. The server owns
/// framing: any Content-Length, Transfer-Encoding, Connection, Keep-Alive or
/// Date the handler set is replaced, and a field whose name or value could
/// split the response (CR, LF, NUL) is dropped.
enum ResponseHead {
    private static let crlf: [UInt8] = [0x0D, 0x0A]

    static func write(status: HTTPStatus, headers: HTTPHeaders, date: [UInt8], contentLength: Int?,
                      chunked: Bool, keepAlive: Bool, announceKeepAlive: Bool, into out: inout [UInt8]) {
        out.append(contentsOf: statusLine(status))
        for field in headers where isSendable(field) {
            out.append(contentsOf: field.name.utf8)
            out.append(0x3A)
            out.append(0x20)
            out.append(contentsOf: field.value.utf8)
            out.append(contentsOf: crlf)
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
        guard value > 0 else { return out.append(UInt8(ascii: "0")) }
        var digits: [UInt8] = []
        var rest = value
        while rest > 0 {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        out.append(contentsOf: digits.reversed())
    }

    private static let serverOwned = ["content-length", "transfer-encoding", "connection", "keep-alive", "date"]
    /// Lengths of the server-owned names, to skip the comparison for most fields.
    private static let serverOwnedLengths: Set<Int> = Set(serverOwned.map(\.utf8.count))

    private static func isSendable(_ field: HTTPField) -> Bool {
        guard !field.name.isEmpty else { return false }
        if serverOwnedLengths.contains(field.name.utf8.count) {
            for name in serverOwned where field.name.equalsIgnoringASCIICase(name) { return false }
        }
        for byte in field.name.utf8 where byte <= 0x20 || byte == 0x3A || byte >= 0x7F { return false }
        for byte in field.value.utf8 where byte == 0x0D || byte == 0x0A || byte == 0 { return false }
        return true
    }
}
