import Glibc
import System

/// CPU time of the calling thread, in nanoseconds.
public func threadCPUTime() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// CPU time `loop`'s thread spends over `milliseconds` of the test's
/// sleep, in nanoseconds: near nothing for a loop with nothing to do, most
/// of the span for one that spins.
public func loopCPUTime(of loop: EventLoop, over milliseconds: Int) async throws -> UInt64 {
    let before = await loop.submit { threadCPUTime() }
    try await Task.sleep(for: .milliseconds(milliseconds))
    let after = await loop.submit { threadCPUTime() }
    return after - before
}
