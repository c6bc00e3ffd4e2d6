import Synchronization
import Testing
import HTTP
import System
import TestSupport

/// Answers given at once on the loop thread (`HTTPImmediateResponder`):
/// no worker task, the same framing, order and keep-alive as a worker's
/// answer, and every request it declines still answered by the responder.
@Suite("HTTP server immediate answers")
struct ServerImmediateTests {
    /// Answers paths under `/now/` at once and declines the rest.
    static let immediate: HTTPImmediateResponder = { request, _ in
        request.path.hasPrefix("/now/") ? .now(.text("now " + request.path.dropFirst(5))) : .declined
    }

    static func start(loops: Int = 1, asked: Asked? = nil, handled: Asked? = nil) async throws -> TestServer {
        try await TestServer.start(loops: loops, immediate: { request, later in
            asked?.count.add(1, ordering: .relaxed)
            return Self.immediate(request, later)
        }) { request in
            handled?.count.add(1, ordering: .relaxed)
            let body = try? await request.body.collect(upTo: 1024)
            return .text("later \(request.path.dropFirst(7)) \(body?.count ?? -1)")
        }
    }

    @Test func immediateAnswersTakeNoWorker() async throws {
        let server = try await Self.start()
        let client = try server.client()
        for index in 0..<20 {
            await client.send("GET /now/\(index) HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = await client.readResponses(1).first
            #expect(response?.bodyText == "now \(index)")
            #expect(response?.header("Content-Length") == "\("now \(index)".utf8.count)")
        }
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 0)
        await client.send("GET /later/x HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "later x 0")
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 1)
        #expect(server.server.stats.requests.load(ordering: .relaxed) == 21)
        await server.stop()
    }

    /// One write of many pipelined requests, immediate and not, mixed: the
    /// answers keep their order, and a burst answered at once does not
    /// nest a call per request (2,000 would overflow the loop's stack).
    @Test func pipelinedBurstKeepsItsOrder() async throws {
        let server = try await Self.start()
        let client = try server.client()
        let count = 2_000
        var burst = ""
        var expected: [String] = []
        for index in 0..<count {
            let immediate = index % 7 != 3
            burst += "GET /\(immediate ? "now" : "later")/\(index) HTTP/1.1\r\nHost: a\r\n\r\n"
            expected.append(immediate ? "now \(index)" : "later \(index) 0")
        }
        await client.send(burst)
        let responses = await client.readResponses(count)
        #expect(responses.count == count)
        let misplaced = zip(responses, expected).enumerated().first { $0.element.0.bodyText != $0.element.1 }?.offset
        #expect(misplaced == nil, "answer \(misplaced ?? -1) is not the one asked for there")
        await client.send("GET /now/after HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "now after")
        await server.stop()
    }

    @Test func aRequestWithABodyIsNotAskedAbout() async throws {
        let asked = Asked()
        let server = try await Self.start(asked: asked)
        let client = try server.client()
        await client.send("POST /now/x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc")
        #expect(await client.readResponses(1).first?.bodyText == "later  3")
        await client.send("POST /now/y HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "later  2")
        #expect(asked.count.load(ordering: .relaxed) == 0)
        await client.send("GET /now/z HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "now z")
        #expect(asked.count.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    @Test func headAndConnectionCloseAreHonoured() async throws {
        let server = try await Self.start()
        let client = try server.client()
        await client.send("HEAD /now/abc HTTP/1.1\r\nHost: a\r\n\r\nGET /now/last HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let raw = String(decoding: await client.readToEnd(), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
        let answers = raw.components(separatedBy: "HTTP/1.1 200 OK\r\n").dropFirst()
        #expect(answers.count == 2)
        #expect(answers.first?.contains("Content-Length: 7\r\n") == true)
        #expect(answers.first?.hasSuffix("\r\n\r\n") == true) // no body after a HEAD
        #expect(answers.last?.contains("Connection: close\r\n") == true)
        #expect(answers.last?.hasSuffix("\r\n\r\nnow last") == true)
        await server.stop()
    }

    /// An answer that ends the connection (`Connection: close`, HTTP/1.0)
    /// ends it before what was pipelined behind it: nothing after it runs,
    /// immediate or not (RFC 9112 §9.6).
    @Test(arguments: [
        "GET /now/a HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        "GET /now/a HTTP/1.0\r\n\r\n",
    ])
    func nothingRunsAfterAnAnswerThatCloses(first: String) async throws {
        let (asked, handled) = (Asked(), Asked())
        let server = try await Self.start(asked: asked, handled: handled)
        let client = try server.client()
        await client.send(first + "GET /now/b HTTP/1.1\r\nHost: a\r\n\r\n"
                          + "POST /later/x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc")
        let raw = String(decoding: await client.readToEnd(), as: UTF8.self)
        #expect(raw.components(separatedBy: "200 OK").count == 2, "one answer, then the close")
        #expect(raw.hasSuffix("now a"))
        #expect(asked.count.load(ordering: .relaxed) == 1)
        #expect(handled.count.load(ordering: .relaxed) == 0)
        #expect(server.server.stats.requests.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    /// A request declined by the immediate responder, pipelined behind a
    /// streamed answer, gets a worker: the streamed answer's task is not one.
    @Test func aDeclinedRequestBehindAStreamedAnswerGetsAWorker() async throws {
        let server = try await TestServer.start(loops: 1, immediate: { request, _ in
            guard request.path == "/s" else { return .declined }
            return .now(HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                try await writer.write(Array("streamed".utf8))
            }))
        }) { request in .text("later \(request.path)") }
        let client = try server.client()
        await client.send("GET /s HTTP/1.1\r\nHost: a\r\n\r\nGET /x HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(2).map { $0.bodyText } == ["streamed", "later /x"])
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    @Test func aStreamedBodyIsProducedByATaskOfItsOwn() async throws {
        let server = try await TestServer.start(loops: 1, immediate: { _, _ in
            .now(HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                for piece in ["one ", "two ", "three"] { try await writer.write(Array(piece.utf8)) }
            }))
        }) { _ in .text("never") }
        let client = try server.client()
        await client.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n")
        let first = await client.readResponses(1).first
        #expect(first?.header("Transfer-Encoding") == "chunked")
        #expect(first?.bodyText == "one two three")
        await client.send("GET /b HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "one two three")
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 0)
        await server.stop()
    }
}

/// How often the immediate responder was asked.
final class Asked: Sendable {
    let count = Atomic(0)
}
