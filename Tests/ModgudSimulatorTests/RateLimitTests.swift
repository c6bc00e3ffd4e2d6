import Core
import HTTP
import TestSupport
@testable import ModgudSimulator
import Testing

@Suite("Rate limits: dimensions, the 429 contract, counting")
struct RateLimitTests {
    static let otpRequest = "/api/account/native/otp/request"

    /// native-otp with only `dimension` limited to `limit` per hour.
    static func only(_ dimension: RateLimitDimension, limit: Int, burst: Int? = nil) -> (inout SimulatorConfig) -> Void {
        { config in
            config.rateLimits.policies[RateLimitPolicyName.nativeOtp] =
                RateLimitPolicy([dimension: RateLimitRule(limit: limit, windowSeconds: 3600, burst: burst)])
        }
    }

    func ask(_ sim: SimHarness, _ email: String, from address: String) async throws -> RawResponseSummary {
        let response = try await sim.postJSON(Self.otpRequest, ["Email": .string(email)], headers: SimHarness.gateway(address))
        return RawResponseSummary(status: response.status, retryAfter: response.header("Retry-After"), body: response.bodyText,
                                  contentType: response.header("Content-Type"), headers: response.headers)
    }

    @Test func sourceIsPerForwardedAddress() async throws {
        try await withSimulator(Self.only(.source, limit: 1200, burst: 2)) { sim async throws in
            // Exact refills, however slow the machine: on a loaded CI machine
            // the first calls took over 2 s and the bucket refilled under the test.
            sim.simulator.freezeClock()
            #expect(try await ask(sim, "a@example.com", from: "198.51.100.1").status == 200)
            #expect(try await ask(sim, "b@example.com", from: "198.51.100.1").status == 200)
            let third = try await ask(sim, "c@example.com", from: "198.51.100.1")
            #expect(third.status == 429)
            // One token per 3 s.
            let retry = try #require(third.retryAfter)
            #expect(retry == "3")
            #expect(third.body == #"{"error":"rate_limited","policy":"native-otp","dimension":"source","retryAfterSeconds":\#(retry)}"#)
            #expect(third.contentType == "application/json")
            // Another browser is not affected; nor is the same one as an IPv4-mapped literal… which is the same browser.
            #expect(try await ask(sim, "c@example.com", from: "198.51.100.2").status == 200)
            #expect(try await ask(sim, "c@example.com", from: "::ffff:198.51.100.1").status == 429)
            // IPv6 shares a bucket per /64.
            #expect(try await ask(sim, "d@example.com", from: "2001:db8:0:1::1").status == 200)
            #expect(try await ask(sim, "d@example.com", from: "2001:db8:0:1::2").status == 200)
            #expect(try await ask(sim, "d@example.com", from: "2001:db8:0:1:ffff::3").status == 429)
            #expect(try await ask(sim, "d@example.com", from: "2001:db8:0:2::1").status == 200)
            let limits = try #require(try await sim.stats()["rateLimits"])
            #expect(limits["rejections"]?["native-otp"]?["source"] == 3)
            #expect(limits["distinctKeys"]?["source"] == 4)
            #expect(limits["rejectedKeys"]?["source"] == 2)
            #expect(limits["requestsPerDimension"]?["source"] == 9)
        }
    }

    @Test func targetIsPerMailboxWhateverTheSource() async throws {
        try await withSimulator(Self.only(.target, limit: 2)) { sim async throws in
            #expect(try await ask(sim, "ada@example.com", from: "198.51.100.1").status == 200)
            #expect(try await ask(sim, "ADA@example.com ", from: "198.51.100.2").status == 200)
            let third = try await ask(sim, "ada@example.com", from: "198.51.100.3")
            #expect(third.status == 429)
            #expect(third.body.contains(#""dimension":"target""#))
            let retry = try #require(third.retryAfter.flatMap(Int.init))
            #expect(retry > 3500 && retry <= 3600)
            #expect(third.body.contains(#""retryAfterSeconds":\#(retry)"#))
            #expect(try await ask(sim, "grace@example.com", from: "198.51.100.3").status == 200)
        }
    }

    @Test func clientAndAppBindTheGatewayAsAWhole() async throws {
        try await withSimulator(Self.only(.client, limit: 2)) { sim async throws in
            #expect(try await ask(sim, "a@example.com", from: "198.51.100.1").status == 200)
            #expect(try await ask(sim, "b@example.com", from: "198.51.100.2").status == 200)
            let third = try await ask(sim, "c@example.com", from: "198.51.100.3")
            #expect(third.status == 429)
            #expect(third.body.contains(#""dimension":"client""#))
            // An anonymous caller has no client dimension.
            let anonymous = try await sim.postJSON(Self.otpRequest, ["Email": "d@example.com"])
            #expect(anonymous.status == 200)
        }
        try await withSimulator(Self.only(.app, limit: 2)) { sim async throws in
            _ = try await ask(sim, "a@example.com", from: "198.51.100.1")
            _ = try await sim.postJSON(Self.otpRequest, ["Email": "b@example.com"])
            let third = try await ask(sim, "c@example.com", from: "198.51.100.3")
            #expect(third.status == 429)
            #expect(third.body.contains(#""dimension":"app""#))
        }
    }

    @Test func dimensionsAreEvaluatedInOrderAndTheFirstRejectionWins() async throws {
        try await withSimulator({ config in
            config.rateLimits.policies[RateLimitPolicyName.nativeOtp] = RateLimitPolicy([
                .source: RateLimitRule(limit: 1, windowSeconds: 60, burst: 1),
                .target: RateLimitRule(limit: 1, windowSeconds: 60),
            ])
        }) { sim async throws in
            #expect(try await ask(sim, "ada@example.com", from: "198.51.100.1").status == 200)
            // Both source and target are exhausted now: source is reported.
            #expect(try await ask(sim, "ada@example.com", from: "198.51.100.1").body.contains(#""dimension":"source""#))
            #expect(try await ask(sim, "ada@example.com", from: "198.51.100.2").body.contains(#""dimension":"target""#))
        }
    }

    @Test func windowsAndBucketsRefillWithTime() async throws {
        try await withSimulator({ config in
            config.rateLimits.policies[RateLimitPolicyName.nativeOtp] = RateLimitPolicy([
                .source: RateLimitRule(limit: 6, windowSeconds: 60, burst: 1),
                .target: RateLimitRule(limit: 1, windowSeconds: 600),
            ])
        }) { sim async throws in
            sim.simulator.freezeClock()   // exact waits, however slow the machine
            #expect(try await ask(sim, "a@example.com", from: "198.51.100.1").status == 200)
            #expect(try await ask(sim, "b@example.com", from: "198.51.100.1").retryAfter == "10")
            try await sim.advanceClock(10)
            #expect(try await ask(sim, "b@example.com", from: "198.51.100.1").status == 200)
            #expect(try await ask(sim, "a@example.com", from: "198.51.100.2").status == 429)
            try await sim.advanceClock(600)
            #expect(try await ask(sim, "a@example.com", from: "198.51.100.2").status == 200)
        }
    }

    @Test func pascalCaseBodiesAndRateLimitHeadersOnRequest() async throws {
        try await withSimulator(Self.only(.target, limit: 1)) { sim async throws in
            try await sim.config(["pascalCase429": true, "rateLimitHeaders": true])
            _ = try await ask(sim, "ada@example.com", from: "198.51.100.1")
            let refused = try await ask(sim, "ada@example.com", from: "198.51.100.1")
            #expect(refused.status == 429)
            let retry = try #require(refused.retryAfter)
            #expect(refused.body == #"{"Error":"rate_limited","Policy":"native-otp","Dimension":"target","RetryAfterSeconds":\#(retry)}"#)
            #expect(refused.headers.first { $0.0 == "RateLimit-Limit" }?.1 == "1")
            #expect(refused.headers.first { $0.0 == "RateLimit-Remaining" }?.1 == "0")
            #expect(refused.headers.first { $0.0 == "RateLimit-Reset" }?.1 == retry)
        }
    }

    @Test func tokenEndpointLimitsPerClientAndSource() async throws {
        try await withSimulator({ config in
            config.rateLimits.policies[RateLimitPolicyName.oauthToken] = RateLimitPolicy([
                .source: RateLimitRule(limit: 1, windowSeconds: 600, burst: 2),
                .client: RateLimitRule(limit: 1, windowSeconds: 600, burst: 3),
            ])
        }) { sim async throws in
            func refresh(_ address: String) async throws -> Int {
                try await sim.postForm("/connect/token", [("grant_type", "refresh_token"), ("refresh_token", "unknown")],
                                       headers: SimHarness.gateway(address)).status
            }
            #expect(try await refresh("198.51.100.1") == 400)
            #expect(try await refresh("198.51.100.1") == 400)
            #expect(try await refresh("198.51.100.1") == 429)
            #expect(try await refresh("198.51.100.2") == 400)
            #expect(try await refresh("198.51.100.3") == 429, "the client bucket (3) is empty now")
            let limits = try #require(try await sim.stats()["rateLimits"]?["rejections"]?["oauth-token"])
            #expect(limits["source"] == 1)
            #expect(limits["client"] == 1)
        }
    }

    @Test func emailOtpLimitsCodeGuessingPerMailbox() async throws {
        try await withSimulator({ config in
            config.rateLimits.policies[RateLimitPolicyName.emailOtp] =
                RateLimitPolicy([.target: RateLimitRule(limit: 2, windowSeconds: 60)])
        }) { sim async throws in
            for expected in [400, 400, 429] {
                let response = try await sim.postForm("/connect/token", [
                    ("grant_type", GrantType.otp), ("username", "ada@example.com"), ("otp_code", "000000"),
                ], headers: SimHarness.gateway())
                #expect(response.status == expected)
            }
        }
    }

    @Test func logOnlyCountsButNeverRefuses() async throws {
        try await withSimulator(Self.only(.target, limit: 1)) { sim async throws in
            try await sim.config(["rateLimits": ["mode": "log-only"]])
            for _ in 0..<3 { #expect(try await ask(sim, "ada@example.com", from: "198.51.100.1").status == 200) }
            #expect(try await sim.stats()["rateLimits"]?["rejections"]?["native-otp"]?["target"] == 2)
        }
    }

    @Test func theShippedDefaultsAreModgudsTable() {
        let policies = RateLimitSettings.defaultPolicies
        #expect(policies["native-otp"]?.rules[.source] == RateLimitRule(limit: 1200, windowSeconds: 3600, burst: 300))
        #expect(policies["native-otp"]?.rules[.target] == RateLimitRule(limit: 5, windowSeconds: 3600))
        #expect(policies["native-otp"]?.rules[.client] == RateLimitRule(limit: 600, windowSeconds: 3600))
        #expect(policies["native-otp"]?.rules[.app] == RateLimitRule(limit: 3000, windowSeconds: 3600))
        #expect(policies["oauth-token"]?.rules[.source] == RateLimitRule(limit: 600, windowSeconds: 60, burst: 200))
        #expect(policies["oauth-token"]?.rules[.client] == RateLimitRule(limit: 60, windowSeconds: 60, burst: 60))
        #expect(policies["passkey-begin"]?.rules[.source] == RateLimitRule(limit: 1200, windowSeconds: 300, burst: 300))
        #expect(policies["passkey-begin"]?.rules[.target] == RateLimitRule(limit: 60, windowSeconds: 300))
        #expect(policies["passkey-begin"]?.rules[.client] == RateLimitRule(limit: 1200, windowSeconds: 300))
    }
}

/// The parts of a response the rate-limit tests compare.
struct RawResponseSummary {
    var status: Int
    var retryAfter: String?
    var body: String
    var contentType: String?
    var headers: [(String, String)]
}
