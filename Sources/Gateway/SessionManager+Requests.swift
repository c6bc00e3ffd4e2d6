import HTTP
import Sessions

/// The session side of a request, as every endpoint that needs one uses it.
extension SessionManager {
    /// The live session the request's cookie names, renewing its idle
    /// timeout, or nil; a tampered record is logged. A store that is down
    /// is `503 store_unavailable`.
    func live(_ request: HTTPRequest, _ context: RequestContext) async throws -> Session? {
        let lookup: SessionLookup<Session>
        do {
            lookup = try await self.lookup(cookieHeader: SignInContext.cookieHeader(request))
        } catch {
            throw SignInContext.gatewayError(error, context: context)
        }
        if case .tampered = lookup { context.logger.warning("session.tampered") }
        return lookup.value
    }

    /// `401 unauthenticated`, expiring the cookie when the request sent one.
    func unauthenticated(_ request: HTTPRequest) -> GatewayError {
        let error = GatewayError.unauthenticated
        guard SignInContext.cookieHeader(request)?.contains(configuration.cookieName + "=") == true else { return error }
        return error.withCookie(expiringCookie())
    }
}
