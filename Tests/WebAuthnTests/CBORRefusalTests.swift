import Testing
import WebAuthn

@Suite("CBOR refusals")
struct CBORRefusalTests {
    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let reason: CBORError.Reason
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        Malformed(name: "empty input", hex: "", reason: .unexpectedEnd),
        Malformed(name: "uint8 missing its byte", hex: "18", reason: .unexpectedEnd),
        Malformed(name: "uint16 cut short", hex: "1903", reason: .unexpectedEnd),
        Malformed(name: "uint32 cut short", hex: "1a000f42", reason: .unexpectedEnd),
        Malformed(name: "uint64 cut short", hex: "1b00000000000000", reason: .unexpectedEnd),
        Malformed(name: "byte string cut short", hex: "44010203", reason: .unexpectedEnd),
        Malformed(name: "text string cut short", hex: "64494554", reason: .unexpectedEnd),
        Malformed(name: "array cut short", hex: "830102", reason: .unexpectedEnd),
        Malformed(name: "map missing a value", hex: "a2010203", reason: .unexpectedEnd),
        Malformed(name: "array claiming more than the input", hex: "98ff00", reason: .unexpectedEnd),
        Malformed(name: "two items", hex: "0000", reason: .trailingBytes),
        Malformed(name: "item then garbage", hex: "80ff", reason: .trailingBytes),
        Malformed(name: "indefinite byte string", hex: "5f42010243030405ff", reason: .indefiniteLength),
        Malformed(name: "indefinite text string", hex: "7f657374726561646d696e67ff", reason: .indefiniteLength),
        Malformed(name: "indefinite array", hex: "9f018202039f0405ffff", reason: .indefiniteLength),
        Malformed(name: "indefinite map", hex: "bf61610161629f0203ffff", reason: .indefiniteLength),
        Malformed(name: "lone break", hex: "ff", reason: .indefiniteLength),
        Malformed(name: "reserved info 28", hex: "1c", reason: .reservedAdditionalInformation),
        Malformed(name: "reserved info 29 on bytes", hex: "5d", reason: .reservedAdditionalInformation),
        Malformed(name: "reserved info 30 on simple", hex: "fe", reason: .reservedAdditionalInformation),
        Malformed(name: "tag 0 date", hex: "c074323031332d30332d32315432303a30343a30305a", reason: .tagNotSupported),
        Malformed(name: "tag 1 epoch", hex: "c11a514b67b0", reason: .tagNotSupported),
        Malformed(name: "bignum tag", hex: "c249010000000000000000", reason: .tagNotSupported),
        Malformed(name: "tag 24 embedded CBOR", hex: "d818456449455446", reason: .tagNotSupported),
        Malformed(name: "half float", hex: "f93c00", reason: .floatNotSupported),
        Malformed(name: "single float", hex: "fa47c35000", reason: .floatNotSupported),
        Malformed(name: "double float", hex: "fb3ff199999999999a", reason: .floatNotSupported),
        Malformed(name: "undefined", hex: "f7", reason: .simpleValueNotSupported),
        Malformed(name: "simple(16)", hex: "f0", reason: .simpleValueNotSupported),
        Malformed(name: "simple(255)", hex: "f8ff", reason: .simpleValueNotSupported),
        Malformed(name: "invalid UTF-8 byte", hex: "61ff", reason: .invalidUTF8),
        Malformed(name: "overlong UTF-8", hex: "62c0af", reason: .invalidUTF8),
        Malformed(name: "UTF-8 encoded surrogate", hex: "63eda080", reason: .invalidUTF8),
        Malformed(name: "byte string key", hex: "a14001", reason: .invalidMapKey),
        Malformed(name: "array key", hex: "a18001", reason: .invalidMapKey),
        Malformed(name: "null key", hex: "a1f601", reason: .invalidMapKey),
        Malformed(name: "bool key", hex: "a1f501", reason: .invalidMapKey),
        Malformed(name: "repeated integer key", hex: "a201020103", reason: .duplicateMapKey),
        Malformed(name: "repeated text key", hex: "a2616101616102", reason: .duplicateMapKey),
        Malformed(name: "repeated key, non-shortest second", hex: "a20102180103", reason: .duplicateMapKey),
        Malformed(name: "nine levels deep", hex: "81818181818181818100", reason: .tooDeep),
        Malformed(name: "array with 2^16 elements", hex: "9a00010000", reason: .tooManyElements),
        Malformed(name: "map with 2^64-1 entries", hex: "bbffffffffffffffff", reason: .tooManyElements),
        Malformed(name: "byte string of 2^64-1 bytes", hex: "5bffffffffffffffff", reason: .stringTooLong),
        Malformed(name: "text string of 2^32-1 bytes", hex: "7affffffff", reason: .stringTooLong),
    ]

    @Test(arguments: malformed)
    func refuses(_ input: Malformed) {
        do {
            _ = try CBOR.decode(hex(input.hex))
            Issue.record("decoded")
        } catch {
            #expect(error.reason == input.reason)
        }
    }

    @Test func reportsTheOffset() {
        #expect(throws: CBORError(.duplicateMapKey, at: 3)) { try CBOR.decode(hex("a201020103")) }
        #expect(throws: CBORError(.trailingBytes, at: 1)) { try CBOR.decode(hex("0000")) }
        #expect(throws: CBORError(.invalidUTF8, at: 2)) { try CBOR.decode(hex("82 00 61ff")) }
    }

    @Test func refusesInputOverTheSizeLimit() {
        let big = CBOR.bytes([UInt8](repeating: 7, count: 100)).encoded
        #expect(throws: CBORError(.inputTooLarge, at: 50)) { try CBOR.decode(big, limits: CBORLimits(maxBytes: 50)) }
        #expect(throws: CBORError(.stringTooLong, at: 0)) { try CBOR.decode(big, limits: CBORLimits(maxStringBytes: 99)) }
        let wide = CBOR.array((0..<10).map { .int($0) }).encoded
        #expect(throws: CBORError(.tooManyElements, at: 0)) { try CBOR.decode(wide, limits: CBORLimits(maxElements: 9)) }
    }

    @Test func errorsNeverQuoteTheInput() {
        let secret = "super-secret-token"
        let truncated = Array(CBOR.text(secret).encoded.dropLast())
        do {
            _ = try CBOR.decode(truncated)
            Issue.record("truncated input decoded")
        } catch {
            #expect(!error.description.contains("secret"))
            #expect(error.description == "unexpected end of input at byte 18")
        }
    }
}
