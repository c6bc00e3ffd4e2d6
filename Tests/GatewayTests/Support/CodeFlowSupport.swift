import Configuration
import Core
import HTTP
import ModgudSimulator
import Sessions
import Synchronization
import TestSupport
@testable import Gateway

/// A recording use of the hop in front of the simulator: it keeps every
/// pushed authorization request (`/connect/par`, the simulator's own,
/// which the discovery document advertises while the realm's `par` is on)
/// and every token call's form, can answer pushes with a failure instead,
/// and can replace the id_tokens of token answers. Everything else goes to
/// the simulator as it is.
final class ModgudFront: SimulatorHopUse {
    struct Push: Sendable {
        var headers: HTTPHeaders
        var fields: [(name: String, value: String)]
        func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }
    }

    private struct State {
        var pushes: [Push] = []
        /// A status `/connect/par` answers with instead (429, 500).
        var parFailure: Int?
        /// Makes the id_token `/connect/token` answers with from the
        /// simulator's claims.
        var idTokens: (@Sendable (JSON) -> String)?
        /// The forms of every `/connect/token` call.
        var tokenForms: [[(name: String, value: String)]] = []
    }

    let hop = SimulatorHop()
    private let state = Mutex(State())

    static let loopName = "modgud-front"

    init() {}

    var pushes: [Push] { state.withLock { $0.pushes } }

    var tokenForms: [[(name: String, value: String)]] { state.withLock { $0.tokenForms } }

    func failPushes(with status: Int?) { state.withLock { $0.parFailure = status } }

    /// From now on, every id_token of a `/connect/token` answer is replaced
    /// by what `make` returns for the simulator's claims (nil: as sent).
    func replaceIDTokens(_ make: (@Sendable (JSON) -> String)?) { state.withLock { $0.idTokens = make } }

    func respond(_ exchange: SimulatorHop.Exchange) async -> HTTPResponse {
        let path = exchange.path
        if path == "/connect/par" {
            let failure = state.withLock { state -> Int? in
                state.pushes.append(Push(headers: exchange.request.headers, fields: exchange.form))
                return state.parFailure
            }
            if let failure { return Self.failure(failure) }
        }
        let response = await exchange.forward()
        if path == "/connect/token" { state.withLock { $0.tokenForms.append(exchange.form) } }
        guard path == "/connect/token", let make = state.withLock({ $0.idTokens }), case .bytes(let bytes) = response.body,
              case .object(var answer)? = try? JSON.parse(bytes), let token = answer["id_token"]?.stringValue,
              let claims = IDTokens.claims(of: token)
        else { return response }
        answer["id_token"] = .string(make(claims))
        return HTTPResponse(status: response.status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                            bytes: JSON.object(answer).serialized)
    }

    /// Modgud's 429 (with `Retry-After`) or another failure.
    private static func failure(_ status: Int) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if status == 429 { headers.add("Retry-After", "7") }
        return HTTPResponse(status: HTTPStatus(status), headers: headers,
                            bytes: Array(#"{"error":"slow_down","error_description":"Too many requests."}"#.utf8))
    }
}

/// The gateway, the simulator behind `ModgudFront`, and the steps of a
/// sign-in through Modgud's pages as a browser takes them.
struct CodeFlowDeployment {
    static let origin = "http://localhost:8080"

    let harness: GatewayHarness
    let front: ModgudFront

    static func start(par: Bool = false, gateway configure: (inout GatewayConfig) -> Void = { _ in },
                      simulator simulate: @Sendable (inout SimulatorConfig) -> Void = { _ in }) async throws -> CodeFlowDeployment {
        let front = try await ModgudFront.start()
        let harness = try await front.harness(gateway: { config in
            config.signInErrorPath = "/signin-error"
            configure(&config)
        }, simulator: { config in
            config.realm.par = par
            simulate(&config)
        })
        // Discovery settles before the first sign-in (issuer, PAR endpoint).
        _ = await harness.service.modgud?.discover()
        return CodeFlowDeployment(harness: harness, front: front)
    }

    func stop() async {
        await harness.stop()
        await front.stop()
    }

    var simulator: Simulator { harness.simulator }

    func browser() -> Browser { harness.browser(origin: Self.origin) }

    /// `GET /bff/login?…` as a top-level navigation: no CSRF header.
    func login(_ browser: Browser, _ query: String = "") async throws -> RawResponse {
        try await browser.send("GET", "/bff/login" + (query.isEmpty ? "" : "?" + query), body: nil,
                               headers: [("Sec-Fetch-Site", "same-origin"), ("Sec-Fetch-Mode", "navigate")], csrf: false)
    }

    /// THE step that drives Modgud's authorize endpoint, from the URL
    /// `/bff/login` redirected to, to the redirect back to the gateway, as
    /// a person at the simulator's sign-in page: the page's form gets
    /// `email` and the seeded password, and a second-factor page `totp`.
    /// Returns the callback's path and query.
    func authorize(_ location: String, email: String = "ada@example.com", password: String = "simulator",
                   totp: String? = nil) async throws -> String {
        let base = front.baseURL
        guard location.hasPrefix(base) else { throw Failure.step("authorize URL off Modgud: \(location)") }
        var answer = try await Self.modgud(base, "GET", String(location.dropFirst(base.count)))
        for _ in 0..<3 where answer.status == 200 {
            let page = answer.bodyText
            var fields = Self.hiddenFields(page)
            if page.contains(#"name="password""#) { fields += [("email", email), ("password", password)] }
            if page.contains(#"name="totp_code""#) {
                guard let totp else { throw Failure.step("a second factor was asked for") }
                fields.append(("totp_code", totp))
            }
            answer = try await Self.modgud(base, "POST", "/connect/authorize", form: fields)
        }
        guard answer.status == 302, let back = answer.header("Location"), back.hasPrefix(Self.origin + "/bff/callback?")
        else { throw Failure.step("authorize did not redirect back: \(answer.status)") }
        return String(back.dropFirst(Self.origin.count))
    }

    /// One request to Modgud over a socket, as the browser makes it.
    private static func modgud(_ base: String, _ method: String, _ target: String,
                               form: [(String, String)]? = nil) async throws -> RawResponse {
        let client = try RawClient(port: UInt16(base.split(separator: ":").last!)!, timeout: 10)
        let body = form.map { Array(FormURLEncoded.serialize($0).utf8) } ?? []
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if form != nil { head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.count)\r\n" }
        await client.send(Array((head + "\r\n").utf8) + body)
        guard let answer = await client.readResponses(1).first else { throw Failure.step("Modgud did not answer") }
        return answer
    }

    /// The `<input type="hidden">` fields of a sign-in page, unescaped.
    static func hiddenFields(_ html: String) -> [(String, String)] {
        html.matches(of: /<input type="hidden" name="([^"]*)" value="([^"]*)">/).map {
            (unescape(String($0.output.1)), unescape(String($0.output.2)))
        }
    }

    static func unescape(_ text: String) -> String {
        var result = text
        for (entity, character) in [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")] {
            result = result.split(separator: entity, omittingEmptySubsequences: false).joined(separator: character)
        }
        return result
    }

    /// `GET /bff/callback?…` as the navigation Modgud's redirect makes.
    func callback(_ browser: Browser, _ pathAndQuery: String) async throws -> RawResponse {
        try await browser.send("GET", pathAndQuery, body: nil, headers: [("Sec-Fetch-Site", "cross-site"),
                                                                          ("Sec-Fetch-Mode", "navigate")], csrf: false)
    }

    /// The whole sign-in: login, authorize, callback; the callback's answer.
    func signIn(_ browser: Browser, email: String = "ada@example.com", query: String = "") async throws -> RawResponse {
        let login = try await login(browser, "loginHint=" + FormURLEncoded.encodeComponent(email) + (query.isEmpty ? "" : "&" + query))
        guard login.status == 302, let location = login.header("Location") else { throw Failure.step("login \(login.status)") }
        return try await callback(browser, authorize(location))
    }

    /// The session the browser's cookie names.
    func session(of browser: Browser) async throws -> Session? {
        guard let cookie = browser.cookies["__Host-bff"] else { return nil }
        return try await harness.service.sessions.load(cookieHeader: "__Host-bff=" + cookie)
    }

    /// The query of a URL as pairs.
    static func query(_ url: String) -> [(name: String, value: String)] {
        guard let mark = url.firstIndex(of: "?") else { return [] }
        return FormURLEncoded.parse(url[url.index(after: mark)...]) ?? []
    }

    enum Failure: Error { case step(String) }
}
