import HTTP
import Sessions

/// The session side of a request, as every endpoint that needs one uses it.
extension SessionManager {
    /// The live session the request's cookie names, renewing its idle
    /// timeout, or nil; a tampered record is logged. A store that is down
    /// is `503 store_unavailable`.
    func live(_ request: HTTPRequest, _ context: RequestContext) async throws -> Session? {
        let cookieValue = sessionCookieValue(request)
        var lookup: SessionLookup<Session>
        // From memory when it can be (no async call entered), else the store.
        if let cookieValue, let remembered = lookupAtOnce(cookieValue: cookieValue) {
            lookup = remembered
        } else {
            do {
                lookup = try await self.lookup(cookieValue: cookieValue)
            } catch {
                throw SignInContext.gatewayError(error, context: context)
            }
        }
        if case .tampered = lookup { context.logger.warning("session.tampered") }
        return lookup.value
    }

    /// The session cookie's value: from the `Cookie` field's bytes when
    /// there is one (a browser sends one), else from all of them joined.
    /// The bytes spare a `String` of the whole header on every request.
    func sessionCookieValue(_ request: HTTPRequest) -> String? {
        let headers = request.headers
        var field: Int?
        for index in 0..<headers.count where headers.nameEquals(at: index, lowercase: "cookie") {
            guard field == nil else {
                return SignInContext.cookieHeader(request).flatMap { header in
                    header.withContiguousUTF8 { cookieValue(inHeader: $0) }
                }
            }
            field = index
        }
        guard let field else { return nil }
        return headers.withField(at: field) { _, value in cookieValue(inHeader: value) }
    }

    /// `401 unauthenticated`, expiring the cookie when the request sent one.
    func unauthenticated(_ request: HTTPRequest) -> GatewayError {
        let error = GatewayError.unauthenticated
        guard SignInContext.cookieHeader(request)?.contains(configuration.cookieName + "=") == true else { return error }
        return error.withCookie(expiringCookie())
    }
}
