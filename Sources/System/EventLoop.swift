import CSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One epoll loop on one thread. Descriptors registered with a loop, the
/// handlers behind them and its timers are touched only on that thread;
/// other threads reach the loop through `execute` and the task executor,
/// which queue work and wake the loop through an eventfd.
///
/// `@unchecked Sendable`: the mutable loop-thread state (`state`, `timers`)
/// is only read or written on the loop thread (checked by `assertInLoop`
/// on every public entry to it); state shared across threads is in
/// `remote` (a Mutex) and Atomics.
public final class EventLoop: @unchecked Sendable {
    /// The position of this loop in its group.
    public let index: Int
    /// Where `now` and the timers' deadlines come from.
    public let clock: any LoopClock
    /// `clock` is the monotonic clock: read inline (`readClock`), without
    /// a call through the protocol's witness table on every iteration.
    private let monotonic: Bool
    let epollFD: Int32
    let wakeFD: Int32

    /// The loop thread's own bookkeeping (see `State`).
    ///
    /// `@exclusivity(unchecked)`: touched on the loop thread only, and no
    /// access to it is held across a call that could reach it again: the
    /// queues are swapped out (inside one call on `state`) before what they
    /// hold runs, and run from a copy; a handler is called after its lookup
    /// and removed by itself, so removing one never frees it (no deinit runs
    /// inside an access); the event buffer is written by `epoll_wait` alone.
    /// So the run-time exclusivity check, dozens per proxied request, could
    /// never fire. `timers` keeps the check: dropping a cancelled timer
    /// inside the heap's own methods frees its action, whose captures'
    /// deinits are not this file's to vouch for. Other classes keep the
    /// check too, except for a loop-state struct of their own argued the
    /// same way.
    @exclusivity(unchecked) var state: State
    var timers = TimerHeap()
    private var nextTimer: UInt64 = 1

    struct RemoteQueue {
        var jobs: [UnownedJob] = []
        var work: [@Sendable () -> Void] = []
    }
    let remote = Mutex(RemoteQueue())
    private let wakePending = Atomic<Bool>(false)
    private let stopRequested = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)

    /// Nanoseconds on the loop's clock when this loop iteration began.
    /// Read through a pointer: `@exclusivity(unchecked)` holds only in
    /// this module, and every read from another (the server's connections,
    /// the upstream pool: about ten per proxied request) paid the run-time
    /// exclusivity check. Written by the loop thread only.
    @inlinable public var now: UInt64 { nowStorage[0] }

    /// How many times a wait for events has returned, read like `now`;
    /// counted before the events are handled. To a timer or queued work,
    /// a descriptor watched since before the current count has had
    /// whatever waited on it at the last wait reported and handled (the
    /// loop's epoll is level-triggered).
    @inlinable public var passes: UInt64 { nowStorage[1] }

    /// `now`, then `passes`.
    @usableFromInline let nowStorage: UnsafeMutablePointer<UInt64>

    /// See `waitForEvents`.
    static let pollsBeforeSleeping = 2
    /// A wait that brings this many events or more makes the loop busy.
    static let busyBatch: Int32 = 6
    /// Polls made after yielding, over the loop's life (loop thread only).
    var yieldedPolls: Int { state.yieldedPolls }

    /// A loop reading `clock` (the monotonic clock unless a test moves time itself).
    public init(index: Int = 0, clock: any LoopClock = MonotonicClock()) throws(SystemError) {
        self.index = index
        self.clock = clock
        monotonic = clock is MonotonicClock
        epollFD = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do {
            wakeFD = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            Glibc.close(epollFD)
            throw error
        }
        nowStorage = .allocate(capacity: 2)
        nowStorage.initialize(to: clock.now())
        (nowStorage + 1).initialize(to: 0)
        state = State(eventBuffer: [epoll_event](repeating: epoll_event(), count: 512))
        var event = epoll_event()
        csystem_epoll_event_set(&event, EPOLLIN.rawValue, 0)
        _ = retryingEINTR { epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) }
    }

    deinit {
        Glibc.close(wakeFD)
        Glibc.close(epollFD)
        nowStorage.deallocate()
    }

    /// Whether the caller runs on this loop's thread.
    @inline(__always)
    public var inLoop: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Traps in debug builds when called off the loop's thread.
    @inline(__always)
    public func assertInLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inLoop, "called off the loop thread", file: file, line: line)
    }

    // MARK: Registrations

    /// Adds `fd` to this loop's epoll set. The handler is kept until
    /// `deregister`; the caller still owns and later closes the descriptor.
    public func register(_ fd: Int32, for events: EpollEvents, handler: any EventLoopHandler) throws(SystemError) -> Registration {
        assertInLoop()
        let id = state.handlers.insert(handler)
        var event = epoll_event()
        csystem_epoll_event_set(&event, events.rawValue, id)
        do {
            _ = try systemCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
        } catch {
            state.handlers.remove(id)
            throw error
        }
        return Registration(id: id)
    }

    /// Changes which events wake the handler.
    public func modify(_ registration: Registration, fd: Int32, for events: EpollEvents) {
        assertInLoop()
        var event = epoll_event()
        csystem_epoll_event_set(&event, events.rawValue, registration.id)
        _ = retryingEINTR { epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) }
    }

    /// Removes `fd` from the epoll set and drops its handler. Call before
    /// closing the descriptor.
    public func deregister(_ registration: Registration, fd: Int32) {
        assertInLoop()
        _ = retryingEINTR { epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }
        state.handlers.remove(registration.id)
    }

    // MARK: Work from anywhere

    /// Runs `work` on the loop thread: later in this iteration when called
    /// on the loop, else after waking the loop.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        if inLoop {
            state.localWork.append(work)
        } else {
            remote.withLock { $0.work.append(work) }
            wake()
        }
    }

    /// Runs `body` on the loop thread and returns its result.
    public func submit<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        if inLoop { return body() }
        return await withCheckedContinuation { continuation in
            execute { continuation.resume(returning: body()) }
        }
    }

    func wake() {
        if wakePending.exchange(true, ordering: .acquiringAndReleasing) { return }
        var one: UInt64 = 1
        _ = retryingEINTR { Glibc.write(wakeFD, &one, 8) }
    }

    // MARK: Timers

    /// Calls `action` on the loop thread after `delay`. Loop thread only.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> UInt64 {
        assertInLoop()
        let id = nextTimer
        nextTimer += 1
        let deadline = readClock() &+ delay.nanoseconds
        timers.insert(.init(deadline: deadline, id: id, action: action))
        state.earliestTimer = min(state.earliestTimer, deadline)
        return id
    }

    /// Cancels timer `id` (from `schedule`); one already run or cancelled is ignored.
    public func cancelTimer(_ id: UInt64) {
        assertInLoop()
        timers.cancel(id)
    }

    // MARK: Running

    /// Asks the loop to return from `run` after its current iteration.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        wake()
    }

    /// Runs the loop on the calling thread until `stop`.
    public func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        defer { threadID.store(0, ordering: .relaxed) }
        while !stopRequested.load(ordering: .acquiring) {
            let count = waitForEvents()
            nowStorage[0] = readClock()
            nowStorage[1] &+= 1
            if count > 0 { dispatch(count) }
            runDueTimers()
            runQueuedWork()
        }
    }

    /// Waits for events. A busy loop takes the events already waiting, if
    /// any; with none, before sleeping, it yields its core and polls again,
    /// up to `pollsBeforeSleeping` times: saturated, the peer
    /// on the other end (a load generator, a proxy, an upstream sharing
    /// the cores) often has the next request ready by then, and the loop
    /// skips a sleep and the wake-up after it (the scheduler on both
    /// sides, an inter-processor interrupt, on a virtual machine an exit).
    /// Only busy: under a moderate load a yield hands the core to another
    /// runnable thread for its whole time slice while requests wait, which
    /// stretched the latency tail. The loop is busy from a wait that
    /// brought `busyBatch` events or more, for as long as its polls find
    /// more; a wait that sleeps decides again. Docs/performance.md has the
    /// figures it sets.
    private func waitForEvents() -> Int32 {
        let timeout = waitTimeout()
        if timeout != 0, state.busy {
            // Work already waiting first: a yield would hand the core to
            // another thread with that work still queued behind it.
            let pending = poll(timeout: 0)
            if pending != 0 { return pending }
            for _ in 0..<Self.pollsBeforeSleeping {
                sched_yield()
                state.yieldedPolls &+= 1
                let count = poll(timeout: 0)
                if count != 0 { return count }
            }
        }
        let count = poll(timeout: timeout)
        state.busy = count >= Self.busyBatch
        return count
    }

    /// One `epoll_wait`, not retried: a wait cut short by a signal (-1,
    /// EINTR) counts as no events, and the loop comes round again.
    private func poll(timeout: Int32) -> Int32 {
        state.eventBuffer.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeout)
        }
    }

    private func dispatch(_ count: Int32) {
        for i in 0..<Int(count) {
            let id = csystem_epoll_event_u64(&state.eventBuffer[i])
            let bits = csystem_epoll_event_events(&state.eventBuffer[i])
            if id == 0 {
                var value: UInt64 = 0
                _ = retryingEINTR { Glibc.read(wakeFD, &value, 8) }
                wakePending.store(false, ordering: .releasing)
            } else if let handler = state.handlers.handler(id) {
                handler.handleEvents(EpollEvents(rawValue: bits))
            }
        }
    }

    private func waitTimeout() -> Int32 {
        if !state.localJobs.isEmpty || !state.localWork.isEmpty { return 0 }
        let deadline = state.earliestTimer
        guard deadline != .max else { return -1 }
        let current = readClock()
        guard deadline > current else { return 0 }
        // Round up so a timer is never woken a hair early and spun on.
        return Int32(clamping: (deadline - current + 999_999) / 1_000_000)
    }

    @inline(__always)
    private func readClock() -> UInt64 {
        monotonic ? MonotonicClock.now() : clock.now()
    }

    /// Runs the timers due by the clock's reading now, and what they
    /// queue, on the loop thread; returns when they have run. For a test
    /// that moved a `ManualLoopClock`: a loop notices a moved clock
    /// only when something wakes it.
    public func runExpiredTimers() async {
        await submit {
            self.nowStorage[0] = self.clock.now()
            self.runDueTimers()
        }
        await submit {}
    }

    private func runDueTimers() {
        guard state.earliestTimer <= now else { return }
        let due = timers.popDue(now: now)
        state.earliestTimer = timers.nextDeadline() ?? .max
        // An action may schedule more: `schedule` lowers `earliestTimer`.
        for entry in due { entry.action() }
    }
}
