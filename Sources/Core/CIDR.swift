/// A block of IP addresses written as `address/prefix-length`, such as
/// `10.0.0.0/8`, `fd00::/8` or `::1/128`.
///
/// - A bare address is a block of one: `/32` for IPv4, `/128` for IPv6.
/// - Prefix lengths outside `0...32` (IPv4) or `0...128` (IPv6), signs,
///   leading zeros (`/08`) and anything but decimal digits are refused.
/// - Host bits below the prefix are **accepted and cleared**:
///   `10.1.2.3/8` is read as `10.0.0.0/8`, and prints that way. This is the
///   lenient choice (`ip route` makes the same one); `description` shows what
///   was understood.
/// - An IPv4-mapped IPv6 block (`::ffff:10.0.0.0/104`) is folded to the IPv4
///   block it denotes (`10.0.0.0/8`), the way ``IPAddress`` folds mapped
///   addresses; a mapped block shorter than `/96` spans non-mapped addresses
///   and is refused.
///
/// An IPv4 block never contains an IPv6 address, nor the reverse.
public struct CIDR: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block (host bits cleared).
    public let network: IPAddress
    /// The number of leading bits that every address in the block shares.
    public let prefixLength: Int

    /// Builds the block of `prefixLength` bits around `address`, clearing
    /// host bits; `nil` when the length is out of range for the family.
    public init?(address: IPAddress, prefixLength: Int) {
        switch address {
        case .v4(let value):
            guard (0...32).contains(prefixLength) else { return nil }
            self.network = .v4(value & Self.mask32(prefixLength))
        case .v6(let high, let low):
            guard (0...128).contains(prefixLength) else { return nil }
            let (maskHigh, maskLow) = Self.mask128(prefixLength)
            self.network = .v6(high: high & maskHigh, low: low & maskLow)
        }
        self.prefixLength = prefixLength
    }

    /// Parses `address/length` or a bare address; `nil` for anything else.
    /// No surrounding whitespace is allowed.
    public init?(_ text: some StringProtocol) {
        let string = String(text)
        let addressText: Substring
        var length: Int?
        if let slash = string.firstIndex(of: "/") {
            addressText = string[..<slash]
            guard let parsed = Self.parseLength(string[string.index(after: slash)...]) else { return nil }
            length = parsed
        } else {
            addressText = string[...]
        }
        guard let address = IPAddress(addressText) else { return nil }
        // A textual IPv6 literal that folded to IPv4 was `::ffff:a.b.c.d`.
        let writtenAsIPv6 = addressText.contains(":")
        switch (address, writtenAsIPv6, length) {
        case (.v4, true, let written?):
            guard written >= 96 else { return nil }
            length = written - 96
        case (.v4, _, nil):
            length = 32
        case (.v6, _, nil):
            length = 128
        default:
            break
        }
        guard let length else { return nil }
        self.init(address: address, prefixLength: length)
    }

    /// Whether `address` lies inside this block. Families never mix.
    public func contains(_ address: IPAddress) -> Bool {
        switch (network, address) {
        case (.v4(let net), .v4(let value)):
            return value & Self.mask32(prefixLength) == net
        case (.v6(let netHigh, let netLow), .v6(let high, let low)):
            let (maskHigh, maskLow) = Self.mask128(prefixLength)
            return high & maskHigh == netHigh && low & maskLow == netLow
        default:
            return false
        }
    }

    /// `network/prefixLength`, with the address in canonical form.
    public var description: String { "\(network)/\(prefixLength)" }

    private static func parseLength(_ text: Substring) -> Int? {
        guard (1...3).contains(text.utf8.count),
              text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              text == "0" || text.first != "0"
        else { return nil }
        return Int(text)
    }

    private static func mask32(_ length: Int) -> UInt32 {
        length == 0 ? 0 : UInt32.max << UInt32(32 - length)
    }

    private static func mask128(_ length: Int) -> (UInt64, UInt64) {
        if length <= 64 {
            return (length == 0 ? 0 : UInt64.max << UInt64(64 - length), 0)
        }
        return (UInt64.max, length == 128 ? UInt64.max : UInt64.max << UInt64(128 - length))
    }
}
