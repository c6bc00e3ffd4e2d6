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
    /// the client's loop, so the second goes out in the same pass of the
    /// loop that finished the first, before epoll could report the bytes
    /// left behind.
    @Test func bytesLeftInTheSocketPastAResponseRetireTheConnection() async throws {
        let filling = Self.response(totalling: 16 * 1024)
        let upstream = try RawUpstream([
            .answer(filling + "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"),
        ])
        try await withClient(loops: 1, configuration: quick) { client, group in
            let answers = try await withTaskExecutorPreference(group.loops[0]) {
                [try await get(client, upstream.url("/1")), try await get(client, upstream.url("/2"))]
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

    @Test func aStalledBodyTimesOutAfterTheIdleTimeout() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", then: .stall)])
        var configuration = quick
        configuration.timeout = .milliseconds(300)
        try await withClient(loops: 1, configuration: configuration) { client, _ in
            let started = ContinuousClock.now
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            await #expect(throws: HTTPClientError.timedOut(requestSent: true)) {
                try await response.body.collect(upTo: 100)
            }
            let elapsed = ContinuousClock.now - started
            // The upper bound is loose: the parallel pass can stall a test by
            // seconds; what matters is that it fires, and not early.
            #expect(elapsed > .milliseconds(250) && elapsed < .seconds(5), "took \(elapsed)")
        }
    }
}

// MARK: - Helpers

/// Short timeouts, so a mistake fails within a second instead of hanging.
private let quick = HTTPClientConfiguration(connectTimeout: .seconds(1), timeout: .seconds(1))

/// Parses `text`, a whole response head through its blank line.
private func parseHead(_ text: String, headRequest: Bool = false) throws(HTTPClientError) -> UpstreamResponseHead {
    try Array(text.utf8).withUnsafeBytes { bytes in
        Result { () throws(HTTPClientError) in try UpstreamResponseParser.parse(bytes, headRequest: headRequest) }
    }.get()
}

/// Decodes `input` handed over `size` bytes at a time (as reads would),
/// keeping what a step left unused for the next one, as the connection
/// does. Returns the body, whether its end was seen, and how many bytes
/// past the end were left unused.
private func decodeChunked(_ input: [UInt8], feedBy size: Int) throws(HTTPClientError)
    -> (body: [UInt8], ended: Bool, unused: Int) {
    var decoder = ChunkedDecoder()
    var body: [UInt8] = []
    var buffered: [UInt8] = []
    var offset = 0
    while offset < input.count {
        let next = min(offset + size, input.count)
        buffered += input[offset..<next]
        offset = next
        stepping: while true {
            let step = try buffered.withUnsafeBytes { bytes in
                Result { () throws(HTTPClientError) in try decoder.step(bytes) }
            }.get()
            switch step {
            case .more:
                break stepping
            case .framing(let count):
                buffered.removeFirst(count)
            case .data(let count):
                body += buffered[..<count]
                decoder.delivered(count)
                buffered.removeFirst(count)
            case .end(let count):
                buffered.removeFirst(count)
                return (body, true, buffered.count + input.count - offset)
            }
        }
    }
    return (body, false, 0)
}

/// A streamed request body handing out `pieces` in order.
private func streamedBody(_ pieces: [String], length: Int?) -> HTTPClientRequestBody {
    let queue = Mutex(pieces.map { Array($0.utf8) })
    return HTTPClientRequestBody(length: length) { queue.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}

/// A response's status code and its whole body as text.
private struct Answer: Equatable {
    var status: Int
    var body: String

    init(_ status: Int, _ body: String) {
        self.status = status
        self.body = body
    }
}

/// Streams a GET of `url` and reads its whole body.
private func get(_ client: HTTPClient, _ url: String) async throws(HTTPClientError) -> Answer {
    try await get(client, HTTPClientRequest(url: url))
}

/// GETs `urls` one after another through one client on one loop.
private func getInTurn(_ urls: [String]) async throws -> [Answer] {
    try await withClient(loops: 1, configuration: quick) { client, _ in
        var answers: [Answer] = []
        for url in urls { answers.append(try await get(client, url)) }
        return answers
    }
}

/// Streams `request` (its body given whole) and reads the whole answer.
private func get(_ client: HTTPClient, _ request: HTTPClientRequest) async throws(HTTPClientError) -> Answer {
    let response = try await client.stream(request, body: nil)
    return Answer(response.status.code, String(decoding: try await response.body.collect(upTo: 1 << 16), as: UTF8.self))
}

/// A loopback upstream with blocking I/O on threads of its own, one per
/// accepted connection. It answers requests from a script in the order
/// they arrive, over whichever connection, counts the connections it
/// accepted and keeps every request it read. It stops (and closes its
/// sockets) once released.
private final class RawUpstream: Sendable {
    /// What the upstream does with one request.
    struct Reply: Sendable {
        /// What becomes of the connection after the reply: `reset` closes
        /// it abortively (RST) a tenth of a second later.
        enum Then: Sendable { case keepOpen, close, stall, reset }
        /// Written in order, a millisecond apart.
        var writes: [[UInt8]]
        var then: Then
        /// Whether the request's body is read before answering.
        var readsBody = true
        /// How long to wait, once the request is read, before replying.
        var delayMilliseconds = 0

        /// Sends `text` at once.
        static func answer(_ text: String, then: Then = .keepOpen) -> Reply {
            Reply(writes: [Array(text.utf8)], then: then)
        }

        /// Sends `text` in pieces of `size` bytes.
        static func trickle(_ text: String, by size: Int) -> Reply {
            let bytes = Array(text.utf8)
            return Reply(writes: stride(from: 0, to: bytes.count, by: size).map {
                Array(bytes[$0..<min($0 + size, bytes.count)])
            }, then: .keepOpen)
        }

        /// Closes the connection unanswered, the request's body unread.
        static let hangUp = Reply(writes: [], then: .close, readsBody: false)

        /// Closes the connection unanswered `milliseconds` after reading the request's head.
        static func hangUp(after milliseconds: Int) -> Reply {
            Reply(writes: [], then: .close, readsBody: false, delayMilliseconds: milliseconds)
        }

        /// Sends `text` as soon as the head is read, leaving the body unread.
        static func answerEarly(_ text: String) -> Reply {
            Reply(writes: [Array(text.utf8)], then: .keepOpen, readsBody: false)
        }
    }

    /// A request as the upstream read it.
    struct Received: Sendable {
        /// Which accepted connection carried it, from 1.
        var connection: Int
        /// The request line and fields, CRLF-separated.
        var head: String
        /// The body, its chunked framing removed.
        var body: [UInt8] = []

        /// `METHOD target HTTP/1.1`.
        var requestLine: String { String(head.split(separator: "\r\n").first ?? "") }

        /// The values of every field called `name`, in order.
        func values(_ name: String) -> [String] {
            head.split(separator: "\r\n").dropFirst().compactMap { line in
                guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { return nil }
                return String(line[line.index(after: colon)...]).trimmedBlanks()
            }
        }
    }

    /// What the serving threads share with the test.
    private final class State: Sendable {
        let script: Mutex<[Reply]>
        let accepted = Atomic<Int>(0)
        let received = Mutex<[Received]>([])
        let stopped = Atomic<Bool>(false)
        /// Connections open now, and the most ever open at once.
        let open = Mutex((now: 0, peak: 0))

        init(script: [Reply]) { self.script = Mutex(script) }
    }

    let port: UInt16
    private let state: State

    /// Connections accepted so far.
    var accepted: Int { state.accepted.load(ordering: .acquiring) }
    /// The most connections that were open at once.
    var peakOpen: Int { state.open.withLock { $0.peak } }
    /// Requests read so far, in order.
    var received: [Received] { state.received.withLock { $0 } }

    /// Listens on 127.0.0.1; once `script` is used up, requests are hung up on.
    init(_ script: [Reply]) throws {
        let listener = try Socket.listen(on: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0), reusePort: false)
        do {
            port = try Socket.localAddress(listener).port
        } catch {
            Glibc.close(listener)
            throw error
        }
        let state = State(script: script)
        self.state = state
        Self.onOwnThread { Self.acceptLoop(listener, state) }
    }

    deinit { state.stopped.store(true, ordering: .releasing) }

    /// An `http` URL of `path` on this upstream.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Runs blocking `work` on a thread of its own: a queue made here
    /// gets one, while the global queues share a few threads with Swift
    /// concurrency, which blocked loops would starve.
    private static func onOwnThread(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "raw-upstream").async(execute: work)
    }

    /// Accepts connections until stopped, each served on its own thread;
    /// the listener is closed here, by the only thread using it.
    private static func acceptLoop(_ listener: Int32, _ state: State) {
        defer { Glibc.close(listener) }
        while !state.stopped.load(ordering: .acquiring) {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) == 1, let (fd, _) = try? Socket.accept(listener) else { continue }
            let number = state.accepted.add(1, ordering: .releasing).newValue
            onOwnThread { serve(fd, connection: number, state) }
        }
    }

    /// Reads requests and answers them from the script until the script
    /// says otherwise or the client leaves. A request is recorded before
    /// its answer goes out, so a test that has the answer sees it.
    private static func serve(_ fd: Int32, connection: Int, _ state: State) {
        state.open.withLock { open in
            open.now += 1
            open.peak = max(open.peak, open.now)
        }
        // Counted out before the close, which the client may act on at once.
        defer {
            state.open.withLock { $0.now -= 1 }
            Glibc.close(fd)
        }
        Socket.setNoDelay(fd)
        // Room for a reply of a few hundred KiB in one write, so that what
        // a test sends in one piece reaches the client as one.
        var sendBuffer: Int32 = 2 << 20
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
        var reader = Reader(fd: fd, state: state)
        while let head = reader.head() {
            let reply = state.script.withLock { $0.isEmpty ? Reply.hangUp : $0.removeFirst() }
            var request = Received(connection: connection, head: head)
            if reply.delayMilliseconds > 0 { usleep(UInt32(reply.delayMilliseconds * 1000)) }
            if reply.readsBody {
                guard let body = reader.body(of: request) else { return }
                request.body = body
            }
            state.received.withLock { $0.append(request) }
            for (index, piece) in reply.writes.enumerated() {
                if index > 0 { usleep(1000) }
                guard send(piece, to: fd) else { return }
            }
            switch reply.then {
            case .keepOpen: continue
            case .close: return
            case .stall: while reader.fill() { reader.input.removeAll() }
            case .reset:
                usleep(100_000)
                var abort = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
            }
            return
        }
    }

    /// Writes all of `bytes`; false when the peer is gone.
    private static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            switch bytes[offset...].withUnsafeBytes({ Socket.write(fd, from: $0) }) {
            case .done(let count):
                offset += count
            case .wouldBlock:
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 50)
            case .closed, .failed:
                return false
            }
        }
        return true
    }

    /// Blocking reads from one connection, by head, line and count.
    private struct Reader {
        let fd: Int32
        let state: State
        var input: [UInt8] = []

        /// Reads more into `input`; false at the end of the stream, when
        /// stopped, or after five quiet seconds.
        mutating func fill() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            for _ in 0..<100 where !state.stopped.load(ordering: .acquiring) {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 50) == 1 else { continue }
                switch buffer.withUnsafeMutableBytes({ Socket.read(fd, into: $0) }) {
                case .done(let count):
                    input += buffer[..<count]
                    return true
                case .wouldBlock:
                    continue
                case .closed, .failed:
                    return false
                }
            }
            return false
        }

        /// The next request head without its blank line; nil when the
        /// connection ended first.
        mutating func head() -> String? {
            while true {
                if let end = input.firstRange(of: [13, 10, 13, 10]) {
                    defer { input.removeFirst(end.upperBound) }
                    return String(decoding: input[..<end.lowerBound], as: UTF8.self)
                }
                guard fill() else { return nil }
            }
        }

        /// The body `request`'s head announces, chunked or by length.
        mutating func body(of request: Received) -> [UInt8]? {
            if request.values("Transfer-Encoding").contains(where: { $0.lowercased() == "chunked" }) { return chunkedBody() }
            return take(Int(request.values("Content-Length").first ?? "0") ?? 0)
        }

        /// A chunked body without its framing; trailers are skipped.
        private mutating func chunkedBody() -> [UInt8]? {
            var body: [UInt8] = []
            while let sizeLine = line(), let size = Int(sizeLine.prefix { $0 != ";" }, radix: 16) {
                if size == 0 {
                    while let trailer = line(), !trailer.isEmpty {}
                    return body
                }
                guard let data = take(size), line() == "" else { return nil }
                body += data
            }
            return nil
        }

        /// The next `count` bytes; nil when the connection ended first.
        private mutating func take(_ count: Int) -> [UInt8]? {
            while input.count < count { guard fill() else { return nil } }
            defer { input.removeFirst(count) }
            return Array(input[..<count])
        }

        /// The next CRLF-terminated line, without its CRLF.
        private mutating func line() -> String? {
            while true {
                if let end = input.firstRange(of: [13, 10]) {
                    defer { input.removeFirst(end.upperBound) }
                    return String(decoding: input[..<end.lowerBound], as: UTF8.self)
                }
                guard fill() else { return nil }
            }
        }
    }
}
