import HTTPCodec
import Testing

/// The message-length rules for requests (the server's: one length, no
/// list) and responses (the client's: agreeing lengths, status-dependent).
struct FramingFieldsTests {
    /// Notes each `Name: value` field of `fields`.
    static func note(_ fields: [String], lengthLists: Bool) throws(HTTPParseError) -> FramingFields {
        var framing = FramingFields()
        for field in fields {
            try withInput(field) { (input) throws(HTTPParseError) in
                let (name, value) = try FieldGrammar.splitField(input, 0..<input.count)
                try framing.note(input, name: name, value: value, lengthLists: lengthLists)
            }
        }
        return framing
    }

    static func request(_ fields: [String], _ version: HTTPVersion = .http1_1) -> Result<HTTPBodyFraming, HTTPParseError> {
        Result { () throws(HTTPParseError) in try note(fields, lengthLists: false).requestFraming(version: version) }
    }

    static func response(_ fields: [String], status: Int = 200, headRequest: Bool = false) -> ResponseFraming? {
        try? note(fields, lengthLists: true).responseFraming(status: status, headRequest: headRequest)
    }

    @Test(arguments: [
        ([], HTTPBodyFraming.none),
        (["Content-Length: 5"], .contentLength(5)),
        (["content-length: 0"], .contentLength(0)),
        (["Transfer-Encoding: chunked"], .chunked),
        (["Transfer-Encoding: CHUNKED"], .chunked),
        (["Connection: close", "X: y"], .none),
    ])
    func goodRequestFraming(fields: [String], framing: HTTPBodyFraming) throws {
        #expect(try Self.request(fields).get() == framing)
    }

    @Test(arguments: [
        (["Content-Length: 5", "Transfer-Encoding: chunked"], 400),
        (["Content-Length: 5", "Content-Length: 5"], 400),
        (["Content-Length: 5, 5"], 400),
        (["Content-Length: +5"], 400),
        (["Content-Length:"], 400),
        (["Transfer-Encoding: gzip, chunked"], 501),
        (["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], 501),
        (["Transfer-Encoding: identity"], 501),
    ])
    func badRequestFramingIsRefused(fields: [String], status: Int) {
        guard case .failure(let error) = Self.request(fields) else {
            Issue.record("accepted \(fields)")
            return
        }
        #expect(error.status.code == status)
    }

    @Test func transferEncodingInHTTP10IsRefused() {
        guard case .failure(let error) = Self.request(["Transfer-Encoding: chunked"], .http1_0) else {
            Issue.record("accepted")
            return
        }
        #expect(error.status == .badRequest)
    }

    @Test(arguments: [
        ([], 200, false, ResponseFraming.untilClose),
        (["Content-Length: 5"], 200, false, .length(5)),
        (["Content-Length: 5, 5", "Content-Length: 5"], 200, false, .length(5)),
        (["Transfer-Encoding: chunked"], 200, false, .chunked),
        (["Content-Length: 5"], 204, false, ResponseFraming.none),
        (["Content-Length: 12"], 304, false, ResponseFraming.none),
        ([], 103, false, ResponseFraming.none),
        (["Content-Length: 100"], 200, true, ResponseFraming.none),
        (["Transfer-Encoding: chunked"], 200, true, ResponseFraming.none),
    ] as [([String], Int, Bool, ResponseFraming)])
    func goodResponseFraming(fields: [String], status: Int, headRequest: Bool, framing: ResponseFraming) {
        #expect(Self.response(fields, status: status, headRequest: headRequest) == framing)
    }

    @Test(arguments: [
        (["Content-Length: 5", "Content-Length: 6"], false),
        (["Content-Length: 5, 6"], false),
        (["Content-Length: 5,"], false),
        (["Content-Length: 5", "Transfer-Encoding: chunked"], false),
        (["Transfer-Encoding: gzip, chunked"], false),
        (["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], false),
        (["Transfer-Encoding: chunked", "Content-Length: 0"], true),
    ])
    func badResponseFramingIsRefused(fields: [String], headRequest: Bool) {
        #expect(Self.response(fields, headRequest: headRequest) == nil)
    }

    @Test(arguments: [
        ("Connection: close", true, false),
        ("Connection: Keep-Alive", false, true),
        ("Connection: upgrade, close", true, false),
        ("Connection: , keep-alive ,", false, true),
        ("Connection: closed", false, false),
    ])
    func connectionOptionsAreNoted(field: String, close: Bool, keepAlive: Bool) throws {
        for lengthLists in [false, true] {
            let framing = try Self.note([field], lengthLists: lengthLists)
            #expect(framing.connectionClose == close)
            #expect(framing.connectionKeepAlive == keepAlive)
        }
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK", 1, 200), ("HTTP/1.0 404", 0, 404), ("HTTP/1.1 100 ", 1, 100), ("HTTP/1.1 599 \tx", 1, 599),
    ])
    func goodStatusLines(line: String, minor: Int, status: Int) throws {
        let parsed = try Array(line.utf8).withUnsafeBytes { raw in
            Result { () throws(HTTPParseError) in try StatusLine.parse(raw) }
        }.get()
        #expect(parsed.minor == minor)
        #expect(parsed.status == status)
    }

    @Test(arguments: ["HTTP/1.2 200 OK", "HTTP/2.0 200", "HTTP/1.1 20 OK", "HTTP/1.1 099", "HTTP/1.1 200OK", "http/1.1 200", "HTTP/1.1 200 a\u{0}"])
    func badStatusLinesAreRefused(line: String) {
        let result = Array(line.utf8).withUnsafeBytes { raw in
            Result { () throws(HTTPParseError) in try StatusLine.parse(raw) }
        }
        #expect(throws: HTTPParseError.self) { try result.get() }
    }
}
