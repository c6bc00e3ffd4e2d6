import Testing
@testable import HTTP

/// The minimum-rate deadline as a value, without sockets: times are
/// nanoseconds given by the test.
struct BodyRateDeadlineTests {
    static let second: UInt64 = 1_000_000_000

    @Test func runsOutAfterTheGraceUnlessBytesBuyMoreTime() {
        var deadline = BodyRateDeadline()
        deadline.begin(grace: 2 * Self.second)
        #expect(!deadline.hasExpired(now: 100 * Self.second), "not armed: no deadline")
        deadline.arm(now: 10 * Self.second)
        #expect(!deadline.hasExpired(now: 11 * Self.second))
        #expect(deadline.hasExpired(now: 12 * Self.second))
        deadline.received(1500, minRate: 500) // three seconds more
        #expect(!deadline.hasExpired(now: 14 * Self.second))
        #expect(deadline.hasExpired(now: 15 * Self.second))
    }

    @Test func timeTheServerPausedReadingIsNotCounted() {
        var deadline = BodyRateDeadline()
        deadline.begin(grace: 2 * Self.second)
        deadline.arm(now: 10 * Self.second)
        deadline.pause(now: 11 * Self.second)
        #expect(!deadline.hasExpired(now: 50 * Self.second), "never while paused")
        deadline.resume(now: 51 * Self.second) // 40 s paused
        #expect(!deadline.hasExpired(now: 51 * Self.second + Self.second / 2))
        #expect(deadline.hasExpired(now: 52 * Self.second))
    }

    @Test func aStoppedDeadlineNeverRunsOut() {
        var deadline = BodyRateDeadline()
        deadline.begin(grace: Self.second)
        deadline.arm(now: Self.second)
        deadline.stop()
        #expect(!deadline.hasExpired(now: 100 * Self.second))
    }
}
