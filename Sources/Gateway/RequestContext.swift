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
    /// The matched route's pattern (`/bff/passkeys/{id}`), for logs and
    /// metrics: never the raw path, which may carry identifiers.
    public var routePattern: String
    public var parameters: [String: String]
    /// The matched route's options (body limit, …).
    public var routeOptions: RouteOptions
    /// The endpoint the router chose; the innermost stage calls it.
    var endpoint: RouteEndpoint

    /// Every field at once: a context built field by field after its
    /// initialiser is copied once more on the way.
    init(id: RequestID, logger: Logger, peer: SocketAddress?, routePattern: String, parameters: [String: String],
         routeOptions: RouteOptions, endpoint: RouteEndpoint) {
        self.id = id
        baseLogger = logger
        self.peer = peer
        self.routePattern = routePattern
        self.parameters = parameters
        self.routeOptions = routeOptions
        self.endpoint = endpoint
    }

    init(requestID: String, logger: Logger, peer: SocketAddress?, routePattern: String, parameters: [String: String],
         routeOptions: RouteOptions, endpoint: RouteEndpoint) {
        self.init(id: RequestID(requestID), logger: logger, peer: peer, routePattern: routePattern, parameters: parameters,
                  routeOptions: routeOptions, endpoint: endpoint)
    }

    /// The endpoint of a request no route serves.
    static let notFound = RouteEndpoint.immediate { _, _ in throw GatewayError.notFound }
}

/// A stage of request handling, like Hummingbird's: look at the request,
/// call `next` (or not), look at the response. `handleImmediately` is the
/// same stage around an endpoint that answers without suspending; it has
/// no default, since one that skipped the stage's work would silently drop
/// it (a CSRF check, say) for such routes.
public protocol Middleware: Sendable {
    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse
    /// The same stage around an immediate endpoint, without suspending:
    /// `next.immediately` continues the chain.
    func handleImmediately(_ request: HTTPRequest, context: RequestContext, next: Next) throws -> HTTPResponse
}

/// An endpoint: answers a request the router matched.
public typealias Responder = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// An endpoint that answers without suspending (no Redis, no upstream, no
/// request body), such as `/healthz`: the server calls it on the loop
/// thread as the request arrives, with no task (`Application.respondImmediately`).
public typealias ImmediateResponder = @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse

/// What a route runs.
public enum RouteEndpoint: Sendable {
    case suspending(Responder)
    case immediate(ImmediateResponder)
}

/// What a middleware calls to continue down the chain: the next middleware,
/// or after the last one the route's endpoint (`context.endpoint`), once
/// the request's declared body length is within the route's limit.
///
/// A value, not a closure per middleware: a closure is one more async frame
/// per stage, and every async frame costs an executor switch (a lookup of
/// the task's executor preference under a lock) each time it resumes. This
/// call is inlined into the middleware that makes it.
public struct Next: Sendable {
    private let middlewares: [any Middleware]
    private let index: Int

    /// The whole chain: `middlewares` around the endpoint, the first outermost.
    init(_ middlewares: [any Middleware]) {
        self.init(middlewares, index: 0)
    }

    private init(_ middlewares: [any Middleware], index: Int) {
        self.middlewares = middlewares
        self.index = index
    }

    @inline(__always)
    public func callAsFunction(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard index < middlewares.count else {
            try Self.checkBodyLimit(request, context)
            switch context.endpoint {
            case .suspending(let responder): return try await responder(request, context)
            case .immediate(let responder): return try responder(request, context)
            }
        }
        return try await middlewares[index].handle(request, context: context, next: Next(middlewares, index: index + 1))
    }

    /// The chain around an immediate endpoint, without suspending.
    @inline(__always)
    public func immediately(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        guard index < middlewares.count else {
            try Self.checkBodyLimit(request, context)
            // `Application` takes this path only for an immediate endpoint.
            guard case .immediate(let responder) = context.endpoint else { throw GatewayError.internalError }
            return try responder(request, context)
        }
        return try middlewares[index].handleImmediately(request, context: context, next: Next(middlewares, index: index + 1))
    }

    private static func checkBodyLimit(_ request: HTTPRequest, _ context: RequestContext) throws(GatewayError) {
        if let length = request.body.declaredLength, length > context.routeOptions.maxBodyBytes {
            throw GatewayError.payloadTooLarge
        }
    }
}
