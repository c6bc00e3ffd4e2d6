import Core
import Dispatch
import HTTP
@testable import HTTPClient
import Synchronization
import System
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The client's own HTTP/1.1 connections (plain `http` streams): the strict
/// response parser and chunked decoder in memory, then framing, pooling,
/// retries, uploads, request fields and the idle timeout over loopback
/// sockets against a scripted raw upstream.
@Suite("Own HTTP/1.1 connections") struct OwnConnectionTests {
    // MARK: Response heads

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false, 200, .length(5), true),
        ("HTTP/1.1 200 OK\nContent-Length: 5\n\n", false, 200, .length(5), true),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n", false, 200, .length(5), true),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", false, 200, .length(5), true),
        ("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\n", false, 200, .length(5), false),
        ("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\n", false, 200, .length(5), true),
        ("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\n", false, 200, .length(5), false),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n", false, 200, .chunked, true),
        ("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", true, 200, .none, true),
        ("HTTP/1.1 204 No Content\r\n\r\n", false, 204, .none, true),
        ("HTTP/1.1 304 Not Modified\r\nContent-Length: 12\r\n\r\n", false, 304, .none, true),
        ("HTTP/1.1 200 OK\r\n\r\n", false, 200, .untilClose, false),
        ("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", false, 404, .length(0), true),
    ] as [(String, Bool, Int, ResponseFraming, Bool)])
    func goodHeadsParse(text: String, headRequest: Bool, status: Int, framing: ResponseFraming, keepAlive: Bool) throws {
        let head = try parseHead(text, headRequest: headRequest)
        #expect(head.status == status)
        #expect(head.framing == framing)
        #expect(head.keepAlive == keepAlive)
    }

    /// RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has
    /// faulty framing; the connection must be closed after it (or the
    /// response refused), whatever `Connection` says.
    @Test func anHTTP10ResponseWithTransferEncodingNeverKeepsTheConnection() {
        let result = Result { () throws(HTTPClientError) in
            try parseHead("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n")
        }
        switch result {
        case .success(let head): #expect(!head.keepAlive)
        case .failure(let error): #expect(error == .invalidResponse)
        }
    }

    @Test func fieldsKeepTheirOrderAndLoseSurroundingBlanks() throws {
        let head = try parseHead("HTTP/1.1 200 OK\r\nX-B:  two words \t\r\nSet-Cookie: a=1\r\nX-A:\r\nSet-Cookie: b=2\r\n\r\n")
        #expect(head.headers.fields == [
            HTTPField(name: "X-B", value: "two words"), HTTPField(name: "Set-Cookie", value: "a=1"),
            HTTPField(name: "X-A", value: ""), HTTPField(name: "Set-Cookie", value: "b=2"),
        ])
        // Checked by the parser, so the gateway does not check them again
        // when it relays them.
        #expect((0..<head.headers.count).allSatisfy(head.headers.isChecked))
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 0x5\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: ,\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-A: one\r\n\tX-B: two\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-A\t: b\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\n: no name\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-A: a\u{0}b\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-A: a\r\r\nContent-Length: 0\r\n\r\n",
        "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n",
        "ICY 200 OK\r\nContent-Length: 0\r\n\r\n",
        "http/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    ])
    func dangerousHeadsAreRefused(text: String) {
        #expect(throws: HTTPClientError.invalidResponse) { try parseHead(text) }
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", 25),
        ("HTTP/1.1 200 OK\nA: b\n\nbody", 22),
        ("HTTP/1.1 200 OK\r\nA: b\n\r\nrest", 24),
        ("HTTP/1.1 200 OK\r\nA: b\r\n", nil),
        ("HTTP/1.1 200 OK\r\nA: b\r\n\r", nil),
    ] as [(String, Int?)])
    func headEndIsJustPastTheBlankLine(text: String, end: Int?) {
        #expect(Array(text.utf8).withUnsafeBytes { UpstreamResponseParser.headEnd($0) } == end)
    }

    // MARK: Chunked bodies

    /// Extensions are ignored and trailers skipped; the decoder stops
    /// exactly at the body's end however the bytes arrive.
    @Test(arguments: [1, 2, 3, 7, 4096])
    func chunkedBodiesDecodeWhateverTheReadSizes(feedBy size: Int) throws {
        let input = "5;name=value\r\nhello\r\na ; ext\r\n, chunked \r\n5\r\nworld\r\n0\r\nX-Sum: 9\r\nX-B: c\r\n\r\nNEXT"
        let decoded = try decodeChunked(Array(input.utf8), feedBy: size)
        #expect(String(decoding: decoded.body, as: UTF8.self) == "hello, chunked world")
        #expect(decoded.ended)
        #expect(decoded.unused == 4)
    }

    @Test func chunkedLinesMayEndInABareLF() throws {
        let decoded = try decodeChunked(Array("3\nabc\n0\n\n".utf8), feedBy: 1)
        #expect(decoded.body == Array("abc".utf8))
        #expect(decoded.ended)
    }

    @Test func anUnfinishedChunkedBodyHasNotEnded() throws {
        let decoded = try decodeChunked(Array("5\r\nhello\r\n0\r\nX-Sum: 9\r\n".utf8), feedBy: 1)
        #expect(decoded.body == Array("hello".utf8))
        #expect(!decoded.ended)
    }

    @Test(arguments: [
        "g\r\nhello\r\n0\r\n\r\n", "5x\r\nhello\r\n0\r\n\r\n", "\r\nhello\r\n0\r\n\r\n", "-5\r\nhello\r\n0\r\n\r\n",
        "0x5\r\nhello\r\n0\r\n\r\n", "5\r\nhelloX\r\n0\r\n\r\n", "5\r\nhello0\r\n\r\n", "10000000000000000\r\nx\r\n",
        "5;a\u{0}b\r\nhello\r\n0\r\n\r\n",
    ])
    func badChunkFramingIsRefused(text: String) {
        #expect(throws: HTTPClientError.invalidResponse) { try decodeChunked(Array(text.utf8), feedBy: 4096) }
    }

    // MARK: Targets

    @Test(arguments: [
        ("http://h", "h", 80, "h", "/"),
        ("http://h:8080/a?b", "h", 8080, "h:8080", "/a?b"),
        ("HTTP://H/", "H", 80, "H", "/"),
        ("http://[::1]:9/x", "::1", 9, "[::1]:9", "/x"),
        ("http://[::1]/", "::1", 80, "[::1]", "/"),
        ("http://h?q", "h", 80, "h", "/?q"),
    ] as [(String, String, UInt16, String, String)])
    func plainURLsAreTakenApart(url: String, host: String, port: UInt16, authority: String, target: String) throws {
        let parsed = try #require(PlainHTTPTarget(url))
        #expect(parsed.host == host)
        #expect(parsed.port == port)
        #expect(parsed.authority == authority)
        #expect(parsed.endpoint == authority)
        #expect(parsed.target == target)
    }

    @Test(arguments: [
        "http://u@h/", "http://u:p@h/", "http://h/#f", "http://h#f", "http://h:0/", "http://h:99999/", "http://h:8a/",
        "http://h:/", "http://h:+80/", "http://", "http:///x", "http://[::1/", "http://[::1]x/", "https://h/", "ftp://h/",
    ])
    func unusualURLsAreLeftToLibcurl(url: String) {
        #expect(PlainHTTPTarget(url) == nil)
    }

    // MARK: Framing over sockets

    @Test func aBodyWithoutLengthEndsAtTheClose() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nX-A: 1\r\n\r\nuntil the very end", then: .close)])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let answer = try await get(client, upstream.url("/"))
            #expect(answer == Answer(200, "until the very end"))
        }
    }

    /// Every piece of three bytes goes out on its own, splitting the head,
    /// the size lines and the data; the connection is still reusable after.
    @Test func aChunkedResponseInSmallWritesArrivesIntact() async throws {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: split\r\n\r\n"
            + "4;ext=1\r\nsmal\r\n11\r\nl writes, one by \r\n3\r\none\r\n0\r\nX-Sum: 1\r\n\r\n"
        let upstream = try RawUpstream([.trickle(chunked, by: 3), .answer("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            let body = try await response.body.collect(upTo: 1000)
            let next = try await get(client, upstream.url("/"))
            #expect(response.headers["X-A"] == "split")
            #expect(String(decoding: body, as: UTF8.self) == "small writes, one by one")
            #expect(next == Answer(200, "next"))
            #expect(upstream.accepted == 1)
        }
    }

    @Test func aLengthBesideChunkingFailsTheRequest() async throws {
        let upstream = try RawUpstream([.answer(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            await #expect(throws: HTTPClientError.invalidResponse) {
                try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            }
        }
    }

    /// On a fresh connection nothing suggests a stale socket: no retry.
    @Test func aCloseBeforeAnsweringFailsAFreshConnection() async throws {
        let upstream = try RawUpstream([.hangUp, .answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            await #expect(throws: HTTPClientError.connectionClosed) {
                try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            }
            #expect(upstream.accepted == 1)
            #expect(upstream.received.count == 1)
        }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
    ])
    func aBodyCutShortFailsTheRead(text: String) async throws {
        let upstream = try RawUpstream([.answer(text, then: .close)])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            await #expect(throws: HTTPClientError.connectionClosed) { try await response.body.collect(upTo: 1000) }
        }
    }

    @Test func aBodyPastTheResponseLimitFailsTheRead() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n01234567890123456789")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/"), maxResponseBytes: 10), body: nil)
            #expect(response.status == .ok)
            await #expect(throws: HTTPClientError.responseTooLarge) { try await response.body.collect(upTo: 1000) }
        }
    }

    // MARK: Pooling

    @Test func aKeepAliveUpstreamServesSequentialRequestsOnOneConnection() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"),
            .answer("HTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        let answers = try await getInTurn([upstream.url("/1"), upstream.url("/2")])
        #expect(answers == [Answer(200, "one"), Answer(201, "two")])
        #expect(upstream.accepted == 1)
        #expect(upstream.received.map(\.connection) == [1, 1])
    }

    /// The upstream keeps the first connection open: only the client's
    /// reading of `Connection: close` keeps it from being reused.
    @Test func connectionCloseMakesTheNextRequestOpenANewConnection() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\none"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        let answers = try await getInTurn([upstream.url("/"), upstream.url("/")])
        #expect(answers == [Answer(200, "one"), Answer(200, "two")])
        #expect(upstream.accepted == 2)
        #expect(upstream.received.map(\.connection) == [1, 2])
    }

    @Test func bytesPastTheEndOfAResponseRetireTheConnection() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\noneHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nforged"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        let answers = try await getInTurn([upstream.url("/"), upstream.url("/")])
        #expect(answers == [Answer(200, "one"), Answer(200, "two")])
        #expect(upstream.accepted == 2)
    }

    /// A response that ends exactly where a read of the client's 16 KiB
    /// buffer ends leaves what follows it in the socket, unread; the next
    /// request must not take those bytes for its answer (on the API proxy,
    /// the next request may be another user's). Both requests are made on
    /// the client's loop. Made at once, the second goes out in the same
    /// pass of the loop that finished the first, before epoll could report
    /// the bytes left behind: the peek finds them. Made after a pause, the
    /// loop has waited for events since, and the watch on the idle
    /// connection has retired it: the GET, which then skips the peek, goes
    /// on a new connection all the same.
    @Test(arguments: [false, true])
    func bytesLeftInTheSocketPastAResponseRetireTheConnection(afterAPause: Bool) async throws {
        let filling = Self.response(totalling: 16 * 1024)
        let upstream = try RawUpstream([
            .answer(filling + "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        try await withClient(loops: 1, configuration: quick) { client, group in
            let answers = try await withTaskExecutorPreference(group.loops[0]) {
                let first = try await get(client, upstream.url("/1"))
                if afterAPause { try await Task.sleep(for: .milliseconds(50)) }
                return [first, try await get(client, upstream.url("/2"))]
            }
            #expect(answers[0].status == 200)
            #expect(answers[0].body.utf8.count + Self.headSize(ofBody: answers[0].body.utf8.count) == filling.utf8.count)
            #expect(answers[1] == Answer(200, "two"))
            #expect(upstream.accepted == 2)
        }
    }

    /// A `Content-Length` response of exactly `total` bytes, head included.
    private static func response(totalling total: Int) -> String {
        var length = total
        while length + headSize(ofBody: length) > total { length -= 1 }
        return "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n" + String(repeating: "x", count: length)
    }

    private static func headSize(ofBody length: Int) -> Int {
        "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n".utf8.count
    }

    /// The upstream resets the connection while the reader is behind and
    /// reading is paused. epoll reports a reset whatever the interest, so
    /// the connection must leave epoll rather than spin its loop until the
    /// reader catches up; the reader then gets what had arrived, and the
    /// failure, never a clean end.
    @Test func aResetWhileReadingIsPausedNeitherSpinsTheLoopNorEndsTheBody() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: \(4 << 20)\r\n\r\n"
        let upstream = try RawUpstream([RawUpstream.Reply(
            writes: [Array(head.utf8) + [UInt8](repeating: 0x61, count: 512 * 1024)], then: .reset)])
        let configuration = HTTPClientConfiguration(
            connectTimeout: .seconds(1), timeout: .seconds(1), maxResponseBytes: 8 << 20, streamBufferBytes: 64 * 1024)
        try await withClient(loops: 1, configuration: configuration) { client, group in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            // Past the upstream's reset (a tenth of a second after its write).
            try await Task.sleep(for: .milliseconds(400))
            let used = try await loopCPUTime(of: group.loops[0], over: 300)
            #expect(used < 100_000_000, "the paused loop used \(used / 1_000_000) ms of CPU in 300 ms")
            await #expect(throws: HTTPClientError.connectionClosed) { try await response.body.collect(upTo: 8 << 20) }
        }
    }

    /// A body that runs until the close ends at a FIN, not at a reset:
    /// after a reset, what arrived may be cut anywhere.
    @Test func aResetEndingABodyWithoutLengthFailsTheRead() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\n\r\npartial", then: .reset)])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            await #expect(throws: HTTPClientError.connectionClosed) { try await response.body.collect(upTo: 1000) }
        }
    }

    /// A HEAD response's Content-Length announces no body on the wire.
    @Test func aHeadResponseLeavesTheConnectionReusable() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let head = try await client.stream(HTTPClientRequest(method: .head, url: upstream.url("/")), body: nil)
            let headBody = try await head.body.collect(upTo: 1000)
            let second = try await get(client, upstream.url("/"))
            #expect(head.headers["Content-Length"] == "100")
            #expect(headBody.isEmpty)
            #expect(second == Answer(200, "two"))
            #expect(upstream.accepted == 1)
        }
    }

    @Test func aPooledConnectionClosedAfterAnsweringIsNotAnError() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none", then: .close),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        let answers = try await getInTurn([upstream.url("/"), upstream.url("/")])
        #expect(answers == [Answer(200, "one"), Answer(200, "two")])
        #expect(upstream.accepted == 2)
    }

    /// The server reads the reused connection's request and closes it
    /// unanswered, as one that closed it just before would: nothing came
    /// back, so the GET goes once more on a new connection.
    @Test func aGetOnAStalePooledConnectionIsRetriedOnANewOne() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"),
            .hangUp,
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let first = try await get(client, upstream.url("/"))
            let second = try await get(client, upstream.url("/again"))
            #expect(first == Answer(200, "one"))
            #expect(second == Answer(200, "two"))
            #expect(upstream.accepted == 2)
            #expect(upstream.received.map(\.requestLine) == ["GET / HTTP/1.1", "GET /again HTTP/1.1", "GET /again HTTP/1.1"])
            #expect(upstream.received.map(\.connection) == [1, 1, 2])
            #expect(client.stats.failures.load(ordering: .relaxed) == 0)
        }
    }

    @Test func aRetriedRequestIsNotRetriedAgain() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"), .hangUp, .hangUp])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let first = try await get(client, upstream.url("/"))
            #expect(first == Answer(200, "one"))
            await #expect(throws: HTTPClientError.connectionClosed) { try await get(client, upstream.url("/")) }
            #expect(upstream.accepted == 2)
            #expect(upstream.received.count == 3)
        }
    }

    /// A streamed body cannot be sent again: the same stale connection
    /// fails the request instead, and no second copy reaches the upstream.
    @Test func aStreamedUploadOnAStalePooledConnectionIsNotRetried() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"),
            .hangUp,
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let first = try await get(client, upstream.url("/"))
            #expect(first == Answer(200, "one"))
            await #expect(throws: HTTPClientError.connectionClosed) {
                try await client.stream(HTTPClientRequest(method: .post, url: upstream.url("/upload")),
                                        body: streamedBody(["once ", "only"], length: 9))
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(upstream.accepted == 1)
            #expect(upstream.received.filter { $0.requestLine.hasPrefix("POST") }.count == 1)
        }
    }

    /// A POST given whole is not retried either: the server may have
    /// acted on it before closing, and it is not idempotent.
    @Test func aPostOnAStalePooledConnectionIsNotRetried() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"),
            .hangUp,
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let first = try await get(client, upstream.url("/"))
            #expect(first == Answer(200, "one"))
            await #expect(throws: HTTPClientError.connectionClosed) {
                try await get(client, HTTPClientRequest(method: .post, url: upstream.url("/order"), body: Array("x".utf8)))
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(upstream.accepted == 1)
            #expect(upstream.received.filter { $0.requestLine.hasPrefix("POST") }.count == 1)
        }
    }

    @Test func anIdleConnectionPastItsAgeIsNotReused() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        var configuration = quick
        configuration.maxIdleConnectionAge = .milliseconds(50)
        try await withClient(loops: 1, configuration: configuration) { client, _ in
            let first = try await get(client, upstream.url("/"))
            try await Task.sleep(for: .milliseconds(120))
            let second = try await get(client, upstream.url("/"))
            #expect(first == Answer(200, "one"))
            #expect(second == Answer(200, "two"))
            #expect(upstream.received.map(\.connection) == [1, 2])
        }
    }

    /// Past the per-host limit requests wait for the one connection.
    @Test func requestsPastTheHostLimitShareOneConnection() async throws {
        let upstream = try RawUpstream((0..<3).map { .answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n#\($0)") })
        var configuration = quick
        configuration.maxConnectionsPerHost = 1
        try await withClient(loops: 1, configuration: configuration) { client, _ in
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for _ in 0..<3 { group.addTask { try await get(client, upstream.url("/")) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.map(\.body).sorted() == ["#0", "#1", "#2"])
            #expect(upstream.accepted == 1)
        }
    }

    /// A GET retried after a stale connection and a request that queued
    /// behind the limit meanwhile still share one connection at a time.
    @Test func aRetryKeepsToTheHostLimit() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"),
            .hangUp(after: 100),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"),
        ])
        var configuration = quick
        configuration.maxConnectionsPerHost = 1
        try await withClient(loops: 1, configuration: configuration) { client, _ in
            let first = try await get(client, upstream.url("/"))
            // One of these takes the pooled connection, which the upstream
            // then closes; the other waits for the limit.
            async let second = get(client, upstream.url("/a"))
            async let third = get(client, upstream.url("/b"))
            let answers = try await [second, third]
            #expect(first == Answer(200, "one"))
            #expect(answers == [Answer(200, "x"), Answer(200, "x")])
            #expect(upstream.peakOpen == 1)
        }
    }

    /// An answer that came before the whole body was sent leaves the
    /// connection's state unknown: it is not used again.
    @Test func anEarlyAnswerRetiresTheConnection() async throws {
        let upstream = try RawUpstream([
            .answerEarly("HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        let pieces = Atomic<Int>(0)
        let slowBody = HTTPClientRequestBody(length: nil) {
            if pieces.add(1, ordering: .relaxed).oldValue > 0 { try await Task.sleep(for: .milliseconds(500)) }
            return Array("piece".utf8)
        }
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let early = try await client.stream(HTTPClientRequest(method: .post, url: upstream.url("/big")), body: slowBody)
            let earlyBody = try await early.body.collect(upTo: 100)
            let next = try await get(client, upstream.url("/"))
            #expect(early.status == .payloadTooLarge)
            #expect(earlyBody.isEmpty)
            #expect(next == Answer(200, "two"))
            #expect(upstream.accepted == 2)
        }
    }

    // MARK: Requests

    @Test func anUploadOfUnknownLengthGoesChunked() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(method: .post, url: upstream.url("/up")),
                                                   body: streamedBody(["streamed ", "", "in ", "pieces"], length: nil))
            #expect(try await response.body.collect(upTo: 100) == Array("ok".utf8))
            let request = try #require(upstream.received.first)
            #expect(request.values("Transfer-Encoding") == ["chunked"])
            #expect(request.values("Content-Length").isEmpty)
            #expect(String(decoding: request.body, as: UTF8.self) == "streamed in pieces")
        }
    }

    @Test func anUploadOfKnownLengthSendsContentLength() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(method: .put, url: upstream.url("/up")),
                                                   body: streamedBody(["known ", "length"], length: 12))
            #expect(response.status == .ok)
            let request = try #require(upstream.received.first)
            #expect(request.values("Content-Length") == ["12"])
            #expect(request.values("Transfer-Encoding").isEmpty)
            #expect(String(decoding: request.body, as: UTF8.self) == "known length")
        }
    }

    @Test func aStreamedBodyShorterThanItsLengthFailsTheRequest() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            await #expect(throws: HTTPClientError.requestBodyFailed) {
                try await client.stream(HTTPClientRequest(method: .put, url: upstream.url("/up")),
                                        body: streamedBody(["short"], length: 10))
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(upstream.received.isEmpty)
        }
    }

    @Test func hostComesFromTheURLsAuthority() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 204 No Content\r\n\r\n")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: "http://127.0.0.1:\(upstream.port)?x=1"), body: nil)
            #expect(response.status == .noContent)
            let request = try #require(upstream.received.first)
            #expect(request.requestLine == "GET /?x=1 HTTP/1.1")
            #expect(request.values("Host") == ["127.0.0.1:\(upstream.port)"])
            #expect(request.values("Content-Length").isEmpty)
        }
    }

    @Test func aHostGivenByTheCallerIsSentInstead() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 204 No Content\r\n\r\n")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            _ = try await client.stream(HTTPClientRequest(url: upstream.url("/"), headers: ["host": "api.internal"]), body: nil)
            let request = try #require(upstream.received.first)
            #expect(request.values("Host") == ["api.internal"])
        }
    }

    /// Framing follows the body, whatever fields the caller passed along.
    @Test func framingFieldsFromTheCallerAreNotSentTwice() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), .answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
        ])
        let headers: HTTPHeaders = ["Content-Length": "99", "Transfer-Encoding": "gzip", "X-Kept": "yes"]
        try await withClient(loops: 1, configuration: quick) { client, _ in
            _ = try await get(client, HTTPClientRequest(method: .post, url: upstream.url("/whole"), headers: headers, body: [1, 2, 3]))
            _ = try await client.stream(HTTPClientRequest(method: .post, url: upstream.url("/streamed"), headers: headers),
                                        body: streamedBody(["abc"], length: nil)).body.collect(upTo: 100)
            let received = upstream.received
            try #require(received.count == 2)
            #expect(received[0].values("Content-Length") == ["3"])
            #expect(received[0].values("Transfer-Encoding").isEmpty)
            #expect(received[0].values("X-Kept") == ["yes"])
            #expect(received[0].body == [1, 2, 3])
            #expect(received[1].values("Content-Length").isEmpty)
            #expect(received[1].values("Transfer-Encoding") == ["chunked"])
            #expect(received[1].body == Array("abc".utf8))
        }
    }

    // MARK: Timeouts

    /// On a manual clock: the idle timeout runs on the client loop's time.
    @Test func aStalledBodyTimesOutAfterTheIdleTimeout() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", then: .stall)])
        var configuration = quick
        configuration.timeout = .milliseconds(300)
        let clock = ManualLoopClock()
        try await withClient(loops: 1, configuration: configuration, clock: clock) { client, group in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            let reader = Task { try await response.body.collect(upTo: 100) }
            clock.advance(by: .milliseconds(250))
            await group.runExpiredTimers()
            #expect(client.stats.failures.load(ordering: .relaxed) == 0, "not before the idle timeout")
            clock.advance(by: .milliseconds(100))
            await group.runExpiredTimers()
            await #expect(throws: HTTPClientError.timedOut(requestSent: true)) { try await reader.value }
            #expect(client.stats.failures.load(ordering: .relaxed) == 1)
        }
    }
}
