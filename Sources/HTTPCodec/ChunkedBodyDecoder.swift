/// Reads a chunked body (RFC 9112 §7.1) step by step, so the caller can stop
/// between steps (a reader that is behind) and resume with the same bytes
/// later. One grammar for every reader: a hex size that fits in an Int,
/// extensions of tokens and quoted strings (checked, then ignored), CRLF
/// after each chunk's data, trailers checked like header fields (then
/// dropped). What differs between readers is given at `init`: whether a
/// bare LF may end a line, and the limits.
///
/// Each call starts at the first unconsumed byte. A line the decoder has
/// partly scanned is not scanned again from its start.
public struct ChunkedBodyDecoder: Sendable {
    @usableFromInline
    enum State: Sendable { case size, data(Int), dataEnd, trailers, done }

    /// What one step found at the start of the bytes it was given.
    public enum Step: Equatable, Sendable {
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

    @usableFromInline var state = State.size
    /// How far the current line was scanned, from its start.
    @usableFromInline var scanned = 0
    @usableFromInline let bareLF: Bool
    @usableFromInline let lineBytes: Int
    @usableFromInline var trailerBytesLeft: Int
    @usableFromInline var trailerFieldsLeft: Int

    /// A decoder at the start of a body. `lineBytes` bounds a chunk-size
    /// line with its line end; the trailer section may hold
    /// `trailerBytes` bytes (its closing empty line aside) in at most
    /// `trailerFields` fields. `bareLF` lets a bare LF end a line.
    @inlinable
    public init(bareLF: Bool, lineBytes: Int, trailerBytes: Int, trailerFields: Int = .max) {
        self.bareLF = bareLF
        self.lineBytes = lineBytes
        trailerBytesLeft = trailerBytes
        trailerFieldsLeft = trailerFields
    }

    /// Hex digits a chunk size may have (64 bits).
    public static let maxChunkSizeDigits = 16

    /// One step over `bytes`, the unconsumed input from where the previous
    /// step left off. `.more` and `.data` change nothing the caller can see:
    /// the same bytes give the same step again.
    public mutating func step(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> Step {
        let input = HTTPInput(bytes: bytes)
        switch state {
        case .size:
            let limit = HTTPInput.offset(0, plus: lineBytes)
            guard let (end, next) = try scan(input, limit: limit, tooLong: .malformed("chunk line too long")) else {
                return .more
            }
            let size = try Self.chunkSize(input, 0..<end)
            state = size == 0 ? .trailers : .data(size)
            return .framing(next)
        case .data(let remaining):
            return bytes.isEmpty ? .more : .data(Swift.min(remaining, bytes.count))
        case .dataEnd:
            guard !bytes.isEmpty else { return .more }
            if bareLF, bytes[0] == HTTPByte.lf {
                state = .size
                return .framing(1)
            }
            guard bytes[0] == HTTPByte.cr else { throw .malformed("missing CRLF after chunk data") }
            guard bytes.count > 1 else { return .more }
            guard bytes[1] == HTTPByte.lf else { throw .malformed("missing CRLF after chunk data") }
            state = .size
            return .framing(2)
        case .trailers:
            return try trailerLine(input)
        case .done:
            return .end(0)
        }
    }

    /// Records that the first `count` bytes of a `.data` step were taken.
    public mutating func delivered(_ count: Int) {
        guard case .data(let remaining) = state else { return }
        state = remaining == count ? .dataEnd : .data(remaining - count)
    }

    /// The line at the start of `input`: its content's end and the offset
    /// after it, or nil when it has not all arrived.
    private mutating func scan(_ input: HTTPInput, limit: Int, tooLong: HTTPParseError) throws(HTTPParseError)
        -> (end: Int, next: Int)?
    {
        switch try input.scanLine(from: Swift.min(scanned, input.count), limit: limit, bareLF: bareLF) {
        case .incomplete(let resumeAt):
            scanned = resumeAt
            return nil
        case .tooLong:
            throw tooLong
        case .found(let end, let next):
            scanned = 0
            return (end, next)
        }
    }

    /// One trailer line, checked like a header field and dropped; the
    /// empty line ends the body.
    private mutating func trailerLine(_ input: HTTPInput) throws(HTTPParseError) -> Step {
        let tooLarge = HTTPParseError(.headerFieldsTooLarge, "trailer section too large")
        let limit = HTTPInput.offset(0, plus: Swift.max(trailerBytesLeft, 2))
        guard let (end, next) = try scan(input, limit: limit, tooLong: tooLarge) else { return .more }
        if end == 0 {
            state = .done
            return .end(next)
        }
        guard trailerBytesLeft - next >= 0 else { throw tooLarge }
        guard trailerFieldsLeft > 0 else { throw HTTPParseError(.headerFieldsTooLarge, "too many trailer fields") }
        _ = try FieldGrammar.splitField(input, 0..<end)
        trailerBytesLeft -= next
        trailerFieldsLeft -= 1
        return .framing(next)
    }
}

// MARK: - Chunk-size lines

extension ChunkedBodyDecoder {
    /// The chunk size in hex, followed by valid extensions (ignored).
    static func chunkSize(_ input: HTTPInput, _ line: Range<Int>) throws(HTTPParseError) -> Int {
        var i = line.lowerBound
        var size = 0
        while i < line.upperBound, let digit = HTTPByte.hexValue(input[i]) {
            guard i - line.lowerBound < maxChunkSizeDigits, size <= Int.max >> 4 else {
                throw .malformed("chunk size too large")
            }
            size = size << 4 | digit
            i += 1
        }
        guard i > line.lowerBound else { throw .malformed("invalid chunk size") }
        try checkExtensions(input, i..<line.upperBound)
        return size
    }

    /// `*( BWS ";" BWS ext-name [ BWS "=" BWS ( token / quoted-string ) ] )`.
    private static func checkExtensions(_ input: HTTPInput, _ range: Range<Int>) throws(HTTPParseError) {
        let end = range.upperBound
        var i = range.lowerBound
        while i < end {
            i = input.skippingWhitespace(from: i, to: end)
            guard i < end, input[i] == HTTPByte.semicolon else { throw .malformed("invalid chunk extension") }
            let nameStart = input.skippingWhitespace(from: i + 1, to: end)
            i = skipToken(input, from: nameStart, to: end)
            guard i > nameStart else { throw .malformed("invalid chunk extension") }
            let equals = input.skippingWhitespace(from: i, to: end)
            guard equals < end, input[equals] == HTTPByte.equals else { continue }
            let valueStart = input.skippingWhitespace(from: equals + 1, to: end)
            if valueStart < end, input[valueStart] == HTTPByte.doubleQuote {
                i = try skipQuotedString(input, from: valueStart, to: end)
            } else {
                i = skipToken(input, from: valueStart, to: end)
                guard i > valueStart else { throw .malformed("invalid chunk extension") }
            }
        }
    }

    private static func skipToken(_ input: HTTPInput, from start: Int, to end: Int) -> Int {
        var i = start
        while i < end, HTTPByte.isTChar(input[i]) { i += 1 }
        return i
    }

    /// A quoted-string starting at the DQUOTE at `start`; returns the offset after it.
    private static func skipQuotedString(_ input: HTTPInput, from start: Int, to end: Int) throws(HTTPParseError) -> Int {
        var i = start + 1
        while i < end {
            let byte = input[i]
            if byte == HTTPByte.doubleQuote { return i + 1 }
            if byte == HTTPByte.backslash { i += 1 }
            guard i < end, HTTPByte.isFieldValueByte(input[i]) else { throw .malformed("invalid chunk extension") }
            i += 1
        }
        throw .malformed("invalid chunk extension")
    }
}
