import Core
import Crypto
import HTTP
import Routing
import Sessions

// `session`: the app's web view redeems the code with its verifier.
extension AppLoginEndpoints {
    /// `session` (throttled per client address): the code is taken on the
    /// first attempt, right or wrong; a wrong verifier revokes the moved
    /// tokens at once. Success is a new session for this web view holding
    /// the moved tokens (`method: app`, the original sign-in time kept),
    /// as any sign-in: an older session of this web view ends.
    func session(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let client = shared.clientAddress(request)
        try settings.sessionLimit?.check(client)
        let input = try await JSONRequest.read(request, context: context)
        let code = try input.string("code", maxLength: 64)
        let verifier = try AppLoginInput.verifier(input)
        guard AppLoginInput.isBase64URL43(code),
              let handover = try await shared.store(context, { () async throws(SessionError) in
                  try await shared.sessions.redeemAppLoginCode(code)
              })
        else {
            shared.audit.signInFailed(method: SignInMethod.app.rawValue, reason: "invalid_code", context, address: client)
            throw GatewayError.appCodeInvalid
        }
        guard constantTimeEquals(PKCE.s256Challenge(for: verifier).utf8, handover.challenge.utf8) else {
            // The code is burnt; whoever holds it without the verifier must
            // not keep the sign-in alive either.
            let (failed, count) = await refresher.revoker.revoke([handover.data.tokens], reason: "app_wrong_verifier")
            context.logger.warning("app_login.wrong_verifier", ["revoked": .int(count - failed), "of": .int(count)])
            shared.audit.signInFailed(method: SignInMethod.app.rawValue, reason: "wrong_verifier",
                                      subject: handover.data.subject, context, address: client)
            throw GatewayError.appCodeInvalid
        }
        var data = handover.data
        data.method = .app
        let session: Session, setCookie: Secret, ended: Session?
        do {
            (session, setCookie, ended) = try await shared.sessions.createEnding(
                data, replacing: SignInContext.cookieHeader(request),
                device: DeviceLine.describe(userAgent: request.headers["User-Agent"]), address: client.description,
                authenticatedAt: handover.authenticatedAt)
        } catch {
            refresher.revoker.revokeInBackground([handover.data.tokens], reason: "app_handoff_failed", logger: context.logger)
            shared.audit.signInFailed(method: SignInMethod.app.rawValue, reason: "session_store_failed",
                                      subject: data.subject, context, address: client)
            throw SignInContext.gatewayError(error, context: context)
        }
        if let ended {
            refresher.revoker.revokeInBackground([ended.data.tokens], reason: "replaced", logger: context.logger)
            shared.audit.sessionEnded(reason: "replaced", subject: ended.data.subject, context, address: client)
        }
        shared.audit.signInSucceeded(method: SignInMethod.app.rawValue, subject: data.subject, context, address: client)
        return .json(.ok, UserView.body(session), cookies: [setCookie.revealed])
    }
}
