import HTTPCodec

/// Builds the final response head from the lines libcurl hands to
/// CURLOPT_HEADERFUNCTION: status lines, fields, the blank line ending each
/// head and, after a chunked body, trailers. Each head is read with the
/// codec's status-line, field and framing rules, as the client's own
/// connections read theirs: a line that breaks them refuses the whole
/// response, and the transfer is aborted.
/// Interim 1xx heads are read and dropped, so only the final head's fields
/// are kept; `101` is refused (nothing asks to switch protocols).
struct ResponseHeadParser {
    /// What one line did.
    enum Step: Equatable {
        /// More lines are needed (or the line was a trailer).
        case more
        /// The line completed the final head.
        case finalHead
        /// The response is refused; no later line is read.
        case refused
    }

    private(set) var status = 0
    private(set) var fields: [HTTPField] = []
    /// The final head is complete; later lines are trailers.
    private(set) var complete = false
    /// Any response line arrived (the server saw at least part of the request).
    private(set) var receivedAnything = false
    /// A line broke the rules; the transfer must fail as `.invalidResponse`.
    private(set) var refused = false
    /// Answers a HEAD request: no body, and no length beside chunking.
    let headRequest: Bool
    private var framingFields = FramingFields()
    /// Bytes of the current head, or of the trailers once it is complete.
    private var bytes = 0
    /// Body bytes followed the final head: every later line is a trailer,
    /// never the start of another answer.
    private var bodyStarted = false

    init(headRequest: Bool = false) {
        self.headRequest = headRequest
    }

    var headers: HTTPHeaders { HTTPHeaders(fields) }

    /// Takes one line, with its line end (LF, or CRLF).
    mutating func consume(_ line: UnsafeBufferPointer<UInt8>) -> Step {
        receivedAnything = true
        if refused { return .refused }
        do throws(HTTPParseError) {
            return try read(line)
        } catch {
            refused = true
            return .refused
        }
    }

    private mutating func read(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> Step {
        // libcurl hands whole lines; one without its LF is a head cut short.
        guard line.last == 0x0A else { throw .malformed("head cut short") }
        var end = line.count - 1
        if end > 0, line[end - 1] == 0x0D { end -= 1 }
        let text = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[..<end]))
        bytes += line.count
        if complete {
            // Trailers after a chunked body, not kept, within the same limit
            // as the own connections' (whose framing the server chose).
            // libcurl reads no other line after the final head's blank line
            // unless it sends the request again, which starts with a
            // status line.
            guard !bodyStarted, text.starts(with: [0x48, 0x54, 0x54, 0x50, 0x2F]) else { // "HTTP/"
                guard bytes <= ResponseLimits.maxTrailerBytes else { throw .malformed("trailers too large") }
                return .more
            }
            startOver()
            bytes = line.count
        }
        guard bytes <= ResponseLimits.maxHeadBytes else { throw .malformed("head too large") }
        if status == 0 {
            status = try StatusLine.parse(text).status
            return .more
        }
        if text.isEmpty {
            _ = try framingFields.responseFraming(status: status, headRequest: headRequest)
            if status >= 200 {
                complete = true
                bytes = 0
                return .finalHead
            }
            // 100 and 103 precede the answer; nothing asked to switch protocols.
            guard status != 101 else { throw .malformed("switching protocols") }
            startOver()
            return .more
        }
        let (name, value) = try FieldGrammar.splitCheckedField(text)
        let input = HTTPInput(bytes: text)
        try framingFields.note(input, name: name, value: value, lengthLists: true)
        fields.append(HTTPField(name: input.string(name), value: input.string(value)))
        return .more
    }

    /// Body bytes arrived after the final head: a later line that reads
    /// like a status line is a trailer, which can no longer replace the
    /// status and fields the caller reads.
    mutating func bodyArrived() {
        if complete { bodyStarted = true }
    }

    /// Forgets the head read so far: the next line is a status line.
    private mutating func startOver() {
        status = 0
        fields.removeAll(keepingCapacity: true)
        framingFields = FramingFields()
        complete = false
        bytes = 0
    }
}
