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
            owner.stats.timeouts.add(1, ordering: .relaxed)
            bodyStream.fail(.timedOut)
            self.bodyStream = nil
            bodyComplete = true
            if responseStarted { close() } else { answerAndClose(.requestTimeout) }
        }
    }

    private func expire() {
        owner.stats.timeouts.add(1, ordering: .relaxed)
        close()
    }
}
