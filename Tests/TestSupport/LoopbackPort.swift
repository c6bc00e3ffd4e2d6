import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ports on 127.0.0.1 for test servers started as children.
public enum LoopbackPort {
    /// Every port `free()` has handed out in this process.
    private static let handedOut = Mutex<Set<UInt16>>([])

    /// A port nothing is bound to now, below the kernel's ephemeral range
    /// (32768 and up), so a client connection cannot take it while a server
    /// starts or restarts on it, and never handed out before in this
    /// process: two tests starting servers at once would otherwise draw the
    /// same free port, and the one whose server lost the bind would talk
    /// to the other's. Nil after 200 tries.
    public static func free() -> UInt16? {
        for _ in 0..<200 {
            let candidate = UInt16.random(in: 20000...29999)
            guard handedOut.withLock({ $0.insert(candidate).inserted }) else { continue }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var address = loopback(candidate)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound { return candidate }
        }
        return nil
    }

    /// Whether something accepts TCP connections on `port` (one blocking connect).
    public static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = port.bigEndian
        return address
    }
}
