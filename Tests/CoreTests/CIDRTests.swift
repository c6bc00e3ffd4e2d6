import Testing
@testable import Core

@Suite("CIDR")
struct CIDRTests {
    @Test("parses and prints", arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("192.168.1.0/24", "192.168.1.0/24"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("203.0.113.7", "203.0.113.7/32"),
        ("::1/128", "::1/128"),
        ("::1", "::1/128"),
        ("fd00::/8", "fd00::/8"),
        ("::/0", "::/0"),
        ("2001:DB8::/32", "2001:db8::/32"),
        ("::ffff:10.0.0.0/104", "10.0.0.0/8"),
        ("::ffff:0:0/96", "0.0.0.0/0"),
        ("::ffff:192.0.2.1", "192.0.2.1/32"),
    ])
    func parses(input: String, printed: String) {
        #expect(CIDR(input)?.description == printed)
    }

    @Test("clears host bits below the prefix", arguments: [
        ("10.1.2.3/8", "10.0.0.0/8"),
        ("192.168.1.77/26", "192.168.1.64/26"),
        ("1.2.3.4/0", "0.0.0.0/0"),
        ("fd12:3456::1/8", "fd00::/8"),
        ("2001:db8:1:2:3:4:5:6/64", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:3:4:5:6/65", "2001:db8:1:2::/65"),
        ("2001:db8:1:2:ffff:4:5:6/66", "2001:db8:1:2:c000::/66"),
    ])
    func masksHostBits(input: String, printed: String) {
        #expect(CIDR(input)?.description == printed)
    }

    @Test("refuses bad input", arguments: [
        "", "/8", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/+8",
        "10.0.0.0/08", "10.0.0.0/8/8", "10.0.0.0 /8", "10.0.0.0/ 8", "10.0.0.0/8 ",
        "10.0.0/8", "fd00::/1000", "::ffff:10.0.0.0/95", "::ffff:10.0.0.0/129",
        "example.com/8", "10.0.0.0/a", "10.0.0.0/0x8", "[::1]/128",
    ])
    func refuses(input: String) {
        #expect(CIDR(input) == nil)
    }

    @Test("membership", arguments: [
        ("10.0.0.0/8", "10.255.1.2", true),
        ("10.0.0.0/8", "11.0.0.0", false),
        ("10.0.0.0/8", "9.255.255.255", false),
        ("192.168.1.64/26", "192.168.1.127", true),
        ("192.168.1.64/26", "192.168.1.128", false),
        ("0.0.0.0/0", "203.0.113.9", true),
        ("0.0.0.0/0", "::1", false),
        ("::/0", "10.0.0.1", false),
        ("::/0", "2001:db8::1", true),
        ("203.0.113.7", "203.0.113.7", true),
        ("203.0.113.7", "203.0.113.8", false),
        ("::1/128", "::1", true),
        ("::1/128", "::2", false),
        ("fd00::/8", "fdff:ffff::1", true),
        ("fd00::/8", "fe00::1", false),
        ("2001:db8:1:2::/64", "2001:db8:1:2:ffff:ffff:ffff:ffff", true),
        ("2001:db8:1:2::/64", "2001:db8:1:3::", false),
        ("2001:db8::/96", "2001:db8::ffff:ffff", true),
        ("2001:db8::/96", "2001:db8::1:0:0", false),
        // Mapped peers are folded before they reach a CIDR.
        ("10.0.0.0/8", "::ffff:10.9.8.7", true),
        ("::ffff:0:0/96", "192.0.2.1", true),
        ("::/0", "::ffff:192.0.2.1", false),
    ])
    func contains(block: String, address: String, expected: Bool) throws {
        let cidr = try #require(CIDR(block))
        let ip = try #require(IPAddress(address))
        #expect(cidr.contains(ip) == expected)
    }

    @Test("builds from an address and a length")
    func fromParts() {
        #expect(CIDR(address: .v4(0x0A01_0203), prefixLength: 16)?.description == "10.1.0.0/16")
        #expect(CIDR(address: .v4(1), prefixLength: 33) == nil)
        #expect(CIDR(address: .v4(1), prefixLength: -1) == nil)
        #expect(CIDR(address: IPAddress("::1")!, prefixLength: 129) == nil)
    }

    @Test("equal blocks compare and hash equal after masking")
    func equality() {
        #expect(CIDR("10.1.2.3/8") == CIDR("10.0.0.0/8"))
        #expect(Set([CIDR("10.1.2.3/8")!, CIDR("10.0.0.0/8")!]).count == 1)
        #expect(CIDR("10.0.0.0/8") != CIDR("10.0.0.0/9"))
    }
}
