import Core
import Crypto
import HTTPCodec

/// One authorization request (RFC 6749 §4.1.1 with PKCE, OIDC's `nonce`):
/// the secrets made for it and the parameters Modgud gets, in the order
/// they are sent. The `state` is also the key of the flow record.
struct AuthorizeRequest: Sendable {
    /// ≥ 256 random bits each, base64url.
    let state: Secret
    let nonce: Secret
    let verifier: Secret
    /// Where the browser goes after the sign-in (already sanitized).
    let returnPath: String
    /// Passed on only through PAR: a `mfa_token` never appears in a URL.
    let mfaToken: Secret?
    let parameters: [(String, String)]

    /// The flow record's grant name.
    static let flowGrant = "authorization_code"

    /// What the browser asked for, checked: `prompt` (one of the four
    /// passed on), `max_age`, `login_hint`.
    struct Options: Sendable {
        var prompt: String?
        var maxAge: Int?
        var loginHint: String?
    }

    static let prompts: Set<String> = ["login", "none", "consent", "select_account"]
    /// The longest `loginHint` passed on, in bytes (an e-mail address is at most 254).
    static let maximumHintBytes = 320

    init(clientID: String, redirectURI: String, scope: String, resources: [String], returnPath: String,
         options: Options, mfaToken: Secret?) throws(CryptoError) {
        state = Secret(try SecureRandom.token(byteCount: 32))
        nonce = Secret(try SecureRandom.token(byteCount: 32))
        verifier = Secret(try PKCE.makeVerifier())
        self.returnPath = returnPath
        self.mfaToken = mfaToken
        var parameters: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", state.revealed), ("nonce", nonce.revealed),
            ("code_challenge", PKCE.s256Challenge(for: verifier.revealed)), ("code_challenge_method", "S256"),
        ]
        parameters += resources.map { ("resource", $0) }
        if let prompt = options.prompt { parameters.append(("prompt", prompt)) }
        if let maxAge = options.maxAge { parameters.append(("max_age", String(maxAge))) }
        if let hint = options.loginHint { parameters.append(("login_hint", hint)) }
        self.parameters = parameters
    }

    /// The parameters of a pushed request: these, and the `mfa_token` of a
    /// second factor continued in the browser.
    var pushedParameters: [(String, String)] {
        parameters + (mfaToken.map { [("mfa_token", $0.revealed)] } ?? [])
    }

    /// `url` with `pairs` as its query.
    static func url(_ url: String, _ pairs: [(String, String)]) -> String {
        url + (url.contains("?") ? "&" : "?") + FormURLEncoded.serialize(pairs)
    }

    /// What the flow record keeps for the callback.
    var flowState: FlowStateValues {
        ["nonce": nonce, "verifier": verifier, "returnPath": Secret(returnPath)]
    }

    typealias FlowStateValues = [String: Secret]

    /// `options` read from the `/bff/login` query; nil when one is malformed
    /// (a `maxAge` that is not a non-negative integer, a hint too long or
    /// with a control character). An unknown `prompt` is left out.
    static func options(_ query: [(name: String, value: String)]) -> Options? {
        var options = Options()
        if let prompt = query.first(where: { $0.name == "prompt" })?.value, prompts.contains(prompt) {
            options.prompt = prompt
        }
        if let text = query.first(where: { $0.name == "maxAge" })?.value {
            guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let maxAge = Int(text) else { return nil }
            options.maxAge = maxAge
        }
        if let hint = query.first(where: { $0.name == "loginHint" })?.value, !hint.isEmpty {
            guard hint.utf8.count <= maximumHintBytes, hint.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
            else { return nil }
            options.loginHint = hint
        }
        return options
    }
}
