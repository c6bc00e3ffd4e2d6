extension HTTPConnection {
    /// Called by the loop's sweep: ends a connection whose head, body,
    /// keep-alive idle time, write or lingering close ran out of time.
    func checkDeadlines(now: UInt64) {
        guard !closed else { return }
        if lingerDeadline != 0, now >= lingerDeadline { return expire() }
        if writeDeadline != 0, now >= writeDeadline { return expire() }
        if idleDeadline != 0, now >= idleDeadline {
            close() // an idle keep-alive connection: no answer owed
            return
        }
        if headDeadline != 0, now >= headDeadline {
            headDeadline = 0
            owner.stats.timeouts.add(1, ordering: .relaxed)
            if inputStart < input.count { answerAndClose(.requestTimeout) } else { close() }
            return
        }
        if let bodyStream, bodyStream.readerWaiting,
           now &- lastBodyActivity >= owner.spans.body {
            return cutBody()
        }
        if inFlight, !bodyComplete, !lingering, bodyDeadline.hasExpired(now: now) {
            // Behind its minimum rate, however short each gap.
            owner.stats.slowBodies.add(1, ordering: .relaxed)
            return cutBody()
        }
    }

    /// Starts the body's minimum-rate clock when the client is to send:
    /// not yet for one waiting for `100 Continue` (`clientWaits`), which
    /// starts it when the reader first asks.
    func armBodyDeadline(clientWaits: Bool) {
        guard owner.spans.bodyMinRate > 0, !clientWaits, inFlight, !bodyComplete else { return }
        bodyDeadline.arm(now: loop.now)
    }

    /// The body did not arrive in time: its reader fails with `.timedOut`,
    /// and the client gets 408 unless a response has begun (then the
    /// connection just closes).
    private func cutBody() {
        owner.stats.timeouts.add(1, ordering: .relaxed)
        bodyStream?.fail(.timedOut)
        bodyStream = nil
        bodyComplete = true
        bodyDeadline.stop()
        if responseStarted { close() } else { answerAndClose(.requestTimeout) }
    }

    private func expire() {
        owner.stats.timeouts.add(1, ordering: .relaxed)
        close()
    }
}
