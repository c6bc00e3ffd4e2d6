import Core
import HTTP

/// An authorization request's parameters, checked: the same rules whether
/// they arrive at `/connect/authorize` or are pushed to `/connect/par`.
struct AuthorizeRequest: Sendable {
    var client: ClientRegistration
    var redirectUri: String
    var state: String?
    var codeChallenge: String
    var scopes: [String]
    var resources: [String]
    var nonce: String?
    /// `prompt` values (`none`, `login`, …).
    var prompt: [String]
    /// `max_age` in seconds.
    var maxAge: Int?
    /// Pre-fills the sign-in page's e-mail field; never signs anyone in.
    var loginHint: String?

    /// Why a request was refused: before the redirect URI is trusted, a
    /// page; after, an error sent back to the client.
    enum Refusal: Error {
        case page(title: String, message: String)
        case redirect(error: String, description: String, redirectUri: String, state: String?)

        var error: String {
            switch self {
            case .page(let title, _): title == "Unknown client" ? "invalid_client" : "invalid_request"
            case .redirect(let error, _, _, _): error
            }
        }

        var description: String {
            switch self {
            case .page(_, let message): message
            case .redirect(_, let description, _, _): description
            }
        }
    }

    /// Checks `parameters` for a client of `config`.
    static func validate(_ parameters: [(name: String, value: String)],
                         config: SimulatorConfig) -> Result<AuthorizeRequest, Refusal> {
        func value(_ name: String) -> String? { parameters.first(name).flatMap { $0.isEmpty ? nil : $0 } }
        guard let clientId = value("client_id"), let client = config.client(clientId) else {
            return .failure(.page(title: "Unknown client", message: "The client_id is missing or unknown."))
        }
        guard let redirectUri = value("redirect_uri"), client.redirectUris.contains(redirectUri) else {
            return .failure(.page(title: "Bad redirect_uri", message: "The redirect_uri is not registered for this client."))
        }
        let state = value("state")
        func fail(_ error: String, _ description: String) -> Result<AuthorizeRequest, Refusal> {
            .failure(.redirect(error: error, description: description, redirectUri: redirectUri, state: state))
        }
        guard value("response_type") == "code" else { return fail("unsupported_response_type", "Only response_type=code is supported.") }
        guard client.holds(GrantType.authorizationCode) else {
            return fail("unauthorized_client", "This client application is not allowed to use the authorization code flow.")
        }
        guard let challenge = value("code_challenge"), value("code_challenge_method") == "S256" else {
            return fail("invalid_request", "PKCE with code_challenge_method=S256 is required.")
        }
        let resources = parameters.all("resource")
        guard resources.allSatisfy({ SimulatorCore.resourceAllowed($0, client: client) }) else {
            return fail("invalid_target", "The specified resource is not allowed for this client application.")
        }
        var maxAge: Int?
        if let text = value("max_age") {
            guard let seconds = Int(text), seconds >= 0 else { return fail("invalid_request", "The 'max_age' parameter is invalid.") }
            maxAge = seconds
        }
        let prompt = SimulatorCore.scopes(value("prompt"))
        if prompt.contains("none"), prompt.count > 1 {
            return fail("invalid_request", "The 'prompt' parameter cannot combine none with other values.")
        }
        return .success(AuthorizeRequest(
            client: client, redirectUri: redirectUri, state: state, codeChallenge: challenge,
            scopes: SimulatorCore.scopes(value("scope")), resources: resources, nonce: value("nonce"), prompt: prompt,
            maxAge: maxAge, loginHint: value("login_hint")))
    }
}

extension AuthorizeRequest.Refusal {
    /// The browser's answer: the page, or the redirect with `error`, `state` and `iss`.
    func response(issuer: String) -> HTTPResponse {
        switch self {
        case .page(let title, let message):
            return Reply.html(.badRequest, SignInPage.message(title, message))
        case .redirect(let error, let description, let redirectUri, let state):
            return Reply.redirect(SimulatorCore.appendQuery(redirectUri, [("error", error), ("error_description", description),
                                                                          ("state", state), ("iss", issuer)]))
        }
    }
}
