import Observability

/// The counts of sessions ended for a user or by Modgud, and of
/// back-channel logouts by result.
struct SessionEndCounters: Sendable {
    /// `bff_sessions_ended_total{by}`: `everywhere`, `delete`, `backchannel`.
    let ended: Counter
    /// `bff_backchannel_logouts_total{result}`: `accepted`, `replayed`, `refused`.
    let backchannel: Counter

    init(metrics: MetricsRegistry) {
        ended = metrics.counter("bff_sessions_ended_total",
                                help: "Sessions ended by log out everywhere, by DELETE /bff/sessions/{id} and by back-channel logout.",
                                labels: ["by"])
        backchannel = metrics.counter("bff_backchannel_logouts_total",
                                      help: "Back-channel logout calls, by result (accepted, replayed, refused).",
                                      labels: ["result"])
    }
}
