import Core
import Foundation
import Sessions
import Testing
import TestSupport
@testable import Gateway

/// `code` takes the browser session only while holding its refresh lock,
/// as a refresher takes it: a refresh in flight (here: the lock held, as
/// by a refresh on another instance) finishes first, and its successor
/// tokens are what moves.
@Suite("App hand-off: the session moves under its refresh lock")
struct AppLoginLockTests {
    @Test func codeWaitsForARefreshInFlightAndMovesItsSuccessorTokens() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        var session = try #require(try await SessionsSupport.session(harness, browser))
        let lock = try #require(try await harness.service.refreshStore.acquireLock("refresh:" + session.lockName,
                                                                                   lease: .seconds(10)))
        let id = try await AppLoginSupport.requestID(harness.browser(), AppLoginSupport.PKCEPair())
        async let answered = AppLoginSupport.code(browser, requestID: id)
        // The "refresh" writes its successor while holding the lock, then releases it.
        try await Task.sleep(for: .milliseconds(500))
        var data = session.data
        data.tokens.refreshToken = Secret("successor-refresh-token")
        #expect(try await harness.service.sessions.update(&session, data: data))
        #expect(try await harness.service.sessions.reload(session).value != nil, "not taken while the lock is held")
        #expect(try await harness.service.refreshStore.releaseLock(lock))
        let response = try await answered
        #expect(response.status == 200)
        let redirect = try #require(response.json?["redirect"]?.stringValue)
        let code = try #require(AppLoginSupport.query(redirect)["code"])
        let handover = try #require(try await harness.service.sessions.redeemAppLoginCode(code))
        #expect(handover.data.tokens.refreshToken?.revealed == "successor-refresh-token", "the live tokens moved")
        await harness.stop()
    }
}
