import CCurl
import System

// The two callbacks that let libcurl's multi handle run on our event loop.
// Global functions: a @convention(c) callback cannot capture. `context` is
// the CurlMulti (unretained; see its init). libcurl calls them only from
// inside calls made on the loop thread.

/// CURLMOPT_SOCKETFUNCTION: start, change or stop watching a socket.
func curlSocketCallback(_ easy: UnsafeMutableRawPointer?, _ fd: curl_socket_t, _ what: Int32,
                        _ context: UnsafeMutableRawPointer?, _ socketContext: UnsafeMutableRawPointer?) -> Int32 {
    let multi = Unmanaged<CurlMulti>.fromOpaque(context!).takeUnretainedValue()
    return multi.watch(fd, what: what, socket: socketContext)
}

/// CURLMOPT_TIMERFUNCTION: when libcurl next wants to be called (-1: never).
func curlTimerCallback(_ multiHandle: UnsafeMutableRawPointer?, _ milliseconds: Int,
                       _ context: UnsafeMutableRawPointer?) -> Int32 {
    let multi = Unmanaged<CurlMulti>.fromOpaque(context!).takeUnretainedValue()
    multi.setTimeout(milliseconds: milliseconds)
    return 0
}

extension CurlMulti {
    /// Follows libcurl's socket instructions. The socket's handler object
    /// is created on first sight, kept in `sockets`, and attached to the
    /// descriptor with curl_multi_assign (unretained) so later calls find
    /// it; CURL_POLL_REMOVE (which libcurl sends before closing) drops it.
    func watch(_ fd: Int32, what: Int32, socket context: UnsafeMutableRawPointer?) -> Int32 {
        let existing = context.map { Unmanaged<CurlSocket>.fromOpaque($0).takeUnretainedValue() }
        if what == CURL_POLL_REMOVE {
            if let existing {
                existing.deregister()
                sockets[ObjectIdentifier(existing)] = nil
            }
            return 0
        }
        var events: EpollEvents = []
        if what == CURL_POLL_IN || what == CURL_POLL_INOUT { events.insert(.readable) }
        if what == CURL_POLL_OUT || what == CURL_POLL_INOUT { events.insert(.writable) }
        if let existing {
            existing.update(events)
            return 0
        }
        guard !closed else { return 0 }
        let socket = CurlSocket(fd: fd, multi: self)
        do {
            try socket.register(events)
        } catch {
            return -1
        }
        sockets[ObjectIdentifier(socket)] = socket
        _ = curl_multi_assign(handle, fd, Unmanaged.passUnretained(socket).toOpaque())
        return 0
    }

    /// Keeps one loop timer for libcurl's timeout. A zero timeout runs on
    /// the next pass of the loop without touching the timer heap; a later
    /// deadline than the armed one just lets the armed timer fire early and
    /// re-arm, so a busy client does not fill the heap with cancelled timers.
    func setTimeout(milliseconds: Int) {
        guard !closed else { return }
        if milliseconds < 0 {
            timeoutDeadline = nil
            return
        }
        if milliseconds == 0 {
            timeoutDeadline = nil
            runSoon()
            return
        }
        let deadline = MonotonicClock.now() &+ UInt64(milliseconds) &* 1_000_000
        timeoutDeadline = deadline
        if let armed = armedDeadline, armed <= deadline { return }
        arm(deadline)
    }

    private func runSoon() {
        guard !runSoonQueued else { return }
        runSoonQueued = true
        LoopBound(self, loop: loop).later { multi in
            multi.runSoonQueued = false
            multi.socketAction(CURL_SOCKET_TIMEOUT, 0)
        }
    }

    private func arm(_ deadline: UInt64) {
        armedGeneration += 1
        let generation = armedGeneration
        armedDeadline = deadline
        let now = MonotonicClock.now()
        // Strong: a weak capture would put every retain of the multi on the
        // slow path; the multi outlives a pending timer by its deadline at most.
        loop.schedule(after: .nanoseconds(Int64(deadline > now ? deadline - now : 0))) {
            self.timerFired(generation)
        }
    }

    private func timerFired(_ generation: UInt64) {
        guard generation == armedGeneration, !closed else { return }
        armedDeadline = nil
        guard let deadline = timeoutDeadline else { return }
        if deadline <= MonotonicClock.now() {
            timeoutDeadline = nil
            socketAction(CURL_SOCKET_TIMEOUT, 0)
        } else {
            arm(deadline)
        }
    }
}
