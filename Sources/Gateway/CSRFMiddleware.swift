import Configuration
import HTTP

/// Refuses cross-site requests on every route that has not opted out
/// (`RouteOptions.csrf`): the request must carry `X-CSRF: 1` (a header a
/// cross-origin page cannot set without a CORS preflight the gateway never
/// grants), must not say `Sec-Fetch-Site: cross-site`, and an `Origin`, when
/// present, must be the configured public origin. A refusal is
/// `403 {"error":"csrf_failed"}` and the endpoint never runs.
public struct CSRFMiddleware: Middleware {
    let publicOrigin: WebOrigin

    public init(publicOrigin: WebOrigin) {
        self.publicOrigin = publicOrigin
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        if context.routeOptions.csrf, let reason = refusal(request.headers) {
            context.logger.info("csrf.refused", ["route": .string(context.routePattern), "reason": .string(reason)])
            throw GatewayError(.forbidden, "csrf_failed", "The request did not come from this site's front end.")
        }
        return try await next(request, context)
    }

    /// Why the request is refused, or nil.
    func refusal(_ headers: HTTPHeaders) -> String? {
        let marker = headers.values("X-CSRF")
        guard marker.count == 1, marker[0] == "1" else { return "missing_header" }
        if let site = headers["Sec-Fetch-Site"], site.equalsIgnoringASCIICase("cross-site") { return "cross_site" }
        let origins = headers.values("Origin")
        if origins.count > 1 { return "foreign_origin" }
        if let origin = origins.first, !publicOrigin.matches(origin) { return "foreign_origin" }
        return nil
    }
}
