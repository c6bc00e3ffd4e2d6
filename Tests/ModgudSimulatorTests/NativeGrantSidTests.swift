import Core
import Crypto
import HTTP
@testable import ModgudSimulator
import Testing
import TestSupport

@Suite("id_tokens of the native grants carry sid")
struct NativeGrantSidTests {
    func sid(_ tokens: JSON, _ sim: SimHarness) throws -> String {
        let idToken = try #require(tokens["id_token"]?.stringValue)
        return try #require(sim.simulator.core.state.signingKey.verify(idToken)?["sid"]?.stringValue)
    }

    @Test func otpAndRefreshKeepTheFamilysSid() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            let first = try sid(tokens, sim)
            let refreshed = try await sim.refresh(try #require(tokens["refresh_token"]?.stringValue))
            #expect(try sid(try refreshed.json(), sim) == first)
            #expect(try sid(try await sim.signIn("ada@example.com"), sim) != first, "a new sign-in, a new session")
        }
    }

    @Test func magicLinkAndTheMfaCompletionCarrySid() async throws {
        try await withSimulator { sim async throws in
            _ = try await sim.postJSON("/api/account/magic-link/request", ["Email": "ada@example.com"], headers: SimHarness.gateway())
            let mail = try await sim.latestMail("ada@example.com")
            let magic = try await sim.postForm("/connect/token", [
                ("grant_type", GrantType.magic), ("user_id", try #require(mail["userId"]?.stringValue)),
                ("magic_token", try #require(mail["token"]?.stringValue)), ("scope", "openid")], headers: SimHarness.gateway())
            _ = try sid(try magic.json(), sim)
            let code = try await sim.requestCode("grace@example.com")
            let mfa = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("username", "grace@example.com"),
                                                               ("otp_code", code), ("scope", "openid")],
                                              headers: SimHarness.gateway())
            let mfaToken = try #require(mfa.field("mfa_token"))
            let done = try await sim.postForm("/connect/token", [
                ("grant_type", GrantType.otp), ("mfa_token", mfaToken), ("totp_code", try await sim.totp("grace@example.com")),
                ("scope", "openid")], headers: SimHarness.gateway())
            #expect(done.status == 200)
            _ = try sid(try done.json(), sim)
        }
    }
}
