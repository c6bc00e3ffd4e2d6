import Core
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns a host name into an IP address with `getaddrinfo`, which blocks:
/// it runs on a private serial Dispatch queue, never on an event loop and
/// never on Swift's cooperative pool. IPv4 is preferred when a name has
/// both; an IP literal is answered without a lookup.
public enum NameResolver {
    private static let queue = DispatchQueue(label: "modgud.resolver")

    /// Looks `host` up off the caller's thread; `completion` runs on the
    /// resolver's queue.
    public static func resolve(_ host: String, completion: @escaping @Sendable (Result<IPAddress, NameResolutionError>) -> Void) {
        if let literal = IPAddress(host) { return completion(.success(literal)) }
        queue.async { completion(lookup(host)) }
    }

    /// Looks `host` up on the calling thread (it may block).
    public static func lookup(_ host: String) -> Result<IPAddress, NameResolutionError> {
        if let literal = IPAddress(host) { return .success(literal) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            return .failure(NameResolutionError(gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"))
        }
        defer { freeaddrinfo(list) }
        var chosen: IPAddress?
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr, let ip = Self.address(address, family: entry.pointee.ai_family) {
                if ip.isIPv4 { return .success(ip) }
                if chosen == nil { chosen = ip }
            }
            cursor = entry.pointee.ai_next
        }
        return chosen.map { .success($0) } ?? .failure(NameResolutionError("no usable address"))
    }

    private static func address(_ address: UnsafeMutablePointer<sockaddr>, family: Int32) -> IPAddress? {
        switch family {
        case AF_INET:
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { .v4(UInt32(bigEndian: $0.pointee.sin_addr.s_addr)) }
        case AF_INET6:
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                IPAddress(ipv6Bytes: withUnsafeBytes(of: sin6.pointee.sin6_addr) { Array($0) })
            }
        default:
            nil
        }
    }
}

/// Why a name did not resolve: the resolver's own words, which name no secret.
public struct NameResolutionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
