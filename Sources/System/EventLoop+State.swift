import CSystem
#if canImport(Glibc)
import Glibc
#endif

extension EventLoop {
    /// What only the loop thread reads and writes, changed in place on
    /// every iteration: the handlers, the queues of work and task jobs
    /// started on the loop, the earliest timer deadline, the buffer
    /// `epoll_wait` fills, and whether the loop is busy. Held by the loop
    /// in one unchecked property (see `EventLoop.state`).
    struct State {
        var handlers = HandlerTable()
        var localJobs: [UnownedJob] = []
        var localWork: [@Sendable () -> Void] = []
        /// Spare buffers the local queues are swapped with while what they
        /// held runs (and queues more), so neither is copied or reallocated.
        var runningJobs: [UnownedJob] = []
        var runningWork: [@Sendable () -> Void] = []
        /// The earliest deadline in `timers`, cancelled timers included (one
        /// of those wakes the loop once, early, and is dropped); `.max` for
        /// none. Read twice per iteration; the heap itself only when due.
        var earliestTimer: UInt64 = .max
        var eventBuffer: [epoll_event]
        /// Whether the loop polls before it sleeps.
        var busy = false
        /// Polls made after yielding, over the loop's life.
        var yieldedPolls = 0

        /// Moves the queued work to `runningWork`, leaving an empty queue.
        mutating func takeWork() {
            swap(&localWork, &runningWork)
        }

        /// Moves the queued task jobs to `runningJobs`, leaving an empty queue.
        mutating func takeJobs() {
            swap(&localJobs, &runningJobs)
        }
    }
}
