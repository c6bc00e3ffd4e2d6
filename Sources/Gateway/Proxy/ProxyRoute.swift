import Configuration
import Core
import HTTP
import HTTPClient
import Routing

/// One configured proxy route as the router's responder. Both of its
/// paths start from the same `ProxyPlan`: the fast path answers on the
/// loop thread without a task when the request has no body and its token
/// is at hand (none is needed, or the session from memory holds one that
/// needs no refresh); `respond` serves everything, in a worker. A class:
/// the callbacks of an answer started without a task each keep it, and a
/// reference is retained once where a copy would retain every field.
final class ProxyRoute: Responder {
    let proxy: APIProxy
    let config: RouteConfig
    /// `config.upstream` written out and taken apart once.
    let base: HTTPClientBase
    /// The longer prefixes configured below this one (`APIProxy.nestedPrefixes`).
    let nested: [[String]]
    /// What the relay does to the upstream's answers.
    let rules: AnswerRules

    init(proxy: APIProxy, config: RouteConfig, base: HTTPClientBase, nested: [[String]], rules: AnswerRules) {
        self.proxy = proxy
        self.config = config
        self.base = base
        self.nested = nested
        self.rules = rules
    }

    /// What is true of a request whichever path serves it, or the error
    /// that refuses it: the checks of the path (below the prefix, not the
    /// gateway's own, a target that stays below the upstream base, no
    /// narrower route in another spelling) and the client's address.
    func plan(_ request: HTTPRequest) throws(GatewayError) -> ProxyPlan {
        let path = request.path
        guard APIProxy.isBelow(path, prefix: config.prefix) else { throw GatewayError.notFound }
        let rest = Substring(path.utf8.dropFirst(config.prefix.utf8.count))
        if let problem = APIProxy.targetProblem(path: rest, query: request.head.query) {
            throw GatewayError.badRequest(problem)
        }
        if APIProxy.spells(rest, nested) {
            throw GatewayError.badRequest("The path names a narrower route in another spelling; write it as configured.")
        }
        let client = proxy.addresses.clientAddress(of: request)
        return ProxyPlan(rest: rest, client: client)
    }

    var hasFastPath: Bool { true }

    /// A request without a body, on one of the upstream client's loops,
    /// whose token is at hand, starts upstream from the loop; a refused
    /// one is answered there. Nil for the rest, which `respond` serves.
    func fastPath(for request: HTTPRequest, context: RequestContext) -> FastPath? {
        guard request.body.declaredLength == 0, proxy.upstreams.startsOnLoop(base) else { return nil }
        let plan: ProxyPlan
        do {
            plan = try self.plan(request)
        } catch {
            return .now { _, _ in throw error }
        }
        let token: Secret?
        switch config.token {
        case .none:
            token = nil
        case .client:
            return nil
        case .user, .userOrAnonymous:
            guard let refresher = proxy.refresher, case .found(let session)? = proxy.sessions.lookupAtOnce(request),
                  let usable = refresher.usableToken(session, audience: config.resource) else { return nil }
            token = usable
        }
        // Made now, before the stages' `prepare` (nothing here acts): the
        // start then keeps the upstream request, not the browser's.
        let upstreamRequest = proxy.upstreamRequest(request, plan, base: base, token: token, trace: context.trace)
        let head = request.method == .head
        return .start { [self] context, done in
            proxy.upstreams.startOnLoop(upstreamRequest) { [self] (result: consuming Result<HTTPClientStreamingResponse, HTTPClientError>) in
                switch consume result {
                case .success(let response):
                    proxy.relay(response, head: head, rules: rules, context: context, done)
                case .failure(let error):
                    done(.failure(APIProxy.failure(error, context: context)))
                }
            }
        }
    }

    /// Every request, in a worker: the same plan, then the token (loaded,
    /// refreshed or fetched as its mode says) and the body streamed.
    @inline(__always)
    func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await proxy.forward(request, try plan(request), route: self, context: context)
    }
}

/// A proxied request's plan (`ProxyRoute.plan`): made once per path, by
/// one set of checks, for the fast path and the worker alike.
struct ProxyPlan {
    /// The path after the route's prefix: what goes after the upstream base.
    let rest: Substring
    /// The client's address, as the trusted proxies in front report it.
    let client: IPAddress
}
