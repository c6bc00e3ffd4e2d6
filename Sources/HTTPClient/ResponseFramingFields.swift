import HTTP

/// How an upstream response's body is delimited (RFC 9112 §6.3).
enum ResponseFraming: Equatable {
    /// No body: a HEAD request, or a 1xx, 204 or 304 status.
    case none
    case length(Int)
    case chunked
    /// Until the server closes the connection (no length, not chunked).
    case untilClose
}

/// What one response head's framing fields say, gathered field by field
/// while the head is read, and the body's framing decided from them. One
/// rule for both readers of upstream heads: `UpstreamResponseParser` (the
/// client's own connections) and `ResponseHeadParser` (libcurl's lines).
struct ResponseFramingFields {
    /// The agreed `Content-Length`, if any arrived.
    private(set) var length: Int?
    /// How many `Transfer-Encoding` fields arrived.
    private(set) var transferEncodings = 0
    /// The only `Transfer-Encoding` field was exactly `chunked`.
    private var chunkedAlone = false
    private(set) var connectionClose = false
    private(set) var connectionKeepAlive = false

    /// Notes one field. Throws for a `Content-Length` that is not a list
    /// of one agreeing decimal number, or differs from an earlier one.
    @inline(__always)
    mutating func note(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(HTTPClientError) {
        switch name.count {
        case 14 where Self.equalsIgnoringCase(name, "content-length"):
            var length = self.length
            try Self.forEachListItem(value, emptyAllowed: false) { (item) throws(HTTPClientError) in
                guard let number = HTTPHeaders.decimal(item.assumingMemoryBound(to: UInt8.self)),
                      length == nil || length == number else { throw .invalidResponse }
                length = number
            }
            if length == nil { throw .invalidResponse }
            self.length = length
        case 17 where Self.equalsIgnoringCase(name, "transfer-encoding"):
            transferEncodings += 1
            chunkedAlone = transferEncodings == 1 && Self.equalsIgnoringCase(value, "chunked")
        case 10 where Self.equalsIgnoringCase(name, "connection"):
            var close = connectionClose, keepAlive = connectionKeepAlive
            try Self.forEachListItem(value, emptyAllowed: true) { (item) throws(HTTPClientError) in
                if Self.equalsIgnoringCase(item, "close") { close = true }
                if Self.equalsIgnoringCase(item, "keep-alive") { keepAlive = true }
            }
            connectionClose = close
            connectionKeepAlive = keepAlive
        default:
            break
        }
    }

    /// The body's framing once the head's fields are all noted. Throws for
    /// a length beside chunking (a smuggling shape, not a server to trust)
    /// or any transfer coding other than exactly `chunked`, and, answering
    /// a HEAD request, for a length beside any `Transfer-Encoding`.
    func framing(status: Int, headRequest: Bool) throws(HTTPClientError) -> ResponseFraming {
        if headRequest, transferEncodings > 0, length != nil { throw .invalidResponse }
        if headRequest || status < 200 || status == 204 || status == 304 { return .none }
        if transferEncodings > 0 {
            guard length == nil, chunkedAlone else { throw .invalidResponse }
            return .chunked
        }
        if let length { return .length(length) }
        return .untilClose
    }

    /// Calls `body` with each item of a comma-separated list, trimmed.
    /// Empty items are skipped (RFC 9110 §5.6.1) or refused.
    private static func forEachListItem(_ value: UnsafeRawBufferPointer, emptyAllowed: Bool,
                                        _ body: (UnsafeRawBufferPointer) throws(HTTPClientError) -> Void) throws(HTTPClientError) {
        var start = 0
        while start <= value.count {
            var end = start
            while end < value.count, value[end] != UInt8(ascii: ",") { end += 1 }
            var first = start, last = end
            while first < last, value[first] == 0x20 || value[first] == 0x09 { first += 1 }
            while last > first, value[last - 1] == 0x20 || value[last - 1] == 0x09 { last -= 1 }
            if first < last {
                try body(UnsafeRawBufferPointer(rebasing: value[first..<last]))
            } else if !emptyAllowed {
                throw .invalidResponse
            }
            start = end + 1
        }
    }

    @inline(__always)
    private static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        HTTPHeaders.equals(bytes.assumingMemoryBound(to: UInt8.self), lowercase: lowercase)
    }
}
