#if canImport(Glibc)
import Glibc
#endif

/// A file opened for reading, read at offsets (`pread`), closed when the
/// last reference goes. Every call blocks: callers keep it off the loop
/// threads and the cooperative pool (a serial Dispatch queue of their own).
public final class ReadOnlyFile: Sendable {
    private let descriptor: Int32
    /// The open file's status, taken from the descriptor as it was opened:
    /// a rename or replacement after the open does not change what is read.
    public let status: FileStatus

    /// Opens `path` for reading; a final component that is a symbolic
    /// link is refused (`O_NOFOLLOW`), so a caller that resolved and
    /// checked the path reads what it checked.
    public init(path: String) throws(SystemError) {
        let descriptor = try systemCall("open") { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        var info = stat()
        guard retryingEINTR({ fstat(descriptor, &info) }) == 0 else {
            let code = currentErrno()
            Glibc.close(descriptor)
            throw SystemError("fstat", errno: code)
        }
        self.descriptor = descriptor
        status = FileStatus(info)
    }

    deinit { Glibc.close(descriptor) }

    /// Up to `count` bytes from `offset`; fewer only at the file's end.
    public func read(at offset: Int, count: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                retryingEINTR { pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled)) }
            }
            if got < 0 { throw SystemError("pread", errno: currentErrno()) }
            if got == 0 { break }
            filled += got
        }
        if filled < count { bytes.removeLast(count - filled) }
        return bytes
    }
}
