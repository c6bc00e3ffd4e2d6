import Core
import Testing
import TestSupport
@testable import Gateway

/// A gateway that has served nothing reads what that means: every counter
/// at 0 except what really happened since start (Modgud's discovery, the
/// scrapes themselves), every gauge at its true state.
@Suite("Metrics after a clean start", .serialized)
struct FreshMetricsTests {
    @Test("after a clean start every sample is 0 but the discovery, the scrapes and the true state")
    func freshGateway() async throws {
        let harness = try await GatewayHarness.start()
        let deadline = ContinuousClock.now + .seconds(30)
        var text = ""
        var scrapes = 0
        repeat {
            text = try await LoopbackCall.send(port: harness.adminPort, "GET", "/metrics").bodyText
            scrapes += 1
            // At least one scrape answered before this one, so its series exist.
            if scrapes >= 2, metricValue(text, "bff_session_cache_current") == 1,
               metricValue(text, "bff_modgud_calls_total", #"endpoint="discovery""#) >= 1 { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        // Each scrape is a new connection; a scrape is counted once it has
        // been answered, so the one rendering this text is in flight.
        let expected: [String: Double] = [
            #"bff_modgud_calls_total{endpoint="discovery",outcome="ok"}"#: 1,
            #"bff_http_accepted_connections_total{listener="admin"}"#: Double(scrapes),
            #"bff_http_accepted_connections_total{listener="public"}"#: 0,
            #"bff_http_open_connections{listener="admin"}"#: 1,
            #"bff_http_open_connections{listener="public"}"#: 0,
            "bff_http_requests_in_flight": 1,
            #"bff_http_requests_total{route="/metrics",method="GET",status="200"}"#: Double(scrapes - 1),
            #"bff_http_request_duration_seconds_count{route="/metrics"}"#: Double(scrapes - 1),
            "bff_redis_ready": 1,
            "bff_session_cache_current": 1,
            "bff_session_cache_flushes_total": 0,
        ]
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        for (series, value) in expected {
            #expect(samples[series] == value, "\(series)\n\(text)")
        }
        for (series, value) in samples where expected[series] == nil && value != 0 {
            // A histogram's buckets and sum follow its count.
            let ofScrapes = series.contains(#"route="/metrics""#) && series.hasPrefix("bff_http_request_duration_seconds_")
            #expect(ofScrapes, "\(series) reads \(value) after a clean start")
        }
        await harness.stop()
    }
}
