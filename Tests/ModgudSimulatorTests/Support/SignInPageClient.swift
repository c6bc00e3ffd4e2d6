import Core
import Crypto
import HTTP
@testable import ModgudSimulator
import TestSupport

/// A browser's part in the code flow, over real sockets: the authorize
/// request, the sign-in page's forms posted back with the hidden fields
/// the page carries, and the simulator's `sim_session` cookie.
struct SignInPageClient {
    let sim: SimHarness
    static let redirect = "http://localhost:8080/bff/callback"
    /// The `sim_session` cookie once a sign-in set it.
    var cookie: String?

    init(_ sim: SimHarness) { self.sim = sim }

    /// The parameters of an authorization request as `bff`.
    static func parameters(verifier: String, extra: [(String, String)] = []) -> [(String, String)] {
        [("client_id", "bff"), ("redirect_uri", redirect), ("response_type", "code"), ("scope", "openid profile offline_access"),
         ("state", "s1"), ("nonce", "n1"), ("code_challenge", PKCE.s256Challenge(for: verifier)),
         ("code_challenge_method", "S256")] + extra
    }

    func authorize(_ parameters: [(String, String)]) async throws -> RawResponse {
        try await sim.get("/connect/authorize?" + FormURLEncoded.serialize(parameters), headers: cookieHeader)
    }

    /// Posts the page's form: its hidden fields plus `fields`; keeps a new cookie.
    mutating func submit(_ page: RawResponse, _ fields: [(String, String)]) async throws -> RawResponse {
        let response = try await sim.postForm("/connect/authorize", Self.hiddenFields(page.bodyText) + fields,
                                              headers: cookieHeader)
        if let set = response.header("Set-Cookie"), set.hasPrefix("sim_session=") {
            cookie = String(set.dropFirst("sim_session=".count).prefix { $0 != ";" })
        }
        return response
    }

    /// Signs in through the page from a fresh authorization request; the redirect.
    mutating func signIn(_ email: String, password: String = "simulator",
                         _ parameters: [(String, String)]) async throws -> RawResponse {
        let page = try await authorize(parameters)
        guard page.status == 200 else { throw HarnessError.status(page.status, page.bodyText) }
        return try await submit(page, [("email", email), ("password", password)])
    }

    private var cookieHeader: [(String, String)] { cookie.map { [("Cookie", "sim_session=\($0)")] } ?? [] }

    /// The `<input type="hidden">` fields of a page, unescaped.
    static func hiddenFields(_ html: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        var rest = html[...]
        while let start = rest.firstRange(of: #"<input type="hidden" name=""#) {
            rest = rest[start.upperBound...]
            guard let nameEnd = rest.firstIndex(of: "\"") else { break }
            let name = rest[..<nameEnd]
            rest = rest[nameEnd...]
            guard let valueStart = rest.firstRange(of: #"value=""#) else { break }
            rest = rest[valueStart.upperBound...]
            guard let valueEnd = rest.firstIndex(of: "\"") else { break }
            fields.append((unescape(String(name)), unescape(String(rest[..<valueEnd]))))
            rest = rest[valueEnd...]
        }
        return fields
    }

    static func unescape(_ text: String) -> String {
        text.replacingAll("&quot;", "\"").replacingAll("&#39;", "'").replacingAll("&lt;", "<").replacingAll("&gt;", ">")
            .replacingAll("&amp;", "&")
    }

    /// The query of a redirect's `Location`.
    static func query(_ response: RawResponse) -> [(name: String, value: String)] {
        guard let location = response.header("Location"), let mark = location.firstIndex(of: "?") else { return [] }
        return FormURLEncoded.parse(location[location.index(after: mark)...]) ?? []
    }

    /// Redeems a code as `bff`.
    func exchange(code: String, verifier: String) async throws -> RawResponse {
        try await sim.postForm("/connect/token", [("grant_type", "authorization_code"), ("code", code),
                                                  ("redirect_uri", Self.redirect), ("code_verifier", verifier)],
                               headers: SimHarness.gateway())
    }
}
