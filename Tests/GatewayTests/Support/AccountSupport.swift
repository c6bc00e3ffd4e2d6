import Configuration
import Core
import Crypto
import HTTP
import ModgudSimulator
import Sessions
import Synchronization
import TestSupport
@testable import Gateway

/// One call the gateway made to Modgud, exactly as it arrived, with
/// Modgud's answer.
struct TappedCall: Sendable {
    var method: String
    var path: String
    var headers: HTTPHeaders
    var body: [UInt8]
    var status: Int
    var responseHeaders: HTTPHeaders
    /// Nil when the answer was streamed.
    var responseBody: [UInt8]?

    func formValue(_ name: String) -> String? {
        (FormURLEncoded.parse(body) ?? []).first { $0.name == name }?.value
    }

    var json: JSON? { try? JSON.parse(body) }
    var responseJSON: JSON? { responseBody.flatMap { try? JSON.parse($0) } }
}

/// A recording use of the hop between the gateway and the in-process
/// simulator. The simulator's own request log keeps neither form fields
/// nor token values; the tap keeps both, and stopping it makes Modgud
/// unreachable.
final class ModgudTap: SimulatorHopUse {
    let hop = SimulatorHop()
    private let recorded = Mutex<[TappedCall]>([])

    static let loopName = "modgud-tap"

    init() {}

    /// Every call so far, oldest first.
    var calls: [TappedCall] { recorded.withLock { $0 } }

    /// A mark for `calls(since:)`.
    var mark: Int { recorded.withLock { $0.count } }

    /// The calls after `mark`, without discovery.
    func calls(since mark: Int) -> [TappedCall] {
        recorded.withLock { Array($0.dropFirst(mark)) }.filter { !$0.path.hasPrefix("/.well-known/") }
    }

    func respond(_ exchange: SimulatorHop.Exchange) async -> HTTPResponse {
        let response = await exchange.forward()
        var answered: [UInt8]?
        if case .bytes(let bytes) = response.body { answered = bytes } else if case .empty = response.body { answered = [] }
        let request = exchange.request
        let call = TappedCall(method: request.method.rawValue, path: exchange.path, headers: request.headers, body: exchange.body,
                              status: response.status.code, responseHeaders: response.headers, responseBody: answered)
        recorded.withLock { $0.append(call) }
        return response
    }
}

/// The harness with the tap in front of the simulator, and the look-ups
/// the account tests share.
struct AccountDeployment {
    static let origin = "http://localhost:8080"
    static let clientBasic = "Basic " + Base64.encode(Array("bff:bff-secret".utf8))

    let harness: GatewayHarness
    let tap: ModgudTap

    static func start(gateway configure: (inout GatewayConfig) -> Void = { _ in },
                      simulator simulate: @Sendable (inout SimulatorConfig) -> Void = { _ in }) async throws -> AccountDeployment {
        let tap = try await ModgudTap.start()
        let harness = try await tap.harness(gateway: configure, simulator: simulate)
        return AccountDeployment(harness: harness, tap: tap)
    }

    func stop() async {
        await harness.stop()
        await tap.stop()
    }

    var simulator: Simulator { harness.simulator }

    /// A browser signed in with an e-mail code.
    func signedInBrowser(email: String = "ada@example.com") async throws -> Browser {
        let browser = harness.browser(origin: Self.origin)
        let response = try await SignInFlowTests.signInWithCode(harness, browser, email: email)
        guard response.status == 200, browser.cookies["__Host-bff"] != nil else { throw Failure.signInFailed(response.status) }
        return browser
    }

    /// The session the browser's cookie points to, read from Redis.
    func session(of browser: Browser) async throws -> Session? {
        guard let cookie = browser.cookies["__Host-bff"] else { return nil }
        return try await session(cookie: cookie)
    }

    func session(cookie: String) async throws -> Session? {
        try await harness.service.sessions.load(cookieHeader: "__Host-bff=" + cookie)
    }

    /// Whether the session's record is still in the store (read without renewing it).
    func recordExists(_ session: Session) async throws -> Bool {
        if case .notFound = try await harness.service.sessions.reload(session) { return false }
        return true
    }

    /// `POST /connect/introspect` at the simulator, as the gateway's client.
    func introspect(_ token: String) async throws -> JSON {
        let form = FormURLEncoded.serialize([("token", token)])
        return try PasskeyEnrolment.json(await simulator.respond(PasskeyEnrolment.request(.post, "/connect/introspect",
            body: Array(form.utf8), headers: [("Authorization", Self.clientBasic),
                                              ("Content-Type", "application/x-www-form-urlencoded")])))
    }

    /// A refresh-token grant at the simulator, as the gateway's client.
    func refreshAtModgud(_ refreshToken: String) async throws -> (status: Int, json: JSON) {
        let form = FormURLEncoded.serialize([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        let response = await simulator.respond(PasskeyEnrolment.request(.post, "/connect/token", body: Array(form.utf8),
            headers: [("Authorization", Self.clientBasic), ("Modgud-Forwarded-For", "127.0.0.1"),
                      ("Content-Type", "application/x-www-form-urlencoded")]))
        return (response.status.code, try PasskeyEnrolment.json(response))
    }

    /// A counter of the simulator's `/dev/stats`.
    func stat(_ group: String, _ key: String) -> Int {
        simulator.stats()[group]?[key]?.intValue ?? 0
    }

    enum Failure: Error { case signInFailed(Int) }
}

extension RawResponse {
    /// The `Set-Cookie` header for `name`, if this response sent one.
    func setCookie(named name: String) -> String? {
        setCookies.first { $0.hasPrefix(name + "=") }
    }
}
