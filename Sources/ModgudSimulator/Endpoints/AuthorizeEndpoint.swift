import Core
import Crypto
import HTTP

/// `/connect/authorize` (code flow, PKCE S256 only) and the code exchange.
///
/// There is no login UI: the simulator signs in the user named by
/// `login_hint` (a small form asks for it when absent). A `mfa_token` from
/// a native grant continues in the "browser": the form asks for the TOTP
/// code and the code issued carries the two-factor sign-in.
extension SimulatorCore {
    func authorize(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        let parameters = exchange.method == .post ? (await exchange.form() ?? []) : exchange.query
        func value(_ name: String) -> String? { parameters.first(name).flatMap { $0.isEmpty ? nil : $0 } }
        guard let clientId = value("client_id"), let client = config.client(clientId) else {
            return Reply.html(.badRequest, Self.page("Unknown client", "The client_id is missing or unknown."))
        }
        exchange.record.clientId = client.id
        guard let redirectUri = value("redirect_uri"), client.redirectUris.contains(redirectUri) else {
            return Reply.html(.badRequest, Self.page("Bad redirect_uri", "The redirect_uri is not registered for this client."))
        }
        let state = value("state")
        func fail(_ error: String, _ description: String) -> HTTPResponse {
            Reply.redirect(Self.appendQuery(redirectUri, [("error", error), ("error_description", description),
                                                          ("state", state), ("iss", self.state.issuer)]))
        }
        guard value("response_type") == "code" else { return fail("unsupported_response_type", "Only response_type=code is supported.") }
        guard client.holds(GrantType.authorizationCode) else {
            return fail("unauthorized_client", "This client application is not allowed to use the authorization code flow.")
        }
        guard let challenge = value("code_challenge"), value("code_challenge_method") == "S256" else {
            return fail("invalid_request", "PKCE with code_challenge_method=S256 is required.")
        }
        let scopes = Self.scopes(value("scope"))
        let resources = parameters.all("resource")
        guard resources.allSatisfy({ Self.resourceAllowed($0, client: client) }) else {
            return fail("invalid_target", "The specified resource is not allowed for this client application.")
        }
        let now = self.state.now()
        var signedIn: (userId: String, proof: SignInProof)?
        if let mfaToken = value("mfa_token") {
            guard let totp = value("totp_code") else {
                return Reply.html(.ok, Self.form("Second factor", "Enter the code from your authenticator app.",
                                                 field: "totp_code", keep: parameters))
            }
            signedIn = self.state.identity.withLock { store in
                guard let pending = store.mfa[mfaToken], pending.expiresAt > now, pending.clientId == client.id,
                      let secret = store.users[pending.userId]?.totpSecret, TOTP.verify(totp, secret: secret, time: now)
                else { return nil }
                store.mfa[mfaToken] = nil
                return (pending.userId, SignInProof(authTime: now, amr: pending.firstFactor.amr + ["mfa"], multi: true))
            }
            guard signedIn != nil else { return fail("access_denied", "The second factor could not be verified.") }
        } else if let hint = value("login_hint") {
            guard let user = self.state.identity.withLock({ $0.user(email: hint) }) else {
                return fail("access_denied", "No such user.")
            }
            signedIn = (user.id, SignInProof(authTime: now, amr: ["otp"], multi: false))
        } else if value("prompt") == "none" {
            return fail("login_required", "The user is not signed in.")
        } else {
            return Reply.html(.ok, Self.form("Sign in to the Modgud simulator", "Any seeded or registered e-mail address.",
                                             field: "login_hint", keep: parameters))
        }
        let code = Identifiers.token()
        self.state.identity.withLock { store in
            store.authorizationCodes[code] = AuthorizationCodeRecord(
                clientId: client.id, redirectUri: redirectUri, codeChallenge: challenge, userId: signedIn!.userId,
                scopes: scopes, resources: resources, nonce: value("nonce"), proof: signedIn!.proof,
                expiresAt: now + Double(config.tokens.authorizationCodeLifetimeSeconds))
            store.noteOperation(now: now)
        }
        return Reply.redirect(Self.appendQuery(redirectUri, [("code", code), ("state", state), ("iss", self.state.issuer)]))
    }

    func authorizationCodeGrant(_ request: TokenRequest) -> HTTPResponse {
        let form = request.form
        guard let code = form.first("code"), let verifier = form.first("code_verifier") else {
            return Reply.oauth("invalid_request", "The 'code' and 'code_verifier' parameters are required.")
        }
        let now = state.now()
        enum Outcome { case refused(String), replayed, valid(AuthorizationCodeRecord) }
        let outcome: Outcome = state.identity.withLock { store in
            guard let record = store.authorizationCodes[code], record.clientId == request.client.id else {
                return .refused("The specified authorization code is invalid.")
            }
            if record.redeemed {
                if let family = record.familyId { store.revokeFamily(family) }
                return .replayed
            }
            guard record.expiresAt > now else { return .refused("The specified authorization code is no longer valid.") }
            guard form.first("redirect_uri") == record.redirectUri else {
                return .refused("The specified 'redirect_uri' does not match the authorization request.")
            }
            guard PKCE.s256Challenge(for: verifier) == record.codeChallenge else {
                return .refused("The specified 'code_verifier' is invalid.")
            }
            store.authorizationCodes[code]!.redeemed = true
            return .valid(record)
        }
        switch outcome {
        case .refused(let description):
            return Reply.oauth("invalid_grant", description)
        case .replayed:
            state.stats.count("refresh", "familyRevocations")
            return Reply.oauth("invalid_grant", "The specified authorization code has already been redeemed.")
        case .valid(let record):
            return issueUserTokens(userId: record.userId, proof: record.proof, client: request.client, scopes: record.scopes,
                                   resources: record.resources, config: request.config, nonce: record.nonce) { family in
                self.state.identity.withLock { $0.authorizationCodes[code]?.familyId = family }
            }
        }
    }

    /// `/connect/logout`: ends the session of a valid `id_token_hint`.
    func logout(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        let parameters = exchange.method == .post ? (await exchange.form() ?? []) : exchange.query
        guard let hint = parameters.first("id_token_hint"), let claims = state.signingKey.verify(hint),
              let sid = claims["sid"]?.stringValue, let audience = claims["aud"]?.stringValue
        else {
            return Reply.html(.badRequest, Self.page("Bad logout request", "A valid id_token_hint is required."))
        }
        exchange.record.clientId = audience
        let ended = state.identity.withLock { $0.revokeSession(sid: sid) }
        state.stats.count("logout", "sessions", by: ended)
        if let target = parameters.first("post_logout_redirect_uri"),
           config.client(audience)?.postLogoutRedirectUris.contains(target) == true {
            return Reply.redirect(Self.appendQuery(target, [("state", parameters.first("state"))]))
        }
        return Reply.html(.ok, Self.page("Signed out", "The session has ended."))
    }

    static func appendQuery(_ url: String, _ pairs: [(String, String?)]) -> String {
        let present = pairs.compactMap { pair in pair.1.map { (pair.0, $0) } }
        guard !present.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + FormURLEncoded.serialize(present)
    }

    static func escape(_ text: String) -> String {
        text.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
    }

    static func page(_ title: String, _ message: String) -> String {
        "<!doctype html><title>\(escape(title))</title><h1>\(escape(title))</h1><p>\(escape(message))</p>"
    }

    /// A GET form that re-submits the authorization request with one more field.
    static func form(_ title: String, _ message: String, field: String, keep: [(name: String, value: String)]) -> String {
        let hidden = keep.filter { $0.name != field }
            .map { "<input type=hidden name=\"\(escape($0.name))\" value=\"\(escape($0.value))\">" }.joined()
        return "<!doctype html><title>\(escape(title))</title><h1>\(escape(title))</h1><p>\(escape(message))</p>"
            + "<form method=get action=\"/connect/authorize\">\(hidden)<input name=\"\(field)\" autofocus>"
            + "<button>Continue</button></form>"
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation).
    func replacingAll(_ target: String, _ replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = "", rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
