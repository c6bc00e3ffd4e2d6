import HTTP
import Testing

// MARK: - Harness

/// What a connection sees from the parser, with body pieces merged so that
/// different splits of the same input compare equal.
enum ParserStep: Equatable, CustomStringConvertible {
    case head(HTTPRequestHead)
    case body([UInt8])
    case end
    case failed(Int)

    var description: String {
        switch self {
        case .head(let head): "head(\(head.method) \(head.target))"
        case .body(let bytes): "body(\(String(decoding: bytes, as: UTF8.self)))"
        case .end: "end"
        case .failed(let status): "failed(\(status))"
        }
    }
}

/// The feeding helpers every parser suite uses.
protocol ParserHarness {}

extension ParserHarness {
    /// Feeds `pieces` one after another the way a connection does: append to the
    /// unconsumed bytes, call `parse` until `.needMore`, drop `consumed` bytes.
    /// Checks the buffer contract on every call.
    func feed(_ pieces: [[UInt8]], limits: HTTPParserLimits = HTTPParserLimits()) -> [ParserStep] {
        var parser = HTTPRequestParser(limits: limits)
        var pending: [UInt8] = []
        var steps: [ParserStep] = []
        var calls = 0
        for piece in pieces {
            pending += piece
            reading: while true {
                calls += 1
                guard calls < 100_000 else { return steps + [.failed(-1)] }
                let outcome = pending.withUnsafeBytes { parseOnce(&parser, $0) }
                guard case .success(let (event, consumed, body)) = outcome else {
                    if case .failure(let error) = outcome { steps.append(.failed(error.status.code)) }
                    return steps
                }
                pending.removeFirst(consumed)
                switch event {
                case .needMore:
                    break reading
                case .head(let head):
                    steps.append(.head(head))
                case .end:
                    steps.append(.end)
                case .body:
                    if case .body(let earlier) = steps.last {
                        steps[steps.count - 1] = .body(earlier + body)
                    } else {
                        steps.append(.body(body))
                    }
                }
            }
        }
        return steps
    }

    /// One `parse` call; checks that `consumed` and body ranges stay inside the buffer.
    private func parseOnce(_ parser: inout HTTPRequestParser, _ buffer: UnsafeRawBufferPointer)
        -> Result<(HTTPParserEvent, Int, [UInt8]), HTTPParseError>
    {
        do throws(HTTPParseError) {
            let (event, consumed) = try parser.parse(buffer)
            #expect(consumed >= 0 && consumed <= buffer.count)
            guard case .body(let range) = event else { return .success((event, consumed, [])) }
            #expect(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= consumed)
            return .success((event, consumed, Array(buffer[range])))
        } catch {
            return .failure(error)
        }
    }

    /// The input fed whole.
    func whole(_ raw: [UInt8], limits: HTTPParserLimits = HTTPParserLimits()) -> [ParserStep] {
        feed([raw], limits: limits)
    }

    /// The input fed one byte at a time.
    func bytewise(_ raw: [UInt8], limits: HTTPParserLimits = HTTPParserLimits()) -> [ParserStep] {
        feed(raw.map { [$0] }, limits: limits)
    }
}

/// Tables of raw requests shared by the parser suites.
enum RequestParserCases {}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

// MARK: - Good requests

struct ParserGoodCase: Sendable, CustomTestStringConvertible {
    let name: String
    let raw: [UInt8]
    let head: HTTPRequestHead
    let body: [UInt8]

    init(_ name: String, _ raw: String, _ head: HTTPRequestHead, body: String = "") {
        self.init(name, bytes(raw), head, body: body)
    }

    init(_ name: String, _ raw: [UInt8], _ head: HTTPRequestHead, body: String = "") {
        self.name = name
        self.raw = raw
        self.head = head
        self.body = bytes(body)
    }

    var testDescription: String { name }

    var expectedSteps: [ParserStep] {
        body.isEmpty ? [.head(head), .end] : [.head(head), .body(body), .end]
    }
}

private func head(_ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders,
                  version: HTTPVersion = .http1_1, framing: HTTPBodyFraming = .none,
                  keepAlive: Bool = true, expectsContinue: Bool = false) -> HTTPRequestHead {
    HTTPRequestHead(method: method, target: target, version: version, headers: headers,
                    framing: framing, keepAlive: keepAlive, expectsContinue: expectsContinue)
}

extension RequestParserCases {
    static let good: [ParserGoodCase] = [
        ParserGoodCase("simple GET", "GET /index.html?a=1 HTTP/1.1\r\nHost: example.com\r\n\r\n",
                       head(.get, "/index.html?a=1", ["Host": "example.com"])),
        ParserGoodCase("values trimmed of SP and HTAB", "GET / HTTP/1.1\r\nHost: a\r\nX-A: \t b  c \t\r\nX-B:x\r\n\r\n",
                       head(.get, "/", ["Host": "a", "X-A": "b  c", "X-B": "x"])),
        ParserGoodCase("empty field value", "GET / HTTP/1.1\r\nHost: a\r\nX-Empty:\r\nX-Blank:  \r\n\r\n",
                       head(.get, "/", ["Host": "a", "X-Empty": "", "X-Blank": ""])),
        ParserGoodCase("every tchar in a field name", "GET / HTTP/1.1\r\nHost: a\r\nX-!#$%&'*+-.^_`|~09az: 1\r\n\r\n",
                       head(.get, "/", ["Host": "a", "X-!#$%&'*+-.^_`|~09az": "1"])),
        ParserGoodCase("UTF-8 and obs-text in a value", "GET / HTTP/1.1\r\nHost: a\r\nX-Name: Åse Ødegård\r\n\r\n",
                       head(.get, "/", ["Host": "a", "X-Name": "Åse Ødegård"])),
        ParserGoodCase("Content-Length 0 ends at once", "POST /f HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
                       head(.post, "/f", ["Host": "a", "Content-Length": "0"], framing: .contentLength(0))),
        ParserGoodCase("Content-Length body", "POST /f HTTP/1.1\r\nHost: a\r\ncontent-length:  5 \r\n\r\nhello",
                       head(.post, "/f", ["Host": "a", "content-length": "5"], framing: .contentLength(5)), body: "hello"),
        ParserGoodCase("Content-Length with leading zeros", "PUT /f HTTP/1.1\r\nHost: a\r\nContent-Length: 003\r\n\r\nabc",
                       head(.put, "/f", ["Host": "a", "Content-Length": "003"], framing: .contentLength(3)), body: "abc"),
        ParserGoodCase("chunked, any case", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ChunKed\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                       head(.post, "/", ["Host": "a", "Transfer-Encoding": "ChunKed"], framing: .chunked), body: "abc"),
        ParserGoodCase("HTTP/1.0 without Host closes", "GET / HTTP/1.0\r\n\r\n",
                       head(.get, "/", [:], version: .http1_0, keepAlive: false)),
        ParserGoodCase("HTTP/1.0 keep-alive token", "GET / HTTP/1.0\r\nConnection: Upgrade, Keep-Alive\r\n\r\n",
                       head(.get, "/", ["Connection": "Upgrade, Keep-Alive"], version: .http1_0, keepAlive: true)),
        ParserGoodCase("HTTP/1.0 keep-alive and close", "GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n",
                       head(.get, "/", ["Connection": "keep-alive", "Connection": "close"], version: .http1_0, keepAlive: false)),
        ParserGoodCase("HTTP/1.1 close token", "GET / HTTP/1.1\r\nHost: a\r\nConnection: foo ,CLOSE\r\n\r\n",
                       head(.get, "/", ["Host": "a", "Connection": "foo ,CLOSE"], keepAlive: false)),
        ParserGoodCase("HTTP/1.1 close-ish token is not close", "GET / HTTP/1.1\r\nHost: a\r\nConnection: closed\r\n\r\n",
                       head(.get, "/", ["Host": "a", "Connection": "closed"], keepAlive: true)),
        ParserGoodCase("Expect 100-continue", "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok",
                       head(.post, "/", ["Host": "a", "Expect": "100-Continue", "Content-Length": "2"],
                            framing: .contentLength(2), expectsContinue: true), body: "ok"),
        ParserGoodCase("Expect ignored in HTTP/1.0", "POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
                       head(.post, "/", ["Expect": "100-continue", "Content-Length": "1"], version: .http1_0,
                            framing: .contentLength(1), keepAlive: false), body: "x"),
        ParserGoodCase("absolute-form", "GET http://example.com:8080/x?y=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
                       head(.get, "http://example.com:8080/x?y=1", ["Host": "example.com:8080"])),
        ParserGoodCase("absolute-form https upper case", "GET HTTPS://a HTTP/1.1\r\nHost: a\r\n\r\n",
                       head(.get, "HTTPS://a", ["Host": "a"])),
        ParserGoodCase("OPTIONS asterisk", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
                       head(.options, "*", ["Host": "a"])),
        ParserGoodCase("leading empty lines skipped", "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
                       head(.get, "/", ["Host": "a"])),
        ParserGoodCase("extension method", "M-SEARCH /x HTTP/1.1\r\nHost: a\r\n\r\n",
                       head(HTTPMethod("M-SEARCH"), "/x", ["Host": "a"])),
        ParserGoodCase("IPv6 Host with port", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n",
                       head(.get, "/", ["Host": "[::1]:8080"])),
        ParserGoodCase("percent-encoded reg-name Host", "GET / HTTP/1.1\r\nHost: ex%41mple.com\r\n\r\n",
                       head(.get, "/", ["Host": "ex%41mple.com"])),
        ParserGoodCase("empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n",
                       head(.get, "/", ["Host": ""])),
        ParserGoodCase("target with every visible character", "GET /a-._~!$&'()*+,;=:@%20?q=[]{}|^`\"<>\\# HTTP/1.1\r\nHost: a\r\n\r\n",
                       head(.get, "/a-._~!$&'()*+,;=:@%20?q=[]{}|^`\"<>\\#", ["Host": "a"])),
    ]
}

@Suite struct RequestParserTests: ParserHarness {
    @Test(arguments: RequestParserCases.good)
    func goodRequestParses(_ good: ParserGoodCase) {
        #expect(whole(good.raw) == good.expectedSteps)
    }

    @Test(arguments: RequestParserCases.good)
    func goodRequestFedByteByByteGivesSameEvents(_ good: ParserGoodCase) {
        #expect(bytewise(good.raw) == good.expectedSteps)
    }

    @Test func obsTextThatIsNotUTF8IsAcceptedInValues() throws {
        let raw = bytes("GET / HTTP/1.1\r\nHost: a\r\nX-Raw: a") + [0x80, 0xFF] + bytes("b\r\n\r\n")
        let steps = whole(raw)
        #expect(steps.count == 2)
        guard case .head(let head) = steps.first else { Issue.record("no head"); return }
        #expect(head.headers["X-Raw"] == "a\u{FFFD}\u{FFFD}b")
        // The bytes themselves are kept, to be relayed as they came.
        let index = try #require(head.headers.firstIndex(named: "x-raw"))
        #expect(head.headers.withField(at: index) { _, value in Array(value) } == [0x61, 0x80, 0xFF, 0x62])
    }

    /// Every parsed field is marked checked (the parser refused anything
    /// else), so the proxy's client and the response writer skip it.
    @Test func parsedFieldsAreMarkedChecked() throws {
        let steps = whole(bytes("GET / HTTP/1.1\r\nHost: a\r\nX-Tab: a\tb\r\nAccept: */*\r\n\r\n"))
        guard case .head(let head) = steps.first else { Issue.record("no head"); return }
        #expect(head.headers.count == 3)
        #expect((0..<head.headers.count).allSatisfy(head.headers.isChecked))
    }

    @Test func pipelinedRequestsInOneBuffer() {
        let raw = bytes(
            "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
            + "POST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /3 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n1;x=y\r\nf\r\n0\r\n\r\n"
            + "\r\n"  // a stray CRLF after a body, as some clients send
            + "GET /4 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let expected: [ParserStep] = [
            .head(head(.get, "/1", ["Host": "a"])), .end,
            .head(head(.post, "/2", ["Host": "a", "Content-Length": "3"], framing: .contentLength(3))), .body(bytes("abc")), .end,
            .head(head(.post, "/3", ["Host": "a", "Transfer-Encoding": "chunked"], framing: .chunked)), .body(bytes("def")), .end,
            .head(head(.get, "/4", ["Host": "a", "Connection": "close"], keepAlive: false)), .end,
        ]
        #expect(whole(raw) == expected)
        #expect(bytewise(raw) == expected)
        for split in stride(from: 1, to: raw.count, by: 7) {
            #expect(feed([Array(raw[..<split]), Array(raw[split...])]) == expected, "split at \(split)")
        }
    }

    @Test func eventsOfOnePipelinedBufferComeOneCallAtATime() throws {
        let raw = bytes("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        var parser = HTTPRequestParser()
        try raw.withUnsafeBytes { buffer in
            let first = try parser.parse(buffer)
            guard case .head(let a) = first.event else { Issue.record("expected head"); return }
            #expect(a.target == "/a")
            #expect(first.consumed == 28)
            let rest = UnsafeRawBufferPointer(rebasing: buffer[first.consumed...])
            let end = try parser.parse(rest)
            #expect(end.event == .end && end.consumed == 0)
            let second = try parser.parse(rest)
            guard case .head(let b) = second.event else { Issue.record("expected head"); return }
            #expect(b.target == "/b" && second.consumed == rest.count)
        }
    }

    @Test func incompleteHeadConsumesNothing() throws {
        var parser = HTTPRequestParser()
        let partial = bytes("GET / HTTP/1.1\r\nHost: a\r\n")
        let result = try partial.withUnsafeBytes { try parser.parse($0) }
        #expect(result.event == .needMore && result.consumed == 0)
        let empty = try [UInt8]().withUnsafeBytes { try parser.parse($0) }
        #expect(empty.event == .needMore && empty.consumed == 0)
    }

    @Test func parserStaysDeadAfterAnError() {
        var parser = HTTPRequestParser()
        let bad = bytes("GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n")
        let good = bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        let first = #expect(throws: HTTPParseError.self) { try bad.withUnsafeBytes { try parser.parse($0) } }
        let again = #expect(throws: HTTPParseError.self) { try good.withUnsafeBytes { try parser.parse($0) } }
        #expect(first?.status == .badRequest)
        #expect(again == first)
    }
}
