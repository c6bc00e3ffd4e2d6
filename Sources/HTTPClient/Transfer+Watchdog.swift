import System

extension Transfer {
    /// A stream's idle timeout: the transfer fails with `.timedOut` when no
    /// byte has moved for `idle` while neither side of ours holds it paused
    /// (a slow body source or reader is not the upstream's fault).
    func armWatchdog(idle: Duration) {
        let idle = max(1_000_000, idle.nanoseconds)
        scheduleWatchdog(after: idle, idle: idle)
    }

    /// The timer finds the transfer by id, so it holds no reference to it:
    /// a weak one would give every transfer a side table (an allocation,
    /// and slow reference counting), and a strong one would keep a
    /// finished transfer alive until the timer's deadline.
    private func scheduleWatchdog(after delay: UInt64, idle: UInt64) {
        let (multi, id) = (multi, id)
        multi.loop.schedule(after: .nanoseconds(Int64(delay))) { multi.transfers[id]?.watchdogFired(idle: idle) }
    }

    private func watchdogFired(idle: UInt64) {
        guard sink != nil else { return }
        let now = MonotonicClock.now()
        if pausedReceive || pausedSend { lastProgress = now }
        let quiet = now > lastProgress ? now - lastProgress : 0
        if quiet >= idle {
            multi.end(self, .failure(.timedOut(requestSent: requestWasSent())))
        } else {
            scheduleWatchdog(after: idle - quiet, idle: idle)
        }
    }
}
