import HTTP
import Observability
import Routing
import System

/// The outermost stage: counts and times every request by route pattern
/// and status, tracks requests in flight, and writes one access line.
/// The line carries the route pattern, never the raw path or query, and
/// no header values, so no token, code or cookie can reach it.
public struct ObservationMiddleware: Middleware {
    let observations: RequestObservations
    let inFlight: Gauge
    let accessLog: Bool

    public init(metrics: MetricsRegistry, accessLog: Bool) {
        observations = metrics.requestObservations(
            count: "bff_http_requests_total", countHelp: "Requests answered, by route pattern, method and status.",
            duration: "bff_http_request_duration_seconds", durationHelp: "Time to produce a response head, by route pattern.")
        inFlight = metrics.gauge("bff_http_requests_in_flight", help: "Requests being handled now.")
        self.accessLog = accessLog
    }

    public func prepare(_ request: HTTPRequest, context: RequestContext) throws {
        inFlight.increment()
    }

    /// Counts a response (an error no inner stage rendered is counted by
    /// no one: `Application` answers it with a bare 500).
    public func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {
        inFlight.decrement()
        if case .success(let response) = outcome { observe(request, context, response) }
    }

    private func observe(_ request: HTTPRequest, _ context: RequestContext, _ response: HTTPResponse) {
        let seconds = Double(MonotonicClock.now() &- context.received) / 1e9
        let status = response.status.code
        observations.record(route: context.routeLabel, method: Self.methodIndex(request.method), status: status,
                            seconds: seconds)
        if accessLog {
            context.logger.info("http.access", [
                "method": .string(Self.methodLabel(request.method)),
                "route": .string(context.routePattern),
                "status": .int(status),
                "durationMs": .double((seconds * 1e6).rounded() / 1e3),
                "bytes": .int(Self.bodyLength(response.body)),
            ])
        }
    }

    /// Known methods by name; anything else as `other`, so a client cannot
    /// grow the label set.
    static func methodLabel(_ method: HTTPMethod) -> String {
        RequestObservations.methods[methodIndex(method)]
    }

    /// The method's index in `RequestObservations.methods`.
    static func methodIndex(_ method: HTTPMethod) -> Int {
        switch method {
        case .get: 0
        case .head: 1
        case .post: 2
        case .put: 3
        case .patch: 4
        case .delete: 5
        case .options: 6
        default: 7
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
