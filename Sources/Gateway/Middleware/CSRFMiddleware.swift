import Configuration
import HTTP
import Routing

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

    public func prepare(_ request: HTTPRequest, context: RequestContext) throws {
        if context.routeOptions.csrf, let reason = refusal(request.headers) {
            context.logger.info("csrf.refused", ["route": .string(context.routePattern), "reason": .string(reason)])
            throw GatewayError(.forbidden, "csrf_failed", "The request did not come from this site's front end.")
        }
    }

    /// Why the request is refused, or nil.
    func refusal(_ headers: HTTPHeaders) -> String? {
        // One pass over the bytes: this runs on every proxied request.
        var (markers, markerIsOne, origins) = (0, false, 0)
        var origin: Int?
        for index in 0..<headers.count {
            if headers.nameEquals(at: index, lowercase: "x-csrf") {
                markers += 1
                markerIsOne = headers.valueEquals(at: index, "1")
            } else if headers.nameEquals(at: index, lowercase: "origin") {
                origins += 1
                origin = index
            }
        }
        guard markers == 1, markerIsOne else { return "missing_header" }
        if let site = headers["Sec-Fetch-Site"], site.equalsIgnoringASCIICase("cross-site") { return "cross_site" }
        if origins > 1 { return "foreign_origin" }
        if let origin, !publicOrigin.matches(headers.value(at: origin)) { return "foreign_origin" }
        return nil
    }
}
