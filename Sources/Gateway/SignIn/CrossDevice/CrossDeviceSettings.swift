import Observability

/// What the cross-device sign-in needs beyond the shared sign-in context:
/// whether it is offered (BFF_CROSS_DEVICE) and its counters.
struct CrossDeviceSettings: Sendable {
    /// BFF_CROSS_DEVICE: `/bff/cross-device/*` are served.
    let enabled: Bool
    let metrics: CrossDeviceMetrics
}

/// The cross-device sign-in's counters: sign-ins by outcome, and the calls
/// to Modgud's token endpoint actually made, by Modgud's answer (however
/// often browsers poll, these follow the interval).
struct CrossDeviceMetrics: Sendable {
    /// `outcome`: started, approved, denied, expired, rate_limited (Modgud's
    /// 429 to a start or a poll), failed (a start that did not start, an
    /// approval that did not become a session).
    let signIns: Counter
    /// `answer`: pending, slow_down, approved, denied, expired, rate_limited, error.
    let polls: Counter

    init(_ metrics: MetricsRegistry) {
        signIns = metrics.counter("bff_cross_device_signins_total",
                                  help: "Cross-device sign-ins (match code) by outcome.", labels: ["outcome"])
        polls = metrics.counter("bff_cross_device_modgud_polls_total",
                                help: "Device-code polls the gateway made at Modgud's token endpoint, by Modgud's answer.",
                                labels: ["answer"])
    }
}
