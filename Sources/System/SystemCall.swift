import CSystem
#if canImport(Glibc)
import Glibc
#endif

// Every system call of the project goes through one of these two: the
// call is retried while it fails with `EINTR`, and errno is read at once,
// while it still belongs to this call. `close` is the exception: on Linux
// the descriptor is gone even when it reports EINTR, so it is never retried.

/// Runs a system call, retrying on EINTR; any other result, -1 included,
/// is returned (the caller reads ``currentErrno()`` next).
@inline(__always)
public func retryingEINTR<T: FixedWidthInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1, csystem_errno() == EINTR { continue }
        return result
    }
}

/// Runs a system call, retrying on EINTR, and turns a -1 into a typed error.
@inline(__always)
public func systemCall<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
    let result = retryingEINTR(body)
    if result == -1 { throw SystemError(name, errno: csystem_errno()) }
    return result
}

/// The errno of the calling thread, read through a function because errno
/// is a macro over thread-local storage.
@inline(__always)
public func currentErrno() -> Int32 { csystem_errno() }
