import Core
import HTTP
import HTTPCodec
import Modgud
import Routing
import Sessions

/// `GET /bff/login`: a browser navigation (no CSRF header) that starts an
/// authorization-code sign-in at Modgud. State, nonce and PKCE verifier go
/// into a flow record of their own (one per sign-in started, so several
/// tabs may sign in at once) bound to this browser by the flow cookie;
/// the browser goes to Modgud's authorize endpoint, through a pushed
/// request (RFC 9126) when Modgud advertises one.
struct LoginEndpoint: Sendable {
    let shared: SignInContext
    let settings: CodeFlowSettings

    func respond(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        let query = request.head.query.flatMap { FormURLEncoded.parse($0) } ?? []
        let returnPath = ReturnPath.sanitized(query.first { $0.name == "returnUrl" }?.value)
        guard var options = AuthorizeRequest.options(query) else {
            context.logger.info("signin.login_refused", ["reason": "invalid_parameter"])
            return errorRedirect(.invalidRequest)
        }
        var mfaToken: Secret?
        var pendingMFA: FlowState?
        if query.first(where: { $0.name == "continue" })?.value == "mfa" {
            // The sign-in waiting for its second factor continues at Modgud.
            let pending: FlowState?
            do {
                pending = try await shared.takeFlow(request, context) { $0.mfaToken != nil }
            } catch {
                return errorRedirect(.serverError)
            }
            guard let pending else {
                context.logger.info("signin.login_refused", ["reason": "no_pending_mfa"])
                return errorRedirect(.loginRequired)
            }
            pendingMFA = pending
            mfaToken = pending.mfaToken
            options.prompt = "login"
            options.loginHint = pending.values[Self.emailValue]?.revealed
        }
        let answer = await start(returnPath, options, mfaToken: mfaToken, request, context)
        let toModgud = answer.status == .found
            && answer.headers["Location"]?.hasPrefix(shared.modgud.endpoints.authorization) == true
        if let pendingMFA, !toModgud {
            // Nothing reached Modgud's page: the second factor stays waiting here.
            await shared.restoreFlow(pendingMFA, request, context)
        }
        return answer
    }

    /// The flow record and the redirect to Modgud for one sign-in.
    private func start(_ returnPath: String, _ options: AuthorizeRequest.Options, mfaToken: Secret?,
                       _ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        let modgud = shared.modgud
        let authorize: AuthorizeRequest
        do {
            authorize = try AuthorizeRequest(clientID: modgud.configuration.clientID, redirectURI: settings.redirectURI,
                                             scope: modgud.configuration.scopes, resources: modgud.configuration.resources,
                                             returnPath: returnPath, options: options, mfaToken: mfaToken)
        } catch {
            context.logger.error("signin.login_failed", ["reason": .string(error.description)])
            return errorRedirect(.serverError)
        }
        let cookie: Secret
        do {
            cookie = try await shared.sessions.beginKeyedFlow(
                FlowState(grant: AuthorizeRequest.flowGrant, values: authorize.flowState), key: authorize.state.revealed,
                cookieHeader: SignInContext.cookieHeader(request))
        } catch {
            _ = SignInContext.gatewayError(error, context: context)
            return errorRedirect(.serverError)
        }
        var answer = await destination(authorize, request, context)
        answer.headers.add("Set-Cookie", cookie.revealed)
        return answer
    }

    /// The flow-record value that holds the e-mail of a sign-in waiting
    /// for its second factor (written by `SignInCompletion`).
    static let emailValue = "email"

    /// The redirect to Modgud: to the authorize endpoint with a
    /// `request_uri` when Modgud takes pushed requests, else with every
    /// parameter. Modgud's 429 to the push is relayed as it is; any other
    /// failure of the push sends the browser to the error path.
    private func destination(_ authorize: AuthorizeRequest, _ request: HTTPRequest,
                             _ context: RequestContext) async -> HTTPResponse {
        let modgud = shared.modgud
        let pushed: ModgudReply?
        do {
            pushed = try await modgud.pushAuthorization(authorize.pushedParameters, forwardedFor: shared.clientAddress(request))
        } catch {
            _ = shared.relay.failure(error, endpoint: "par", context: context)
            return errorRedirect(.serverError)
        }
        guard let pushed else {
            context.logger.info("signin.login_started", ["pushed": .bool(false)])
            return Self.redirect(AuthorizeRequest.url(modgud.endpoints.authorization, authorize.parameters))
        }
        if pushed.isRateLimited { return shared.relay.rateLimitedResponse(pushed, endpoint: "par", context: context) }
        guard pushed.isSuccess, let requestURI = pushed.json?["request_uri"]?.stringValue, !requestURI.isEmpty else {
            context.logger.warning("signin.par_failed", ["status": .int(pushed.status.code),
                                                         "error": .string(ModgudReply.label(pushed.oauthError ?? "none"))])
            return errorRedirect(.serverError)
        }
        context.logger.info("signin.login_started", ["pushed": .bool(true)])
        return Self.redirect(AuthorizeRequest.url(modgud.endpoints.authorization,
                                                  [("client_id", modgud.configuration.clientID), ("request_uri", requestURI)]))
    }

    func errorRedirect(_ code: SignInErrorCode) -> HTTPResponse {
        Self.redirect(AuthorizeRequest.url(settings.errorPath, [("error", code.rawValue)]))
    }

    static func redirect(_ location: String) -> HTTPResponse {
        HTTPResponse(status: .found, headers: ["Location": location, "Cache-Control": "no-store"])
    }
}
