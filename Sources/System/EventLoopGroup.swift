import CSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of event loops, one thread each (one per core by default).
/// Created by `main` and passed down; there is no process-wide group.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let threads: Mutex<[pthread_t]>
    private let cursor = Atomic<Int>(0)

    /// Creates `count` loops reading `clock` and starts a thread for each.
    public init(loops count: Int, name: String = "loop", clock: any LoopClock = MonotonicClock()) throws(SystemError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, count) { loops.append(try EventLoop(index: index, clock: clock)) }
        self.loops = loops
        var threads: [pthread_t] = []
        for loop in loops {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(LoopThreadContext(loop: loop, name: "\(name)-\(loop.index)")).toOpaque()
            let result = pthread_create(&thread, nil, runLoopThread, context)
            guard result == 0 else {
                Unmanaged<LoopThreadContext>.fromOpaque(context).release()
                loops.forEach { $0.stop() }
                threads.forEach { pthread_join($0, nil) }
                throw SystemError("pthread_create", errno: result)
            }
            threads.append(thread)
        }
        self.threads = Mutex(threads)
    }

    /// Runs every loop's timers due by the clock's reading now (see
    /// `EventLoop.runExpiredTimers`).
    public func runExpiredTimers() async {
        for loop in loops { await loop.runExpiredTimers() }
    }

    /// The loops in turn, for spreading work that has no affinity.
    public func next() -> EventLoop {
        loops[cursor.add(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Stops every loop and waits for their threads to end. Idempotent.
    public func shutdown() {
        for loop in loops { loop.stop() }
        let threads = self.threads.withLock { threads in
            defer { threads.removeAll() }
            return threads
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}

/// What a loop thread needs; passed through pthread_create's context
/// pointer, retained once there and released once by the thread.
private final class LoopThreadContext {
    let loop: EventLoop
    let name: String

    init(loop: EventLoop, name: String) {
        self.loop = loop
        self.name = name
    }
}

/// The body of a loop thread. A global function, not a closure: a
/// `@convention(c)` callback cannot capture, and one written in main.swift
/// would inherit main-actor isolation.
private func runLoopThread(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let context = Unmanaged<LoopThreadContext>.fromOpaque(raw!).takeRetainedValue()
    _ = pthread_setname_np(pthread_self(), String(context.name.prefix(15)))
    context.loop.run()
    return nil
}
