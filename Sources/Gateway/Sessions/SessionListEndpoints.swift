import Core
import HTTP
import Routing
import Sessions
import TokenRefresh

/// The sessions of the signed-in user (Docs/sessions.md, "Session cards"):
/// `GET /bff/sessions` lists them, `DELETE /bff/sessions/{id}` ends one
/// (its tokens revoked), and `POST /bff/logout {"everywhere":true}` ends
/// every one, through `AccountEndpoints`.
struct SessionListEndpoints: Sendable {
    let shared: SignInContext
    let revoker: TokenRevoker
    let counters: SessionEndCounters

    static let notFound = GatewayError(.notFound, "not_found", "There is no such session.")

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        router.add(.get, "/bff/sessions", options: options) { request, context in
            try await list(request, context)
        }
        router.add(.delete, "/bff/sessions/{id}", options: options) { request, context in
            try await end(request, context)
        }
    }

    /// `200 {"sessions":[…]}`, the current session first.
    private func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let session = try await userSession(request, context)
        let cards = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.sessions(of: session)
        }
        return .json(.ok, ["sessions": .array(cards.map(Self.entry))])
    }

    /// One entry of the list; times as `/bff/user` writes them.
    static func entry(_ card: SessionCard) -> JSON {
        ["id": .string(card.handle), "current": .bool(card.current),
         "createdAt": .string(UserView.iso8601(milliseconds: card.createdAt)),
         "lastSeenAt": .string(UserView.iso8601(milliseconds: card.lastSeenAt)),
         "method": card.method.map { .string($0.rawValue) } ?? .null,
         "device": .string(card.device), "address": .string(card.address)]
    }

    /// Ends the user's session with the handle and revokes its tokens
    /// before the answer; the current one ends as logout ends it (cookie
    /// expired). An unknown handle and another user's answer the same 404.
    private func end(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let handle = context.parameters["id"] ?? ""
        let session = try await userSession(request, context)
        guard !handle.isEmpty, handle.utf8.count <= 64 else { throw Self.notFound }
        let ended = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.end(handle: handle, of: session)
        }
        guard let ended else { throw Self.notFound }
        counters.ended.increment(["delete"])
        shared.audit.sessionEnded(reason: "removed", subject: session.data.subject, context, address: shared.clientAddress(request))
        let current = ended.lockName == session.lockName
        let tokens = current ? [ended.data.tokens, session.data.tokens] : [ended.data.tokens]
        let (failed, count) = await revoker.revoke(tokens, reason: "session_deleted")
        if failed > 0 {
            context.logger.warning("session.revocation_failed", ["reason": "session_deleted", "failed": .int(failed), "of": .int(count)])
        }
        context.logger.info("sessions.deleted", ["current": .bool(current)])
        var headers: HTTPHeaders = ["Cache-Control": "no-store"]
        if current { headers.add("Set-Cookie", shared.sessions.expiringCookie()) }
        return HTTPResponse(status: .noContent, headers: headers)
    }

    /// `POST /bff/logout` with `{"everywhere":true}`: every session of the
    /// user ends, this one too, and every token they held is revoked before
    /// the answer, `204` with the cookie expired (also without a session),
    /// or what `endSession` answers for this session (the end-session URL
    /// of a `/bff/login` sign-in). A store that fails still lets this session's tokens be revoked, and
    /// answers its 503 with the cookie expired. Nil when the body does not
    /// ask for it (a plain logout).
    func logoutEverywhere(_ request: HTTPRequest, _ context: RequestContext,
                          endSession: (Session, String) -> HTTPResponse? = { _, _ in nil }) async throws -> HTTPResponse? {
        guard try await Self.asksEverywhere(request, context) else { return nil }
        let expired = shared.sessions.expiringCookie()
        let done = HTTPResponse(status: .noContent, headers: ["Set-Cookie": expired, "Cache-Control": "no-store"])
        let session: Session
        do {
            guard let live = try await shared.sessions.live(request, context) else { return done }
            session = live
        } catch let error as GatewayError {
            throw error.withCookie(expired)
        }
        var storeFailure: GatewayError?
        var ended: [Session] = []
        do {
            ended = try await shared.store(context) { () async throws(SessionError) in
                try await shared.sessions.endAll(subject: session.data.subject)
            }
        } catch let error as GatewayError {
            storeFailure = error
        }
        counters.ended.increment(["everywhere"], by: Double(ended.count))
        shared.audit.sessionEnded(reason: "everywhere", subject: session.data.subject, sessions: ended.count, context,
                                  address: shared.clientAddress(request))
        let (failed, count) = await revoker.revoke(ended.map(\.data.tokens) + [session.data.tokens], reason: "logout_everywhere")
        if failed > 0 {
            context.logger.warning("logout.revocation_failed", ["failed": .int(failed), "of": .int(count)])
        }
        if let storeFailure {
            context.logger.warning("logout.store_failed", ["revoked": .int(count - failed)])
            throw storeFailure.withCookie(expired)
        }
        context.logger.info("logout.everywhere", ["sessions": .int(ended.count)])
        return endSession(session, expired) ?? done
    }

    /// Whether a logout's body asks to end every session: a JSON object
    /// whose `everywhere` is true. No JSON body (or an empty one) is a
    /// plain logout; a JSON body that is not an object, or whose
    /// `everywhere` is not a boolean, is a 400 and ends nothing.
    static func asksEverywhere(_ request: HTTPRequest, _ context: RequestContext) async throws -> Bool {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingSpacesAndTabs.lowercased()
        guard type == "application/json" else { return false }
        let bytes = try await request.body.collect(upTo: context.routeOptions.maxBodyBytes)
        guard !bytes.isEmpty else { return false }
        guard let json = try? JSON.parse(bytes, limits: JSONLimits(maxDepth: 16)), case .object = json else {
            throw GatewayError.badRequest("The body must be a JSON object.")
        }
        guard let value = json["everywhere"], !value.isNull else { return false }
        guard let flag = value.boolValue else { throw GatewayError.badRequest("everywhere must be true or false.") }
        return flag
    }

    /// The request's session; none is 401.
    private func userSession(_ request: HTTPRequest, _ context: RequestContext) async throws -> Session {
        guard let session = try await shared.sessions.live(request, context) else {
            throw shared.sessions.unauthenticated(request)
        }
        return session
    }
}
