import Configuration
import Core
import HTTP
import ModgudSimulator
import Sessions
import Synchronization
import TestSupport
@testable import Gateway

/// A hop in front of the simulator that can add pushed authorization
/// requests (RFC 9126) to it: with `par` on, discovery advertises
/// `/connect/par`, which keeps the pushed parameters under a `request_uri`
/// (single use), and `/connect/authorize?client_id&request_uri` expands
/// them for the simulator. With `par` off, discovery advertises none.
/// Everything else goes to the simulator as it is. Every push is recorded.
final class ModgudFront: Sendable {
    struct Push: Sendable {
        var headers: HTTPHeaders
        var fields: [(name: String, value: String)]
        func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }
    }

    private struct State {
        var simulator: Simulator?
        var waiting: [CheckedContinuation<Simulator, Never>] = []
        var pushed: [String: [(name: String, value: String)]] = [:]
        var pushes: [Push] = []
        /// A status `/connect/par` answers with instead (429, 500).
        var parFailure: Int?
        /// Makes the id_token `/connect/token` answers with from the
        /// simulator's claims.
        var idTokens: (@Sendable (JSON) -> String)?
        /// The forms of every `/connect/token` call.
        var tokenForms: [[(name: String, value: String)]] = []
    }

    let par: Bool
    private let state = Mutex(State())
    private let server = Mutex<LoopbackServer?>(nil)
    private let port = Mutex<UInt16>(0)

    var baseURL: String { "http://127.0.0.1:\(port.withLock { $0 })" }

    private init(par: Bool) { self.par = par }

    static func start(par: Bool) async throws -> ModgudFront {
        let front = ModgudFront(par: par)
        let server = try await LoopbackServer.launch(loops: 1, name: "modgud-front", configure: { _ in }) { request in
            await front.respond(request)
        }
        front.server.withLock { $0 = server }
        front.port.withLock { $0 = server.port }
        return front
    }

    /// Forwards to `simulator` from now on, which names this hop as its issuer.
    func attach(_ simulator: Simulator) {
        let base = baseURL
        simulator.updateConfig { $0.publicURL = base }
        let waiting = state.withLock { state in
            state.simulator = simulator
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: simulator) }
    }

    var pushes: [Push] { state.withLock { $0.pushes } }

    var tokenForms: [[(name: String, value: String)]] { state.withLock { $0.tokenForms } }

    func failPushes(with status: Int?) { state.withLock { $0.parFailure = status } }

    /// From now on, every id_token of a `/connect/token` answer is replaced
    /// by what `make` returns for the simulator's claims (nil: as sent).
    func replaceIDTokens(_ make: (@Sendable (JSON) -> String)?) { state.withLock { $0.idTokens = make } }

    func stop() async {
        guard let server = server.withLock({ server in defer { server = nil }; return server }) else { return }
        await server.stop()
    }

    private func respond(_ request: HTTPRequest) async -> HTTPResponse {
        let simulator = await attached()
        let path = String(request.path)
        if path == "/.well-known/openid-configuration" {
            let response = await simulator.respond(request)
            guard case .bytes(let bytes) = response.body, case .object(var document)? = try? JSON.parse(bytes) else { return response }
            document["pushed_authorization_request_endpoint"] = par ? .string(baseURL + "/connect/par") : nil
            return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], bytes: JSON.object(document).serialized)
        }
        if par, path == "/connect/par", request.method == .post {
            let body = (try? await request.body.collect(upTo: 1 << 16)) ?? []
            return push(request.headers, FormURLEncoded.parse(body) ?? [])
        }
        if par, path == "/connect/authorize", let query = request.head.query, let pairs = FormURLEncoded.parse(query),
           let uri = pairs.first(where: { $0.name == "request_uri" })?.value {
            guard let fields = state.withLock({ $0.pushed.removeValue(forKey: uri) }),
                  pairs.first(where: { $0.name == "client_id" })?.value == fields.first(where: { $0.name == "client_id" })?.value
            else { return HTTPResponse(status: .badRequest, bytes: Array("unknown request_uri".utf8)) }
            var head = request.head
            // What the pushed request named, and what a form of the page adds.
            let added = pairs.filter { $0.name != "client_id" && $0.name != "request_uri" }
            head.target = "/connect/authorize?" + FormURLEncoded.serialize((fields + added).map { ($0.name, $0.value) })
            return await simulator.respond(HTTPRequest(head: head, body: .bytes([]), peer: request.peer))
        }
        let body = (try? await request.body.collect(upTo: 1 << 20)) ?? []
        var head = request.head
        head.framing = body.isEmpty ? .none : .contentLength(body.count)
        let response = await simulator.respond(HTTPRequest(head: head, body: .bytes(body), peer: request.peer))
        if path == "/connect/token" { state.withLock { $0.tokenForms.append(FormURLEncoded.parse(body) ?? []) } }
        guard path == "/connect/token", let make = state.withLock({ $0.idTokens }), case .bytes(let bytes) = response.body,
              case .object(var answer)? = try? JSON.parse(bytes), let token = answer["id_token"]?.stringValue,
              let claims = IDTokens.claims(of: token)
        else { return response }
        answer["id_token"] = .string(make(claims))
        return HTTPResponse(status: response.status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                            bytes: JSON.object(answer).serialized)
    }

    private func push(_ headers: HTTPHeaders, _ fields: [(name: String, value: String)]) -> HTTPResponse {
        let failure = state.withLock { state -> Int? in
            state.pushes.append(Push(headers: headers, fields: fields))
            return state.parFailure
        }
        if let failure {
            var answer: HTTPHeaders = ["Content-Type": "application/json"]
            if failure == 429 { answer.add("Retry-After", "7") }
            return HTTPResponse(status: HTTPStatus(failure), headers: answer,
                                bytes: Array(#"{"error":"slow_down","error_description":"Too many requests."}"#.utf8))
        }
        guard headers["Authorization"] == AccountDeployment.clientBasic else {
            return HTTPResponse(status: .unauthorized, bytes: Array(#"{"error":"invalid_client"}"#.utf8))
        }
        let uri = "urn:ietf:params:oauth:request_uri:" + String(UInt64.random(in: 1...UInt64.max), radix: 36)
        state.withLock { $0.pushed[uri] = fields }
        return HTTPResponse(status: HTTPStatus(201), headers: ["Content-Type": "application/json"],
                            bytes: JSON.object(["request_uri": .string(uri), "expires_in": 60]).serialized)
    }

    private func attached() async -> Simulator {
        await withCheckedContinuation { continuation in
            let ready: Simulator? = state.withLock { state in
                if let simulator = state.simulator { return simulator }
                state.waiting.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
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
        let front = try await ModgudFront.start(par: par)
        let url = front.baseURL
        let harness = try await GatewayHarness.start(gateway: { config in
            config.signInErrorPath = "/signin-error"
            configure(&config)
            config.modgudURL = HTTPURL(url)
        }, simulator: simulate)
        front.attach(harness.simulator)
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

    /// THE step that drives Modgud's authorize endpoint from the URL
    /// `/bff/login` redirected to, to the redirect back to the gateway:
    /// the simulator signs in the user its `login_hint` names; `extra`
    /// adds form fields (a TOTP code). Returns the callback's path and query.
    func authorize(_ location: String, extra: [(String, String)] = []) async throws -> String {
        let base = front.baseURL
        guard location.hasPrefix(base) else { throw Failure.step("authorize URL off Modgud: \(location)") }
        var target = String(location.dropFirst(base.count))
        if !extra.isEmpty { target += "&" + FormURLEncoded.serialize(extra) }
        let client = try RawClient(port: UInt16(base.split(separator: ":").last!)!, timeout: 10)
        await client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        guard let answer = await client.readResponses(1).first, answer.status == 302,
              let back = answer.header("Location"), back.hasPrefix(Self.origin + "/bff/callback?")
        else { throw Failure.step("authorize did not redirect back") }
        return String(back.dropFirst(Self.origin.count))
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
