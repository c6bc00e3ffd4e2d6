import Testing
import Configuration
import Core
import HTTP
import ModgudSimulator
import TestSupport
import WebAuthn
@testable import Gateway

/// Sign-in through the gateway against the simulator and a real Redis, over
/// real sockets; assertions on what the browser got AND on what Modgud got.
@Suite("Sign-in flows", .serialized)
struct SignInFlowTests {
    static let email = "ada@example.com"

    static func signInWithCode(_ harness: GatewayHarness, _ browser: Browser, email: String = email) async throws -> RawResponse {
        let requested = try await browser.post("/bff/otp/request", ["email": .string(email)])
        #expect(requested.status == 200)
        let code = try #require(harness.simulator.mail(to: email).first?.code)
        return try await browser.post("/bff/otp/redeem", ["email": .string(email), "code": .string(code)])
    }

    @Test func emailCodeSignInCreatesASessionAndTheUserEndpointSeesIt() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        let signedIn = try await Self.signInWithCode(harness, browser)
        #expect(signedIn.status == 200)
        #expect(signedIn.json?["user"]?["email"]?.stringValue == Self.email)
        #expect(signedIn.json?["user"]?["sub"]?.stringValue?.isEmpty == false)
        let cookie = try #require(signedIn.setCookies.first { $0.hasPrefix("__Host-bff=") })
        #expect(cookie.contains("HttpOnly") && cookie.contains("Secure") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
        #expect(!cookie.lowercased().contains("domain="))

        let user = try await browser.get("/bff/user")
        #expect(user.status == 200)
        #expect(user.json?["user"]?["email"]?.stringValue == Self.email)
        #expect(user.json?["user"]?["sub"]?.stringValue == signedIn.json?["user"]?["sub"]?.stringValue)
        let authenticatedAt = try #require(user.json?["session"]?["authenticatedAt"]?.stringValue)
        let expiresAt = try #require(user.json?["session"]?["expiresAt"]?.stringValue)
        #expect(authenticatedAt.hasSuffix("Z") && expiresAt.hasSuffix("Z"), "RFC 3339 times in UTC")
        #expect(authenticatedAt < expiresAt, "\(authenticatedAt) before \(expiresAt)")

        let anonymous = try await harness.browser().get("/bff/user")
        #expect(anonymous.status == 401)
        #expect(anonymous.json?["error"]?.stringValue == "unauthenticated")
        await harness.stop()
    }

    @Test func everyCallToModgudIsBasicAuthenticatedWithTheBrowsersAddress() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        // Browser headers that must never reach Modgud, and a forged forwarded address.
        let hostile = [("Referer", "http://localhost:8080/login"), ("Sec-Fetch-Site", "same-origin"),
                       ("Sec-Fetch-Mode", "cors"), ("Modgud-Forwarded-For", "203.0.113.66")]
        browser.setCookie("tracking", "1")
        _ = try await browser.post("/bff/otp/request", ["email": .string(Self.email)], headers: hostile)
        let code = try #require(harness.simulator.mail(to: Self.email).first?.code)
        let redeemed = try await browser.post("/bff/otp/redeem", ["email": .string(Self.email), "code": .string(code)], headers: hostile)
        #expect(redeemed.status == 200)

        let calls = harness.modgudRequests()
        let byPath = Dictionary(grouping: calls) { $0["path"]?.stringValue ?? "" }
        for path in ["/api/account/native/otp/request", "/connect/token"] {
            let call = try #require(byPath[path]?.first, "\(path) was called")
            #expect(call["clientAuth"]?.stringValue == "basic", "\(path)")
            #expect(call["clientId"]?.stringValue == "bff")
            #expect(call["forwardedFor"]?.stringValue == "127.0.0.1", "the peer, not the forged header")
        }
        let userinfo = try #require(byPath["/connect/userinfo"]?.first)
        #expect(userinfo["clientAuth"]?.stringValue == "bearer")
        #expect(userinfo["forwardedFor"] == nil || userinfo["forwardedFor"]?.isNull == true, "no forwarded address with a Bearer token")
        for call in calls {
            #expect(call["browserHeaders"]?.arrayValue?.isEmpty ?? true, "no browser header reached Modgud: \(call["path"]?.stringValue ?? "")")
        }
        await harness.stop()
    }

    @Test func trustedProxyAddressIsForwarded() async throws {
        let harness = try await GatewayHarness.start(gateway: { $0.trustedProxies = [CIDR("127.0.0.0/8")!] })
        let browser = harness.browser()
        _ = try await browser.post("/bff/otp/request", ["email": .string(Self.email)],
                                   headers: [("X-Forwarded-For", "198.51.100.23, 127.0.0.9")])
        let call = try #require(harness.modgudRequests().first { $0["path"]?.stringValue == "/api/account/native/otp/request" })
        #expect(call["forwardedFor"]?.stringValue == "198.51.100.23")
        await harness.stop()
    }

    @Test func signInReplacesTheEarlierSession() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        _ = try await Self.signInWithCode(harness, browser)
        let first = try #require(browser.cookies["__Host-bff"])
        _ = try await Self.signInWithCode(harness, browser)
        let second = try #require(browser.cookies["__Host-bff"])
        #expect(first != second)
        let stale = harness.browser()
        stale.setCookie("__Host-bff", first)
        #expect(try await stale.get("/bff/user").status == 401, "the earlier session ended (fixation defence)")
        #expect(try await browser.get("/bff/user").status == 200)
        await harness.stop()
    }

    @Test func magicLinkSignIn() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        #expect(try await browser.post("/bff/magic/request", ["email": .string(Self.email)]).status == 200)
        let mail = try #require(harness.simulator.mail(to: Self.email).first { $0.kind.contains("magic") })
        let redeemed = try await browser.post("/bff/magic/redeem", ["userId": .string(try #require(mail.userId)),
                                                                    "token": .string(try #require(mail.token))])
        #expect(redeemed.status == 200)
        #expect(redeemed.json?["user"]?["email"]?.stringValue == Self.email)
        await harness.stop()
    }

    @Test func secondFactorKeepsTheMFATokenServerSide() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        let grace = "grace@example.com"
        let prompted = try await Self.signInWithCode(harness, browser, email: grace)
        #expect(prompted.status == 400)
        #expect(prompted.json?["error"]?.stringValue == "mfa_required")
        #expect(prompted.json?["mfaMethods"]?.arrayValue?.compactMap(\.stringValue) == ["totp"])
        #expect(prompted.json?["mfa_token"] == nil && !prompted.bodyText.contains("mfa_token"))
        let mfaTokens = harness.answers.all.compactMap { answer -> String? in
            guard case .bytes(let body) = answer.body else { return nil }
            return (try? JSON.parse(body))?["mfa_token"]?.stringValue
        }
        #expect(mfaTokens.count == 1, "Modgud sent one mfa_token")
        for token in mfaTokens { #expect(!prompted.bodyText.contains(token)) }
        #expect(browser.cookies["__Host-bff-flow"] != nil)

        let totp = try #require(harness.simulator.totpCode(for: grace))
        let done = try await browser.post("/bff/mfa", ["totpCode": .string(totp)])
        #expect(done.status == 200)
        #expect(done.json?["user"]?["email"]?.stringValue == grace)
        #expect(browser.cookies["__Host-bff-flow"] == nil, "the flow cookie is expired")
        let again = try await browser.post("/bff/mfa", ["totpCode": .string(totp)])
        #expect(again.status == 400, "the flow record is single use")
        await harness.stop()
    }

    /// Modgud turns the second step away without using its `mfa_token`:
    /// a 429 (relayed, with its `Retry-After`), a 5xx. The browser's next
    /// try still finds the step waiting, and signs in. A mistyped code is
    /// not put back: Modgud's `invalid_grant` says the same for a spent
    /// token, so the browser starts again.
    @Test func aSecondStepModgudTurnedAwayCanBeTriedAgain() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        let grace = "grace@example.com"
        #expect(try await Self.signInWithCode(harness, browser, email: grace).json?["error"]?.stringValue == "mfa_required")
        let totp = try #require(harness.simulator.totpCode(for: grace))

        harness.simulator.injectFault(path: "/connect/token", count: 1, .status(429))
        #expect(try await browser.post("/bff/mfa", ["totpCode": .string(totp)]).status == 429)
        harness.simulator.injectFault(path: "/connect/token", count: 1, .status(503))
        #expect(try await browser.post("/bff/mfa", ["totpCode": .string(totp)]).status == 502)
        let done = try await browser.post("/bff/mfa", ["totpCode": .string(totp)])
        #expect(done.status == 200)
        #expect(done.json?["user"]?["email"]?.stringValue == grace)
        #expect(try await browser.post("/bff/mfa", ["totpCode": .string(totp)]).status == 400, "then single use")

        // A mistyped code: the step is gone, the browser starts again.
        let other = harness.browser()
        #expect(try await Self.signInWithCode(harness, other, email: grace).json?["error"]?.stringValue == "mfa_required")
        let fresh = try #require(harness.simulator.totpCode(for: grace))
        let mistyped = String(fresh.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
        #expect(try await other.post("/bff/mfa", ["totpCode": .string(mistyped)]).json?["error"]?.stringValue == "invalid_grant")
        let gone = try await other.post("/bff/mfa", ["totpCode": .string(fresh)])
        #expect(gone.json?["error"]?.stringValue == "invalid_request", "no step waiting")
        await harness.stop()
    }

    @Test func olderServerSecondFactorPromptAsksForTheFirstFactorAgain() async throws {
        let harness = try await GatewayHarness.start(simulator: { $0.responses.olderServerMfa = true })
        let browser = harness.browser()
        let prompted = try await Self.signInWithCode(harness, browser, email: "grace@example.com")
        #expect(prompted.status == 400)
        #expect(prompted.json?["error"]?.stringValue == "mfa_required")
        #expect(prompted.json?["resendFirstFactor"]?.boolValue == true)
        let code2 = try await { () async throws -> String in
            _ = try await browser.post("/bff/otp/request", ["email": "grace@example.com"])
            return try #require(harness.simulator.mail(to: "grace@example.com").first?.code)
        }()
        let totp = try #require(harness.simulator.totpCode(for: "grace@example.com"))
        let done = try await browser.post("/bff/otp/redeem", ["email": "grace@example.com", "code": .string(code2), "totpCode": .string(totp)])
        #expect(done.status == 200)
        await harness.stop()
    }

    @Test func passkeySignInWithASoftwareAuthenticator() async throws {
        let harness = try await GatewayHarness.start()
        // Enrol a passkey for ada directly at Modgud (the enrolment endpoints
        // of the gateway come with session management).
        let authenticator = PasskeyEnrolment()
        try await authenticator.enrol(harness: harness, email: Self.email, origin: "http://localhost:8080")

        let browser = harness.browser()
        let begun = try await browser.post("/bff/passkey/begin")
        #expect(begun.status == 200)
        let options = try #require(begun.json?["options"])
        #expect(begun.json?["ceremonyId"] == nil && !begun.bodyText.contains("ceremonyId"))
        let assertion = try await authenticator.assert(options: options, origin: "http://localhost:8080")
        let redeemed = try await browser.post("/bff/passkey/redeem", ["assertion": assertion])
        #expect(redeemed.status == 200)
        #expect(redeemed.json?["user"]?["email"]?.stringValue == Self.email)

        // The ceremony is single use and bound to this browser's flow cookie.
        let replay = try await browser.post("/bff/passkey/redeem", ["assertion": assertion])
        #expect(replay.status == 400)
        await harness.stop()
    }
}

@Suite("Readiness with real dependencies", .serialized)
struct ReadinessTests {
    @Test func readyWhenRedisAndModgudAnswerNotWhenRedisStops() async throws {
        let harness = try await GatewayHarness.start()
        let client = try RawClient(port: harness.adminPort)
        await client.send("GET /readyz HTTP/1.1\r\nHost: a\r\n\r\n")
        let ready = await client.readResponses(1).first
        #expect(ready?.status == 200)
        #expect(ready?.bodyText == #"{"status":"ready","checks":{"redis":"ok","modgud":"ok"}}"#)
        await harness.redis.stop()
        await client.send("GET /readyz HTTP/1.1\r\nHost: a\r\n\r\n")
        let down = await client.readResponses(1).first
        #expect(down?.status == 503)
        #expect(down?.bodyText.contains(#""redis":"unreachable""#) == true)
        await harness.stop()
    }
}

@Suite("App info and capabilities", .serialized)
struct AppInfoTests {
    @Test func appInfoIsRelayedAndCachedBriefly() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        let first = try await browser.get("/bff/app-info")
        #expect(first.status == 200)
        #expect(first.json?["RegistrationFields"] != nil, "Modgud's PascalCase answer as is")
        for _ in 0..<5 { #expect(try await browser.get("/bff/app-info").body == first.body) }
        let calls = harness.modgudRequests().filter { $0["path"]?.stringValue == "/api/app-info" }
        #expect(calls.count == 1, "six page loads, one call to Modgud")
        let capabilities = try await browser.get("/bff/capabilities")
        #expect(capabilities.status == 200)
        #expect(capabilities.json?["signIn"]?["emailCode"]?.boolValue == true)
        #expect(capabilities.json?["signIn"]?["passkey"]?.boolValue == true)
        await harness.stop()
    }
}
