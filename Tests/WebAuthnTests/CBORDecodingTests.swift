import Testing
@testable import WebAuthn

@Suite("CBOR decoding")
struct CBORDecodingTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let hex: String
        let value: CBOR
        var testDescription: String { hex }
    }

    /// RFC 8949 Appendix A, every example in the subset WebAuthn uses. Each
    /// is in shortest form, so it also encodes back to the same bytes.
    static let rfcExamples: [Vector] = [
        Vector(hex: "00", value: .unsigned(0)),
        Vector(hex: "01", value: .unsigned(1)),
        Vector(hex: "0a", value: .unsigned(10)),
        Vector(hex: "17", value: .unsigned(23)),
        Vector(hex: "1818", value: .unsigned(24)),
        Vector(hex: "1819", value: .unsigned(25)),
        Vector(hex: "1864", value: .unsigned(100)),
        Vector(hex: "1903e8", value: .unsigned(1000)),
        Vector(hex: "1a000f4240", value: .unsigned(1_000_000)),
        Vector(hex: "1b000000e8d4a51000", value: .unsigned(1_000_000_000_000)),
        Vector(hex: "1bffffffffffffffff", value: .unsigned(UInt64.max)),
        Vector(hex: "3bffffffffffffffff", value: .negative(UInt64.max)),
        Vector(hex: "20", value: .int(-1)),
        Vector(hex: "29", value: .int(-10)),
        Vector(hex: "3863", value: .int(-100)),
        Vector(hex: "3903e7", value: .int(-1000)),
        Vector(hex: "f4", value: .bool(false)),
        Vector(hex: "f5", value: .bool(true)),
        Vector(hex: "f6", value: .null),
        Vector(hex: "40", value: .bytes([])),
        Vector(hex: "4401020304", value: .bytes([1, 2, 3, 4])),
        Vector(hex: "60", value: .text("")),
        Vector(hex: "6161", value: .text("a")),
        Vector(hex: "6449455446", value: .text("IETF")),
        Vector(hex: "62225c", value: .text("\"\\")),
        Vector(hex: "62c3bc", value: .text("\u{00FC}")),
        Vector(hex: "63e6b0b4", value: .text("\u{6C34}")),
        Vector(hex: "64f0908591", value: .text("\u{10151}")),
        Vector(hex: "80", value: .array([])),
        Vector(hex: "83010203", value: .array([.int(1), .int(2), .int(3)])),
        Vector(hex: "8301820203820405",
               value: .array([.int(1), .array([.int(2), .int(3)]), .array([.int(4), .int(5)])])),
        Vector(hex: "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
               value: .array((1...25).map { .int($0) })),
        Vector(hex: "a0", value: .map([])),
        Vector(hex: "a201020304", value: .map([(.int(1), .int(2)), (.int(3), .int(4))])),
        Vector(hex: "a26161016162820203",
               value: .map([(.text("a"), .int(1)), (.text("b"), .array([.int(2), .int(3)]))])),
        Vector(hex: "826161a161626163", value: .array([.text("a"), .map([(.text("b"), .text("c"))])])),
        Vector(hex: "a56161614161626142616361436164614461656145",
               value: .map(["a", "b", "c", "d", "e"].map { (.text($0), .text($0.uppercased())) })),
    ]

    @Test(arguments: rfcExamples)
    func decodesRFCExample(_ vector: Vector) throws {
        #expect(try CBOR.decode(hex(vector.hex)) == vector.value)
    }

    @Test(arguments: rfcExamples)
    func encodesRFCExample(_ vector: Vector) {
        #expect(vector.value.encoded.hex == vector.hex)
    }

    @Test(arguments: [
        ("1800", CBOR.unsigned(0)), ("190017", .unsigned(23)), ("1a00000001", .unsigned(1)),
        ("1b0000000000000000", .unsigned(0)), ("3800", .int(-1)), ("5801ff", .bytes([0xFF])), ("780161", .text("a")),
    ])
    func acceptsNonShortestForms(_ input: String, _ value: CBOR) throws {
        #expect(try CBOR.decode(hex(input)) == value)
    }

    @Test func integerAccessors() throws {
        #expect(CBOR.int(-7).intValue == -7)
        #expect(CBOR.int(Int.max).intValue == Int.max)
        #expect(CBOR.int(Int.min).intValue == Int.min)
        #expect(CBOR.unsigned(UInt64.max).intValue == nil)
        #expect(CBOR.negative(UInt64.max).intValue == nil)
        #expect(CBOR.text("1").intValue == nil)
    }

    @Test func mapLookups() throws {
        let map = try CBOR.decode(hex("a3 01 02 20 41ff 63666d74 646e6f6e65"))
        #expect(map[1] == .int(2))
        #expect(map[-1]?.bytesValue == [0xFF])
        #expect(map[text: "fmt"]?.textValue == "none")
        #expect(map[2] == nil)
        #expect(CBOR.array([]).mapValue == nil)
    }

    @Test func decodePrefixReportsLength() throws {
        let (item, length) = try CBOR.decodePrefix(hex("a10102 ffff"))
        #expect(item == .map([(.int(1), .int(2))]))
        #expect(length == 3)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let eight = [UInt8](repeating: 0x81, count: 8) + [0x00]
        #expect(throws: Never.self) { try CBOR.decode(eight) }
        let deeper = [UInt8](repeating: 0x81, count: 20) + [0x00]
        #expect(throws: Never.self) { try CBOR.decode(deeper, limits: CBORLimits(maxDepth: 20)) }
    }

    @Test func descriptionShowsShapeOnly() throws {
        let secret = CBOR.text("refresh-token-value")
        #expect(secret.description == "CBOR text string (19 bytes)")
        #expect(!String(reflecting: CBOR.bytes(Array("s3cr3t".utf8))).contains("s3cr3t"))
        #expect(CBOR.map([(.int(1), .int(2))]).description == "CBOR map (1 entries)")
    }

    @Test func textKeysCompareByteForByte() throws {
        // Precomposed é and e + combining accent are equal Swift strings but
        // different CBOR text: a map may hold both.
        let composed = CBOR.text("\u{E9}"), decomposed = CBOR.text("e\u{301}")
        #expect(composed != decomposed)
        let map = CBOR.map([(composed, .int(1)), (decomposed, .int(2))])
        #expect(try CBOR.decode(map.encoded) == map)
        #expect(map[decomposed] == .int(2))
    }
}
