import Configuration
import Core
import Testing
import TestSupport
@testable import Gateway

/// The audit trail (Docs/operations.md, "Audit trail"): each sign-in
/// action writes its event exactly once, with the common fields and its
/// own, counts it in `bff_signins_total`, and no line holds a secret or,
/// unless `BFF_AUDIT_EMAIL=true`, an e-mail address.
@Suite("Audit trail", .serialized)
struct AuditTrailTests {
    static let email = SignInFlowTests.email
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"

    /// The audit lines, parsed; every one a JSON object with the common
    /// fields in order.
    static func events(_ harness: GatewayHarness) throws -> [JSON] {
        try harness.audit.lines.map { line in
            #expect(line.hasPrefix(#"{"ts":""#), "ts first: \(line)")
            let json = try JSON.parse(Array(line.utf8))
            #expect(json["event"]?.stringValue?.hasPrefix("audit.") == true)
            for key in ["ts", "requestId", "traceId", "address"] { #expect(json[key]?.stringValue?.isEmpty == false, "\(key)") }
            return json
        }
    }

    static func named(_ event: String, _ events: [JSON]) -> [JSON] { events.filter { $0["event"]?.stringValue == event } }

    @Test func aSignInIsAuditedOnceWithItsMethodSubjectAddressAndTrace() async throws {
        let harness = try await GatewayHarness.start(gateway: { $0.trustedProxies = [CIDR("127.0.0.0/8")!] })
        let browser = harness.browser()
        let proxyFields = [("X-Forwarded-For", "198.51.100.23"), ("traceparent", "00-\(Self.traceID)-00f067aa0ba902b7-01")]
        #expect(try await browser.post("/bff/otp/request", ["email": .string(Self.email)], headers: proxyFields).status == 200)
        let code = try #require(harness.simulator.mail(to: Self.email).first?.code)
        let signedIn = try await browser.post("/bff/otp/redeem", ["email": .string(Self.email), "code": .string(code)],
                                              headers: proxyFields)
        #expect(signedIn.status == 200)
        let sub = try #require(signedIn.json?["user"]?["sub"]?.stringValue)
        let events = try Self.events(harness)
        let succeeded = Self.named("audit.signin.succeeded", events)
        #expect(succeeded.count == 1 && events.count == 1, "\(harness.audit.lines)")
        let line = try #require(succeeded.first)
        #expect(line["method"]?.stringValue == "otp" && line["sub"]?.stringValue == sub)
        #expect(line["address"]?.stringValue == "198.51.100.23" && line["traceId"]?.stringValue == Self.traceID)
        #expect(line["requestId"]?.stringValue == signedIn.headers.first { $0.0.lowercased() == "x-request-id" }?.1)
        #expect(line["email"] == nil, "BFF_AUDIT_EMAIL is false by default")
        #expect(harness.service.metrics.counter("bff_signins_total", help: "", labels: ["method", "outcome"])
            .value(["otp", "succeeded"]) == 1)
        await harness.stop()
    }

    @Test func aRefusedCodeIsAuditedAsFailedWithItsReason() async throws {
        let harness = try await GatewayHarness.start(gateway: { $0.auditEmail = true })
        let browser = harness.browser()
        #expect(try await browser.post("/bff/otp/request", ["email": .string(Self.email)]).status == 200)
        let refused = try await browser.post("/bff/otp/redeem", ["email": .string(Self.email), "code": "000000"])
        #expect(refused.status == 400)
        let events = try Self.events(harness)
        let failed = Self.named("audit.signin.failed", events)
        #expect(failed.count == 1 && events.count == 1, "\(harness.audit.lines)")
        #expect(failed.first?["method"]?.stringValue == "otp")
        #expect(failed.first?["reason"]?.stringValue == refused.json?["error"]?.stringValue)
        #expect(failed.first?["email"]?.stringValue == Self.email, "BFF_AUDIT_EMAIL=true names the address")
        #expect(harness.service.metrics.counter("bff_signins_total", help: "", labels: ["method", "outcome"])
            .value(["otp", "failed"]) == 1)
        await harness.stop()
    }

    @Test func aSecondFactorIsAuditedAsAskedThenTheSignInAsSucceeded() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        let grace = "grace@example.com"
        #expect(try await SignInFlowTests.signInWithCode(harness, browser, email: grace).json?["error"]?.stringValue == "mfa_required")
        #expect(Self.named("audit.mfa.asked", try Self.events(harness)).map { $0["method"]?.stringValue } == ["otp"])
        let totp = try #require(harness.simulator.totpCode(for: grace))
        #expect(try await browser.post("/bff/mfa", ["totpCode": .string(totp)]).status == 200)
        let events = try Self.events(harness)
        #expect(events.map { $0["event"]?.stringValue } == ["audit.mfa.asked", "audit.signin.succeeded"])
        #expect(events.last?["method"]?.stringValue == "otp")
        await harness.stop()
    }

    /// Every line of a run through success, refusal and a second factor
    /// is scanned for what must never be there.
    @Test func noAuditLineHoldsASecretOrAnEmailAddress() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        var secrets = ["bff-secret"]
        let signedIn = try await SignInFlowTests.signInWithCode(harness, browser)
        secrets += harness.simulator.mail(to: Self.email).compactMap(\.code)
        secrets += browser.cookies.values
        #expect(signedIn.status == 200)
        _ = try await browser.post("/bff/otp/redeem", ["email": .string(Self.email), "code": "123456"])
        _ = try await SignInFlowTests.signInWithCode(harness, harness.browser(), email: "grace@example.com")
        secrets += harness.simulator.mail(to: "grace@example.com").compactMap(\.code)
        for answer in harness.answers.all {
            guard case .bytes(let body) = answer.body, let json = try? JSON.parse(body) else { continue }
            for key in ["access_token", "refresh_token", "id_token", "mfa_token"] {
                if let value = json[key]?.stringValue { secrets.append(value) }
            }
        }
        let lines = harness.audit.lines
        #expect(lines.count == 3, "a success, a refusal and a second factor asked: \(lines)")
        for line in lines {
            for secret in secrets where !secret.isEmpty { #expect(!line.contains(secret), "a secret in \(line)") }
            #expect(!line.contains("@"), "an e-mail address in \(line)")
        }
        await harness.stop()
    }
}
