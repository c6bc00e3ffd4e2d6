import HTTP
import Observability

/// One listener's request pipeline: match the route, then run the
/// middleware chain around the endpoint.
public struct Application: Sendable {
    private let router: Router
    private let pipeline: Pipeline
    private let logger: Logger
    private let requestIDs: RequestIDGenerator

    public init(router: Router, middlewares: [any Middleware], logger: Logger, requestIDs: RequestIDGenerator = RequestIDGenerator()) {
        self.router = router
        self.logger = logger
        self.requestIDs = requestIDs
        pipeline = Pipeline(middlewares)
    }

    /// A request no route serves does nothing, so it reads no body and
    /// needs no CSRF check: it gets its 404 or 405 as such.
    static let unmatched = RouteOptions(maxBodyBytes: .max, csrf: false)
    static let unmatchedLabel = RouteLabel("unmatched")
    static let notFoundRoute = unmatchedRoute(RequestContext.notFound)

    /// What a context names as its route when no route matched.
    static func unmatchedRoute(_ endpoint: RouteEndpoint) -> Router.Route {
        Router.Route(methods: [], pattern: "unmatched", label: unmatchedLabel, segments: [], prefix: false,
                     options: unmatched, endpoint: endpoint, order: 0)
    }

    /// Every route registered, for checks against the OpenAPI document.
    public var routes: [(method: HTTPMethod, pattern: String)] { router.registered }

    /// Answers one request; never throws. The endpoint is the one call
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
                switch context.endpoint {
                case .suspending(let responder), .starting(_, otherwise: let responder):
                    outcome = .success(try await responder(request, context))
                case .immediate(let responder): outcome = .success(try responder(request, context))
                }
            } catch {
                outcome = .failure(error)
            }
        }
        return Self.finish(pipeline, request, context, prepared: prepared, outcome: consume outcome)
    }

    /// Answers on the loop thread, without a task: now when the route's
    /// endpoint is immediate, later (from a callback on the loop) when it
    /// is starting and can start; declined otherwise (the request then
    /// goes to `respond`). The same stages run around the endpoint.
    public func respondImmediately(_ request: HTTPRequest, _ later: HTTPLaterAnswer) -> HTTPImmediateAnswer {
        let match = router.match(request.method, path: request.path)
        var start: AnswerStart?
        guard case .found(let route, _) = match else { return .declined }
        switch route.endpoint {
        case .immediate:
            break
        case .starting(let responder, _):
            guard let begun = responder(request) else { return .declined }
            start = begun
        case .suspending:
            return .declined
        }
        let context = context(for: request, match)
        let (prepared, refusal) = pipeline.prepare(request, context)
        var outcome: Result<HTTPResponse, any Error>
        if let refusal {
            outcome = .failure(refusal)
        } else if let start {
            // The pipeline alone is kept, not the application: each of its
            // fields would be retained.
            let pipeline = pipeline
            start(context) { (result: consuming Result<HTTPResponse, any Error>) in
                let outcome = consume result
                later.send(Self.finish(pipeline, request, context, prepared: prepared, outcome: consume outcome))
            }
            return .later
        } else if case .immediate(let responder) = context.endpoint {
            outcome = Result { try responder(request, context) }
        } else {
            outcome = .failure(GatewayError.internalError)
        }
        return .now(Self.finish(pipeline, request, context, prepared: prepared, outcome: consume outcome))
    }

    /// The stages' `finish`, then the request id; an error no stage
    /// rendered becomes a bare 500.
    private static func finish(_ pipeline: Pipeline, _ request: HTTPRequest, _ context: RequestContext, prepared: Int,
                               outcome: consuming Result<HTTPResponse, any Error>) -> HTTPResponse {
        pipeline.finish(request, context, prepared: prepared, outcome: &outcome)
        // Moved out, so the header buffer has one owner for the request id.
        var response: HTTPResponse
        switch consume outcome {
        case .success(let answer): response = answer
        case .failure: response = GatewayError.internalError.response
        }
        Self.identify(&response, context)
        return response
    }

    /// What a server asks first about each request without a body: nil
    /// when no route is immediate or starting, so such a listener is not
    /// asked at all.
    public var immediateResponder: HTTPImmediateResponder? {
        router.hasImmediateRoutes ? respondImmediately : nil
    }

    private func context(for request: HTTPRequest, _ match: consuming Router.Match) -> RequestContext {
        let id = requestIDs.nextID()
        switch consume match {
        case .found(let route, let parameters):
            return RequestContext(id: id, logger: logger, peer: request.peer, route: route, parameters: parameters)
        case .methodNotAllowed(let allowed):
            return RequestContext(id: id, logger: logger, peer: request.peer, route: Self.unmatchedRoute(
                .immediate { _, _ in throw GatewayError.methodNotAllowed(allowed) }), parameters: [:])
        case .notFound:
            return RequestContext(id: id, logger: logger, peer: request.peer, route: Self.notFoundRoute, parameters: [:])
        }
    }

    /// Adds the request id, in place: passed on as a value, the response's
    /// header buffer was shared for a moment and the field's append copied
    /// all of it. From the id's bytes, marked checked when clean: a token
    /// name, and hex digits and a dash (a test's text is checked).
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
