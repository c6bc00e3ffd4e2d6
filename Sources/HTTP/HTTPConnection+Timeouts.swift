extension HTTPConnection {
    /// Called by the loop's sweep: ends a connection whose head, body,
    /// keep-alive idle time, write or lingering close ran out of time.
    func checkDeadlines(now: UInt64) {
        switch state.machine.expiry(now: now, readerWaiting: bodyStream?.readerWaiting ?? false) {
        case .none:
            return
        case .expire:
            owner.stats.timeouts.add(1, ordering: .relaxed)
            close()
        case .closeIdle:
            close() // an idle keep-alive connection: no answer owed
        case .headTimeout:
            owner.stats.timeouts.add(1, ordering: .relaxed)
            if inputStart < state.input.count { answerAndClose(.requestTimeout) } else { close() }
        case .cutBody:
            cutBody()
        case .slowBody:
            // Behind its minimum rate, however short each gap.
            owner.stats.slowBodies.add(1, ordering: .relaxed)
            cutBody()
        }
    }

    /// The body did not arrive in time: its reader fails with `.timedOut`,
    /// and the client gets 408 unless a response has begun (then the
    /// connection just closes).
    private func cutBody() {
        owner.stats.timeouts.add(1, ordering: .relaxed)
        bodyStream?.fail(.timedOut)
        bodyStream = nil
        if state.machine.bodyCut() { close() } else { answerAndClose(.requestTimeout) }
    }
}
