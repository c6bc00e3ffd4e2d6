import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns a host name into an IP literal with `getaddrinfo`, which blocks:
/// it runs on a private serial Dispatch queue, never on an event loop and
/// never on Swift's cooperative pool. IPv4 is preferred, as hiredis does.
enum HostResolver {
    private static let queue = DispatchQueue(label: "modgud.redis.resolver")

    static func resolve(_ host: String, completion: @escaping @Sendable (Result<String, RedisConnectionFailure>) -> Void) {
        queue.async { completion(lookup(host)) }
    }

    static func lookup(_ host: String) -> Result<String, RedisConnectionFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            return .failure(.resolve(gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"))
        }
        defer { freeaddrinfo(list) }
        var chosen = list
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if entry.pointee.ai_family == AF_INET { chosen = entry; break }
            cursor = entry.pointee.ai_next
        }
        var buffer = [CChar](repeating: 0, count: 64)
        let rc = getnameinfo(chosen.pointee.ai_addr, chosen.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
        guard rc == 0 else { return .failure(.resolve("no usable address")) }
        return .success(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
