import Core
import Foundation
import HTTP
import Sessions
import Testing
import TestSupport
@testable import Gateway

/// No secret of the hand-off in a log line, and no token in an answer.
@Suite("App hand-off: secrets stay out of logs and answers")
struct AppLoginSecretTests {
    @Test func logsNameStepsAndOutcomesOnly() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0, package: "app.mowdeck.mobile") })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let tokens = try #require(try await SessionsSupport.session(harness, browser)?.data.tokens)
        let browserCookie = try #require(browser.cookies["__Host-bff"])
        let webView = harness.browser()
        let pair = AppLoginSupport.PKCEPair()
        let state = "app-state-secret-7f3a"
        let id = try await AppLoginSupport.requestID(webView, pair)
        let answered = try await AppLoginSupport.code(browser, requestID: id, state: state)
        let redirect = try #require(answered.json?["redirect"]?.stringValue)
        let code = try #require(AppLoginSupport.query(redirect)["code"])
        _ = try await AppLoginSupport.redeem(harness.browser(), code: code, verifier: "w" + String(pair.verifier.dropFirst()))
        let second = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, second).status == 200)
        let code2 = try await AppLoginSupport.handOff(second, webView: webView, pair)
        #expect(try await AppLoginSupport.redeem(webView, code: code2, verifier: pair.verifier).status == 200)
        let appCookie = try #require(webView.cookies["__Host-bff"])
        let appTokens = try #require(try await SessionsSupport.session(harness, webView)?.data.tokens)

        var secrets = [id, code, code2, pair.verifier, state, browserCookie, appCookie, tokens.accessToken.revealed,
                       appTokens.accessToken.revealed]
        secrets += [tokens.refreshToken?.revealed, appTokens.refreshToken?.revealed].compactMap { $0 }
        let lines = harness.logs.lines
        #expect(lines.contains { $0.contains("app_login.code") && $0.contains(#""outcome":"ok""#) })
        #expect(lines.contains { $0.contains("app_login.session") && $0.contains(#""outcome":"refused""#) })
        for secret in secrets {
            #expect(!lines.contains { $0.contains(secret) }, "a secret in a log line")
        }
        let answers = (browser.received.withLock { $0 } + webView.received.withLock { $0 } + second.received.withLock { $0 })
            .map { String(decoding: $0.body, as: UTF8.self) + $0.headers.map { $0.1 }.joined(separator: "\n") }
        for token in [tokens.accessToken.revealed, appTokens.accessToken.revealed, pair.verifier]
            + [tokens.refreshToken?.revealed, appTokens.refreshToken?.revealed].compactMap({ $0 }) {
            #expect(!answers.contains { $0.contains(token) }, "a token or the verifier in an answer")
        }
        await harness.stop()
    }
}
