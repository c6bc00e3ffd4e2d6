import Observability

/// What the authorization-code flow needs beyond the shared sign-in
/// context: where Modgud sends the browser back, where a failure sends it,
/// where Modgud's end-session page returns it, and the flow's counters.
struct CodeFlowSettings: Sendable {
    /// `<BFF_PUBLIC_ORIGIN>/bff/callback`.
    let redirectURI: String
    /// BFF_SIGNIN_ERROR_PATH: a same-origin path.
    let errorPath: String
    /// BFF_POST_LOGOUT_REDIRECT_URI.
    let postLogoutRedirect: String
    /// BFF_CODE_FLOW: `/bff/login` and `/bff/callback` are served.
    let enabled: Bool
    let metrics: CodeFlowMetrics
}

/// The code flow's counters: sign-ins completed through `/bff/callback`,
/// callback failures by reason, and id_tokens of native grants refused.
struct CodeFlowMetrics: Sendable {
    let signIns: Counter
    let callbackFailures: Counter
    let idTokenRefusals: Counter

    init(_ metrics: MetricsRegistry) {
        signIns = metrics.counter("bff_code_flow_signins_total",
                                  help: "Sign-ins completed through /bff/callback (authorization code + PKCE).")
        callbackFailures = metrics.counter("bff_code_flow_callback_failures_total",
                                           help: "/bff/callback answers that sent the browser to the sign-in error path, by reason.",
                                           labels: ["reason"])
        idTokenRefusals = metrics.counter("bff_id_token_refusals_total",
                                          help: "id_tokens of sign-ins that failed verification, by grant kind (code, native).",
                                          labels: ["grant"])
    }
}

/// The codes `/bff/login` and `/bff/callback` put in `?error=` on the
/// sign-in error path: a fixed list (Docs/sign-in.md), never Modgud's text.
enum SignInErrorCode: String, Sendable {
    /// Modgud's own, passed on by name.
    case accessDenied = "access_denied"
    case loginRequired = "login_required"
    case consentRequired = "consent_required"
    case interactionRequired = "interaction_required"
    /// The state is missing, reused, expired or another browser's.
    case invalidState = "invalid_state"
    /// An `iss` or id_token check failed.
    case invalidResponse = "invalid_response"
    /// `/bff/login` was given a parameter it cannot use.
    case invalidRequest = "invalid_request"
    /// Modgud unreachable, the session store down, anything else.
    case serverError = "server_error"

    /// Modgud's `error=` values passed on by name.
    static func fromModgud(_ error: String) -> SignInErrorCode {
        switch error {
        case "access_denied": .accessDenied
        case "login_required": .loginRequired
        case "consent_required": .consentRequired
        case "interaction_required": .interactionRequired
        default: .serverError
        }
    }
}
