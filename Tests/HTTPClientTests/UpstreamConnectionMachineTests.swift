@testable import HTTPClient
import System
import Testing

/// An upstream connection's state machine without a socket: events in,
/// decisions out; times are nanoseconds given by the test.
struct UpstreamConnectionMachineTests {
    static let ms: UInt64 = 1_000_000

    /// `#expect` for a condition that calls a mutating event (the macro
    /// cannot capture `inout` state).
    static func check(_ condition: Bool, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(condition, comment, sourceLocation: sourceLocation)
    }

    /// Connected, carrying an exchange (a body streamed when `upload`).
    static func exchanging(upload: Bool = false) -> UpstreamConnectionMachine {
        var machine = UpstreamConnectionMachine()
        _ = machine.attach(hasUpload: upload, deadline: 1_000 * ms)
        machine.connecting(inProgress: true)
        #expect(machine.stage == .connecting && machine.isOpening)
        machine.connected()
        #expect(machine.stage == .exchanging && !machine.isOpening)
        return machine
    }

    /// Sends the whole request and reads a whole response.
    static func exchange(_ machine: inout UpstreamConnectionMachine, keepAlive: Bool = true) -> Bool {
        check(machine.queueEmptied())
        machine.bytesReceived()
        machine.responseDone()
        let reusable = machine.completed(keepAlive: keepAlive, extraBytes: false, watched: true)
        machine.detach()
        return reusable
    }

    @Test func aConnectionCarriesExchangesOneAfterAnotherFromThePool() {
        var machine = Self.exchanging()
        #expect(machine.mayWrite)
        #expect(!machine.mayReadUpload, "no body to stream: the head is the whole request")
        Self.check(Self.exchange(&machine))
        #expect(machine.stage == .idle && machine.served == 1)
        #expect(!machine.mayWrite)
        Self.check(machine.attach(hasUpload: false, deadline: 5_000 * Self.ms), "no watchdog pending: arm one")
        #expect(machine.stage == .exchanging && machine.receiving == .nothing && machine.sending == .ending)
        Self.check(Self.exchange(&machine))
        #expect(machine.served == 2)
    }

    /// `(keep-alive, extra bytes, still watched, request all sent)`: only
    /// all four let the connection go back to the pool.
    @Test(arguments: [(true, false, true, true, true), (false, false, true, true, false),
                      (true, true, true, true, false), (true, false, false, true, false),
                      (true, false, true, false, false)])
    func reuseNeedsAKeptAliveQuietWatchedConnectionWhoseRequestLeftWhole(
        keepAlive: Bool, extraBytes: Bool, watched: Bool, sent: Bool, reusable: Bool) {
        var machine = Self.exchanging(upload: !sent)
        if sent { Self.check(machine.queueEmptied()) } else { Self.check(!machine.queueEmptied()) }
        machine.responseDone()
        Self.check(machine.completed(keepAlive: keepAlive, extraBytes: extraBytes, watched: watched) == reusable)
        #expect(machine.served == (reusable ? 1 : 0))
    }

    @Test func aStreamedBodyPausesWithItsSourceAndEndsWithIt() {
        var machine = Self.exchanging(upload: true)
        #expect(machine.mayReadUpload)
        Self.check(!machine.queueEmptied(), "the body is still to come")
        machine.uploadPaused()
        #expect(!machine.mayReadUpload)
        #expect(machine.interest(outboundPending: false) == [.readable, .readHangup], "still reading: an early answer")
        Self.check(machine.uploadReadable())
        Self.check(!machine.uploadReadable(), "resumed once")
        machine.uploadEnded()
        #expect(!machine.requestMayHaveArrived)
        Self.check(machine.queueEmptied())
        #expect(machine.requestMayHaveArrived)
    }

    @Test func aReaderBehindStopsReadingUntilItCatchesUp() {
        var machine = Self.exchanging()
        machine.bytesReceived()
        machine.receivePaused()
        #expect(machine.interest(outboundPending: true) == [.writable])
        Self.check(machine.receiveResumed())
        Self.check(!machine.receiveResumed())
        #expect(machine.interest(outboundPending: false) == [.readable, .readHangup])
        machine.receivePaused()
        machine.detach()
        #expect(!machine.isReceivePaused, "an exchange's pause ends with it")
    }

    /// `(reset, body until the close, a write failed, received anything,
    /// served before, may retry, outcome)`.
    @Test(arguments: [
        (false, true, false, true, 0, false, UpstreamConnectionMachine.EndOfStream.complete),
        (true, true, false, true, 0, false, .fail),
        (false, true, true, true, 0, false, .fail),
        (false, false, false, false, 1, true, .retry),
        (false, false, false, false, 0, true, .fail),
        (false, false, false, false, 1, false, .fail),
        (false, false, false, true, 1, true, .fail),
    ] as [(Bool, Bool, Bool, Bool, Int, Bool, UpstreamConnectionMachine.EndOfStream)])
    func theServersCloseCompletesRetriesOrFails(reset: Bool, untilClose: Bool, sendFailed: Bool, received: Bool,
                                               served: Int, mayRetry: Bool, outcome: UpstreamConnectionMachine.EndOfStream) {
        var machine = Self.exchanging()
        for _ in 0..<served { _ = Self.exchange(&machine); _ = machine.attach(hasUpload: false, deadline: 0) }
        if sendFailed { machine.sendFailed() }
        if received { machine.bytesReceived() }
        Self.check(machine.endOfStream(reset: reset, untilClose: untilClose, mayRetry: mayRetry) == outcome)
        #expect(machine.isResponseDone == (outcome == .complete))
    }

    @Test func theWatchdogTimesOutAQuietExchangeOnlyAndSparesOnePausedByUs() {
        var machine = Self.exchanging()
        let first = machine.watchdogArmed(deadline: 1_000 * Self.ms)
        Self.check(!machine.attach(hasUpload: false, deadline: 2_000 * Self.ms), "a later deadline keeps the pending one")
        let second = machine.watchdogArmed(deadline: 900 * Self.ms)
        var progress: UInt64 = 0
        Self.check(machine.watchdogFired(first, now: 1_000 * Self.ms, lastProgress: &progress, idleTimeout: 1_000 * Self.ms)
                   == .nothing, "superseded")
        progress = 400 * Self.ms
        Self.check(machine.watchdogFired(second, now: 1_000 * Self.ms, lastProgress: &progress, idleTimeout: 1_000 * Self.ms)
                   == .rearm(400 * Self.ms), "bytes moved at 400 ms: 400 ms to go")
        #expect(machine.watchdogDeadline == 0)
        let third = machine.watchdogArmed(deadline: 1_400 * Self.ms)
        Self.check(machine.watchdogFired(third, now: 1_400 * Self.ms, lastProgress: &progress, idleTimeout: 1_000 * Self.ms)
                   == .timedOut)
        #expect(!machine.requestMayHaveArrived, "the outcome is known: the request never left")

        var paused = Self.exchanging()
        paused.bytesReceived()
        paused.receivePaused()
        let timer = paused.watchdogArmed(deadline: 1_000 * Self.ms)
        progress = 0
        Self.check(paused.watchdogFired(timer, now: 5_000 * Self.ms, lastProgress: &progress, idleTimeout: 1_000 * Self.ms)
                   == .rearm(1_000 * Self.ms))
        #expect(progress == 5_000 * Self.ms, "paused by us: the quiet time starts again")
        #expect(paused.requestMayHaveArrived)
    }

    @Test func anIdleOrClosedConnectionHasNothingToWatchAndClosesOnce() {
        var machine = Self.exchanging()
        _ = Self.exchange(&machine)
        let timer = machine.watchdogArmed(deadline: 1_000 * Self.ms)
        var progress: UInt64 = 0
        Self.check(machine.watchdogFired(timer, now: 9_000 * Self.ms, lastProgress: &progress, idleTimeout: Self.ms) == .nothing)
        Self.check(machine.close())
        Self.check(!machine.close())
        #expect(!machine.mayWrite && machine.stage == .closed)
    }
}
