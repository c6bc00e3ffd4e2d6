import Configuration
import Core
import Crypto
import Foundation
import HTTP
import Sessions
import Testing
import TestSupport
@testable import Gateway

/// Every rule of the app hand-off as a refusal (Docs/handoff.md).
@Suite("App hand-off: refusals")
struct AppLoginRefusalTests {
    static let invalidRequest = "app_request_invalid"

    @Test func aRequestIsSingleUseAndUnknownUsedAndExpiredAnswerTheSame403() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let webView = harness.browser()
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let used = try await AppLoginSupport.requestID(webView, AppLoginSupport.PKCEPair())
        #expect(try await AppLoginSupport.code(browser, requestID: used).status == 200)
        // A request stored as `start` stores it, with a lifetime of 2 s (a
        // loaded machine may take a while to read it back).
        let sessions = harness.service.sessions
        let expiring = try await sessions.beginAppLogin(
            challenge: AppLoginSupport.PKCEPair().challenge, app: AppLoginSupport.appName, lifetime: .seconds(2)).requestID.revealed
        #expect(try await sessions.appLoginRequest(id: expiring) != nil)

        let other = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, other).status == 200)
        let unknown = Base64URL.encode(try SecureRandom.bytes(count: 32))
        #expect(try await AppLoginSupport.waitUntil { try await sessions.appLoginRequest(id: expiring) == nil },
                "the request expires")
        var bodies: [[UInt8]] = []
        for id in [used, unknown, expiring, "not-a-request-id"] {
            let code = try await AppLoginSupport.code(other, requestID: id)
            #expect(code.status == 403)
            let cancel = try await other.post("/bff/app-login/cancel", ["requestId": .string(id), "state": "s"])
            #expect(cancel.status == 403)
            let described = try await other.get("/bff/app-login/" + id)
            #expect(described.status == 403)
            bodies += [code.body, cancel.body, described.body]
        }
        #expect(Set(bodies).count == 1, "one answer for unknown, used and expired")
        #expect(try JSON.parse(bodies[0])["error"]?.stringValue == Self.invalidRequest)
        #expect(try await other.get("/bff/user").status == 200, "a refused request leaves the browser signed in")
        await harness.stop()
    }

    @Test func aRequestExpiresAfterTheConfiguredLifetime() async throws {
        let harness = try await GatewayHarness.start(gateway: { config in
            AppLoginSupport.configure(&config)
            config.appLoginTimes.requestLifetime = .seconds(1)
        })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let started = try await AppLoginSupport.start(harness.browser(), AppLoginSupport.PKCEPair())
        #expect(started.json?["expiresIn"]?.intValue == 1)
        let id = try #require(started.json?["requestId"]?.stringValue)
        try await Task.sleep(for: .milliseconds(1200))
        let unknown = try await AppLoginSupport.code(browser, requestID: Base64URL.encode(try SecureRandom.bytes(count: 32)))
        let expired = try await AppLoginSupport.code(browser, requestID: id)
        #expect(expired.status == 403)
        #expect(expired.body == unknown.body)
        #expect(try await browser.get("/bff/app-login/" + id).body == unknown.body)
        await harness.stop()
    }

    @Test func onlyAFreshSessionIsHandedOverAndTheRequestStaysConsumed() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let sessions = harness.service.sessions
        let data = SessionData(subject: "old-user", claims: Array(#"{"sub":"old-user"}"#.utf8), method: .otp,
                               tokens: SessionTokens(accessToken: Secret("at-old"), accessTokenExpiresAt: nil, refreshToken: nil,
                                                     idToken: nil, scope: "openid"))
        let sixMinutesAgo = sessions.now - 6 * 60 * 1000
        let (_, setCookie, _) = try await sessions.createEnding(data, replacing: nil, authenticatedAt: sixMinutesAgo)
        let text = setCookie.revealed
        let browser = harness.browser()
        browser.setCookie("__Host-bff", String(text[text.index(after: text.firstIndex(of: "=")!)..<text.firstIndex(of: ";")!]))
        let id = try await AppLoginSupport.requestID(harness.browser(), AppLoginSupport.PKCEPair())
        let tooOld = try await AppLoginSupport.code(browser, requestID: id)
        #expect(tooOld.status == 403)
        #expect(tooOld.json?["error"]?.stringValue == "session_too_old")
        #expect(try await browser.get("/bff/user").status == 200, "the old session stays where it is")

        let fresh = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, fresh).status == 200)
        let again = try await AppLoginSupport.code(fresh, requestID: id)
        #expect(again.status == 403)
        #expect(again.json?["error"]?.stringValue == Self.invalidRequest, "the request was consumed")
        await harness.stop()
    }

    @Test func codeWithoutASessionIs401AndLeavesTheRequest() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let id = try await AppLoginSupport.requestID(harness.browser(), AppLoginSupport.PKCEPair())
        let anonymous = try await AppLoginSupport.code(harness.browser(), requestID: id)
        #expect(anonymous.status == 401)
        #expect(anonymous.json?["error"]?.stringValue == "unauthenticated")
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        #expect(try await AppLoginSupport.code(browser, requestID: id).status == 200)
        await harness.stop()
    }

    /// Start bodies refused with 400, each with what is wrong with it.
    static let badStarts: [(JSON, String)] = {
        let good = String(repeating: "a", count: 43)
        func body(_ challenge: String?, _ method: String?, app: String? = nil) -> JSON {
            var object = JSONObject()
            if let challenge { object["codeChallenge"] = .string(challenge) }
            if let method { object["codeChallengeMethod"] = .string(method) }
            if let app { object["app"] = .string(app) }
            return .object(object)
        }
        return [
            (body(good, "plain"), "method plain"), (body(good, nil), "no method"),
            (body(String(repeating: "a", count: 42), "S256"), "42 characters"),
            (body(String(repeating: "a", count: 44), "S256"), "44 characters"),
            (body(String(repeating: "+", count: 43), "S256"), "not base64url"), (body(nil, "S256"), "no challenge"),
            (body(good, "S256", app: "Other"), "unknown app"),
        ]
    }()

    @Test(arguments: badStarts)
    func startRefusesAnythingButAnS256Challenge(body: JSON, label: String) async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let refused = try await harness.browser().post("/bff/app-login/start", body)
        #expect(refused.status == 400, "\(label)")
        #expect(refused.json?["error"]?.stringValue == "invalid_request")
        await harness.stop()
    }

    @Test func aCodeIsRedeemedOnceAndAWrongVerifierBurnsItAndRevokesItsRefreshToken() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let port = harness.relay.localAddress!.port

        // Redeemed twice: the second is invalid_grant.
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let webView = harness.browser()
        let pair = AppLoginSupport.PKCEPair()
        let code = try await AppLoginSupport.handOff(browser, webView: webView, pair)
        #expect(try await AppLoginSupport.redeem(webView, code: code, verifier: pair.verifier).status == 200)
        let twice = try await AppLoginSupport.redeem(harness.browser(), code: code, verifier: pair.verifier)
        #expect(twice.status == 400)
        #expect(twice.json?["error"]?.stringValue == "invalid_grant")

        // A wrong verifier burns the code and revokes the moved refresh token at once.
        let second = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, second).status == 200)
        let moved = try #require(try await SessionsSupport.session(harness, second)?.data.tokens.refreshToken)
        let thief = harness.browser()
        let burnt = try await AppLoginSupport.handOff(second, webView: webView, pair)
        let wrong = try await AppLoginSupport.redeem(thief, code: burnt, verifier: AppLoginSupport.PKCEPair().verifier)
        #expect(wrong.status == 400)
        #expect(wrong.json?["error"]?.stringValue == "invalid_grant")
        #expect(try await ModgudProbe.introspect(port: port, moved.revealed)["active"]?.boolValue == false,
                "revoked before the answer")
        let right = try await AppLoginSupport.redeem(thief, code: burnt, verifier: pair.verifier)
        #expect(right.status == 400, "the right verifier after a wrong one finds nothing")
        #expect(right.body == twice.body)
        #expect(thief.cookies["__Host-bff"] == nil)

        for (code, verifier) in [(Base64URL.encode(try SecureRandom.bytes(count: 32)), pair.verifier), ("short", pair.verifier)] {
            let unknown = try await AppLoginSupport.redeem(thief, code: code, verifier: verifier)
            #expect(unknown.status == 400)
        }
        let shortVerifier = try await AppLoginSupport.redeem(thief, code: code, verifier: "abc")
        #expect(shortVerifier.json?["error"]?.stringValue == "invalid_request")
        await harness.stop()
    }

    @Test func anExpiredCodesRefreshTokenIsRevokedByTheSweep() async throws {
        let harness = try await GatewayHarness.start(gateway: { config in
            AppLoginSupport.configure(&config)
            config.appLoginTimes.codeLifetime = .seconds(3)
            config.appLoginTimes.revocationGrace = .milliseconds(500)
            config.appLoginTimes.sweepInterval = .milliseconds(200)
        })
        let port = harness.relay.localAddress!.port
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let moved = try #require(try await SessionsSupport.session(harness, browser)?.data.tokens.refreshToken)
        let webView = harness.browser()
        let pair = AppLoginSupport.PKCEPair()
        let code = try await AppLoginSupport.handOff(browser, webView: webView, pair)
        #expect(try await ModgudProbe.introspect(port: port, moved.revealed)["active"]?.boolValue == true,
                "a pending code's token stays live")
        #expect(try await AppLoginSupport.waitUntil {
            try await ModgudProbe.introspect(port: port, moved.revealed)["active"]?.boolValue == false
        }, "revoked by the sweep once the code expired")
        let late = try await AppLoginSupport.redeem(webView, code: code, verifier: pair.verifier)
        #expect(late.status == 400)
        #expect(late.json?["error"]?.stringValue == "invalid_grant")
        let metrics = try await LoopbackCall.send(port: harness.adminPort, "GET", "/metrics").bodyText
        #expect(metricValue(metrics, "bff_app_handoffs_total", #"step="expiry",outcome="revoked""#) == 1)
        // The sweep serves no request: its line has a trace of its own and no request id or address.
        let expiry = try harness.audit.lines.map { try JSON.parse(Array($0.utf8)) }
            .filter { $0["event"]?.stringValue == "audit.handoff.expiry" }
        #expect(expiry.count == 1 && expiry.first?["outcome"]?.stringValue == "revoked")
        #expect(expiry.first?["requestId"]?.stringValue == "" && expiry.first?["address"]?.stringValue == "")
        #expect(expiry.first?["traceId"]?.stringValue?.count == 32)
        await harness.stop()
    }

    @Test func withoutAnAppEveryRouteIs404() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        let id = Base64URL.encode(try SecureRandom.bytes(count: 32))
        for path in ["/bff/app-login/start", "/bff/app-login/code", "/bff/app-login/cancel", "/bff/app-login/session"] {
            #expect(try await browser.post(path, ["requestId": .string(id)]).status == 404, "\(path)")
        }
        #expect(try await browser.get("/bff/app-login/" + id).status == 404)
        let capabilities = try await browser.get("/bff/capabilities")
        #expect(capabilities.json?["features"]?["appLogin"]?.boolValue == false)
        await harness.stop()
    }

    @Test func theEndpointsAskForTheCSRFHeader() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let pair = AppLoginSupport.PKCEPair()
        let refused = try await harness.browser().send("POST", "/bff/app-login/start",
            body: ["codeChallenge": .string(pair.challenge), "codeChallengeMethod": "S256"], csrf: false)
        #expect(refused.status == 403)
        #expect(refused.json?["error"]?.stringValue == "csrf_failed")
        #expect(try await harness.browser().get("/bff/capabilities").json?["features"]?["appLogin"]?.boolValue == true)
        await harness.stop()
    }
}
