import Core
import Crypto
import HTTP

/// The code exchange and `/connect/logout` (end-session).
extension SimulatorCore {
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
                                   resources: record.resources, config: request.config, nonce: record.nonce,
                                   sid: record.sid) { family in
                self.state.identity.withLock { $0.authorizationCodes[code]?.familyId = family }
            }
        }
    }

    /// `/connect/logout`: ends the session of a valid `id_token_hint` (its
    /// `sid`: every client's tokens of it, and the browser's sign-in),
    /// sends back-channel logout tokens to the clients whose sessions
    /// ended (the calling client among them), then redirects to a
    /// registered `post_logout_redirect_uri` with `state`.
    func logout(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        let parameters = exchange.method == .post ? (await exchange.form() ?? []) : exchange.query
        guard let hint = parameters.first("id_token_hint"), let claims = state.signingKey.verify(hint),
              let sid = claims["sid"]?.stringValue, let audience = claims["aud"]?.stringValue,
              let subject = claims["sub"]?.stringValue
        else {
            return Reply.html(.badRequest, SignInPage.message("Bad logout request", "A valid id_token_hint is required."))
        }
        exchange.record.clientId = audience
        var ended = state.identity.withLock { $0.endSessions(sid: sid) }
        state.stats.count("logout", "sessions", by: ended.count)
        let caller = EndedSession(clientId: audience, userId: subject, sid: sid)
        if !ended.contains(caller) { ended.append(caller) }
        notifyLogout(ended, config: config)
        var answer: HTTPResponse
        if let target = parameters.first("post_logout_redirect_uri"),
           config.client(audience)?.postLogoutRedirectUris.contains(target) == true {
            answer = Reply.redirect(Self.appendQuery(target, [("state", parameters.first("state"))]))
        } else {
            answer = Reply.html(.ok, SignInPage.message("Signed out", "The session has ended."))
        }
        if let cookie = Self.cookie(Self.sessionCookie, in: exchange),
           state.identity.withLock({ $0.browserSessions[cookie] == nil }) {
            answer.headers.add("Set-Cookie", "\(Self.sessionCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
        }
        return answer
    }

    static func appendQuery(_ url: String, _ pairs: [(String, String?)]) -> String {
        let present = pairs.compactMap { pair in pair.1.map { (pair.0, $0) } }
        guard !present.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + FormURLEncoded.serialize(present)
    }
}
