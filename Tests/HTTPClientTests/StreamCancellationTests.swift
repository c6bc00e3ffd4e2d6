@testable import HTTPClient
import Testing
import TestSupport

/// Cancelling the task that waits for a plain-`http` stream's head aborts
/// it, unless the request says its task's cancellation is not its own
/// (`followsTaskCancellation` off, as the proxy's workers set it): then
/// only the timeout ends the wait. The upstream never answers.
@Suite struct StreamCancellationTests {
    private static let silent = RawUpstream.Reply(writes: [], then: .stall)

    /// Streams `request` in a task that is cancelled once the upstream has
    /// taken the connection; returns how the stream ended.
    private func streamCancelled(_ request: HTTPClientRequest, _ upstream: RawUpstream,
                                 _ client: HTTPClient) async throws -> HTTPClientError? {
        let task = Task { () async -> HTTPClientError? in
            do throws(HTTPClientError) {
                _ = try await client.stream(request, body: nil)
                return nil
            } catch {
                return error
            }
        }
        let start = ContinuousClock.now
        while upstream.accepted == 0, ContinuousClock.now - start < .seconds(5) { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        return await task.value
    }

    @Test(arguments: Engine.allCases) func cancellingTheTaskAbortsTheWaitForTheHead(engine: Engine) async throws {
        let upstream = try RawUpstream([Self.silent])
        let patient = HTTPClientConfiguration(connectTimeout: .seconds(1), timeout: .seconds(30))
        try await withClient(loops: 1, configuration: engine.configuration(patient)) { client, _ in
            let ending = try await streamCancelled(HTTPClientRequest(url: upstream.url("/")), upstream, client)
            #expect(ending == .cancelled)
        }
    }

    /// The own connections only: a transfer over libcurl always follows
    /// its task's cancellation.
    @Test(arguments: [Engine.own]) func aRequestThatDoesNotFollowItsTaskWaitsForItsTimeout(engine: Engine) async throws {
        let upstream = try RawUpstream([Self.silent])
        try await withClient(loops: 1, configuration: engine.configuration(quick)) { client, _ in
            var request = HTTPClientRequest(url: upstream.url("/"))
            request.followsTaskCancellation = false
            let ending = try await streamCancelled(request, upstream, client)
            guard case .timedOut? = ending else {
                Issue.record("expected the 1 s timeout, got \(String(describing: ending))")
                return
            }
        }
    }
}
