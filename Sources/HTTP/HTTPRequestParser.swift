import HTTPCodec

/// A strict, incremental HTTP/1.1 request parser (RFC 9110, RFC 9112).
///
/// The parser never copies the input: the caller keeps its unconsumed bytes,
/// passes them to `parse`, and drops `consumed` bytes from the front after
/// every call. Anything ambiguous (conflicting framing, bare CR or LF line
/// endings, obs-fold, control characters) is refused with a status for the
/// response; after a thrown error the parser stays failed.
///
/// Events for one request come in this order: `.head`, zero or more `.body`,
/// `.end`. `.needMore` may appear anywhere in between; it can consume framing
/// bytes the parser has fully processed (chunk-size lines, trailers), so the
/// caller must always drop `consumed` bytes, whatever the event.
public struct HTTPRequestParser: Sendable {
    /// Where the parser stands in the current request.
    enum Phase: Sendable { case head, endWithoutBody, fixedBody, chunked }

    let limits: HTTPParserLimits
    var phase: Phase = .head
    /// Lines of the head seen so far (offsets into the unconsumed buffer).
    var lines = LineProgress()
    /// The request line and header facts gathered so far.
    var draft = HeadDraft()
    /// Body bytes left in the current fixed body.
    var remaining = 0
    /// The current chunked body's framing, read by the codec.
    var chunks = ChunkedBodyDecoder(bareLF: false, lineBytes: 0, trailerBytes: 0)
    var failure: HTTPParseError?

    /// Creates a parser waiting for the first request of a connection.
    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// Parses from the start of `bytes` (the caller's unconsumed input).
    ///
    /// Returns one event and how many bytes of `bytes` it consumed; drop them
    /// whatever the event (inside a chunked body `.needMore` may consume the
    /// framing it has processed). After `.needMore` the caller calls again
    /// with the same unconsumed bytes plus more. `.body(range)` is a range
    /// inside `bytes` (already de-chunked), counted in `consumed`. After
    /// `.head` of a request without a body, the next call returns `.end`
    /// (consumed 0). After `.end` the parser expects the next request
    /// (pipelining/keep-alive). After a thrown error the parser is dead and
    /// throws the same error again.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError)
        -> (event: HTTPParserEvent, consumed: Int)
    {
        if let failure { throw failure }
        do {
            return try step(Input(bytes: bytes))
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func step(_ input: Input) throws(HTTPParseError)
        -> (event: HTTPParserEvent, consumed: Int)
    {
        switch phase {
        case .head:
            return try parseHead(input)
        case .endWithoutBody:
            startNextRequest()
            return (.end, 0)
        case .fixedBody:
            return parseFixedBody(input)
        case .chunked:
            return try parseChunkedBody(input)
        }
    }

    /// Forgets the finished request; the next bytes start a new request line.
    mutating func startNextRequest() {
        phase = .head
        lines = LineProgress()
        draft = HeadDraft()
        remaining = 0
    }
}

// MARK: - Lines and bytes

extension HTTPRequestParser {
    /// The codec's byte classes.
    typealias Byte = HTTPByte
    /// The caller's buffer, read through the codec's scans.
    typealias Input = HTTPInput

    /// Progress through a section made of CRLF-terminated lines.
    struct LineProgress: Sendable {
        /// Offset of the first byte of the line being read.
        var lineStart = 0
        /// Offset up to which the current line has been scanned (no line end there).
        var scanned = 0
        /// Offset where the section began (the request line, for the head).
        var sectionStart = 0
        /// Empty lines skipped before the request line.
        var emptyLinesSkipped = 0
    }

    /// A 400 error with a fixed reason.
    static func malformed(_ reason: String) -> HTTPParseError { .malformed(reason) }

    /// `base + length` without trapping on overflow.
    static func offset(_ base: Int, plus length: Int) -> Int { HTTPInput.offset(base, plus: length) }
}
