#if canImport(Glibc)
import Glibc
#endif
import System

extension LogSink {
    /// Lines appended to the file at `path`, created (mode 0640) when
    /// missing and opened once, for append, for the life of the process:
    /// rotate it by copying and truncating, or restart the gateway. Throws
    /// the `open(2)` error.
    public static func appending(toFile path: String) throws(SystemError) -> LogSink {
        let descriptor = retryingEINTR { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640) }
        guard descriptor >= 0 else { throw SystemError("open", errno: currentErrno()) }
        return LogSink(target: .descriptor(FileDescriptorWriter(descriptor: descriptor)))
    }
}
