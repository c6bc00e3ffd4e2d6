import Testing
@testable import Crypto

@Suite("P-256 ECDSA (ES256)")
struct P256Tests {
    // RFC 6979 Appendix A.2.5: P-256, SHA-256, message "sample".
    static let rfcKey = (
        x: hex("60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"),
        y: hex("7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"))
    static let rfcRaw = hex("efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
        + "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8")
    static let rfcDER = hex("3046022100efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
        + "022100f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8")
    static let sample = Array("sample".utf8)

    @Test func verifiesRFC6979Vector() throws {
        let key = try P256PublicKey(x: Self.rfcKey.x, y: Self.rfcKey.y)
        #expect(key.isValidSignature(derSignature: Self.rfcDER, for: Self.sample))
        #expect(key.isValidSignature(rawSignature: Self.rfcRaw, for: Self.sample))
        #expect(!key.isValidSignature(derSignature: Self.rfcDER, for: Array("samplf".utf8)))
        #expect(!key.isValidSignature(rawSignature: Self.rfcRaw.flippingBit(at: 63), for: Self.sample))
    }

    @Test func derAndRawConvertBothWays() throws {
        #expect(Self.rfcDER.withUnsafeBytes { ECDSASignature.raw(fromDER: $0) } == Self.rfcRaw)
        #expect(Self.rfcRaw.withUnsafeBytes { ECDSASignature.der(fromRaw: $0) } == Self.rfcDER)
        #expect((Self.rfcDER + [0]).withUnsafeBytes { ECDSASignature.raw(fromDER: $0) } == nil)
        #expect(Self.rfcRaw.dropLast().withUnsafeBytes { ECDSASignature.der(fromRaw: $0) } == nil)
    }

    @Test func signAndVerifyRoundTrip() throws {
        let privateKey = try P256PrivateKey()
        let message = Array("webauthn authenticatorData ‖ clientDataHash".utf8)
        let der = try privateKey.signature(for: message)
        let raw = try privateKey.rawSignature(for: message)
        #expect(der.first == 0x30 && der.count <= 72)
        #expect(raw.count == 64)
        #expect(privateKey.publicKey.isValidSignature(derSignature: der, for: message))
        #expect(privateKey.publicKey.isValidSignature(rawSignature: raw, for: message))
        // The exported coordinates rebuild the same key.
        let rebuilt = try P256PublicKey(x: privateKey.publicKey.x, y: privateKey.publicKey.y)
        #expect(rebuilt == privateKey.publicKey)
        #expect(rebuilt.isValidSignature(derSignature: der, for: message))
    }

    @Test func refusesChangedMessageWrongKeyAndMalformedSignatures() throws {
        let privateKey = try P256PrivateKey()
        let other = try P256PrivateKey()
        let message = Array("message".utf8)
        let der = try privateKey.signature(for: message)
        let raw = try privateKey.rawSignature(for: message)
        #expect(!privateKey.publicKey.isValidSignature(derSignature: der, for: Array("messagf".utf8)))
        #expect(!privateKey.publicKey.isValidSignature(rawSignature: raw, for: [UInt8]()))
        #expect(!other.publicKey.isValidSignature(derSignature: der, for: message))
        #expect(!other.publicKey.isValidSignature(rawSignature: raw, for: message))
        #expect(!privateKey.publicKey.isValidSignature(derSignature: der + [0], for: message))
        #expect(!privateKey.publicKey.isValidSignature(derSignature: raw, for: message))
        #expect(!privateKey.publicKey.isValidSignature(derSignature: [UInt8](), for: message))
        #expect(!privateKey.publicKey.isValidSignature(rawSignature: der, for: message))
        #expect(!privateKey.publicKey.isValidSignature(rawSignature: [UInt8](repeating: 0, count: 64), for: message))
    }

    @Test func refusesPointsOffTheCurveAndBadSizes() {
        #expect(throws: CryptoError.self) {
            try P256PublicKey(x: Self.rfcKey.x, y: Self.rfcKey.y.flippingBit(at: 31))
        }
        #expect(throws: CryptoError.self) {
            try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 31)) {
            try P256PublicKey(x: Self.rfcKey.x.dropFirst(), y: Self.rfcKey.y)
        }
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 33)) {
            try P256PublicKey(x: Self.rfcKey.x, y: [0] + Self.rfcKey.y)
        }
    }

    @Test func privateKeysDoNotPrintKeyMaterial() throws {
        #expect("\(try P256PrivateKey())" == "P256PrivateKey(<redacted>)")
    }
}
