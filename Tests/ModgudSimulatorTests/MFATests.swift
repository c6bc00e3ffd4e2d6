import Core
import HTTP
import TestSupport
@testable import ModgudSimulator
import Testing

@Suite("Second factor: mfa_required, continuation, older servers")
struct MFATests {
    static let grace = "grace@example.com"

    func redeem(_ sim: SimHarness, extra: [(String, String)] = []) async throws -> RawResponse {
        let code = try await sim.requestCode(Self.grace)
        return try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("username", Self.grace),
                                                         ("otp_code", code), ("scope", "openid offline_access")] + extra,
                                      headers: SimHarness.gateway())
    }

    @Test func mfaRequiredThenContinuationWithARealTOTP() async throws {
        try await withSimulator { sim async throws in
            let first = try await redeem(sim)
            #expect(first.status == 400)
            let body = try first.json()
            #expect(body["error"] == "mfa_required")
            #expect(body["mfa_methods"] == "totp")
            #expect(body["mfa_browser_methods"]?.stringValue != nil)
            let mfaToken = try #require(body["mfa_token"]?.stringValue)
            // The TOTP computed here from the seeded secret, not asked of the simulator.
            let secret = try #require(Base32.decode("JBSWY3DPEHPK3PXP"))
            let totp = TOTP.code(secret: secret, time: sim.simulator.core.state.now())
            let done = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("mfa_token", mfaToken),
                                                                 ("totp_code", totp)], headers: SimHarness.gateway())
            #expect(done.status == 200)
            let tokens = try done.json()
            #expect(tokens["refresh_token"] != nil, "the scope of the first request carries over")
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let claims = try #require(sim.simulator.core.state.signingKey.verify(idToken))
            #expect(claims["acr"] == "urn:modgud:acr:multi")
            #expect(claims["amr"] == ["otp", "mfa"])
            // Single use.
            let again = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("mfa_token", mfaToken),
                                                                  ("totp_code", totp)], headers: SimHarness.gateway())
            #expect(again.error == "invalid_grant")
            #expect(try await sim.stats()["mfa"]?["completed"] == 1)
        }
    }

    @Test func totpSentAlongSkipsTheRoundTrip() async throws {
        try await withSimulator { sim async throws in
            let response = try await redeem(sim, extra: [("totp_code", try await sim.totp(Self.grace))])
            #expect(response.status == 200)
        }
    }

    @Test func wrongCodesAndBoundTokens() async throws {
        try await withSimulator { sim async throws in
            let wrongInline = try await redeem(sim, extra: [("totp_code", "000000")])
            #expect(wrongInline.bodyText == #"{"error":"invalid_grant","error_description":"The two-factor code is invalid."}"#)
            let mfaToken = try #require(try await redeem(sim).field("mfa_token"))
            let totp = try await sim.totp(Self.grace)
            // Another grant type, or another client, cannot use the token.
            let otherGrant = try await sim.postForm("/connect/token", [("grant_type", GrantType.magic), ("mfa_token", mfaToken),
                                                                       ("totp_code", totp)], headers: SimHarness.gateway())
            #expect(otherGrant.error == "invalid_grant")
            let otherClient = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("client_id", "native"),
                                                                        ("mfa_token", mfaToken), ("totp_code", totp)])
            #expect(otherClient.error == "invalid_grant")
            let wrong = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("mfa_token", mfaToken),
                                                                  ("totp_code", "000000")], headers: SimHarness.gateway())
            #expect(wrong.field("error_description") == "The two-factor code is invalid.")
            let right = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("mfa_token", mfaToken),
                                                                  ("totp_code", totp)], headers: SimHarness.gateway())
            #expect(right.status == 200)
        }
    }

    @Test func mfaTokensExpire() async throws {
        try await withSimulator { sim async throws in
            let mfaToken = try #require(try await redeem(sim).field("mfa_token"))
            try await sim.advanceClock(601)
            let late = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("mfa_token", mfaToken),
                                                                 ("totp_code", try await sim.totp(Self.grace))],
                                              headers: SimHarness.gateway())
            #expect(late.error == "invalid_grant")
        }
    }

    @Test func magicLinksAskForTheSecondFactorToo() async throws {
        try await withSimulator { sim async throws in
            _ = try await sim.postJSON("/api/account/magic-link/request", ["Email": .string(Self.grace)], headers: SimHarness.gateway())
            let mail = try await sim.latestMail(Self.grace)
            let form: [(String, String)] = [("grant_type", GrantType.magic), ("user_id", mail["userId"]!.stringValue!),
                                            ("magic_token", mail["token"]!.stringValue!), ("scope", "openid")]
            let first = try await sim.postForm("/connect/token", form, headers: SimHarness.gateway())
            #expect(first.error == "mfa_required")
            let done = try await sim.postForm("/connect/token", [("grant_type", GrantType.magic),
                                                                 ("mfa_token", try #require(first.field("mfa_token"))),
                                                                 ("totp_code", try await sim.totp(Self.grace))],
                                              headers: SimHarness.gateway())
            #expect(done.status == 200)
            // The link was spent by the first request.
            #expect(try await sim.postForm("/connect/token", form, headers: SimHarness.gateway()).error == "invalid_grant")
        }
    }

    @Test func anOlderServerAnswersInvalidGrant() async throws {
        try await withSimulator { sim async throws in
            try await sim.config(["olderServerMfa": true])
            let response = try await redeem(sim)
            #expect(response.bodyText
                == #"{"error":"invalid_grant","error_description":"Two-factor authentication is required; supply totp_code."}"#)
            #expect(try await redeem(sim, extra: [("totp_code", try await sim.totp(Self.grace))]).status == 200)
        }
    }

    @Test func browserOnlyFactorsAreListedForTheBrowser() async throws {
        try await withSimulator({ config in
            config.realm.signIn.totp = false
            config.realm.signIn.ownFactorNotOffered = "RequireViaBrowser"
        }) { sim async throws in
            let body = try await redeem(sim).json()
            #expect(body["error"] == "mfa_required")
            #expect(body["mfa_methods"] == "")
            #expect(body["mfa_browser_methods"] == "totp")
        }
        try await withSimulator({ $0.realm.signIn.totp = false }) { sim async throws in
            #expect(try await redeem(sim).status == 200, "Ignore: the App does not ask for the user's own factor")
        }
    }

    @Test func totpFollowsRFC6238() {
        let secret = Array("12345678901234567890".utf8)
        // RFC 6238 Appendix B (SHA-1), last six digits.
        for (time, code) in [(59.0, "287082"), (1111111109, "081804"), (1234567890, "005924"), (2000000000, "279037")] {
            #expect(TOTP.code(secret: secret, time: time) == code)
        }
        #expect(TOTP.verify("287 082", secret: secret, time: 59))
        #expect(TOTP.verify("287082", secret: secret, time: 89), "one step of drift")
        #expect(!TOTP.verify("287082", secret: secret, time: 120))
        #expect(Base32.decode(Base32.encode(secret)) == secret)
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.decode("mzxw6ytboi======") == Array("foobar".utf8))
        #expect(Base32.decode("not base32!") == nil)
    }
}
