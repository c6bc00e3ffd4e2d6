import HTTP
import Testing

/// A request the parser must refuse with `status`.
struct ParserBadCase: Sendable, CustomTestStringConvertible {
    let name: String
    let raw: [UInt8]
    let status: Int
    let limits: HTTPParserLimits

    init(_ name: String, _ status: Int, _ raw: String, limits: HTTPParserLimits = HTTPParserLimits()) {
        self.init(name, status, bytes(raw), limits: limits)
    }

    init(_ name: String, _ status: Int, _ raw: [UInt8], limits: HTTPParserLimits = HTTPParserLimits()) {
        self.name = name
        self.raw = raw
        self.status = status
        self.limits = limits
    }

    var testDescription: String { "\(status) \(name)" }
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A request line and Host, then `fields` (each ending in CRLF) and the empty line.
private func request(_ fields: String, body: String = "") -> String {
    "POST / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n\(body)"
}

private func chunked(_ body: String) -> String {
    request("Transfer-Encoding: chunked\r\n", body: body)
}

private let small = HTTPParserLimits(maxHeaderBytes: 64, maxHeaderFields: 3, maxTargetLength: 16, maxChunkLineBytes: 8)

extension RequestParserCases {
    static let framing: [ParserBadCase] = [
        ParserBadCase("Content-Length with Transfer-Encoding", 400, request("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n")),
        ParserBadCase("Transfer-Encoding with Content-Length", 400, request("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n")),
        ParserBadCase("differing Content-Length", 400, request("Content-Length: 5\r\nContent-Length: 6\r\n")),
        ParserBadCase("duplicated Content-Length", 400, request("Content-Length: 5\r\nContent-Length: 5\r\n")),
        ParserBadCase("Content-Length +3", 400, request("Content-Length: +3\r\n")),
        ParserBadCase("Content-Length -1", 400, request("Content-Length: -1\r\n")),
        ParserBadCase("Content-Length ' 5x'", 400, request("Content-Length:  5x\r\n")),
        ParserBadCase("Content-Length empty", 400, request("Content-Length:\r\n")),
        ParserBadCase("Content-Length comma list", 400, request("Content-Length: 5, 5\r\n")),
        ParserBadCase("Content-Length inner space", 400, request("Content-Length: 5 5\r\n")),
        ParserBadCase("Content-Length hex", 400, request("Content-Length: 0x5\r\n")),
        ParserBadCase("Content-Length overflow", 400, request("Content-Length: 9223372036854775808\r\n")),
        ParserBadCase("Content-Length huge", 400, request("Content-Length: 99999999999999999999999\r\n")),
        ParserBadCase("Transfer-Encoding on HTTP/1.0", 400, "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"),
        ParserBadCase("Transfer-Encoding gzip", 501, request("Transfer-Encoding: gzip\r\n")),
        ParserBadCase("Transfer-Encoding gzip, chunked", 501, request("Transfer-Encoding: gzip, chunked\r\n")),
        ParserBadCase("Transfer-Encoding chunked, chunked", 501, request("Transfer-Encoding: chunked, chunked\r\n")),
        ParserBadCase("two Transfer-Encoding fields", 501, request("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n")),
        ParserBadCase("Transfer-Encoding identity", 501, request("Transfer-Encoding: identity\r\n")),
        ParserBadCase("Transfer-Encoding empty", 501, request("Transfer-Encoding:\r\n")),
        ParserBadCase("Transfer-Encoding with parameter", 501, request("Transfer-Encoding: chunked;q=1\r\n")),
    ]

    static let chunk: [ParserBadCase] = [
        ParserBadCase("chunk size not hex", 400, chunked("zz\r\n")),
        ParserBadCase("chunk size empty", 400, chunked("\r\n")),
        ParserBadCase("chunk size negative", 400, chunked("-1\r\n")),
        ParserBadCase("chunk size with 0x", 400, chunked("0x5\r\nhello\r\n")),
        ParserBadCase("chunk size leading space", 400, chunked(" 5\r\nhello\r\n")),
        ParserBadCase("chunk size trailing space", 400, chunked("5 \r\nhello\r\n")),
        ParserBadCase("chunk size of 17 digits", 400, chunked("00000000000000005\r\nhello\r\n")),
        ParserBadCase("chunk size overflowing Int", 400, chunked("8000000000000000\r\n")),
        ParserBadCase("chunk size overflowing 64 bits", 400, chunked("10000000000000000\r\n")),
        ParserBadCase("chunk data without CRLF", 400, chunked("5\r\nhelloX\r\n0\r\n\r\n")),
        ParserBadCase("chunk data with LF only", 400, chunked("5\r\nhello\n0\r\n\r\n")),
        ParserBadCase("chunk data with CR only", 400, chunked("5\r\nhello\r0\r\n\r\n")),
        ParserBadCase("chunk line with bare LF", 400, chunked("5\nhello\r\n0\r\n\r\n")),
        ParserBadCase("chunk line too long", 400, chunked("5;a=" + String(repeating: "b", count: 1100) + "\r\nhello\r\n0\r\n\r\n")),
        ParserBadCase("chunk line one byte over the limit", 400, chunked("5;a=bbbbb\r\n"), limits: small),
        ParserBadCase("chunk extension without name", 400, chunked("5;\r\nhello\r\n0\r\n\r\n")),
        ParserBadCase("chunk extension without value", 400, chunked("5;a=\r\nhello\r\n0\r\n\r\n")),
        ParserBadCase("chunk extension unterminated quote", 400, chunked("5;a=\"x\r\nhello\r\n0\r\n\r\n")),
        ParserBadCase("chunk extension with control char", 400, chunked("5;a=\"\u{01}\"\r\nhello\r\n0\r\n\r\n")),
        ParserBadCase("chunk extension trailing space", 400, chunked("5;a \r\nhello\r\n0\r\n\r\n")),
        ParserBadCase("trailer with space in name", 400, chunked("0\r\nX A: b\r\n\r\n")),
        ParserBadCase("trailer obs-fold", 400, chunked("0\r\nX-A: b\r\n c\r\n\r\n")),
        ParserBadCase("trailer without colon", 400, chunked("0\r\nX-A\r\n\r\n")),
        ParserBadCase("trailer with NUL", 400, chunked("0\r\nX-A: \u{0}\r\n\r\n")),
        ParserBadCase("trailer with bare LF", 400, chunked("0\r\nX-A: b\n\r\n")),
        ParserBadCase("trailer whitespace before colon", 400, chunked("0\r\nX-A : b\r\n\r\n")),
    ]

    static let line: [ParserBadCase] = [
        ParserBadCase("whitespace before colon", 400, request("Content-Length : 5\r\n")),
        ParserBadCase("tab before colon", 400, request("X-A\t: 5\r\n")),
        ParserBadCase("obs-fold", 400, request("X-A: b\r\n c\r\n")),
        ParserBadCase("obs-fold with tab", 400, request("X-A: b\r\n\tc\r\n")),
        ParserBadCase("whitespace before the first field", 400, "GET / HTTP/1.1\r\n Host: a\r\n\r\n"),
        ParserBadCase("bare CR in request line", 400, "GET / HTTP/1.1\rHost: a\r\n\r\n"),
        ParserBadCase("bare CR in a value", 400, request("X-A: b\rc\r\n")),
        ParserBadCase("bare CR ending a field", 400, request("X-A: b\r\r\n")),
        ParserBadCase("bare LF everywhere", 400, "GET / HTTP/1.1\nHost: a\n\n"),
        ParserBadCase("bare LF ending one field", 400, request("X-A: b\n")),
        ParserBadCase("bare LF ending the head", 400, "GET / HTTP/1.1\r\nHost: a\r\n\n"),
        ParserBadCase("NUL in value", 400, request("X-A: a\u{0}b\r\n")),
        ParserBadCase("SOH in value", 400, request("X-A: \u{1}\r\n")),
        ParserBadCase("US in value", 400, request("X-A: a\u{1F}\r\n")),
        ParserBadCase("DEL in value", 400, request("X-A: a\u{7F}\r\n")),
        ParserBadCase("invalid character in field name", 400, request("X(A): b\r\n")),
        ParserBadCase("space in field name", 400, request("X A: b\r\n")),
        ParserBadCase("DEL in field name", 400, request("X\u{7F}A: b\r\n")),
        ParserBadCase("non-ASCII field name", 400, request("Näme: b\r\n")),
        ParserBadCase("empty field name", 400, request(": b\r\n")),
        ParserBadCase("field without colon", 400, request("X-A b\r\n")),
        ParserBadCase("too many leading empty lines", 400, String(repeating: "\r\n", count: 9) + "GET / HTTP/1.0\r\n\r\n"),
    ]

    static let requestLine: [ParserBadCase] = [
        ParserBadCase("control char in target", 400, "GET /a\u{01} HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("tab in target", 400, "GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("DEL in target", 400, "GET /a\u{7F} HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("space in target", 400, "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("non-ASCII target", 400, "GET /ä HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("invalid method character", 400, "G(T / HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("method with @", 400, "GE@T / HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("empty method", 400, " / HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("two spaces after method", 400, "GET  / HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("two spaces after target", 400, "GET /  HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("trailing space after version", 400, "GET / HTTP/1.1 \r\nHost: a\r\n\r\n"),
        ParserBadCase("tabs as separators", 400, "GET\t/\tHTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("no version", 400, "GET /\r\nHost: a\r\n\r\n"),
        ParserBadCase("method only", 400, "GET\r\nHost: a\r\n\r\n"),
        ParserBadCase("asterisk with GET", 400, "GET * HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("authority-form", 400, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        ParserBadCase("other scheme", 400, "GET ftp://a/b HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("absolute-form without authority", 400, "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/1.1x", 400, "GET / HTTP/1.1x\r\nHost: a\r\n\r\n"),
        ParserBadCase("version http/1.1", 400, "GET / http/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/11", 400, "GET / HTTP/11\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/1.", 400, "GET / HTTP/1.\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/1", 400, "GET / HTTP/1\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTPS/1.1", 400, "GET / HTTPS/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/2.0", 505, "GET / HTTP/2.0\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/2", 505, "GET / HTTP/2\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/1.2", 505, "GET / HTTP/1.2\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/3.0", 505, "GET / HTTP/3.0\r\nHost: a\r\n\r\n"),
        ParserBadCase("version HTTP/0.9", 505, "GET / HTTP/0.9\r\n\r\n"),
    ]

    static let hostAndExpect: [ParserBadCase] = [
        ParserBadCase("missing Host on HTTP/1.1", 400, "GET / HTTP/1.1\r\nX-A: b\r\n\r\n"),
        ParserBadCase("duplicated Host", 400, "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n"),
        ParserBadCase("Host with space", 400, "GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
        ParserBadCase("Host with slash", 400, "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"),
        ParserBadCase("Host with userinfo", 400, "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n"),
        ParserBadCase("Host with bad port", 400, "GET / HTTP/1.1\r\nHost: a:80x\r\n\r\n"),
        ParserBadCase("Host with two ports", 400, "GET / HTTP/1.1\r\nHost: a:80:81\r\n\r\n"),
        ParserBadCase("Host with bad percent", 400, "GET / HTTP/1.1\r\nHost: a%zz\r\n\r\n"),
        ParserBadCase("Host with open bracket", 400, "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n"),
        ParserBadCase("Host with non-ASCII", 400, "GET / HTTP/1.1\r\nHost: bø.no\r\n\r\n"),
        ParserBadCase("Expect other than 100-continue", 417, request("Expect: 200-ok\r\n")),
        ParserBadCase("Expect list", 417, request("Expect: 100-continue, foo\r\n")),
    ]

    static let limit: [ParserBadCase] = [
        ParserBadCase("target over the limit", 414, "GET /" + String(repeating: "a", count: 16) + " HTTP/1.1\r\nHost: a\r\n\r\n", limits: small),
        ParserBadCase("target over the default limit", 414, "GET /" + String(repeating: "a", count: 8 * 1024) + " HTTP/1.1\r\nHost: a\r\n\r\n"),
        ParserBadCase("head over the limit", 431, "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + String(repeating: "b", count: 40) + "\r\n\r\n", limits: small),
        ParserBadCase("unterminated head over the limit", 431, "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + String(repeating: "b", count: 64), limits: small),
        ParserBadCase("endless request line", 431, "GET /" + String(repeating: "a", count: 70), limits: small),
        ParserBadCase("too many fields", 431, "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: small),
        ParserBadCase("too many default fields", 431, request(String(repeating: "A: 1\r\n", count: 100))),
        ParserBadCase("trailers beyond the head bytes", 431,
                      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1234567890\r\n\r\n",
                      limits: HTTPParserLimits(maxHeaderBytes: 68)),
        ParserBadCase("trailers beyond the field count", 431, chunked("0\r\nA: 1\r\nB: 2\r\n\r\n"),
                      limits: HTTPParserLimits(maxHeaderFields: 3)),
    ]

    /// Every refused request of the tables above.
    static var allBad: [ParserBadCase] { framing + chunk + line + requestLine + hostAndExpect + limit }
}

@Suite struct RequestParserErrorTests: ParserHarness {
    @Test(arguments: RequestParserCases.allBad)
    func badRequestIsRefused(_ bad: ParserBadCase) {
        let steps = whole(bad.raw, limits: bad.limits)
        #expect(steps.last == .failed(bad.status), "\(steps)")
        #expect(bytewise(bad.raw, limits: bad.limits) == steps)
    }

    @Test func errorReasonsNeverQuoteTheInput() {
        let marker = "SECRETMARKER"
        let raws = [
            "GET /\(marker)\u{1} HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: \(marker) x\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: \(marker)\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \(marker)\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nExpect: \(marker)\r\n\r\n",
        ]
        for raw in raws {
            var parser = HTTPRequestParser()
            let input = bytes(raw)
            do {
                _ = try input.withUnsafeBytes { try parser.parse($0) }
                Issue.record("accepted \(raw)")
            } catch let error as HTTPParseError {
                #expect(!error.reason.contains(marker))
                #expect(!error.description.contains(marker))
            } catch {
                Issue.record("unexpected error type")
            }
        }
    }
}
