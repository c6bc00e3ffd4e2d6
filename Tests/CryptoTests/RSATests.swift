import Testing
@testable import Crypto

@Suite("RSA (RS256)")
struct RSATests {
    /// Generated once: RSA key generation takes a noticeable fraction of a second.
    static let keys = Result { () throws(CryptoError) in (try RSAPrivateKey(), try RSAPrivateKey()) }

    // An RS256 signature made by pyca/cryptography, as an interoperability
    // check (n, e = 65537, message, signature).
    static let foreignModulus = hex("""
        ce72bd5fdef31a30533fa45faa095e8c29e0e17bef69551f4471b5cf53cfc2f1d001aaf6fe03c17829192e02f7c2d29d\
        cfa5f460aa98483e4043b8fc5bdf2ba288c2b933fa3a9c5f38012f4de0a12a9a0891479da68782f0683fcf4a8318b152\
        65ab79a6c03813fa90c711e838fbbd4ed3bc38ab8388ddd4c33f08deba8aaaf73675b22a4071b3b6f30ab96657036e2a\
        3d741f48be5f44c857a1421f42affbe6c5a19ad1b21bac96baabc6cbf23d9ce0d37537c990c369c72774cd7abae136ca\
        8d174b28a9d52ebc4ca65ac9a17a0374b27e827564de30c6aa46005e2743d8db35d3b3d7f5c3a9f2b9364b886def777d\
        6c8c5ef47943473272ab2a18a3b418a3
        """)
    static let foreignMessage = Array("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtb2RndWQifQ".utf8)
    static let foreignSignature = hex("""
        2a69ba9a6470dc007946ea61c38447945bca1445cd8af8046ba7c3067c5efc9feaaeb54d501a5847412b2e21a82d5ecf\
        3196e7890263d57ddbc399f130d88ac8062d3681d7a2cfa3db0d31cd8515706a6210291898686ff50bfc324ebcebb330\
        abd082efdbf156d2ffa0100209c6b2c69e32f9fe1874f9f850c618446b1d9bad9c8e7ae551a0e022e6f1a7ec5f2bb63d\
        ed62ebda767db4a062841482305e08abedc708f6143d7b1fe9779d2f859789f7ba44167f848bbc76e11bec382feaff77\
        95f04eef3a9d9142344886fc7fd0cbf748f119f669fabc048a326f6639dd66043621c573ef3903415969824f65a0e2dd\
        40910f4a9057e7728a140f9876ce6cc2
        """)

    @Test func verifiesASignatureFromAnotherImplementation() throws {
        let key = try RSAPublicKey(modulus: Self.foreignModulus, exponent: [0x01, 0x00, 0x01])
        #expect(key.isValidRS256Signature(Self.foreignSignature, for: Self.foreignMessage))
        #expect(!key.isValidRS256Signature(Self.foreignSignature, for: Self.foreignMessage.dropLast()))
        #expect(!key.isValidRS256Signature(Self.foreignSignature.flippingBit(at: 128), for: Self.foreignMessage))
        // Leading zero bytes in n or e do not change the key.
        let padded = try RSAPublicKey(modulus: [0] + Self.foreignModulus, exponent: [0, 0x01, 0x00, 0x01])
        #expect(padded == key)
        #expect(padded.isValidRS256Signature(Self.foreignSignature, for: Self.foreignMessage))
    }

    @Test func signAndVerifyRoundTrip() throws {
        let (key, _) = try Self.keys.get()
        #expect(key.publicKey.modulus.count == 256)
        #expect(key.publicKey.exponent == [0x01, 0x00, 0x01])
        let message = Array("header.payload".utf8)
        let signature = try key.rs256Signature(for: message)
        #expect(signature.count == 256)
        #expect(key.publicKey.isValidRS256Signature(signature, for: message))
        let rebuilt = try RSAPublicKey(modulus: key.publicKey.modulus, exponent: key.publicKey.exponent)
        #expect(rebuilt.isValidRS256Signature(signature, for: message))
    }

    @Test func refusesChangedMessageWrongKeyAndMalformedSignatures() throws {
        let (key, other) = try Self.keys.get()
        let message = Array("header.payload".utf8)
        let signature = try key.rs256Signature(for: message)
        #expect(!key.publicKey.isValidRS256Signature(signature, for: Array("header.payloae".utf8)))
        #expect(!other.publicKey.isValidRS256Signature(signature, for: message))
        #expect(!key.publicKey.isValidRS256Signature(signature.dropFirst(), for: message))
        #expect(!key.publicKey.isValidRS256Signature([0] + signature, for: message))
        #expect(!key.publicKey.isValidRS256Signature([UInt8](), for: message))
        #expect(!key.publicKey.isValidRS256Signature(signature.flippingBit(at: 255), for: message))
    }

    @Test func refusesWeakOrMalformedPublicKeys() {
        let n = Self.foreignModulus
        // 1024-bit modulus.
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: n.prefix(128), exponent: [1, 0, 1]) }
        // Even modulus.
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: n.dropLast() + [0x02], exponent: [1, 0, 1]) }
        // Exponents 1, even, empty, and wider than 64 bits.
        for e: [UInt8] in [[1], [0, 1], [1, 0, 0], [], [0], [UInt8](repeating: 0xff, count: 9)] {
            #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: n, exponent: e) }
        }
    }

    @Test(arguments: [0, 1024, 2047, 2049, 16_384])
    func refusesUnsupportedGenerationSizes(_ bits: Int) {
        #expect(throws: CryptoError.self) { try RSAPrivateKey(bits: bits) }
    }
}
