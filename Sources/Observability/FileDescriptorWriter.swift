#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import System

/// Writes whole lines to a file descriptor it does not own (stdout, stderr).
///
/// Each line goes out in one `write(2)` when the kernel takes it all, which
/// keeps lines whole in a pipe; a lock makes the rare partial write finish
/// before another thread's line starts. `EINTR` is retried, `EAGAIN` (a
/// non-blocking descriptor) waits with `poll` for up to a second, and any
/// other error drops the line: logging never takes the process down.
final class FileDescriptorWriter: Sendable {
    let descriptor: Int32
    private let lock = Mutex<Void>(())

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes `bytes` in full, or as much as the descriptor accepts.
    func write(_ bytes: UnsafeRawBufferPointer) {
        lock.withLock { _ in
            guard var next = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                let written = retryingEINTR { Glibc.write(descriptor, next, remaining) }
                if written >= 0 {
                    next += written
                    remaining -= written
                    continue
                }
                switch currentErrno() {
                case EAGAIN, EWOULDBLOCK:
                    var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    guard poll(&waiting, 1, 1000) > 0 else { return }
                default:
                    return
                }
            }
        }
    }
}
