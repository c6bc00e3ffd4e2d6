import System

/// The life of one of the client's own upstream connections as a value:
/// its stage, how far the request has gone out and the answer come in,
/// and the idle timeout's watchdog. `UpstreamConnection` reports what
/// happened (the methods here) and performs what they answer on the
/// socket, the exchange and the pool; the machine touches neither, so it
/// is tested without them. Stored inline in the connection: a few bytes
/// of enums and flags, no allocation. Times are nanoseconds on the loop's
/// clock.
struct UpstreamConnectionMachine {
    enum Stage: UInt8 {
        /// Looking the host up, for the exchange it was opened for.
        case resolving
        /// A non-blocking connect is under way.
        case connecting
        /// Open, carrying an exchange.
        case exchanging
        /// Open, waiting in the pool for the next exchange (still watched:
        /// anything it reports means the server closed it).
        case idle
        case closed
    }

    /// How far the request has gone out.
    enum Sending: UInt8 {
        /// The head, then the body as its source gives it.
        case body
        /// The body's source has nothing for now.
        case bodyPaused
        /// The source has ended: what is queued is the request's last bytes.
        case ending
        /// All of it has left.
        case sent
        /// A write failed (the server may answer early and stop reading).
        case broken
    }

    /// How far the answer has come in.
    enum Receiving: UInt8 {
        /// Not a byte yet.
        case nothing
        case receiving
        /// The body's reader is behind: reading stops until it catches up.
        case paused
        /// The response is read whole.
        case done
    }

    // Changed only by the event methods; the connection reads them.
    var stage = Stage.resolving
    var sending = Sending.body
    var receiving = Receiving.nothing
    /// Exchanges this connection finished: a reused connection may find
    /// the server closed it meanwhile.
    var served = 0
    /// The watchdog's pending timer (by generation: a newer one supersedes
    /// it) and its deadline; 0 for none. One timer per connection, so a
    /// request does not leave a timer behind in the loop's heap.
    var watchdogGeneration: UInt64 = 0
    var watchdogDeadline: UInt64 = 0

    // MARK: Opening

    /// The socket connects: at once, or `inProgress`.
    mutating func connecting(inProgress: Bool) {
        stage = inProgress ? .connecting : .exchanging
    }

    /// The non-blocking connect completed.
    mutating func connected() {
        stage = .exchanging
    }

    /// Whether the connect timer still matters.
    var isOpening: Bool { stage == .resolving || stage == .connecting }

    // MARK: Exchanges

    /// An exchange starts here; `hasUpload`: its body is streamed after
    /// its head. True when the watchdog must be armed (none pending, or
    /// the pending one later than `deadline`).
    mutating func attach(hasUpload: Bool, deadline: UInt64) -> Bool {
        if stage == .idle { stage = .exchanging }
        sending = hasUpload ? .body : .ending
        receiving = .nothing
        return watchdogDeadline == 0 || deadline < watchdogDeadline
    }

    /// The exchange has ended here (answered, failed, or sent again).
    mutating func detach() {
        if stage == .exchanging { stage = .idle }
        if receiving == .paused { receiving = .receiving }
        if sending == .bodyPaused { sending = .body }
    }

    /// Whether the body's source is to be asked for more.
    var mayReadUpload: Bool { sending == .body }

    /// Whether more is to be written.
    var mayWrite: Bool { stage == .exchanging && sending != .broken }

    /// The body's source has nothing for now.
    mutating func uploadPaused() {
        sending = .bodyPaused
    }

    /// The body's source has a piece again: true when sending resumes.
    mutating func uploadReadable() -> Bool {
        guard sending == .bodyPaused else { return false }
        sending = .body
        return true
    }

    /// The body's source ended; its last framing is queued.
    mutating func uploadEnded() {
        sending = .ending
    }

    /// Everything queued has been written: true when that was the whole
    /// request (nothing more is to be queued).
    mutating func queueEmptied() -> Bool {
        if sending == .ending { sending = .sent }
        return sending == .sent
    }

    /// A write failed.
    mutating func sendFailed() {
        sending = .broken
    }

    /// Bytes arrived.
    mutating func bytesReceived() {
        if receiving == .nothing { receiving = .receiving }
    }

    /// The body's reader is behind.
    mutating func receivePaused() {
        receiving = .paused
    }

    /// The reader caught up: true when reading resumes.
    mutating func receiveResumed() -> Bool {
        guard receiving == .paused else { return false }
        receiving = .receiving
        return true
    }

    /// The response is read whole.
    mutating func responseDone() {
        receiving = .done
    }

    var isResponseDone: Bool { receiving == .done }
    var isReceivePaused: Bool { receiving == .paused }

    /// Which events the socket is watched for.
    func interest(outboundPending: Bool) -> EpollEvents {
        var wanted: EpollEvents = receiving == .paused ? [] : [.readable, .readHangup]
        if outboundPending { wanted.insert(.writable) }
        return wanted
    }

    /// Whether the request has fully left, or the server answered (for a
    /// timeout's "outcome unknown").
    var requestMayHaveArrived: Bool { sending == .sent || receiving != .nothing }

    // MARK: The end

    /// The response is read whole: true when the connection can carry
    /// another exchange (the server keeps it open, the whole request left
    /// first, nothing came past the response, and it is still watched).
    mutating func completed(keepAlive: Bool, extraBytes: Bool, watched: Bool) -> Bool {
        let reusable = keepAlive && sending == .sent && !extraBytes && watched
        if reusable { served += 1 }
        return reusable
    }

    /// What the server's close (or reset) means for the exchange.
    enum EndOfStream: Equatable {
        /// The body ran until the close: it is complete.
        case complete
        /// A pooled connection closed before the request reached the
        /// server: send it once more on a new connection.
        case retry
        case fail
    }

    /// The server closed its side (`reset`: reset it). A reset never ends
    /// a body that runs until the close; neither does a close after a send
    /// failed (the kernel hands the reset to whichever call comes first).
    mutating func endOfStream(reset: Bool, untilClose: Bool, mayRetry: Bool) -> EndOfStream {
        if !reset, sending != .broken, untilClose {
            receiving = .done
            return .complete
        }
        if receiving == .nothing, served > 0, mayRetry { return .retry }
        return .fail
    }

    /// Closes: false when it was closed already.
    mutating func close() -> Bool {
        guard stage != .closed else { return false }
        stage = .closed
        return true
    }

    // MARK: The watchdog

    /// A watchdog timer is armed to fire at `deadline`; returns its generation.
    mutating func watchdogArmed(deadline: UInt64) -> UInt64 {
        watchdogGeneration &+= 1
        watchdogDeadline = deadline
        return watchdogGeneration
    }

    /// What a watchdog timer that fired asks for.
    enum Watchdog: Equatable {
        /// Superseded, or nothing to watch.
        case nothing
        /// Nothing moved for the idle timeout: fail the exchange.
        case timedOut
        /// Something moved: watch again after this many nanoseconds.
        case rearm(UInt64)
    }

    /// Watchdog `generation` fired at `now`; `lastProgress` is when bytes
    /// last moved, moved to `now` while a side of ours holds the exchange
    /// paused (the reader behind, or the body's source empty): that is no
    /// reason to time it out.
    mutating func watchdogFired(_ generation: UInt64, now: UInt64, lastProgress: inout UInt64,
                                idleTimeout: UInt64) -> Watchdog {
        guard generation == watchdogGeneration else { return .nothing }
        watchdogDeadline = 0
        guard stage != .closed, stage != .idle else { return .nothing }
        if receiving == .paused || sending == .bodyPaused { lastProgress = now }
        let quiet = now > lastProgress ? now - lastProgress : 0
        return quiet >= idleTimeout ? .timedOut : .rearm(idleTimeout - quiet)
    }
}
