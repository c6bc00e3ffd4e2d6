/// A Unix-domain stream listener's file: where it lives and who may
/// connect. Connecting needs write permission on the file, so its mode
/// and group decide which local users can reach the listener.
public struct UnixSocketFile: Sendable, Hashable, CustomStringConvertible {
    /// The longest path `sockaddr_un.sun_path` holds (108 bytes less the
    /// terminating NUL).
    public static let maxPathBytes = 107

    /// An absolute path.
    public var path: String
    /// Permission bits set on the file before the first accept (`0o660`).
    public var mode: UInt32
    /// The file's group (a numeric id); nil keeps the process's group.
    public var group: UInt32?

    /// A socket file at `path`; mode `0o660` and the process's group unless given.
    public init(path: String, mode: UInt32 = 0o660, group: UInt32? = nil) {
        self.path = path
        self.mode = mode
        self.group = group
    }

    /// `unix:/run/modgud-bff/public.sock`.
    public var description: String { "unix:\(path)" }
}
