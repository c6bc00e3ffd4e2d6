import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// The outcome of a non-blocking read or write.
public enum IOResult: Equatable, Sendable {
    case done(Int)
    case wouldBlock
    /// The peer finished sending: a read found the end of the stream.
    case closed
    /// The socket failed: the peer reset the connection, or it is gone for
    /// another reason (`errno`). Unlike `.closed`, what was read before
    /// may be missing its end.
    case failed(errno: Int32)
}

/// Thin, typed wrappers over the socket system calls. Every function takes
/// or returns a raw descriptor; ownership lives with the caller's type
/// (a listener or a connection), which closes it exactly once.
public enum Socket {
    /// Throws `EADDRINUSE` when something listens on `address` already.
    /// Listeners sharing a port through `SO_REUSEPORT` would let a second
    /// process with the same user join the port group without an error
    /// (and take half the connections); a bind without that option, made
    /// and closed first, refuses to share.
    public static func checkUnused(_ address: SocketAddress) throws(SystemError) {
        let fd = try listen(on: address, reusePort: false, listening: false)
        Glibc.close(fd)
    }

    /// A non-blocking listening TCP socket bound to `address`.
    public static func listen(on address: SocketAddress, reusePort: Bool, backlog: Int32 = 4096,
                              listening: Bool = true) throws(SystemError) -> Int32 {
        let family = address.ip.isIPv4 ? AF_INET : AF_INET6
        let fd = try systemCall("socket") {
            Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if reusePort { try setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1) }
            if family == AF_INET6 {
                // `::` listens on IPv4 too (dual-stack); a specific IPv6 address does not.
                let dualStack = address.ip == .v6(high: 0, low: 0)
                try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, dualStack ? 0 : 1)
            }
            _ = try address.withSockAddr { (sa, len) throws(SystemError) in
                try systemCall("bind") { Glibc.bind(fd, sa, len) }
            }
            if listening { _ = try systemCall("listen") { Glibc.listen(fd, backlog) } }
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// Accepts one connection, non-blocking and close-on-exec; nil when none
    /// is waiting.
    public static func accept(_ listener: Int32) throws(SystemError) -> (fd: Int32, peer: SocketAddress?)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                retryingEINTR { accept4(listener, sa, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)) }
            }
        }
        if fd < 0 {
            let code = currentErrno()
            if code == EAGAIN || code == EWOULDBLOCK || code == ECONNABORTED { return nil }
            throw SystemError("accept4", errno: code)
        }
        return (fd, SocketAddress(storage: storage))
    }

    /// Starts a non-blocking, close-on-exec TCP connection to `address`
    /// (with TCP_NODELAY). `inProgress` true: wait for writability, then
    /// read `pendingError`.
    public static func connect(to address: SocketAddress) throws(SystemError) -> (fd: Int32, inProgress: Bool) {
        let family = address.ip.isIPv4 ? AF_INET : AF_INET6
        let fd = try systemCall("socket") {
            Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        setNoDelay(fd)
        let rc = try address.withSockAddr { (sa, len) throws(SystemError) in Glibc.connect(fd, sa, len) }
        if rc == 0 { return (fd, false) }
        let code = currentErrno()
        if code == EINPROGRESS || code == EINTR { return (fd, true) }
        Glibc.close(fd)
        throw SystemError("connect", errno: code)
    }

    /// The outcome of a non-blocking connect once the socket is writable:
    /// 0 when it succeeded, else its errno.
    public static func pendingError(_ fd: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return currentErrno() }
        return code
    }

    /// The address a socket is bound to (to learn an ephemeral port).
    public static func localAddress(_ fd: Int32) throws(SystemError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { (p) throws(SystemError) in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(SystemError) in
                try systemCall("getsockname") { getsockname(fd, sa, &length) }
            }
        }
        guard let address = SocketAddress(storage: storage) else { throw SystemError("getsockname", errno: EAFNOSUPPORT) }
        return address
    }

    /// Marks a descriptor a library opened close-on-exec, so a child
    /// process never inherits it (and with it, the connection).
    public static func setCloseOnExec(_ fd: Int32) {
        _ = retryingEINTR { fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    /// Turns on TCP keep-alive probes (after 15 s idle, every 5 s, 3
    /// tries), so a peer that vanished without a reset is noticed on an
    /// idle connection too.
    public static func setKeepAlive(_ fd: Int32) {
        try? setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, 15)
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, 5)
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, 3)
    }

    public static func setNoDelay(_ fd: Int32) {
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }

    /// Reads into `buffer`; `.closed` at the end of the stream, `.failed`
    /// on a reset or another error.
    @inline(__always)
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        let n = retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        if n > 0 { return .done(n) }
        if n == 0 { return .closed }
        let code = currentErrno()
        return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .failed(errno: code)
    }

    /// Writes from `buffer`; `.failed` when the peer is gone.
    @inline(__always)
    public static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer) -> IOResult {
        let n = retryingEINTR { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
        if n >= 0 { return .done(n) }
        let code = currentErrno()
        return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .failed(errno: code)
    }

    /// Whether a connected socket has nothing waiting to be read and its
    /// peer has not closed: a one-byte `recv` with `MSG_PEEK`, which leaves
    /// whatever is there in place.
    public static func isQuiet(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let n = retryingEINTR { Glibc.recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) }
        guard n < 0 else { return false }
        let code = currentErrno()
        return code == EAGAIN || code == EWOULDBLOCK
    }

    /// Closes a descriptor. The caller must already have removed it from
    /// any epoll set.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Stops further sends; the peer reads end of stream after what was sent.
    public static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Makes the next `close` reset the connection (`SO_LINGER` 0) instead
    /// of ending it with a FIN: the peer then sees a failure, not an end.
    public static func resetOnClose(_ fd: Int32) {
        var abort = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SystemError) {
        var value = value
        _ = try systemCall("setsockopt") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }
}
