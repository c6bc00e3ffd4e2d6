import Core
import HTTP
import Modgud
import Routing
import Sessions

/// What a signed-in user does with the session: `POST /bff/logout`, and
/// passkey management (`GET /bff/passkeys`, `POST /bff/passkeys/enroll/begin`,
/// `POST /bff/passkeys/enroll`, `DELETE /bff/passkeys/{id}`), called at
/// Modgud with the session's access token (refreshed when near expiry).
struct AccountEndpoints: Sendable {
    let shared: SignInContext
    let refresher: RefreshCoordinator
    /// The user's sessions, for `POST /bff/logout {"everywhere":true}`.
    var sessionList: SessionListEndpoints?
    /// BFF_POST_LOGOUT_REDIRECT_URI, for the end-session URL of a
    /// `/bff/login` session (`endSessionAnswer`).
    var postLogoutRedirect: String?

    /// The flow-record grant of a passkey enrolment in progress.
    static let enrolmentGrant = "passkey-enrolment"

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        router.add(.post, "/bff/logout", options: options) { request, context in
            try await logout(request, context)
        }
        router.add(.get, "/bff/passkeys", options: options) { request, context in
            let (reply, _) = try await callWithUserToken(.get, shared.modgud.endpoints.passkeys, request, context,
                                                         call: .passkeyList)
            return answer(reply, endpoint: "passkey_list", context: context)
        }
        router.add(.post, "/bff/passkeys/enroll/begin", options: options) { request, context in
            try await beginEnrolment(request, context)
        }
        router.add(.post, "/bff/passkeys/enroll", options: options) { request, context in
            let input = try await JSONRequest.read(request, context: context)
            let attestation = try input.objectField("attestation")
            // The session first: without one, the ceremony is left alone.
            let session = try await userSession(request, context)
            let lockName = session.lockName
            guard let flow = try await shared.takeFlow(request, context, where: {
                $0.grant == Self.enrolmentGrant && $0.ceremonyID != nil && $0.values["session"]?.revealed == lockName
            }), let ceremony = flow.ceremonyID
            else { throw shared.noFlow(Self.noEnrolment, request) }
            let body: JSON = ["ceremonyId": .string(ceremony.revealed), "attestation": attestation]
            let (reply, _) = try await callWithUserToken(.post, shared.modgud.endpoints.passkeyEnroll, request, context,
                                                         call: .passkeyEnroll, json: body, session: session)
            if reply.isSuccess {
                shared.audit.passkey(enrolled: true, subject: session.data.subject, context, address: shared.clientAddress(request))
            }
            var response = answer(reply, endpoint: "passkey_enroll", context: context)
            if reply.isRateLimited || reply.status.code >= 500 {
                // Turned away unused: the ceremony stays for the retry.
                await shared.restoreFlow(flow, request, context)
            } else {
                response.headers.add("Set-Cookie", shared.sessions.expiringFlowCookie())
            }
            return response
        }
        router.add(.delete, "/bff/passkeys/{id}", options: options) { request, context in
            let id = context.parameters["id"] ?? ""
            // `.` and `..` would name another path at Modgud (servers resolve dot segments).
            guard !id.isEmpty, id.utf8.count <= 200, id != ".", id != ".." else {
                throw GatewayError.badRequest("The passkey id is not valid.")
            }
            let url = shared.modgud.endpoints.passkeys + "/" + FormURLEncoded.encodeComponent(id)
            let (reply, session) = try await callWithUserToken(.delete, url, request, context, call: .passkeyDelete)
            if reply.isSuccess {
                shared.audit.passkey(enrolled: false, subject: session.data.subject, context, address: shared.clientAddress(request))
            }
            return answer(reply, endpoint: "passkey_delete", context: context)
        }
    }

    static let noEnrolment = GatewayError(.badRequest, "invalid_request",
                                          "No passkey enrolment is in progress for this session; start again.")

    // MARK: Logout

    /// Ends the session here first (so a failing Modgud cannot keep it
    /// alive), then revokes its tokens at Modgud; a failed revocation is
    /// logged. Without a session it still answers 204 and clears the cookie.
    /// A store that fails the removal (its reply lost, perhaps after the
    /// removal) does not keep the tokens alive either: the ones this
    /// request read are revoked all the same, so wherever the record
    /// survives it can no longer be refreshed, and the browser gets the
    /// store's 503 with its cookie expired.
    private func logout(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        if let everywhere = try await sessionList?.logoutEverywhere(request, context, endSession: endSessionAnswer) {
            return everywhere
        }
        let expired = shared.sessions.expiringCookie()
        let session: Session
        do {
            guard let live = try await shared.sessions.live(request, context) else {
                return HTTPResponse(status: .noContent, headers: ["Set-Cookie": expired, "Cache-Control": "no-store"])
            }
            session = live
        } catch let error as GatewayError {
            // Not even read: nothing to revoke, but this browser is out.
            throw error.withCookie(expired)
        }
        // The record as it was when removed: a refresh on another instance
        // may have stored successor tokens after this request read the
        // session (from the session cache, or just before). Both sets are
        // revoked; a spent token's revocation does no harm.
        var storeFailure: GatewayError?
        var latest: Session?
        do {
            latest = try await shared.store(context) { () async throws(SessionError) in try await shared.sessions.take(session) }
        } catch let error as GatewayError {
            storeFailure = error
        }
        let (failed, count) = await refresher.revoker.revoke([latest?.data.tokens, session.data.tokens].compactMap { $0 },
                                                            reason: "logout")
        if failed > 0 {
            context.logger.warning("logout.revocation_failed", ["failed": .int(failed), "of": .int(count)])
        }
        if let storeFailure {
            context.logger.warning("logout.store_failed", ["revoked": .int(count - failed)])
            throw storeFailure.withCookie(expired)
        }
        context.logger.info("logout.completed")
        shared.audit.sessionEnded(reason: "logout", subject: session.data.subject, context, address: shared.clientAddress(request))
        if let answer = endSessionAnswer(session, expiredCookie: expired) { return answer }
        return HTTPResponse(status: .noContent, headers: ["Set-Cookie": expired, "Cache-Control": "no-store"])
    }

    // MARK: Passkeys

    /// `POST /connect/passkey/enroll/begin`: the ceremony id is kept in this
    /// browser's flow record, bound to the session; the browser gets the options.
    private func beginEnrolment(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let (reply, session) = try await callWithUserToken(.post, shared.modgud.endpoints.passkeyEnrollBegin, request, context,
                                                           call: .passkeyEnrollBegin)
        guard reply.isSuccess else { return answer(reply, endpoint: "passkey_enroll_begin", context: context) }
        guard let json = reply.json, let ceremony = json.value(forKeyIgnoringCase: "ceremonyId")?.stringValue,
              let options = json.value(forKeyIgnoringCase: "options"), case .object = options else {
            throw shared.relay.failure(ModgudFailure.badResponse, endpoint: "passkey_enroll_begin", context: context)
        }
        let state = FlowState(grant: Self.enrolmentGrant, ceremonyID: Secret(ceremony),
                              values: ["session": Secret(session.lockName)])
        let cookie = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.beginFlow(state, replacing: SignInContext.cookieHeader(request))
        }
        return .json(.ok, ["options": options], cookies: [cookie.revealed])
    }

    /// The request's session; none is 401.
    private func userSession(_ request: HTTPRequest, _ context: RequestContext) async throws -> Session {
        guard let session = try await shared.sessions.live(request, context) else {
            throw shared.sessions.unauthenticated(request)
        }
        return session
    }

    /// Calls Modgud with the access token of `session` (by default the
    /// request's own).
    private func callWithUserToken(_ method: HTTPMethod, _ url: String, _ request: HTTPRequest, _ context: RequestContext,
                                   call: ModgudCall, json: JSON? = nil, session given: Session? = nil) async throws -> (ModgudReply, Session) {
        var session: Session
        if let given { session = given } else { session = try await userSession(request, context) }
        let token = try await refresher.accessToken(for: &session, audience: nil, client: shared.clientAddress(request),
                                                    context: context)
        let reply: ModgudReply
        do {
            reply = try await shared.modgud.withBearer(call, method, url, accessToken: token, json: json)
        } catch {
            throw shared.relay.failure(error, endpoint: call.rawValue, context: context)
        }
        if Self.tokenRejected(reply) {
            // Modgud no longer honours a token the session thinks is good
            // (revoked there, the user signed out everywhere): the session
            // is over here too.
            context.logger.info("session.token_rejected", ["endpoint": .string(call.rawValue)])
            let taken = try await shared.store(context) { () async throws(SessionError) in try await shared.sessions.take(session) }
            refresher.revoker.revokeInBackground([taken?.data.tokens, session.data.tokens].compactMap { $0 },
                                                 reason: "token_rejected", logger: context.logger)
            if let taken {
                shared.audit.sessionEnded(reason: "token_rejected", subject: taken.data.subject, context,
                                          address: shared.clientAddress(request))
            }
            throw GatewayError.sessionExpired(cookie: shared.sessions.expiringCookie())
        }
        if reply.status.code == 401, reply.oauthError == "insufficient_user_authentication" {
            shared.audit.record("audit.stepup.asked", context, address: shared.clientAddress(request),
                                [("sub", .string(session.data.subject)), ("endpoint", .string(call.rawValue))])
        }
        return (reply, session)
    }

    /// A 401 that says the token itself is bad (`invalid_token`), unlike
    /// the step-up 401 (`insufficient_user_authentication`).
    static func tokenRejected(_ reply: ModgudReply) -> Bool {
        guard reply.status == .unauthorized else { return false }
        if let error = reply.oauthError { return error == "invalid_token" }
        return reply.headers["WWW-Authenticate"]?.contains("invalid_token") ?? true
    }

    /// Modgud's answer: successes and 404s relayed as they are; refusals
    /// (the step-up 401 with its `WWW-Authenticate` and `max_age`) reduced
    /// to their OAuth fields; 429 byte for byte; 5xx as 502.
    private func answer(_ reply: ModgudReply, endpoint: String, context: RequestContext) -> HTTPResponse {
        if reply.isSuccess || reply.status.code == 404 || reply.status.code >= 500 || reply.isRateLimited {
            if reply.status == .noContent {
                return HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])
            }
            return shared.relay.relay(reply, endpoint: endpoint, context: context)
        }
        if reply.status.code == 400, reply.oauthError == nil {
            return shared.relay.relay(reply, endpoint: endpoint, context: context)   // `{"Message":…}` of a refused enrolment
        }
        return shared.relay.oauthError(reply, endpoint: endpoint, context: context)
    }
}
