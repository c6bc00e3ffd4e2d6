import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which call, and the errno it left.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        let text = strerror(errno).map { String(cString: $0) } ?? "errno \(errno)"
        return "\(call): \(text)"
    }

    public var wouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }
}
