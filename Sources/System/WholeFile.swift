#if canImport(Glibc)
import Glibc
#endif

/// Reads a small file whole with `open` and `read`, for start-up work
/// (configuration files, secrets): blocking, never on an event loop.
public enum WholeFile {
    /// Why a file could not be read.
    public enum Problem: Error, Equatable, Sendable {
        /// No such file (or a path component is not a directory).
        case missing
        /// It exists but cannot be opened or read: the call's errno.
        case unreadable(errno: Int32)
        /// It is larger than the limit given.
        case tooLarge(limit: Int)
    }

    /// The file's bytes; a file larger than `limit` bytes is refused.
    public static func read(atPath path: String, limit: Int) -> Result<[UInt8], Problem> {
        let descriptor = retryingEINTR { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let code = currentErrno()
            return .failure(code == ENOENT || code == ENOTDIR ? .missing : .unreadable(errno: code))
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingEINTR { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
            }
            guard count >= 0 else { return .failure(.unreadable(errno: currentErrno())) }
            if count == 0 { return .success(bytes) }
            guard bytes.count + count <= limit else { return .failure(.tooLarge(limit: limit)) }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
