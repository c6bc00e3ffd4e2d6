import Configuration
import Core
import Crypto
import Foundation
import HTTP
import Sessions
import Synchronization
import Testing
import TestSupport
@testable import Gateway

/// The hand-off's per-address rate limits and its several apps.
@Suite("App hand-off: rate limits and apps")
struct AppLoginLimitTests {
    @Test func startIsThrottledPerAddressInModgudsShape() async throws {
        let harness = try await GatewayHarness.start(gateway: { config in
            AppLoginSupport.configure(&config)
            config.appLoginStartRate = RateLimit(count: 1, period: .seconds(3600), burst: 2)
            config.trustedProxies = [CIDR("127.0.0.1/32")!]
        })
        let pair = AppLoginSupport.PKCEPair()
        let body: JSON = ["codeChallenge": .string(pair.challenge), "codeChallengeMethod": "S256"]
        let client = [("X-Forwarded-For", "203.0.113.7")]
        let webView = harness.browser()
        for _ in 0..<2 { #expect(try await webView.post("/bff/app-login/start", body, headers: client).status == 201) }
        let limited = try await webView.post("/bff/app-login/start", body, headers: client)
        #expect(limited.status == 429)
        let retry = try #require(limited.header("Retry-After").flatMap { Int($0) })
        #expect((3000...3600).contains(retry), "one token an hour")
        #expect(limited.json == ["error": "rate_limited", "policy": "app-login-start", "dimension": "source",
                                 "retryAfterSeconds": .int(Int64(retry))])
        let elsewhere = try await webView.post("/bff/app-login/start", body, headers: [("X-Forwarded-For", "203.0.113.8")])
        #expect(elsewhere.status == 201, "another client address has its own bucket")
        let metrics = try await LoopbackCall.send(port: harness.adminPort, "GET", "/metrics").bodyText
        #expect(metricValue(metrics, "bff_app_handoffs_total", #"step="start",outcome="rate_limited""#) == 1)
        await harness.stop()
    }

    @Test func theBucketRefillsAtTheConfiguredRate() {
        let time = Mutex(Duration.zero)
        let limiter = AddressRateLimiter(policy: "p", limit: RateLimit(count: 2, period: .seconds(1), burst: 3), capacity: 10,
                                         now: { time.withLock { $0 } })
        let address = IPAddress.v4(0xC000_0207)
        for _ in 0..<3 { #expect(limiter.take(address) == nil) }
        #expect(limiter.take(address) == 1, "empty: the next token in half a second, rounded up")
        time.withLock { $0 = .milliseconds(500) }
        #expect(limiter.take(address) == nil, "one token back after half a second")
        #expect(limiter.take(address) == 1)
        time.withLock { $0 = .seconds(60) }
        for _ in 0..<3 { #expect(limiter.take(address) == nil) }
        #expect(limiter.take(address) != nil, "never more than the burst")
        #expect(limiter.take(.v6(high: 0x2001_0db8_0000_0001, low: 1)) == nil)
        for _ in 0..<2 { _ = limiter.take(.v6(high: 0x2001_0db8_0000_0001, low: 2)) }
        #expect(limiter.take(.v6(high: 0x2001_0db8_0000_0001, low: 3)) != nil, "an IPv6 /64 is one client")
    }

    @Test func sessionIsThrottledPerAddress() async throws {
        let harness = try await GatewayHarness.start(gateway: { config in
            AppLoginSupport.configure(&config)
            config.appLoginSessionRate = RateLimit(count: 1, period: .seconds(3600), burst: 2)
        })
        let webView = harness.browser()
        let code = Base64URL.encode(try SecureRandom.bytes(count: 32))
        let verifier = AppLoginSupport.PKCEPair().verifier
        for _ in 0..<2 { #expect(try await AppLoginSupport.redeem(webView, code: code, verifier: verifier).status == 400) }
        let limited = try await AppLoginSupport.redeem(webView, code: code, verifier: verifier)
        #expect(limited.status == 429)
        let retry = try #require(limited.header("Retry-After").flatMap { Int($0) })
        #expect((3000...3600).contains(retry), "one token an hour")
        #expect(limited.json?["policy"]?.stringValue == "app-login-session")
        #expect(limited.json?["retryAfterSeconds"]?.intValue == retry)
        await harness.stop()
    }

    @Test func severalAppsAreNamedByStart() async throws {
        let harness = try await GatewayHarness.start(gateway: { config in
            config.apps = [AppLoginApp(name: "MowDeck", callbackURI: "mowdeck://auth/callback"),
                           AppLoginApp(name: "MowDeck Pro", callbackURI: "https://pro.example.com/app/callback",
                                       androidPackage: "com.example.pro")]
        })
        let webView = harness.browser()
        let pair = AppLoginSupport.PKCEPair()
        let ambiguous = try await AppLoginSupport.start(webView, pair)
        #expect(ambiguous.status == 400)
        #expect(try await AppLoginSupport.start(webView, pair, app: "Nope").status == 400)
        let id = try await AppLoginSupport.requestID(webView, pair, app: "MowDeck Pro")
        let browser = harness.browser()
        #expect(try await browser.get("/bff/app-login/" + id).json?["app"]?.stringValue == "MowDeck Pro")
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let answered = try await AppLoginSupport.code(browser, requestID: id, state: "q")
        let redirect = try #require(answered.json?["redirect"]?.stringValue)
        #expect(redirect.hasPrefix("https://pro.example.com/app/callback?code="))
        #expect(answered.json?["intent"]?.stringValue?.hasPrefix("intent://pro.example.com/app/callback?code=") == true)
        #expect(answered.json?["intent"]?.stringValue?.hasSuffix("&state=q#Intent;scheme=https;package=com.example.pro;end") == true)
        let code = try #require(AppLoginSupport.query(redirect)["code"])
        #expect(try await AppLoginSupport.redeem(webView, code: code, verifier: pair.verifier).status == 200)
        await harness.stop()
    }

    @Test func theLimiterTracksABoundedNumberOfAddresses() {
        let limiter = AddressRateLimiter(policy: "p", limit: RateLimit(count: 1, period: .seconds(60), burst: 1), capacity: 100)
        for index in 0..<1000 { _ = limiter.take(.v4(0x0A00_0000 + UInt32(index))) }
        #expect(limiter.trackedAddresses <= 100)
        #expect(limiter.take(.v4(0x0A00_0000 + 999)) != nil, "a recent address keeps its empty bucket")
    }
}
