import Core
import HTTP
import Observability
import System

/// One listener's request pipeline: match the route, then run the
/// middleware chain around the route's responder. `respond` answers in a
/// task; `respondImmediately` (Application+FastPath.swift) answers on the
/// loop thread when the responder's fast path can.
public struct Application: Sendable {
    let router: Router
    let pipeline: Pipeline
    private let logger: Logger
    let requestIDs: RequestIDGenerator
    private let tracePeers: (@Sendable (SocketAddress?) -> Bool)?

    /// An application serving `router`'s routes through `middlewares`
    /// (the first outermost), logging with `logger`. A request whose peer
    /// `tracePeers` trusts continues the trace its `traceparent` names;
    /// every other request starts one (`trace(of:id:)`).
    public init(router: Router, middlewares: [any Middleware], logger: Logger, requestIDs: RequestIDGenerator = RequestIDGenerator(),
                tracePeers: (@Sendable (SocketAddress?) -> Bool)? = nil) {
        self.router = router
        self.logger = logger
        self.requestIDs = requestIDs
        self.tracePeers = tracePeers
        pipeline = Pipeline(middlewares)
    }

    /// A request no route serves does nothing, so it reads no body and
    /// needs no CSRF check: it gets its 404 or 405 as such.
    static let unmatched = RouteOptions(maxBodyBytes: .max, csrf: false)
    static let unmatchedLabel = RouteLabel("unmatched")
    static let notFoundRoute = unmatchedRoute(RequestContext.notFound)

    /// What a context names as its route when no route matched.
    static func unmatchedRoute(_ responder: any Responder) -> Route {
        Route(unregistered: "unmatched", label: unmatchedLabel, options: unmatched, responder: responder)
    }

    /// Every route registered, for checks against the OpenAPI document.
    public var routes: [(method: HTTPMethod, pattern: String)] { router.registered }

    /// Answers one request; never throws. The responder is the one call
    /// awaited here (see `Middleware`).
    @inline(__always)
    public func respond(_ request: HTTPRequest) async -> HTTPResponse {
        let context = context(for: request, router.match(request.method, path: request.path))
        let (prepared, refusal) = pipeline.prepare(request, context)
        var outcome: Result<HTTPResponse, any Error>
        if let refusal {
            outcome = .failure(refusal)
        } else {
            do {
                let responder = context.route.responder
                outcome = .success(try await TraceContext.$current.withValue(context.trace) {
                    try await responder.respond(to: request, context: context)
                })
            } catch {
                outcome = .failure(error)
            }
        }
        return Self.finish(pipeline, request, context, prepared: prepared, outcome: consume outcome)
    }

    /// The stages' `finish`, then the request id; an error no stage
    /// rendered becomes a bare 500.
    static func finish(_ pipeline: Pipeline, _ request: HTTPRequest, _ context: RequestContext, prepared: Int,
                       outcome: consuming Result<HTTPResponse, any Error>) -> HTTPResponse {
        pipeline.finish(request, context, prepared: prepared, outcome: &outcome)
        // Moved out, so the header buffer has one owner for the request id.
        var response: HTTPResponse
        switch consume outcome {
        case .success(let answer): response = answer
        case .failure: response = HTTPError.internalError.response
        }
        Self.identify(&response, context)
        return response
    }

    func context(for request: HTTPRequest, _ match: consuming Router.Match) -> RequestContext {
        let id = requestIDs.nextID()
        let trace = trace(of: request, id: id)
        switch consume match {
        case .found(let route, let parameters):
            return context(for: request, id: id, trace: trace, route: route, parameters: parameters)
        case .methodNotAllowed(let allowed):
            return context(for: request, id: id, trace: trace, route: Self.unmatchedRoute(
                ImmediateResponder { _, _ in throw HTTPError.methodNotAllowed(allowed) }), parameters: [:])
        case .notFound:
            return context(for: request, id: id, trace: trace, route: Self.notFoundRoute, parameters: [:])
        }
    }

    func context(for request: HTTPRequest, id: RequestID, trace: TraceContext, route: Route,
                 parameters: [String: String]) -> RequestContext {
        RequestContext(id: id, trace: trace, logger: logger, peer: request.peer, route: route, parameters: parameters)
    }

    /// The request's trace: the `traceparent` a trusted peer sent, when
    /// there is exactly one field and it is valid (`TraceContext.init(traceparent:)`);
    /// else the trace the request id starts. A peer nobody trusts costs
    /// nothing here; a trusted one a scan of the field names.
    func trace(of request: HTTPRequest, id: RequestID) -> TraceContext {
        guard let tracePeers else { return id.startedTrace }
        let headers = request.headers
        var found: Int?
        for index in 0..<headers.count where headers.nameEquals(at: index, lowercase: "traceparent") {
            guard found == nil else { return id.startedTrace }
            found = index
        }
        guard let found, tracePeers(request.peer),
              let trace = headers.withField(at: found, { _, value in TraceContext(traceparent: value) }) else {
            return id.startedTrace
        }
        return trace
    }

    /// Adds the request id, in place: passed on as a value, the response's
    /// header buffer would be shared for a moment and the field's append
    /// would copy all of it. From the id's bytes, marked checked when
    /// clean: a token name, and hex digits and a dash (a test's text is
    /// checked).
    private static func identify(_ response: inout HTTPResponse, _ context: RequestContext) {
        let name: StaticString = "X-Request-Id"
        context.id.withBytes { value, clean in
            let field = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            if clean {
                response.headers.add(checkedName: field, value: value)
            } else {
                response.headers.add(name: field, value: value)
            }
        }
    }
}
