import HTTP
@testable import HTTPClient
import Testing

/// A scripted answer (head and body, sent as they are) and, for a good
/// one, what every reader of it must make of it.
struct HeadCase: Sendable, CustomTestStringConvertible {
    let name: String
    let answer: String
    /// Nil: the head is refused.
    let expected: HeadOutcome?
    /// The body ends with the connection: not scripted over TLS, where
    /// `openssl s_server` may close before libcurl has read it all.
    var untilClose = false

    var testDescription: String { name }

    /// Heads both upstream readers refuse: libcurl's lines through
    /// `ResponseHeadParser` and the own connections' `UpstreamResponseParser`.
    static let bad: [HeadCase] = [
        refused("obs-fold", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: one\r\n two\r\n\r\nok"),
        refused("tab-fold", "HTTP/1.1 200 OK\r\nX-A: one\r\n\ttwo\r\nContent-Length: 2\r\n\r\nok"),
        refused("name not a token", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX(A): 1\r\n\r\nok"),
        refused("name with non-ASCII", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-\u{E9}: 1\r\n\r\nok"),
        refused("no colon", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A 1\r\n\r\nok"),
        refused("empty name", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n: 1\r\n\r\nok"),
        refused("space before colon", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A : 1\r\n\r\nok"),
        refused("control byte in value", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: a\u{01}b\r\n\r\nok"),
        refused("NUL in value", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: a\u{00}b\r\n\r\nok"),
        refused("bare CR in value", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: a\rb\r\n\r\nok"),
        refused("DEL in value", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: a\u{7F}b\r\n\r\nok"),
        refused("length beside chunked", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
        refused("chunked beside length", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
        refused("differing lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!"),
        refused("differing lengths in a list", "HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nok!"),
        refused("length not a number", "HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok"),
        refused("negative length", "HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\nok"),
        refused("empty length", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\nok"),
        refused("coding other than chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
        refused("chunked twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
        refused("four-digit status", "HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok"),
        refused("two-digit status", "HTTP/1.1 20 OK\r\nContent-Length: 2\r\n\r\nok"),
        refused("status below 100", "HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\nok"),
        refused("version 1.2", "HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\nok"),
        refused("two spaces before the status", "HTTP/1.1  200 OK\r\nContent-Length: 2\r\n\r\nok"),
        refused("control byte in the reason", "HTTP/1.1 200 O\u{01}K\r\nContent-Length: 2\r\n\r\nok"),
        refused("bad field in a 1xx head", "HTTP/1.1 103 Early Hints\r\nLink : </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
        refused("101 unasked", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
    ]

    /// Heads both readers accept, with what they make of them.
    static let good: [HeadCase] = [
        HeadCase(name: "1xx heads before the answer",
                 answer: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                     + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Final: yes\r\n\r\nok",
                 expected: HeadOutcome(status: 200, fields: ["Content-Length: 2", "X-Final: yes"], body: "ok")),
        HeadCase(name: "trailers after a chunked body",
                 answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 9\r\n\r\n",
                 expected: HeadOutcome(status: 200, fields: ["Transfer-Encoding: chunked", "Trailer: X-Sum"], body: "ok")),
        HeadCase(name: "a repeated identical length",
                 answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2, 2\r\n\r\nok",
                 expected: HeadOutcome(status: 200, fields: ["Content-Length: 2", "Content-Length: 2, 2"], body: "ok")),
        HeadCase(name: "bare LF line ends",
                 answer: "HTTP/1.1 200 OK\nContent-Length: 2\nX-A: 1\n\nok",
                 expected: HeadOutcome(status: 200, fields: ["Content-Length: 2", "X-A: 1"], body: "ok")),
        HeadCase(name: "values trimmed, tabs, obs-text and empty values kept",
                 answer: "HTTP/1.1 404\r\nX-A: \t caf\u{E9}\tau lait \t\r\nX-B:\r\nContent-Length: 1\r\n\r\nx",
                 expected: HeadOutcome(status: 404, fields: ["X-A: caf\u{E9}\tau lait", "X-B: ", "Content-Length: 1"], body: "x")),
        HeadCase(name: "HTTP/1.0 until close",
                 answer: "HTTP/1.0 200 OK\r\nX-A: 1\r\n\r\nuntil close",
                 expected: HeadOutcome(status: 200, fields: ["X-A: 1"], body: "until close"), untilClose: true),
        HeadCase(name: "204 with a length beside chunked",
                 answer: "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n",
                 expected: HeadOutcome(status: 204, fields: ["Transfer-Encoding: chunked", "Content-Length: 0"], body: "")),
    ]

    private static func refused(_ name: String, _ answer: String) -> HeadCase {
        HeadCase(name: name, answer: answer, expected: nil)
    }
}

/// What a reader made of an accepted answer.
struct HeadOutcome: Sendable, Equatable {
    var status: Int
    /// "Name: value", in order.
    var fields: [String]
    var body: String

    init(status: Int, fields: [String], body: String) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8]) {
        self.init(status: status.code, fields: headers.fields.map { "\($0.name): \($0.value)" },
                  body: String(decoding: body, as: UTF8.self))
    }
}
