import Core
import HTTP
import Sessions
import TestSupport
import Testing
@testable import Gateway

/// Every way `/bff/callback` refuses: each ends at the sign-in error path
/// with its code, and no session exists afterwards.
@Suite("Code flow callback refusals", .serialized)
struct CallbackRefusalTests {
    /// A login started and driven to Modgud's redirect back, not yet followed.
    static func pendingCallback(_ deployment: CodeFlowDeployment, _ browser: Browser) async throws -> String {
        let login = try await deployment.login(browser, "loginHint=ada%40example.com&returnUrl=/app")
        let location = try #require(login.header("Location"))
        return try await deployment.authorize(location)
    }

    static func expectRefused(_ answer: RawResponse, _ code: String, _ browser: Browser, _ deployment: CodeFlowDeployment,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(answer.status == 302, sourceLocation: sourceLocation)
        #expect(answer.header("Location") == "/signin-error?error=" + code, sourceLocation: sourceLocation)
        #expect(answer.setCookie(named: "__Host-bff") == nil, "no session cookie", sourceLocation: sourceLocation)
        #expect(try await browser.get("/bff/user").status == 401, sourceLocation: sourceLocation)
    }

    @Test func aMissingFlowCookieIsInvalidState() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        let back = try await Self.pendingCallback(deployment, browser)
        let other = deployment.browser()
        try await Self.expectRefused(try await deployment.callback(other, back), "invalid_state", other, deployment)
        #expect(deployment.harness.modgudRequests().allSatisfy { $0["path"]?.stringValue != "/connect/token" },
                "the code is never redeemed")
        await deployment.stop()
    }

    @Test func anotherBrowsersFlowCookieIsInvalidState() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let victim = deployment.browser()
        let back = try await Self.pendingCallback(deployment, victim)
        let attacker = deployment.browser()
        _ = try await deployment.login(attacker, "loginHint=ada%40example.com")
        #expect(attacker.cookies["__Host-bff-flow"] != victim.cookies["__Host-bff-flow"])
        try await Self.expectRefused(try await deployment.callback(attacker, back), "invalid_state", attacker, deployment)
        // The victim's own flow is untouched by the stray attempt.
        #expect(try await deployment.callback(victim, back).header("Location") == "/app")
        await deployment.stop()
    }

    @Test func aReusedStateIsInvalidState() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        let back = try await Self.pendingCallback(deployment, browser)
        #expect(try await deployment.callback(browser, back).header("Location") == "/app")
        #expect(try await browser.post("/bff/logout").status == 200)
        try await Self.expectRefused(try await deployment.callback(browser, back), "invalid_state", browser, deployment)
        await deployment.stop()
    }

    @Test func anExpiredFlowIsInvalidState() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        let back = try await Self.pendingCallback(deployment, browser)
        // Its ten minutes run out: Redis drops the record at its TTL.
        let redis = deployment.harness.service.redis
        let keys = try await redis.send([Array("KEYS".utf8), Array("*flow:*".utf8)]).array ?? []
        #expect(keys.count == 1)
        for key in keys {
            _ = try await redis.send([Array("PEXPIRE".utf8), key.bytes ?? [], Array("1".utf8)])
        }
        try await Task.sleep(for: .milliseconds(50))
        try await Self.expectRefused(try await deployment.callback(browser, back), "invalid_state", browser, deployment)
        await deployment.stop()
    }

    @Test func aWrongIssuerIsInvalidResponseBeforeTheCodeIsRedeemed() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        let pending = try await Self.pendingCallback(deployment, browser)
        #expect(CodeFlowDeployment.query(pending).first("iss") == deployment.front.baseURL)
        let back = "/bff/callback?" + FormURLEncoded.serialize(CodeFlowDeployment.query(pending).map {
            ($0.name, $0.name == "iss" ? "https://evil.example" : $0.value)
        })
        try await Self.expectRefused(try await deployment.callback(browser, back), "invalid_response", browser, deployment)
        #expect(deployment.harness.modgudRequests().allSatisfy { $0["path"]?.stringValue != "/connect/token" })
        await deployment.stop()
    }

    @Test(arguments: [("access_denied", "access_denied"), ("login_required", "login_required"),
                      ("consent_required", "consent_required"), ("interaction_required", "interaction_required"),
                      ("temporarily_unavailable", "server_error"), ("<script>", "server_error")])
    func modgudsErrorIsPassedOnByNameFromTheFixedList(_ sent: String, _ expected: String) async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        let login = try await deployment.login(browser, "loginHint=ada%40example.com")
        let location = try #require(login.header("Location"))
        let state = try #require(CodeFlowDeployment.query(location).first("state"))
        let back = "/bff/callback?" + FormURLEncoded.serialize([("error", sent), ("error_description", "Nope <b>"),
                                                                     ("state", state)])
        let answer = try await deployment.callback(browser, back)
        try await Self.expectRefused(answer, expected, browser, deployment)
        #expect(!(answer.header("Location") ?? "").contains("Nope"))
        await deployment.stop()
    }

    static let defects: [(String, @Sendable (JSON) -> String)] = [
        ("bad signature", { IDTokens.forged($0) }),
        ("wrong nonce", { IDTokens.signed(IDTokens.changing($0, [("nonce", "another")])) }),
        ("no nonce", { IDTokens.signed(IDTokens.changing($0, [("nonce", nil)])) }),
        ("wrong aud", { IDTokens.signed(IDTokens.changing($0, [("aud", "someone-else")])) }),
        ("wrong azp", { IDTokens.signed(IDTokens.changing($0, [("azp", "someone-else")])) }),
        ("wrong iss", { IDTokens.signed(IDTokens.changing($0, [("iss", "https://evil.example")])) }),
        ("expired", { IDTokens.signed(IDTokens.changing($0, [("exp", .int(1_000_000_000))])) }),
        ("issued in the future", { IDTokens.signed(IDTokens.changing($0, [("iat", .int(4_000_000_000))])) }),
        ("another user", { IDTokens.signed(IDTokens.changing($0, [("sub", "someone-else")])) }),
        ("alg none", { IDTokens.unsigned($0) }),
        ("HS256", { IDTokens.hs256($0) }),
        ("not a JWT", { _ in "not-a-token" }),
    ]

    @Test(arguments: 0..<defects.count)
    func aDefectiveIDTokenIsInvalidResponseAndItsTokensAreRevoked(_ index: Int) async throws {
        let (name, make) = Self.defects[index]
        let deployment = try await CodeFlowDeployment.start()
        deployment.front.replaceIDTokens(make)
        let browser = deployment.browser()
        let answer = try await deployment.callback(browser, Self.pendingCallback(deployment, browser))
        try await Self.expectRefused(answer, "invalid_response", browser, deployment)
        let paths = deployment.harness.modgudRequests().compactMap { $0["path"]?.stringValue }
        #expect(paths.contains("/connect/revoke"), "\(name): the tokens nobody holds are revoked")
        await deployment.stop()
    }

    @Test func anAnswerWithoutAnIDTokenIsInvalidResponse() async throws {
        let deployment = try await CodeFlowDeployment.start(gateway: { $0.scopes = "profile email offline_access" })
        let browser = deployment.browser()
        let answer = try await deployment.callback(browser, Self.pendingCallback(deployment, browser))
        try await Self.expectRefused(answer, "invalid_response", browser, deployment)
        await deployment.stop()
    }

    @Test func failuresAreCountedByReasonAndLoggedWithoutSecrets() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        _ = try await deployment.callback(browser, "/bff/callback?code=c0de-s3cret&state=st4te-s3cret")
        let metrics = deployment.harness.service.metrics.render()
        #expect(metrics.contains(#"bff_code_flow_callback_failures_total{reason="no_flow_cookie"} 1"#))
        let lines = deployment.harness.logs.lines
        #expect(lines.contains { $0.contains("signin.callback_failed") && $0.contains("no_flow_cookie") })
        #expect(!lines.contains { $0.contains("c0de-s3cret") || $0.contains("st4te-s3cret") })
        let failed = AuditTrailTests.named("audit.signin.failed", try AuditTrailTests.events(deployment.harness))
        #expect(failed.map { [$0["method"]?.stringValue, $0["reason"]?.stringValue] } == [["code", "no_flow_cookie"]])
        #expect(!deployment.harness.audit.lines.contains { $0.contains("c0de-s3cret") || $0.contains("st4te-s3cret") })
        await deployment.stop()
    }
}
