import Synchronization
import Testing
import HTTP
import System
import TestSupport

/// Answers promised `later` by the immediate responder (`HTTPLaterAnswer`):
/// sent from a callback, with no worker task, in order behind and ahead of
/// other answers; one that comes for a connection gone, or a second one
/// for the same request, is dropped.
@Suite("HTTP server later answers")
struct ServerLaterAnswerTests {
    /// `/later/…` is answered later from another thread (queued onto the
    /// loop), `/now/…` at once, anything else by a worker.
    static func start(kept: Kept? = nil) async throws -> TestServer {
        try await TestServer.start(loops: 1, immediate: { request, later in
            let path = String(request.path)
            if path.hasPrefix("/now/") { return .now(.text("now " + path.dropFirst(5))) }
            guard path.hasPrefix("/later/") else { return .declined }
            if let kept {
                kept.answers.withLock { $0.append(later) }
            } else {
                Task {
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 0...3)))
                    later.send(.text("later " + path.dropFirst(7)))
                }
            }
            return .later
        }) { request in .text("worker " + request.path.dropFirst(1)) }
    }

    @Test func laterAnswersTakeNoWorker() async throws {
        let server = try await Self.start()
        let client = try server.client()
        for index in 0..<10 {
            await client.send("GET /later/\(index) HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = await client.readResponses(1).first
            #expect(response?.bodyText == "later \(index)")
            #expect(response?.header("Content-Length") == "\("later \(index)".utf8.count)")
        }
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 0)
        #expect(server.server.stats.answeredWithoutTask.load(ordering: .relaxed) == 10)
        await server.stop()
    }

    /// Answers later, now and by a worker, pipelined in one write: each
    /// comes back in its place, and a later one holds back the rest until
    /// it is sent.
    @Test func pipelinedLaterAnswersKeepTheirOrder() async throws {
        let server = try await Self.start()
        let client = try server.client()
        var burst = ""
        var expected: [String] = []
        for index in 0..<300 {
            let kind = ["later", "now", "worker", "later", "later"][index % 5]
            burst += "GET /\(kind == "worker" ? "w" : kind)/\(index) HTTP/1.1\r\nHost: a\r\n\r\n"
            expected.append(kind == "worker" ? "worker w/\(index)" : "\(kind) \(index)")
        }
        await client.send(burst)
        let responses = await client.readResponses(expected.count)
        #expect(responses.map(\.bodyText) == expected)
        await server.stop()
    }

    /// A later answer for a connection that has closed goes nowhere, and
    /// a second answer to one request is dropped: the next request on the
    /// connection gets its own.
    @Test func aLateOrSecondAnswerIsDropped() async throws {
        let kept = Kept()
        let server = try await Self.start(kept: kept)
        do {
            let gone = try server.client()
            await gone.send("GET /later/gone HTTP/1.1\r\nHost: a\r\n\r\n")
            try await kept.wait(for: 1)
        }
        // The client is closed (its descriptor with it); let the server see it.
        try await Task.sleep(for: .milliseconds(50))
        kept.answer(0, "too late")

        let client = try server.client()
        await client.send("GET /later/first HTTP/1.1\r\nHost: a\r\n\r\n")
        try await kept.wait(for: 2)
        kept.answer(1, "first")
        kept.answer(1, "first again")
        #expect(await client.readResponses(1).first?.bodyText == "first")
        await client.send("GET /later/second HTTP/1.1\r\nHost: a\r\n\r\n")
        try await kept.wait(for: 3)
        kept.answer(1, "first once more") // while the next request waits
        kept.answer(2, "second")
        #expect(await client.readResponses(1).first?.bodyText == "second", "not an answer to the request before")
        await server.stop()
    }

    /// An answer sent through the `HTTPLaterAnswer` of a request the
    /// responder declined is dropped: the worker's answer is the one sent.
    @Test func anAnswerForADeclinedRequestIsDropped() async throws {
        let kept = Kept()
        let server = try await TestServer.start(loops: 1, immediate: { _, later in
            kept.answers.withLock { $0.append(later) }
            return .declined
        }) { request in
            try? await Task.sleep(for: .milliseconds(200))
            return .text("worker " + request.path.dropFirst(1))
        }
        let client = try server.client()
        await client.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")
        try await kept.wait(for: 1)
        kept.answer(0, "stray")
        #expect(await client.readResponses(1).first?.bodyText == "worker x")
        await server.stop()
    }

    /// A later answer with a streamed body gets a task of its own to produce it.
    @Test func aLaterStreamedBodyIsProduced() async throws {
        let server = try await TestServer.start(loops: 1, immediate: { _, later in
            Task {
                later.send(HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                    for piece in ["one ", "two ", "three"] { try await writer.write(Array(piece.utf8)) }
                }))
            }
            return .later
        }) { _ in .text("never") }
        let client = try server.client()
        for _ in 0..<2 {
            await client.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = await client.readResponses(1).first
            #expect(response?.header("Transfer-Encoding") == "chunked")
            #expect(response?.bodyText == "one two three")
        }
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 0)
        await server.stop()
    }
}

/// The later answers a test responder kept, to send when the test says.
final class Kept: Sendable {
    let answers = Mutex<[HTTPLaterAnswer]>([])

    func wait(for count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while answers.withLock({ $0.count }) < count {
            guard ContinuousClock.now < deadline else { throw TestTimeout() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func answer(_ index: Int, _ text: String) {
        answers.withLock { $0[index] }.send(.text(text))
    }

    struct TestTimeout: Error {}
}
