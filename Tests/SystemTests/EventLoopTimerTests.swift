import Synchronization
import Testing
@testable import System

/// Timers on a loop whose clock the test moves (`ManualLoopClock`): they
/// fire when their deadline has come on that clock, in deadline order,
/// whatever the real time.
@Suite("Event loop timers")
struct EventLoopTimerTests {
    /// Schedules on the loop thread and waits until it has.
    private static func schedule(on loop: EventLoop, _ body: @escaping @Sendable () -> Void) async {
        await loop.submit { body() }
    }

    @Test func aTimerFiresWhenDueOnTheLoopsClock() async throws {
        let clock = ManualLoopClock()
        let group = try EventLoopGroup(loops: 1, clock: clock)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Atomic<UInt64>(0)
        await Self.schedule(on: loop) {
            loop.schedule(after: .milliseconds(40)) { fired.store(loop.now, ordering: .relaxed) }
        }
        let start = clock.now()
        clock.advance(by: .milliseconds(39))
        await loop.runExpiredTimers()
        #expect(fired.load(ordering: .relaxed) == 0, "not due yet")
        clock.advance(by: .milliseconds(1))
        await loop.runExpiredTimers()
        #expect(fired.load(ordering: .relaxed) == start + 40_000_000, "due, and `now` is the clock's")
    }

    /// Timers fire in deadline order; a cancelled one never fires; one
    /// scheduled by a timer's action, or earlier than the one the loop
    /// waits for, fires on time.
    @Test func timersFireInOrderAndCancelledOnesNever() async throws {
        let clock = ManualLoopClock()
        let group = try EventLoopGroup(loops: 1, clock: clock)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Mutex<[String]>([])
        await Self.schedule(on: loop) {
            loop.schedule(after: .milliseconds(800)) { fired.withLock { $0.append("last") } }
            let cancelled = loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append("cancelled") } }
            loop.cancelTimer(cancelled)
            loop.schedule(after: .milliseconds(40)) {
                fired.withLock { $0.append("second") }
                loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("from an action") } }
            }
        }
        await Self.schedule(on: loop) {
            loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("first") } }
        }
        // (milliseconds the clock moves, what has fired by then)
        for (step, expected) in [(10, ["first"]), (29, ["first"]), (1, ["first", "second"]),
                                 (9, ["first", "second"]), (1, ["first", "second", "from an action"])] {
            clock.advance(by: .milliseconds(step))
            await loop.runExpiredTimers()
            #expect(fired.withLock { $0 } == expected)
        }
        clock.advance(by: .milliseconds(749))
        await loop.runExpiredTimers()
        #expect(fired.withLock { $0 } == ["first", "second", "from an action"])
        clock.advance(by: .milliseconds(1))
        await loop.runExpiredTimers()
        #expect(fired.withLock { $0 } == ["first", "second", "from an action", "last"])
    }

    /// A jump past several deadlines fires them all, earliest first.
    @Test func aJumpPastSeveralDeadlinesFiresThemInOrder() async throws {
        let clock = ManualLoopClock()
        let group = try EventLoopGroup(loops: 1, clock: clock)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Mutex<[Int]>([])
        await Self.schedule(on: loop) {
            for delay in [300, 100, 200] {
                loop.schedule(after: .milliseconds(delay)) { fired.withLock { $0.append(delay) } }
            }
        }
        clock.advance(by: .seconds(1))
        await loop.runExpiredTimers()
        #expect(fired.withLock { $0 } == [100, 200, 300])
    }
}
