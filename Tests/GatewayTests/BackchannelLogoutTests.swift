import Testing
import Core
import HTTPCodec
import Observability
#if canImport(Glibc)
import Glibc
#endif
import Crypto
@testable import ModgudSimulator
import Sessions
import TestSupport
@testable import Gateway

/// `POST /bff/backchannel-logout`: Modgud's logout token, verified against
/// the simulator's JWKS, ends the sessions of a `sid` or of a `sub`; every
/// refusal is `400 {"error":"invalid_request"}` and ends nothing.
@Suite("Back-channel logout", .serialized)
struct BackchannelLogoutTests {
    static let ownKey = SigningKey(try! RSAPrivateKey(bits: 2048))

    @Test func aSidEndsTheSessionsOfThatSidOnly() async throws {
        let harness = try await GatewayHarness.start()
        let first = try await SessionsSupport.planted(harness, subject: "user-1", sid: "sid-1")
        let second = try await SessionsSupport.planted(harness, subject: "user-1", sid: "sid-1")
        let otherSid = try await SessionsSupport.planted(harness, subject: "user-1", sid: "sid-2")
        let token = SessionsSupport.logoutToken(SessionsSupport.logoutClaims(harness, [("sid", "sid-1"), ("sub", "user-1")]))
        let answer = try await SessionsSupport.backchannel(harness, token: token)
        #expect(answer.status == 200)
        #expect(answer.headers.contains { $0.0.lowercased() == "cache-control" && $0.1 == "no-store" })
        #expect(try await first.get("/bff/user").status == 401)
        #expect(try await second.get("/bff/user").status == 401)
        #expect(try await otherSid.get("/bff/user").status == 200, "a sid decides when both are present")
        let metrics = harness.service.metrics.render()
        #expect(metricValue(metrics, "bff_backchannel_logouts_total", #"result="accepted""#) == 1)
        #expect(metricValue(metrics, "bff_sessions_ended_total", #"by="backchannel""#) == 2)
        #expect(!harness.logs.lines.contains { $0.contains(token) || $0.contains("sid-1") }, "no token or claim in a log line")
        await harness.stop()
    }

    @Test func aSubAloneEndsEverySessionOfTheUserWithoutRevokingTokens() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser(), phone = harness.browser()
        try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS)
        try await SessionsSupport.signIn(harness, phone, userAgent: SessionsSupport.firefoxOnLinux)
        let stranger = try await SessionsSupport.planted(harness, subject: "someone-else", sid: nil)
        let sub = try #require(try await laptop.get("/bff/user").json?["user"]?["sub"]?.stringValue)
        let mark = harness.simulator.lastRequestSeq
        let token = SessionsSupport.logoutToken(SessionsSupport.logoutClaims(harness, [("sub", .string(sub))]))
        #expect(try await SessionsSupport.backchannel(harness, token: token).status == 200)
        #expect(try await laptop.get("/bff/user").status == 401)
        #expect(try await phone.get("/bff/user").status == 401)
        #expect(try await stranger.get("/bff/user").status == 200)
        let paths = harness.modgudRequests(since: mark).compactMap { $0["path"]?.stringValue }
        #expect(!paths.contains("/connect/revoke"), "Modgud ended the grants itself")
        await harness.stop()
    }

    @Test func aReplayAnswers200AndEndsNothingNew() async throws {
        let harness = try await GatewayHarness.start()
        let before = try await SessionsSupport.planted(harness, subject: "user-1", sid: nil)
        let claims = SessionsSupport.logoutClaims(harness, [("sub", "user-1")])
        let token = SessionsSupport.logoutToken(claims)
        #expect(try await SessionsSupport.backchannel(harness, token: token).status == 200)
        #expect(try await before.get("/bff/user").status == 401)
        // One key for the jti, hashed, for an hour (past Modgud's retries).
        let replayKeys = try await LogoutIndexTests.keys(harness, "bff:l:replay:*")
        let jti = try #require(claims["jti"]?.stringValue)
        #expect(replayKeys.count == 1 && !replayKeys[0].contains(jti))
        let ttl = try await LogoutIndexTests.millisecondsToLive(harness, replayKeys[0])
        #expect(ttl > 3_500_000 && ttl <= 3_600_000)
        let after = try await SessionsSupport.planted(harness, subject: "user-1", sid: nil)
        let replay = try await SessionsSupport.backchannel(harness, token: token)
        #expect(replay.status == 200)
        #expect(try await after.get("/bff/user").status == 200, "a session signed in after the logout survives its replay")
        let metrics = harness.service.metrics.render()
        #expect(metricValue(metrics, "bff_backchannel_logouts_total", #"result="replayed""#) == 1)
        await harness.stop()
    }

    /// Every refusal, each against a live session that must survive it.
    @Test func everyRefusalIs400AndEndsNothing() async throws {
        let harness = try await GatewayHarness.start()
        let survivor = try await SessionsSupport.planted(harness, subject: "user-1", sid: "sid-1")
        let now = Int64(time(nil))
        func claims(_ changes: [(String, JSON?)]) -> JSON {
            SessionsSupport.logoutClaims(harness, [("sub", "user-1"), ("sid", "sid-1")] + changes)
        }
        let good = SessionsSupport.logoutToken(claims([]))
        let parts = good.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[7] ^= 1
        let confusedHeader: JSON = ["alg": "HS256", "kid": .string(SessionsSupport.simulatorKey.kid), "typ": "logout+jwt"]
        let confusedInput = Base64URL.encode(confusedHeader.serialized) + "." + parts[1]
        let confused = confusedInput + "." + Base64URL.encode(HMACSHA256.authenticate(
            key: SessionsSupport.simulatorKey.jwks.serialized, message: Array(confusedInput.utf8)))
        let noneHeader: JSON = ["alg": "none", "kid": .string(SessionsSupport.simulatorKey.kid), "typ": "logout+jwt"]
        let ownWithSimulatorKid: JSON = ["alg": "RS256", "kid": .string(SessionsSupport.simulatorKey.kid), "typ": "logout+jwt"]
        let form = FormURLEncoded.serialize([("logout_token", good)])
        let cases: [(String, String, String, [UInt8]?)] = [
            ("wrong signature", parts[0] + "." + parts[1] + "." + Base64URL.encode(signature), "application/x-www-form-urlencoded", nil),
            ("a key not in the JWKS", SessionsSupport.logoutToken(claims([]), key: Self.ownKey), "application/x-www-form-urlencoded", nil),
            ("another key under the JWKS kid",
             SessionsSupport.logoutToken(claims([]), key: Self.ownKey, header: ownWithSimulatorKid), "application/x-www-form-urlencoded", nil),
            ("alg none", Base64URL.encode(noneHeader.serialized) + "." + parts[1] + ".", "application/x-www-form-urlencoded", nil),
            ("alg HS256", confused, "application/x-www-form-urlencoded", nil),
            ("wrong iss", SessionsSupport.logoutToken(claims([("iss", "https://evil.example")])), "application/x-www-form-urlencoded", nil),
            ("wrong aud", SessionsSupport.logoutToken(claims([("aud", "someone-else")])), "application/x-www-form-urlencoded", nil),
            ("iat too old", SessionsSupport.logoutToken(claims([("iat", .int(now - 600))])), "application/x-www-form-urlencoded", nil),
            ("iat in the future", SessionsSupport.logoutToken(claims([("iat", .int(now + 600))])), "application/x-www-form-urlencoded", nil),
            ("no events", SessionsSupport.logoutToken(claims([("events", nil)])), "application/x-www-form-urlencoded", nil),
            ("a nonce", SessionsSupport.logoutToken(claims([("nonce", "n-1")])), "application/x-www-form-urlencoded", nil),
            ("neither sub nor sid", SessionsSupport.logoutToken(claims([("sub", nil), ("sid", nil)])),
             "application/x-www-form-urlencoded", nil),
            ("an id_token's typ", SessionsSupport.logoutToken(claims([]), header: [
                "alg": "RS256", "kid": .string(SessionsSupport.simulatorKey.kid), "typ": "JWT"]), "application/x-www-form-urlencoded", nil),
            ("a JSON body", good, "application/json", Array(#"{"logout_token":"\#(good)"}"#.utf8)),
            ("no logout_token", good, "application/x-www-form-urlencoded", Array("token=\(good)".utf8)),
            ("two logout_tokens", good, "application/x-www-form-urlencoded", Array((form + "&" + form).utf8)),
            ("an oversize token", SessionsSupport.logoutToken(claims([("pad", .string(String(repeating: "a", count: 20_000)))])),
             "application/x-www-form-urlencoded", nil),
        ]
        for (name, token, type, body) in cases {
            let answer = try await SessionsSupport.backchannel(harness, token: token, contentType: type, body: body)
            #expect(answer.status == 400, "\(name)")
            #expect(answer.json == ["error": "invalid_request"], "\(name)")
            #expect(try await survivor.get("/bff/user").status == 200, "\(name) ended nothing")
        }
        let metrics = harness.service.metrics.render()
        #expect(metricValue(metrics, "bff_backchannel_logouts_total", #"result="refused""#) == Double(cases.count))
        // A body over the route's limit (32 KiB) is refused before the endpoint runs.
        let oversize = try await SessionsSupport.backchannel(harness, token: good, body: Array((form + "&pad="
            + String(repeating: "a", count: 40_000)).utf8))
        #expect(oversize.status == 413)
        #expect(try await survivor.get("/bff/user").status == 200)
        // The good token still works afterwards: nothing above recorded its jti.
        #expect(try await SessionsSupport.backchannel(harness, token: good).status == 200)
        #expect(try await survivor.get("/bff/user").status == 401)
        await harness.stop()
    }

    @Test func aStoreThatIsDownIs503AndTheRetryStillWorks() async throws {
        let harness = try await GatewayHarness.start()
        let token = SessionsSupport.logoutToken(SessionsSupport.logoutClaims(harness, [("sub", "user-1")]))
        // The keys first, while everything is up (the JWKS is cached afterwards).
        let warm = SessionsSupport.logoutToken(SessionsSupport.logoutClaims(harness, [("sub", "nobody")]))
        #expect(try await SessionsSupport.backchannel(harness, token: warm).status == 200)
        await harness.redis.kill()
        let down = try await SessionsSupport.backchannel(harness, token: token)
        #expect(down.status == 503)
        #expect(down.headers.contains { $0.0.lowercased() == "retry-after" })
        try await harness.redis.restart()   // data is not kept: the warm-up's jti is gone too
        for _ in 0..<500 where !harness.service.redis.isReady { try await Task.sleep(for: .milliseconds(10)) }
        let session = try await SessionsSupport.planted(harness, subject: "user-1", sid: nil)
        #expect(try await SessionsSupport.backchannel(harness, token: token).status == 200)
        #expect(try await session.get("/bff/user").status == 401)
        await harness.stop()
    }

    /// Two gateways on one Redis, the session cache on: the call reaches A,
    /// and B, which has been serving the session from memory, ends it too.
    @Test func aLogoutAtOneInstanceEndsTheSessionAtAnother() async throws {
        let harness = try await GatewayHarness.start()
        let second = try GatewayService(config: harness.service.config, group: harness.group,
                                        logger: Logger(level: .debug, sink: .capturing(LogCapture())))
        try await second.start()
        for _ in 0..<500 where !second.redis.isReady { try await Task.sleep(for: .milliseconds(10)) }
        let atA = harness.browser()
        try await SessionsSupport.signIn(harness, atA, userAgent: SessionsSupport.chromeOnMacOS)
        let atB = Browser(port: second.publicServer.localAddress!.port, origin: "http://localhost:8080")
        atB.setCookie("__Host-bff", try #require(atA.cookies["__Host-bff"]))
        for _ in 0..<5 { #expect(try await atB.get("/bff/user").status == 200) }
        let cache = try #require(second.sessionCache)
        #expect(cache.count >= 1, "B serves the session from its cache")
        let sub = try #require(try await atB.get("/bff/user").json?["user"]?["sub"]?.stringValue)
        let token = SessionsSupport.logoutToken(SessionsSupport.logoutClaims(harness, [("sub", .string(sub))]))
        #expect(try await SessionsSupport.backchannel(harness, token: token).status == 200)
        // Redis announces the deletion to B on B's tracking connection as it
        // happens; B may read that a moment after A answered, never later
        // than the cache's staleness bound (1 s).
        let clock = ContinuousClock()
        let start = clock.now
        var status = try await atB.get("/bff/user").status
        while status != 401, clock.now - start < .seconds(2) {
            try await Task.sleep(for: .milliseconds(1))
            status = try await atB.get("/bff/user").status
        }
        #expect(status == 401)
        #expect(clock.now - start < .seconds(1), "B ended the session within the staleness bound")
        print("back-channel logout at A reached B's cache after \(clock.now - start)")
        #expect(try await atA.get("/bff/user").status == 401)
        await second.shutdown()
        await harness.stop()
    }
}
