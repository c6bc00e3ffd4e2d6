// libFuzzer entry for HTTPRequestParser. Built together with the HTTP parser
// sources into one module, linked with the codec (HTTPCodec), by
// Tests/Fuzz/run.sh; any trap is a finding.
//
// Invariants checked on every input:
// - parse never crashes or traps (ASan catches memory errors);
// - `consumed <= bytes.count`, body ranges are non-empty and inside the
//   consumed part of the buffer, and every call makes progress;
// - a failed parser keeps throwing the same error;
// - feeding the input whole, split at one point, and in small pieces (both
//   derived from the input) gives the same events: heads, body bytes
//   (pieces merged), ends and the error status.

import HTTPCodec

/// What a connection would see, with body pieces merged.
enum Observed: Equatable {
    case head(HTTPRequestHead)
    case body([UInt8])
    case end
    case failed(HTTPStatus)
}

/// Small limits (so the fuzzer reaches 414/431/chunk-line errors) or defaults.
private func limits(for input: UnsafeBufferPointer<UInt8>) -> HTTPParserLimits {
    if input.count & 1 == 0 { return HTTPParserLimits() }
    return HTTPParserLimits(maxHeaderBytes: 256, maxHeaderFields: 8, maxTargetLength: 64, maxChunkLineBytes: 32)
}

/// Feeds `pieces` like a connection: append, parse until `.needMore`, drop `consumed`.
private func feed(_ pieces: [ArraySlice<UInt8>], limits: HTTPParserLimits) -> [Observed] {
    var parser = HTTPRequestParser(limits: limits)
    var pending: [UInt8] = []
    var observed: [Observed] = []
    let totalBytes = pieces.reduce(0) { $0 + $1.count }
    var calls = 0
    for piece in pieces {
        pending.append(contentsOf: piece)
        reading: while true {
            calls += 1
            if calls > 4 * totalBytes + 16 { fatalError("parser makes no progress") }
            let outcome = pending.withUnsafeBytes { buffer in call(&parser, buffer) }
            let (event, consumed, body): (HTTPParserEvent, Int, [UInt8])
            switch outcome {
            case .failure(let error):
                checkStaysDead(&parser, error)
                return observed + [.failed(error.status)]
            case .success(let result):
                (event, consumed, body) = result
            }
            pending.removeFirst(consumed)
            switch event {
            case .needMore:
                break reading
            case .head(let head):
                observed.append(.head(head))
            case .end:
                observed.append(.end)
            case .body:
                if case .body(let earlier) = observed.last {
                    observed[observed.count - 1] = .body(earlier + body)
                } else {
                    observed.append(.body(body))
                }
            }
        }
    }
    return observed
}

/// One `parse` call with the buffer contract checked.
private func call(_ parser: inout HTTPRequestParser, _ buffer: UnsafeRawBufferPointer)
    -> Result<(HTTPParserEvent, Int, [UInt8]), HTTPParseError>
{
    do throws(HTTPParseError) {
        let (event, consumed) = try parser.parse(buffer)
        if consumed < 0 || consumed > buffer.count { fatalError("consumed outside the buffer") }
        guard case .body(let range) = event else { return .success((event, consumed, [])) }
        if range.isEmpty || range.lowerBound < 0 || range.upperBound > consumed {
            fatalError("body range outside the consumed bytes")
        }
        return .success((event, consumed, Array(buffer[range])))
    } catch {
        if error.status.code < 400 || error.status.code > 599 { fatalError("error status is not an error") }
        return .failure(error)
    }
}

/// After an error, every later call throws that same error.
private func checkStaysDead(_ parser: inout HTTPRequestParser, _ first: HTTPParseError) {
    let probe: [UInt8] = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
    let again = probe.withUnsafeBytes { call(&parser, $0) }
    guard case .failure(let error) = again, error == first else { fatalError("parser revived after an error") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let bytes = Array(input)
    let limits = limits(for: input)

    let whole = feed([bytes[...]], limits: limits)

    let seed = bytes.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
    let split = size == 0 ? 0 : Int(seed % UInt32(size + 1))
    let halves = feed([bytes[..<split], bytes[split...]], limits: limits)
    if halves != whole { fatalError("split at \(split) changed the events") }

    let pieceSize = 1 + Int(seed >> 24) % 7
    let pieces = stride(from: 0, to: size, by: pieceSize).map { bytes[$0..<min(size, $0 + pieceSize)] }
    if feed(pieces, limits: limits) != whole { fatalError("pieces of \(pieceSize) changed the events") }
    return 0
}
