import HTTPCodec
import Testing

/// One chunked-body decoder for every reader: the server's rules (CRLF
/// only) and the upstream reader's (a bare LF may end a line) differ only
/// in line endings and limits.
struct ChunkedBodyDecoderTests {
    static func server(lineBytes: Int = 1026, trailerBytes: Int = 16 * 1024, trailerFields: Int = 100) -> ChunkedBodyDecoder {
        ChunkedBodyDecoder(bareLF: false, lineBytes: lineBytes, trailerBytes: trailerBytes, trailerFields: trailerFields)
    }

    static func upstream() -> ChunkedBodyDecoder {
        ChunkedBodyDecoder(bareLF: true, lineBytes: 4096, trailerBytes: 16 * 1024)
    }

    @Test(arguments: [
        ("5\r\nhello\r\n0\r\n\r\n", "hello", 0),
        ("5;name=value\r\nhello\r\na ; ext\r\n, chunked \r\n5\r\nworld\r\n0\r\nX-Sum: 9\r\nX-B: c\r\n\r\nNEXT", "hello, chunked world", 4),
        ("3;a=\"q \\\" s\";b\r\nabc\r\n0\r\n\r\n", "abc", 0),
        ("A\r\n0123456789\r\n0\r\n\r\n", "0123456789", 0),
        ("0000000000000001\r\nx\r\n0\r\n\r\n", "x", 0),
        ("0\r\n\r\n", "", 0),
        ("0\r\nTrailer-Only: yes\r\n\r\nGET", "", 3),
    ])
    func goodBodiesDecodeWhateverTheReadSizes(text: String, body: String, unused: Int) {
        for size in [1, 2, 3, 7, 4096] {
            for make in [{ Self.server() }, Self.upstream] {
                #expect(decode(text, feedBy: size, make) == Decoded(body: body, ended: true, unused: unused), "by \(size)")
            }
        }
    }

    @Test(arguments: [
        ("g\r\nhello\r\n0\r\n\r\n", HTTPStatus.badRequest),
        ("5x\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("-5\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("0x5\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("5\r\nhelloX\r\n0\r\n\r\n", .badRequest),
        ("5\r\nhello0\r\n\r\n", .badRequest),
        ("10000000000000000\r\nx\r\n", .badRequest),
        ("8000000000000000\r\nx\r\n", .badRequest),
        ("5;a\u{0}b\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("5;\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("5;a=\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("5;a=\"open\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("5 x\r\nhello\r\n0\r\n\r\n", .badRequest),
        ("5\r\nhello\r\n0\r\nX : folded\r\n\r\n", .badRequest),
        ("5\r\nhello\r\n0\r\n obs-fold\r\n\r\n", .badRequest),
        ("5\r\nhello\r\n0\r\nX: a\u{1}\r\n\r\n", .badRequest),
        ("5\r\nhel\rlo\r\n", .badRequest),
    ])
    func badFramingIsRefusedByEveryReader(text: String, status: HTTPStatus) {
        for size in [1, 4096] {
            #expect(decode(text, feedBy: size, { Self.server() }).refusal == status, "server, by \(size)")
            #expect(decode(text, feedBy: size, Self.upstream).refusal == status, "upstream, by \(size)")
        }
    }

    /// The server's rules refuse what the upstream reader's allow: bare LF.
    @Test(arguments: ["3\nabc\n0\n\n", "3\r\nabc\n0\r\n\r\n", "3\r\nabc\r\n0\n\r\n", "3\r\nabc\r\n0\r\nX: 1\n\r\n"])
    func aBareLFEndsALineOnlyWhereAllowed(text: String) {
        #expect(decode(text, feedBy: 1, { Self.server() }).refusal == .badRequest)
        #expect(decode(text, feedBy: 1, Self.upstream).ended)
    }

    @Test func aChunkLineAtTheLimitIsAcceptedAndOnePastItRefused() {
        // 8 bytes of chunk line with its CRLF.
        let atLimit = "1;abcd\r\nx\r\n0\r\n\r\n", pastIt = "1;abcde\r\nx\r\n0\r\n\r\n"
        #expect(decode(atLimit, feedBy: 1, { Self.server(lineBytes: 8) }).ended)
        #expect(decode(pastIt, feedBy: 1, { Self.server(lineBytes: 8) }).refusal == .badRequest)
        #expect(decode(pastIt, feedBy: 64, { Self.server(lineBytes: 8) }).refusal == .badRequest)
    }

    /// Trailers: their bytes (the closing empty line aside) and their count
    /// within what the reader allows, 431 past either.
    @Test(arguments: [
        (10, 5, "0\r\nX: 12345\r\n\r\n", true),
        (10, 5, "0\r\nX: 123456\r\n\r\n", false),
        (10, 1, "0\r\nX: 1\r\nY: 2\r\n\r\n", false),
        (20, 2, "0\r\nX: 1\r\nY: 2\r\n\r\n", true),
        (0, 0, "0\r\n\r\n", true),
    ])
    func trailersStayWithinTheirLimits(bytes: Int, fields: Int, text: String, accepted: Bool) {
        let decoded = decode(text, feedBy: 1, { Self.server(trailerBytes: bytes, trailerFields: fields) })
        #expect(decoded.ended == accepted)
        #expect(decoded.refusal == (accepted ? nil : .headerFieldsTooLarge))
    }

    /// Data is offered until taken; the same bytes give the same step.
    @Test func dataIsOfferedAgainUntilDelivered() {
        var decoder = Self.upstream()
        let bytes = Array("5\r\nhello\r\n0\r\n\r\n".utf8)
        func step(from offset: Int) -> ChunkedBodyDecoder.Step? {
            bytes.withUnsafeBytes { raw in try? decoder.step(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
        }
        #expect(step(from: 0) == .framing(3))
        #expect(step(from: 3) == .data(5))
        #expect(step(from: 3) == .data(5))
        decoder.delivered(2)
        #expect(step(from: 5) == .data(3))
        decoder.delivered(3)
        #expect(step(from: 8) == .framing(2))
        #expect(step(from: 10) == .framing(3))
        #expect(step(from: 13) == .end(2))
        #expect(step(from: 15) == .end(0))
    }
}
