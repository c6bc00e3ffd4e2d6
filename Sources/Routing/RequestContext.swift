import Core
import HTTP
import Observability
import System

/// What every layer knows about the request it is serving: its id, its
/// trace, a logger that carries both, where it came from, and (once the
/// router has matched) the route pattern and path parameters.
public struct RequestContext: Sendable {
    /// The request's id (`X-Request-Id`).
    public let id: RequestID
    /// `id`, written out.
    public var requestID: String { id.description }
    /// The request's trace: a trusted proxy's `traceparent`, or one the
    /// request starts (`Application` decides which).
    public let trace: TraceContext
    private let baseLogger: Logger
    /// A logger whose lines carry the request id and the trace id. Made
    /// when used, so a request that logs nothing pays nothing for it.
    public var logger: Logger {
        baseLogger.with("requestId", .string(requestID)).with("traceId", .string(trace.traceID))
    }
    /// The client's socket address, when the request came over one.
    public let peer: SocketAddress?
    /// The route the router chose: one reference for its pattern, label,
    /// options and responder (a context is copied into the callbacks of
    /// an answer started without a task, and each field would be retained).
    let route: Route
    /// The matched route's pattern (`/bff/passkeys/{id}`), for logs and
    /// metrics: never the raw path, which may carry identifiers.
    public var routePattern: String { route.pattern }
    /// The pattern as the label metrics are kept by.
    public var routeLabel: RouteLabel { route.label }
    /// The path's parameters by name (`id` for `/bff/passkeys/{id}`).
    public let parameters: [String: String]
    /// The matched route's options (body limit, …).
    public var routeOptions: RouteOptions { route.options }
    /// When the application took the request up (`MonotonicClock`, ns).
    public let received: UInt64

    /// Every field at once: a context built field by field after its
    /// initialiser is copied once more on the way.
    init(id: RequestID, trace: TraceContext? = nil, logger: Logger, peer: SocketAddress?, route: Route,
         parameters: [String: String], received: UInt64 = MonotonicClock.now()) {
        self.id = id
        self.trace = trace ?? id.startedTrace
        baseLogger = logger
        self.peer = peer
        self.route = route
        self.parameters = parameters
        self.received = received
    }

    /// A context for a request no router matched (a component's tests).
    package init(requestID: String, logger: Logger, peer: SocketAddress?, routePattern: String, parameters: [String: String],
                 routeOptions: RouteOptions, endpoint: any Responder, trace: TraceContext? = nil) {
        self.init(id: RequestID(requestID), trace: trace, logger: logger, peer: peer,
                  route: Route(unregistered: routePattern, options: routeOptions, responder: endpoint),
                  parameters: parameters)
    }

    /// The responder of a request no route serves: a 404.
    package static let notFound: any Responder = ImmediateResponder { _, _ in throw HTTPError.notFound }
}
