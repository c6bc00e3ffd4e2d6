import Core
import Crypto
import Testing
import WebAuthn

@Suite("Assertion refusals")
struct AssertionRefusalTests {
    /// An assertion over hand-made client data, for what no browser sends.
    static func assertion(clientData: [UInt8], rpId: String = Fixture.rpId,
                          configure: (inout SoftwareAuthenticator) -> Void = { _ in }) throws -> (JSON, COSEKey) {
        var enrolled = try Enrolled()
        configure(&enrolled.authenticator)
        let json = try enrolled.authenticator.getAssertion(rpId: rpId, clientDataJSON: clientData,
                                                           credentialId: enrolled.credential.id)
        return (json, enrolled.credential.publicKey)
    }

    static func assertion(origin: String = Fixture.origin, algorithm: COSEAlgorithm = .es256,
                          configure: (inout SoftwareAuthenticator) -> Void = { _ in }) throws -> (JSON, COSEKey) {
        var enrolled = try Enrolled(algorithm: algorithm)
        configure(&enrolled.authenticator)
        return (try enrolled.assert(origin: origin), enrolled.credential.publicKey)
    }

    @Test func wrongCeremonyType() throws {
        let (json, key) = try Self.assertion(clientData: Fixture.clientData(type: CollectedClientData.createType))
        #expect(throws: WebAuthnError.wrongCeremonyType) { try verifyAssertion(json, key: key) }
        let (other, otherKey) = try Self.assertion(clientData: Fixture.clientData(type: "payment.get"))
        #expect(throws: WebAuthnError.wrongCeremonyType) { try verifyAssertion(other, key: otherKey) }
    }

    @Test func wrongChallenge() throws {
        let (json, key) = try Self.assertion()
        #expect(throws: WebAuthnError.challengeMismatch) { try verifyAssertion(json, key: key, challenge: Fixture.otherChallenge) }
        var flipped = Fixture.challenge
        flipped[0] ^= 0x80
        #expect(throws: WebAuthnError.challengeMismatch) { try verifyAssertion(json, key: key, challenge: flipped) }
    }

    @Test(arguments: RegistrationRefusalTests.lookAlikeOrigins)
    func originNotAllowed(_ origin: String) throws {
        let (json, key) = try Self.assertion(origin: origin)
        #expect(throws: WebAuthnError.originNotAllowed) { try verifyAssertion(json, key: key) }
    }

    @Test func crossOrigin() throws {
        let (json, key) = try Self.assertion(clientData: Fixture.clientData(type: CollectedClientData.getType, crossOrigin: true))
        #expect(throws: WebAuthnError.crossOriginNotAllowed) { try verifyAssertion(json, key: key) }
    }

    @Test(arguments: ["example.com", "evil.test", "login.example.com."])
    func wrongRPID(_ rpId: String) throws {
        // The software authenticator holds the credential under the
        // fixture's RP ID; sign for another by re-registering under it.
        var authenticator = SoftwareAuthenticator()
        let registration = try authenticator.makeCredential(
            rpId: rpId, userHandle: Fixture.userId, userName: "ada", clientDataJSON: Fixture.clientData(type: CollectedClientData.createType))
        let key = try COSEKey(bytes: authenticator.credentials[0].publicKey.bytes)
        _ = registration
        let json = try authenticator.getAssertion(rpId: rpId, clientDataJSON: Fixture.clientData(type: CollectedClientData.getType))
        #expect(throws: WebAuthnError.rpIdMismatch) { try verifyAssertion(json, key: key) }
    }

    @Test func userPresenceAndVerification() throws {
        let (absent, key) = try Self.assertion { $0.userPresent = false }
        #expect(throws: WebAuthnError.userNotPresent) { try verifyAssertion(absent, key: key) }
        let (unverified, key2) = try Self.assertion { $0.userVerified = false }
        #expect(throws: WebAuthnError.userNotVerified) { try verifyAssertion(unverified, key: key2) }
    }

    @Test func forgedFlagsBreakTheSignature() throws {
        // Setting UV afterwards: the flags are signed.
        let (json, key) = try Self.assertion { $0.userVerified = false }
        let forged = json.changingResponse("authenticatorData") { $0[32] |= AuthenticatorFlags.userVerified.rawValue }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(forged, key: key) }
    }

    @Test(arguments: COSEAlgorithm.allCases)
    func tampering(_ algorithm: COSEAlgorithm) throws {
        let (json, key) = try Self.assertion(algorithm: algorithm)
        #expect(throws: Never.self) { try verifyAssertion(json, key: key) }
        let counter = json.changingResponse("authenticatorData") { $0[36] &+= 1 }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(counter, key: key) }
        let clientData = json.changingResponse("clientDataJSON") { $0.insert(UInt8(ascii: " "), at: 0) }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(clientData, key: key) }
        let signature = json.changingResponse("signature") { $0[$0.count / 2] ^= 0x40 }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(signature, key: key) }
        let truncated = json.changingResponse("signature") { $0.removeLast() }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(truncated, key: key) }
        let extended = json.changingResponse("signature") { $0.append(0) }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(extended, key: key) }
        let empty = json.changingResponse("signature") { $0 = [] }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(empty, key: key) }
        let shortData = json.changingResponse("authenticatorData") { $0.removeLast() }
        #expect(throws: WebAuthnError.malformedAuthenticatorData(reason: "shorter than 37 bytes")) {
            try verifyAssertion(shortData, key: key)
        }
        let longData = json.changingResponse("authenticatorData") { $0.append(0) }
        #expect(throws: WebAuthnError.malformedAuthenticatorData(reason: "unexpected bytes after the declared parts")) {
            try verifyAssertion(longData, key: key)
        }
    }

    @Test func anotherCredentialsKey() throws {
        let (json, _) = try Self.assertion()
        let (_, otherKey) = try Self.assertion()
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(json, key: otherKey) }
        let (_, edKey) = try Self.assertion(algorithm: .edDSA)
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(json, key: edKey) }
    }

    @Test func attestedCredentialDataInAnAssertion() throws {
        let key = COSEKey(p256: try P256PrivateKey().publicKey)
        let attested = AttestedCredentialData(aaguid: [UInt8](repeating: 0, count: 16), credentialId: [1], publicKey: key)
        let data = AuthenticatorData(rpId: Fixture.rpId, flags: [.userPresent, .userVerified], signCount: 1,
                                     attestedCredentialData: attested)
        let (json, storedKey) = try Self.assertion()
        let withAT = json.changingResponse("authenticatorData") { $0 = data.bytes }
        #expect(throws: WebAuthnError.attestedCredentialDataMismatch) { try verifyAssertion(withAT, key: storedKey) }
    }

    @Test func malformedResponse() throws {
        let (json, key) = try Self.assertion()
        for field in ["clientDataJSON", "authenticatorData", "signature"] {
            #expect(throws: WebAuthnError.malformedResponse(field: "response.\(field)")) {
                try verifyAssertion(json.settingResponse(field, nil), key: key)
            }
        }
        #expect(throws: WebAuthnError.malformedResponse(field: "response.userHandle")) {
            try verifyAssertion(json.settingResponse("userHandle", 7), key: key)
        }
        #expect(throws: WebAuthnError.malformedResponse(field: "response")) {
            try verifyAssertion(json.setting("response", "x"), key: key)
        }
        #expect(throws: WebAuthnError.wrongCredentialType) { try verifyAssertion(json.setting("type", "public_key"), key: key) }
    }
}
