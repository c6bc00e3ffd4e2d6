import Synchronization
import System

/// The client's own HTTP/1.1 connections (`UpstreamPool`, one per loop) for
/// plain `http` URLs without content decoding: the API proxy's usual
/// upstreams. libcurl's per-request work (options, URL parsing, header
/// callbacks, a liveness poll per reuse) would be the largest share of a
/// proxied request. Also starts requests from a loop without a task
/// (`startOnLoop`).
final class OwnConnectionTransport: UpstreamTransport {
    private let pools: [LoopBound<UpstreamPool>]
    private let cursor = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)

    init(configuration: HTTPClientConfiguration, loops: [EventLoop], stats: HTTPClientStats) {
        pools = loops.map { LoopBound(UpstreamPool(loop: $0, configuration: configuration, stats: stats), loop: $0) }
    }

    /// Where `request` goes over an own connection, or nil when libcurl
    /// must carry it.
    @inline(__always)
    func target(for request: HTTPClientRequest) -> PlainHTTPTarget? {
        request.decodeContentEncoding ? nil : request.plainTarget
    }

    func carries(_ request: HTTPClientRequest) -> Bool { target(for: request) != nil }

    func stream(_ request: HTTPClientRequest, body: HTTPClientRequestBody?) async throws(HTTPClientError)
        -> HTTPClientStreamingResponse
    {
        guard let target = target(for: request) else { throw .invalidRequest }
        return try await stream(request, target: target, body: body)
    }

    /// `stream` to `target`, which `target(for:)` found for `request`.
    @inline(__always)
    func stream(_ request: HTTPClientRequest, target: PlainHTTPTarget,
                body: HTTPClientRequestBody?) async throws(HTTPClientError) -> HTTPClientStreamingResponse {
        let pool = pickPool()
        let id = nextID.add(1, ordering: .relaxed).oldValue
        guard request.followsTaskCancellation else {
            return try await withUnsafeContinuation { continuation in
                let waiter = UpstreamExchange.Waiter.task(continuation)
                if pool.loop.inLoop {
                    pool.valueInLoop.start(id: id, target: target, request: request, body: body, waiter: waiter)
                } else {
                    pool.later { $0.start(id: id, target: target, request: request, body: body, waiter: waiter) }
                }
            }.get()
        }
        let cancelled = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                let waiter = UpstreamExchange.Waiter.task(continuation)
                @Sendable func start(_ pool: UpstreamPool) {
                    if cancelled.isSet { return waiter.resume(returning: .failure(.cancelled)) }
                    pool.start(id: id, target: target, request: request, body: body, waiter: waiter)
                }
                // On the pool's loop (the usual case) at once, with no
                // closure allocated for a hop.
                if pool.loop.inLoop { start(pool.valueInLoop) } else { pool.later { start($0) } }
            }
        } onCancel: {
            cancelled.set()
            // Always queued, never run inline: the canceller may be anywhere.
            pool.later { $0.cancel(id: id) }
        }
        return try result.get()
    }

    /// Whether the calling thread is one of the loops.
    var isOnLoop: Bool { ownPool() != nil }

    /// `HTTPClient.startOnLoop`: starts `request` (without a body) on the
    /// calling thread's loop and answers `onHead` after returning.
    func startOnLoop(_ request: HTTPClientRequest, onHead: @escaping HTTPClient.HeadHandler) {
        guard let pool = ownPool() else { preconditionFailure("startOnLoop called off the client's loops") }
        let waiter = UpstreamExchange.Waiter.handler(pool.loop, onHead)
        guard request.body == nil, let target = target(for: request) else {
            return waiter.resume(returning: .failure(.invalidRequest))
        }
        do {
            try RequestValidation.check(request)
        } catch {
            return waiter.resume(returning: .failure(error))
        }
        pool.start(id: nextID.add(1, ordering: .relaxed).oldValue, target: target, request: request, body: nil,
                   waiter: waiter)
    }

    func shutdown() async {
        for pool in pools {
            await pool.withValueAndWait { $0.shutdown() }
        }
    }

    /// The calling thread's own loop's pool when it is one of ours, else the next.
    private func pickPool() -> LoopBound<UpstreamPool> {
        ownIndex().map { pools[$0] } ?? pools[cursor.add(1, ordering: .relaxed).oldValue % pools.count]
    }

    /// The calling thread's own loop's pool, when it is one of ours: the
    /// pool itself, not its `LoopBound`, which would retain the loop too.
    private func ownPool() -> UpstreamPool? {
        ownIndex().map { pools[$0].valueInLoop }
    }

    /// Where the calling thread's own loop's pool is in `pools`.
    private func ownIndex() -> Int? {
        // Over the buffer, by index: a `for` over the array retained each
        // pool it passed.
        pools.withUnsafeBufferPointer { pools in
            for index in pools.indices where pools[index].loop.inLoop { return index }
            return nil
        }
    }
}
