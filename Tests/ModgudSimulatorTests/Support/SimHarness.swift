import Core
import Crypto
import HTTP
@testable import ModgudSimulator
import System
import TestSupport

/// A simulator on a loopback port with its own loop, for one test, and a
/// small client that speaks to it over real sockets.
struct SimHarness {
    let group: EventLoopGroup
    let simulator: Simulator

    /// One RS256 key for every test: generating 2048-bit keys is slow.
    static let signingKey: RSAPrivateKey = {
        do { return try RSAPrivateKey(bits: 2048) } catch { fatalError("RSA key generation failed: \(error)") }
    }()

    static func start(_ configure: (inout SimulatorConfig) -> Void = { _ in }) async throws -> SimHarness {
        var config = SimulatorConfig.forTesting()
        configure(&config)
        let group = try EventLoopGroup(loops: 1, name: "sim-test")
        let simulator = try Simulator(config: config, signingKey: signingKey)
        try await simulator.start(loops: group.loops)
        return SimHarness(group: group, simulator: simulator)
    }

    func stop() async {
        await simulator.shutdown(gracePeriod: .milliseconds(200))
        group.shutdown()
    }

    var port: UInt16 { simulator.port }
    var issuer: String { simulator.issuer }

    // MARK: Requests

    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws -> RawResponse {
        let client = try RawClient(port: port)
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        await client.send(Array((head + "\r\n").utf8) + body)
        guard let response = await client.readResponses(1).first else { throw HarnessError.noResponse }
        return response
    }

    func get(_ target: String, headers: [(String, String)] = []) async throws -> RawResponse {
        try await request("GET", target, headers: headers)
    }

    func postForm(_ target: String, _ pairs: [(String, String)], headers: [(String, String)] = []) async throws -> RawResponse {
        try await request("POST", target, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
                          body: Array(FormURLEncoded.serialize(pairs).utf8))
    }

    func postJSON(_ target: String, _ json: JSON, headers: [(String, String)] = []) async throws -> RawResponse {
        try await request("POST", target, headers: [("Content-Type", "application/json")] + headers, body: json.serialized)
    }

    func delete(_ target: String, headers: [(String, String)] = []) async throws -> RawResponse {
        try await request("DELETE", target, headers: headers)
    }

    // MARK: Credentials and headers

    static func basic(_ id: String, _ secret: String) -> (String, String) {
        ("Authorization", "Basic " + Base64.encode(Array("\(FormURLEncoded.encode(id)):\(FormURLEncoded.encode(secret))".utf8)))
    }

    /// The gateway's headers: Basic as `bff` and a forwarded address.
    static func gateway(_ address: String = "203.0.113.7") -> [(String, String)] {
        [basic("bff", "bff-secret"), ("Modgud-Forwarded-For", address)]
    }

    static func bearer(_ token: String) -> (String, String) { ("Authorization", "Bearer \(token)") }

    // MARK: Flows

    /// The newest message to `email` in the dev mailbox.
    func latestMail(_ email: String) async throws -> JSON {
        let response = try await get("/dev/mailbox?email=\(FormURLEncoded.encode(email))")
        guard let first = try response.json()[0] else { throw HarnessError.noMail(email) }
        return first
    }

    /// Requests a code as the gateway and returns it from the mailbox.
    func requestCode(_ email: String, from address: String = "203.0.113.7") async throws -> String {
        let response = try await postJSON("/api/account/native/otp/request", ["Email": .string(email)],
                                          headers: Self.gateway(address))
        guard response.status == 200 else { throw HarnessError.status(response.status, response.bodyText) }
        guard let code = try await latestMail(email)["code"]?.stringValue else { throw HarnessError.noMail(email) }
        return code
    }

    /// Signs `email` in with an e-mailed code as the gateway; the token response.
    func signIn(_ email: String, scope: String = "openid profile email offline_access",
                extra: [(String, String)] = []) async throws -> JSON {
        let code = try await requestCode(email)
        let response = try await postForm("/connect/token", [("grant_type", GrantType.otp), ("username", email),
                                                             ("otp_code", code), ("scope", scope)] + extra,
                                          headers: Self.gateway())
        guard response.status == 200 else { throw HarnessError.status(response.status, response.bodyText) }
        return try response.json()
    }

    func refresh(_ token: String) async throws -> RawResponse {
        try await postForm("/connect/token", [("grant_type", "refresh_token"), ("refresh_token", token)],
                           headers: Self.gateway())
    }

    func config(_ patch: JSON) async throws {
        let response = try await postJSON("/dev/config", patch)
        guard response.status == 200 else { throw HarnessError.status(response.status, response.bodyText) }
    }

    func stats() async throws -> JSON { try await get("/dev/stats").json() }

    func totp(_ email: String) async throws -> String {
        guard let code = try await get("/dev/totp?email=\(FormURLEncoded.encode(email))").json()["code"]?.stringValue else {
            throw HarnessError.noMail(email)
        }
        return code
    }

    func advanceClock(_ seconds: Double) async throws {
        _ = try await postJSON("/dev/clock", ["advanceSeconds": .double(seconds)])
    }
}

enum HarnessError: Error {
    case noResponse
    case noMail(String)
    case status(Int, String)
}

extension RawResponse {
    func json() throws -> JSON { try JSON.parse(body) }

    /// The value of `key` in an object body, or nil.
    func field(_ key: String) -> String? { (try? json())?[key]?.stringValue }

    var error: String? { field("error") }
}

/// Starts a simulator, runs `body`, and stops it even when `body` throws.
func withSimulator(_ configure: (inout SimulatorConfig) -> Void = { _ in },
                   _ body: (SimHarness) async throws -> Void) async throws {
    let harness = try await SimHarness.start(configure)
    do {
        try await body(harness)
    } catch {
        await harness.stop()
        throw error
    }
    await harness.stop()
}
