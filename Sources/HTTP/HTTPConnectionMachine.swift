/// The life of one server connection as a value: its stage, the progress
/// of the request in flight, why reading is paused, and its deadlines.
/// `HTTPConnection` reports what happened on the socket and to the request
/// (events: the methods here) and performs what the answers say (read,
/// stop reading, write, close, linger); the machine itself touches no
/// socket, so it is tested without one. Stored inline in the connection:
/// a few bytes of enums and flags and four deadlines, no allocation.
/// Times are nanoseconds on the loop's clock; a deadline of 0 is none.
/// Deadlines are checked by the loop's sweep (`expiry(now:...)`), so
/// arming or clearing one is a store, never a timer of its own.
struct HTTPConnectionMachine {
    enum Stage: UInt8 {
        /// Waiting for a request head, or the rest of one: the header
        /// timeout runs (from accept, or from the first byte after idling).
        case readingHead
        /// Kept alive between requests with nothing of the next one
        /// received: the idle timeout runs.
        case idle
        /// A request is in flight: its body (`bodyComplete`) and its
        /// answer (`answer`) progress independently.
        case active
        /// The last response is sent and writing is shut down: input is
        /// discarded until the peer closes or the lingering time ends.
        case lingering
        case closed
    }

    /// The answer to the request in flight.
    enum Answer: UInt8 {
        /// Nobody has answered yet.
        case pending
        /// The immediate responder promised an answer `later`.
        case promised
        /// The head is written; a streamed body may still be coming.
        case started
        /// All of it is queued for writing.
        case finished
    }

    /// `Expect: 100-continue` on the request in flight.
    enum Continue: UInt8 { case notExpected, expected, sent }

    /// Why the connection does not read.
    struct ReadPauses: OptionSet {
        let rawValue: UInt8
        /// The body's reader is behind.
        static let body = ReadPauses(rawValue: 1)
        /// Pipelined requests pile up behind the one in flight.
        static let pipeline = ReadPauses(rawValue: 2)
        /// The peer has finished sending.
        static let peerClosed = ReadPauses(rawValue: 4)
    }

    // The state below is changed only by the event methods (here and in
    // HTTPConnectionMachine+Answer.swift); the connection reads it.

    /// The server's timeouts.
    let spans: TimeoutSpans
    var stage = Stage.readingHead
    var answer = Answer.pending
    /// Whether the connection stays open after the response in flight.
    var keepAlive = true
    var isHeadRequest = false
    var isHTTP10 = false
    /// The request in flight has no more body to read (or none).
    var bodyComplete = true
    var expectation = Continue.notExpected
    var pauses: ReadPauses = []
    /// Refused at accept, unread: closing waits for the peer's bytes to be
    /// discarded, so that a reset cannot destroy the refusal.
    var refusedUnread = false

    /// The stage's own deadline: the header, idle or lingering time.
    var stageDeadline: UInt64 = 0
    var writeDeadline: UInt64 = 0
    /// When the body last moved (a piece arrived, or its reader asked).
    var lastBodyActivity: UInt64 = 0
    /// The body's minimum-rate deadline.
    var bodyRate = BodyRateDeadline()

    /// How long a lingering close discards input before it closes.
    static let lingerSpan: UInt64 = 2_000_000_000

    init(spans: TimeoutSpans) {
        self.spans = spans
    }

    // MARK: Reading

    /// Accepted and registered: the first head is timed from now.
    mutating func started(now: UInt64) {
        stageDeadline = now &+ spans.header
    }

    /// Whether the socket is to be read (and its hang-ups watched).
    var wantsToRead: Bool { stage == .lingering || pauses.isEmpty }

    /// Whether parsing may go on: the next head while kept alive (with
    /// bytes to parse), or the body of the request in flight.
    func mayParse(hasInput: Bool) -> Bool {
        switch stage {
        case .readingHead, .idle: keepAlive && hasInput
        case .active: !bodyComplete
        case .lingering, .closed: false
        }
    }

    /// Bytes arrived: the first of a request after idling starts its
    /// header timeout.
    mutating func bytesArrived(now: UInt64) {
        guard stage == .idle else { return }
        stage = .readingHead
        stageDeadline = now &+ spans.header
    }

    /// The peer finished sending. True: close now (nothing owed, or a body
    /// that cannot complete); false: stop reading and answer what came.
    mutating func peerFinished() -> Bool {
        guard stage == .active, bodyComplete else { return true }
        pauses.insert(.peerClosed)
        keepAlive = false
        return false
    }

    /// Unanswered bytes past the request in flight: over `limit`, reading
    /// pauses until the response is done (true: stop reading).
    @inline(__always)
    mutating func pipelined(pendingBytes: Int, limit: Int) -> Bool {
        guard stage == .active, bodyComplete, pendingBytes > limit else { return false }
        pauses.insert(.pipeline)
        return true
    }

    // MARK: The request

    /// A head was parsed: its request is in flight.
    mutating func headParsed(keepAlive: Bool, isHead: Bool, isHTTP10: Bool, expectsContinue: Bool,
                             draining: Bool, now: UInt64) {
        stage = .active
        stageDeadline = 0
        answer = .pending
        self.keepAlive = keepAlive && !draining
        isHeadRequest = isHead
        self.isHTTP10 = isHTTP10
        expectation = expectsContinue ? .expected : .notExpected
        lastBodyActivity = now
        bodyRate.begin(grace: spans.bodyGrace)
        bodyComplete = false // the parser reports `.end` after the body, or next when there is none
    }

    /// The request has a body, which the client sends now, or (waiting
    /// for `100 Continue`) once its reader first asks.
    mutating func bodyAnnounced(now: UInt64) {
        if expectation != .expected { armBodyRate(now: now) }
    }

    /// A request without a body was answered without waiting for its
    /// `.end`; `later` when the answer was only promised.
    mutating func answeredWithoutBody(later: Bool) {
        bodyComplete = true
        if later { answer = .promised }
    }

    /// The promised answer came: true when it is still wanted (the request
    /// in flight still waits for it).
    mutating func takePromise() -> Bool {
        guard stage == .active, answer == .promised else { return false }
        answer = .pending
        return true
    }

    /// `count` body bytes arrived.
    mutating func bodyArrived(_ count: Int, now: UInt64) {
        lastBodyActivity = now
        bodyRate.received(count, minRate: spans.bodyMinRate)
    }

    /// The body's reader is behind: true when reading is to stop now.
    mutating func bodyReaderBehind(now: UInt64) -> Bool {
        guard !pauses.contains(.body) else { return false }
        pauses.insert(.body)
        bodyRate.pause(now: now)
        return true
    }

    /// What the connection does when the body's reader asks for more.
    struct Demand {
        /// Write `100 Continue` (the client waits for it).
        var sendContinue = false
        /// Read again (back-pressure had paused reading).
        var resumeReading = false
    }

    /// The body's reader asks for bytes.
    mutating func bodyDemanded(now: UInt64) -> Demand {
        var demand = Demand()
        guard stage != .closed else { return demand }
        lastBodyActivity = now
        if expectation == .expected, answer == .pending || answer == .promised {
            expectation = .sent
            demand.sendContinue = true
        }
        armBodyRate(now: now)
        if pauses.contains(.body) {
            pauses.remove(.body)
            bodyRate.resume(now: now)
            demand.resumeReading = true
        }
        return demand
    }

    /// The body has all arrived: true when reading, paused for its
    /// reader, resumes (the next request may follow).
    mutating func bodyEnded() -> Bool {
        bodyComplete = true
        bodyRate.stop()
        return pauses.remove(.body) != nil
    }

    /// The body will not complete (refused, or too slow): true when a
    /// response has begun (the connection can only close).
    mutating func bodyCut() -> Bool {
        bodyComplete = true
        bodyRate.stop()
        return answer == .started || answer == .finished
    }

    /// Starts the body's minimum-rate clock, once the client is to send.
    private mutating func armBodyRate(now: UInt64) {
        guard spans.bodyMinRate > 0, stage == .active, !bodyComplete else { return }
        bodyRate.arm(now: now)
    }
}
