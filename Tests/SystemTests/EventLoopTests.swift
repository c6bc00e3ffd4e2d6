import Dispatch
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

    /// Polls before sleeping only after a wake-up that found the loop
    /// busy: one piece of work at a time never makes it poll; many
    /// descriptors ready at once do.
    @Test func aLoopPollsBeforeItSleepsOnlyWhenBusy() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let counters = (0..<8).map { _ in Counter() }
        _ = await loop.submit { counters.map { try? loop.register($0.fd, for: [.readable], handler: $0) } }

        let quiet = await loop.submit { loop.yieldedPolls }
        for _ in 0..<5 {
            _ = await loop.submit { 0 }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await loop.submit { loop.yieldedPolls } == quiet, "work one piece at a time")

        // All eight ready while the loop is held up: its next wait brings them together.
        let held = await loop.submit { loop.yieldedPolls }
        let gate = await Self.holdUp(loop)
        for counter in counters { counter.signal() }
        gate.signal()
        try await Task.sleep(for: .milliseconds(80))
        #expect(counters.allSatisfy { $0.drained.load(ordering: .relaxed) == 1 })
        #expect(await loop.submit { loop.yieldedPolls } - held >= EventLoop.pollsBeforeSleeping)
    }

    /// A busy loop takes events that are already waiting without yielding
    /// its core first: a chain of pipes, each handler making the next one
    /// readable, runs with no yield until it ends, then the loop yields
    /// and polls as a busy loop does before it sleeps.
    @Test func aBusyLoopTakesWaitingEventsBeforeItYields() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let counters = (0..<8).map { _ in Counter() }
        let last = Counter()
        let chain = (0..<20).reduce(ChainLink(then: last)) { next, _ in ChainLink(then: next) }
        _ = await loop.submit {
            for counter in counters + [last] { _ = try? loop.register(counter.fd, for: [.readable], handler: counter) }
            chain.register(on: loop)
        }
        // Busy from a wait that brings eight events, the chain's first among them.
        let held = await loop.submit { loop.yieldedPolls }
        let gate = await Self.holdUp(loop)
        for counter in counters { counter.signal() }
        chain.signal()
        gate.signal()
        try await Task.sleep(for: .milliseconds(150))
        #expect(last.drained.load(ordering: .relaxed) == 1, "the chain ran to its end")
        let yielded = await loop.submit { loop.yieldedPolls } - held
        #expect(yielded == EventLoop.pollsBeforeSleeping, "no yield while the chain's next link waited; \(yielded) yields")
    }

    /// Holds `loop` up in a job until the returned semaphore is signalled
    /// (and returns once it is in the job): what becomes readable
    /// meanwhile comes in its next wait together, however long the test's
    /// own thread is kept off the core in between.
    static func holdUp(_ loop: EventLoop) async -> DispatchSemaphore {
        let (entered, gate) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        loop.execute {
            entered.signal()
            gate.wait()
        }
        await blocking { entered.wait() }   // off the cooperative pool
        return gate
    }

    /// A pipe whose handler, draining it, makes the next link's pipe readable.
    private final class ChainLink: EventLoopHandler, Sendable {
        let fd: Int32
        let writer: Int32
        let next: ChainLink?
        let end: Counter?

        init(then next: ChainLink) { (self.next, end) = (next, nil); (fd, writer) = Self.pipeEnds() }
        init(then end: Counter) { (next, self.end) = (nil, end); (fd, writer) = Self.pipeEnds() }

        private static func pipeEnds() -> (Int32, Int32) {
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            return (ends[0], ends[1])
        }

        deinit {
            close(writer)
            close(fd)
        }

        func register(on loop: EventLoop) {
            _ = try? loop.register(fd, for: [.readable], handler: self)
            next?.register(on: loop)
        }

        func signal() {
            var one: UInt8 = 1
            _ = write(writer, &one, 1)
        }

        func handleEvents(_ events: EpollEvents) {
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { return }
            if let next { next.signal() } else { end?.signal() }
        }
    }

    /// A pipe whose readable end the loop drains.
    private final class Counter: EventLoopHandler, Sendable {
        let fd: Int32
        let writer: Int32
        let drained = Atomic<Int>(0)

        init() {
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            (fd, writer) = (ends[0], ends[1])
        }

        deinit {
            close(writer)
            close(fd)
        }

        func signal() {
            var one: UInt8 = 1
            _ = write(writer, &one, 1)
        }

        func handleEvents(_ events: EpollEvents) {
            var byte: UInt8 = 0
            if read(fd, &byte, 1) == 1 { drained.add(1, ordering: .relaxed) }
        }
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
            _ = await loop.submit { counter.add(1, ordering: .relaxed) }
        }
        #expect(counter.load(ordering: .relaxed) == 2_000)
    }
}
