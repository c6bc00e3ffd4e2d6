import Crypto
import Testing
import WebAuthn

@Suite("Authenticator data")
struct AuthenticatorDataTests {
    static let key = COSEKey(p256: try! P256PrivateKey().publicKey)
    static let attested = AttestedCredentialData(aaguid: Array(0..<16), credentialId: [0xAA, 0xBB, 0xCC], publicKey: key)
    static let rpIdHash = SHA256.hash("login.example.com".utf8)

    @Test func parsesTheFixedPart() throws {
        let bytes = Self.rpIdHash + [0x1D, 0x01, 0x02, 0x03, 0x04]
        let data = try AuthenticatorData(bytes: bytes)
        #expect(data.rpIdHash == Self.rpIdHash)
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible, .backedUp])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredentialData == nil)
        #expect(data.extensions == nil)
        #expect(data.bytes == bytes)
        #expect(data.matches(rpId: "login.example.com"))
        #expect(!data.matches(rpId: "example.com"))
    }

    @Test func roundTripsAttestedCredentialData() throws {
        let built = AuthenticatorData(rpId: "login.example.com", flags: [.userPresent], signCount: 42,
                                      attestedCredentialData: Self.attested)
        #expect(built.flags == [.userPresent, .attestedCredentialData])
        #expect(built.bytes.count == 37 + 16 + 2 + 3 + Self.key.bytes.count)
        let parsed = try AuthenticatorData(bytes: built.bytes)
        #expect(parsed == built)
        #expect(parsed.attestedCredentialData?.aaguid == Array(0..<16))
        #expect(parsed.attestedCredentialData?.credentialId == [0xAA, 0xBB, 0xCC])
        #expect(parsed.attestedCredentialData?.publicKey == Self.key)
    }

    @Test func skipsExtensions() throws {
        let extensions = CBOR.map([(.text("credProtect"), .int(2))]).encoded
        var withAttested = AuthenticatorData(rpId: "a.example", flags: [.userPresent], signCount: 0,
                                             attestedCredentialData: Self.attested).bytes
        withAttested[32] |= AuthenticatorFlags.extensionData.rawValue
        let parsed = try AuthenticatorData(bytes: withAttested + extensions)
        #expect(parsed.extensions == extensions)
        #expect(parsed.attestedCredentialData?.publicKey == Self.key)
        let onlyExtensions = try AuthenticatorData(bytes: Self.rpIdHash + [0x81, 0, 0, 0, 1] + extensions)
        #expect(onlyExtensions.extensions == extensions)
    }

    static func fixed(flags: UInt8) -> [UInt8] { rpIdHash + [flags, 0, 0, 0, 0] }

    static var withAT: [UInt8] {
        AuthenticatorData(rpId: "login.example.com", flags: [.userPresent], signCount: 0, attestedCredentialData: attested).bytes
    }

    @Test(arguments: [
        ("empty", [], "shorter than 37 bytes"),
        ("36 bytes", Array(fixed(flags: 1).dropLast()), "shorter than 37 bytes"),
        ("bytes after the fixed part, no flag", fixed(flags: 1) + [0], "unexpected bytes after the declared parts"),
        ("AT without data", fixed(flags: 0x41), "truncated attested credential data"),
        ("AT cut inside the aaguid", fixed(flags: 0x41) + [UInt8](repeating: 0, count: 10), "truncated attested credential data"),
        ("credential id length 0", fixed(flags: 0x41) + [UInt8](repeating: 0, count: 18), "credential id length out of range"),
        ("credential id length 1024", fixed(flags: 0x41) + [UInt8](repeating: 0, count: 16) + [0x04, 0x00], "credential id length out of range"),
        ("credential id past the end", fixed(flags: 0x41) + [UInt8](repeating: 0, count: 16) + [0x00, 0x09, 1, 2], "truncated credential id"),
        ("ED without extensions", fixed(flags: 0x81), nil),
        ("ED with a non-map", fixed(flags: 0x81) + [0x01], "extensions are not a map"),
        ("ED with extensions and more", fixed(flags: 0x81) + [0xA0, 0x00], "unexpected bytes after the declared parts"),
        ("AT data then trailing bytes", withAT + [0xA0], "unexpected bytes after the declared parts"),
        ("AT data with the key cut", Array(withAT.dropLast()), nil),
    ] as [(String, [UInt8], String?)])
    func refuses(_ name: String, _ bytes: [UInt8], _ reason: String?) {
        do {
            _ = try AuthenticatorData(bytes: bytes)
            Issue.record("accepted: \(name)")
        } catch {
            if let reason {
                #expect(error == .malformedAuthenticatorData(reason: reason), "\(name)")
            } else {
                guard case .malformedCBOR = error else { Issue.record("\(name): \(error)"); return }
            }
        }
    }

    @Test func refusesAnUnsupportedCredentialKey() {
        let rsa = CBOR.map([(.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes([1, 2])), (.int(-2), .bytes([1, 0, 1]))])
        let bytes = Self.fixed(flags: 0x41) + [UInt8](repeating: 0, count: 16) + [0, 1, 0xAA] + rsa.encoded
        #expect(throws: WebAuthnError.unsupportedKey) { try AuthenticatorData(bytes: bytes) }
    }
}
