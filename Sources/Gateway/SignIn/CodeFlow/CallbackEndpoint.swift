import Core
import HTTP
import HTTPCodec
import Modgud
import OIDC
import Routing
import Sessions

/// `GET /bff/callback?code&state[&iss]`: Modgud's redirect back. The flow
/// record is taken (single use) by the flow cookie and `state` together,
/// and `iss` checked when present, both before the code is redeemed; then
/// the code is redeemed, the id_token verified (its `nonce` the record's),
/// and a new session started as by any sign-in. Success is a `302` to the
/// sign-in's return path; every failure a `302` to the sign-in error path
/// with `?error=<code>` (`SignInErrorCode`), the reason only in the log.
struct CallbackEndpoint: Sendable {
    let shared: SignInContext
    let completion: SignInCompletion
    let settings: CodeFlowSettings
    let login: LoginEndpoint

    /// A failed step: the code for the browser, the reason for the log and
    /// the metric (a fixed word, never a value from the request).
    struct Failure: Error {
        let code: SignInErrorCode
        let reason: String
    }

    func respond(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        do {
            return try await complete(request, context)
        } catch let failure as Failure {
            settings.metrics.callbackFailures.increment([failure.reason])
            if !Self.auditedBySignIn.contains(failure.reason) {
                shared.audit.signInFailed(method: SignInMethod.code.rawValue, reason: failure.reason, context,
                                          address: shared.clientAddress(request))
            }
            context.logger.info("signin.callback_failed", ["reason": .string(failure.reason),
                                                           "error": .string(failure.code.rawValue)])
            var answer = login.errorRedirect(failure.code)
            if let header = SignInContext.cookieHeader(request), shared.sessions.namesSeveralFlowCookies(header) {
                answer.headers.add("Set-Cookie", shared.sessions.expiringFlowCookie())
            }
            return answer
        } catch {
            settings.metrics.callbackFailures.increment(["internal"])
            shared.audit.signInFailed(method: SignInMethod.code.rawValue, reason: "internal", context,
                                      address: shared.clientAddress(request))
            context.logger.error("signin.callback_failed", ["reason": "internal"])
            return login.errorRedirect(.serverError)
        }
    }

    /// The reasons of failures `SignInCompletion.signIn` has already
    /// audited (userinfo, the id_token's subject, the store).
    static let auditedBySignIn: Set<String> = ["userinfo_refused", "subject_mismatch", "store_unavailable", "session_failed"]

    private func complete(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let query = request.head.query.flatMap { FormURLEncoded.parse($0) } ?? []
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        guard let state = value("state"), !state.isEmpty, state.utf8.count <= 256 else {
            throw Failure(code: .invalidState, reason: "missing_state")
        }
        let flow = try await takeFlow(state: state, request, context)
        if let issuer = value("iss"), issuer != shared.modgud.endpoints.issuer {
            throw Failure(code: .invalidResponse, reason: "wrong_issuer")
        }
        if let error = value("error") {
            let code = SignInErrorCode.fromModgud(error)
            throw Failure(code: code, reason: code == .serverError ? "modgud_error_other" : "modgud_" + code.rawValue)
        }
        guard let code = value("code"), !code.isEmpty, let nonce = flow.values["nonce"],
              let verifier = flow.values["verifier"] else {
            throw Failure(code: .invalidResponse, reason: "missing_code")
        }
        let tokens = try await redeem(code: Secret(code), verifier: verifier, request, context)
        guard let idToken = tokens.idToken else {
            await completion.revokeAbandoned(tokens, context)
            throw Failure(code: .invalidResponse, reason: "no_id_token")
        }
        let identity: IDTokenClaims
        do {
            identity = try await shared.identity.verifyIDToken(idToken, nonce: nonce.revealed)
        } catch {
            completion.metrics.idTokenRefusals.increment(["code"])
            context.logger.warning("signin.id_token_refused", ["reason": .string(error.description)])
            await completion.revokeAbandoned(tokens, context)
            // Modgud's keys out of reach is Modgud's failure, not the token's.
            throw Failure(code: error == .keysUnavailable ? .serverError : .invalidResponse, reason: Self.reason(error))
        }
        let returnPath = ReturnPath.sanitized(flow.values["returnPath"]?.revealed)
        do {
            let answer = try await completion.signIn(tokens, request, context, audiencesAsked: true, method: .code,
                                                     identity: identity, endsFlow: false) { _, cookies in
                var answer = LoginEndpoint.redirect(returnPath)
                for cookie in cookies { answer.headers.add("Set-Cookie", cookie) }
                return answer
            }
            guard answer.status == .found else { throw Failure(code: .serverError, reason: "userinfo_refused") }
            settings.metrics.signIns.increment()
            return answer
        } catch let error as GatewayError {
            if error == SignInCompletion.idTokenRefused { throw Failure(code: .invalidResponse, reason: "subject_mismatch") }
            throw Failure(code: .serverError, reason: error.code == "store_unavailable" ? "store_unavailable" : "session_failed")
        }
    }

    /// The flow record for this browser and `state`, taken: missing,
    /// reused, expired and another browser's are all `invalid_state`.
    private func takeFlow(state: String, _ request: HTTPRequest, _ context: RequestContext) async throws -> FlowState {
        let lookup: SessionLookup<FlowState>
        do {
            lookup = try await shared.sessions.takeKeyedFlow(cookieHeader: SignInContext.cookieHeader(request), key: state)
        } catch {
            _ = SignInContext.gatewayError(error, context: context)
            throw Failure(code: .serverError, reason: "store_unavailable")
        }
        switch lookup {
        case .found(let flow) where flow.grant == AuthorizeRequest.flowGrant: return flow
        case .found: throw Failure(code: .invalidState, reason: "state_not_found")
        case .noCookie: throw Failure(code: .invalidState, reason: "no_flow_cookie")
        case .malformedCookie: throw Failure(code: .invalidState, reason: "malformed_flow_cookie")
        case .notFound: throw Failure(code: .invalidState, reason: "state_not_found")
        case .expired: throw Failure(code: .invalidState, reason: "state_expired")
        case .tampered:
            context.logger.warning("flow.tampered")
            throw Failure(code: .invalidState, reason: "state_tampered")
        }
    }

    /// The code redeemed at `/connect/token` with Basic and the browser's address.
    private func redeem(code: Secret, verifier: Secret, _ request: HTTPRequest, _ context: RequestContext) async throws -> TokenSet {
        let reply: ModgudReply
        do {
            reply = try await shared.modgud.token(.authorizationCode(code: code, verifier: verifier, redirectURI: settings.redirectURI),
                                                  forwardedFor: shared.clientAddress(request))
        } catch {
            _ = shared.relay.failure(error, endpoint: "code_redeem", context: context)
            throw Failure(code: .serverError, reason: "modgud_unreachable")
        }
        guard reply.isSuccess else {
            context.logger.warning("signin.code_refused", ["status": .int(reply.status.code),
                                                          "error": .string(ModgudReply.label(reply.oauthError ?? "none"))])
            throw Failure(code: .serverError, reason: "code_refused")
        }
        guard let json = reply.json, let tokens = TokenSet(json: json) else {
            throw Failure(code: .serverError, reason: "bad_token_response")
        }
        return tokens
    }

    /// A metric label for an id_token refusal.
    static func reason(_ error: JWTError) -> String {
        switch error {
        case .keysUnavailable: "id_token_keys_unavailable"
        case .unsupportedAlgorithm: "id_token_algorithm"
        case .badSignature, .unknownKey, .keyNotForAlgorithm: "id_token_signature"
        case .nonceMismatch: "id_token_nonce"
        case .wrongAudience, .wrongAuthorizedParty: "id_token_audience"
        case .wrongIssuer: "id_token_issuer"
        case .expired, .issuedInTheFuture, .tooOld: "id_token_time"
        default: "id_token_invalid"
        }
    }
}
