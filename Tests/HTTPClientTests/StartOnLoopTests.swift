import HTTP
@testable import HTTPClient
import Synchronization
import System
import TestSupport
import Testing

/// `HTTPClient.startOnLoop`: a stream started from one of the client's
/// loops, whose head comes to a handler on that loop instead of to a task.
@Suite("Streams started on a loop")
struct StartOnLoopTests {
    /// What a handler saw: the outcome, whether it ran on the loop, and
    /// whether the call that started it had returned first.
    struct Seen: Sendable {
        var result: Result<HTTPClientStreamingResponse, HTTPClientError>
        var onLoop: Bool
        var afterReturn: Bool
    }

    /// Starts `request` on `loop` and waits for the handler.
    static func start(_ client: HTTPClient, on loop: EventLoop, _ request: HTTPClientRequest) async -> Seen {
        await withCheckedContinuation { (waiter: CheckedContinuation<Seen, Never>) in
            loop.execute {
                let returned = Atomic(false)
                client.startOnLoop(request) { result in
                    waiter.resume(returning: Seen(result: result, onLoop: loop.inLoop,
                                                  afterReturn: returned.load(ordering: .relaxed)))
                }
                returned.store(true, ordering: .relaxed)
            }
        }
    }

    @Test func theHeadAndBodyComeToTheHandlerOnTheLoopAfterTheCall() async throws {
        let upstream = try await Upstream.start()
        try await withClient(loops: 1) { client, group in
            let loop = group.loops[0]
            let base = client.base(upstream.url("/"))
            #expect(await loop.submit { client.startsOnLoop(base) })
            #expect(!client.startsOnLoop(base), "not from a thread that is none of the client's loops")
            #expect(await !loop.submit { client.startsOnLoop(client.base("https://127.0.0.1:1/")) })

            for (path, size) in [("bytes/5", 5), ("download/200000", 200_000), ("chunked/3000", 3_000)] {
                let seen = await Self.start(client, on: loop, HTTPClientRequest(base: base, appending: path))
                #expect(seen.onLoop && seen.afterReturn)
                let response = try seen.result.get()
                #expect(response.status == .ok)
                #expect(try await response.body.collect(upTo: 1 << 20).count == size)
            }
            let limited = try await Self.start(client, on: loop, HTTPClientRequest(base: base, appending: "limited")).result.get()
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers["Retry-After"] != nil)
        }
        await upstream.stop()
    }

    @Test func failuresComeToTheHandlerToo() async throws {
        let closed = try ErrorTests().closedPort()
        let upstream = try await Upstream.start()
        try await withClient(loops: 1, configuration: quick) { client, group in
            let loop = group.loops[0]
            let refused = await Self.start(client, on: loop, HTTPClientRequest(base: client.base("http://127.0.0.1:\(closed)/"), appending: "x"))
            #expect(refused.onLoop && refused.afterReturn)
            #expect(throws: HTTPClientError.connectFailed) { try refused.result.get() }

            var headers = HTTPHeaders()
            headers.add("X-Bad", "a\r\nX-Injected: 1")
            let invalid = await Self.start(client, on: loop, HTTPClientRequest(base: client.base(upstream.url("/")), appending: "echo", headers: headers))
            #expect(invalid.afterReturn, "even a request refused at once is answered after the call")
            #expect(throws: HTTPClientError.invalidRequest) { try invalid.result.get() }

            let slow = await Self.start(client, on: loop, HTTPClientRequest(base: client.base(upstream.url("/")), appending: "sleep/3000",
                                                                             timeout: .milliseconds(200)))
            #expect(throws: HTTPClientError.timedOut(requestSent: true)) { try slow.result.get() }
        }
        await upstream.stop()
    }
}
