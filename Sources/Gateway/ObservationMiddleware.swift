import HTTP
import Observability
import System

/// The outermost stage: counts and times every request by route pattern
/// and status, tracks requests in flight, and writes one access line.
/// The line carries the route pattern, never the raw path or query, and
/// no header values, so no token, code or cookie can reach it.
public struct ObservationMiddleware: Middleware {
    let requests: Counter
    let duration: Histogram
    let inFlight: Gauge
    let accessLog: Bool

    public init(metrics: MetricsRegistry, accessLog: Bool) {
        requests = metrics.counter("bff_http_requests_total", help: "Requests answered, by route pattern, method and status.",
                                   labels: ["route", "method", "status"])
        duration = metrics.histogram("bff_http_request_duration_seconds", help: "Time to produce a response head, by route pattern.",
                                     labels: ["route"])
        inFlight = metrics.gauge("bff_http_requests_in_flight", help: "Requests being handled now.")
        self.accessLog = accessLog
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let start = MonotonicClock.now()
        inFlight.increment()
        defer { inFlight.decrement() }
        let response = try await next(request, context)
        let seconds = Double(MonotonicClock.now() &- start) / 1e9
        let status = response.status.code
        requests.increment([context.routePattern, Self.methodLabel(request.method), String(status)])
        duration.observe([context.routePattern], seconds)
        if accessLog {
            context.logger.info("http.access", [
                "method": .string(Self.methodLabel(request.method)),
                "route": .string(context.routePattern),
                "status": .int(status),
                "durationMs": .double((seconds * 1e6).rounded() / 1e3),
                "bytes": .int(Self.bodyLength(response.body)),
            ])
        }
        return response
    }

    /// Known methods by name; anything else as `other`, so a client cannot
    /// grow the label set.
    static func methodLabel(_ method: HTTPMethod) -> String {
        switch method {
        case .get, .head, .post, .put, .patch, .delete, .options: method.rawValue
        default: "other"
        }
    }

    static func bodyLength(_ body: HTTPResponseBody) -> Int {
        switch body {
        case .empty: 0
        case .bytes(let bytes): bytes.count
        case .stream(let length, _): length ?? -1
        }
    }
}
