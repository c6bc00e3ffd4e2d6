import Core
import HTTP
import Routing
import Sessions
#if canImport(Glibc)
import Glibc
#endif

/// The native app hand-off (Docs/handoff.md): `POST /bff/app-login/start`,
/// `GET /bff/app-login/{requestId}`, `POST /bff/app-login/code`,
/// `POST /bff/app-login/cancel` and `POST /bff/app-login/session`. An app
/// registers a PKCE challenge, the browser's fresh sign-in moves into a
/// one-time code sent to the app's configured callback, and the app's web
/// view redeems the code with its verifier for a session of its own. Not
/// registered when no app is configured, so every route answers 404.
struct AppLoginEndpoints: Sendable {
    let shared: SignInContext
    let refresher: RefreshCoordinator
    let settings: AppLoginSettings

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        guard !settings.apps.isEmpty else { return }
        router.add(.post, "/bff/app-login/start", options: options) { request, context in
            try await counted("start", request, context) { try await start(request, context) }
        }
        router.add(.get, "/bff/app-login/{requestId}", options: options) { request, context in
            try await describe(context.parameters["requestId"] ?? "", context)
        }
        router.add(.post, "/bff/app-login/code", options: options) { request, context in
            try await counted("code", request, context) { try await code(request, context) }
        }
        router.add(.post, "/bff/app-login/cancel", options: options) { request, context in
            try await counted("cancel", request, context) { try await cancel(request, context) }
        }
        router.add(.post, "/bff/app-login/session", options: options) { request, context in
            try await counted("session", request, context) { try await session(request, context) }
        }
    }

    /// `start`: the app registers its S256 challenge (throttled per client
    /// address) and gets a request id, single use, for 10 minutes.
    private func start(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try settings.startLimit?.check(shared.clientAddress(request))
        let input = try await JSONRequest.read(request, context: context)
        let challenge = try AppLoginInput.challenge(input)
        let app = try settings.app(named: try input.optionalString("app", maxLength: 100))
        let lifetime = settings.times.requestLifetime
        let (id, _) = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.beginAppLogin(challenge: challenge, app: app.name, lifetime: lifetime)
        }
        return .json(.created, ["requestId": .string(id.revealed), "expiresIn": .int(lifetime.components.seconds)])
    }

    /// `GET /bff/app-login/{requestId}`: which app a live request is for,
    /// and for how long; the request stays usable.
    private func describe(_ id: String, _ context: RequestContext) async throws -> HTTPResponse {
        guard AppLoginInput.isBase64URL43(id),
              let found = try await shared.store(context, { () async throws(SessionError) in
                  try await shared.sessions.appLoginRequest(id: id)
              })
        else { throw GatewayError.appRequestInvalid }
        return .json(.ok, ["app": .string(found.app), "expiresIn": .int(Int64(secondsLeft(until: found.expiresAt)))])
    }

    /// Whole seconds from now until `expiresAt` (Unix ms), at least 0.
    func secondsLeft(until expiresAt: UInt64) -> UInt64 {
        let now = shared.sessions.now
        return expiresAt > now ? (expiresAt - now) / 1000 : 0
    }

    /// Runs one step, counting and logging its outcome by name only (never
    /// a code, verifier, state, request id or cookie), and auditing it as
    /// `audit.handoff.<step>`.
    func counted(_ step: String, _ request: HTTPRequest, _ context: RequestContext,
                 _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            let response = try await body()
            record(step, "ok", request, context)
            return response
        } catch {
            record(step, Self.outcome(of: error), request, context)
            throw error
        }
    }

    func record(_ step: String, _ outcome: String, _ request: HTTPRequest, _ context: RequestContext) {
        settings.handoffs.increment([step, outcome])
        context.logger.info("app_login." + step, ["outcome": .string(outcome)])
        shared.audit.record("audit.handoff." + step, context, address: shared.clientAddress(request),
                            [("outcome", .string(outcome))])
    }

    /// The metric's outcome for a step that ended in `error`.
    static func outcome(of error: any Error) -> String {
        if error is RateLimitRefusal { return "rate_limited" }
        guard let refusal = error as? GatewayError else { return "failed" }
        switch refusal.code {
        case "session_too_old": return "session_too_old"
        case "unauthenticated": return "unauthenticated"
        default: return refusal.status.code >= 500 ? "failed" : "refused"
        }
    }
}
