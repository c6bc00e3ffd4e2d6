import Core
import HTTP
import TestSupport
@testable import ModgudSimulator
import Testing

@Suite("Refresh rotation, family revocation, revoke and introspect")
struct RefreshTests {
    func introspect(_ sim: SimHarness, _ token: String) async throws -> JSON {
        try await sim.postForm("/connect/introspect", [("token", token)], headers: [SimHarness.basic("bff", "bff-secret")]).json()
    }

    @Test func refreshTokensRotate() async throws {
        try await withSimulator { sim async throws in
            let first = try await sim.signIn("ada@example.com")
            let response = try await sim.refresh(try #require(first["refresh_token"]?.stringValue))
            #expect(response.status == 200)
            let second = try response.json()
            #expect(second["refresh_token"] != first["refresh_token"])
            #expect(second["access_token"] != first["access_token"])
            #expect(second["id_token"] != nil)
            #expect(try await sim.refresh(try #require(second["refresh_token"]?.stringValue)).status == 200)
            #expect(try await sim.stats()["refresh"]?["redemptions"] == 2)
        }
    }

    @Test func aReplayRevokesTheWholeFamily() async throws {
        try await withSimulator { sim async throws in
            let first = try await sim.signIn("ada@example.com")
            let oldRefresh = try #require(first["refresh_token"]?.stringValue)
            let second = try await sim.refresh(oldRefresh).json()
            let newAccess = try #require(second["access_token"]?.stringValue)
            let newRefresh = try #require(second["refresh_token"]?.stringValue)
            let replay = try await sim.refresh(oldRefresh)
            #expect(replay.status == 400)
            #expect(replay.error == "invalid_grant")
            // Everything in the family is dead: both access tokens and the successor refresh token.
            #expect(try await introspect(sim, newAccess)["active"] == false)
            #expect(try await introspect(sim, try #require(first["access_token"]?.stringValue))["active"] == false)
            #expect(try await sim.refresh(newRefresh).error == "invalid_grant")
            #expect(try await sim.get("/connect/userinfo", headers: [SimHarness.bearer(newAccess)]).status == 401)
            let stats = try await sim.stats()
            #expect(stats["refresh"]?["familyRevocations"] == 1)
            #expect(stats["refresh"]?["replaysRejected"] == 1)
            // Another sign-in of the same user is a separate family.
            let other = try await sim.signIn("ada@example.com")
            #expect(try await sim.refresh(try #require(other["refresh_token"]?.stringValue)).status == 200)
        }
    }

    @Test func withALeewayAReplayGetsFreshTokensLikeOpenIddict() async throws {
        try await withSimulator({ $0.tokens.refreshReuseLeewaySeconds = 30 }) { sim async throws in
            let first = try await sim.signIn("ada@example.com")
            let oldRefresh = try #require(first["refresh_token"]?.stringValue)
            let rotated = try await sim.refresh(oldRefresh).json()
            let replay = try await sim.refresh(oldRefresh)
            #expect(replay.status == 200)
            #expect(try replay.json()["refresh_token"] != rotated["refresh_token"])
            #expect(try await introspect(sim, try #require(rotated["access_token"]?.stringValue))["active"] == true)
            #expect(try await sim.stats()["refresh"]?["leewayReplays"] == 1)
            try await sim.advanceClock(31)
            let late = try await sim.refresh(oldRefresh)
            #expect(late.error == "invalid_grant")
            #expect(try await sim.refresh(try #require(rotated["refresh_token"]?.stringValue)).error == "invalid_grant")
        }
    }

    @Test func aRotatedSecurityStampEndsTheFamily() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            _ = try await sim.postJSON("/dev/users", ["email": "ada@example.com", "rotateSecurityStamp": true])
            #expect(try await sim.refresh(try #require(tokens["refresh_token"]?.stringValue)).error == "invalid_grant")
            #expect(try await introspect(sim, try #require(tokens["access_token"]?.stringValue))["active"] == false)
        }
    }

    @Test func aStrongerMinimumLevelRefusesSingleFactorFamilies() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            try await sim.config(["realm": ["signIn": ["minimumLevel": "multi"]]])
            let refused = try await sim.refresh(try #require(tokens["refresh_token"]?.stringValue))
            #expect(refused.bodyText == #"{"error":"invalid_grant","error_description":"The application now requires a stronger sign-in"}"#)
        }
    }

    @Test func refreshTokensBelongToTheirClient() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            let response = try await sim.postForm("/connect/token", [
                ("grant_type", "refresh_token"), ("client_id", "native"), ("refresh_token", tokens["refresh_token"]!.stringValue!),
            ])
            #expect(response.error == "invalid_grant")
        }
    }

    @Test func refreshKeepsOrNarrowsTheAudience() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com", extra: [("resource", "https://api.example.com")])
            let widened = try await sim.postForm("/connect/token", [
                ("grant_type", "refresh_token"), ("refresh_token", tokens["refresh_token"]!.stringValue!),
                ("resource", "https://other.example.com"),
            ], headers: SimHarness.gateway())
            #expect(widened.error == "invalid_target")
        }
    }

    @Test func revokingARefreshTokenRevokesItsFamily() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            let refresh = try #require(tokens["refresh_token"]?.stringValue)
            #expect(try await introspect(sim, refresh)["active"] == true)
            let revoke = try await sim.postForm("/connect/revoke", [("token", refresh), ("token_type_hint", "refresh_token")],
                                                headers: [SimHarness.basic("bff", "bff-secret")])
            #expect(revoke.status == 200)
            #expect(revoke.body.isEmpty)
            #expect(try await introspect(sim, try #require(tokens["access_token"]?.stringValue))["active"] == false)
            #expect(try await sim.refresh(refresh).error == "invalid_grant")
            // RFC 7009: unknown tokens are fine too.
            let unknown = try await sim.postForm("/connect/revoke", [("token", "never-issued")],
                                                 headers: [SimHarness.basic("bff", "bff-secret")])
            #expect(unknown.status == 200)
            let unauthenticated = try await sim.postForm("/connect/revoke", [("token", "x")],
                                                         headers: [SimHarness.basic("bff", "wrong")])
            #expect(unauthenticated.status == 401)
        }
    }

    @Test func revokingAnAccessTokenLeavesTheRefreshToken() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            let access = try #require(tokens["access_token"]?.stringValue)
            _ = try await sim.postForm("/connect/revoke", [("token", access)], headers: [SimHarness.basic("bff", "bff-secret")])
            #expect(try await sim.get("/connect/userinfo", headers: [SimHarness.bearer(access)]).status == 401)
            #expect(try await sim.refresh(try #require(tokens["refresh_token"]?.stringValue)).status == 200)
        }
    }

    @Test func introspectionNeedsAConfidentialClient() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            let anonymous = try await sim.postForm("/connect/introspect", [("token", tokens["access_token"]!.stringValue!)])
            #expect(anonymous.status == 401)
            let active = try await introspect(sim, try #require(tokens["access_token"]?.stringValue))
            #expect(active["active"] == true)
            #expect(active["client_id"] == "bff")
            #expect(active["sub"] == "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f")
            #expect(active["scope"] == "openid profile email offline_access")
            #expect(try await introspect(sim, "garbage") == ["active": false])
        }
    }
}
