import Core
import HTTP
import ModgudSimulator
import Sessions
import TestSupport
import Testing
@testable import Gateway

/// What hangs on id_tokens beyond the callback: the native grants' id_tokens
/// verified and their `sid` kept, the end-session URL at logout, and the
/// capabilities Modgud's policy allows.
@Suite("Code flow sessions", .serialized)
struct CodeFlowSessionTests {
    @Test func aNativeGrantsIDTokenIsVerifiedAndItsSidKept() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        let signedIn = try await SignInFlowTests.signInWithCode(deployment.harness, browser)
        #expect(signedIn.status == 200)
        let session = try #require(try await deployment.session(of: browser))
        let idToken = try #require(session.data.tokens.idToken)
        #expect(session.data.sid != nil && session.data.sid == IDTokens.claims(of: idToken.revealed)?["sid"]?.stringValue)
        #expect(session.data.method == .otp)
        await deployment.stop()
    }

    @Test func aNativeGrantWithABadIDTokenIsRefusedAndItsTokensRevoked() async throws {
        let deployment = try await CodeFlowDeployment.start()
        deployment.front.replaceIDTokens { IDTokens.forged($0) }
        let browser = deployment.browser()
        let refused = try await SignInFlowTests.signInWithCode(deployment.harness, browser)
        #expect(refused.status == 502)
        #expect(refused.json?["error"]?.stringValue == "upstream_error")
        #expect(refused.setCookie(named: "__Host-bff") == nil)
        #expect(try await browser.get("/bff/user").status == 401)
        #expect(deployment.harness.modgudRequests().contains { $0["path"]?.stringValue == "/connect/revoke" })
        #expect(deployment.harness.service.metrics.render().contains(#"bff_id_token_refusals_total{grant="native"} 1"#))
        await deployment.stop()
    }

    @Test func logoutOfACodeFlowSessionAnswersTheEndSessionURL() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        #expect(try await deployment.signIn(browser).status == 302)
        let session = try #require(try await deployment.session(of: browser))
        let idToken = try #require(session.data.tokens.idToken?.revealed)
        let refreshToken = try #require(session.data.tokens.refreshToken?.revealed)

        let logout = try await browser.post("/bff/logout")
        #expect(logout.status == 200)
        #expect(logout.header("Cache-Control") == "no-store")
        #expect(logout.setCookie(named: "__Host-bff")?.contains("Max-Age=0") == true)
        let url = try #require(logout.json?["endSessionUrl"]?.stringValue)
        #expect(url.hasPrefix(deployment.front.baseURL + "/connect/logout?"))
        let query = CodeFlowDeployment.query(url)
        #expect(query.first("id_token_hint") == idToken)
        #expect(query.first("post_logout_redirect_uri") == "http://localhost:8080/")
        #expect((query.first("state")?.count ?? 0) >= 16)
        // Before the answer: the session is gone and its refresh token revoked.
        #expect(try await deployment.session(cookie: session) == nil)
        #expect(try await AccountDeployment.introspect(deployment.simulator, refreshToken)["active"]?.boolValue == false)
        // Modgud takes the URL as it is.
        let target = String(url.dropFirst(deployment.front.baseURL.count))
        let ended = await deployment.simulator.respond(PasskeyEnrolment.request(.get, target, headers: []))
        #expect(ended.status == .found)
        #expect(ended.headers["Location"]?.hasPrefix("http://localhost:8080/?state=") == true)
        await deployment.stop()
    }

    @Test func logoutOfANativeSessionStillAnswers204() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        #expect(try await SignInFlowTests.signInWithCode(deployment.harness, browser).status == 200)
        let logout = try await browser.post("/bff/logout")
        #expect(logout.status == 204)
        #expect(logout.body.isEmpty)
        await deployment.stop()
    }

    @Test func capabilitiesFollowModgudsPolicy() async throws {
        let open = try await CodeFlowDeployment.start()
        let all = try await open.browser().get("/bff/capabilities")
        #expect(all.status == 200)
        for key in ["emailCode", "magicLink", "passkey", "codeFlow"] {
            #expect(all.json?["signIn"]?[key]?.boolValue == true, "\(key)")
        }
        #expect(all.json?["signIn"]?["register"]?.boolValue == false, "JitOnOtp registers through otp/request")
        #expect(all.json?["signIn"]?["selfRegistration"]?.stringValue == "JitOnOtp")
        for key in ["apiProxy", "passkeyManagement", "logout", "sessions", "backchannelLogout"] {
            #expect(all.json?["features"]?[key]?.boolValue != nil, "\(key) present")
        }
        #expect(all.json?["features"]?["sessions"]?.boolValue == true)
        #expect(open.harness.service.modgud?.endpoints.backchannelLogoutSupported == true)
        #expect(all.json?["features"]?["backchannelLogout"]?.boolValue == true, "as discovery advertises it")
        await open.stop()

        let closed = try await CodeFlowDeployment.start(simulator: { config in
            config.realm.nativeGrants = false
        })
        let refused = try await closed.browser().get("/bff/capabilities")
        for key in ["emailCode", "magicLink", "passkey", "register"] {
            #expect(refused.json?["signIn"]?[key]?.boolValue == false, "\(key): Modgud refuses native grants")
        }
        #expect(refused.json?["signIn"]?["codeFlow"]?.boolValue == true)
        await closed.stop()

        let noPasskeys = try await CodeFlowDeployment.start(simulator: { config in
            config.realm.signIn.passkey = false
            config.realm.magicLinkSelfService = false
            config.realm.selfRegistration = .explicitEndpoint
        })
        let some = try await noPasskeys.browser().get("/bff/capabilities")
        #expect(some.json?["signIn"]?["passkey"]?.boolValue == false)
        #expect(some.json?["signIn"]?["magicLink"]?.boolValue == false)
        #expect(some.json?["signIn"]?["emailCode"]?.boolValue == true)
        #expect(some.json?["signIn"]?["register"]?.boolValue == true)
        await noPasskeys.stop()
    }
}

extension CodeFlowDeployment {
    /// The session record as it is now in the store, or nil when ended.
    func session(cookie session: Session) async throws -> Session? {
        if case .found(let current) = try await harness.service.sessions.reload(session) { return current }
        return nil
    }
}

extension AccountDeployment {
    /// `POST /connect/introspect` at `simulator`, as the gateway's client.
    static func introspect(_ simulator: ModgudSimulator.Simulator, _ token: String) async throws -> JSON {
        let form = FormURLEncoded.serialize([("token", token)])
        return try PasskeyEnrolment.json(await simulator.respond(PasskeyEnrolment.request(.post, "/connect/introspect",
            body: Array(form.utf8), headers: [("Authorization", clientBasic),
                                              ("Content-Type", "application/x-www-form-urlencoded")])))
    }
}
