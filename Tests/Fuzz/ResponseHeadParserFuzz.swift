// The response fuzzer's second reader: the lines of each input handed one
// by one, with their LF, to `ResponseHeadParser`, as libcurl hands header
// lines to CURLOPT_HEADERFUNCTION, and the result compared with what the
// own connections' reading (`UpstreamResponseParser.headEnd` and `parse`,
// 1xx heads skipped, 101 refused) makes of the same bytes. Built into the
// response fuzzer's module by Tests/Fuzz/run.sh; `fuzzResponse` calls
// `checkLineReader` for every input. Each line is an exact copy of its
// size, so ASan sees a read past it.
//
// Invariants checked (see Docs/fuzzing.md):
// - nothing traps;
// - when the own reading reaches a final head, the line reader completes a
//   head at the same line with the same status and fields, or refuses at
//   that line or before, exactly when the own reading refuses a head;
// - once refused, every later line is refused too.

import HTTPCodec

/// Feeds `input`'s lines to a `ResponseHeadParser` and checks it against
/// the own connections' reading of the same bytes.
func checkLineReader(_ input: UnsafeRawBufferPointer) {
    let own = ownReading(input)
    var parser = ResponseHeadParser()
    var lineStart = 0
    var outcome: (step: ResponseHeadParser.Step, end: Int)?
    while lineStart < input.count, outcome == nil {
        var end = lineStart
        while end < input.count, input[end] != 0x0A { end += 1 }
        end = min(end + 1, input.count)
        let step = copied(UnsafeRawBufferPointer(rebasing: input[lineStart..<end])) { parser.consume($0) }
        if step != .more { outcome = (step, end) }
        lineStart = end
    }
    if let outcome, outcome.step == .refused {
        let again = copied(UnsafeRawBufferPointer(rebasing: input[..<min(1, input.count)])) { parser.consume($0) }
        if again != .refused || !parser.refused { fatalError("a refused line reader read on") }
    }
    switch own {
    case .incomplete:
        // The own connection would wait for more; a line reader that
        // completed a head here read a head the own reading never finished.
        if let outcome, outcome.step == .finalHead { fatalError("the line reader completed a head the own reading did not") }
    case .refused(let headEnd):
        guard let outcome, outcome.step == .refused, outcome.end <= headEnd else {
            fatalError("the own reading refuses a head ending at \(headEnd); the line reader: \(String(describing: outcome))")
        }
    case .final(let status, let fields, let headEnd):
        guard let outcome, outcome.step == .finalHead, outcome.end == headEnd else {
            fatalError("the own reading accepts a head ending at \(headEnd); the line reader: \(String(describing: outcome))")
        }
        if parser.status != status || parser.fields != fields {
            fatalError("the line reader read status \(parser.status) and other fields than the own reading's \(status)")
        }
    }
}

/// What the own connection makes of the heads at the start of `input`.
private enum OwnReading {
    case incomplete
    /// A head ending at this offset was refused (or was a 101).
    case refused(Int)
    case final(status: Int, fields: [HTTPField], end: Int)
}

private func ownReading(_ input: UnsafeRawBufferPointer) -> OwnReading {
    var offset = 0
    while true {
        let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
        guard let end = UpstreamResponseParser.headEnd(rest) else { return .incomplete }
        let result = copied(UnsafeRawBufferPointer(rebasing: rest[..<end])) { head in
            Result { () throws(HTTPClientError) in try UpstreamResponseParser.parse(UnsafeRawBufferPointer(head), headRequest: false) }
        }
        offset += end
        guard case .success(let response) = result, response.status != 101 else { return .refused(offset) }
        if response.status >= 200 { return .final(status: response.status, fields: response.headers.fields, end: offset) }
    }
}

/// Calls `body` with a copy of exactly `bytes`' size.
private func copied<R>(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
    defer { copy.deallocate() }
    _ = copy.initialize(from: bytes)
    return body(UnsafeBufferPointer(copy))
}
