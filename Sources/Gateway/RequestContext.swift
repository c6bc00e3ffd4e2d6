import HTTP
import Observability
import System

/// What every layer of the gateway knows about the request it is serving:
/// its id, a logger that carries the id, where it came from, and (once the
/// router has matched) the route pattern and path parameters.
public struct RequestContext: Sendable {
    public let requestID: String
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
    public var routeOptions = RouteOptions()
    /// The endpoint the router chose; the innermost stage calls it.
    var endpoint: Responder = { _, _ in throw GatewayError.notFound }

    public init(requestID: String, logger: Logger, peer: SocketAddress?) {
        self.requestID = requestID
        baseLogger = logger
        self.peer = peer
        routePattern = "unmatched"
        parameters = [:]
    }
}

/// A stage of request handling. One requirement, like Hummingbird's:
/// look at the request, call `next` (or not), look at the response.
public protocol Middleware: Sendable {
    func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse
}

/// What a middleware calls to continue down the chain.
public typealias Responder = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

extension Array where Element == any Middleware {
    /// Wraps `endpoint` in these middlewares, the first one outermost.
    public func wrapping(_ endpoint: @escaping Responder) -> Responder {
        reversed().reduce(endpoint) { next, middleware in
            { request, context in try await middleware.handle(request, context: context, next: next) }
        }
    }
}
