import Synchronization
import Testing
import HTTP
import System
import TestSupport

/// The tasks that answer requests (`RequestWorkers`): reused from one
/// request to the next, one more for every request that finds none idle,
/// and at most `maxIdleWorkers` kept idle per loop.
@Suite("HTTP server request workers")
struct ServerWorkerTests {
    @Test func keepAliveRequestsReuseOneWorker() async throws {
        let server = try await TestServer.start(loops: 1) { request in .text(String(request.path)) }
        let client = try server.client()
        for index in 0..<50 {
            await client.send("GET /\(index) HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(await client.readResponses(1).first?.bodyText == "/\(index)")
        }
        #expect(server.server.stats.requests.load(ordering: .relaxed) == 50)
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    @Test func pipelinedRequestsAreTakenByTheWorkerThatAnsweredTheOneBefore() async throws {
        let server = try await TestServer.start(loops: 1) { request in .text(String(request.path)) }
        let client = try server.client()
        await client.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(3).map(\.bodyText) == ["/1", "/2", "/3"])
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    @Test func aSuspendedHandlerDoesNotHoldUpTheNextRequest() async throws {
        let gate = Gate()
        let server = try await TestServer.start(loops: 1) { request in
            if request.path == "/wait" {
                await gate.wait()
                return .text("waited")
            }
            gate.open()
            return .text("opened")
        }
        let waiting = try server.client()
        await waiting.send("GET /wait HTTP/1.1\r\nHost: a\r\n\r\n")
        try await waitUntil { server.server.stats.requests.load(ordering: .relaxed) == 1 }
        let opening = try server.client()
        await opening.send("GET /open HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await opening.readResponses(1).first?.bodyText == "opened")
        #expect(await waiting.readResponses(1).first?.bodyText == "waited")
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 2)
        await server.stop()
    }

    @Test func idleWorkersAreCappedAndReused() async throws {
        let gate = Gate()
        let server = try await TestServer.start(loops: 1, configure: { $0.maxIdleWorkers = 4 }) { request in
            if request.path == "/wait" { await gate.wait() }
            return .text("done")
        }
        // Ten requests held at once need ten workers; four stay idle after.
        try await holdTen(on: server, behind: gate)
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 10)

        // Ten more at once: the four idle ones and six new.
        gate.close()
        try await holdTen(on: server, behind: gate)
        #expect(server.server.stats.workersStarted.load(ordering: .relaxed) == 16)
        await server.stop()
    }

    /// Ten requests on ten connections, all waiting at `gate` at once; then
    /// the gate opens and each is answered.
    private func holdTen(on server: TestServer, behind gate: Gate) async throws {
        let before = server.server.stats.requests.load(ordering: .relaxed)
        let clients = try (0..<10).map { _ in try server.client() }
        for client in clients { await client.send("GET /wait HTTP/1.1\r\nHost: a\r\n\r\n") }
        try await waitUntil { server.server.stats.requests.load(ordering: .relaxed) == before + 10 }
        gate.open()
        for client in clients { #expect(await client.readResponses(1).first?.bodyText == "done") }
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private struct TimedOut: Error {}
}

/// Handlers wait here until a test opens it; `close` makes later ones wait.
private final class Gate: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s in
                if s.open { return true }
                s.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { s in
            s.open = true
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func close() { state.withLock { $0.open = false } }
}
