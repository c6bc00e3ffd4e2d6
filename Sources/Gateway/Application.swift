import HTTP
import Observability

/// One listener's request pipeline: match the route, then run the
/// middleware chain around the endpoint.
public struct Application: Sendable {
    private let router: Router
    private let pipeline: Next
    private let logger: Logger
    private let requestIDs: RequestIDGenerator

    public init(router: Router, middlewares: [any Middleware], logger: Logger, requestIDs: RequestIDGenerator = RequestIDGenerator()) {
        self.router = router
        self.logger = logger
        self.requestIDs = requestIDs
        pipeline = Next(middlewares)
    }

    /// A request no route serves does nothing, so it reads no body and
    /// needs no CSRF check: it gets its 404 or 405 as such.
    static let unmatched = RouteOptions(maxBodyBytes: .max, csrf: false)

    /// Every route registered, for checks against the OpenAPI document.
    public var routes: [(method: HTTPMethod, pattern: String)] { router.registered }

    /// Answers one request; never throws.
    public func respond(_ request: HTTPRequest) async -> HTTPResponse {
        var context = RequestContext(requestID: requestIDs.next(), logger: logger, peer: request.peer)
        switch router.match(request.method, path: request.path) {
        case .found(let pattern, let parameters, let options, let responder):
            context.routePattern = pattern
            context.parameters = parameters
            context.routeOptions = options
            context.endpoint = responder
        case .methodNotAllowed(let allowed):
            context.routeOptions = Self.unmatched
            context.endpoint = { _, _ in throw GatewayError.methodNotAllowed(allowed) }
        case .notFound:
            context.routeOptions = Self.unmatched
        }
        var response: HTTPResponse
        do {
            response = try await pipeline(request, context)
        } catch {
            response = GatewayError.internalError.response
        }
        response.headers.add("X-Request-Id", context.requestID)
        return response
    }
}
