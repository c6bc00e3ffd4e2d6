import Core
import Crypto
import HTTP

/// `/connect/authorize` (code flow, PKCE S256 only), with the simulator's
/// own sign-in page: e-mail and password, then the TOTP code for a user
/// who has one. A successful sign-in leaves a `sim_session` cookie, so the
/// next request from that browser needs no form (unless `prompt=login` or
/// `max_age` ask for a fresh one). A `request_uri` from `/connect/par`
/// stands for the pushed parameters; it is spent when the request ends
/// with a redirect back to the client.
extension SimulatorCore {
    static let sessionCookie = "sim_session"
    static let authorizePath = "/connect/authorize"

    func authorize(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        let raw = exchange.method == .post ? (await exchange.form() ?? []) : exchange.query
        let now = state.now()
        var parameters = raw
        var requestUri: String?
        if let uri = raw.first("request_uri"), !uri.isEmpty {
            let clientId = raw.first("client_id")
            let pushed = state.identity.withLock { $0.pushedRequests[uri] }
            guard config.realm.par, let pushed, pushed.clientId == clientId, pushed.expiresAt > now else {
                return Reply.html(.badRequest, SignInPage.message(
                    "Bad request_uri", "The request_uri is unknown, used, expired or was pushed by another client."))
            }
            parameters = pushed.parameters
            requestUri = uri
        }
        let request: AuthorizeRequest
        switch AuthorizeRequest.validate(parameters, config: config) {
        case .success(let valid): request = valid
        case .failure(let refusal):
            spend(requestUri)
            return refusal.response(issuer: state.issuer)
        }
        exchange.record.clientId = request.client.id
        let keep = raw.filter { !SignInPage.ownFields.contains($0.name) }
        switch browserSignIn(exchange, raw: raw, keep: keep, request: request, now: now) {
        case .answer(let response):
            return response
        case .refused(let error, let description):
            spend(requestUri)
            return AuthorizeRequest.Refusal.redirect(error: error, description: description, redirectUri: request.redirectUri,
                                                     state: request.state).response(issuer: state.issuer)
        case .signedIn(let session, let cookie):
            spend(requestUri)
            let code = Identifiers.token()
            state.identity.withLock { store in
                store.authorizationCodes[code] = AuthorizationCodeRecord(
                    clientId: request.client.id, redirectUri: request.redirectUri, codeChallenge: request.codeChallenge,
                    userId: session.userId, scopes: request.scopes, resources: request.resources, nonce: request.nonce,
                    proof: session.proof, sid: session.sid,
                    expiresAt: now + Double(config.tokens.authorizationCodeLifetimeSeconds))
                store.noteOperation(now: now)
            }
            var response = Reply.redirect(Self.appendQuery(request.redirectUri, [("code", code), ("state", request.state),
                                                                                  ("iss", state.issuer)]))
            if let cookie { response.headers.add("Set-Cookie", sessionCookieHeader(cookie)) }
            return response
        }
    }

    private func spend(_ requestUri: String?) {
        guard let requestUri else { return }
        _ = state.identity.withLock { $0.pushedRequests.removeValue(forKey: requestUri) }
    }

    /// What the browser's sign-in came to.
    enum BrowserSignIn {
        /// A page to show (a form, or the form again with a notice).
        case answer(HTTPResponse)
        /// An error for the client (`login_required`, `access_denied`).
        case refused(String, String)
        /// Signed in; `cookie` is a new `sim_session` value to set.
        case signedIn(BrowserSession, cookie: String?)
    }

    private func browserSignIn(_ exchange: Exchange, raw: [(name: String, value: String)], keep: [(name: String, value: String)],
                               request: AuthorizeRequest, now: Double) -> BrowserSignIn {
        if let mfaToken = raw.first("mfa_token"), !mfaToken.isEmpty {
            return mfaContinuation(mfaToken, totp: raw.first("totp_code"), keep: keep, client: request.client, now: now)
        }
        if let pending = raw.first("sim_pending") {
            return passwordSecondFactor(pending, totp: raw.first("totp_code") ?? "", keep: keep, now: now)
        }
        if exchange.method == .post, let email = raw.first("email") {
            return passwordStep(email: email, password: raw.first("password") ?? "", keep: keep, now: now)
        }
        if !request.prompt.contains("login"), let session = browserSession(exchange),
           request.maxAge.map({ now - session.proof.authTime <= Double($0) }) ?? true {
            return .signedIn(session, cookie: nil)
        }
        if request.prompt.contains("none") { return .refused("login_required", "The user is not signed in.") }
        return .answer(Reply.html(.ok, SignInPage.password(keep: keep, email: request.loginHint, notice: nil)))
    }

    /// The e-mail and password from the page (a form posting to `action`):
    /// wrong ones (or an unknown address, or a disabled user) get the same notice.
    func passwordStep(email: String, password: String, keep: [(name: String, value: String)],
                      action: String = authorizePath, now: Double) -> BrowserSignIn {
        let user = state.identity.withLock { store -> UserRecord? in
            guard let user = store.user(email: email), !user.disabled, let expected = user.password,
                  constantTimeEquals(Array(expected.utf8), Array(password.utf8)) else { return nil }
            return user
        }
        guard let user else {
            state.stats.count("signInPage", "refused")
            return .answer(Reply.html(.ok, SignInPage.password(keep: keep, email: email, action: action,
                                                               notice: "The e-mail address or the password is not correct.")))
        }
        guard user.totpSecret != nil else {
            return newBrowserSession(user.id, SignInProof(authTime: now, amr: ["pwd"], multi: false))
        }
        let pending = Identifiers.token()
        state.identity.withLock { store in
            store.passwordChallenges[pending] = PasswordChallenge(userId: user.id, expiresAt: now + 600, attemptsLeft: 3)
            store.noteOperation(now: now)
        }
        return .answer(Reply.html(.ok, SignInPage.totp(keep: keep + [("sim_pending", pending)], action: action, notice: nil)))
    }

    /// The TOTP code owed after a correct password.
    func passwordSecondFactor(_ pending: String, totp: String, keep: [(name: String, value: String)],
                              action: String = authorizePath, now: Double) -> BrowserSignIn {
        enum Outcome { case expired, wrong, verified(String) }
        let outcome: Outcome = state.identity.withLock { store in
            guard let challenge = store.passwordChallenges[pending], challenge.expiresAt > now,
                  let user = store.users[challenge.userId], !user.disabled, let secret = user.totpSecret
            else { return .expired }
            guard TOTP.verify(totp, secret: secret, time: now) else {
                store.passwordChallenges[pending]!.attemptsLeft -= 1
                if store.passwordChallenges[pending]!.attemptsLeft <= 0 { store.passwordChallenges[pending] = nil }
                return store.passwordChallenges[pending] == nil ? .expired : .wrong
            }
            store.passwordChallenges[pending] = nil
            return .verified(user.id)
        }
        switch outcome {
        case .expired:
            return .answer(Reply.html(.ok, SignInPage.password(keep: keep, email: nil, action: action,
                                                               notice: "Please sign in again.")))
        case .wrong:
            return .answer(Reply.html(.ok, SignInPage.totp(keep: keep + [("sim_pending", pending)], action: action,
                                                           notice: "The code is not correct.")))
        case .verified(let userId):
            return newBrowserSession(userId, SignInProof(authTime: now, amr: ["pwd", "mfa"], multi: true))
        }
    }

    /// A native grant's `mfa_token` finished in the browser with the TOTP code.
    private func mfaContinuation(_ mfaToken: String, totp: String?, keep: [(name: String, value: String)],
                                 client: ClientRegistration, now: Double) -> BrowserSignIn {
        guard let totp else { return .answer(Reply.html(.ok, SignInPage.totp(keep: keep, notice: nil))) }
        let signedIn = state.identity.withLock { store -> (String, SignInProof)? in
            guard let pending = store.mfa[mfaToken], pending.expiresAt > now, pending.clientId == client.id,
                  let user = store.users[pending.userId], !user.disabled, let secret = user.totpSecret,
                  TOTP.verify(totp, secret: secret, time: now)
            else { return nil }
            store.mfa[mfaToken] = nil
            return (pending.userId, SignInProof(authTime: now, amr: pending.firstFactor.amr + ["mfa"], multi: true))
        }
        guard let (userId, proof) = signedIn else { return .refused("access_denied", "The second factor could not be verified.") }
        return newBrowserSession(userId, proof)
    }

    /// A sign-in just made: a new session id, kept under a new cookie value.
    private func newBrowserSession(_ userId: String, _ proof: SignInProof) -> BrowserSignIn {
        state.stats.count("signInPage", "signedIn")
        let session = BrowserSession(userId: userId, sid: Identifiers.guid(), proof: proof)
        let cookie = Identifiers.token()
        state.identity.withLock { $0.browserSessions[cookie] = session }
        return .signedIn(session, cookie: cookie)
    }

    /// The browser's sign-in its `sim_session` cookie names, unless its user
    /// is disabled.
    func browserSession(_ exchange: Exchange) -> BrowserSession? {
        guard let cookie = Self.cookie(Self.sessionCookie, in: exchange) else { return nil }
        return state.identity.withLock { store in
            guard let session = store.browserSessions[cookie], store.users[session.userId]?.disabled == false else { return nil }
            return session
        }
    }

    /// The `Set-Cookie` value for a new `sim_session` (`Secure` under an https issuer).
    func sessionCookieHeader(_ cookie: String) -> String {
        let secure = state.issuer.hasPrefix("https://") ? "; Secure" : ""
        return "\(Self.sessionCookie)=\(cookie); Path=/; HttpOnly; SameSite=Lax\(secure)"
    }

    /// The value of cookie `name` in the request, or nil.
    static func cookie(_ name: String, in exchange: Exchange) -> String? {
        for header in exchange.request.headers.values("Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingSpaces
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                return String(trimmed[trimmed.index(after: equals)...])
            }
        }
        return nil
    }
}
