import Synchronization
import System

/// Upstream HTTP/1.1 over libcurl's multi interface, driven by our own
/// epoll event loops: one multi handle (with its own connection pool) per
/// loop, no extra threads, nothing blocking. A request made from a task
/// running on one of the client's loops stays on that loop; any other goes
/// to the loops in turn.
///
/// Streams to plain `http` URLs (the API proxy's usual upstreams) go over
/// the client's own HTTP/1.1 connections on the same loops instead
/// (`UpstreamPool`), unless `HTTPClientConfiguration.ownPlainHTTP` is off:
/// libcurl's per-request work (options, URL parsing, header callbacks, a
/// liveness poll per reuse) was the largest share of a proxied request.
///
/// Redirects are never followed, proxies from the environment are ignored,
/// only `http` and `https` are spoken, and TLS certificates are verified
/// unless configured otherwise. Call `shutdown` before the loops stop.
public final class HTTPClient: Sendable {
    /// The settings every request starts from.
    public let configuration: HTTPClientConfiguration
    /// Counters for metrics.
    public let stats = HTTPClientStats()
    private let multis: [CurlMulti]
    private let pools: [UpstreamPool]
    private let cursor = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)
    /// The numbers `base(_:)` gave endpoints.
    private let endpointSlots = Mutex<[String: Int]>([:])

    /// Creates one multi handle per loop. The loops may be running already.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
                loops: [EventLoop]) throws(HTTPClientError) {
        precondition(!loops.isEmpty, "an HTTP client needs at least one event loop")
        try CurlGlobal.initialize()
        self.configuration = configuration
        var multis: [CurlMulti] = []
        for loop in loops {
            multis.append(try CurlMulti(loop: loop, configuration: configuration, stats: stats))
        }
        self.multis = multis
        let stats = stats
        pools = loops.map { UpstreamPool(loop: $0, configuration: configuration, stats: stats) }
    }

    /// A base for requests to `url` and what follows it (a proxy route's
    /// upstream), whose endpoint this client's pools find by number
    /// instead of by hashing its name for every request. Bases to one
    /// endpoint get one number, and so share its idle connections.
    public func base(_ url: String) -> HTTPClientBase {
        guard let plain = PlainHTTPTarget(url) else { return HTTPClientBase(url, plain: nil) }
        let slot = endpointSlots.withLock { slots in
            if let slot = slots[plain.endpoint] { return slot }
            slots[plain.endpoint] = slots.count
            return slots.count - 1
        }
        return HTTPClientBase(url, plain: plain.numbered(slot))
    }

    /// Sends `request` and returns the whole response, whatever its status
    /// (a 302 or a 429 is a response, not an error). Cancelling the calling
    /// task aborts the transfer and throws `.cancelled`.
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        try RequestValidation.check(request)
        let multi = pickMulti()
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let cancelled = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>) in
                multi.onLoop { multi in
                    if cancelled.isSet { return waiter.resume(returning: .failure(.cancelled)) }
                    multi.startBuffered(id: id, request: request, waiter: waiter)
                }
            }
        } onCancel: {
            cancelled.set()
            // Always queued, never run inline: the canceller may be anywhere.
            multi.loop.execute { multi.cancel(id: id) }
        }
        return try result.get()
    }

    /// Sends `request` with a body streamed from `body` (or `request.body`
    /// when nil) and returns as soon as the response head has arrived; the
    /// body follows as `HTTPClientStreamingResponse.body`. Both directions
    /// are flow-controlled, so memory stays bounded at any size. The
    /// request's `timeout` (or the configuration's) is an idle timeout here.
    public func stream(_ request: HTTPClientRequest,
                       body: HTTPClientRequestBody?) async throws(HTTPClientError) -> HTTPClientStreamingResponse {
        try RequestValidation.check(request)
        if configuration.ownPlainHTTP, !request.decodeContentEncoding, let target = request.plainTarget {
            return try await streamOwn(request, target: target, body: body)
        }
        let multi = pickMulti()
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let cancelled = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Result<HTTPClientStreamingResponse, HTTPClientError>, Never>) in
                multi.onLoop { multi in
                    if cancelled.isSet { return waiter.resume(returning: .failure(.cancelled)) }
                    multi.startStreaming(id: id, request: request, body: body, waiter: waiter)
                }
            }
        } onCancel: {
            cancelled.set()
            // Always queued, never run inline: the canceller may be anywhere.
            multi.loop.execute { multi.cancel(id: id) }
        }
        return try result.get()
    }

    /// `stream` over the client's own connections.
    @inline(__always)
    private func streamOwn(_ request: HTTPClientRequest, target: PlainHTTPTarget,
                           body: HTTPClientRequestBody?) async throws(HTTPClientError) -> HTTPClientStreamingResponse {
        let pool = pickPool()
        let id = nextID.add(1, ordering: .relaxed).oldValue
        guard request.followsTaskCancellation else {
            return try await withUnsafeContinuation { continuation in
                let waiter = UpstreamExchange.Waiter.task(continuation)
                if pool.loop.inLoop {
                    pool.start(id: id, target: target, request: request, body: body, waiter: waiter)
                } else {
                    pool.onLoop { $0.start(id: id, target: target, request: request, body: body, waiter: waiter) }
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
                if pool.loop.inLoop { start(pool) } else { pool.onLoop { start($0) } }
            }
        } onCancel: {
            cancelled.set()
            // Always queued, never run inline: the canceller may be anywhere.
            pool.loop.execute { pool.cancel(id: id) }
        }
        return try result.get()
    }

    /// Called with an upstream answer's head, or why there is none.
    /// Takes the result (`consuming`): the header buffer then has one
    /// owner, and filtering its fields in place copies nothing.
    public typealias HeadHandler = @Sendable (consuming Result<HTTPClientStreamingResponse, HTTPClientError>) -> Void

    /// Whether `startOnLoop` can take a request made on `base` from the
    /// calling thread: the client's own connections serve the base, and
    /// the thread is one of the client's loops.
    public func startsOnLoop(_ base: HTTPClientBase) -> Bool {
        configuration.ownPlainHTTP && base.plain != nil && ownPool() != nil
    }

    /// `stream` without a task, from a thread `startsOnLoop` accepted, for
    /// a request on such a base without a body: starts it, and calls
    /// `onHead` once on this loop, after returning (never inside this
    /// call), with the head or the failure. The task that `stream` would
    /// suspend, resume and switch executors for is not needed: the loop
    /// calls the handler as it runs any other queued work. A request the
    /// client's own connections cannot take fails as `.invalidRequest`.
    public func startOnLoop(_ request: HTTPClientRequest, onHead: @escaping HeadHandler) {
        guard let pool = ownPool() else { preconditionFailure("startOnLoop called off the client's loops") }
        let waiter = UpstreamExchange.Waiter.handler(pool.loop, onHead)
        guard configuration.ownPlainHTTP, !request.decodeContentEncoding, request.body == nil,
              let target = request.plainTarget else { return waiter.resume(returning: .failure(.invalidRequest)) }
        do {
            try RequestValidation.check(request)
        } catch {
            return waiter.resume(returning: .failure(error))
        }
        pool.start(id: nextID.add(1, ordering: .relaxed).oldValue, target: target, request: request, body: nil,
                   waiter: waiter)
    }

    /// Ends every running transfer with `.cancelled`, closes every pooled
    /// connection and frees libcurl's handles. Later calls fail with
    /// `.cancelled`. The loops must still be running.
    public func shutdown() async {
        for multi in multis {
            await multi.loop.submit { multi.shutdown() }
        }
        for pool in pools {
            await pool.loop.submit { pool.shutdown() }
        }
    }

    /// The calling thread's own loop's pool when it is one of ours, else the next.
    private func pickPool() -> UpstreamPool {
        ownPool() ?? pools[cursor.add(1, ordering: .relaxed).oldValue % pools.count]
    }

    /// The calling thread's own loop's pool, when it is one of ours.
    private func ownPool() -> UpstreamPool? {
        // Over the buffer, by index: a `for` over the array retained each
        // pool it passed, and indexing the array retained each it tried.
        pools.withUnsafeBufferPointer { pools in
            for index in pools.indices where pools[index].loop.inLoop { return pools[index] }
            return nil
        }
    }

    /// The calling thread's own loop when it is one of ours, else the next.
    private func pickMulti() -> CurlMulti {
        for multi in multis where multi.loop.inLoop { return multi }
        return multis[cursor.add(1, ordering: .relaxed).oldValue % multis.count]
    }
}

/// Set when the awaiting task is cancelled, so a start that runs after the
/// cancellation handler (which found nothing to cancel yet) sees it.
private final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
