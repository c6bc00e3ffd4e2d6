/// Writing the answer, finishing the request, closing, and the deadlines.
extension HTTPConnectionMachine {
    // MARK: The answer

    /// A responder's answer is to be sent: false when it comes too late
    /// (one has begun already, or the connection is done). A body still
    /// coming cannot be skipped safely: the connection then ends after
    /// this response.
    @inline(__always)
    mutating func responseStarts() -> Bool {
        guard stage == .active, answer == .pending || answer == .promised else { return false }
        answer = .started
        if !bodyComplete { keepAlive = false }
        return true
    }

    /// Whether a streamed body is being written.
    var isStreaming: Bool { stage != .closed && answer == .started }

    /// The response is framed by the close (no length, no chunks).
    mutating func closeDelimited() {
        keepAlive = false
    }

    /// All of the response is queued.
    mutating func responseFinished() {
        answer = .finished
    }

    /// The server answers on its own (a refusal, a timeout) and closes.
    mutating func serverAnswers() {
        stage = .active
        stageDeadline = 0
        answer = .finished
        keepAlive = false
    }

    /// Refused at accept over the per-address cap: answered at once,
    /// with no header timeout.
    mutating func refusedAtAccept() {
        refusedUnread = true
        stageDeadline = 0
    }

    // MARK: Writing

    /// Bytes left: the write timeout starts again.
    mutating func wrote(now: UInt64) {
        writeDeadline = now &+ spans.write
    }

    /// The socket is full: the write timeout runs from the first block.
    mutating func writeBlocked(now: UInt64) {
        if writeDeadline == 0 { writeDeadline = now &+ spans.write }
    }

    /// What follows a write that emptied the output.
    enum Drained { case nothing, completeResponse, finish }

    /// Everything queued is written.
    @inline(__always)
    mutating func outputDrained() -> Drained {
        writeDeadline = 0
        if stage == .active { return answer == .finished ? .completeResponse : .nothing }
        return keepAlive ? .nothing : .finish
    }

    /// What follows a response written whole.
    enum Completion {
        /// The connection ends (`finish`).
        case finish
        /// It is kept alive; `resumeReading` when pipelined bytes had
        /// paused reading.
        case next(resumeReading: Bool)
    }

    /// The response in flight is written whole.
    @inline(__always)
    mutating func responseCompleted(draining: Bool, now: UInt64) -> Completion {
        stage = .idle
        answer = .pending
        guard keepAlive, !pauses.contains(.peerClosed), !draining else { return .finish }
        stageDeadline = now &+ spans.idle
        return .next(resumeReading: pauses.remove(.pipeline) != nil)
    }

    /// Idle after a response, with part of a pipelined head received: the
    /// header timeout runs for it, not the idle timeout.
    mutating func partialHeadWaits(now: UInt64) {
        bytesArrived(now: now)
    }

    // MARK: Closing

    /// How the connection ends once its output is written.
    enum Finish {
        /// Output is still queued: asked again once it is written.
        case wait
        case close
        /// Shut writing down and discard input for a while (a client still
        /// sending would otherwise get a reset that destroys the response).
        case linger
    }

    /// The connection is to end after what is queued.
    mutating func finish(outputPending: Bool, inputPending: Bool, now: UInt64) -> Finish {
        keepAlive = false
        if outputPending { return .wait }
        guard stage != .closed else { return .wait }
        if pauses.contains(.peerClosed) || (!refusedUnread && !inputPending && bodyComplete) { return .close }
        stage = .lingering
        stageDeadline = now &+ Self.lingerSpan
        return .linger
    }

    /// Shutdown began: true when the connection closes now (no request in
    /// flight); else it ends after its response.
    mutating func drain() -> Bool {
        keepAlive = false
        return stage == .readingHead || stage == .idle
    }

    /// How to close.
    enum Closing {
        case alreadyClosed
        case close
        /// A response is cut midway: the client must see a reset, never
        /// take a cut body for a whole one.
        case reset
    }

    mutating func close() -> Closing {
        guard stage != .closed else { return .alreadyClosed }
        let cut = answer == .started
        stage = .closed
        return cut ? .reset : .close
    }

    // MARK: Deadlines

    /// What a deadline that ran out asks for.
    enum Expiry: Equatable {
        case none
        /// Count a timeout and close (a stalled write, a lingering close).
        case expire
        /// An idle keep-alive connection: close, no answer owed.
        case closeIdle
        /// The head did not arrive in time: count a timeout, answer 408
        /// when part of it came, else close.
        case headTimeout
        /// The body did not arrive in time: cut it.
        case cutBody
        /// The body fell behind its minimum rate: cut it.
        case slowBody
    }

    /// Checked by the loop's sweep. `readerWaiting`: the body's reader
    /// waits for bytes.
    mutating func expiry(now: UInt64, readerWaiting: Bool) -> Expiry {
        guard stage != .closed else { return .none }
        let stageExpired = stageDeadline != 0 && now >= stageDeadline
        if stage == .lingering, stageExpired { return .expire }
        if writeDeadline != 0, now >= writeDeadline { return .expire }
        if stage == .idle, stageExpired { return .closeIdle }
        if stage == .readingHead, stageExpired {
            stageDeadline = 0
            return .headTimeout
        }
        if readerWaiting, now &- lastBodyActivity >= spans.body { return .cutBody }
        if stage == .active, !bodyComplete, bodyRate.hasExpired(now: now) { return .slowBody }
        return .none
    }
}
