import Testing
import Core
import HTTP
import ModgudSimulator
import TestSupport
@testable import Gateway

/// Runs every sign-in flow in one deployment, then scans everything the
/// browser received (status lines, headers, bodies) and every log line for
/// any token, code, ceremony id, `mfa_token` or the client secret that
/// passed through the gateway; logs are also scanned for cookie values.
@Suite("Secrets never leak", .serialized)
struct SecretLeakTests {
    @Test func noResponseOrLogLineCarriesASecret() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        _ = try await browser.get("/bff/user")
        _ = try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": "999999"])
        _ = try await SignInFlowTests.signInWithCode(harness, browser, email: "grace@example.com")
        _ = try await browser.post("/bff/mfa", ["totpCode": .string(harness.simulator.totpCode(for: "grace@example.com") ?? "")])
        _ = try await browser.post("/bff/magic/request", ["email": "ada@example.com"])
        if let mail = harness.simulator.mail(to: "ada@example.com").first(where: { $0.token != nil }) {
            _ = try await browser.post("/bff/magic/redeem", ["userId": .string(mail.userId ?? ""), "token": .string(mail.token ?? "")])
        }
        let passkeys = PasskeyEnrolment()
        try await passkeys.enrol(harness: harness, email: "ada@example.com", origin: "http://localhost:8080")
        let begun = try await browser.post("/bff/passkey/begin")
        if let options = begun.json?["options"] {
            _ = try await browser.post("/bff/passkey/redeem", ["assertion": try await passkeys.assert(options: options, origin: "http://localhost:8080")])
        }
        for _ in 0..<6 { _ = try await browser.post("/bff/otp/request", ["email": "limit@example.com"]) }

        // What must never reach the browser or a log line.
        var secrets: Set<String> = ["bff-secret"]
        for answer in harness.answers.all {
            guard case .bytes(let body) = answer.body, let json = try? JSON.parse(body) else { continue }
            for key in ["access_token", "refresh_token", "id_token", "mfa_token", "ceremonyId"] {
                if let value = json[key]?.stringValue { secrets.insert(value) }
            }
        }
        for email in ["ada@example.com", "grace@example.com", "limit@example.com"] {
            for mail in harness.simulator.mail(to: email) {
                for value in [mail.code, mail.token] { if let value { secrets.insert(value) } }
            }
        }
        #expect(secrets.count > 10, "the flows produced tokens and codes to look for")

        let received = browser.received.withLock { $0 }
        #expect(received.count > 15)
        let everythingSent = received.map { response in
            response.headers.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + "\n" + response.bodyText
        }.joined(separator: "\n")
        let logs = harness.logs.lines.joined(separator: "\n")
        #expect(!logs.isEmpty)
        for secret in secrets where secret.count >= 6 {
            #expect(!everythingSent.contains(secret), "a secret reached the browser")
            #expect(!logs.contains(secret), "a secret reached a log line")
        }
        for cookie in browser.cookies.values + received.flatMap(\.setCookies).compactMap({ $0.split(separator: ";").first?.split(separator: "=").last.map(String.init) }) where cookie.count > 20 {
            #expect(!logs.contains(cookie), "a cookie value reached a log line")
        }
        await harness.stop()
    }
}
