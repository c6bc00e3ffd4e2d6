import Synchronization
import System

/// Upstream HTTP/1.1, driven by our own epoll event loops, over two engines
/// behind one `UpstreamTransport` protocol: libcurl's multi interface
/// (`CurlTransport`: one multi handle per loop, no extra threads, nothing
/// blocking) and, for streams to plain `http` URLs (the API proxy's usual
/// upstreams), the client's own HTTP/1.1 connections on the same loops
/// (`OwnConnectionTransport`), unless `HTTPClientConfiguration.ownPlainHTTP`
/// is off. The engines are made once, here; a request made from a task
/// running on one of the client's loops stays on that loop.
///
/// Redirects are never followed, proxies from the environment are ignored,
/// only `http` and `https` are spoken, and TLS certificates are verified
/// unless configured otherwise. Call `shutdown` before the loops stop.
public final class HTTPClient: Sendable {
    /// The settings every request starts from.
    public let configuration: HTTPClientConfiguration
    /// Counters for metrics.
    public let stats = HTTPClientStats()
    /// Every request `own` does not carry.
    private let curl: CurlTransport
    /// Plain-`http` streams; nil when configured off.
    private let own: OwnConnectionTransport?
    /// The numbers `base(_:)` gave endpoints.
    private let endpointSlots = Mutex<[String: Int]>([:])

    /// Creates the engines: one multi handle per loop and, unless
    /// configured off, one pool of own connections per loop. The loops may
    /// be running already.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
                loops: [EventLoop]) throws(HTTPClientError) {
        precondition(!loops.isEmpty, "an HTTP client needs at least one event loop")
        self.configuration = configuration
        curl = try CurlTransport(configuration: configuration, loops: loops, stats: stats)
        own = configuration.ownPlainHTTP
            ? OwnConnectionTransport(configuration: configuration, loops: loops, stats: stats) : nil
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
    /// (a 302 or a 429 is a response, not an error), over libcurl.
    /// Cancelling the calling task aborts the transfer and throws `.cancelled`.
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        try RequestValidation.check(request)
        return try await curl.execute(request)
    }

    /// Sends `request` with a body streamed from `body` (or `request.body`
    /// when nil) and returns as soon as the response head has arrived; the
    /// body follows as `HTTPClientStreamingResponse.body`. Both directions
    /// are flow-controlled, so memory stays bounded at any size. The
    /// request's `timeout` (or the configuration's) is an idle timeout here.
    public func stream(_ request: HTTPClientRequest,
                       body: HTTPClientRequestBody?) async throws(HTTPClientError) -> HTTPClientStreamingResponse {
        try RequestValidation.check(request)
        if let own, let target = own.target(for: request) {
            return try await own.stream(request, target: target, body: body)
        }
        return try await curl.stream(request, body: body)
    }

    /// Called with an upstream answer's head, or why there is none.
    /// Takes the result (`consuming`): the header buffer then has one
    /// owner, and filtering its fields in place copies nothing.
    public typealias HeadHandler = @Sendable (consuming Result<HTTPClientStreamingResponse, HTTPClientError>) -> Void

    /// Whether `startOnLoop` can take a request made on `base` from the
    /// calling thread: the client's own connections serve the base, and
    /// the thread is one of the client's loops.
    public func startsOnLoop(_ base: HTTPClientBase) -> Bool {
        guard let own, base.plain != nil else { return false }
        return own.isOnLoop
    }

    /// `stream` without a task, from a thread `startsOnLoop` accepted, for
    /// a request on such a base without a body: starts it, and calls
    /// `onHead` once on this loop, after returning (never inside this
    /// call), with the head or the failure. The task that `stream` would
    /// suspend, resume and switch executors for is not needed: the loop
    /// calls the handler as it runs any other queued work. A request the
    /// client's own connections cannot take fails as `.invalidRequest`.
    public func startOnLoop(_ request: HTTPClientRequest, onHead: @escaping HeadHandler) {
        guard let own else { preconditionFailure("startOnLoop called without own connections") }
        own.startOnLoop(request, onHead: onHead)
    }

    /// Ends every running transfer with `.cancelled`, closes every pooled
    /// connection and frees libcurl's handles. Later calls fail with
    /// `.cancelled`. The loops must still be running.
    public func shutdown() async {
        await curl.shutdown()
        await own?.shutdown()
    }
}
