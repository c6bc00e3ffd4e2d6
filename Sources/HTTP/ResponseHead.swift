import Core
import HTTPCodec

/// Serialises a response's status line and header section. The server owns
/// framing: any Content-Length, Transfer-Encoding, Connection, Keep-Alive or
/// Date the handler set is replaced, and a field whose name or value could
/// split the response (CR, LF, NUL) is dropped.
enum ResponseHead {
    static func write(status: HTTPStatus, headers: HTTPHeaders, date: [UInt8], contentLength: Int?,
                      chunked: Bool, keepAlive: Bool, announceKeepAlive: Bool, into out: inout [UInt8]) {
        let line = statusLine(status)
        let fieldCount = headers.count
        // Sized first, then written in one piece. Which fields go out is
        // checked once and remembered, a bit per field (past the 64th,
        // checked again when writing).
        var sendable: UInt64 = 0
        var size = line.count + dateName.utf8CodeUnitCount + date.count + 2 + 2
        for index in 0..<fieldCount where isSendable(headers, index) {
            if index < 64 { sendable |= 1 << UInt64(index) }
            size += headers.lineSize(at: index)
        }
        if chunked {
            size += chunkedField.utf8CodeUnitCount
        } else if let contentLength {
            size += contentLengthName.utf8CodeUnitCount + decimalDigits(contentLength) + 2
        }
        let connection = !keepAlive ? connectionClose : announceKeepAlive ? connectionKeepAlive : nil
        size += connection?.utf8CodeUnitCount ?? 0

        out.append(count: size) { cursor in
            cursor.write(line)
            for index in 0..<fieldCount
            where index < 64 ? sendable & (1 << UInt64(index)) != 0 : isSendable(headers, index) {
                cursor.writeField(of: headers, at: index)
            }
            cursor.write(dateName)
            cursor.write(date)
            cursor.writeCRLF()
            if chunked {
                cursor.write(chunkedField)
            } else if let contentLength {
                cursor.write(contentLengthName)
                writeDecimal(contentLength, to: &cursor)
                cursor.writeCRLF()
            }
            if let connection { cursor.write(connection) }
            cursor.writeCRLF()
        }
    }

    // Static strings: no reference count to touch per response.
    private static let dateName: StaticString = "Date: "
    private static let chunkedField: StaticString = "Transfer-Encoding: chunked\r\n"
    private static let connectionClose: StaticString = "Connection: close\r\n"
    private static let connectionKeepAlive: StaticString = "Connection: keep-alive\r\n"
    private static let contentLengthName: StaticString = "Content-Length: "
    /// Every status line from 100 to 599, by `code - 100`.
    private static let statusLines: [[UInt8]] = (100..<600).map { code in
        Array("HTTP/1.1 \(code) \(HTTPStatus(code).reasonPhrase)\r\n".utf8)
    }

    private static func statusLine(_ status: HTTPStatus) -> [UInt8] {
        (100..<600).contains(status.code) ? statusLines[status.code - 100]
            : Array("HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n".utf8)
    }

    private static func decimalDigits(_ value: Int) -> Int {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits
    }

    /// `value` (not negative) in decimal, `decimalDigits(value)` bytes.
    private static func writeDecimal(_ value: Int, to cursor: inout ByteCursor) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            cursor.write(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private static let serverOwned = FieldNameSet(["content-length", "transfer-encoding", "connection", "keep-alive", "date"])

    /// Whether a handler's field may be written: a token-ish name that is
    /// not one the server owns, and a value that cannot split the response
    /// (known for a field checked as it was added, one relayed from an
    /// upstream's parsed response, say).
    private static func isSendable(_ headers: HTTPHeaders, _ index: Int) -> Bool {
        let checked = headers.isChecked(at: index)
        return headers.withField(at: index) { name, value in
            guard !name.isEmpty, !serverOwned.contains(name) else { return false }
            if checked { return true }
            for byte in name where byte <= 0x20 || byte == 0x3A || byte >= 0x7F { return false }
            // No CR, LF or NUL; checked eight bytes at a time (every
            // response passes here with each of its fields).
            return HTTPByte.controlsPass(UnsafeRawBufferPointer(value)) { $0 != 0x0D && $0 != 0x0A && $0 != 0 }
        }
    }
}
