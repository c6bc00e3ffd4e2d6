import Core
import Modgud
import ModgudSimulator
import Testing
@testable import Gateway

/// `bff_modgud_calls_total` through the whole gateway: every call Modgud
/// received is counted once, under the outcome the gateway saw, whichever
/// path made it (so an error ratio can be computed from it).
@Suite("Modgud call metrics", .serialized)
struct ModgudCallMetricsTests {
    static let email = "ada@example.com"

    static func calls(_ harness: GatewayHarness, _ endpoint: String, _ outcome: String) -> Double {
        metricValue(harness.service.metrics.render(), "bff_modgud_calls_total", #"endpoint="\#(endpoint)",outcome="\#(outcome)""#)
    }

    @Test("a sign-in, Modgud's refusal, 429, 5xx, dropped answer and timeout each count once, as what they were")
    func everyOutcomeCountsOnce() async throws {
        let harness = try await GatewayHarness.start(gateway: { $0.modgudTimeout = .milliseconds(800) })
        let browser = harness.browser()
        #expect(try await browser.post("/bff/otp/request", ["email": .string(Self.email)]).status == 200)
        let code = try #require(harness.simulator.mail(to: Self.email).first?.code)
        #expect(try await browser.post("/bff/otp/redeem", ["email": .string(Self.email), "code": "000000"]).status == 400)
        #expect(try await browser.post("/bff/otp/redeem", ["email": .string(Self.email), "code": .string(code)]).status == 200)

        let request = "/api/account/native/otp/request"
        harness.simulator.injectFault(path: request, count: 1, .status(429))
        #expect(try await browser.post("/bff/otp/request", ["email": .string(Self.email)]).status == 429)
        harness.simulator.injectFault(path: request, count: 1, .status(503))
        #expect(try await browser.post("/bff/otp/request", ["email": .string(Self.email)]).status == 502)
        harness.simulator.injectFault(path: request, count: 1, .drop)
        #expect(try await browser.post("/bff/otp/request", ["email": .string(Self.email)]).status == 502)
        harness.simulator.injectFault(path: request, count: 1, .delay(milliseconds: 1500))
        #expect(try await browser.post("/bff/otp/request", ["email": .string(Self.email)]).status == 504)

        #expect(Self.calls(harness, "otp_request", "ok") == 1)
        #expect(Self.calls(harness, "otp_request", "rate_limited") == 1)
        #expect(Self.calls(harness, "otp_request", "error") == 1)
        #expect(Self.calls(harness, "otp_request", "unreachable") == 1)
        #expect(Self.calls(harness, "otp_request", "timeout") == 1)
        #expect(Self.calls(harness, "otp_redeem", "refused") == 1)
        #expect(Self.calls(harness, "otp_redeem", "ok") == 1)
        #expect(Self.calls(harness, "userinfo", "ok") == 1)
        #expect(Self.calls(harness, "discovery", "ok") >= 1)
        let text = harness.service.metrics.render()
        #expect(metricValue(text, "bff_modgud_rate_limited_total", #"endpoint="otp_request""#) == 1)

        // Nothing counted twice, nothing missed: the counter's total is the
        // number of calls Modgud received (the late one is recorded once
        // the simulator has handled it).
        let counted = metricValue(text, "bff_modgud_calls_total")
        let deadline = ContinuousClock.now + .seconds(3)
        while Double(harness.modgudRequests().count) < counted, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(counted == Double(harness.modgudRequests().count), "\(text)")
        await harness.stop()
    }

    @Test("every endpoint and outcome label is from the fixed, documented sets")
    func labelsAreFixed() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        #expect(try await browser.post("/bff/otp/request", ["email": .string(Self.email)]).status == 200)
        let code = try #require(harness.simulator.mail(to: Self.email).first?.code)
        #expect(try await browser.post("/bff/otp/redeem", ["email": .string(Self.email), "code": .string(code)]).status == 200)
        #expect(try await browser.get("/bff/app-info").status == 200)
        let endpoints = Set(ModgudCall.allCases.map(\.rawValue))
        let outcomes = Set(ModgudCallOutcome.allCases.map(\.rawValue))
        let samples = harness.service.metrics.render().split(separator: "\n").filter { $0.hasPrefix("bff_modgud_calls_total{") }
        #expect(samples.count >= 4, "\(samples)")
        for sample in samples {
            let labels = sample.split(separator: "\"")
            #expect(labels.count >= 4 && endpoints.contains(String(labels[1])) && outcomes.contains(String(labels[3])), "\(sample)")
        }
        await harness.stop()
    }
}
