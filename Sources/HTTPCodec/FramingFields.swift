/// How an upstream response's body is delimited (RFC 9112 §6.3).
public enum ResponseFraming: Equatable, Sendable {
    /// No body: a HEAD request, or a 1xx, 204 or 304 status.
    case none
    /// Exactly this many bytes.
    case length(Int)
    /// Chunked (RFC 9112 §7.1), read with a `ChunkedBodyDecoder`.
    case chunked
    /// Until the server closes the connection (no length, not chunked).
    case untilClose
}

/// The message-length rules of RFC 9112 §6 for requests and responses: the
/// fields that decide framing (`Content-Length`, `Transfer-Encoding`,
/// `Connection`), gathered field by field while a head is read, and the
/// body's framing decided from them, refusing anything ambiguous (a length
/// beside chunking, differing lengths, codings other than `chunked` alone).
public struct FramingFields: Sendable {
    // Internal stored state, read through the public properties below
    // (an inlinable `note` sets it from other modules).
    @usableFromInline var length: Int?
    @usableFromInline var codings = 0
    /// The only `Transfer-Encoding` field was exactly `chunked`.
    @usableFromInline var chunkedAlone = false
    @usableFromInline var close = false
    @usableFromInline var keepAlive = false

    /// The agreed `Content-Length`, if any arrived.
    @inlinable public var contentLength: Int? { length }
    /// How many `Transfer-Encoding` fields arrived.
    @inlinable public var transferEncodings: Int { codings }
    /// `Connection` named `close`.
    @inlinable public var connectionClose: Bool { close }
    /// `Connection` named `keep-alive`.
    @inlinable public var connectionKeepAlive: Bool { keepAlive }

    /// No field noted yet.
    @inlinable
    public init() {}

    /// Notes the field `name: value` of `input` if it decides framing.
    /// `Content-Length` must be `1*DIGIT`; with `lengthLists` (a client's
    /// reading) it may be a list of numbers of at most 18 digits, and appear
    /// again, as long as every number agrees; without (the server's), one
    /// number that fits in an Int, and any second length is refused.
    @inlinable @inline(__always)
    public mutating func note(_ input: HTTPInput, name: Range<Int>, value: Range<Int>,
                              lengthLists: Bool) throws(HTTPParseError) {
        switch name.count {
        case 10 where input.equalsIgnoringCase(name, "connection"):
            var close = self.close, keepAlive = self.keepAlive
            FieldGrammar.forEachListItemSkippingEmpty(input, value) { option in
                if input.equalsIgnoringCase(option, "close") {
                    close = true
                } else if input.equalsIgnoringCase(option, "keep-alive") {
                    keepAlive = true
                }
            }
            self.close = close
            self.keepAlive = keepAlive
        case 14 where input.equalsIgnoringCase(name, "content-length"):
            if lengthLists {
                try noteLengthList(input, value)
            } else {
                guard length == nil else { throw .malformed("duplicate Content-Length") }
                guard let length = FieldGrammar.contentLength(input, value) else {
                    throw .malformed("invalid Content-Length")
                }
                self.length = length
            }
        case 17 where input.equalsIgnoringCase(name, "transfer-encoding"):
            codings += 1
            chunkedAlone = codings == 1 && input.equalsIgnoringCase(value, "chunked")
        default:
            break
        }
    }

    /// A list of agreeing lengths, agreeing with any earlier one too.
    @usableFromInline
    mutating func noteLengthList(_ input: HTTPInput, _ value: Range<Int>) throws(HTTPParseError) {
        var length = self.length
        try FieldGrammar.forEachListItem(input, value, emptyAllowed: false) { (item) throws(HTTPParseError) in
            let digits = input.slice(item).assumingMemoryBound(to: UInt8.self)
            guard let number = HTTPHeaders.decimal(digits), length == nil || length == number else {
                throw .malformed("invalid Content-Length")
            }
            length = number
        }
        guard let length else { throw .malformed("invalid Content-Length") }
        self.length = length
    }

    /// A request body's framing (RFC 9112 §6.3): Transfer-Encoding only
    /// alone, only in HTTP/1.1 (400 otherwise) and only exactly `chunked`
    /// (501 otherwise).
    @inlinable
    public func requestFraming(version: HTTPVersion) throws(HTTPParseError) -> HTTPBodyFraming {
        if transferEncodings > 0 {
            guard contentLength == nil else { throw .malformed("Content-Length with Transfer-Encoding") }
            guard version == .http1_1 else { throw .malformed("Transfer-Encoding in HTTP/1.0") }
            guard chunkedAlone else { throw HTTPParseError(.notImplemented, "unsupported transfer coding") }
            return .chunked
        }
        if let contentLength { return .contentLength(contentLength) }
        return .none
    }

    /// A response body's framing (RFC 9112 §6.3): none for a HEAD request
    /// or a 1xx, 204 or 304 status; refused for a length beside chunking
    /// or any transfer coding but exactly `chunked`, and, answering a HEAD
    /// request, for a length beside any `Transfer-Encoding`.
    @inlinable
    public func responseFraming(status: Int, headRequest: Bool) throws(HTTPParseError) -> ResponseFraming {
        if headRequest, transferEncodings > 0, contentLength != nil {
            throw .malformed("Content-Length with Transfer-Encoding")
        }
        if headRequest || status < 200 || status == 204 || status == 304 { return .none }
        if transferEncodings > 0 {
            guard contentLength == nil else { throw .malformed("Content-Length with Transfer-Encoding") }
            guard chunkedAlone else { throw HTTPParseError(.notImplemented, "unsupported transfer coding") }
            return .chunked
        }
        if let contentLength { return .length(contentLength) }
        return .untilClose
    }
}
