import Glibc
import HTTPCodec

/// A complete response head from one of the client's own connections.
struct UpstreamResponseHead {
    var status: Int
    var headers: HTTPHeaders
    var framing: ResponseFraming
    /// The connection may carry another request once this exchange is done.
    var keepAlive: Bool

    /// What the connection keeps of it once delivered. Not the fields:
    /// left to the reader alone, a proxy filters them in place.
    struct Frame {
        var framing: ResponseFraming
        var keepAlive: Bool
    }
}

/// Reads a response head strictly, with the codec's grammar: anything a
/// desynchronising server or a smuggling attempt could use (a length beside
/// chunking, differing lengths, codings other than `chunked`, folded lines,
/// whitespace before a colon, control characters) is refused, and the
/// connection with it. Lines end in CRLF or a bare LF. What is its own: the
/// search for the head's end, and keep-alive.
enum UpstreamResponseParser {
    /// The most a response head may take.
    static let maxHeadBytes = ResponseLimits.maxHeadBytes

    /// The offset just past the blank line ending the head that starts at
    /// `bytes[0]`, or nil when it has not all arrived.
    static func headEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var lineStart = 0
        while let newline = newline(in: bytes, from: lineStart) {
            let length = newline - lineStart
            if length == 0 || (length == 1 && bytes[lineStart] == 0x0D) { return newline + 1 }
            lineStart = newline + 1
        }
        return nil
    }

    /// The offset of the first LF in `bytes` at or after `start`: memchr,
    /// which reads a word or a vector at a time.
    @inline(__always)
    static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, 0x0A, bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// Parses the head in `bytes` (through its blank line).
    static func parse(_ bytes: UnsafeRawBufferPointer, headRequest: Bool) throws(HTTPClientError) -> UpstreamResponseHead {
        do {
            return try read(bytes, headRequest: headRequest)
        } catch {
            throw .invalidResponse
        }
    }

    private static func read(_ bytes: UnsafeRawBufferPointer, headRequest: Bool) throws(HTTPParseError) -> UpstreamResponseHead {
        var lines = LineReader(bytes)
        guard let statusLine = lines.next() else { throw .malformed("no status line") }
        let (minor, status) = try StatusLine.parse(statusLine)
        // Room for the field or two a proxy adds on the way out (the
        // gateway's X-Request-Id), so it relays this buffer as it is.
        var headers = HTTPHeaders(capacity: 12, byteCapacity: bytes.count + 64)
        var framingFields = FramingFields()
        while let line = lines.next(), !line.isEmpty {
            let (name, value) = try FieldGrammar.splitCheckedField(line)
            let input = HTTPInput(bytes: line)
            headers.add(checkedName: input.slice(name), value: input.slice(value))
            try framingFields.note(input, name: name, value: value, lengthLists: true)
        }
        let framing = try framingFields.responseFraming(status: status, headRequest: headRequest)
        // HTTP/1.0 with Transfer-Encoding is faulty framing: read, then
        // close (RFC 9112 §6.1).
        let keepAlive = framing != .untilClose && !framingFields.connectionClose
            && (minor == 1 || (framingFields.connectionKeepAlive && framingFields.transferEncodings == 0))
        return UpstreamResponseHead(status: status, headers: headers, framing: framing, keepAlive: keepAlive)
    }
}

/// The lines of a complete head, without their CRLF or LF. A CR anywhere
/// else stays in the line, where the byte checks refuse it.
private struct LineReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func next() -> UnsafeRawBufferPointer? {
        guard let newline = UpstreamResponseParser.newline(in: bytes, from: offset) else { return nil }
        var end = newline
        if end > offset, bytes[end - 1] == 0x0D { end -= 1 }
        defer { offset = newline + 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
    }
}
