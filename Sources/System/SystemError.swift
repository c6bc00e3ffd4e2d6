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

/// Runs a system call, retrying on EINTR, and turns a -1 into a typed error
/// at once, while errno still belongs to this call.
@inline(__always)
public func systemCall<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = csystem_errno()
        if code == EINTR { continue }
        throw SystemError(name, errno: code)
    }
}

/// The errno of the calling thread, read through a function because errno
/// is a macro over thread-local storage.
@inline(__always)
public func currentErrno() -> Int32 { csystem_errno() }
