import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// The device, inode and status-change time of a file: which socket file a
/// listener made, so that it removes only its own at shutdown, never a
/// successor's (which may get the same inode back).
public struct FileIdentity: Sendable, Hashable {
    let device: UInt64
    let inode: UInt64
    let changed: Int64
}

extension Socket {
    /// A non-blocking listening Unix-domain stream socket at `file.path`,
    /// its mode and group set before `listen` (so no peer connects before
    /// they apply). A socket file left by an earlier run is replaced when
    /// nothing listens on it; a live socket gives `EADDRINUSE`, any other
    /// kind of file `EEXIST` (it is never removed).
    public static func listen(on file: UnixSocketFile, backlog: Int32 = 4096) throws(SystemError) -> (fd: Int32, identity: FileIdentity) {
        try removeStaleSocket(at: file.path)
        let fd = try systemCall("socket") {
            Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        var bound = false
        do throws(SystemError) {
            _ = try withUnixAddress(file.path) { (sa, len) throws(SystemError) in
                try systemCall("bind \(file.path)") { Glibc.bind(fd, sa, len) }
            }
            bound = true
            _ = try systemCall("chmod \(file.path)") { Glibc.chmod(file.path, mode_t(file.mode)) }
            if let group = file.group {
                _ = try systemCall("chown \(file.path)") { Glibc.chown(file.path, uid_t.max, gid_t(group)) }
            }
            guard let identity = fileIdentity(file.path) else { throw SystemError("stat \(file.path)", errno: currentErrno()) }
            _ = try systemCall("listen") { Glibc.listen(fd, backlog) }
            return (fd, identity)
        } catch {
            Glibc.close(fd)
            // Only a file this call made: a failed bind leaves whatever is there.
            if bound { _ = Glibc.unlink(file.path) }
            throw error
        }
    }

    /// Removes the socket file at `path` if it is still the one `identity`
    /// names.
    public static func removeSocketFile(_ path: String, identity: FileIdentity) {
        guard fileIdentity(path) == identity else { return }
        _ = Glibc.unlink(path)
    }

    /// Nothing at `path`, or a socket nobody listens on (then removed).
    private static func removeStaleSocket(at path: String) throws(SystemError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = currentErrno()
            if code == ENOENT { return }
            throw SystemError("stat \(path)", errno: code)
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw SystemError("\(path) exists and is not a socket; not replacing it", errno: EEXIST)
        }
        guard !isListening(path) else { throw SystemError("bind \(path)", errno: EADDRINUSE) }
        _ = try systemCall("unlink \(path)") { Glibc.unlink(path) }
    }

    /// Whether a connect to the socket at `path` reaches a listener (a
    /// full backlog counts as one).
    private static func isListening(_ path: String) -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        let rc = try? withUnixAddress(path) { (sa, len) throws(SystemError) in retryingEINTR { Glibc.connect(fd, sa, len) } }
        guard let rc else { return false }
        return rc == 0 || currentErrno() == EAGAIN
    }

    private static func fileIdentity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// Calls `body` with `path` as a `sockaddr_un`; `ENAMETOOLONG` when it
    /// does not fit.
    private static func withUnixAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R) throws(SystemError) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= UnixSocketFile.maxPathBytes else { throw SystemError("bind \(path)", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return try withUnsafePointer(to: &address) { (p) throws(SystemError) -> R in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(SystemError) -> R in
                try body(sa, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// A new descriptor for the same open socket (close-on-exec), so each
    /// event loop can watch and close its own.
    public static func duplicate(_ fd: Int32) throws(SystemError) -> Int32 {
        try systemCall("fcntl") { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
    }

    /// The id of the group named `name` (or written as a number); nil when
    /// there is none.
    public static func groupID(_ name: String) -> UInt32? {
        if let id = UInt32(name) { return id }
        guard let entry = getgrnam(name) else { return nil }
        return UInt32(entry.pointee.gr_gid)
    }
}
