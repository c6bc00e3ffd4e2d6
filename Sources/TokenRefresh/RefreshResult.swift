import Modgud
import Observability
import Sessions

/// What one refresh attempt came to.
enum RefreshResult: Sendable {
    /// The session (as stored now) holds a usable token for the audience.
    case fresh(Session)
    /// The session has ended (elsewhere, or before this attempt).
    case ended
    /// This attempt ended the session: it took the record from the store.
    case endedHere(SessionEnding)
    /// Modgud answered 429.
    case rateLimited(ModgudReply)
    /// Modgud unreachable, failing or slow; the session stays.
    case unavailable
    /// The session store did not answer.
    case storeUnavailable
    /// Modgud refused a token for this audience (`invalid_target`, …).
    case refused

    /// What waiters on other instances are told.
    var signal: RefreshSignal? {
        switch self {
        case .fresh: .refreshed
        case .ended, .endedHere: .ended
        case .rateLimited(let reply): .rateLimited(reply)
        case .unavailable: .unavailable
        case .storeUnavailable, .refused: nil
        }
    }
}

/// The refresh metrics.
struct RefreshMetrics: Sendable {
    let outcomes: Counter
    let successorHits: Counter
    let wait: Histogram
    let lockWait: Histogram

    init(_ registry: MetricsRegistry) {
        outcomes = registry.counter("bff_refresh_total", help: "Token refreshes by outcome class.", labels: ["outcome"])
        successorHits = registry.counter(
            "bff_refresh_successor_hits_total",
            help: "Requests that used tokens another request refreshed (local: same instance; store: read from the store).",
            labels: ["source"])
        let buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20]
        wait = registry.histogram("bff_refresh_wait_seconds",
                                  help: "Time a request spent getting a refreshed token: its own call to Modgud, or its wait for another's.",
                                  buckets: buckets)
        lockWait = registry.histogram(
            "bff_refresh_lock_wait_seconds",
            help: "Time a request waited while another request (on this instance or another) refreshed its session's token.",
            buckets: buckets)
    }
}
