import Testing
import System
@testable import HTTP

/// A server connection's state machine without a socket: events in,
/// decisions out; times are nanoseconds given by the test.
struct HTTPConnectionMachineTests {
    static let ms: UInt64 = 1_000_000
    static let t0: UInt64 = 1_000 * ms

    /// Header 1 s, body gaps 2 s, idle 3 s, write 4 s; the minimum rate
    /// (1000 B/s after a 500 ms grace) when `minRate` is set.
    static func machine(minRate: Int = 0) -> HTTPConnectionMachine {
        var configuration = HTTPServerConfiguration(
            address: SocketAddress(ip: .v4(0x7F00_0001), port: 0), headerTimeout: .seconds(1),
            bodyTimeout: .seconds(2), idleTimeout: .seconds(3), writeTimeout: .seconds(4))
        configuration.bodyMinRate = minRate
        configuration.bodyRateGrace = .milliseconds(500)
        var machine = HTTPConnectionMachine(spans: TimeoutSpans(configuration))
        machine.started(now: t0)
        return machine
    }

    /// A request parsed at `t0` with the given traits.
    static func active(keepAlive: Bool = true, expectsContinue: Bool = false, minRate: Int = 0) -> HTTPConnectionMachine {
        var machine = machine(minRate: minRate)
        machine.bytesArrived(now: t0)
        machine.headParsed(keepAlive: keepAlive, isHead: false, isHTTP10: false, expectsContinue: expectsContinue,
                           draining: false, now: t0)
        return machine
    }

    /// Answers the request in flight whole and writes it out.
    static func answer(_ machine: inout HTTPConnectionMachine) -> HTTPConnectionMachine.Drained {
        Self.check(machine.responseStarts())
        machine.responseFinished()
        return machine.outputDrained()
    }

    /// `#expect` for a condition that calls a mutating event (the macro
    /// cannot capture `inout` state).
    static func check(_ condition: Bool, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(condition, comment, sourceLocation: sourceLocation)
    }

    // MARK: Keep-alive and pipelining

    @Test func aKeptAliveConnectionGoesFromHeadToAnswerToIdleAndBack() {
        var machine = Self.machine()
        #expect(machine.stage == .readingHead)
        #expect(machine.stageDeadline == Self.t0 + 1_000 * Self.ms, "the header timeout from accept")
        #expect(machine.mayParse(hasInput: true))
        machine.headParsed(keepAlive: true, isHead: false, isHTTP10: false, expectsContinue: false, draining: false, now: Self.t0)
        #expect(machine.stage == .active && machine.stageDeadline == 0)
        #expect(machine.mayParse(hasInput: false), "the body (or its end) comes next")
        Self.check(machine.bodyEnded() == false)
        #expect(!machine.mayParse(hasInput: true), "a pipelined request waits for this answer")
        Self.check(Self.answer(&machine) == .completeResponse)
        guard case .next(resumeReading: false) = machine.responseCompleted(draining: false, now: Self.t0 + 10 * Self.ms) else {
            Issue.record("kept alive")
            return
        }
        #expect(machine.stage == .idle)
        #expect(machine.stageDeadline == Self.t0 + 3_010 * Self.ms, "the idle timeout")
        machine.bytesArrived(now: Self.t0 + 20 * Self.ms)
        #expect(machine.stage == .readingHead)
        #expect(machine.stageDeadline == Self.t0 + 1_020 * Self.ms, "the header timeout from the first byte")
        machine.bytesArrived(now: Self.t0 + 30 * Self.ms)
        #expect(machine.stageDeadline == Self.t0 + 1_020 * Self.ms, "more of the head does not extend it")
    }

    /// `(keepAlive, draining, peer closed)`: any of the three ends the
    /// connection after the response.
    @Test(arguments: [(false, false, false), (true, true, false), (true, false, true)])
    func theConnectionEndsAfterTheResponse(keepAlive: Bool, draining: Bool, peerClosed: Bool) {
        var machine = Self.active(keepAlive: keepAlive)
        _ = machine.bodyEnded()
        if peerClosed { Self.check(machine.peerFinished() == false, "answered first") }
        Self.check(Self.answer(&machine) == .completeResponse)
        guard case .finish = machine.responseCompleted(draining: draining, now: Self.t0) else {
            Issue.record("ends")
            return
        }
        Self.check(machine.finish(outputPending: false, inputPending: false, now: Self.t0) == .close)
    }

    @Test func pipelinedBytesPastTheLimitPauseReadingUntilTheAnswerIsDone() {
        var machine = Self.active()
        Self.check(!machine.pipelined(pendingBytes: 100, limit: 50), "the body is still being read")
        _ = machine.bodyEnded()
        Self.check(!machine.pipelined(pendingBytes: 50, limit: 50))
        Self.check(machine.pipelined(pendingBytes: 51, limit: 50))
        #expect(!machine.wantsToRead)
        _ = Self.answer(&machine)
        guard case .next(resumeReading: true) = machine.responseCompleted(draining: false, now: Self.t0) else {
            Issue.record("reading resumes")
            return
        }
        #expect(machine.wantsToRead)
        machine.partialHeadWaits(now: Self.t0 + 5 * Self.ms)
        #expect(machine.stage == .readingHead && machine.stageDeadline == Self.t0 + 1_005 * Self.ms)
    }

    @Test func drainingClosesAnIdleConnectionAtOnceAndABusyOneAfterItsAnswer() {
        var idle = Self.machine()
        Self.check(idle.drain())
        var busy = Self.active()
        Self.check(!busy.drain())
        #expect(!busy.keepAlive)
    }

    // MARK: Answers

    @Test func aSecondAnswerOrOneAfterTheServersOwnIsDropped() {
        var machine = Self.active()
        Self.check(machine.responseStarts())
        Self.check(!machine.responseStarts())
        var refused = Self.active()
        refused.serverAnswers()
        Self.check(!refused.responseStarts())
        #expect(!refused.keepAlive)
    }

    @Test func anEarlyAnswerEndsTheConnectionAndAPromiseIsKeptOnce() {
        var early = Self.active()
        Self.check(early.responseStarts())
        #expect(!early.keepAlive, "the unread body cannot be skipped")

        var later = Self.active()
        Self.check(!later.takePromise(), "nothing was promised")
        later.answeredWithoutBody(later: true)
        Self.check(later.takePromise())
        Self.check(!later.takePromise())
        Self.check(later.responseStarts())
        #expect(later.keepAlive)
    }

    @Test func aStreamedBodyIsCutWithAResetAndAWholeOneClosedPlainly() {
        var streaming = Self.active()
        Self.check(streaming.responseStarts())
        #expect(streaming.isStreaming)
        Self.check(streaming.close() == .reset)
        Self.check(streaming.close() == .alreadyClosed)
        #expect(!streaming.isStreaming)
        var whole = Self.active()
        _ = Self.answer(&whole)
        Self.check(whole.close() == .close)
    }

    // MARK: Closing

    /// Answered, with input still unread (or a refusal at accept, or a
    /// body not all read): a lingering close; else a plain one.
    @Test(arguments: [(true, false, true), (false, true, true), (false, false, false)])
    func aResponseWithUnreadInputEndsInALingeringClose(inputPending: Bool, refused: Bool, lingers: Bool) {
        var machine = Self.machine()
        if refused { machine.refusedAtAccept() }
        machine.serverAnswers()
        Self.check(machine.finish(outputPending: true, inputPending: inputPending, now: Self.t0) == .wait)
        Self.check(machine.outputDrained() == .completeResponse)
        guard case .finish = machine.responseCompleted(draining: false, now: Self.t0) else {
            Issue.record("ends")
            return
        }
        let finish = machine.finish(outputPending: false, inputPending: inputPending, now: Self.t0)
        #expect(finish == (lingers ? .linger : .close))
        if lingers {
            #expect(machine.wantsToRead, "discarding")
            #expect(!machine.mayParse(hasInput: true))
            Self.check(machine.expiry(now: Self.t0 + 1_999 * Self.ms, readerWaiting: false) == .none)
            Self.check(machine.expiry(now: Self.t0 + 2_000 * Self.ms, readerWaiting: false) == .expire)
        }
    }

    @Test func thePeersEndClosesUnlessAWholeRequestAwaitsItsAnswer() {
        var idle = Self.machine()
        Self.check(idle.peerFinished())
        var midBody = Self.active()
        Self.check(midBody.peerFinished())
        var whole = Self.active()
        _ = whole.bodyEnded()
        Self.check(!whole.peerFinished())
        #expect(!whole.wantsToRead)
        #expect(!whole.keepAlive)
    }

    // MARK: Body

    @Test func aBodyReaderBehindPausesReadingUntilItAsks() {
        var machine = Self.active()
        Self.check(machine.bodyReaderBehind(now: Self.t0))
        Self.check(!machine.bodyReaderBehind(now: Self.t0), "paused once")
        #expect(!machine.wantsToRead)
        let demand = machine.bodyDemanded(now: Self.t0 + Self.ms)
        #expect(demand.resumeReading && !demand.sendContinue)
        #expect(machine.wantsToRead)
        Self.check(machine.bodyReaderBehind(now: Self.t0 + 2 * Self.ms))
        Self.check(machine.bodyEnded(), "the end resumes reading for the next request")
        #expect(machine.wantsToRead)
    }

    @Test func continueIsSentOnceAndOnlyBeforeAnAnswer() {
        var machine = Self.active(expectsContinue: true)
        Self.check(machine.bodyDemanded(now: Self.t0).sendContinue)
        Self.check(!machine.bodyDemanded(now: Self.t0).sendContinue)
        var answered = Self.active(expectsContinue: true)
        Self.check(answered.responseStarts())
        Self.check(!answered.bodyDemanded(now: Self.t0).sendContinue)
    }

    // MARK: Deadlines

    /// What a machine in a given state says at a given time.
    enum Setup: CaseIterable {
        case fresh, idle, writing, bodyReaderWaiting, slowBody, continueAwaited, fastBody
    }

    static func prepared(_ setup: Setup) -> (machine: HTTPConnectionMachine, readerWaiting: Bool) {
        switch setup {
        case .fresh:
            return (machine(), false)
        case .idle:
            var machine = active()
            _ = machine.bodyEnded()
            _ = answer(&machine)
            _ = machine.responseCompleted(draining: false, now: t0)
            return (machine, false)
        case .writing:
            var machine = active()
            _ = machine.bodyEnded()
            _ = machine.responseStarts()
            machine.writeBlocked(now: t0)
            machine.writeBlocked(now: t0 + 500 * ms) // the first block sets it
            return (machine, false)
        case .bodyReaderWaiting:
            var machine = active()
            machine.bodyArrived(10, now: t0)
            return (machine, true)
        case .slowBody:
            var machine = active(minRate: 1000)
            machine.bodyAnnounced(now: t0)
            machine.bodyArrived(100, now: t0 + 100 * ms) // 100 ms more
            return (machine, false)
        case .continueAwaited:
            var machine = active(expectsContinue: true, minRate: 1000)
            machine.bodyAnnounced(now: t0)
            return (machine, false)
        case .fastBody:
            var machine = active(minRate: 1000)
            machine.bodyAnnounced(now: t0)
            machine.bodyArrived(1_000_000, now: t0 + 100 * ms)
            return (machine, false)
        }
    }

    /// `(setup, the last quiet millisecond, what comes one after it)`;
    /// nil: nothing runs out within a minute.
    @Test(arguments: [
        (Setup.fresh, 999, HTTPConnectionMachine.Expiry.headTimeout),
        (.idle, 2_999, .closeIdle),
        (.writing, 3_999, .expire),
        (.bodyReaderWaiting, 1_999, .cutBody),
        (.slowBody, 599, .slowBody),
    ] as [(Setup, UInt64, HTTPConnectionMachine.Expiry)])
    func aDeadlineRunsOutAtItsTime(setup: Setup, quiet: UInt64, then expiry: HTTPConnectionMachine.Expiry) {
        var (machine, readerWaiting) = Self.prepared(setup)
        Self.check(machine.expiry(now: Self.t0 + quiet * Self.ms, readerWaiting: readerWaiting) == .none)
        Self.check(machine.expiry(now: Self.t0 + (quiet + 1) * Self.ms, readerWaiting: readerWaiting) == expiry)
    }

    @Test(arguments: [Setup.continueAwaited, .fastBody])
    func noDeadlineRunsOutForABodyNotYetDueOrKeepingUp(setup: Setup) {
        var (machine, readerWaiting) = Self.prepared(setup)
        Self.check(machine.expiry(now: Self.t0 + 60_000 * Self.ms, readerWaiting: readerWaiting) == .none)
    }

    @Test func theHeaderTimeoutFiresOnceAndTheRateClockStartsAtContinue() {
        var fresh = Self.machine()
        Self.check(fresh.expiry(now: Self.t0 + 1_000 * Self.ms, readerWaiting: false) == .headTimeout)
        Self.check(fresh.expiry(now: Self.t0 + 1_000 * Self.ms, readerWaiting: false) == .none)

        var waiting = Self.prepared(.continueAwaited).machine
        let later = Self.t0 + 10_000 * Self.ms
        Self.check(waiting.bodyDemanded(now: later).sendContinue)
        Self.check(waiting.expiry(now: later + 499 * Self.ms, readerWaiting: false) == .none)
        Self.check(waiting.expiry(now: later + 500 * Self.ms, readerWaiting: false) == .slowBody)
        Self.check(!waiting.bodyCut(), "no answer yet: 408")
        Self.check(waiting.expiry(now: later + 500 * Self.ms, readerWaiting: false) == .none)
    }

    @Test func aClosedConnectionHasNoDeadline() {
        var machine = Self.machine()
        _ = machine.close()
        Self.check(machine.expiry(now: .max, readerWaiting: true) == .none)
    }
}
