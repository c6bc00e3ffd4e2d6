import Testing
@testable import Crypto

@Suite("AES-256-GCM")
struct AESGCMTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let nonce: [UInt8]
        let plaintext: [UInt8]
        let aad: [UInt8]
        let ciphertext: [UInt8]
        let tag: [UInt8]
        var testDescription: String { name }
    }

    // McGrew & Viega, "The Galois/Counter Mode of Operation", test cases
    // 13, 14 and 16 (AES-256, 96-bit IV).
    static let vectors: [Vector] = [
        Vector(name: "MV13 empty", key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12),
               plaintext: [], aad: [], ciphertext: [], tag: hex("530f8afbc74536b9a963b4f1c4cb738b")),
        Vector(name: "MV14 one block", key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12),
               plaintext: [UInt8](repeating: 0, count: 16), aad: [],
               ciphertext: hex("cea7403d4d606b6e074ec5d3baf39d18"), tag: hex("d0d1c8a799996bf0265b98b5d48ab919")),
        Vector(name: "MV16 with AAD",
               key: hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"),
               nonce: hex("cafebabefacedbaddecaf888"),
               plaintext: hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                   + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"),
               aad: hex("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
               ciphertext: hex("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                   + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"),
               tag: hex("76fc6ece0f4e1768cddf8853bb2d551b")),
    ]

    @Test(arguments: vectors)
    func knownAnswers(_ vector: Vector) throws {
        let sealed = try AESGCM.seal(vector.plaintext, key: vector.key, nonce: vector.nonce, associatedData: vector.aad)
        #expect(sealed.hex == (vector.nonce + vector.ciphertext + vector.tag).hex)
        #expect(try AESGCM.open(sealed, key: vector.key, associatedData: vector.aad) == vector.plaintext)
    }

    static let key = (0..<32).map { UInt8($0) }
    static let aad = Array("session:v1".utf8)
    static let plaintext = Array("the refresh token lives here".utf8)

    @Test func roundTripsWithFreshNonces() throws {
        let first = try AESGCM.seal(Self.plaintext, key: Self.key, associatedData: Self.aad)
        let second = try AESGCM.seal(Self.plaintext, key: Self.key, associatedData: Self.aad)
        #expect(first.count == Self.plaintext.count + AESGCM.overhead)
        #expect(first.prefix(12) != second.prefix(12))
        #expect(try AESGCM.open(first, key: Self.key, associatedData: Self.aad) == Self.plaintext)
        #expect(try AESGCM.open(second, key: Self.key, associatedData: Self.aad) == Self.plaintext)
    }

    @Test(arguments: [0, 1, 15, 16, 17, 1024, 65_537])
    func roundTripsEverySize(_ size: Int) throws {
        let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sealed = try AESGCM.seal(plaintext, key: Self.key)
        #expect(try AESGCM.open(sealed, key: Self.key) == plaintext)
        // Slices and other collections work too.
        #expect(try AESGCM.open(sealed[...], key: Self.key[...]) == plaintext)
    }

    enum Region: String, CaseIterable, Sendable { case nonce, ciphertext, tag }

    @Test(arguments: Region.allCases)
    func refusesAFlippedBitInEachRegion(_ region: Region) throws {
        let sealed = try AESGCM.seal(Self.plaintext, key: Self.key, associatedData: Self.aad)
        let range = switch region {
        case .nonce: 0..<12
        case .ciphertext: 12..<(sealed.count - 16)
        case .tag: (sealed.count - 16)..<sealed.count
        }
        for index in range {
            for bit in [0, 7] {
                #expect(throws: CryptoError.authenticationFailure) {
                    try AESGCM.open(sealed.flippingBit(at: index, bit: bit), key: Self.key, associatedData: Self.aad)
                }
            }
        }
    }

    @Test func refusesTruncationAndExtension() throws {
        let sealed = try AESGCM.seal(Self.plaintext, key: Self.key, associatedData: Self.aad)
        for length in [0, 1, 12, 27, 28, sealed.count - 1] {
            #expect(throws: CryptoError.authenticationFailure) {
                try AESGCM.open(sealed.prefix(length), key: Self.key, associatedData: Self.aad)
            }
        }
        #expect(throws: CryptoError.authenticationFailure) {
            try AESGCM.open(sealed.dropFirst(), key: Self.key, associatedData: Self.aad)
        }
        #expect(throws: CryptoError.authenticationFailure) {
            try AESGCM.open(sealed + [0], key: Self.key, associatedData: Self.aad)
        }
    }

    @Test func refusesWrongKeyAndWrongAssociatedData() throws {
        let sealed = try AESGCM.seal(Self.plaintext, key: Self.key, associatedData: Self.aad)
        #expect(throws: CryptoError.authenticationFailure) {
            try AESGCM.open(sealed, key: Self.key.flippingBit(at: 31), associatedData: Self.aad)
        }
        #expect(throws: CryptoError.authenticationFailure) {
            try AESGCM.open(sealed, key: Self.key, associatedData: Array("session:v2".utf8))
        }
        #expect(throws: CryptoError.authenticationFailure) { try AESGCM.open(sealed, key: Self.key) }
        let withoutAAD = try AESGCM.seal(Self.plaintext, key: Self.key)
        #expect(throws: CryptoError.authenticationFailure) {
            try AESGCM.open(withoutAAD, key: Self.key, associatedData: [0])
        }
    }

    @Test(arguments: [0, 16, 24, 31, 33])
    func refusesKeysThatAreNot32Bytes(_ count: Int) throws {
        let key = [UInt8](repeating: 7, count: count)
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: count)) {
            try AESGCM.seal(Self.plaintext, key: key)
        }
        let sealed = try AESGCM.seal(Self.plaintext, key: Self.key)
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: count)) { try AESGCM.open(sealed, key: key) }
    }

    @Test func testSeamRefusesBadNonceLength() {
        #expect(throws: CryptoError.self) {
            try AESGCM.seal(Self.plaintext, key: Self.key, nonce: [UInt8](repeating: 0, count: 16))
        }
    }
}
