/// A request body's minimum-rate deadline (mod_reqtimeout's `MinRate`):
/// armed when the client is to send (at the head, or at `100 Continue`
/// for a client that waits for one), it runs out `grace` after that plus
/// one second for every `minRate` bytes received, plus any time the
/// server itself paused reading (back-pressure: a reader behind is not
/// the client's doing). A fast body keeps moving it later; a trickle,
/// each piece inside the gaps' timeout, still falls behind it.
/// Times are the loop's monotonic nanoseconds.
struct BodyRateDeadline {
    /// When it was armed; 0 while not armed.
    private var start: UInt64 = 0
    /// Nanoseconds after `start` that it runs out.
    private var credit: UInt64 = 0
    /// When reading was paused; 0 while reading.
    private var pausedAt: UInt64 = 0

    /// A new body, not armed yet: `grace` is all it has.
    mutating func begin(grace: UInt64) {
        self = BodyRateDeadline()
        credit = grace
    }

    /// Starts the clock, once per body.
    mutating func arm(now: UInt64) {
        if start == 0 { start = max(now, 1) }
    }

    /// `count` bytes arrived: one second more for every `minRate` of them.
    mutating func received(_ count: Int, minRate: UInt64) {
        guard minRate > 0 else { return }
        credit &+= UInt64(count) &* 1_000_000_000 / minRate
    }

    /// The server stopped reading the body (the reader is behind).
    mutating func pause(now: UInt64) {
        if pausedAt == 0 { pausedAt = max(now, 1) }
    }

    /// The server reads again: the pause is not the client's time.
    mutating func resume(now: UInt64) {
        guard pausedAt != 0 else { return }
        if start != 0, now > max(pausedAt, start) { credit &+= now - max(pausedAt, start) }
        pausedAt = 0
    }

    /// The body is complete, or cut: nothing more to time.
    mutating func stop() {
        start = 0
    }

    /// Whether the body is behind its minimum rate at `now` (never while
    /// the server is not reading).
    func hasExpired(now: UInt64) -> Bool {
        start != 0 && pausedAt == 0 && now &- start >= credit
    }
}
