import System

extension ConnectionCore {
    /// Writes one encoded command; the continuation is resumed exactly once,
    /// with the reply or an error. `.unavailable` at once when not ready.
    func send(_ command: [UInt8], name: [UInt8], continuation: CheckedContinuation<Result<RedisValue, RedisError>, Never>) {
        guard let context = readyContext else {
            continuation.resume(returning: .failure(.unavailable))
            return
        }
        let deadline = MonotonicClock.now() &+ configuration.commandTimeout.nanoseconds
        guard context.issue(command, waiter: .single(command: name, continuation), deadline: deadline) else {
            continuation.resume(returning: .failure(.unavailable))
            return
        }
        armTimeoutTimer(for: deadline)
    }

    /// Writes one encoded command whose reply (or failure) goes to `body` on
    /// the loop thread. False, and `body` never called, when not ready.
    func send(_ command: [UInt8], then body: @escaping (Result<RedisValue, RedisError>) -> Void) -> Bool {
        guard let context = readyContext else { return false }
        let deadline = MonotonicClock.now() &+ configuration.commandTimeout.nanoseconds
        guard context.issue(command, waiter: .callback(body), deadline: deadline) else { return false }
        armTimeoutTimer(for: deadline)
        return true
    }

    /// Writes a batch of encoded commands back to back (one write); the
    /// continuation gets every reply in order, or the first failure.
    func send(batch commands: [[UInt8]], continuation: CheckedContinuation<Result<[RedisValue], RedisError>, Never>) {
        guard let context = readyContext else {
            continuation.resume(returning: .failure(.unavailable))
            return
        }
        let deadline = MonotonicClock.now() &+ configuration.commandTimeout.nanoseconds
        let collector = BatchCollector(count: commands.count, continuation: continuation)
        for (index, command) in commands.enumerated()
        where !context.issue(command, waiter: .batch(collector, index: index), deadline: deadline) {
            collector.deliver(.failure(.unavailable), at: index)
            break
        }
        armTimeoutTimer(for: deadline)
    }

    // MARK: Command timeouts

    /// One timer per connection, set for the oldest pending command's
    /// deadline (moved earlier when a command's deadline is earlier than the
    /// one it waits for, e.g. the connect deadline right after the
    /// handshake). Commands share one timeout, so deadlines only grow along
    /// the queue: when the timer fires, either the oldest command is late
    /// (drop the connection) or it has been answered and the timer is set
    /// again for the new oldest. Steady traffic costs one comparison per
    /// command and one timer per timeout period.
    func armTimeoutTimer(for deadline: UInt64) {
        if let timer = timeoutTimer {
            if timeoutTimerDeadline <= deadline { return }
            loop.cancelTimer(timer)
        }
        let now = MonotonicClock.now()
        timeoutTimerDeadline = deadline
        let delay = Duration.nanoseconds(Int64(clamping: deadline > now ? deadline - now : 0))
        // Strong captures in this file's timers: a weak one would put every
        // retain of the core on the slow path (a side table); a timer keeps
        // the core alive until its deadline at most.
        timeoutTimer = loop.schedule(after: delay) { self.timeoutTimerFired() }
    }

    func cancelTimeoutTimer() {
        if let timer = timeoutTimer { loop.cancelTimer(timer) }
        timeoutTimer = nil
    }

    private func timeoutTimerFired() {
        timeoutTimer = nil
        let context: RedisWire
        switch phase {
        case .connecting(let current), .ready(let current): context = current
        default: return
        }
        guard let oldest = context.oldestDeadline else { return }
        if oldest > MonotonicClock.now() {
            armTimeoutTimer(for: oldest)
        } else {
            dropForTimeout()
        }
    }

    // MARK: Waiting for readiness

    func waitUntilReady(timeout: Duration, continuation: CheckedContinuation<Bool, Never>) {
        if readyContext != nil { return continuation.resume(returning: true) }
        if isClosed { return continuation.resume(returning: false) }
        let id = nextWaiter
        nextWaiter += 1
        readyWaiters[id] = continuation
        loop.schedule(after: timeout) {
            self.readyWaiters.removeValue(forKey: id)?.resume(returning: false)
        }
    }

    func resumeReadyWaiters(_ ready: Bool) {
        let waiters = readyWaiters
        readyWaiters.removeAll()
        for waiter in waiters.values { waiter.resume(returning: ready) }
    }
}
