import Core
import HTTP
import TestSupport
@testable import ModgudSimulator
import Testing

@Suite("Token endpoint: native grants, client credentials, errors")
struct TokenGrantTests {
    func redeem(_ sim: SimHarness, _ email: String, _ code: String, headers: [(String, String)] = SimHarness.gateway(),
                extra: [(String, String)] = []) async throws -> RawResponse {
        try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("username", email), ("otp_code", code),
                                                  ("scope", "openid offline_access")] + extra, headers: headers)
    }

    @Test func otpGrantIssuesTheContractsTokenResponse() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com", scope: "openid profile email offline_access")
            #expect(tokens["token_type"] == "Bearer")
            #expect(tokens["expires_in"] == 900)
            #expect(tokens["scope"] == "openid profile email offline_access")
            #expect(tokens["access_token"]?.stringValue?.count == 43)
            #expect(tokens["refresh_token"]?.stringValue?.isEmpty == false)
            #expect(tokens["id_token"]?.stringValue?.split(separator: ".").count == 3)
            let access = try #require(tokens["access_token"]?.stringValue)
            let userinfo = try await sim.get("/connect/userinfo", headers: [SimHarness.bearer(access)]).json()
            #expect(userinfo["sub"] == "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f")
            #expect(userinfo["email"] == "ada@example.com")
            #expect(userinfo["email_verified"] == true)
            #expect(userinfo["given_name"] == "Ada")
            #expect(userinfo["family_name"] == "Lovelace")
            #expect(userinfo["name"] == "Ada Lovelace")
        }
    }

    @Test func scopesDecideRefreshAndIdTokensAndClaims() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com", scope: "openid")
            #expect(tokens["refresh_token"] == nil)
            let access = try #require(tokens["access_token"]?.stringValue)
            let userinfo = try await sim.get("/connect/userinfo", headers: [SimHarness.bearer(access)]).json()
            #expect(userinfo["email"] == nil)
            #expect(userinfo["given_name"] == nil)
            let bare = try await sim.signIn("ada@example.com", scope: "api")
            #expect(bare["id_token"] == nil)
            let noOpenId = try await sim.get("/connect/userinfo",
                                             headers: [SimHarness.bearer(try #require(bare["access_token"]?.stringValue))])
            #expect(noOpenId.status == 403)
            #expect(noOpenId.error == "insufficient_scope")
        }
    }

    @Test func wrongCodesAreUniformAndSpendAttempts() async throws {
        try await withSimulator { sim async throws in
            let code = try await sim.requestCode("ada@example.com")
            let wrong = code == "000000" ? "111111" : "000000"
            let unknownUser = try await redeem(sim, "nobody@example.com", code)
            var bodies: Set<String> = [unknownUser.bodyText]
            for _ in 0..<3 {
                let response = try await redeem(sim, "ada@example.com", wrong)
                #expect(response.status == 400)
                #expect(response.error == "invalid_grant")
                bodies.insert(response.bodyText)
            }
            #expect(bodies == [#"{"error":"invalid_grant","error_description":"Invalid or expired code."}"#])
            // Three attempts are spent: the right code no longer works.
            #expect(try await redeem(sim, "ada@example.com", code).error == "invalid_grant")
        }
    }

    @Test func codesAreSingleUseAndExpire() async throws {
        try await withSimulator { sim async throws in
            let code = try await sim.requestCode("ada@example.com")
            #expect(try await redeem(sim, "ada@example.com", code).status == 200)
            #expect(try await redeem(sim, "ada@example.com", code).error == "invalid_grant")
            let late = try await sim.requestCode("ada@example.com")
            try await sim.advanceClock(601)
            #expect(try await redeem(sim, "ada@example.com", late).error == "invalid_grant")
        }
    }

    @Test func magicLinkGrantIsSingleUse() async throws {
        try await withSimulator { sim async throws in
            _ = try await sim.postJSON("/api/account/magic-link/request", ["Email": "ada@example.com"], headers: SimHarness.gateway())
            let mail = try await sim.latestMail("ada@example.com")
            let form: [(String, String)] = [("grant_type", GrantType.magic), ("user_id", mail["userId"]!.stringValue!),
                                            ("magic_token", mail["token"]!.stringValue!), ("scope", "openid")]
            let first = try await sim.postForm("/connect/token", form, headers: SimHarness.gateway())
            #expect(first.status == 200)
            let second = try await sim.postForm("/connect/token", form, headers: SimHarness.gateway())
            #expect(second.bodyText == #"{"error":"invalid_grant","error_description":"Invalid or expired link."}"#)
        }
    }

    @Test func grantGates() async throws {
        try await withSimulator { sim async throws in
            let unknown = try await sim.postForm("/connect/token", [("grant_type", "password")], headers: SimHarness.gateway())
            #expect(unknown.error == "unsupported_grant_type")
            let notHeld = try await sim.postForm("/connect/token", [("grant_type", "client_credentials")], headers: SimHarness.gateway())
            #expect(notHeld.error == "unauthorized_client")
            let m2mOtp = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("username", "a@b.c"), ("otp_code", "1")],
                                                headers: [SimHarness.basic("bff-m2m", "bff-m2m-secret")])
            #expect(m2mOtp.error == "unauthorized_client")
            let missing = try await sim.postForm("/connect/token", [("scope", "openid")], headers: SimHarness.gateway())
            #expect(missing.error == "invalid_request")
            try await sim.config(["nativeGrants": false])
            let off = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("username", "ada@example.com"),
                                                                ("otp_code", "123456")], headers: SimHarness.gateway())
            #expect(off.error == "unsupported_grant_type")
            #expect(off.field("error_description") == "This grant type is not enabled for this realm.")
            try await sim.config(["nativeGrants": true, "realm": ["signIn": ["emailCode": false]]])
            let emailCodeOff = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("username", "ada@example.com"),
                                                                         ("otp_code", "123456")], headers: SimHarness.gateway())
            #expect(emailCodeOff.error == "unsupported_grant_type")
        }
    }

    @Test func clientAuthenticationFailures() async throws {
        try await withSimulator { sim async throws in
            let badSecret = try await sim.postForm("/connect/token", [("grant_type", "refresh_token"), ("refresh_token", "x")],
                                                   headers: [SimHarness.basic("bff", "nope"), ("Modgud-Forwarded-For", "198.51.100.1")])
            #expect(badSecret.status == 401)
            #expect(badSecret.error == "invalid_client")
            #expect(badSecret.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            let unknownClient = try await sim.postForm("/connect/token", [("grant_type", "refresh_token"), ("client_id", "ghost")])
            #expect(unknownClient.status == 401)
            #expect(unknownClient.error == "invalid_client")
            let confidentialWithoutSecret = try await sim.postForm("/connect/token", [("grant_type", "refresh_token"),
                                                                                     ("client_id", "bff")])
            #expect(confidentialWithoutSecret.status == 401)
            let anonymous = try await sim.postForm("/connect/token", [("grant_type", "refresh_token")])
            #expect(anonymous.status == 401)
        }
    }

    @Test func publicClientsRedeemByClientId() async throws {
        try await withSimulator { sim async throws in
            let code = try await sim.requestCode("ada@example.com")
            let response = try await redeem(sim, "ada@example.com", code, headers: [], extra: [("client_id", "native")])
            #expect(response.status == 200)
        }
    }

    @Test func resourcesMustBeAllowed() async throws {
        try await withSimulator({ config in
            config.clients[0].resources = ["https://api.example.com"]
        }) { sim async throws in
            let code = try await sim.requestCode("ada@example.com")
            let bad = try await redeem(sim, "ada@example.com", code, extra: [("resource", "https://other.example.com")])
            #expect(bad.error == "invalid_target")
            let good = try await redeem(sim, "ada@example.com", code, extra: [("resource", "https://api.example.com")])
            #expect(good.status == 200)
            let access = try #require(good.field("access_token"))
            let introspection = try await sim.postForm("/connect/introspect", [("token", access)],
                                                       headers: [SimHarness.basic("bff", "bff-secret")]).json()
            #expect(introspection["aud"] == ["https://api.example.com"])
        }
    }

    @Test func clientCredentialsForTheMachineClient() async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.postForm("/connect/token", [("grant_type", "client_credentials"), ("scope", "invites")],
                                                  headers: [SimHarness.basic("bff-m2m", "bff-m2m-secret")])
            #expect(response.status == 200)
            let tokens = try response.json()
            #expect(tokens["refresh_token"] == nil)
            #expect(tokens["id_token"] == nil)
            #expect(tokens["scope"] == "invites")
            let introspection = try await sim.postForm("/connect/introspect", [("token", tokens["access_token"]!.stringValue!)],
                                                       headers: [SimHarness.basic("bff-m2m", "bff-m2m-secret")]).json()
            #expect(introspection["active"] == true)
            #expect(introspection["sub"] == "bff-m2m")
        }
    }

    @Test func accessTokensExpireAfterTheirLifetime() async throws {
        try await withSimulator({ $0.tokens.accessTokenLifetimeSeconds = 60 }) { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            #expect(tokens["expires_in"] == 60)
            let access = try #require(tokens["access_token"]?.stringValue)
            #expect(try await sim.get("/connect/userinfo", headers: [SimHarness.bearer(access)]).status == 200)
            try await sim.advanceClock(60.5)
            let expired = try await sim.get("/connect/userinfo", headers: [SimHarness.bearer(access)])
            #expect(expired.status == 401)
            #expect(expired.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
        }
    }

    @Test func interactionRequiredWhenTheAppNeedsASecondFactorTheUserLacks() async throws {
        try await withSimulator({ $0.realm.signIn.minimumLevel = "multi" }) { sim async throws in
            let code = try await sim.requestCode("ada@example.com")
            let response = try await redeem(sim, "ada@example.com", code)
            #expect(response.status == 400)
            #expect(response.error == "interaction_required")
        }
    }
}
