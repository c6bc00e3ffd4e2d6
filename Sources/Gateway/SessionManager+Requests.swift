import HTTP
import Routing
import Sessions

/// The session side of a request, as every endpoint that needs one uses it.
extension SessionManager {
    /// The live session the request's cookie names, renewing its idle
    /// timeout, or nil; a tampered record is logged. A store that is down
    /// is `503 store_unavailable`.
    func live(_ request: HTTPRequest, _ context: RequestContext) async throws -> Session? {
        var lookup: SessionLookup<Session>
        // From memory when it can be (no async call entered), else the store.
        if let remembered = lookupAtOnce(request) {
            lookup = remembered
        } else {
            do {
                lookup = try await self.lookup(cookieValue: sessionCookieValue(request))
            } catch {
                throw SignInContext.gatewayError(error, context: context)
            }
        }
        if case .tampered = lookup { context.logger.warning("session.tampered") }
        return lookup.value
    }

    /// `lookupAtOnce` from the one `Cookie` field's bytes; nil (go to the
    /// store) when it cannot answer, or the request has no such field or
    /// several.
    func lookupAtOnce(_ request: HTTPRequest) -> SessionLookup<Session>? {
        guard case .one(let field) = Self.cookieField(request.headers) else { return nil }
        return request.headers.withField(at: field) { _, value in
            cookieValueRange(inHeader: value).flatMap { lookupAtOnce(cookieValue: UnsafeBufferPointer(rebasing: value[$0])) }
        }
    }

    /// How many `Cookie` fields a request has, and where the one is.
    enum CookieField {
        case none, one(Int), several
    }

    /// Where the request's `Cookie` field is, when it has exactly one (a
    /// browser sends one).
    static func cookieField(_ headers: HTTPHeaders) -> CookieField {
        var field = CookieField.none
        for index in 0..<headers.count where headers.nameEquals(at: index, lowercase: "cookie") {
            guard case .none = field else { return .several }
            field = .one(index)
        }
        return field
    }

    /// The session cookie's value: from the `Cookie` field's bytes when
    /// there is one (a browser sends one), else from all of them joined.
    /// The bytes spare a `String` of the whole header on every request.
    func sessionCookieValue(_ request: HTTPRequest) -> String? {
        switch Self.cookieField(request.headers) {
        case .none:
            return nil
        case .one(let field):
            return request.headers.withField(at: field) { _, value in cookieValue(inHeader: value) }
        case .several:
            return SignInContext.cookieHeader(request).flatMap { header in header.withContiguousUTF8 { cookieValue(inHeader: $0) } }
        }
    }

    /// `401 unauthenticated`, expiring the cookie when the request sent one.
    func unauthenticated(_ request: HTTPRequest) -> GatewayError {
        let error = GatewayError.unauthenticated
        guard SignInContext.cookieHeader(request)?.contains(configuration.cookieName + "=") == true else { return error }
        return error.withCookie(expiringCookie())
    }
}
