import Glibc
import Synchronization
import TestSupport
import Testing
@testable import System

/// An event loop polls a few times before it sleeps (`waitForEvents`):
/// idle, it must still sleep, and whatever arrives while it polls or
/// sleeps (a timer, work from another thread) must still wake it.
@Suite("Event loop waiting")
struct EventLoopTests {
    @Test func anIdleLoopSleeps() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let used = try await loopCPUTime(of: group.loops[0], over: 300)
        // A loop that spun instead of sleeping would use most of the 300 ms.
        #expect(used < 30_000_000, "idle loop used \(used / 1_000_000) ms of CPU")
    }

    @Test func aLoopPollsBeforeItSleeps() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let before = await loop.submit { loop.yieldedPolls }
        // Idle long enough to have gone to sleep at least once, which
        // takes the polls first.
        try await Task.sleep(for: .milliseconds(50))
        let after = await loop.submit { loop.yieldedPolls }
        #expect(after - before >= EventLoop.pollsBeforeSleeping)
    }

    @Test func aTimerFiresWhenDue() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let start = MonotonicClock.now()
        let fired: UInt64 = await withCheckedContinuation { continuation in
            loop.execute {
                loop.schedule(after: .milliseconds(40)) { continuation.resume(returning: MonotonicClock.now()) }
            }
        }
        let elapsed = fired - start
        #expect(elapsed >= 40_000_000)
        #expect(elapsed < 1_000_000_000)
    }

    /// Timers fire in deadline order; a cancelled one never fires (though
    /// it may wake the loop once); one scheduled by a timer's action, or
    /// earlier than the one the loop sleeps towards, fires on time.
    @Test func timersFireInOrderAndCancelledOnesNever() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Mutex<[String]>([])
        let start = MonotonicClock.now()
        let elapsed: UInt64 = await withCheckedContinuation { continuation in
            loop.execute {
                loop.schedule(after: .milliseconds(800)) {
                    fired.withLock { $0.append("last") }
                    continuation.resume(returning: MonotonicClock.now() - start)
                }
                let cancelled = loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append("cancelled") } }
                loop.cancelTimer(cancelled)
                loop.schedule(after: .milliseconds(40)) {
                    fired.withLock { $0.append("second") }
                    loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("from an action") } }
                }
            }
            // From another thread, while the loop sleeps towards 40 ms.
            usleep(5_000)
            loop.execute { loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("first") } } }
        }
        #expect(fired.withLock { $0 } == ["first", "second", "from an action", "last"])
        #expect(elapsed >= 800_000_000 && elapsed < 3_000_000_000)
    }

    @Test func workFromAnotherThreadWakesASleepingLoop() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        // Long enough for the loop to have gone to sleep.
        try await Task.sleep(for: .milliseconds(100))
        let start = MonotonicClock.now()
        #expect(await loop.submit { 42 } == 42)
        #expect(MonotonicClock.now() - start < 1_000_000_000)
        // Back and forth, so that work arrives while the loop polls, sleeps
        // or is between the two: none of it may be left waiting.
        let counter = Atomic<Int>(0)
        for _ in 0..<2_000 {
            await loop.submit { counter.add(1, ordering: .relaxed) }
        }
        #expect(counter.load(ordering: .relaxed) == 2_000)
    }
}
