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
        remote.withLock { queue in
            if !queue.jobs.isEmpty {
                localJobs.append(contentsOf: queue.jobs)
                queue.jobs.removeAll(keepingCapacity: true)
            }
            if !queue.work.isEmpty {
                localWork.append(contentsOf: queue.work)
                queue.work.removeAll(keepingCapacity: true)
            }
        }
        var rounds = 0
        while rounds < 64, !(localJobs.isEmpty && localWork.isEmpty) {
            rounds += 1
            // Swapped with spare buffers, so neither queue is copied or
            // reallocated while what it held runs (and queues more).
            swap(&localWork, &runningWork)
            for item in runningWork { item() }
            runningWork.removeAll(keepingCapacity: true)
            swap(&localJobs, &runningJobs)
            let executor = asUnownedTaskExecutor()
            for job in runningJobs { job.runSynchronously(on: executor) }
            runningJobs.removeAll(keepingCapacity: true)
        }
    }
}
