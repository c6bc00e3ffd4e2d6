import Configuration
import Core
import HTTP
import Routing
import Sessions

// `code` and `cancel`: the browser's answer to the app's request.
extension AppLoginEndpoints {
    /// `code`: the browser's fresh sign-in moves into a one-time code for
    /// the app. The request is taken (single use) before anything else is
    /// looked at; the session must be younger than 5 minutes; the session
    /// is then taken while holding its refresh lock, so the tokens that
    /// move are the live ones and no refresh of them can follow here. The
    /// session ends (cookie expired) and nothing is revoked: the tokens moved.
    func code(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let input = try await JSONRequest.read(request, context: context)
        let id = try input.string("requestId", maxLength: 64)
        let state = try AppLoginInput.state(input)
        guard let session = try await shared.sessions.live(request, context) else {
            throw shared.sessions.unauthenticated(request)
        }
        let (appRequest, app) = try await takeRequest(id, context)
        let age = Int64(shared.sessions.now) - Int64(session.authenticatedAt)
        guard age < Int64(settings.times.maxSessionAge.wholeMilliseconds) else { throw GatewayError.sessionTooOld }
        let expired = shared.sessions.expiringCookie()
        let moved: Session
        switch await refresher.refresher.takeHoldingLock(session) {
        case .taken(let latest): moved = latest
        case .gone: throw GatewayError.unauthenticated.withCookie(expired)
        case .busy: throw GatewayError.tokenUnavailable
        case .storeUnavailable: throw GatewayError.storeUnavailable
        }
        let times = settings.times
        let code: Secret
        do {
            code = try await shared.sessions.issueAppLoginCode(moving: moved, challenge: appRequest.challenge,
                                                               lifetime: times.codeLifetime, grace: times.revocationGrace)
        } catch {
            // The session has ended and no code holds its tokens: revoke them.
            refresher.revoker.revokeInBackground([moved.data.tokens], reason: "app_handoff_failed", logger: context.logger)
            throw SignInContext.gatewayError(error, context: context).withCookie(expired)
        }
        // The browser's session has moved into the code: it ends here.
        shared.audit.sessionEnded(reason: "handed_off", subject: moved.data.subject, context,
                                  address: shared.clientAddress(request))
        let query = "code=" + code.revealed + "&state=" + FormURLEncoded.encodeComponent(state)
        return .json(.ok, Self.redirectBody(app, query: query), cookies: [expired])
    }

    /// `cancel`: the request is taken; a browser session the request
    /// carries ends as at logout (its tokens revoked): a sign-in made for
    /// the app is not left behind in the browser.
    func cancel(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let input = try await JSONRequest.read(request, context: context)
        let id = try input.string("requestId", maxLength: 64)
        let state = try AppLoginInput.state(input)
        let (_, app) = try await takeRequest(id, context)
        var cookies: [String] = []
        if SignInContext.cookieHeader(request)?.contains(shared.sessions.configuration.cookieName + "=") == true {
            cookies.append(shared.sessions.expiringCookie())
            if let session = try await shared.sessions.live(request, context) {
                let latest = try await shared.store(context) { () async throws(SessionError) in
                    try await shared.sessions.take(session)
                }
                refresher.revoker.revokeInBackground([latest?.data.tokens, session.data.tokens].compactMap { $0 },
                                                     reason: "app_cancel", logger: context.logger)
                if let latest {
                    shared.audit.sessionEnded(reason: "handoff_cancelled", subject: latest.data.subject, context,
                                              address: shared.clientAddress(request))
                }
            }
        }
        let query = "error=cancelled&state=" + FormURLEncoded.encodeComponent(state)
        return .json(.ok, Self.redirectBody(app, query: query), cookies: cookies)
    }

    /// Takes the request `id` names, with its app; one 403 for unknown,
    /// used, expired (and an app no longer configured).
    private func takeRequest(_ id: String, _ context: RequestContext) async throws -> (AppLoginRequest, AppLoginApp) {
        guard AppLoginInput.isBase64URL43(id),
              let taken = try await shared.store(context, { () async throws(SessionError) in
                  try await shared.sessions.takeAppLoginRequest(id: id)
              }),
              let app = settings.apps.first(where: { $0.name == taken.app })
        else { throw GatewayError.appRequestInvalid }
        return (taken, app)
    }

    /// `{"redirect":"<callback>?<query>"[,"intent":"intent://…"]}`.
    static func redirectBody(_ app: AppLoginApp, query: String) -> JSON {
        var pairs: [(String, JSON)] = [("redirect", .string(app.redirect(query: query)))]
        if let intent = app.intent(query: query) { pairs.append(("intent", .string(intent))) }
        return JSON.makeObject(pairs)
    }
}
