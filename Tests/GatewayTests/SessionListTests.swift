import Testing
import Core
import Sessions
import TestSupport
@testable import Gateway

/// `GET /bff/sessions`, `DELETE /bff/sessions/{id}` and
/// `POST /bff/logout {"everywhere":true}` against the simulator.
@Suite("Sessions of a user", .serialized)
struct SessionListTests {
    @Test func theListShowsEachSessionOnceWithItsFactsAndTheCurrentOneFirst() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser(), phone = harness.browser()
        #expect(try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS).status == 200)
        #expect(try await SessionsSupport.signIn(harness, phone, userAgent: SessionsSupport.firefoxOnLinux).status == 200)
        let other = try await SessionsSupport.planted(harness, subject: "someone-else", sid: nil)

        let listed = try await laptop.get("/bff/sessions")
        #expect(listed.status == 200)
        #expect(listed.headers.contains { $0.0.lowercased() == "cache-control" && $0.1 == "no-store" })
        let sessions = try #require(listed.json?["sessions"]?.arrayValue)
        #expect(sessions.count == 2)
        #expect(sessions.map { $0["current"]?.boolValue } == [true, false])
        #expect(sessions.map { $0["device"]?.stringValue } == ["Chrome on macOS", "Firefox on Linux"])
        for entry in sessions {
            #expect(entry["method"]?.stringValue == "otp")
            #expect(entry["address"]?.stringValue == "127.0.0.1")
            let created = try #require(entry["createdAt"]?.stringValue), seen = try #require(entry["lastSeenAt"]?.stringValue)
            #expect(created.hasSuffix("Z") && created.count == 20 && seen >= created)
            let id = try #require(entry["id"]?.stringValue)
            #expect(id.count == 22)
            for cookie in [laptop.cookies["__Host-bff"], phone.cookies["__Host-bff"]] { #expect(cookie?.contains(id) == false) }
            let keys = try await LogoutIndexTests.keys(harness, "*")
            #expect(!keys.contains { $0.contains(id) }, "a handle is never part of a key name")
        }
        let theirs = try #require(try await other.get("/bff/sessions").json?["sessions"]?.arrayValue)
        #expect(theirs.count == 1 && theirs[0]["device"]?.stringValue == "Safari on iOS" && theirs[0]["method"]?.stringValue == "code")
        #expect(try await harness.browser().get("/bff/sessions").status == 401)
        await harness.stop()
    }

    @Test func deletingAnotherSessionEndsItAndRevokesItsRefreshToken() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser(), phone = harness.browser()
        try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS)
        try await SessionsSupport.signIn(harness, phone, userAgent: SessionsSupport.firefoxOnLinux)
        let stranger = try await SessionsSupport.planted(harness, subject: "someone-else", sid: nil)
        let phoneSession = try #require(try await SessionsSupport.session(harness, phone))
        let refreshToken = try #require(phoneSession.data.tokens.refreshToken?.revealed)
        #expect(try await ProxyTests.introspect(harness, refreshToken)["active"]?.boolValue == true)

        let sessions = try #require(try await laptop.get("/bff/sessions").json?["sessions"]?.arrayValue)
        let phoneID = try #require(sessions.first { $0["current"]?.boolValue == false }?["id"]?.stringValue)
        let strangersID = try #require(try await stranger.get("/bff/sessions").json?["sessions"]?[0]?["id"]?.stringValue)

        let unknown = try await laptop.send("DELETE", "/bff/sessions/AAAAAAAAAAAAAAAAAAAAAA", body: nil)
        let foreign = try await laptop.send("DELETE", "/bff/sessions/" + strangersID, body: nil)
        #expect(unknown.status == 404 && foreign.status == 404)
        #expect(unknown.body == foreign.body, "another user's session answers exactly as an unknown one")
        #expect(try await stranger.get("/bff/user").status == 200)
        #expect(try await laptop.send("DELETE", "/bff/sessions/" + phoneID, body: nil, csrf: false).status == 403)

        let deleted = try await laptop.send("DELETE", "/bff/sessions/" + phoneID, body: nil)
        #expect(deleted.status == 204)
        #expect(!deleted.setCookies.contains { $0.hasPrefix("__Host-bff=") }, "the asking session keeps its cookie")
        #expect(try await phone.get("/bff/user").status == 401)
        #expect(try await laptop.get("/bff/user").status == 200)
        #expect(try await ProxyTests.introspect(harness, refreshToken)["active"]?.boolValue == false)
        #expect(try await laptop.send("DELETE", "/bff/sessions/" + phoneID, body: nil).status == 404)
        #expect(try #require(try await laptop.get("/bff/sessions").json?["sessions"]?.arrayValue).count == 1)
        #expect(metricValue(harness.service.metrics.render(), "bff_sessions_ended_total", #"by="delete""#) == 1)
        await harness.stop()
    }

    @Test func deletingTheCurrentSessionEndsItAsLogoutDoes() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser()
        try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS)
        let refreshToken = try #require(try await SessionsSupport.session(harness, laptop)?.data.tokens.refreshToken?.revealed)
        let id = try #require(try await laptop.get("/bff/sessions").json?["sessions"]?[0]?["id"]?.stringValue)
        let deleted = try await laptop.send("DELETE", "/bff/sessions/" + id, body: nil)
        #expect(deleted.status == 204)
        #expect(deleted.setCookies.contains { $0.hasPrefix("__Host-bff=;") && $0.contains("Max-Age=0") })
        #expect(try await laptop.get("/bff/user").status == 401)
        #expect(try await ProxyTests.introspect(harness, refreshToken)["active"]?.boolValue == false)
        await harness.stop()
    }

    @Test func loggingOutEverywhereEndsEverySessionOfTheUserAndRevokesTheirTokens() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser(), phone = harness.browser()
        try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS)
        try await SessionsSupport.signIn(harness, phone, userAgent: SessionsSupport.firefoxOnLinux)
        let stranger = try await SessionsSupport.planted(harness, subject: "someone-else", sid: nil)
        var refreshTokens: [String] = []
        for browser in [laptop, phone] {
            refreshTokens.append(try #require(try await SessionsSupport.session(harness, browser)?.data.tokens.refreshToken?.revealed))
        }
        // Bad input changes nothing.
        #expect(try await phone.post("/bff/logout", ["everywhere": "yes"]).status == 400)
        #expect(try await phone.get("/bff/user").status == 200)
        let everywhere = try await phone.post("/bff/logout", ["everywhere": true])
        #expect(everywhere.status == 204)
        #expect(everywhere.setCookies.contains { $0.hasPrefix("__Host-bff=;") && $0.contains("Max-Age=0") })
        #expect(try await phone.get("/bff/user").status == 401)
        #expect(try await laptop.get("/bff/user").status == 401)
        #expect(try await stranger.get("/bff/user").status == 200)
        for token in refreshTokens {
            #expect(try await ProxyTests.introspect(harness, token)["active"]?.boolValue == false)
        }
        let sub = "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
        #expect(try await LogoutIndexTests.members(harness, LogoutIndexTests.indexKey(subject: sub)).isEmpty)
        #expect(try await LogoutIndexTests.keys(harness, "bff:s:card:*").count == 1, "only the stranger's card is left")
        #expect(metricValue(harness.service.metrics.render(), "bff_sessions_ended_total", #"by="everywhere""#) == 2)
        await harness.stop()
    }

    @Test func aPlainLogoutStillEndsOnlyItsOwnSession() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser(), phone = harness.browser()
        try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS)
        try await SessionsSupport.signIn(harness, phone, userAgent: SessionsSupport.firefoxOnLinux)
        #expect(try await phone.post("/bff/logout", ["everywhere": false]).status == 204)
        #expect(try await phone.get("/bff/user").status == 401)
        #expect(try await laptop.get("/bff/user").status == 200)
        let left = try #require(try await laptop.get("/bff/sessions").json?["sessions"]?.arrayValue)
        #expect(left.count == 1 && left[0]["current"]?.boolValue == true)
        #expect(try await laptop.post("/bff/logout").status == 204)
        #expect(try await LogoutIndexTests.keys(harness, "bff:s:card:*").isEmpty)
        await harness.stop()
    }

    @Test func aStoreThatIsDownIs503WithRetryAfter() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser()
        try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS)
        let id = try #require(try await laptop.get("/bff/sessions").json?["sessions"]?[0]?["id"]?.stringValue)
        await harness.redis.kill()
        for response in [try await laptop.get("/bff/sessions"), try await laptop.send("DELETE", "/bff/sessions/" + id, body: nil)] {
            #expect(response.status == 503)
            #expect(response.headers.contains { $0.0.lowercased() == "retry-after" })
            #expect(response.json?["error"]?.stringValue == "store_unavailable")
        }
        let everywhere = try await laptop.post("/bff/logout", ["everywhere": true])
        #expect(everywhere.status == 503)
        #expect(everywhere.setCookies.contains { $0.hasPrefix("__Host-bff=;") && $0.contains("Max-Age=0") },
                "the browser that asked is signed out all the same")
        await harness.stop()
    }
}
