import HTTP
import Observability
import System

/// What every layer of the gateway knows about the request it is serving:
/// its id, a logger that carries the id, where it came from, and (once the
/// router has matched) the route pattern and path parameters.
public struct RequestContext: Sendable {
    public let id: RequestID
    /// `id`, written out.
    public var requestID: String { id.description }
    private let baseLogger: Logger
    /// A logger whose lines carry the request id. Made when used, so a
    /// request that logs nothing pays nothing for it.
    public var logger: Logger { baseLogger.with("requestId", .string(requestID)) }
    public let peer: SocketAddress?
    /// The route the router chose: one reference for its pattern, label,
    /// options and endpoint (a context is copied into the callbacks of an
    /// answer started without a task, and each field was retained).
    let route: Router.Route
    /// The matched route's pattern (`/bff/passkeys/{id}`), for logs and
    /// metrics: never the raw path, which may carry identifiers.
    public var routePattern: String { route.pattern }
    /// The pattern as the label metrics are kept by.
    public var routeLabel: RouteLabel { route.label }
    public let parameters: [String: String]
    /// The matched route's options (body limit, …).
    public var routeOptions: RouteOptions { route.options }
    /// The endpoint the router chose; `Application` calls it after the stages' `prepare`.
    var endpoint: RouteEndpoint { route.endpoint }
    /// When the application took the request up (`MonotonicClock`, ns).
    public let received: UInt64

    /// Every field at once: a context built field by field after its
    /// initialiser is copied once more on the way.
    init(id: RequestID, logger: Logger, peer: SocketAddress?, route: Router.Route, parameters: [String: String],
         received: UInt64 = MonotonicClock.now()) {
        self.id = id
        baseLogger = logger
        self.peer = peer
        self.route = route
        self.parameters = parameters
        self.received = received
    }

    init(requestID: String, logger: Logger, peer: SocketAddress?, routePattern: String, parameters: [String: String],
         routeOptions: RouteOptions, endpoint: RouteEndpoint) {
        self.init(id: RequestID(requestID), logger: logger, peer: peer,
                  route: Router.Route(methods: [], pattern: routePattern, segments: [], prefix: false,
                                      options: routeOptions, endpoint: endpoint, order: 0),
                  parameters: parameters)
    }

    /// The endpoint of a request no route serves.
    static let notFound = RouteEndpoint.immediate { _, _ in throw GatewayError.notFound }
}

/// A stage around every endpoint: `prepare` looks at the request before
/// the endpoint runs and may refuse it by throwing; `finish` looks at the
/// outcome afterwards and may replace it. `Application` runs the stages'
/// `prepare` outermost first, then the endpoint, then `finish` innermost
/// first; a stage whose `prepare` threw skips the stages inside it and the
/// endpoint, and only the stages whose `prepare` returned get a `finish`,
/// with the error as their outcome.
///
/// Synchronous hooks rather than a `next` each stage awaits: every async
/// frame costs an executor switch (a lookup of the task's executor
/// preference under a lock) when the call it awaits returns, and a chain
/// of three stages cost a proxied request three of them. With hooks the
/// endpoint is the one call `Application` awaits, and an endpoint that
/// answers without suspending (`/healthz`) runs through the same stages
/// on the loop thread, with no second path for each stage to keep in step.
public protocol Middleware: Sendable {
    func prepare(_ request: HTTPRequest, context: RequestContext) throws
    func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>)
}

extension Middleware {
    public func prepare(_ request: HTTPRequest, context: RequestContext) throws {}
    public func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {}
}

/// An endpoint: answers a request the router matched.
public typealias Responder = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// An endpoint that answers without suspending (no Redis, no upstream, no
/// request body), such as `/healthz`: the server calls it on the loop
/// thread as the request arrives, with no task (`Application.respondImmediately`).
public typealias ImmediateResponder = @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse

/// An endpoint that answers most of its requests without a task (the
/// API proxy with a session in memory): asked on the loop thread as a
/// request without a body arrives, before the stages' `prepare`, it only
/// looks, and returns how to start the answer, or nil when it cannot
/// start one so (the request then goes to a worker and the route's
/// suspending responder, which serves every case). See `AnswerStart`.
public typealias StartingResponder = @Sendable (HTTPRequest) -> AnswerStart?

/// Starts an answer after the stages' `prepare` (an upstream exchange),
/// and calls the handler it is given with the outcome once, after
/// returning (never inside the call): on the same loop thread, or from a
/// task when the answer needed one (a small body still to collect).
public typealias AnswerStart = @Sendable (RequestContext, @escaping AnswerHandler) -> Void

/// Takes the outcome of a started answer (see `AnswerStart`), consuming
/// it: the response's header buffer then has one owner, and the request
/// id is added to it in place.
public typealias AnswerHandler = @Sendable (consuming Result<HTTPResponse, any Error>) -> Void

/// What a route runs.
public enum RouteEndpoint: Sendable {
    case suspending(Responder)
    case immediate(ImmediateResponder)
    /// `start` when it can, else `otherwise` in a worker.
    case starting(StartingResponder, otherwise: Responder)
}

/// The stages around every endpoint, the first outermost (see `Middleware`).
struct Pipeline: Sendable {
    private let stages: [any Middleware]

    init(_ stages: [any Middleware]) {
        self.stages = stages
    }

    /// Runs every stage's `prepare` and checks the declared body length
    /// against the route's limit: how many stages prepared, and the error
    /// that stopped the request before its endpoint, if one did.
    @inline(__always)
    func prepare(_ request: HTTPRequest, _ context: RequestContext) -> (prepared: Int, refusal: (any Error)?) {
        for index in stages.indices {
            do {
                try stages[index].prepare(request, context: context)
            } catch {
                return (index, error)
            }
        }
        if let length = request.body.declaredLength, length > context.routeOptions.maxBodyBytes {
            return (stages.count, GatewayError.payloadTooLarge)
        }
        return (stages.count, nil)
    }

    /// Runs `finish` of the first `prepared` stages, innermost first.
    @inline(__always)
    func finish(_ request: HTTPRequest, _ context: RequestContext, prepared: Int,
                outcome: inout Result<HTTPResponse, any Error>) {
        var index = prepared
        while index > 0 {
            index -= 1
            stages[index].finish(request, context: context, outcome: &outcome)
        }
    }
}
