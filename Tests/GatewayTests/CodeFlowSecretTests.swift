import Core
import HTTP
import TestSupport
import Testing
@testable import Gateway

/// The code flow's secrets (state, nonce, PKCE verifier, the code, every
/// token) never appear in a URL the gateway emits (the one exception: the
/// id_token as `id_token_hint` of the end-session URL), in anything else
/// the browser receives, or in a log line.
@Suite("Code flow secrets", .serialized)
struct CodeFlowSecretTests {
    @Test func noURLAnswerOrLogLineCarriesAFlowSecret() async throws {
        let deployment = try await CodeFlowDeployment.start(par: true)
        let browser = deployment.browser()
        // A refused callback, a sign-in, a second tab's refused replay, a logout.
        _ = try await deployment.callback(browser, "/bff/callback?code=stray-code-123456&state=stray-state-123456")
        let login = try await deployment.login(browser, "loginHint=ada%40example.com&returnUrl=/app")
        let location = try #require(login.header("Location"))
        let back = try await deployment.authorize(location)
        _ = try await deployment.callback(browser, back)
        _ = try await deployment.callback(deployment.browser(), back)
        let session = try #require(try await deployment.session(of: browser))
        let logout = try await browser.post("/bff/logout")
        let endSession = try #require(logout.json?["endSessionUrl"]?.stringValue)

        let push = try #require(deployment.front.pushes.first)
        let code = try #require(CodeFlowDeployment.query(back).first("code"))
        let verifier = try #require(deployment.front.tokenForms.compactMap { $0.first("code_verifier") }.first)
        let idToken = try #require(session.data.tokens.idToken?.revealed)
        var secrets = [try #require(push.value("state")), try #require(push.value("nonce")), verifier, code,
                       session.data.tokens.accessToken.revealed, try #require(session.data.tokens.refreshToken?.revealed),
                       "stray-code-123456", "stray-state-123456", "bff-secret"]
        secrets += session.data.tokens.resources.values.map(\.accessToken.revealed)

        let received = browser.received.withLock { $0 }
        var urls = received.compactMap { $0.header("Location") }
        #expect(urls.count >= 3)
        urls.append(endSession)
        let everything = received.map { response in
            response.headers.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + "\n" + response.bodyText
        }.joined(separator: "\n")
        let logs = deployment.harness.logs.lines.joined(separator: "\n")
        for secret in secrets {
            #expect(!urls.contains { $0.contains(secret) }, "a secret in a URL the gateway emitted")
            #expect(!everything.contains(secret), "a secret reached the browser")
            #expect(!logs.contains(secret), "a secret reached a log line")
        }
        // The id_token: only as the end-session URL's hint, never in a log.
        #expect(urls.filter { $0.contains(idToken) } == [endSession])
        #expect(!logs.contains(idToken))
        await deployment.stop()
    }
}
