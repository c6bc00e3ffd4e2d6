import HTTP
import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Calls `parse` once on `text` and returns the event with the bytes it names.
private func step(_ parser: inout HTTPRequestParser, _ text: String) throws -> (HTTPParserEvent, Int, String) {
    let raw = bytes(text)
    return try raw.withUnsafeBytes { buffer in
        let (event, consumed) = try parser.parse(buffer)
        guard case .body(let range) = event else { return (event, consumed, "") }
        return (event, consumed, String(decoding: buffer[range], as: UTF8.self))
    }
}

private let chunkedHead = "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"

private let tchars = Set(bytes("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))

@Suite struct RequestParserBodyTests: ParserHarness {
    // MARK: - Chunked

    @Test func chunkedBodyWithExtensionsAndTrailers() {
        let body = "5;name=value\r\nhello\r\n"
            + "7 ; q=\"a \\\"quoted\\\" ;=\" ; flag\r\n, world\r\n"
            + "A;x=1;y\r\n and more!\r\n"
            + "0;last=yes\r\nX-Checksum: abc\r\nServer-Timing: db;dur=53\r\n\r\n"
        let raw = bytes(chunkedHead + body)
        let steps = whole(raw)
        #expect(steps.count == 3)
        #expect(steps.dropFirst().first == .body(bytes("hello, world and more!")))
        #expect(steps.last == .end)
        if case .head(let head) = steps.first {
            #expect(head.framing == .chunked)
            #expect(head.headers.count == 2, "trailers are discarded, never merged into the head")
        }
        #expect(bytewise(raw) == steps)
        for split in 1..<raw.count {
            #expect(feed([Array(raw[..<split]), Array(raw[split...])]) == steps, "split at \(split)")
        }
    }

    @Test func chunkDataArrivesPieceByPiece() throws {
        var parser = HTTPRequestParser()
        let (head, headConsumed, _) = try step(&parser, chunkedHead)
        #expect(head != .needMore && headConsumed == bytes(chunkedHead).count)

        let first = try step(&parser, "5\r\nhel")
        #expect(first.0 == .body(3..<6) && first.1 == 6 && first.2 == "hel")
        let second = try step(&parser, "lo")
        #expect(second.0 == .body(0..<2) && second.1 == 2 && second.2 == "lo")
        // The CRLF after the data and the complete framing before a partial line are consumed.
        let partial = try step(&parser, "\r\n1")
        #expect(partial.0 == .needMore && partial.1 == 2)
        let third = try step(&parser, "1\r\n!\r\n0\r\n")
        #expect(third.0 == .body(3..<4) && third.1 == 4 && third.2 == "!")
        let waiting = try step(&parser, "\r\n0\r\nX-T: 1\r\n")
        #expect(waiting.0 == .needMore && waiting.1 == 13)
        let end = try step(&parser, "\r\n")
        #expect(end.0 == .end && end.1 == 2)
    }

    @Test func largestChunkSizeIsAcceptedAndStreamed() throws {
        var parser = HTTPRequestParser()
        _ = try step(&parser, chunkedHead)
        let piece = try step(&parser, "7fffffffffffffff\r\nabc")
        #expect(piece.0 == .body(18..<21) && piece.2 == "abc")
    }

    @Test func chunkLineAtTheLimitIsAccepted() {
        let limits = HTTPParserLimits(maxChunkLineBytes: 8)
        let exact = bytes(chunkedHead + "5;a=bbbb\r\nhello\r\n0\r\n\r\n")
        #expect(whole(exact, limits: limits).last == .end)
        let over = bytes(chunkedHead + "5;a=bbbbb\r\nhello\r\n0\r\n\r\n")
        #expect(whole(over, limits: limits).last == .failed(400))
        #expect(bytewise(over, limits: limits).last == .failed(400))
    }

    @Test func trailersMayUseWhatTheHeadLeft() {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"  // 56 bytes, 2 fields
        let trailer = "X: 1234567\r\n"  // 12 bytes
        let raw = bytes(head + "0\r\n" + trailer + "\r\n")
        #expect(whole(raw, limits: HTTPParserLimits(maxHeaderBytes: 68)).last == .end)
        #expect(whole(raw, limits: HTTPParserLimits(maxHeaderBytes: 67)).last == .failed(431))
        #expect(whole(raw, limits: HTTPParserLimits(maxHeaderFields: 3)).last == .end)
        #expect(whole(raw, limits: HTTPParserLimits(maxHeaderFields: 2)).last == .failed(431))
    }

    // MARK: - Content-Length

    @Test func contentLengthBodyIsEmittedAsItArrives() throws {
        var parser = HTTPRequestParser()
        let head = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n"
        let first = try step(&parser, head + "0123")
        guard case .head(let parsed) = first.0 else { Issue.record("expected head"); return }
        #expect(parsed.framing == .contentLength(10) && first.1 == bytes(head).count)
        let a = try step(&parser, "0123")
        #expect(a.0 == .body(0..<4) && a.1 == 4)
        #expect(try step(&parser, "").0 == .needMore)
        // Bytes past the body belong to the next request and stay unconsumed.
        let b = try step(&parser, "456789GET")
        #expect(b.0 == .body(0..<6) && b.1 == 6 && b.2 == "456789")
        let end = try step(&parser, "GET")
        #expect(end.0 == .end && end.1 == 0)
        #expect(try step(&parser, "GET").0 == .needMore)
    }

    // MARK: - Limits at the boundary

    @Test func limitsAreInclusive() {
        let head = "GET /abc HTTP/1.1\r\nHost: a\r\n\r\n"  // 30 bytes, target of 4, 1 field
        #expect(whole(bytes(head), limits: HTTPParserLimits(maxHeaderBytes: 30)).last == .end)
        #expect(whole(bytes(head), limits: HTTPParserLimits(maxHeaderBytes: 29)).last == .failed(431))
        #expect(bytewise(bytes(head), limits: HTTPParserLimits(maxHeaderBytes: 29)).last == .failed(431))
        #expect(whole(bytes(head), limits: HTTPParserLimits(maxHeaderFields: 1)).last == .end)
        #expect(whole(bytes(head), limits: HTTPParserLimits(maxHeaderFields: 0)).last == .failed(431))
        #expect(whole(bytes(head), limits: HTTPParserLimits(maxTargetLength: 4)).last == .end)
        #expect(whole(bytes(head), limits: HTTPParserLimits(maxTargetLength: 3)).last == .failed(414))
    }

    @Test func leadingEmptyLinesDoNotCountAgainstTheHead() {
        let raw = bytes("\r\n\r\nGET /abc HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(whole(raw, limits: HTTPParserLimits(maxHeaderBytes: 30)).last == .end)
        let eight = bytes(String(repeating: "\r\n", count: 8) + "GET / HTTP/1.0\r\n\r\n")
        #expect(whole(eight).last == .end)
    }

    // MARK: - Byte classes, exhaustively

    @Test func methodAcceptsExactlyTheTokenCharacters() {
        for byte in UInt8.min...UInt8.max where byte != 0x20 {
            let raw = bytes("G") + [byte] + bytes("T / HTTP/1.1\r\nHost: a\r\n\r\n")
            let accepted = whole(raw).last == .end
            #expect(accepted == tchars.contains(byte), "byte \(byte)")
        }
    }

    @Test func fieldNameAcceptsExactlyTheTokenCharacters() {
        for byte in UInt8.min...UInt8.max where byte != UInt8(ascii: ":") {
            let raw = bytes("GET / HTTP/1.1\r\nHost: a\r\nX") + [byte] + bytes("Y: 1\r\n\r\n")
            let accepted = whole(raw).last == .end
            #expect(accepted == tchars.contains(byte), "byte \(byte)")
        }
    }

    @Test func fieldValueRefusesControlCharactersOnly() {
        for byte in UInt8.min...UInt8.max {
            let raw = bytes("GET / HTTP/1.1\r\nHost: a\r\nX: a") + [byte] + bytes("b\r\n\r\n")
            let accepted = whole(raw).last == .end
            #expect(accepted == (byte == 0x09 || (byte >= 0x20 && byte != 0x7F)), "byte \(byte)")
        }
    }

    @Test func targetAcceptsVisibleASCIIOnly() {
        for byte in UInt8.min...UInt8.max {
            let raw = bytes("GET /a") + [byte] + bytes(" HTTP/1.1\r\nHost: a\r\n\r\n")
            let accepted = whole(raw).last == .end
            #expect(accepted == (byte > 0x20 && byte < 0x7F), "byte \(byte)")
        }
    }

    // MARK: - Splits

    /// Every input of the suites, cut at pseudo-random points, gives the same events.
    @Test func randomSplitsGiveTheSameEvents() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let good: [([UInt8], HTTPParserLimits)] = RequestParserCases.good.map { ($0.raw, HTTPParserLimits()) }
        let bad: [([UInt8], HTTPParserLimits)] = RequestParserCases.allBad.map { ($0.raw, $0.limits) }
        for (raw, limits) in good + bad {
            let expected = whole(raw, limits: limits)
            for _ in 0..<8 {
                var pieces: [[UInt8]] = []
                var start = 0
                while start < raw.count {
                    let length = 1 + next(max(1, raw.count / 3))
                    pieces.append(Array(raw[start..<min(raw.count, start + length)]))
                    start += length
                }
                #expect(feed(pieces, limits: limits) == expected)
            }
        }
    }
}
