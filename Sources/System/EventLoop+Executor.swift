/// An event loop is a task executor: a task started with
/// `Task(executorPreference: loop)` runs its non-isolated code on the loop
/// thread, so a request handler and the connection it answers share one
/// thread and a response is written without a thread hop.
extension EventLoop: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if inLoop {
            localJobs.append(job)
        } else {
            remote.withLock { $0.jobs.append(job) }
            wake()
        }
    }

    /// Runs queued closures and task jobs. Bounded per call so a storm of
    /// work cannot starve I/O; what is left runs after the next poll, which
    /// then does not block.
    func runQueuedWork() {
        let (jobs, work) = remote.withLock { queue in
            defer { queue.jobs.removeAll(keepingCapacity: true); queue.work.removeAll(keepingCapacity: true) }
            return (queue.jobs, queue.work)
        }
        localJobs.append(contentsOf: jobs)
        for item in work { item() }
        var rounds = 0
        while rounds < 64, !(localJobs.isEmpty && localWork.isEmpty) {
            rounds += 1
            let pendingWork = localWork
            localWork.removeAll(keepingCapacity: true)
            for item in pendingWork { item() }
            let pendingJobs = localJobs
            localJobs.removeAll(keepingCapacity: true)
            let executor = asUnownedTaskExecutor()
            for job in pendingJobs { job.runSynchronously(on: executor) }
        }
    }
}
