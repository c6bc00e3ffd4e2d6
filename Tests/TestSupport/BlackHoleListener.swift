#if canImport(Glibc)
import Glibc
#endif

/// A listener on 127.0.0.1 that never accepts, with its one-place queue
/// filled: the kernel drops every further SYN, so a client's connect
/// hangs until its own timeout, as against a host that has gone silent.
/// Nothing is ever sent to or read from it.
public final class BlackHoleListener {
    private let listener: Int32
    private let filler: Int32

    /// Listens on `port` (taken over from a server that just closed it).
    public init?(port: UInt16) {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = port.bigEndian
        let ready = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                let size = socklen_t(MemoryLayout<sockaddr_in>.size)
                // A backlog of 0 holds one finished handshake; the filler takes it.
                return bind(listener, pointer, size) == 0 && listen(listener, 0) == 0 && Self.connect(filler, pointer, size)
            }
        }
        guard ready else {
            close(listener)
            close(filler)
            return nil
        }
    }

    /// Connects `fd` within a second (never blocking longer, should the
    /// kernel drop even the filler's handshake).
    private static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ size: socklen_t) -> Bool {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        if Glibc.connect(fd, address, size) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&waiting, 1, 1000) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0
    }

    deinit {
        close(filler)
        close(listener)
    }
}
