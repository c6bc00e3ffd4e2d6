import Testing
@testable import Core

@Suite("IPAddress")
struct IPAddressTests {
    @Test("parses and prints canonically", arguments: [
        ("127.0.0.1", "127.0.0.1"),
        ("0.0.0.0", "0.0.0.0"),
        ("255.255.255.255", "255.255.255.255"),
        ("10.0.100.9", "10.0.100.9"),
        ("1.20.199.90", "1.20.199.90"),
        ("::1", "::1"),
        ("::", "::"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("fe80:0000:0000:0000:0000:0000:0000:0001", "fe80::1"),
        ("fd00::", "fd00::"),
    ])
    func canonical(input: String, printed: String) {
        #expect(IPAddress(input)?.description == printed)
    }

    @Test("folds IPv4-mapped IPv6 to IPv4", arguments: [
        "::ffff:10.1.2.3", "::FFFF:10.1.2.3", "::ffff:a01:203", "0:0:0:0:0:ffff:10.1.2.3",
    ])
    func mappedFolding(input: String) {
        let address = IPAddress(input)
        #expect(address == .v4(0x0A01_0203))
        #expect(address?.isIPv4 == true)
        #expect(address?.description == "10.1.2.3")
    }

    @Test("IPv4-compatible and NAT64 addresses stay IPv6")
    func notMapped() {
        #expect(IPAddress("::10.1.2.3")?.isIPv4 == false)
        #expect(IPAddress("64:ff9b::10.1.2.3")?.isIPv4 == false)
        #expect(IPAddress("::fffe:10.1.2.3")?.isIPv4 == false)
    }

    @Test("refuses what is not a bare literal", arguments: [
        "", " ", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.4 ", " 1.2.3.4", "01.2.3.4x",
        "1.2.3.-1", "localhost", "[::1]", "::1%eth0", "1.2.3.4:80", "fe80::1::2",
        "12345::", ":::", "1.2.3.4/8", "::ffff:1.2.3.256",
        String(repeating: "1", count: 60),
    ])
    func refuses(input: String) {
        #expect(IPAddress(input) == nil)
    }

    @Test("builds from sixteen bytes")
    func fromBytes() {
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes[15] = 1
        #expect(IPAddress(ipv6Bytes: bytes) == IPAddress("::1"))
        bytes[10] = 0xFF; bytes[11] = 0xFF; bytes[12] = 192; bytes[13] = 168; bytes[14] = 0
        #expect(IPAddress(ipv6Bytes: bytes) == .v4(0xC0A8_0001))
    }

    @Test("parses from a substring")
    func substring() {
        let text = "[2001:db8::7]:443"
        let inner = text.dropFirst().prefix { $0 != "]" }
        #expect(IPAddress(inner)?.description == "2001:db8::7")
    }
}

extension IPAddressTests {
    /// A per-client limit counts an IPv6 host by its /64: the addresses of
    /// one /64 share a count, another /64 has its own, IPv4 stays exact.
    @Test func anIPv6ClientIsCountedByItsSlash64() throws {
        let one = try #require(IPAddress("2001:db8:1:2::1")), same = try #require(IPAddress("2001:db8:1:2:ffff::9"))
        let other = try #require(IPAddress("2001:db8:1:3::1"))
        #expect(one.clientKey == same.clientKey)
        #expect(one.clientKey != other.clientKey)
        #expect(one.clientKey.description == "2001:db8:1:2::")
        #expect(IPAddress("192.0.2.7")?.clientKey == IPAddress("192.0.2.7"))
        #expect(IPAddress("::ffff:192.0.2.7")?.clientKey == IPAddress("192.0.2.7"), "an IPv4-mapped address is its IPv4 one")

        let counts = AddressCounts()
        #expect(counts.claim(one.clientKey, limit: 2) && counts.claim(same.clientKey, limit: 2))
        #expect(!counts.claim(IPAddress("2001:db8:1:2::abcd")!.clientKey, limit: 2), "a third address of the /64 is over")
        #expect(counts.claim(other.clientKey, limit: 2))
    }
}
