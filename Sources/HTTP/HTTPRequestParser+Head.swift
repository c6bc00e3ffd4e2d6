import HTTPCodec

/// The request line and header section (RFC 9112 §2-§5).
extension HTTPRequestParser {
    /// Empty lines tolerated before a request line (RFC 9112 §2.2).
    static let maxLeadingEmptyLines = 8

    /// The request line and the header facts that decide framing.
    struct HeadDraft: Sendable {
        var hasRequestLine = false
        var method = HTTPMethod("GET")
        var target = ""
        var version = HTTPVersion.http1_1
        var headers = HTTPHeaders()
        /// Content-Length, Transfer-Encoding and Connection, as the codec reads them.
        var framing = FramingFields()
        var hostFields = 0
        var expectsContinue = false
        var unsupportedExpectation = false
    }

    /// Reads head lines until the empty line; the head is consumed only whole.
    mutating func parseHead(_ input: Input) throws(HTTPParseError) -> (event: HTTPParserEvent, consumed: Int) {
        while true {
            let limit = Self.offset(lines.sectionStart, plus: limits.maxHeaderBytes)
            switch try input.scanLine(from: lines.scanned, limit: limit, bareLF: false) {
            case .incomplete(let resumeAt):
                lines.scanned = resumeAt
                return (.needMore, 0)
            case .tooLong:
                throw HTTPParseError(.headerFieldsTooLarge, "header section too large")
            case .found(let end, let next):
                let line = lines.lineStart..<end
                lines.lineStart = next
                lines.scanned = next
                if let head = try takeHeadLine(input, line) {
                    let consumed = lines.lineStart
                    enterBody(head.framing, headBytes: consumed - lines.sectionStart)
                    return (.head(head), consumed)
                }
            }
        }
    }

    /// Handles one complete line; returns the head once the empty line ends it.
    private mutating func takeHeadLine(_ input: Input, _ line: Range<Int>) throws(HTTPParseError) -> HTTPRequestHead? {
        if !draft.hasRequestLine {
            if line.isEmpty {
                lines.emptyLinesSkipped += 1
                guard lines.emptyLinesSkipped <= Self.maxLeadingEmptyLines else {
                    throw Self.malformed("too many empty lines")
                }
                lines.sectionStart = lines.lineStart
            } else {
                try parseRequestLine(input, line)
            }
            return nil
        }
        if line.isEmpty { return try finishHead() }
        try parseField(input, line)
        return nil
    }

    /// Sets up the body phase that `framing` calls for.
    private mutating func enterBody(_ framing: HTTPBodyFraming, headBytes: Int) {
        let fieldsUsed = draft.headers.count
        draft = HeadDraft()
        lines = LineProgress()
        switch framing {
        case .none, .contentLength(0):
            phase = .endWithoutBody
        case .contentLength(let length):
            remaining = length
            phase = .fixedBody
        case .chunked:
            phase = .chunked
            // Trailers share the head's limits.
            chunks = ChunkedBodyDecoder(
                bareLF: false, lineBytes: Self.offset(limits.maxChunkLineBytes, plus: 2),
                trailerBytes: limits.maxHeaderBytes - headBytes, trailerFields: limits.maxHeaderFields - fieldsUsed)
        }
    }

    // MARK: Request line

    /// `method SP request-target SP HTTP-version`, exactly one SP apart.
    private mutating func parseRequestLine(_ input: Input, _ line: Range<Int>) throws(HTTPParseError) {
        guard let methodEnd = input.firstIndex(of: Byte.space, in: line) else {
            throw Self.malformed("malformed request line")
        }
        let method = line.lowerBound..<methodEnd
        guard !method.isEmpty else { throw Self.malformed("empty method") }
        for i in method where !Byte.isTChar(input[i]) { throw Self.malformed("invalid method") }

        let rest = methodEnd + 1..<line.upperBound
        guard let targetEnd = input.firstIndex(of: Byte.space, in: rest), targetEnd > rest.lowerBound else {
            throw Self.malformed("malformed request line")
        }
        let target = rest.lowerBound..<targetEnd
        guard target.count <= limits.maxTargetLength else {
            throw HTTPParseError(.uriTooLong, "request target too long")
        }
        for i in target where !Byte.isTargetByte(input[i]) { throw Self.malformed("invalid request target") }

        draft.version = try Self.parseVersion(input, targetEnd + 1..<line.upperBound)
        draft.method = HTTPMethod(input.string(method))
        try Self.checkTargetForm(input, target, isOptions: draft.method == HTTPMethod("OPTIONS"))
        draft.target = input.string(target)
        draft.hasRequestLine = true
    }

    /// `HTTP/1.0` or `HTTP/1.1`; other well-formed versions are 505.
    private static func parseVersion(_ input: Input, _ range: Range<Int>) throws(HTTPParseError) -> HTTPVersion {
        let p = range.lowerBound
        guard range.count >= 6, input[p] == 0x48, input[p + 1] == 0x54, input[p + 2] == 0x54,
              input[p + 3] == 0x50, input[p + 4] == Byte.slash, Byte.isDigit(input[p + 5]) else {
            throw malformed("malformed version")
        }
        let major = input[p + 5] - Byte.zero
        if range.count == 6, major >= 2 {
            throw HTTPParseError(.httpVersionNotSupported, "unsupported version")
        }
        guard range.count == 8, input[p + 6] == Byte.dot, Byte.isDigit(input[p + 7]) else {
            throw malformed("malformed version")
        }
        switch (major, input[p + 7] - Byte.zero) {
        case (1, 0): return .http1_0
        case (1, 1): return .http1_1
        default: throw HTTPParseError(.httpVersionNotSupported, "unsupported version")
        }
    }

    /// origin-form, absolute-form with an http(s) scheme, or `*` for OPTIONS.
    private static func checkTargetForm(_ input: Input, _ target: Range<Int>, isOptions: Bool) throws(HTTPParseError) {
        let first = input[target.lowerBound]
        if first == Byte.slash { return }
        if target.count == 1, first == Byte.asterisk {
            guard isOptions else { throw malformed("asterisk target without OPTIONS") }
            return
        }
        for scheme: StaticString in ["http://", "https://"] {
            let length = scheme.utf8CodeUnitCount
            guard target.count > length,
                  input.equalsIgnoringCase(target.lowerBound..<target.lowerBound + length, scheme) else { continue }
            let authorityStart = input[target.lowerBound + length]
            guard authorityStart != Byte.slash, authorityStart != 0x3F else { break }
            return
        }
        throw malformed("unsupported request target form")
    }

    // MARK: Fields

    /// One `field-name ":" OWS field-value OWS` line of the head.
    private mutating func parseField(_ input: Input, _ line: Range<Int>) throws(HTTPParseError) {
        guard draft.headers.count < limits.maxHeaderFields else {
            throw HTTPParseError(.headerFieldsTooLarge, "too many header fields")
        }
        let (name, value) = try FieldGrammar.splitField(input, line)
        try noteFramingField(input, name: name, value: value)
        // Room for the rest of what was received, up to 4 KiB: the head
        // usually ends there (a larger one grows the buffer).
        if draft.headers.count == 0 {
            draft.headers = HTTPHeaders(capacity: 16, byteCapacity: min(input.count - line.lowerBound, 4096))
        }
        // Checked: a token name (`splitField`), a value the line scanner
        // found free of controls but HTAB.
        draft.headers.add(checkedName: input.slice(name), value: input.slice(value))
    }

    /// Records the fields that decide framing, routing and the connection.
    private mutating func noteFramingField(_ input: Input, name: Range<Int>, value: Range<Int>) throws(HTTPParseError) {
        switch name.count {
        case 4 where input.equalsIgnoringCase(name, "host"):
            draft.hostFields += 1
            guard draft.hostFields == 1 else { throw Self.malformed("duplicate Host") }
            guard Self.isValidHost(input, value) else { throw Self.malformed("invalid Host") }
        case 6 where input.equalsIgnoringCase(name, "expect"):
            if input.equalsIgnoringCase(value, "100-continue") {
                draft.expectsContinue = true
            } else {
                draft.unsupportedExpectation = true
            }
        default:
            // A second Content-Length, even an equal one, is refused.
            try draft.framing.note(input, name: name, value: value, lengthLists: false)
        }
    }

    /// `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2); may be empty.
    private static func isValidHost(_ input: Input, _ value: Range<Int>) -> Bool {
        var i = value.lowerBound
        let end = value.upperBound
        if i < end, input[i] == Byte.leftBracket {
            guard let close = input.firstIndex(of: Byte.rightBracket, in: i + 1..<end), close > i + 1 else {
                return false
            }
            for j in i + 1..<close where !(Byte.isHostChar(input[j]) || input[j] == Byte.colon) { return false }
            i = close + 1
        } else {
            while i < end, input[i] != Byte.colon {
                if input[i] == Byte.percent {
                    guard i + 2 < end, Byte.hexValue(input[i + 1]) != nil, Byte.hexValue(input[i + 2]) != nil else {
                        return false
                    }
                    i += 3
                    continue
                }
                guard Byte.isHostChar(input[i]) else { return false }
                i += 1
            }
        }
        guard i < end else { return true }
        guard input[i] == Byte.colon else { return false }
        for j in i + 1..<end where !Byte.isDigit(input[j]) { return false }
        return true
    }

    // MARK: End of head

    /// Checks the head as a whole and builds it.
    private mutating func finishHead() throws(HTTPParseError) -> HTTPRequestHead {
        let framing = try draft.framing.requestFraming(version: draft.version)
        if draft.version == .http1_1, draft.hostFields == 0 { throw Self.malformed("missing Host") }
        if draft.unsupportedExpectation { throw HTTPParseError(.expectationFailed, "unsupported expectation") }
        let keepAlive = draft.version == .http1_1
            ? !draft.framing.connectionClose
            : draft.framing.connectionKeepAlive && !draft.framing.connectionClose
        return HTTPRequestHead(
            method: draft.method, target: draft.target, version: draft.version,
            headers: draft.headers, framing: framing, keepAlive: keepAlive,
            // A 100-continue expectation in HTTP/1.0 is ignored (RFC 9110 §10.1.1).
            expectsContinue: draft.expectsContinue && draft.version == .http1_1)
    }
}
