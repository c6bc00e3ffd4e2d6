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

    /// Where the parser stands inside a chunked body.
    enum ChunkPhase: Sendable { case sizeLine, data, dataEnd, trailers }

    let limits: HTTPParserLimits
    var phase: Phase = .head
    var chunkPhase: ChunkPhase = .sizeLine
    /// Lines of the head seen so far (offsets into the unconsumed buffer).
    var lines = LineProgress()
    /// How far the current chunk-size or trailer line was scanned, from its start.
    var framingScanned = 0
    /// The request line and header facts gathered so far.
    var draft = HeadDraft()
    /// Body bytes left in the current fixed body or chunk.
    var remaining = 0
    /// Header bytes and fields still allowed for the trailer section.
    var trailerBytesLeft = 0
    var trailerFieldsLeft = 0
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
        chunkPhase = .sizeLine
        lines = LineProgress()
        draft = HeadDraft()
        framingScanned = 0
        remaining = 0
    }

    /// A 400 error with a fixed reason.
    static func malformed(_ reason: String) -> HTTPParseError {
        HTTPParseError(.badRequest, reason)
    }

    /// `base + length` without trapping on overflow.
    static func offset(_ base: Int, plus length: Int) -> Int {
        let (sum, overflow) = base.addingReportingOverflow(max(length, 0))
        return overflow ? Int.max : sum
    }
}

// MARK: - Line scanning

extension HTTPRequestParser {
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

    /// The outcome of looking for the CRLF that ends a line.
    enum LineScan {
        /// The line ends with the CR at this offset (an LF follows it).
        case found(cr: Int)
        /// No line end yet; resume scanning at this offset.
        case incomplete(resumeAt: Int)
        /// The line end cannot come before `limit`.
        case tooLong
    }
}

// MARK: - Byte classes

extension HTTPRequestParser {
    /// A token character (RFC 9110 §5.6.2), for other readers of HTTP
    /// (the upstream client's response parser) to check field names alike.
    /// Inlinable: other modules call it per byte.
    @inlinable
    public static func isTokenByte(_ byte: UInt8) -> Bool { Byte.isTChar(byte) }

    /// Whether every byte of `value` may stand in a field value (VCHAR,
    /// obs-text, SP, HTAB), for other writers and readers of HTTP (the
    /// upstream client's checks). Tests eight bytes at a time, and byte by
    /// byte only where a word holds a control character (a tab, or a
    /// refusal): a bearer token is a kilobyte of bytes.
    public static func isFieldValue(_ value: UnsafeRawBufferPointer) -> Bool {
        Byte.controlsPass(value) { $0 == Byte.tab }
    }

    /// Named byte values and the character classes of RFC 9110 §5.6.
    @usableFromInline
    enum Byte {
        static let tab: UInt8 = 0x09
        static let lf: UInt8 = 0x0A
        static let cr: UInt8 = 0x0D
        static let space: UInt8 = 0x20
        static let doubleQuote: UInt8 = 0x22
        static let percent: UInt8 = 0x25
        static let asterisk: UInt8 = 0x2A
        static let comma: UInt8 = 0x2C
        static let dot: UInt8 = 0x2E
        static let slash: UInt8 = 0x2F
        static let zero: UInt8 = 0x30
        static let nine: UInt8 = 0x39
        static let colon: UInt8 = 0x3A
        static let semicolon: UInt8 = 0x3B
        static let equals: UInt8 = 0x3D
        static let leftBracket: UInt8 = 0x5B
        static let backslash: UInt8 = 0x5C
        static let rightBracket: UInt8 = 0x5D
        static let delete: UInt8 = 0x7F

        /// tchar (RFC 9110 §5.6.2): ! # $ % & ' * + - . ^ _ ` | ~, digits and
        /// letters, as bit sets over bytes 0-63 and 64-127 (computed, so an
        /// inlined check in another module reads no global).
        @inlinable static var tcharLow: UInt64 { 0x03FF_6CFA_0000_0000 }
        @inlinable static var tcharHigh: UInt64 { 0x57FF_FFFF_C7FF_FFFE }
        /// unreserved and sub-delims of RFC 3986: - . _ ~ ! $ & ' ( ) * + , ; =,
        /// digits and letters.
        private static let hostLow: UInt64 = 0x2BFF_7FD2_0000_0000
        private static let hostHigh: UInt64 = 0x47FF_FFFE_87FF_FFFE

        @inlinable @inline(__always)
        static func isMember(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
            if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
            if byte < 128 { return (high >> UInt64(byte &- 64)) & 1 == 1 }
            return false
        }

        /// A token character (RFC 9110 §5.6.2).
        @inlinable @inline(__always)
        static func isTChar(_ byte: UInt8) -> Bool { isMember(byte, low: tcharLow, high: tcharHigh) }

        /// A reg-name character other than `%` (RFC 3986 §3.2.2).
        @inline(__always)
        static func isHostChar(_ byte: UInt8) -> Bool { isMember(byte, low: hostLow, high: hostHigh) }

        /// A control character (0x00-0x1F) or DEL.
        @inline(__always)
        static func isControl(_ byte: UInt8) -> Bool { byte < space || byte == delete }

        private static let ones: UInt64 = 0x0101_0101_0101_0101
        private static let highBits: UInt64 = 0x8080_8080_8080_8080

        /// Whether any of the eight bytes in `word` is a control character or
        /// DEL (exact "has less than" and "has value" tests, no false positives).
        @inline(__always)
        static func hasControl(_ word: UInt64) -> Bool {
            let below = (word &- ones &* UInt64(space)) & ~word & highBits
            let del = word ^ (ones &* UInt64(delete))
            let isDelete = (del &- ones) & ~del & highBits
            return below | isDelete != 0
        }

        /// Whether every control character or DEL in `bytes` is one that
        /// `allowed` lets through; the other bytes always pass. Tests eight
        /// bytes at a time, and byte by byte only a word that holds a
        /// control character.
        @inline(__always)
        static func controlsPass(_ bytes: UnsafeRawBufferPointer, _ allowed: (UInt8) -> Bool) -> Bool {
            let count = bytes.count
            // Shorter than a word: in a word of spaces (which pass).
            guard count >= 8 else {
                var word = ones &* UInt64(space)
                if count > 0 { withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: bytes) } }
                return !hasControl(word) || bytesPass(bytes, 0..<count, allowed)
            }
            var i = 0
            while i + 8 <= count {
                if hasControl(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)),
                   !bytesPass(bytes, i..<(i + 8), allowed) { return false }
                i += 8
            }
            // The rest: the last eight bytes, overlapping the word before.
            guard i < count, hasControl(bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) else { return true }
            return bytesPass(bytes, (count - 8)..<count, allowed)
        }

        @inline(__always)
        private static func bytesPass(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ allowed: (UInt8) -> Bool) -> Bool {
            for j in range where isControl(bytes[j]) && !allowed(bytes[j]) { return false }
            return true
        }

        /// SP or HTAB.
        @inline(__always)
        static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

        /// A byte allowed in a field value: VCHAR, obs-text, SP or HTAB.
        @inline(__always)
        static func isFieldValueByte(_ byte: UInt8) -> Bool {
            byte == tab || (byte >= space && byte != delete)
        }

        /// A byte allowed in a request target: visible ASCII.
        @inline(__always)
        static func isTargetByte(_ byte: UInt8) -> Bool { byte > space && byte < delete }

        @inline(__always)
        static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }

        /// The value of a hex digit, or nil.
        @inline(__always)
        static func hexValue(_ byte: UInt8) -> Int? {
            switch byte {
            case 0x30...0x39: Int(byte &- 0x30)
            case 0x41...0x46: Int(byte &- 0x41 &+ 10)
            case 0x61...0x66: Int(byte &- 0x61 &+ 10)
            default: nil
            }
        }
    }
}

// MARK: - Input

extension HTTPRequestParser {
    /// The caller's buffer, with the few scans the parser needs.
    struct Input {
        let bytes: UnsafeRawBufferPointer

        var count: Int { bytes.count }

        @inline(__always)
        subscript(offset: Int) -> UInt8 { bytes[offset] }

        /// The bytes in `range` as a String (ASCII, or UTF-8 with invalid
        /// sequences replaced by U+FFFD).
        @inline(__always)
        func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        /// The bytes in `range`.
        @inline(__always)
        func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[range])
        }

        /// Whether the bytes in `range` equal `lowercase` (lowercase ASCII)
        /// ignoring ASCII case.
        @inline(__always)
        func equalsIgnoringCase(_ range: Range<Int>, _ lowercase: StaticString) -> Bool {
            HTTPHeaders.equals(slice(range).assumingMemoryBound(to: UInt8.self), lowercase: lowercase)
        }

        /// The first offset in `range` holding `byte`.
        @inline(__always)
        func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
            var i = range.lowerBound
            while i < range.upperBound {
                if bytes[i] == byte { return i }
                i += 1
            }
            return nil
        }

        /// `range` without leading and trailing SP / HTAB.
        @inline(__always)
        func trimmingWhitespace(_ range: Range<Int>) -> Range<Int> {
            var lower = range.lowerBound, upper = range.upperBound
            while lower < upper, Byte.isWhitespace(bytes[lower]) { lower += 1 }
            while upper > lower, Byte.isWhitespace(bytes[upper - 1]) { upper -= 1 }
            return lower..<upper
        }

        /// Looks for CRLF from `start`. The LF must sit before `limit`. A lone
        /// CR or LF throws, so every line of the message ends in CRLF, and so
        /// does any other control character but HTAB: no line of a request
        /// (request line, field, chunk line, trailer) may hold one.
        func scanLine(from start: Int, limit: Int) throws(HTTPParseError) -> LineScan {
            let end = min(bytes.count, limit)
            var i = firstControl(from: start, to: end)
            while i < end {
                switch bytes[i] {
                case Byte.tab:
                    i = firstControl(from: i + 1, to: end)
                case Byte.cr:
                    if i + 1 >= limit { return .tooLong }
                    if i + 1 == bytes.count { return .incomplete(resumeAt: i) }
                    guard bytes[i + 1] == Byte.lf else { throw malformed("bare CR") }
                    return .found(cr: i)
                case Byte.lf:
                    throw malformed("bare LF line ending")
                default:
                    throw malformed("control character")
                }
            }
            return bytes.count >= limit ? .tooLong : .incomplete(resumeAt: end)
        }

        /// The first offset in `start..<end` holding a control character or
        /// DEL, or `end`. Tests eight bytes at a time.
        @inline(__always)
        private func firstControl(from start: Int, to end: Int) -> Int {
            var i = start
            while i + 8 <= end, !Byte.hasControl(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                i += 8
            }
            while i < end, !Byte.isControl(bytes[i]) { i += 1 }
            return i
        }
    }
}
