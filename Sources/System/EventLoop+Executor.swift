/// An event loop is a task executor: a task started with
/// `Task(executorPreference: loop)` runs its non-isolated code on the loop
/// thread, so a request handler and the connection it answers share one
/// thread and a response is written without a thread hop.
extension EventLoop: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if inLoop {
            state.localJobs.append(job)
        } else {
            remote.withLock { $0.jobs.append(job) }
            wake()
        }
    }

    /// Runs queued closures and task jobs. Bounded per call so a storm of
    /// work cannot starve I/O; what is left runs after the next poll, which
    /// then does not block.
    func runQueuedWork() {
        remote.withLock { queue in
            if !queue.jobs.isEmpty {
                state.localJobs.append(contentsOf: queue.jobs)
                queue.jobs.removeAll(keepingCapacity: true)
            }
            if !queue.work.isEmpty {
                state.localWork.append(contentsOf: queue.work)
                queue.work.removeAll(keepingCapacity: true)
            }
        }
        var rounds = 0
        while rounds < 64, !(state.localJobs.isEmpty && state.localWork.isEmpty) {
            rounds += 1
            // Swapped with spare buffers, so neither queue is copied or
            // reallocated while what it held runs (and queues more).
            state.takeWork()
            for item in state.runningWork { item() }
            state.runningWork.removeAll(keepingCapacity: true)
            state.takeJobs()
            let executor = asUnownedTaskExecutor()
            for job in state.runningJobs { job.runSynchronously(on: executor) }
            state.runningJobs.removeAll(keepingCapacity: true)
        }
    }
}
