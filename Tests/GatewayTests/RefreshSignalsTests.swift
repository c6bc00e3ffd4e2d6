import Testing
@testable import Gateway

@Suite("Refresh signals: waiters")
struct RefreshSignalsTests {
    /// The timer may end before `next` has started to wait (a stalled
    /// thread): `next` must then return at once, not wait for a signal
    /// that may never come.
    @Test func aTimerThatEndsBeforeTheWaitStillEndsIt() async throws {
        let signals = RefreshSignals()
        let waiter = signals.waiter(for: "refresh:one")
        defer { waiter.cancel() }
        waiter.timeOut()
        let started = ContinuousClock.now
        let signal = await waiter.next(timeout: .seconds(30))
        #expect(signal == nil)
        #expect(ContinuousClock.now - started < .seconds(5), "returned at once, not after the 30 s timeout")
    }

    @Test func aSignalBeforeTheWaitIsKeptAndOneDuringItWakesIt() async throws {
        let signals = RefreshSignals()
        let early = signals.waiter(for: "refresh:two")
        await signals.publish("refresh:two", .refreshed)
        #expect(await early.next(timeout: .seconds(30)) == .refreshed)
        early.cancel()

        let waiting = signals.waiter(for: "refresh:two")
        async let woken = waiting.next(timeout: .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        await signals.publish("refresh:two", .ended)
        #expect(await woken == .ended)
        waiting.cancel()

        let unrelated = signals.waiter(for: "refresh:three")
        await signals.publish("refresh:two", .refreshed)
        #expect(await unrelated.next(timeout: .milliseconds(50)) == nil, "another session's signal never wakes it")
        unrelated.cancel()
    }
}
