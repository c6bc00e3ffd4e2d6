import Core
import Crypto
import HTTP
@testable import ModgudSimulator
import OIDC
import Testing
import TestSupport

@Suite("Back-channel logout: tokens, delivery, retries, the dev sign-out and disable")
struct BackchannelLogoutTests {
    typealias Page = SignInPageClient

    /// A simulator whose `bff` client posts logout tokens to `receiver`,
    /// and an `app2` code-flow client without a back-channel URI.
    func withReceiver(answers: [Int] = [], sessionRequired: Bool = true,
                      _ body: (SimHarness, LogoutReceiver) async throws -> Void) async throws {
        try await withSimulator({ config in
            config.backchannelRetrySeconds = [0.2, 0.4]
            config.clients.append(ClientRegistration(id: "app2", secret: "app2-secret", grants: [GrantType.authorizationCode],
                                                     redirectUris: [Page.redirect]))
        }) { sim async throws in
            let receiver = try await LogoutReceiver(loops: sim.group.loops, answers: answers)
            sim.simulator.updateConfig { [url = receiver.url] config in
                let index = config.clients.firstIndex { $0.id == "bff" }!
                config.clients[index].backchannelLogoutUri = url
                config.clients[index].backchannelLogoutSessionRequired = sessionRequired
            }
            do { try await body(sim, receiver) } catch {
                await receiver.stop()
                throw error
            }
            await receiver.stop()
        }
    }

    /// The recorded attempts once there are `count` (the record follows the answer).
    func attempts(_ sim: SimHarness, count: Int) async throws -> [JSON] {
        // Generous: the whole suite runs in parallel on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(20)
        while sim.simulator.backchannelAttempts().count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return sim.simulator.backchannelAttempts()
    }

    func verify(_ token: String, _ sim: SimHarness) throws -> LogoutTokenClaims {
        let keys = try JWKSet(json: sim.simulator.core.state.signingKey.jwks)
        return try LogoutTokenVerifier(issuer: sim.issuer, clientID: "bff")
            .verify(token, keys: keys, now: Int64(sim.simulator.core.state.now()))
    }

    /// Signs `email` in through the page as `client`; the token response.
    func codeFlow(_ browser: inout Page, client: String = "bff", _ email: String = "ada@example.com") async throws -> JSON {
        let verifier = try PKCE.makeVerifier()
        let parameters = Page.parameters(verifier: verifier).map { $0.0 == "client_id" ? ("client_id", client) : $0 }
        let done = browser.cookie == nil ? try await browser.signIn(email, parameters) : try await browser.authorize(parameters)
        let code = try #require(Page.query(done).first("code"))
        let secret = client == "bff" ? "bff-secret" : "\(client)-secret"
        let tokens = try await browser.sim.postForm("/connect/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Page.redirect), ("code_verifier", verifier),
        ], headers: client == "bff" ? SimHarness.gateway() : [SimHarness.basic(client, secret)])
        return try tokens.json()
    }

    @Test func endSessionSendsAVerifiableTokenToEveryClientOfTheSidWithAURI() async throws {
        try await withReceiver { sim, receiver async throws in
            var browser = Page(sim)
            let bff = try await codeFlow(&browser)
            _ = try await codeFlow(&browser, client: "app2")
            let hint = try #require(bff["id_token"]?.stringValue)
            let sid = try #require(sim.simulator.core.state.signingKey.verify(hint)?["sid"]?.stringValue)
            let logout = try await sim.get("/connect/logout?" + FormURLEncoded.serialize([
                ("id_token_hint", hint), ("post_logout_redirect_uri", "http://localhost:8080/"), ("state", "bye")]),
                headers: [("Cookie", "sim_session=\(browser.cookie ?? "")")])
            #expect(logout.header("Location") == "http://localhost:8080/?state=bye")
            let tokens = await receiver.waitFor(1)
            #expect(tokens.count == 1)
            let claims = try verify(try #require(tokens.first), sim)
            #expect(claims.sessionID == sid)
            #expect(claims.subject == "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f")
            #expect(claims.json["exp"]?.doubleValue == claims.json["iat"]?.doubleValue.map { $0 + 120 })
            #expect(claims.json["nonce"] == nil)
            #expect(try JWS(parsing: tokens[0]).type == "logout+jwt")
            let attempts = try await attempts(sim, count: 1)
            #expect(attempts.count == 1 && attempts[0]["clientId"] == "bff" && attempts[0]["status"] == 200)
            let log = try await sim.get("/dev/backchannel").bodyText
            #expect(!log.contains(tokens[0]), "the log never holds the token")
            // The browser's sign-in ended too: prompt=none needs a new one.
            let silent = try await browser.authorize(Page.parameters(verifier: try PKCE.makeVerifier(), extra: [("prompt", "none")]))
            #expect(Page.query(silent).first("error") == "login_required")
        }
    }

    @Test func aFailedDeliveryIsRetriedWithTheSameToken() async throws {
        try await withReceiver(answers: [503]) { sim, receiver async throws in
            let tokens = try await sim.signIn("ada@example.com")
            let hint = try #require(tokens["id_token"]?.stringValue)
            #expect(try await sim.get("/connect/logout?id_token_hint=\(hint)").status == 200)
            let received = await receiver.waitFor(2)
            #expect(received.count == 2)
            #expect(try verify(received[0], sim).tokenID == verify(received[1], sim).tokenID)
            _ = try await attempts(sim, count: 2)
            let attempts = try await sim.get("/dev/backchannel").json()["attempts"]?.arrayValue ?? []
            #expect(attempts.map { $0["attempt"] } == [1, 2])
            #expect(attempts.map { $0["status"] } == [503, 200])
        }
    }

    @Test func aRefusedConnectionIsRetriedAndRecorded() async throws {
        try await withSimulator({ config in
            config.backchannelRetrySeconds = [0.1]
            config.clients[0].backchannelLogoutUri = "http://127.0.0.1:9/bff/backchannel-logout"
        }) { sim async throws in
            let hint = try #require(try await sim.signIn("ada@example.com")["id_token"]?.stringValue)
            #expect(try await sim.get("/connect/logout?id_token_hint=\(hint)").status == 200)
            let attempts = try await attempts(sim, count: 2)
            #expect(attempts.count == 2)
            #expect(attempts.allSatisfy { $0["delivered"] == false && $0["failure"]?.stringValue != nil })
        }
    }

    @Test func devSignOutEndsEverySessionOfTheUser() async throws {
        try await withReceiver { sim, receiver async throws in
            let first = try await sim.signIn("ada@example.com")
            let second = try await sim.signIn("ada@example.com")
            let sids = [first, second].compactMap { tokens in
                tokens["id_token"]?.stringValue.flatMap { sim.simulator.core.state.signingKey.verify($0)?["sid"]?.stringValue }
            }
            #expect(sids.count == 2)
            let answer = try await sim.postJSON("/dev/users/signout", ["email": "ada@example.com"])
            #expect(try answer.json()["sessionsEnded"] == 2)
            let tokens = await receiver.waitFor(2)
            #expect(Set(try tokens.map { try verify($0, sim).sessionID }) == Set(sids))
            #expect(try await sim.refresh(try #require(first["refresh_token"]?.stringValue)).error == "invalid_grant")
            #expect(try await sim.postJSON("/dev/users/signout", ["email": "nobody@example.com"]).status == 404)
        }
    }

    @Test func disablingAUserSendsSubjectOnlyTokensToAClientThatNeedsNoSid() async throws {
        try await withReceiver(sessionRequired: false) { sim, receiver async throws in
            let tokens = try await sim.signIn("ada@example.com")
            _ = try await sim.signIn("ada@example.com")
            #expect(try await sim.postJSON("/dev/users/disable", ["email": "ada@example.com"]).status == 200)
            let received = await receiver.waitFor(1)
            try await Task.sleep(for: .milliseconds(200))
            #expect(receiver.tokens.count == 1, "one token per user when the client needs no sid")
            let claims = try verify(try #require(received.first), sim)
            #expect(claims.sessionID == nil && claims.subject == "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f")
            #expect(try await sim.refresh(try #require(tokens["refresh_token"]?.stringValue)).error == "invalid_grant")
            let enabled = try await sim.postJSON("/dev/users/disable", ["email": "ada@example.com", "disabled": false])
            #expect(try enabled.json()["disabled"] == false)
            _ = try await sim.signIn("ada@example.com")
        }
    }

    @Test func theClientsURIAndTheDelaysAreConfigurable() async throws {
        try await withSimulator { sim async throws in
            let bad = try await sim.postJSON("/dev/config", ["clients": [["id": "bff", "backchannelLogoutUri": "ftp://x"]]])
            #expect(bad.status == 400 && bad.error == "invalid_config")
            #expect(try await sim.postJSON("/dev/config", ["backchannelRetrySeconds": [-1]]).status == 400)
            try await sim.config(["backchannelRetrySeconds": [1, 2],
                                  "clients": [["id": "bff", "backchannelLogoutUri": "http://127.0.0.1:1/bc",
                                               "backchannelLogoutSessionRequired": false]]])
            let config = try await sim.get("/dev/config").json()
            #expect(config["backchannelRetrySeconds"] == [1.0, 2.0])
            let bff = config["clients"]?.arrayValue?.first { $0["id"] == "bff" }
            #expect(bff?["backchannelLogoutUri"] == "http://127.0.0.1:1/bc")
            #expect(bff?["backchannelLogoutSessionRequired"] == false)
        }
    }
}
