import Testing
import Core
import HTTP
import ModgudSimulator
import Sessions
import TestSupport
import WebAuthn
@testable import Gateway

/// `POST /bff/logout` against the simulator behind a recording tap and a
/// real Redis: what the browser got, what Modgud received, and what is
/// left in the store and at Modgud afterwards.
@Suite("Logout")
struct AccountEndpointTests {
    static let origin = AccountDeployment.origin

    // MARK: Logout

    @Test func logoutRevokesBothTokensAtModgudAndEndsTheSession() async throws {
        let deployment = try await AccountDeployment.start()
        let browser = try await deployment.signedInBrowser()
        let cookie = try #require(browser.cookies["__Host-bff"])
        let session = try #require(try await deployment.session(of: browser))
        let refresh = try #require(session.data.tokens.refreshToken?.revealed)
        let access = session.data.tokens.accessToken.revealed
        #expect(try await deployment.introspect(refresh)["active"]?.boolValue == true, "live before the logout")

        let mark = deployment.simulator.lastRequestSeq
        let tapMark = deployment.tap.mark
        let loggedOut = try await browser.post("/bff/logout")
        #expect(loggedOut.status == 204)
        #expect(loggedOut.body.isEmpty)
        let expired = try #require(loggedOut.setCookie(named: "__Host-bff"))
        #expect(expired.hasPrefix("__Host-bff=;") && expired.contains("Max-Age=0"))
        #expect(expired.contains("Path=/") && expired.contains("Secure") && expired.contains("HttpOnly"))
        #expect(browser.cookies["__Host-bff"] == nil)

        // Gone from the store: the same cookie no longer opens a session.
        #expect(try await deployment.recordExists(session) == false)
        let stale = deployment.harness.browser(origin: Self.origin)
        stale.setCookie("__Host-bff", cookie)
        let user = try await stale.get("/bff/user")
        #expect(user.status == 401)
        #expect(user.json?["error"]?.stringValue == "unauthenticated")

        // Modgud got two revocations, refresh token first, as the client alone.
        let revocations = deployment.tap.calls(since: tapMark)
        #expect(revocations.map(\.path) == ["/connect/revoke", "/connect/revoke"])
        #expect(revocations.map { $0.formValue("token") } == [refresh, access])
        #expect(revocations.map { $0.formValue("token_type_hint") } == ["refresh_token", "access_token"])
        for call in revocations {
            #expect(call.method == "POST")
            #expect(call.headers["Authorization"] == AccountDeployment.clientBasic)
            #expect(!call.headers.contains("Modgud-Forwarded-For"), "revoke carries Basic alone")
            #expect(call.status == 200)
        }
        let records = deployment.harness.modgudRequests(since: mark)
        #expect(records.count == 2)
        for record in records {
            #expect(record["path"]?.stringValue == "/connect/revoke")
            #expect(record["clientAuth"]?.stringValue == "basic")
            #expect(record["clientId"]?.stringValue == "bff")
            #expect(record["forwardedFor"]?.isNull == true)
            #expect(record["browserHeaders"]?.arrayValue?.isEmpty == true)
        }
        #expect(deployment.stat("revocations", "refresh") == 1)
        #expect(deployment.stat("revocations", "access") == 1)

        // Dead at Modgud: inactive, and a refresh with it is refused.
        #expect(try await deployment.introspect(refresh)["active"]?.boolValue == false)
        #expect(try await deployment.introspect(access)["active"]?.boolValue == false)
        let refreshed = try await deployment.refreshAtModgud(refresh)
        #expect(refreshed.status == 400)
        #expect(refreshed.json["error"]?.stringValue == "invalid_grant")

        let logs = deployment.harness.logs.lines
        #expect(logs.contains { $0.contains("logout.completed") })
        #expect(!logs.contains { $0.contains("logout.revocation_failed") })
        #expect(ModgudCallMetricsTests.calls(deployment.harness, "revoke", "ok") == 2, "each revocation counted once")
        await deployment.stop()
    }

    @Test(arguments: [nil, "bm90LWEtc2Vzc2lvbi1idXQtd2VsbC1mb3JtZWQtYW5kLWxvbmctZW5vdWdo"])
    func logoutWithoutASessionClearsTheCookieAndCallsNobody(cookie: String?) async throws {
        let deployment = try await AccountDeployment.start()
        let browser = deployment.harness.browser(origin: Self.origin)
        if let cookie { browser.setCookie("__Host-bff", cookie) }
        let mark = deployment.tap.mark
        let loggedOut = try await browser.post("/bff/logout")
        #expect(loggedOut.status == 204)
        let expired = try #require(loggedOut.setCookie(named: "__Host-bff"))
        #expect(expired.contains("Max-Age=0"))
        #expect(browser.cookies["__Host-bff"] == nil)
        #expect(deployment.tap.calls(since: mark).isEmpty, "no session, nothing to revoke")
        await deployment.stop()
    }

    @Test func logoutRequiresTheCSRFHeader() async throws {
        let deployment = try await AccountDeployment.start()
        let browser = try await deployment.signedInBrowser()
        let session = try #require(try await deployment.session(of: browser))
        let mark = deployment.tap.mark
        let refused = try await browser.send("POST", "/bff/logout", body: nil, csrf: false)
        #expect(refused.status == 403)
        #expect(refused.json?["error"]?.stringValue == "csrf_failed")
        #expect(refused.setCookie(named: "__Host-bff") == nil, "the cookie stays")
        #expect(deployment.tap.calls(since: mark).isEmpty)
        #expect(try await deployment.recordExists(session))
        #expect(try await browser.get("/bff/user").status == 200, "the session is untouched")
        await deployment.stop()
    }

    /// Redis holds writes past the gateway's command timeout while the
    /// logout removes the record (which still happens once Redis lets it):
    /// the tokens this request read are revoked all the same and the
    /// cookie expired, with the store's 503.
    @Test func aLogoutWhoseRemovalFailsStillRevokesTheTokensAndExpiresTheCookie() async throws {
        let deployment = try await AccountDeployment.start()
        let browser = try await deployment.signedInBrowser()
        let session = try #require(try await deployment.session(of: browser))
        let refresh = try #require(session.data.tokens.refreshToken?.revealed)
        // The first look at a session renews its idle timeout (a write);
        // made here, the logout's own look is a read.
        #expect(try await browser.get("/bff/user").status == 200)
        let mark = deployment.tap.mark
        // Reads go on (the logout reads the session), writes wait 2 s.
        let pause = try ChildProcess.spawn(
            ["/usr/bin/redis-cli", "-p", "\(deployment.harness.redis.port)", "CLIENT", "PAUSE", "2000", "WRITE"],
            output: "/dev/null")
        await withCheckedContinuation { done in ChildProcess.reap(pause) { done.resume() } }

        let loggedOut = try await browser.post("/bff/logout")
        #expect(loggedOut.status == 503)
        #expect(loggedOut.json?["error"]?.stringValue == "store_unavailable")
        #expect(loggedOut.header("Retry-After") != nil)
        #expect(loggedOut.setCookie(named: "__Host-bff")?.contains("Max-Age=0") == true)
        #expect(deployment.tap.calls(since: mark).compactMap { $0.formValue("token") }.contains(refresh))
        #expect(try await deployment.introspect(refresh)["active"]?.boolValue == false)
        #expect(deployment.harness.logs.lines.contains { $0.contains("logout.store_failed") })
        await deployment.stop()
    }

    enum RevocationTrouble: String, CaseIterable, Sendable { case modgudAnswers503, modgudDown }

    @Test(arguments: RevocationTrouble.allCases)
    func failedRevocationStillEndsTheSessionAndIsLoggedWithoutTokens(_ trouble: RevocationTrouble) async throws {
        let deployment = try await AccountDeployment.start()
        let browser = try await deployment.signedInBrowser()
        let cookie = try #require(browser.cookies["__Host-bff"])
        let session = try #require(try await deployment.session(of: browser))
        let refresh = try #require(session.data.tokens.refreshToken?.revealed)
        let access = session.data.tokens.accessToken.revealed
        let mark = deployment.tap.mark
        switch trouble {
        case .modgudAnswers503: deployment.simulator.injectFault(path: "/connect/revoke", count: 2, .status(503))
        case .modgudDown: await deployment.tap.stop()
        }

        let loggedOut = try await browser.post("/bff/logout")
        #expect(loggedOut.status == 204)
        #expect(loggedOut.setCookie(named: "__Host-bff")?.contains("Max-Age=0") == true)
        #expect(try await deployment.recordExists(session) == false, "ended here whatever Modgud did")
        let stale = deployment.harness.browser(origin: Self.origin)
        stale.setCookie("__Host-bff", cookie)
        #expect(try await stale.get("/bff/user").status == 401)

        let calls = deployment.tap.calls(since: mark)
        switch trouble {
        case .modgudAnswers503:
            #expect(calls.map(\.path) == ["/connect/revoke", "/connect/revoke"])
            #expect(calls.allSatisfy { $0.status == 503 })
            #expect(try await deployment.introspect(refresh)["active"]?.boolValue == true, "Modgud really revoked nothing")
        case .modgudDown:
            #expect(calls.isEmpty)
        }
        let failures = deployment.harness.logs.lines.filter { $0.contains("logout.revocation_failed") }
        #expect(failures.count == 1)
        let line = try #require(failures.first)
        #expect(line.contains(#""failed":2"#) && line.contains(#""of":2"#), "\(line)")
        for secret in [refresh, access, cookie] { #expect(!line.contains(secret), "no token or cookie in the log line") }
        for line in deployment.harness.logs.lines {
            for secret in [refresh, access] { #expect(!line.contains(secret)) }
        }
        await deployment.stop()
    }
}
