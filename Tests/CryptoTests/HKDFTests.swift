import Testing
@testable import Crypto

@Suite("HKDF-SHA256 (RFC 5869)")
struct HKDFTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let ikm: [UInt8]
        let salt: [UInt8]
        let info: [UInt8]
        let okm: String
        var testDescription: String { name }
    }

    // RFC 5869 Appendix A, test cases 1–3.
    static let vectors: [Vector] = [
        Vector(name: "A.1 basic", ikm: hex(String(repeating: "0b", count: 22)),
               salt: hex("000102030405060708090a0b0c"), info: hex("f0f1f2f3f4f5f6f7f8f9"),
               okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        Vector(name: "A.2 long inputs", ikm: Array(0x00...0x4f), salt: Array(0x60...0xaf), info: Array(0xb0...0xff),
               okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                   + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                   + "cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        Vector(name: "A.3 empty salt and info", ikm: hex(String(repeating: "0b", count: 22)), salt: [], info: [],
               okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test(arguments: vectors)
    func knownAnswers(_ vector: Vector) throws {
        let okm = try HKDF.sha256(
            inputKeyMaterial: vector.ikm, salt: vector.salt, info: vector.info, outputCount: vector.okm.utf8.count / 2)
        #expect(okm.hex == vector.okm)
    }

    @Test func defaultsAreEmptySaltAndInfo() throws {
        let ikm = hex(String(repeating: "0b", count: 22))
        #expect(try HKDF.sha256(inputKeyMaterial: ikm, outputCount: 42) == hex(Self.vectors[2].okm))
    }

    @Test func maximumOutputIsAllowed() throws {
        let okm = try HKDF.sha256(inputKeyMaterial: [1, 2, 3], outputCount: HKDF.maximumSHA256OutputCount)
        #expect(okm.count == 8160)
        // A shorter request is a prefix of a longer one.
        #expect(try HKDF.sha256(inputKeyMaterial: [1, 2, 3], outputCount: 100) == Array(okm.prefix(100)))
    }

    @Test(arguments: [0, -1, HKDF.maximumSHA256OutputCount + 1])
    func refusesImpossibleOutputCounts(_ count: Int) {
        #expect(throws: CryptoError.self) { try HKDF.sha256(inputKeyMaterial: [1], outputCount: count) }
    }

    @Test func refusesEmptyKeyMaterialAndOverlongInfo() {
        #expect(throws: CryptoError.self) { try HKDF.sha256(inputKeyMaterial: [UInt8](), outputCount: 32) }
        #expect(throws: CryptoError.self) {
            try HKDF.sha256(inputKeyMaterial: [1], info: [UInt8](repeating: 0, count: 1025), outputCount: 32)
        }
    }
}
