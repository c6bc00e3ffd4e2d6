import Testing
import Configuration
import Core
import HTTP
import ModgudSimulator
import TestSupport
@testable import Gateway

/// Every error row of the contract, through the gateway, with assertions on
/// what Modgud received (one call per browser call; none for bad input).
@Suite("Sign-in errors and pass-through", .serialized)
struct SignInErrorTests {
    static func calls(_ harness: GatewayHarness, _ path: String) -> Int {
        harness.modgudRequests().filter { $0["path"]?.stringValue == path }.count
    }

    @Test func rateLimitedAnswersPassThroughByteForByteWithOneCallEach() async throws {
        let harness = try await GatewayHarness.start(simulator: { $0.responses.rateLimitHeaders = true })
        let browser = harness.browser()
        var relayed: [RawResponse] = []
        for _ in 0..<8 {
            relayed.append(try await browser.post("/bff/otp/request", ["email": "ada@example.com"]))
        }
        #expect(Self.calls(harness, "/api/account/native/otp/request") == 8, "exactly one upstream call per browser call")
        let limited = relayed.filter { $0.status == 429 }
        #expect(limited.count == 3, "the target dimension allows 5 per hour")
        let answers = harness.answers.all.filter { $0.status.code == 429 }
        #expect(answers.count == limited.count)
        for (gateway, modgud) in zip(limited, answers) {
            guard case .bytes(let body) = modgud.body else { Issue.record("no body"); continue }
            #expect(gateway.body == body, "the body is relayed byte for byte")
            #expect(gateway.header("Retry-After") == modgud.headers["Retry-After"])
            for field in modgud.headers where field.name.lowercased().hasPrefix("ratelimit") {
                #expect(gateway.header(field.name) == field.value)
            }
        }
        #expect(limited.first?.json?["dimension"]?.stringValue == "target")
        #expect(try #require(limited.first?.header("Retry-After")).allSatisfy(\.isNumber))

        let metrics = try RawClient(port: harness.adminPort)
        await metrics.send("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n")
        let text = await metrics.readResponses(1).first?.bodyText ?? ""
        #expect(text.contains(#"bff_modgud_rate_limited_total{endpoint="otp_request",policy="native-otp",dimension="target"} 3"#))
        #expect(harness.logs.lines.filter { $0.contains(#""event":"modgud.rate_limited""#) }.count == 3)
        await harness.stop()
    }

    @Test func pascalCase429sAreCountedToo() async throws {
        let harness = try await GatewayHarness.start(simulator: { $0.responses.pascalCase429 = true })
        let browser = harness.browser()
        var last: RawResponse?
        for _ in 0..<6 { last = try await browser.post("/bff/otp/request", ["email": "ada@example.com"]) }
        #expect(last?.status == 429)
        #expect(last?.bodyText.contains("\"Dimension\"") == true, "relayed as Modgud wrote it")
        let line = harness.logs.lines.first { $0.contains(#""event":"modgud.rate_limited""#) }
        #expect(line?.contains(#""policy":"native-otp""#) == true && line?.contains(#""dimension":"target""#) == true)
        await harness.stop()
    }

    @Test(arguments: [
        (JSON.object(["email": "not-an-address"]), "/bff/otp/request"),
        (JSON.object(["email": .int(5)]), "/bff/otp/request"),
        (JSON.object([:]), "/bff/otp/request"),
        (JSON.object(["email": "ada@example.com", "firstName": .string(String(repeating: "x", count: 201))]), "/bff/otp/request"),
        (JSON.object(["email": "ada@example.com", "code": "12ab56"]), "/bff/otp/redeem"),
        (JSON.object(["email": "ada@example.com"]), "/bff/otp/redeem"),
        (JSON.object(["userId": "u"]), "/bff/magic/redeem"),
        (JSON.object(["assertion": "not an object"]), "/bff/passkey/redeem"),
        (JSON.object(["totpCode": "12"]), "/bff/mfa"),
    ])
    func badInputIs400AndNeverReachesModgud(body: JSON, path: String) async throws {
        let harness = try await GatewayHarness.start()
        let response = try await harness.browser().post(path, body)
        #expect(response.status == 400)
        #expect(response.json?["error"]?.stringValue == "invalid_request")
        #expect(response.json?["error_description"]?.stringValue?.isEmpty == false)
        let upstream = harness.modgudRequests().filter { $0["path"]?.stringValue != "/.well-known/openid-configuration" }
        #expect(upstream.isEmpty)
        await harness.stop()
    }

    @Test func wrongContentTypeIs415() async throws {
        let harness = try await GatewayHarness.start()
        let response = try await harness.browser().send("POST", "/bff/otp/request", body: nil,
                                                        headers: [("Content-Type", "text/plain"), ("Content-Length", "2")])
        #expect(response.status == 415 || response.status == 400)
        await harness.stop()
    }

    @Test func modgudRefusalsAreRelayed() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        _ = try await browser.post("/bff/otp/request", ["email": "ada@example.com"])
        let wrong = try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": "000000"])
        #expect(wrong.status == 400)
        #expect(wrong.json?["error"]?.stringValue == "invalid_grant")
        #expect(browser.cookies["__Host-bff"] == nil)

        harness.simulator.updateConfig { $0.realm.registrationFields.firstname = .required }
        let nameless = try await browser.post("/bff/otp/request", ["email": "new@example.com"])
        #expect(nameless.status == 400)
        #expect(nameless.json?["error"]?.stringValue == "Firstname is required.")

        harness.simulator.updateConfig { $0.realm.nativeGrants = false }
        let disabled = try await browser.post("/bff/otp/request", ["email": "ada@example.com", "firstName": "Ada"])
        #expect(disabled.status == 400)
        #expect(disabled.json?["title"]?.stringValue == "NativeGrants.Disabled")
        let unsupported = try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": "123456"])
        #expect(unsupported.status == 400)
        #expect(unsupported.json?["error"]?.stringValue == "unsupported_grant_type")
        await harness.stop()
    }

    @Test func serverErrorsAre502AndTimeoutsAre504() async throws {
        let harness = try await GatewayHarness.start(gateway: { $0.modgudTimeout = .milliseconds(400) })
        let browser = harness.browser()
        harness.simulator.injectFault(path: "/api/account/native/otp/request", count: 1, .status(500))
        let failed = try await browser.post("/bff/otp/request", ["email": "ada@example.com"])
        #expect(failed.status == 502)
        #expect(failed.json?["error"]?.stringValue == "upstream_error")

        harness.simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 1500))
        let slow = try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": "123456"])
        #expect(slow.status == 504)
        #expect(slow.json?["error"]?.stringValue == "upstream_timeout")
        #expect(Self.calls(harness, "/connect/token") <= 1, "never retried")
        await harness.stop()
    }

    /// Modgud refuses the gateway's own client credentials (a rotated
    /// secret): the browser gets a 502, never Modgud's 401 with its Basic
    /// challenge (which a browser answers with a password prompt) nor a
    /// 400 that looks like its own mistake.
    @Test func refusedClientCredentialsAre502WithoutAChallenge() async throws {
        let harness = try await GatewayHarness.start(gateway: { $0.client = ClientCredentials(id: "bff", secret: Secret("rotated")) })
        let browser = harness.browser()
        let requested = try await browser.post("/bff/otp/request", ["email": "ada@example.com"])
        let redeemed = try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": "123456"])
        for refused in [requested, redeemed] {
            #expect(refused.status == 502)
            #expect(refused.json?["error"]?.stringValue == "upstream_error")
            #expect(refused.header("WWW-Authenticate") == nil)
        }
        // The code request's refusal is the forwarder's problem, the token
        // endpoint's a 401 `invalid_client`.
        #expect(harness.answers.all.map(\.status.code).filter { $0 >= 400 } == [400, 401])
        let logged = harness.logs.lines.filter { $0.contains(#""event":"modgud.client_refused""#) }
        #expect(logged.count == 2)
        #expect(logged.first?.contains("Auth.ForwarderNotTrusted") == true)
        await harness.stop()
    }

    @Test func unreachableModgudIs502() async throws {
        let harness = try await GatewayHarness.start(gateway: { $0.modgudURL = HTTPURL("http://127.0.0.1:1") })
        let response = try await harness.browser().post("/bff/otp/request", ["email": "ada@example.com"])
        #expect(response.status == 502)
        #expect(response.json?["error"]?.stringValue == "upstream_error")
        await harness.stop()
    }

    /// Modgud spent the code but the gateway cannot finish: a 200 that is
    /// not a token answer, or userinfo failing after the tokens came. No
    /// session, a clear 502 (a 429 from userinfo passes through), and the
    /// tokens are revoked rather than left live.
    @Test func aSignInThatCannotFinishRevokesWhatModgudIssued() async throws {
        let harness = try await GatewayHarness.start()
        let simulator = harness.simulator
        let email = "ada@example.com"
        func redeem(_ browser: Browser) async throws -> RawResponse {
            _ = try await browser.post("/bff/otp/request", ["email": .string(email)])
            let code = try #require(simulator.mail(to: email).first?.code)
            return try await browser.post("/bff/otp/redeem", ["email": .string(email), "code": .string(code)])
        }

        simulator.injectFault(path: "/connect/token", count: 1, .status(200))
        let browser = harness.browser()
        let notTokens = try await redeem(browser)
        #expect(notTokens.status == 502)
        #expect(notTokens.json?["error"]?.stringValue == "upstream_error")
        #expect(browser.cookies["__Host-bff"] == nil)

        for (fault, status) in [(FaultAction.status(503), 502), (.status(429), 429)] {
            let revokedBefore = Self.calls(harness, "/connect/revoke")
            simulator.injectFault(path: "/connect/userinfo", count: 1, fault)
            let other = harness.browser()
            let failed = try await redeem(other)
            #expect(failed.status == status, "userinfo \(fault)")
            #expect(other.cookies["__Host-bff"] == nil)
            #expect(Self.calls(harness, "/connect/revoke") == revokedBefore + 1, "the issued refresh token is revoked")
            #expect(harness.logs.lines.last { $0.contains("signin.tokens_abandoned") }?.contains(#""revoked":true"#) == true)
        }
        #expect(try await browser.get("/bff/user").status == 401)
        await harness.stop()
    }

    /// Redis out of memory under `noeviction` refuses writes (an `OOM`
    /// error reply) and still serves reads: a sign-in cannot store its
    /// session and gets the store's 503 with Retry-After, as when Redis is
    /// down, while a live session keeps working.
    @Test func aStoreRefusingWritesIs503WithRetryAfter() async throws {
        let harness = try await GatewayHarness.start()
        let signedIn = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, signedIn)
        #expect(try await signedIn.get("/bff/user").status == 200)
        let browser = harness.browser()
        _ = try await browser.post("/bff/otp/request", ["email": "ada@example.com"])
        let code = try #require(harness.simulator.mail(to: "ada@example.com").first?.code, "the newest")
        for setting in [["maxmemory-policy", "noeviction"], ["maxmemory", "1"]] {
            let set = try ChildProcess.spawn(["/usr/bin/redis-cli", "-p", "\(harness.redis.port)", "CONFIG", "SET"] + setting,
                                             output: "/dev/null")
            await withCheckedContinuation { done in ChildProcess.reap(set) { done.resume() } }
        }
        let refused = try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": .string(code)])
        #expect(refused.status == 503)
        #expect(refused.json?["error"]?.stringValue == "store_unavailable")
        #expect(refused.header("Retry-After") != nil)
        #expect(browser.cookies["__Host-bff"] == nil)
        #expect(try await signedIn.get("/bff/user").status == 200, "reads go on")
        await harness.stop()
    }

    @Test func storeDownIs503WithRetryAfterAndRecovers() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        await harness.redis.stop()
        let down = try await browser.get("/bff/user")
        #expect(down.status == 503)
        #expect(down.json?["error"]?.stringValue == "store_unavailable")
        #expect(down.header("Retry-After") != nil)
        _ = try await browser.post("/bff/otp/request", ["email": "ada@example.com"])
        let code = try #require(harness.simulator.mail(to: "ada@example.com").first?.code)
        let redeem = try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": .string(code)])
        #expect(redeem.status == 503)
        #expect(harness.logs.lines.contains { $0.contains("signin.tokens_abandoned") && $0.contains(#""revoked":true"#) })
        try await harness.redis.restart()
        var recovered = 0
        for _ in 0..<100 {
            recovered = try await browser.get("/bff/user").status
            if recovered != 503 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(recovered == 401, "service resumes on its own; the session died with the unpersisted Redis")
        await harness.stop()
    }
}
