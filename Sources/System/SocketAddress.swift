import CSystem
import Core
#if canImport(Glibc)
import Glibc
#endif

/// An IP address and port, as a socket is bound to or accepts from.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16

    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    public var description: String {
        ip.isIPv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }

    /// Reads an address the kernel filled in (accept, getsockname).
    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
            }
            ip = .v4(UInt32(bigEndian: sin.sin_addr.s_addr))
            port = UInt16(bigEndian: sin.sin_port)
        case AF_INET6:
            let sin6 = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
            }
            ip = IPAddress(ipv6Bytes: withUnsafeBytes(of: sin6.sin6_addr) { Array($0) })
            port = UInt16(bigEndian: sin6.sin6_port)
        default:
            return nil
        }
    }

    /// Calls `body` with this address as a `sockaddr` for bind or connect.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R) throws(SystemError) -> R {
        switch ip {
        case .v4(let value):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            sin.sin_addr.s_addr = value.bigEndian
            return try withUnsafePointer(to: &sin) { (p) throws(SystemError) -> R in
                try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(SystemError) -> R in
                    try body(sa, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(let high, let low):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { raw in
                for i in 0..<8 { raw[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i))) }
                for i in 0..<8 { raw[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i))) }
            }
            return try withUnsafePointer(to: &sin6) { (p) throws(SystemError) -> R in
                try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(SystemError) -> R in
                    try body(sa, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
