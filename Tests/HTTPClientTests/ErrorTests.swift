import Core
import HTTP
import HTTPClient
import System
import TestSupport
import Testing

@Suite struct ErrorTests {
    /// A port nothing listens on: bound, then closed.
    func closedPort() throws -> UInt16 {
        let fd = try Socket.listen(on: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0), reusePort: false)
        let port = try Socket.localAddress(fd).port
        Socket.close(fd)
        return port
    }

    @Test func refusedConnectionFailsFast() async throws {
        let port = try closedPort()
        var configuration = HTTPClientConfiguration()
        configuration.connectTimeout = .seconds(10)
        try await withClient(configuration: configuration) { client, _ in
            let start = ContinuousClock.now
            await #expect(throws: HTTPClientError.connectFailed) {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/"))
            }
            // Refused at once, not after the connect timeout (slack for a busy machine).
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }

    @Test func unresolvableHostIsAConnectFailure() async throws {
        try await withClient { client, _ in
            await #expect(throws: HTTPClientError.connectFailed) {
                try await client.execute(HTTPClientRequest(url: "http://no-such-host.invalid/"))
            }
        }
    }

    @Test func connectTimeoutIsSafeToRetry() async throws {
        // A listener whose accept queue is full: further SYNs are dropped.
        let listener = try Socket.listen(on: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0), reusePort: false, backlog: 0)
        defer { Socket.close(listener) }
        let port = try Socket.localAddress(listener).port
        let filler = try RawClient(port: port, timeout: 1) // takes the one queue slot
        var configuration = HTTPClientConfiguration()
        configuration.connectTimeout = .milliseconds(200)
        try await withClient(configuration: configuration) { client, _ in
            let start = ContinuousClock.now
            await #expect(throws: HTTPClientError.timedOut(requestSent: false)) {
                try await client.execute(HTTPClientRequest(method: .post, url: "http://127.0.0.1:\(port)/", body: [1]))
            }
            #expect(ContinuousClock.now - start < .seconds(2))
        }
        withExtendedLifetime(filler) {}
    }

    @Test func totalTimeoutAfterSendingIsAnUnknownOutcome() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let start = ContinuousClock.now
            await #expect(throws: HTTPClientError.timedOut(requestSent: true)) {
                try await client.execute(HTTPClientRequest(
                    method: .post, url: upstream.url("/sleep/2000"), body: Array("refresh_token=x".utf8),
                    timeout: .milliseconds(300)))
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .milliseconds(300) && elapsed < .milliseconds(1500))
        }
        await upstream.stop()
    }

    @Test func timeoutBeforeTheBodyIsSentIsSafeToRetry() async throws { try await HeavyTests.run {
        // The server never reads the body, so 32 MiB cannot all be sent.
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.execute(HTTPClientRequest(
                    method: .post, url: upstream.url("/ignore-body"), body: [UInt8](repeating: 1, count: 32 << 20),
                    timeout: .milliseconds(400)))
            }
            #expect(error == .timedOut(requestSent: false))
            #expect(error?.requestMayHaveBeenProcessed == false)
        }
        await upstream.stop()
    } }

    @Test(arguments: ["/bytes/4096", "/chunked/4096"])
    func responseOverTheLimitIsRefused(_ path: String) async throws {
        let upstream = try await Upstream.start()
        var configuration = HTTPClientConfiguration()
        configuration.maxResponseBytes = 1000
        try await withClient(configuration: configuration) { client, _ in
            await #expect(throws: HTTPClientError.responseTooLarge) {
                try await client.execute(HTTPClientRequest(url: upstream.url(path)))
            }
            let small = try await client.execute(HTTPClientRequest(url: upstream.url("/bytes/1000")))
            #expect(small.body.count == 1000)
            await #expect(throws: HTTPClientError.responseTooLarge) {
                try await client.execute(HTTPClientRequest(url: upstream.url("/bytes/1000"), maxResponseBytes: 999))
            }
        }
        await upstream.stop()
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd", "http://exa mple.com/", "not a url", "http://[::1/"])
    func badURLsAreRefused(_ url: String) async throws {
        try await withClient { client, _ in
            await #expect(throws: HTTPClientError.invalidURL) {
                try await client.execute(HTTPClientRequest(url: url))
            }
        }
    }

    @Test func headerInjectionIsRefused() async throws {
        try await withClient { client, _ in
            await #expect(throws: HTTPClientError.invalidRequest) {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/", headers: ["X-A": "b\r\nX-Evil: 1"]))
            }
            await #expect(throws: HTTPClientError.invalidRequest) {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/", headers: ["Bad Name": "x"]))
            }
            await #expect(throws: HTTPClientError.invalidRequest) {
                try await client.execute(HTTPClientRequest(method: HTTPMethod("GET /x HTTP/1.1\r\n"), url: "http://127.0.0.1:1/"))
            }
        }
    }

    @Test func errorDescriptionsRevealNoSecrets() async throws {
        let upstream = try await Upstream.start()
        let port = try closedPort()
        var configuration = HTTPClientConfiguration()
        configuration.maxResponseBytes = 10
        try await withClient(configuration: configuration) { client, _ in
            let secretHeaders: HTTPHeaders = ["Authorization": "Bearer SECRET-TOKEN", "Cookie": "sid=SECRET-COOKIE"]
            let requests = [
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/p?code=SECRET-CODE", headers: secretHeaders),
                HTTPClientRequest(url: upstream.url("/sleep/1000?code=SECRET-CODE"), headers: secretHeaders,
                                  body: Array("SECRET-BODY".utf8), timeout: .milliseconds(100)),
                HTTPClientRequest(url: upstream.url("/bytes/100?code=SECRET-CODE"), headers: secretHeaders),
                HTTPClientRequest(url: "ftp://h/?code=SECRET-CODE", headers: secretHeaders),
                HTTPClientRequest(url: upstream.url("/?code=SECRET-CODE"), headers: ["X": "SECRET-VALUE\n"]),
            ]
            var seen = 0
            for request in requests {
                do {
                    _ = try await client.execute(request)
                } catch {
                    seen += 1
                    let text = "\(error) \(String(reflecting: error)) \(error.localizedDescription)"
                    #expect(!text.contains("SECRET"))
                    #expect(!text.contains("code="))
                    #expect(!text.contains("127.0.0.1"))
                }
            }
            #expect(seen == requests.count)
        }
        await upstream.stop()
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let task = Task { try await client.execute(HTTPClientRequest(url: upstream.url("/sleep/5000"))) }
            try await Task.sleep(for: .milliseconds(100))
            let start = ContinuousClock.now
            task.cancel()
            let result = await task.result
            // Refused at once, not after the connect timeout (slack for a busy machine).
            #expect(ContinuousClock.now - start < .seconds(2))
            #expect(throws: HTTPClientError.cancelled) { try result.get() }
            #expect(client.stats.activeTransfers.load(ordering: .relaxed) == 0)
            // The aborted connection is gone; the client still works.
            let response = try await client.execute(HTTPClientRequest(url: upstream.url("/echo")))
            #expect(response.status == .ok)
        }
        await upstream.stop()
    }

    @Test func alreadyCancelledTaskNeverStarts() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.execute(HTTPClientRequest(url: upstream.url("/echo")))
            }
            let result = await task.result
            #expect(throws: HTTPClientError.cancelled) { try result.get() }
            #expect(upstream.server.stats.requests.load(ordering: .relaxed) == 0)
        }
        await upstream.stop()
    }

    @Test func shutdownEndsRunningTransfersAndRefusesNewOnes() async throws {
        let upstream = try await Upstream.start()
        let group = try EventLoopGroup(loops: 1, name: "client")
        let client = try HTTPClient(loops: group.loops)
        let running = Task { try await client.execute(HTTPClientRequest(url: upstream.url("/sleep/5000"))) }
        try await Task.sleep(for: .milliseconds(100))
        await client.shutdown()
        let result = await running.result
        #expect(throws: HTTPClientError.cancelled) { try result.get() }
        await #expect(throws: HTTPClientError.cancelled) {
            try await client.execute(HTTPClientRequest(url: upstream.url("/echo")))
        }
        group.shutdown()
        await upstream.stop()
    }
}
