#if canImport(Glibc)
import Glibc
#endif

/// What `stat` says about a file: its kind, its size, and what tells one
/// version of it from the next (device, inode, modification time).
public struct FileStatus: Sendable, Equatable {
    /// The kinds of file a server tells apart.
    public enum Kind: Sendable, Equatable {
        /// A regular file.
        case regular
        /// A directory.
        case directory
        /// Anything else (a device, a socket, a FIFO).
        case other
    }

    /// Its kind (a symbolic link is followed).
    public let kind: Kind
    /// Its size in bytes.
    public let size: Int
    /// The device holding it.
    public let device: UInt64
    /// Its inode on that device.
    public let inode: UInt64
    /// Its last modification, in nanoseconds since the epoch.
    public let modified: Int64

    /// A status made of its parts (for tests and callers that know them).
    public init(kind: Kind, size: Int, device: UInt64, inode: UInt64, modified: Int64) {
        self.kind = kind
        self.size = size
        self.device = device
        self.inode = inode
        self.modified = modified
    }

    init(_ info: stat) {
        let format = info.st_mode & S_IFMT
        kind = format == S_IFREG ? .regular : format == S_IFDIR ? .directory : .other
        size = Int(info.st_size)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// The status of the file at `path`, symbolic links followed; nil when
    /// there is none or it cannot be read. Blocking: never on a loop thread.
    public static func of(path: String) -> FileStatus? {
        var info = stat()
        guard retryingEINTR({ stat(path, &info) }) == 0 else { return nil }
        return FileStatus(info)
    }

    /// `path` with every symbolic link, `.` and `..` resolved (`realpath`),
    /// or nil when some part of it does not exist. Blocking.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
