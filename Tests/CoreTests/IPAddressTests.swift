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
