import System

extension Transfer {
    /// A stream's idle timeout: the transfer fails with `.timedOut` when no
    /// byte has moved for `idle` while neither side of ours holds it paused
    /// (a slow body source or reader is not the upstream's fault).
    func armWatchdog(idle: Duration) {
        let idle = max(1_000_000, idle.nanoseconds)
        multi.loop.schedule(after: .nanoseconds(Int64(idle))) { [weak self] in
            self?.watchdogFired(idle: idle)
        }
    }

    private func watchdogFired(idle: UInt64) {
        guard sink != nil, multi.transfers[id] === self else { return }
        let now = MonotonicClock.now()
        if pausedReceive || pausedSend { lastProgress = now }
        let quiet = now > lastProgress ? now - lastProgress : 0
        if quiet >= idle {
            multi.end(self, .failure(.timedOut(requestSent: requestWasSent())))
        } else {
            multi.loop.schedule(after: .nanoseconds(Int64(idle - quiet))) { [weak self] in
                self?.watchdogFired(idle: idle)
            }
        }
    }
}
