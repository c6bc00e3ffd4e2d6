import System

/// The tasks that answer one loop's requests. A worker takes a request,
/// awaits the responder, sends the response (a streamed body included) and
/// takes the next; with nothing queued it waits, idle, for one. A request
/// that finds no idle worker gets a new one, so a handler that suspends
/// (on Redis, on an upstream) never holds up another request.
///
/// Why not a task per request: creating a task, and the allocator slabs
/// its handler's frames need, cost about a tenth of a proxied request's
/// CPU here; a worker keeps its slabs from one request to the next. Why not
/// a task per connection: each idle keep-alive connection would keep a
/// suspended task and its slabs, about 9 KiB (10,000 idle connections took
/// 116 MiB instead of 29). Idle workers are capped per loop
/// (`HTTPServerConfiguration.maxIdleWorkers`); a worker that finds the cap
/// reached ends.
///
/// Touched only on the loop thread; workers run there
/// (`Task(executorPreference: loop)`).
final class RequestWorkers {
    /// A request and the connection that waits for its answer.
    /// `@unchecked Sendable`: handed from the loop to a worker task that
    /// runs on the same loop thread, and touched only there.
    struct Work: @unchecked Sendable {
        let connection: HTTPConnection
        let request: HTTPRequest
    }

    private let loop: EventLoop
    private let responder: HTTPResponder
    private let stats: HTTPServerStats
    private let maxIdle: Int
    /// The queued requests and the idle workers (see `State`).
    ///
    /// `@exclusivity(unchecked)`: changed on the loop thread only, by
    /// appends and removals that return what they remove (nothing is freed
    /// inside the access, so no deinit can reach back), so the run-time
    /// check could never fire (see EventLoop).
    @exclusivity(unchecked) private var state = State()
    /// The next slot of `state.queue` to take.
    private var head = 0
    /// Workers created that have not yet taken their first request.
    private var starting = 0
    private var closed = false

    init(loop: EventLoop, responder: @escaping HTTPResponder, stats: HTTPServerStats, maxIdle: Int) {
        self.loop = loop
        self.responder = responder
        self.stats = stats
        self.maxIdle = maxIdle
    }

    /// Hands `request` to an idle worker, or queues it for one.
    func submit(_ request: consuming HTTPRequest, from connection: HTTPConnection) {
        let work = Work(connection: connection, request: request)
        if let worker = state.idle.popLast() {
            worker.resume(returning: work)
            return
        }
        state.queue.append(work)
        // A request pipelined behind the response its connection's worker
        // is finishing now is taken by that worker next: it needs no new one.
        let comingBack = connection.answering ? 1 : 0
        if state.queue.count - head > starting + comingBack { startWorker() }
    }

    /// Ends the idle workers; busy ones end after their request.
    func close() {
        closed = true
        let waiting = state.idle
        state.idle.removeAll()
        for worker in waiting { worker.resume(returning: nil) }
    }

    private func startWorker() {
        starting += 1
        stats.workersStarted.add(1, ordering: .relaxed)
        let workers = LoopBound(self, loop: loop)
        let responder = self.responder
        Task(executorPreference: loop) {
            let this = workers.valueInLoop
            this.starting -= 1
            while true {
                // The wait is written here, not in an async method: each
                // async frame costs an executor switch per request.
                let work: Work
                if let queued = this.takeQueued() {
                    work = queued
                } else if this.mayWaitIdle {
                    guard let handed = await withUnsafeContinuation({ this.state.idle.append($0) }) else { return }
                    work = handed
                } else {
                    return
                }
                let response = await responder(work.request)
                let connection = work.connection
                connection.answering = true
                if let producer = connection.send(response) { await connection.stream(producer) }
                connection.answering = false
            }
        }
    }

    /// The oldest request no worker has taken, if any.
    private func takeQueued() -> Work? {
        guard head < state.queue.count else { return nil }
        let work = state.queue[head]
        state.queue[head] = nil
        head += 1
        if head == state.queue.count {
            state.queue.removeAll(keepingCapacity: state.queue.capacity <= 1024)
            head = 0
        }
        return work
    }

    /// Whether a worker with nothing to do may wait; else it ends.
    private var mayWaitIdle: Bool { !closed && state.idle.count < maxIdle }
}

extension RequestWorkers {
    /// What the workers' loop changes in place on every request: held in
    /// one unchecked property (see `RequestWorkers.state`).
    private struct State {
        /// Requests no worker has taken yet, oldest first from `head`; a
        /// taken slot is cleared, so it does not keep its connection alive.
        var queue: [Work?] = []
        /// Idle workers, the most recently used last.
        var idle: [UnsafeContinuation<Work?, Never>] = []
    }
}
