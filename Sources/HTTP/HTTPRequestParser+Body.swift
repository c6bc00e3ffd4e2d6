/// Message bodies: Content-Length and chunked (RFC 9112 §6-§7).
extension HTTPRequestParser {
    /// Hex digits a chunk size may have (64 bits).
    static let maxChunkSizeDigits = 16

    /// Emits whatever part of a Content-Length body is available.
    mutating func parseFixedBody(_ input: Input) -> (event: HTTPParserEvent, consumed: Int) {
        if remaining == 0 {
            startNextRequest()
            return (.end, 0)
        }
        let available = min(remaining, input.count)
        guard available > 0 else { return (.needMore, 0) }
        remaining -= available
        return (.body(0..<available), available)
    }

    /// Walks chunk framing until a piece of chunk data, the end, or the end of
    /// the input. Framing bytes already processed are consumed even on `.needMore`.
    mutating func parseChunkedBody(_ input: Input) throws(HTTPParseError) -> (event: HTTPParserEvent, consumed: Int) {
        var offset = 0
        while true {
            switch chunkPhase {
            case .sizeLine:
                guard let next = try readChunkSizeLine(input, at: offset) else { return (.needMore, offset) }
                offset = next
            case .data:
                let available = min(remaining, input.count - offset)
                guard available > 0 else { return (.needMore, offset) }
                remaining -= available
                if remaining == 0 { chunkPhase = .dataEnd }
                return (.body(offset..<offset + available), offset + available)
            case .dataEnd:
                guard let next = try readChunkDataEnd(input, at: offset) else { return (.needMore, offset) }
                offset = next
            case .trailers:
                guard let (next, isLast) = try readTrailerLine(input, at: offset) else { return (.needMore, offset) }
                if isLast {
                    startNextRequest()
                    return (.end, next)
                }
                offset = next
            }
        }
    }

    // MARK: Chunk framing

    /// `chunk-size [ chunk-ext ] CRLF`; returns the offset after it, or nil
    /// when the line is not complete yet.
    private mutating func readChunkSizeLine(_ input: Input, at offset: Int) throws(HTTPParseError) -> Int? {
        let limit = Self.offset(offset, plus: Self.offset(limits.maxChunkLineBytes, plus: 2))
        switch try input.scanLine(from: offset + framingScanned, limit: limit) {
        case .incomplete(let resumeAt):
            framingScanned = resumeAt - offset
            return nil
        case .tooLong:
            throw Self.malformed("chunk line too long")
        case .found(let cr):
            framingScanned = 0
            let size = try Self.parseChunkSizeLine(input, offset..<cr)
            if size == 0 {
                chunkPhase = .trailers
            } else {
                remaining = size
                chunkPhase = .data
            }
            return cr + 2
        }
    }

    /// The CRLF after chunk data; returns the offset after it, or nil when
    /// not all of it has arrived.
    private mutating func readChunkDataEnd(_ input: Input, at offset: Int) throws(HTTPParseError) -> Int? {
        if offset < input.count, input[offset] != Byte.cr { throw Self.malformed("missing CRLF after chunk data") }
        guard offset + 1 < input.count else { return nil }
        guard input[offset + 1] == Byte.lf else { throw Self.malformed("missing CRLF after chunk data") }
        chunkPhase = .sizeLine
        return offset + 2
    }

    /// The chunk size in hex, followed by valid extensions (ignored).
    private static func parseChunkSizeLine(_ input: Input, _ line: Range<Int>) throws(HTTPParseError) -> Int {
        var i = line.lowerBound
        var size = 0
        while i < line.upperBound, let digit = Byte.hexValue(input[i]) {
            guard i - line.lowerBound < maxChunkSizeDigits, size <= Int.max >> 4 else {
                throw malformed("chunk size too large")
            }
            size = size << 4 | digit
            i += 1
        }
        guard i > line.lowerBound else { throw malformed("invalid chunk size") }
        try checkChunkExtensions(input, i..<line.upperBound)
        return size
    }

    /// `*( BWS ";" BWS ext-name [ BWS "=" BWS ( token / quoted-string ) ] )`.
    private static func checkChunkExtensions(_ input: Input, _ range: Range<Int>) throws(HTTPParseError) {
        let end = range.upperBound
        var i = range.lowerBound
        while i < end {
            i = skipWhitespace(input, from: i, to: end)
            guard i < end, input[i] == Byte.semicolon else { throw malformed("invalid chunk extension") }
            let nameStart = skipWhitespace(input, from: i + 1, to: end)
            i = skipToken(input, from: nameStart, to: end)
            guard i > nameStart else { throw malformed("invalid chunk extension") }
            let equals = skipWhitespace(input, from: i, to: end)
            guard equals < end, input[equals] == Byte.equals else { continue }
            let valueStart = skipWhitespace(input, from: equals + 1, to: end)
            if valueStart < end, input[valueStart] == Byte.doubleQuote {
                i = try skipQuotedString(input, from: valueStart, to: end)
            } else {
                i = skipToken(input, from: valueStart, to: end)
                guard i > valueStart else { throw malformed("invalid chunk extension") }
            }
        }
    }

    private static func skipWhitespace(_ input: Input, from start: Int, to end: Int) -> Int {
        var i = start
        while i < end, Byte.isWhitespace(input[i]) { i += 1 }
        return i
    }

    private static func skipToken(_ input: Input, from start: Int, to end: Int) -> Int {
        var i = start
        while i < end, Byte.isTChar(input[i]) { i += 1 }
        return i
    }

    /// A quoted-string starting at the DQUOTE at `start`; returns the offset after it.
    private static func skipQuotedString(_ input: Input, from start: Int, to end: Int) throws(HTTPParseError) -> Int {
        var i = start + 1
        while i < end {
            let byte = input[i]
            if byte == Byte.doubleQuote { return i + 1 }
            if byte == Byte.backslash { i += 1 }
            guard i < end, Byte.isFieldValueByte(input[i]) else { throw malformed("invalid chunk extension") }
            i += 1
        }
        throw malformed("invalid chunk extension")
    }

    // MARK: Trailers

    /// One trailer line, validated like a header field and discarded. Returns
    /// the offset after it and whether it was the closing empty line, or nil
    /// when the line is not complete yet. Trailers share the head's limits.
    private mutating func readTrailerLine(_ input: Input, at offset: Int) throws(HTTPParseError)
        -> (next: Int, isLast: Bool)?
    {
        let limit = Self.offset(offset, plus: max(trailerBytesLeft, 2))
        switch try input.scanLine(from: offset + framingScanned, limit: limit) {
        case .incomplete(let resumeAt):
            framingScanned = resumeAt - offset
            return nil
        case .tooLong:
            throw HTTPParseError(.headerFieldsTooLarge, "trailer section too large")
        case .found(let cr):
            framingScanned = 0
            if cr == offset { return (cr + 2, true) }
            trailerBytesLeft -= cr + 2 - offset
            guard trailerBytesLeft >= 0 else {
                throw HTTPParseError(.headerFieldsTooLarge, "trailer section too large")
            }
            guard trailerFieldsLeft > 0 else { throw HTTPParseError(.headerFieldsTooLarge, "too many trailer fields") }
            trailerFieldsLeft -= 1
            _ = try Self.splitField(input, offset..<cr)
            return (cr + 2, false)
        }
    }
}
