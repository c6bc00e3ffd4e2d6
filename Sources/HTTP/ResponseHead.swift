/// Serialises a response's status line and header section. The server owns
/// framing: any Content-Length, Transfer-Encoding, Connection, Keep-Alive or
/// Date the handler set is replaced, and a field whose name or value could
/// split the response (CR, LF, NUL) is dropped.
enum ResponseHead {
    private static let crlf: [UInt8] = [0x0D, 0x0A]

    static func write(status: HTTPStatus, headers: HTTPHeaders, date: [UInt8], contentLength: Int?,
                      chunked: Bool, keepAlive: Bool, announceKeepAlive: Bool, into out: inout [UInt8]) {
        out.append(contentsOf: "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n".utf8)
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
            out.append(contentsOf: "Content-Length: \(contentLength)\r\n".utf8)
        }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if announceKeepAlive {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: crlf)
    }

    private static let serverOwned = ["content-length", "transfer-encoding", "connection", "keep-alive", "date"]

    private static func isSendable(_ field: HTTPField) -> Bool {
        guard !field.name.isEmpty else { return false }
        for name in serverOwned where field.name.equalsIgnoringASCIICase(name) { return false }
        for byte in field.name.utf8 where byte <= 0x20 || byte == 0x3A || byte >= 0x7F { return false }
        for byte in field.value.utf8 where byte == 0x0D || byte == 0x0A || byte == 0 { return false }
        return true
    }
}
