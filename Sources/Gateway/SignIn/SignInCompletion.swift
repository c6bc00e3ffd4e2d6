import Core
import HTTP
import Modgud
import OIDC
import Routing
import Sessions
import TokenRefresh
#if canImport(Glibc)
import Glibc
#endif

/// Redeems a grant at `/connect/token` and turns the answer into what the
/// browser gets: a new session and the user, a second-factor prompt, or
/// Modgud's refusal (a 429 byte for byte).
struct SignInCompletion: Sendable {
    let shared: SignInContext
    /// Revokes the tokens of the browser's earlier session, which a sign-in ends.
    let revoker: TokenRevoker
    /// The sign-in asks for several audiences (so that a refresh may later
    /// narrow a token to any of them), and routes use a default audience:
    /// the sign-in's access token, valid for all of them, is recorded as due
    /// at once, so that its first use narrows it to the default audience
    /// by a refresh and it never reaches an API as it is (RFC 9700, 2.3).
    let narrowsDefaultToken: Bool
    /// Counts id_tokens refused.
    let metrics: CodeFlowMetrics

    /// The sentence older Modgud servers use instead of `mfa_required`.
    static let olderServerMFA = "Two-factor authentication is required"

    /// `taken`: the flow state this request took to make the grant (a
    /// ceremony id, an `mfa_token`). It is put back when Modgud did not use
    /// it: a 429 (whose `Retry-After` would otherwise invite a retry that
    /// finds nothing), a 5xx, a call never sent. Not after `invalid_grant`:
    /// Modgud's refusal is the same for a mistyped code and for a spent or
    /// expired `mfa_token`, and a dead one put back would answer every try
    /// until the flow expires, instead of "start again".
    func redeem(_ grant: TokenGrant, _ request: HTTPRequest, _ context: RequestContext, endpoint: String,
                taken flow: FlowState? = nil) async throws -> HTTPResponse {
        let reply: ModgudReply
        let method = Self.method(of: grant.grantType)
        do {
            reply = try await shared.modgud.token(grant, forwardedFor: shared.clientAddress(request))
        } catch {
            audit(failed: "modgud_unavailable", method, grant, request, context)
            if let flow, error == .unreachable || error == .timedOut(requestSent: false) {
                await shared.restoreFlow(flow, request, context)
            }
            throw shared.relay.failure(error, endpoint: endpoint, context: context)
        }
        if let flow, !reply.isSuccess, reply.isRateLimited || reply.status.code >= 500 {
            await shared.restoreFlow(flow, request, context)
        }
        if reply.isSuccess {
            guard let json = reply.json, let tokens = TokenSet(json: json) else {
                // A success that is not a token answer: whatever it holds,
                // no one will use it.
                if let token = reply.json?["refresh_token"]?.stringValue ?? reply.json?["access_token"]?.stringValue {
                    _ = try? await shared.modgud.revoke(Secret(token), hint: reply.json?["refresh_token"] == nil ? "access_token" : "refresh_token")
                }
                audit(failed: "bad_response", method, grant, request, context)
                throw shared.relay.failure(ModgudFailure.badResponse, endpoint: endpoint, context: context)
            }
            return try await signIn(tokens, request, context, audiencesAsked: grant.asksForAudiences,
                                    method: method, email: Self.email(of: grant), verifiesIDToken: true)
        }
        if reply.isRateLimited || reply.status.code >= 500 {
            audit(failed: reply.isRateLimited ? "rate_limited" : "modgud_error", method, grant, request, context)
            return shared.relay.relay(reply, endpoint: endpoint, context: context)
        }
        let json = reply.json
        if reply.oauthError == "mfa_required", let mfaToken = json?.value(forKeyIgnoringCase: "mfa_token")?.stringValue {
            var state = FlowState(grant: grant.grantType, mfaToken: Secret(mfaToken))
            // `/bff/login?continue=mfa` names the user to Modgud by it.
            if case .otp(let email, _, _) = grant { state.values[LoginEndpoint.emailValue] = Secret(email) }
            shared.audit.record("audit.mfa.asked", context, address: shared.clientAddress(request),
                                [("method", .string(method?.rawValue ?? grant.grantType))])
            return try await promptSecondFactor(state, methods: json?.value(forKeyIgnoringCase: "mfa_methods"),
                                                browserMethods: json?.value(forKeyIgnoringCase: "mfa_browser_methods"), request, context)
        }
        if reply.oauthError == "invalid_grant",
           json?.value(forKeyIgnoringCase: "error_description")?.stringValue?.contains(Self.olderServerMFA) == true {
            // An older server has spent the code or link: the browser must
            // get a fresh one and send it again together with `totpCode`.
            context.logger.info("signin.second_factor_required", ["grant": .string(grant.grantType), "olderServer": .bool(true)])
            shared.audit.record("audit.mfa.asked", context, address: shared.clientAddress(request),
                                [("method", .string(method?.rawValue ?? grant.grantType))])
            let body: JSON = ["error": "mfa_required", "mfaMethods": ["totp"], "mfaBrowserMethods": [],
                              "resendFirstFactor": true]
            return .json(.badRequest, body)
        }
        audit(failed: reply.oauthError ?? "refused", method, grant, request, context)
        return shared.relay.oauthError(reply, endpoint: endpoint, context: context)
    }

    /// `audit.signin.failed` for a grant Modgud did not turn into tokens.
    private func audit(failed reason: String, _ method: SignInMethod?, _ grant: TokenGrant, _ request: HTTPRequest,
                       _ context: RequestContext) {
        shared.audit.signInFailed(method: method?.rawValue ?? grant.grantType, reason: reason, email: Self.email(of: grant),
                                  context, address: shared.clientAddress(request))
    }

    /// The e-mail address a grant names (a one-time code's), for
    /// `BFF_AUDIT_EMAIL`.
    static func email(of grant: TokenGrant) -> String? {
        if case .otp(let email, _, _) = grant { return email }
        return nil
    }

    private func promptSecondFactor(_ state: FlowState, methods: JSON?, browserMethods: JSON?,
                                    _ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let cookie = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.beginFlow(state, replacing: SignInContext.cookieHeader(request))
        }
        context.logger.info("signin.second_factor_required", ["grant": .string(state.grant)])
        let body: JSON = ["error": "mfa_required", "mfaMethods": Self.methodList(methods),
                          "mfaBrowserMethods": Self.methodList(browserMethods)]
        return .json(.badRequest, body, cookies: [cookie.revealed])
    }

    /// Modgud sends method lists as a space- or comma-separated string (or
    /// an array); the browser always gets an array.
    static func methodList(_ value: JSON?) -> JSON {
        if let items = value?.arrayValue { return .array(items.compactMap { $0.stringValue.map(JSON.string) }) }
        let text = value?.stringValue ?? ""
        return .array(text.split(whereSeparator: { $0 == " " || $0 == "," }).map { .string(String($0)) })
    }

    /// Tokens in hand: fetch the user's claims, start a fresh session (the
    /// browser's earlier one ends), answer with the user.
    /// `audiencesAsked`: the grant carried the configured audiences (the
    /// magic-link grant carries none: its token has Modgud's default
    /// audience, and there is nothing to narrow). `method`: how the user
    /// signed in, kept in the session. `identity`: the verified id_token's
    /// claims, whose `sub` must be userinfo's and whose `sid` the session
    /// keeps; `verifiesIDToken`: without them, the id_token the grant
    /// returned (if any) is verified here, after userinfo (the access token
    /// is used while fresh), with no nonce. `endsFlow`: a flow cookie the browser sent is expired.
    /// `answer`: the response for the new session and its `Set-Cookie`
    /// values (by default `200` with the user).
    func signIn(_ tokens: TokenSet, _ request: HTTPRequest, _ context: RequestContext,
                audiencesAsked: Bool, method: SignInMethod?, email: String? = nil, identity: IDTokenClaims? = nil,
                verifiesIDToken: Bool = false,
                endsFlow: Bool = true,
                answer: ((Session, [String]) -> HTTPResponse)? = nil) async throws -> HTTPResponse {
        // Every way out without a session revokes the tokens: the grant is
        // spent, and tokens nobody holds must not stay live. Each is audited.
        let address = shared.clientAddress(request)
        let methodName = method?.rawValue ?? "unknown"
        let reply: ModgudReply
        do {
            reply = try await shared.modgud.withBearer(.userinfo, .get, shared.modgud.endpoints.userinfo, accessToken: tokens.accessToken)
        } catch {
            shared.audit.signInFailed(method: methodName, reason: "userinfo_failed", email: email, context, address: address)
            await revokeAbandoned(tokens, context)
            throw shared.relay.failure(error, endpoint: "userinfo", context: context)
        }
        guard reply.isSuccess, let claims = reply.json, let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            context.logger.warning("signin.userinfo_failed", ["status": .int(reply.status.code)])
            shared.audit.signInFailed(method: methodName, reason: "userinfo_failed", email: email, context, address: address)
            await revokeAbandoned(tokens, context)
            if reply.isRateLimited { return shared.relay.relay(reply, endpoint: "userinfo", context: context) }
            throw GatewayError(.badGateway, "upstream_error", "The identity server did not return the user.")
        }
        var identity = identity
        if identity == nil, verifiesIDToken {
            do {
                identity = try await verifiedNativeIDToken(tokens, context)
            } catch {
                shared.audit.signInFailed(method: methodName, reason: "id_token_refused", subject: subject, email: email, context,
                                          address: address)
                throw error
            }
        }
        if let identity, identity.subject != subject {
            context.logger.warning("signin.id_token_refused", ["reason": "subject differs from userinfo"])
            shared.audit.signInFailed(method: methodName, reason: "id_token_refused", subject: subject, email: email, context,
                                      address: address)
            await revokeAbandoned(tokens, context)
            throw Self.idTokenRefused
        }
        let now = UInt64(time(nil)) * 1000
        let data = SessionData(subject: subject, claims: claims.serialized, sid: identity?.sessionID, method: method, tokens: SessionTokens(
            accessToken: tokens.accessToken,
            accessTokenExpiresAt: narrowsDefaultToken && audiencesAsked ? now : now + UInt64(tokens.expiresIn) * 1000,
            refreshToken: tokens.refreshToken, idToken: tokens.idToken, scope: tokens.scope ?? shared.modgud.configuration.scopes))
        let cookieHeader = SignInContext.cookieHeader(request)
        let session: Session, setCookie: Secret, ended: Session?
        do {
            (session, setCookie, ended) = try await shared.sessions.createEnding(
                data, replacing: cookieHeader, device: DeviceLine.describe(userAgent: request.headers["User-Agent"]),
                address: address.description)
        } catch {
            shared.audit.signInFailed(method: methodName, reason: "session_store_failed", subject: subject, email: email, context,
                                      address: address)
            // Tokens nobody will hold: revoke them rather than leave them live.
            await revokeAbandoned(tokens, context)
            throw SignInContext.gatewayError(error, context: context)
        }
        if let ended {
            revoker.revokeInBackground([ended.data.tokens], reason: "replaced", logger: context.logger)
            shared.audit.sessionEnded(reason: "replaced", subject: ended.data.subject, context, address: address)
        }
        context.logger.info("signin.completed")
        shared.audit.signInSucceeded(method: methodName, subject: subject, email: email, context, address: address)
        var cookies = [setCookie.revealed]
        if endsFlow, let cookieHeader, cookieHeader.contains(shared.sessions.configuration.flowCookieName + "=") {
            cookies.append(shared.sessions.expiringFlowCookie())
        }
        return answer?(session, cookies) ?? .json(.ok, UserView.body(session), cookies: cookies)
    }

    /// A sign-in whose id_token does not verify, or names another user
    /// than userinfo: refused, its tokens revoked.
    static let idTokenRefused = GatewayError(.badGateway, "upstream_error",
                                             "The identity server's sign-in could not be verified.")

    /// The claims of the id_token a native grant returned, verified as any
    /// id_token (no nonce: none was sent); nil when there is none. One that
    /// fails refuses the sign-in and its tokens are revoked.
    func verifiedNativeIDToken(_ tokens: TokenSet, _ context: RequestContext) async throws -> IDTokenClaims? {
        guard let idToken = tokens.idToken else { return nil }
        do {
            return try await shared.identity.verifyIDToken(idToken, nonce: nil)
        } catch {
            metrics.idTokenRefusals.increment(["native"])
            context.logger.warning("signin.id_token_refused", ["reason": .string(error.description)])
            await revokeAbandoned(tokens, context)
            throw Self.idTokenRefused
        }
    }

    /// The sign-in method a grant type stands for (a second-factor step
    /// carries the first factor's grant type).
    static func method(of grantType: String) -> SignInMethod? {
        switch grantType {
        case TokenGrant.otpType: .otp
        case TokenGrant.magicType: .magic
        case TokenGrant.passkeyType: .passkey
        case TokenGrant.authorizationCodeType: .code
        case TokenGrant.deviceCodeType: .crossDevice
        default: nil
        }
    }

    /// Best effort: the refresh token (and with it, at Modgud, its family)
    /// of a sign-in whose session could not be stored.
    func revokeAbandoned(_ tokens: TokenSet, _ context: RequestContext) async {
        let token = tokens.refreshToken ?? tokens.accessToken
        let hint = tokens.refreshToken == nil ? "access_token" : "refresh_token"
        let revoked = (try? await shared.modgud.revoke(token, hint: hint))?.isSuccess ?? false
        context.logger.warning("signin.tokens_abandoned", ["revoked": .bool(revoked)])
    }
}
