import Core
import Testing
import TestSupport
@testable import Gateway

/// Deploy/prometheus as operators get it: the rules pass `promtool`'s check
/// and their unit tests, and a real Prometheus started from the shipped
/// prometheus.yml scrapes a real gateway's admin listener and sees what a
/// sign-in, a 429 and a refresh did. Swift rather than a script: the
/// gateway, Redis and the simulator come from the same harness every
/// gateway test uses.
@Suite("Prometheus (Deploy/prometheus)", .serialized)
struct PrometheusTests {
    @Test("promtool accepts the shipped rules and configuration, and the rules' unit tests pass")
    func promtool() async throws {
        let directory = PrometheusServer.deployDirectory
        for arguments in [["check", "rules", directory + "/alerts.yml"], ["test", "rules", directory + "/alerts.test.yml"],
                          ["check", "config", directory + "/prometheus.yml"]] {
            let (status, output) = try await PrometheusServer.promtool(arguments)
            #expect(status == 0, "promtool \(arguments.joined(separator: " ")):\n\(output)")
        }
    }

    @Test("a real Prometheus scrapes the admin listener and reads the sign-in, the 429 and the refresh")
    func scraped() async throws {
        let fixture = try await RefreshFixture.start()
        let harness = fixture.harness
        #expect(try await fixture.get().status == 200, "the access token is past the skew: this request refreshes it")
        harness.simulator.injectFault(path: "/api/account/native/otp/request", count: 1, .status(429))
        #expect(try await harness.browser().post("/bff/otp/request", ["email": "ada@example.com"]).status == 429)

        let prometheus = try await PrometheusServer.start(scraping: "127.0.0.1:\(harness.adminPort)")
        let expected: [(String, Double)] = [
            (#"up{job="modgud-bff"}"#, 1),
            (#"sum(bff_modgud_calls_total{endpoint="otp_request",outcome="ok"})"#, 1),
            (#"sum(bff_modgud_calls_total{endpoint="otp_redeem",outcome="ok"})"#, 1),
            (#"sum(bff_modgud_calls_total{endpoint="userinfo",outcome="ok"})"#, 1),
            (#"sum(bff_modgud_calls_total{endpoint="refresh",outcome="ok"})"#, 1),
            (#"sum(bff_modgud_calls_total{endpoint="otp_request",outcome="rate_limited"})"#, 1),
            (#"sum(bff_modgud_rate_limited_total{endpoint="otp_request"})"#, 1),
            (#"sum(bff_refresh_total{outcome="ok"})"#, 1),
            (#"sum(bff_modgud_calls_total{outcome=~"error|unreachable|timeout|bad_response"}) or vector(0)"#, 0),
            (#"bff_redis_ready{job="modgud-bff"}"#, 1),
            (#"bff_session_cache_current{job="modgud-bff"}"#, 1),
            (#"bff_session_cache_flushes_total{job="modgud-bff"}"#, 0),
        ]
        for (query, value) in expected {
            let seen = try await prometheus.waitFor(query, equals: value)
            let shown = seen.map { "\($0)" } ?? "no sample"
            #expect(seen == value, "\(query): \(shown)\n\(prometheus.log)")
        }
        let rules = try await prometheus.ruleNames()
        #expect(rules.contains("BffModgudErrorRatio") && rules.contains("BffRedisUnavailable"), "\(rules)")
        await prometheus.stop()
        await fixture.stop()
    }
}
