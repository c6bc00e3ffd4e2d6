import Crypto
import Testing
import WebAuthn

@Suite("COSE keys")
struct COSEKeyTests {
    static let p256 = try! P256PrivateKey()
    static let ed25519 = try! Ed25519PrivateKey()

    /// A COSE_Key map from labels, in the order given.
    static func key(_ entries: [(Int, CBOR)]) -> [UInt8] {
        CBOR.map(entries.map { (.int($0.0), $0.1) }).encoded
    }

    static var ec2: [(Int, CBOR)] {
        [(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(p256.publicKey.x)), (-3, .bytes(p256.publicKey.y))]
    }

    static var okp: [(Int, CBOR)] {
        [(1, .int(1)), (3, .int(-8)), (-1, .int(6)), (-2, .bytes(ed25519.publicKey.rawRepresentation))]
    }

    @Test func p256KeyRoundTripsInCanonicalOrder() throws {
        let built = COSEKey(p256: Self.p256.publicKey)
        #expect(built.bytes.hex.hasPrefix("a5010203262001215820"))
        #expect(built.bytes == Self.key(Self.ec2))
        let parsed = try COSEKey(bytes: built.bytes)
        #expect(parsed == built)
        #expect(parsed.algorithm == .es256)
        #expect(parsed.publicKey == .p256(Self.p256.publicKey))
        #expect(parsed.description == "COSE key (ES256)")
    }

    @Test func ed25519KeyRoundTripsInCanonicalOrder() throws {
        let built = COSEKey(ed25519: Self.ed25519.publicKey)
        #expect(built.bytes.hex.hasPrefix("a4010103272006215820"))
        let parsed = try COSEKey(bytes: built.bytes)
        #expect(parsed.algorithm == .edDSA)
        #expect(parsed.publicKey == .ed25519(Self.ed25519.publicKey))
    }

    @Test func labelOrderAndExtraLabelsDoNotMatter() throws {
        let shuffled = Self.key(Self.ec2.reversed() + [(2, .bytes([1, 2, 3])), (4, .array([.int(2)]))])
        let parsed = try COSEKey(bytes: shuffled)
        #expect(parsed.publicKey == .p256(Self.p256.publicKey))
        #expect(parsed.bytes == shuffled)  // kept as received
    }

    @Test func verifiesSignaturesInEachAlgorithmsForm() throws {
        let message = Array("authData || hash".utf8)
        let es256 = COSEKey(p256: Self.p256.publicKey)
        let der = try Self.p256.signature(for: message)
        #expect(es256.isValidSignature(der, for: message))
        #expect(!es256.isValidSignature(try Self.p256.rawSignature(for: message), for: message))  // raw r‖s is not WebAuthn's
        #expect(!es256.isValidSignature(der, for: message + [0]))
        let edDSA = COSEKey(ed25519: Self.ed25519.publicKey)
        let raw = try Self.ed25519.signature(for: message)
        #expect(edDSA.isValidSignature(raw, for: message))
        #expect(!edDSA.isValidSignature(raw.dropLast(), for: message))
        #expect(!edDSA.isValidSignature(der, for: message))
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let error: WebAuthnError
        var testDescription: String { name }
    }

    static func replacing(_ entries: [(Int, CBOR)], _ label: Int, with value: CBOR?) -> [(Int, CBOR)] {
        var entries = entries.filter { $0.0 != label }
        if let value { entries.append((label, value)) }
        return entries
    }

    static var refusals: [Refusal] {
        let x = p256.publicKey.x, y = p256.publicKey.y
        return [
            Refusal(name: "RSA (kty 3, RS256)", bytes: key([(1, .int(3)), (3, .int(-257)), (-1, .bytes([UInt8](repeating: 0xC1, count: 256))), (-2, .bytes([1, 0, 1]))]),
                    error: .unsupportedKey),
            Refusal(name: "EC2 on P-384 (ES384)", bytes: key([(1, .int(2)), (3, .int(-35)), (-1, .int(2)), (-2, .bytes(x + x.prefix(16))), (-3, .bytes(y + y.prefix(16)))]),
                    error: .unsupportedKey),
            Refusal(name: "P-256 with alg EdDSA", bytes: key(replacing(ec2, 3, with: .int(-8))), error: .unsupportedKey),
            Refusal(name: "P-256 with alg ES384", bytes: key(replacing(ec2, 3, with: .int(-35))), error: .unsupportedKey),
            Refusal(name: "P-256 with alg ECDH-ES", bytes: key(replacing(ec2, 3, with: .int(-25))), error: .unsupportedKey),
            Refusal(name: "OKP Ed448", bytes: key(replacing(okp, -1, with: .int(7))), error: .unsupportedKey),
            Refusal(name: "OKP X25519", bytes: key(replacing(okp, -1, with: .int(4))), error: .unsupportedKey),
            Refusal(name: "Ed25519 with alg ES256", bytes: key(replacing(okp, 3, with: .int(-7))), error: .unsupportedKey),
            Refusal(name: "symmetric (kty 4)", bytes: key([(1, .int(4)), (3, .int(5)), (-1, .bytes([UInt8](repeating: 1, count: 32)))]),
                    error: .unsupportedKey),
            Refusal(name: "no crv", bytes: key(replacing(ec2, -1, with: nil)), error: .unsupportedKey),
            Refusal(name: "no alg (RFC 9052 example keys)", bytes: key(replacing(ec2, 3, with: nil)),
                    error: .invalidKey(reason: "missing or non-integer alg")),
            Refusal(name: "alg as text", bytes: key(replacing(ec2, 3, with: .text("ES256"))),
                    error: .invalidKey(reason: "missing or non-integer alg")),
            Refusal(name: "kty as text", bytes: key(replacing(ec2, 1, with: .text("EC2"))),
                    error: .invalidKey(reason: "missing or non-integer kty")),
            Refusal(name: "private key included", bytes: key(ec2 + [(-4, .bytes([UInt8](repeating: 9, count: 32)))]),
                    error: .invalidKey(reason: "contains private key material")),
            Refusal(name: "x of 31 bytes", bytes: key(replacing(ec2, -2, with: .bytes(Array(x.dropFirst())))),
                    error: .invalidKey(reason: "not a valid P-256 point")),
            Refusal(name: "compressed point (y is a sign bit)", bytes: key(replacing(ec2, -3, with: .bool(true))),
                    error: .invalidKey(reason: "missing or compressed y coordinate")),
            Refusal(name: "point not on the curve", bytes: key(replacing(ec2, -3, with: .bytes(x))),
                    error: .invalidKey(reason: "not a valid P-256 point")),
            Refusal(name: "Ed25519 key of 33 bytes", bytes: key(replacing(okp, -2, with: .bytes([0] + ed25519.publicKey.rawRepresentation))),
                    error: .invalidKey(reason: "not a valid Ed25519 key")),
            Refusal(name: "OKP with a y", bytes: key(okp + [(-3, .bytes(y))]), error: .invalidKey(reason: "OKP key with a y coordinate")),
            Refusal(name: "an array, not a map", bytes: CBOR.array([.int(1), .int(2)]).encoded, error: .invalidKey(reason: "not a map")),
            Refusal(name: "truncated", bytes: Array(key(ec2).dropLast()), error: .malformedCBOR(CBORError(.unexpectedEnd, at: 76))),
            Refusal(name: "trailing byte", bytes: key(ec2) + [0], error: .malformedCBOR(CBORError(.trailingBytes, at: 77))),
            Refusal(name: "repeated label", bytes: key(ec2 + [(1, .int(2))]), error: .malformedCBOR(CBORError(.duplicateMapKey, at: 77))),
        ]
    }

    @Test(arguments: refusals)
    func refuses(_ refusal: Refusal) {
        #expect(throws: refusal.error) { try COSEKey(bytes: refusal.bytes) }
    }
}
