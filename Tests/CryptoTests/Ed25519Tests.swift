import Testing
@testable import Crypto

@Suite("Ed25519 (EdDSA)")
struct Ed25519Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let seed: [UInt8]
        let publicKey: [UInt8]
        let message: [UInt8]
        let signature: [UInt8]
        var testDescription: String { name }
    }

    // RFC 8032 §7.1, TEST 1 and TEST 2.
    static let vectors = [
        Vector(name: "TEST 1",
               seed: hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"),
               publicKey: hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
               message: [],
               signature: hex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                   + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")),
        Vector(name: "TEST 2",
               seed: hex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"),
               publicKey: hex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"),
               message: [0x72],
               signature: hex("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                   + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")),
    ]

    @Test(arguments: vectors)
    func verifiesRFC8032Vectors(_ vector: Vector) throws {
        let key = try Ed25519PublicKey(rawRepresentation: vector.publicKey)
        #expect(key.isValidSignature(vector.signature, for: vector.message))
        #expect(!key.isValidSignature(vector.signature, for: vector.message + [0]))
        #expect(!key.isValidSignature(vector.signature.flippingBit(at: 0), for: vector.message))
        #expect(!key.isValidSignature(vector.signature.flippingBit(at: 63, bit: 6), for: vector.message))
    }

    @Test(arguments: vectors)
    func signsRFC8032VectorsFromTheSeed(_ vector: Vector) throws {
        let key = try Ed25519PrivateKey(rawRepresentation: vector.seed)
        #expect(key.publicKey.rawRepresentation == vector.publicKey)
        #expect(try key.signature(for: vector.message) == vector.signature)
    }

    @Test func signAndVerifyRoundTrip() throws {
        let key = try Ed25519PrivateKey()
        let other = try Ed25519PrivateKey()
        let message = Array("id_token header.payload".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: Array("id_token header.payloae".utf8)))
        #expect(!other.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature.dropLast(), for: message))
        #expect(!key.publicKey.isValidSignature(signature + [0], for: message))
        #expect(try Ed25519PublicKey(rawRepresentation: key.publicKey.rawRepresentation) == key.publicKey)
    }

    @Test func refusesBadKeySizes() {
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 31)) {
            try Ed25519PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 31))
        }
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 64)) {
            try Ed25519PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 64))
        }
    }
}
