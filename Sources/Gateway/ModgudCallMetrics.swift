import Modgud
import Observability

/// `bff_modgud_calls_total{endpoint,outcome}`: every call the gateway makes
/// to Modgud, counted once as it ends, by the Modgud client's observer.
/// Both labels come from fixed sets (``ModgudCall``, ``ModgudCallOutcome``),
/// so an error ratio per endpoint is
/// `outcome=~"error|unreachable|timeout|bad_response"` over all outcomes.
final class ModgudCallMetrics: Sendable {
    let calls: Counter

    init(metrics: MetricsRegistry) {
        calls = metrics.counter("bff_modgud_calls_total",
                                help: "Calls to Modgud, by endpoint and outcome (ok, refused, rate_limited, error, "
                                    + "unreachable, timeout, bad_response).",
                                labels: ["endpoint", "outcome"])
    }

    /// Counts one call; hand it to `ModgudClient.init` as its observer.
    func record(_ call: ModgudCall, _ outcome: ModgudCallOutcome) {
        calls.increment([call.rawValue, outcome.rawValue])
    }
}
