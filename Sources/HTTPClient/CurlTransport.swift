import Synchronization
import System

/// libcurl's multi interface, driven by the client's event loops: one multi
/// handle (with its own connection pool) per loop, no extra threads,
/// nothing blocking. Carries every request: `execute`, `https`, and any URL
/// the own connections leave to it. A request made from a task running on
/// one of the loops stays on that loop; any other goes to the loops in turn.
final class CurlTransport: UpstreamTransport {
    private let multis: [LoopBound<CurlMulti>]
    private let cursor = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)

    /// Creates one multi handle per loop. The loops may be running already.
    init(configuration: HTTPClientConfiguration, loops: [EventLoop], stats: HTTPClientStats) throws(HTTPClientError) {
        try CurlGlobal.initialize()
        var multis: [LoopBound<CurlMulti>] = []
        for loop in loops {
            multis.append(LoopBound(try CurlMulti(loop: loop, configuration: configuration, stats: stats), loop: loop))
        }
        self.multis = multis
    }

    func carries(_ request: HTTPClientRequest) -> Bool { true }

    /// Sends `request` (already validated) and returns the whole response.
    /// Cancelling the calling task aborts the transfer and throws `.cancelled`.
    func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        try await transfer { multi, id, waiter in multi.startBuffered(id: id, request: request, waiter: waiter) }
    }

    func stream(_ request: HTTPClientRequest, body: HTTPClientRequestBody?) async throws(HTTPClientError)
        -> HTTPClientStreamingResponse
    {
        try await transfer { multi, id, waiter in
            multi.startStreaming(id: id, request: request, body: body, waiter: waiter)
        }
    }

    /// Starts a transfer on a multi with `start` and waits for its outcome.
    /// Cancelling the calling task aborts it and throws `.cancelled`.
    private func transfer<Outcome: Sendable>(
        _ start: @escaping @Sendable (CurlMulti, UInt64, CheckedContinuation<Result<Outcome, HTTPClientError>, Never>) -> Void
    ) async throws(HTTPClientError) -> Outcome {
        let multi = pickMulti()
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let cancelled = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Result<Outcome, HTTPClientError>, Never>) in
                multi.withValue { multi in
                    if cancelled.isSet { return waiter.resume(returning: .failure(.cancelled)) }
                    start(multi, id, waiter)
                }
            }
        } onCancel: {
            cancelled.set()
            // Always queued, never run inline: the canceller may be anywhere.
            multi.later { $0.cancel(id: id) }
        }
        return try result.get()
    }

    func shutdown() async {
        for multi in multis {
            await multi.withValueAndWait { $0.shutdown() }
        }
    }

    /// The calling thread's own loop when it is one of ours, else the next.
    private func pickMulti() -> LoopBound<CurlMulti> {
        for multi in multis where multi.loop.inLoop { return multi }
        return multis[cursor.add(1, ordering: .relaxed).oldValue % multis.count]
    }
}
