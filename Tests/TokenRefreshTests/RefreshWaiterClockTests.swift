import Crypto
import Testing
@testable import TokenRefresh

/// A waiter's poll timeout runs on the injected clock: it ends when the
/// test moves time past it, not after wall time, and a signal cuts it short.
@Suite("Refresh waiters on a test clock")
struct RefreshWaiterClockTests {
    static let key = try! MACKey(derivedFrom: [UInt8](repeating: 7, count: 32), info: Array("test/one".utf8))

    @Test func aWaitEndsWhenTheClockPassesItsTimeout() async throws {
        let clock = TestClock()
        let signals = RefreshSignals(clock: RefreshClock(clock))
        let waiter = signals.waiter(for: "refresh:one", key: Self.key)
        defer { waiter.cancel() }
        async let woken = waiter.next(timeout: .seconds(30))
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1, "not yet")
        clock.advance(by: .seconds(1))
        #expect(await woken == nil, "timed out on the test clock")
    }

    @Test func aSignalEndsTheWaitBeforeItsTimeout() async throws {
        let clock = TestClock()
        let signals = RefreshSignals(clock: RefreshClock(clock))
        let waiter = signals.waiter(for: "refresh:two", key: Self.key)
        defer { waiter.cancel() }
        async let woken = waiter.next(timeout: .seconds(30))
        try await clock.waitForSleepers(1)
        await signals.publish("refresh:two", .refreshed, key: Self.key)
        #expect(await woken == .refreshed)
        #expect(clock.sleeperCount == 0, "the timer is cancelled")
    }

    @Test func theMemoryStoreDeliversOutcomesToStartedSignals() async throws {
        let clock = TestClock()
        let store = MemoryRefreshStore(clock: clock)
        let (here, there) = (RefreshSignals(store: store, clock: RefreshClock(clock)),
                             RefreshSignals(store: store, clock: RefreshClock(clock)))
        here.start()
        there.start()
        let waiter = there.waiter(for: "refresh:three", key: Self.key)
        defer { waiter.cancel() }
        async let woken = waiter.next(timeout: .seconds(30))
        try await clock.waitForSleepers(1)
        // The listeners subscribe in the background: publish until one arrives.
        var received: RefreshSignal?
        for _ in 0..<200 where received == nil {
            await here.publish("refresh:three", .ended, key: Self.key)
            try await Task.sleep(for: .milliseconds(5))
            if clock.sleeperCount == 0 { received = await woken }
        }
        #expect(received == .ended)
        await here.close()
        await there.close()
    }
}
