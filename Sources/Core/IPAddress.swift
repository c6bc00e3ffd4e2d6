#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, without a port.
///
/// IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) are normalised to IPv4 when
/// parsed, so an address is always written the way Modgud reads it.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(high: UInt64, low: UInt64)

    /// Parses a bare IPv4 or IPv6 literal (no brackets, no port, no zone).
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        let string = String(text)
        if !string.contains(":") {
            var addr = in_addr()
            guard inet_pton(AF_INET, string, &addr) == 1 else { return nil }
            self = .v4(UInt32(bigEndian: addr.s_addr))
            return
        }
        var addr = in6_addr()
        guard inet_pton(AF_INET6, string, &addr) == 1 else { return nil }
        self.init(ipv6Bytes: withUnsafeBytes(of: addr) { Array($0) })
    }

    /// Builds an address from sixteen network-order bytes.
    public init(ipv6Bytes bytes: [UInt8]) {
        precondition(bytes.count == 16)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for i in 0..<8 { high = high << 8 | UInt64(bytes[i]) }
        for i in 8..<16 { low = low << 8 | UInt64(bytes[i]) }
        if high == 0, low >> 32 == 0xFFFF {
            self = .v4(UInt32(truncatingIfNeeded: low))
        } else {
            self = .v6(high: high, low: low)
        }
    }

    public var isIPv4: Bool {
        if case .v4 = self { return true }
        return false
    }

    /// What a per-client limit counts this address as: an IPv4 address
    /// itself, an IPv6 address its /64, since one host is commonly handed
    /// a whole /64 and could otherwise take a fresh address for every
    /// connection.
    public var clientKey: IPAddress {
        switch self {
        case .v4: self
        case .v6(let high, _): .v6(high: high, low: 0)
        }
    }

    /// The canonical text form (RFC 5952 for IPv6).
    public var description: String {
        switch self {
        case .v4(let value):
            // By hand: one per proxied request (X-Forwarded-For), and
            // interpolation formats through generic streams.
            return String(unsafeUninitializedCapacity: 15) { out in
                var count = 0
                for shift in stride(from: 24, through: 0, by: -8) {
                    let octet = Int(value >> UInt32(shift) & 0xFF)
                    if octet >= 100 { out[count] = UInt8(48 + octet / 100); count += 1 }
                    if octet >= 10 { out[count] = UInt8(48 + octet / 10 % 10); count += 1 }
                    out[count] = UInt8(48 + octet % 10)
                    count += 1
                    if shift > 0 { out[count] = UInt8(ascii: "."); count += 1 }
                }
                return count
            }
        case .v6(let high, let low):
            var addr = in6_addr()
            withUnsafeMutableBytes(of: &addr) { raw in
                for i in 0..<8 { raw[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i))) }
                for i in 0..<8 { raw[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i))) }
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
