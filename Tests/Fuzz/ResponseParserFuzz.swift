// libFuzzer entry for the HTTP client's strict upstream response parser
// (`UpstreamResponseParser`) and its step-by-step `ChunkedDecoder`, and,
// through `checkLineReader` (ResponseHeadParserFuzz.swift), for the reader
// of libcurl's header lines (`ResponseHeadParser`).
// Tests/Fuzz/run.sh builds the codec (HTTPCodec) as a module, then this
// file with Sources/HTTPClient/UpstreamResponseParser.swift, its chunked
// decoder and HTTPClientError.swift into one module; any trap is a finding.
//
// Each input is read the way UpstreamConnection reads it: `headEnd`, then
// `parse` of the head (with `headRequest` false and true), interim 1xx heads
// skipped (101 refused), and, when the final head is chunked, the rest
// stepped through a `ChunkedDecoder`, once whole and once in pieces whose
// sizes derive from a hash of the input. Every buffer handed to the code
// under test is a copy of exactly its size, so ASan sees a read past it.
//
// Invariants checked (see Docs/fuzzing.md):
// - nothing traps, and ASan sees no memory error;
// - `headEnd` is just past the first blank line, and does not depend on how
//   much arrived past it;
// - a refused head throws `.invalidResponse`; an accepted one has no
//   control byte but HTAB (CR only before LF), a `HTTP/1.0` or `HTTP/1.1`
//   status line with the status it reports, and exactly the fields of its
//   lines (token names, values trimmed); its framing follows RFC 9112 §6.3
//   (no body for HEAD/1xx/204/304; chunked only alone and without a length;
//   lengths that all agree; close-delimited otherwise); keep-alive never
//   with a close-delimited body or `Connection: close`, and on HTTP/1.0 only
//   with `keep-alive` and no Transfer-Encoding;
// - `headRequest` changes only the framing, and additionally refuses
//   Content-Length beside Transfer-Encoding;
// - decoder steps consume between 1 byte and what they were given, framing
//   steps whole lines, the end step exactly the blank line after the
//   trailers; `.more` and `.data` change nothing (the same bytes give the
//   same step again); body bytes never exceed consumed bytes; the number
//   of steps is bounded;
// - once the decoder reports the end it reports `.end(0)` for any bytes;
//   once it throws, the same bytes (and those plus the rest) throw again;
// - whole and in pieces give the same body, end, consumed count and failure.

import HTTPCodec

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var hash: UInt64 = 14_695_981_039_346_656_037
    for byte in input { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
    var choices = Choices(seed: hash)
    checkLineReader(input)

    guard let (head, bodyStart) = readHeads(input, &choices), head.framing == .chunked else { return 0 }
    let body = UnsafeRawBufferPointer(rebasing: input[bodyStart...])
    let whole = decodeChunked(body, pieceLimit: Int.max, &choices)
    let pieceLimit = [1, 2, 3, 5, 8, 13, 64, 512][Int(hash >> 61)]
    let pieced = decodeChunked(body, pieceLimit: pieceLimit, &choices)
    if pieced != whole {
        fatalError("chunked body in pieces of 1...\(pieceLimit) decoded as \(pieced), whole as \(whole)")
    }
    return 0
}

// MARK: - Heads

/// Reads heads from the start of `input` as the connection does: interim
/// 1xx heads are skipped, 101 is refused. Returns the final head (parsed
/// for a GET) and the offset just past it, or nil.
private func readHeads(_ input: UnsafeRawBufferPointer, _ choices: inout Choices) -> (UpstreamResponseHead, Int)? {
    var offset = 0
    while true {
        let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
        guard let end = checkedHeadEnd(rest, &choices) else {
            // An unfinished head: the connection waits for more and never
            // parses it, but the parser must not trap on it either.
            _ = parse(rest, headRequest: false)
            return nil
        }
        let head = UnsafeRawBufferPointer(rebasing: rest[..<end])
        let plain = parse(head, headRequest: false)
        let forHEAD = parse(head, headRequest: true)
        if case .success(let response) = plain { checkAccepted(response, head, headRequest: false) }
        if case .success(let response) = forHEAD { checkAccepted(response, head, headRequest: true) }
        checkHeadRequestFlag(plain, forHEAD)
        offset += end
        guard case .success(let response) = plain else { return nil }
        if response.status >= 200 { return (response, offset) }
        // 100 and 103 precede the answer; nothing asked to switch protocols.
        if response.status == 101 { return nil }
    }
}

/// `headEnd`, checked: just past the first line that is empty or a lone
/// CR, and the same answer for a prefix that holds that line.
private func checkedHeadEnd(_ bytes: UnsafeRawBufferPointer, _ choices: inout Choices) -> Int? {
    let end = exactCopy(bytes) { UpstreamResponseParser.headEnd($0) }
    var lineStart = 0
    var expected: Int?
    for index in 0..<bytes.count where bytes[index] == 0x0A {
        let length = index - lineStart
        if length == 0 || (length == 1 && bytes[lineStart] == 0x0D) {
            expected = index + 1
            break
        }
        lineStart = index + 1
    }
    if end != expected {
        fatalError("headEnd is \(String(describing: end)), the first blank line ends at \(String(describing: expected))")
    }

    // The connection asks again as bytes arrive.
    let cut = choices.below(bytes.count + 1)
    let early = exactCopy(UnsafeRawBufferPointer(rebasing: bytes[..<cut])) { UpstreamResponseParser.headEnd($0) }
    let expectedEarly = end.flatMap { $0 <= cut ? $0 : nil }
    if early != expectedEarly { fatalError("headEnd of the first \(cut) bytes is \(String(describing: early))") }
    return end
}

/// One `parse` call on an exact copy; a refusal must be `.invalidResponse`.
private func parse(_ head: UnsafeRawBufferPointer, headRequest: Bool) -> Result<UpstreamResponseHead, HTTPClientError> {
    let result = exactCopy(head) { copy in
        Result { () throws(HTTPClientError) in try UpstreamResponseParser.parse(copy, headRequest: headRequest) }
    }
    if case .failure(let error) = result, error != .invalidResponse { fatalError("head refused with \(error)") }
    return result
}

/// What the bytes of a whole head (through its blank line) say, read
/// independently of the parser.
private struct HeadLines {
    var minor: Int
    var status: Int
    var fields: [HTTPField]

    /// Nil when the status line is not `HTTP/1.x NNN[ reason]` or a field
    /// line has no colon.
    init?(_ head: UnsafeRawBufferPointer) {
        var lines: [[UInt8]] = []
        var lineStart = 0
        for index in 0..<head.count where head[index] == 0x0A {
            var line = Array(head[lineStart..<index])
            if line.last == 0x0D { line.removeLast() }
            lines.append(line)
            lineStart = index + 1
        }
        guard lineStart == head.count, lines.count >= 2, lines.last!.isEmpty else {
            fatalError("a head from headEnd does not end in its blank line")
        }
        let statusLine = lines[0]
        guard statusLine.count >= 12, statusLine.starts(with: Array("HTTP/1.".utf8)),
              statusLine[7] == 0x30 || statusLine[7] == 0x31, statusLine[8] == 0x20,
              statusLine[9...11].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              statusLine.count == 12 || statusLine[12] == 0x20 else { return nil }
        minor = Int(statusLine[7] - 0x30)
        status = statusLine[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        fields = []
        for line in lines[1..<(lines.count - 1)] {
            guard let colon = line.firstIndex(of: 0x3A) else { return nil }
            var value = line[(colon + 1)...]
            while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
            while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
            fields.append(HTTPField(name: String(decoding: line[..<colon], as: UTF8.self),
                                    value: String(decoding: value, as: UTF8.self)))
        }
    }

    func values(_ lowercaseName: String) -> [String] {
        fields.filter { asciiLowercase($0.name) == lowercaseName }.map(\.value)
    }
}

/// An accepted head agrees with its bytes and with RFC 9112's framing rules.
private func checkAccepted(_ response: UpstreamResponseHead, _ head: UnsafeRawBufferPointer, headRequest: Bool) {
    // No control character but HTAB; CR only as part of a line end.
    for index in 0..<head.count {
        let byte = head[index]
        if byte == 0x0A || byte == 0x09 || (byte >= 0x20 && byte != 0x7F) { continue }
        if byte == 0x0D, index + 1 < head.count, head[index + 1] == 0x0A { continue }
        fatalError("accepted a head with byte \(byte) at \(index)")
    }
    guard let lines = HeadLines(head) else { fatalError("accepted a bad status line or a line without a colon") }
    if response.status != lines.status || !(100...999).contains(response.status) {
        fatalError("status \(response.status), the status line says \(lines.status)")
    }
    // Names are tokens: no empty name, no whitespace before the colon, no
    // folded line (which would start with a space or tab).
    for field in lines.fields where field.name.isEmpty || !field.name.utf8.allSatisfy(isTokenChar) {
        fatalError("accepted the field name \(field.name.debugDescription)")
    }
    if response.headers.fields != lines.fields { fatalError("the fields differ from the head's lines") }

    let lengths = lines.values("content-length")
    let codings = lines.values("transfer-encoding")
    let connection = lines.values("connection").flatMap(listItems).map(asciiLowercase)
    // Every length, whatever the framing, is digits and they all agree.
    let lengthItems = lengths.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(trimmed) }
    for items in lengthItems {
        for item in items where item.isEmpty || item.count > 18 || !item.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            fatalError("accepted the length item \(item.debugDescription)")
        }
    }
    let lengthValues = Set(lengthItems.joined().map { Int($0)! })
    if lengthValues.count > 1 { fatalError("accepted differing lengths \(lengthValues)") }

    let bodiless = headRequest || response.status < 200 || response.status == 204 || response.status == 304
    switch response.framing {
    case .none:
        if !bodiless { fatalError("no body for status \(response.status)") }
    case .chunked:
        if bodiless || !lengths.isEmpty || codings.count != 1 || asciiLowercase(codings[0]) != "chunked" {
            fatalError("chunked framing beside \(lengths.count) lengths and codings \(codings)")
        }
    case .length(let length):
        if bodiless || !codings.isEmpty || lengthValues != [length] {
            fatalError("length \(length) beside codings \(codings) and lengths \(lengthValues)")
        }
    case .untilClose:
        if bodiless || !codings.isEmpty || !lengths.isEmpty { fatalError("close-delimited despite framing fields") }
    }
    if headRequest, !codings.isEmpty, !lengths.isEmpty { fatalError("HEAD answer with a length beside a coding") }

    if response.keepAlive {
        if response.framing == .untilClose { fatalError("keep-alive after a close-delimited body") }
        if connection.contains("close") { fatalError("keep-alive despite Connection: close") }
        if lines.minor == 0, !connection.contains("keep-alive") || !codings.isEmpty {
            fatalError("HTTP/1.0 kept alive without keep-alive, or with Transfer-Encoding")
        }
    }
}

/// `headRequest` changes the framing only, and adds one refusal: a length
/// beside a coding. Otherwise both readings accept and refuse alike.
private func checkHeadRequestFlag(_ plain: Result<UpstreamResponseHead, HTTPClientError>,
                                  _ forHEAD: Result<UpstreamResponseHead, HTTPClientError>) {
    switch (plain, forHEAD) {
    case (.success(let get), .success(let head)):
        if get.status != head.status || get.headers != head.headers { fatalError("headRequest changed the status or fields") }
        if head.framing != .none { fatalError("a HEAD answer with a body") }
    case (.success(let get), .failure):
        if get.headers.values("Content-Length").isEmpty || get.headers.values("Transfer-Encoding").isEmpty {
            fatalError("refused for HEAD only, without a length beside a coding")
        }
    case (.failure, .success(let head)):
        let bodiless = head.status < 200 || head.status == 204 || head.status == 304
        if bodiless || head.headers.values("Transfer-Encoding").isEmpty {
            fatalError("refused for GET only, though the framing fields cannot be at fault")
        }
    case (.failure, .failure):
        break
    }
}

// MARK: - Chunked bodies

/// What a connection would make of a chunked body.
private struct Decoded: Equatable, CustomStringConvertible {
    var body: [UInt8] = []
    /// Bytes taken by the decoder (framing and data).
    var used = 0
    var ended = false
    var failed = false

    var description: String { "(body \(body.count) bytes, used \(used), ended \(ended), failed \(failed))" }
}

/// Feeds `input` in pieces of 1...`pieceLimit` bytes (more while a long
/// line waits), keeping what a step left for the next one as the
/// connection does. Data is taken whole or in part, and sometimes offered
/// twice first (a reader that is behind).
private func decodeChunked(_ input: UnsafeRawBufferPointer, pieceLimit: Int, _ choices: inout Choices) -> Decoded {
    var decoder = ChunkedDecoder()
    var result = Decoded()
    var fed = 0
    var calls = 0
    repeat {
        // Once more than 64 bytes wait unused (a long line), pieces grow
        // with them: each step rescans what waits, and small pieces would
        // make that quadratic (most of a second for one 4 KiB line).
        let remaining = input.count - fed
        let piece = pieceLimit >= remaining ? remaining : 1 + choices.below(pieceLimit)
        fed = min(input.count, fed + max(piece, (fed - result.used - 64) / 2))
        stepping: while true {
            calls += 1
            if calls > 4 * input.count + 16 { fatalError("the chunked decoder makes no progress") }
            let pending = UnsafeRawBufferPointer(rebasing: input[result.used..<fed])
            let step: ChunkedDecoder.Step
            switch checkedStep(&decoder, pending) {
            case .failure:
                // Sticky for the same bytes, and for them with the rest after.
                guard case .failure = checkedStep(&decoder, pending),
                      case .failure = checkedStep(&decoder, UnsafeRawBufferPointer(rebasing: input[result.used...])) else {
                    fatalError("the chunked decoder recovered after an error")
                }
                result.failed = true
                return result
            case .success(let taken):
                step = taken
            }
            switch step {
            case .more:
                guard case .success(.more) = checkedStep(&decoder, pending) else {
                    fatalError("the same bytes did not ask for more again")
                }
                break stepping
            case .framing(let count):
                if count < 1 || count > pending.count { fatalError("framing of \(count) of \(pending.count) bytes") }
                if pending[count - 1] != 0x0A { fatalError("framing of \(count) bytes is not a whole line") }
                result.used += count
            case .data(let count):
                if count < 1 || count > pending.count { fatalError("data of \(count) of \(pending.count) bytes") }
                if choices.below(4) == 0 {
                    guard case .success(.data(count)) = checkedStep(&decoder, pending) else {
                        fatalError("the same bytes did not give the same data again")
                    }
                }
                let taken = choices.below(2) == 0 ? count : 1 + choices.below(count)
                result.body += pending[..<taken]
                decoder.delivered(taken)
                result.used += taken
            case .end(let count):
                if count < 1 || count > pending.count { fatalError("end after \(count) of \(pending.count) bytes") }
                // The blank line closing the trailers, and nothing more.
                if pending[count - 1] != 0x0A || count > 2 || (count == 2 && pending[0] != 0x0D) {
                    fatalError("the end's \(count) bytes are not a blank line")
                }
                result.used += count
                result.ended = true
                // "0" CRLF and a blank line at least.
                if result.body.count + 3 > result.used {
                    fatalError("ended with \(result.body.count) body bytes in \(result.used)")
                }
                let after = UnsafeRawBufferPointer(rebasing: input[result.used...])
                for bytes in [after, UnsafeRawBufferPointer(rebasing: after[..<0]), pending] {
                    guard case .success(.end(0)) = checkedStep(&decoder, bytes) else {
                        fatalError("the chunked decoder did not stay at its end")
                    }
                }
                return result
            }
            if result.body.count > result.used || result.used > fed { fatalError("decoded \(result)") }
        }
    } while fed < input.count
    return result
}

/// One `step` on an exact copy; a refusal must be `.invalidResponse`.
private func checkedStep(_ decoder: inout ChunkedDecoder, _ bytes: UnsafeRawBufferPointer)
    -> Result<ChunkedDecoder.Step, HTTPClientError>
{
    let result = exactCopy(bytes) { copy in Result { () throws(HTTPClientError) in try decoder.step(copy) } }
    if case .failure(let error) = result, error != .invalidResponse { fatalError("chunk framing refused with \(error)") }
    return result
}

// MARK: - Helpers

/// Runs `body` on a copy of `bytes` in an allocation of exactly its size:
/// the caller's buffers run on past it, where ASan would see no error.
private func exactCopy<R>(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    defer { copy.deallocate() }
    copy.copyMemory(from: bytes)
    return body(UnsafeRawBufferPointer(copy))
}

/// A token character (RFC 9110 §5.6.2), written out here rather than taken
/// from the parser under test.
private func isTokenChar(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
        true
    default:
        Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

/// ASCII letters lowered, nothing else touched (`lowercased()` would also
/// map non-ASCII letters, such as the Kelvin sign to `k`).
private func asciiLowercase(_ text: some StringProtocol) -> String {
    String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
}

private func trimmed(_ text: Substring) -> Substring {
    var text = text.utf8[...]
    while let first = text.first, first == 0x20 || first == 0x09 { text = text.dropFirst() }
    while let last = text.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
    return Substring(text)
}

/// The non-empty items of a comma-separated list, trimmed.
private func listItems(_ value: String) -> [Substring] {
    value.split(separator: ",", omittingEmptySubsequences: false).map(trimmed).filter { !$0.isEmpty }
}

/// Choices derived from the input (xorshift64 seeded with its hash), so a
/// finding replays the same way.
private struct Choices {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(bound))
    }
}
