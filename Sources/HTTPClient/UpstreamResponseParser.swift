import Glibc
import HTTP

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

/// Reads a response head strictly: anything a desynchronising server or a
/// smuggling attempt could use (a length beside chunking, differing
/// lengths, codings other than `chunked`, folded lines, whitespace before a
/// colon, control characters) is refused, and the connection with it.
/// Lines end in CRLF or a bare LF. Its status-line and field rules and
/// `ResponseFramingFields` also judge the heads libcurl reads
/// (`ResponseHeadParser`), so both paths refuse the same heads.
enum UpstreamResponseParser {
    /// The most a response head may take.
    static let maxHeadBytes = 64 * 1024

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
        var lines = LineReader(bytes)
        guard let statusLine = lines.next() else { throw .invalidResponse }
        let (minor, status) = try parseStatusLine(statusLine)
        // Room for the field or two a proxy adds on the way out (the
        // gateway's X-Request-Id), so it relays this buffer as it is.
        var headers = HTTPHeaders(capacity: 12, byteCapacity: bytes.count + 64)
        var framingFields = ResponseFramingFields()
        while let line = lines.next(), !line.isEmpty {
            let (name, value) = try parseField(line)
            headers.add(checkedName: name, value: value)
            try framingFields.note(name: name, value: value)
        }
        let framing = try framingFields.framing(status: status, headRequest: headRequest)
        // HTTP/1.0 with Transfer-Encoding is faulty framing: read, then
        // close (RFC 9112 §6.1).
        let keepAlive = framing != .untilClose && !framingFields.connectionClose
            && (minor == 1 || (framingFields.connectionKeepAlive && framingFields.transferEncodings == 0))
        return UpstreamResponseHead(status: status, headers: headers, framing: framing, keepAlive: keepAlive)
    }

    /// `HTTP/1.x NNN reason` (no line end): the minor version and the
    /// status.
    static func parseStatusLine(_ line: UnsafeRawBufferPointer) throws(HTTPClientError) -> (Int, Int) {
        guard line.count >= 12, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, // HTTP
              line[4] == 0x2F, line[5] == 0x31, line[6] == 0x2E, // /1.
              line[7] == 0x30 || line[7] == 0x31, line[8] == 0x20 else { throw .invalidResponse }
        var status = 0
        for index in 9..<12 {
            let digit = line[index]
            guard digit >= 0x30, digit <= 0x39 else { throw .invalidResponse }
            status = status * 10 + Int(digit - 0x30)
        }
        guard status >= 100, line.count == 12 || line[12] == 0x20 else { throw .invalidResponse }
        for index in 12..<line.count where !isFieldValueByte(line[index]) { throw .invalidResponse }
        return (Int(line[7] - 0x30), status)
    }

    /// A field line's (no line end) name and value bytes, the value
    /// trimmed: a token name right before the colon, a value of field
    /// bytes. A line starting with a space or tab (obs-fold) is refused.
    static func parseField(_ line: UnsafeRawBufferPointer) throws(HTTPClientError)
        -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
    {
        // Indexed loops over the line itself: iterating slices of it
        // checks every index against the slice's bounds.
        var colon = 0
        while colon < line.count, line[colon] != 0x3A {
            guard HTTPRequestParser.isTokenByte(line[colon]) else { throw .invalidResponse }
            colon += 1
        }
        guard colon > 0, colon < line.count else { throw .invalidResponse }
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[start..<end])
        guard HTTPRequestParser.isFieldValue(value) else { throw .invalidResponse }
        return (UnsafeRawBufferPointer(rebasing: line[..<colon]), value)
    }

    /// Visible characters, space, tab and obs-text; no other control.
    @inline(__always)
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
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

/// Decodes a chunked response body step by step, so the caller can stop
/// (when the reader is behind) between steps and resume with the same
/// bytes later.
struct ChunkedDecoder {
    private enum State { case size, data(Int), dataEnd, trailers, done }
    private var state = State.size
    private var trailerBytes = 0

    enum Step: Equatable {
        /// More bytes are needed.
        case more
        /// `count` bytes of framing were consumed.
        case framing(Int)
        /// The first `count` bytes are body data; call `delivered` with
        /// how many were taken.
        case data(Int)
        /// The body ended after `count` more bytes of framing.
        case end(Int)
    }

    static let maxLineBytes = 4096
    static let maxTrailerBytes = 16 * 1024

    mutating func step(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) -> Step {
        switch state {
        case .size:
            guard let line = try Self.line(bytes) else { return .more }
            let size = try Self.chunkSize(UnsafeRawBufferPointer(rebasing: bytes[..<line.content]))
            state = size == 0 ? .trailers : .data(size)
            return .framing(line.consumed)
        case .data(let remaining):
            return bytes.isEmpty ? .more : .data(min(remaining, bytes.count))
        case .dataEnd:
            guard let line = try Self.line(bytes) else { return .more }
            guard line.content == 0 else { throw .invalidResponse }
            state = .size
            return .framing(line.consumed)
        case .trailers:
            guard let line = try Self.line(bytes) else { return .more }
            trailerBytes += line.consumed
            guard trailerBytes <= Self.maxTrailerBytes else { throw .invalidResponse }
            if line.content == 0 {
                state = .done
                return .end(line.consumed)
            }
            return .framing(line.consumed)
        case .done:
            return .end(0)
        }
    }

    mutating func delivered(_ count: Int) {
        guard case .data(let remaining) = state else { return }
        state = remaining == count ? .dataEnd : .data(remaining - count)
    }

    /// The length of the line's content (CR excluded) and of the whole line.
    private static func line(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) -> (content: Int, consumed: Int)? {
        guard let newline = bytes.prefix(maxLineBytes).firstIndex(of: 0x0A) else {
            if bytes.count >= maxLineBytes { throw .invalidResponse }
            return nil
        }
        let content = newline > 0 && bytes[newline - 1] == 0x0D ? newline - 1 : newline
        return (content, newline + 1)
    }

    /// Hex digits, then optionally `;` extensions, which are ignored.
    private static func chunkSize(_ line: UnsafeRawBufferPointer) throws(HTTPClientError) -> Int {
        var size = 0
        var digits = 0
        var index = 0
        while index < line.count, let value = FormURLEncoded.hexValue(line[index]) {
            guard digits < 15 else { throw .invalidResponse }
            size = size << 4 | Int(value)
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw .invalidResponse }
        while index < line.count, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        guard index == line.count || line[index] == UInt8(ascii: ";") else { throw .invalidResponse }
        for byte in line[index...] where !UpstreamResponseParser.isFieldValueByte(byte) { throw .invalidResponse }
        return size
    }
}
