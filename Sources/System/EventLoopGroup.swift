import Foundation
import Synchronization

/// A fixed set of event loops, one thread each (one per core by default).
/// Created by `main` and passed down; there is no process-wide group.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let finished: [DispatchSemaphore]
    private let cursor = Atomic<Int>(0)

    /// Creates `count` loops and starts a thread for each.
    public init(loops count: Int, name: String = "loop") throws(SystemError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, count) { loops.append(try EventLoop(index: index)) }
        self.loops = loops
        finished = loops.map { _ in DispatchSemaphore(value: 0) }
        for (loop, done) in zip(loops, finished) {
            let thread = Thread {
                loop.run()
                done.signal()
            }
            thread.name = "\(name)-\(loop.index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// The loops in turn, for spreading work that has no affinity.
    public func next() -> EventLoop {
        loops[cursor.add(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Stops every loop and waits for their threads to end.
    public func shutdown() {
        for loop in loops { loop.stop() }
        for done in finished { done.wait() }
    }
}
