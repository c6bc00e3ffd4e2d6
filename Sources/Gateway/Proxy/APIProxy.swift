import Configuration
import Core
import HTTP
import HTTPClient
import Routing
import Sessions
import Synchronization

/// The API proxy (Docs/proxy.md): each configured route maps a
/// path prefix onto an upstream base URL and attaches the token its mode
/// names. Bodies stream both ways under back-pressure, so memory stays
/// bounded at any size; the upstream's answer is relayed unchanged except
/// for hop-by-hop headers and the gateway's own cookies. Each route is a
/// `ProxyRoute`, the router's responder. A class: every route keeps it.
final class APIProxy: Sendable {
    let upstreams: HTTPClient
    let sessions: SessionManager
    let refresher: RefreshCoordinator?
    let clientTokens: ClientTokenCache?
    let addresses: ClientAddressResolver
    let publicOrigin: WebOrigin
    let timeout: Duration
    /// The body limit of a route without its own `maxBodyBytes`.
    let defaultMaxBodyBytes: Int
    /// `X-Forwarded-Host`: the public origin's authority, written once,
    /// and whether it is a clean field value (checked once).
    let forwardedHost: String
    let forwardedHostIsClean: Bool

    init(upstreams: HTTPClient, sessions: SessionManager, refresher: RefreshCoordinator?, clientTokens: ClientTokenCache?,
         addresses: ClientAddressResolver, publicOrigin: WebOrigin, timeout: Duration, defaultMaxBodyBytes: Int)
    {
        self.upstreams = upstreams
        self.sessions = sessions
        self.refresher = refresher
        self.clientTokens = clientTokens
        self.addresses = addresses
        self.publicOrigin = publicOrigin
        self.timeout = timeout
        self.defaultMaxBodyBytes = defaultMaxBodyBytes
        forwardedHost = publicOrigin.url.authority
        forwardedHostIsClean = forwardedHost.withContiguousUTF8 { FieldGrammar.isFieldValue(UnsafeRawBufferPointer($0)) }
    }

    /// The largest body `route` takes: its own `maxBodyBytes`, else the
    /// proxy's default. A declared length over it is refused before
    /// anything goes upstream; a chunked body is cut where it passes it.
    func bodyLimit(_ route: RouteConfig) -> Int {
        route.maxBodyBytes ?? defaultMaxBodyBytes
    }

    /// The methods a route without a `methods` list accepts (HEAD comes with GET).
    static let defaultMethods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .options]

    func register(_ routes: [RouteConfig], in router: inout RouterBuilder) {
        for route in routes {
            let methods = route.methods.map { $0.map { HTTPMethod($0) } } ?? Self.defaultMethods
            let options = RouteOptions(maxBodyBytes: bodyLimit(route), csrf: true)
            let responder = ProxyRoute(proxy: self, config: route, base: upstreams.base(route.upstream.description),
                                       nested: Self.nestedPrefixes(below: route, in: routes),
                                       rules: AnswerRules(route: route, publicOrigin: publicOrigin))
            // One route for all its methods; the router answers HEAD with GET.
            let answered = methods.filter { $0 != .head || !methods.contains(.get) }
            router.add(answered, route.prefix + "*", options: options, responder: responder)
        }
    }

    /// Sends `request` to `route`'s upstream as `plan` says, in a worker:
    /// the token its mode names, the body streamed under the route's limit.
    @inline(__always)
    func forward(_ request: HTTPRequest, _ plan: ProxyPlan, route: ProxyRoute, context: RequestContext) async throws
        -> HTTPResponse
    {
        var extraCookies: [String] = []
        let token = try await token(for: route.config, request, client: plan.client, context: context,
                                    expiredCookies: &extraCookies)

        let limit = bodyLimit(route.config)
        let upload: UploadProgress? = request.body.declaredLength == 0 ? nil : UploadProgress()
        let body: HTTPClientRequestBody? = upload.map { upload in
            HTTPClientRequestBody(length: request.body.declaredLength) {
                do {
                    guard let piece = try await request.body.next() else { return nil }
                    guard upload.add(piece.count, limit: limit) else { throw HTTPBodyError.tooLarge }
                    return piece
                } catch let error as HTTPBodyError {
                    upload.fail(error)
                    throw error
                }
            }
        }
        var upstreamRequest = upstreamRequest(request, plan, base: route.base, token: token, trace: context.trace)
        // Request workers are never cancelled (a browser that goes away
        // fails the response's writes instead); the timeout bounds the wait.
        upstreamRequest.followsTaskCancellation = false
        let response: HTTPClientStreamingResponse
        do {
            response = try await upstreams.stream(upstreamRequest, body: body)
        } catch {
            // The browser's body failing (too large, stalled, cut short) is
            // the browser's problem, answered as such (413, 408, 400).
            if let bodyError = upload?.failure { throw bodyError }
            throw Self.failure(error, context: context)
        }
        return try await relay(consume response, head: request.method == .head, rules: route.rules, extraCookies: extraCookies,
                               context: context)
    }

    // MARK: Tokens

    private func token(for route: RouteConfig, _ request: HTTPRequest, client: IPAddress, context: RequestContext,
                       expiredCookies: inout [String]) async throws -> Secret? {
        switch route.token {
        case .none:
            return nil
        case .client:
            guard let clientTokens else { throw GatewayError.internalError }
            return try await clientTokens.token(resource: route.resource, context: context)
        case .user, .userOrAnonymous:
            let anonymousAllowed = route.token == .userOrAnonymous
            guard var session = try await sessions.live(request, context), let refresher else {
                if anonymousAllowed {
                    // Several session cookies name none; the answer expires the one it can.
                    if let header = SignInContext.cookieHeader(request), sessions.namesSeveralSessionCookies(header) {
                        expiredCookies.append(sessions.expiringCookie())
                    }
                    return nil
                }
                throw sessions.unauthenticated(request)
            }
            // A token that needs no refresh is read without entering the
            // refresh path's async frames (most requests).
            if let token = refresher.usableToken(session, audience: route.resource) { return token }
            do {
                return try await refresher.accessToken(for: &session, audience: route.resource, client: client, context: context)
            } catch let error as GatewayError where anonymousAllowed && error.code == "session_expired" {
                expiredCookies.append(sessions.expiringCookie())
                return nil
            }
        }
    }

    /// The request to the upstream: the plan's rest of the path and the
    /// query after the route's base, the browser's fields as
    /// `upstreamHeaders` makes them, in `trace`.
    func upstreamRequest(_ request: HTTPRequest, _ plan: ProxyPlan, base: HTTPClientBase, token: Secret?,
                         trace: TraceContext) -> HTTPClientRequest {
        let (rest, client) = (plan.rest, plan.client)
        let query = request.head.query
        var suffix = ""
        suffix.reserveCapacity(rest.utf8.count + 1 + (query?.utf8.count ?? 0))
        suffix += rest
        if let query {
            suffix += "?"
            suffix += query
        }
        return HTTPClientRequest(method: request.method, base: base, appending: suffix,
                                 headers: upstreamHeaders(request.headers, token: token, client: client, trace: trace),
                                 timeout: timeout)
    }

    static func failure(_ error: HTTPClientError, context: RequestContext) -> GatewayError {
        switch error {
        case .timedOut:
            context.logger.warning("proxy.upstream_timeout")
            return GatewayError(.gatewayTimeout, "upstream_timeout", "The API did not answer in time.")
        default:
            context.logger.warning("proxy.upstream_failed", ["reason": .string(error.description)])
            return GatewayError(.badGateway, "upstream_error", "The API could not be reached.")
        }
    }
}

/// A streamed request body's count against the route's limit, and how it
/// failed, if it did.
private final class UploadProgress: Sendable {
    private let state = Mutex<(count: Int, failure: HTTPBodyError?)>((0, nil))

    /// Adds `bytes`; false once the total passes `limit`.
    func add(_ bytes: Int, limit: Int) -> Bool {
        state.withLock { state in
            state.count += bytes
            return state.count <= limit
        }
    }

    func fail(_ error: HTTPBodyError) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
    }

    var failure: HTTPBodyError? { state.withLock { $0.failure } }
}
