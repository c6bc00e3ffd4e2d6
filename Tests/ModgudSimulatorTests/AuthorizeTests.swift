import Core
import HTTP
import TestSupport
import Crypto
@testable import ModgudSimulator
import Testing

@Suite("Authorization code with PKCE, logout")
struct AuthorizeTests {
    static let redirect = "http://localhost:8080/bff/callback"

    func authorize(_ sim: SimHarness, verifier: String, extra: [(String, String)] = []) async throws -> RawResponse {
        let query = FormURLEncoded.serialize([
            ("client_id", "bff"), ("redirect_uri", Self.redirect), ("response_type", "code"), ("scope", "openid profile offline_access"),
            ("state", "s1"), ("nonce", "n1"), ("code_challenge", PKCE.s256Challenge(for: verifier)),
            ("code_challenge_method", "S256"),
        ] + extra)
        return try await sim.get("/connect/authorize?\(query)")
    }

    static func query(_ location: String) -> [(name: String, value: String)] {
        guard let mark = location.firstIndex(of: "?") else { return [] }
        return FormURLEncoded.parse(location[location.index(after: mark)...]) ?? []
    }

    func exchange(_ sim: SimHarness, code: String, verifier: String) async throws -> RawResponse {
        try await sim.postForm("/connect/token", [("grant_type", "authorization_code"), ("code", code),
                                                  ("redirect_uri", Self.redirect), ("code_verifier", verifier)],
                               headers: SimHarness.gateway())
    }

    @Test func codeFlowWithPKCE() async throws {
        try await withSimulator { sim async throws in
            let verifier = try PKCE.makeVerifier()
            var browser = SignInPageClient(sim)
            let form = try await authorize(sim, verifier: verifier)
            #expect(form.status == 200)
            #expect(form.bodyText.contains(#"autocomplete="current-password""#))
            let redirect = try await browser.submit(form, [("email", "ada@example.com"), ("password", "simulator")])
            #expect(redirect.status == 302)
            let location = try #require(redirect.header("Location"))
            #expect(location.hasPrefix(Self.redirect + "?"))
            let parameters = Self.query(location)
            #expect(parameters.first("state") == "s1")
            #expect(parameters.first("iss") == sim.issuer)
            let code = try #require(parameters.first("code"))
            let wrong = try await exchange(sim, code: code, verifier: try PKCE.makeVerifier())
            #expect(wrong.error == "invalid_grant")
            // A failed exchange does not spend the code; the right verifier works once.
            let tokens = try await exchange(sim, code: code, verifier: verifier)
            #expect(tokens.status == 200)
            let idToken = try #require(tokens.field("id_token"))
            #expect(sim.simulator.core.state.signingKey.verify(idToken)?["nonce"] == "n1")
            let replay = try await exchange(sim, code: code, verifier: verifier)
            #expect(replay.error == "invalid_grant")
            #expect(try await sim.refresh(try #require(tokens.field("refresh_token"))).error == "invalid_grant",
                    "a replayed code revokes what it issued")
        }
    }

    @Test func authorizationErrors() async throws {
        try await withSimulator { sim async throws in
            let verifier = try PKCE.makeVerifier()
            let badRedirect = try await sim.get("/connect/authorize?client_id=bff&redirect_uri=https%3A%2F%2Fevil.example%2Fcb&response_type=code")
            #expect(badRedirect.status == 400)
            let plain = try await sim.get("/connect/authorize?" + FormURLEncoded.serialize([
                ("client_id", "bff"), ("redirect_uri", Self.redirect), ("response_type", "code"),
                ("code_challenge", "abc"), ("code_challenge_method", "plain"),
            ]))
            #expect(Self.query(try #require(plain.header("Location"))).first("error") == "invalid_request")
            let silent = try await authorize(sim, verifier: verifier, extra: [("prompt", "none")])
            #expect(Self.query(try #require(silent.header("Location"))).first("error") == "login_required")
        }
    }

    @Test func browserContinuationOfAnMfaToken() async throws {
        try await withSimulator { sim async throws in
            let code = try await sim.requestCode("grace@example.com")
            let mfa = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("username", "grace@example.com"),
                                                               ("otp_code", code)], headers: SimHarness.gateway())
            let mfaToken = try #require(mfa.field("mfa_token"))
            let verifier = try PKCE.makeVerifier()
            let ask = try await authorize(sim, verifier: verifier, extra: [("mfa_token", mfaToken)])
            #expect(ask.status == 200)
            #expect(ask.bodyText.contains("totp_code"))
            let done = try await authorize(sim, verifier: verifier, extra: [("mfa_token", mfaToken),
                                                                            ("totp_code", try await sim.totp("grace@example.com"))])
            let doneLocation = try #require(done.header("Location"))
            let issued = try #require(Self.query(doneLocation).first("code"))
            let tokens = try await exchange(sim, code: issued, verifier: verifier)
            let idToken = try #require(tokens.field("id_token"))
            let claims = try #require(sim.simulator.core.state.signingKey.verify(idToken))
            #expect(claims["acr"] == "urn:modgud:acr:multi")
        }
    }

    @Test func logoutEndsTheSession() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            let hint = try #require(tokens["id_token"]?.stringValue)
            let response = try await sim.get("/connect/logout?" + FormURLEncoded.serialize([
                ("id_token_hint", hint), ("post_logout_redirect_uri", "http://localhost:8080/"), ("state", "bye"),
            ]))
            #expect(response.status == 302)
            #expect(response.header("Location") == "http://localhost:8080/?state=bye")
            #expect(try await sim.refresh(try #require(tokens["refresh_token"]?.stringValue)).error == "invalid_grant")
            #expect(try await sim.get("/connect/logout?id_token_hint=forged").status == 400)
        }
    }
}
