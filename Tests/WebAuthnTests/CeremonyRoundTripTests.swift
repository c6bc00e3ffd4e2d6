import Core
import Crypto
import Testing
import WebAuthn

@Suite("Ceremonies: software authenticator to verifier")
struct CeremonyRoundTripTests {
    @Test(arguments: COSEAlgorithm.allCases, [SoftwareAuthenticator.AttestationFormat.none, .packedSelf])
    func registersAndSignsIn(_ algorithm: COSEAlgorithm, _ format: SoftwareAuthenticator.AttestationFormat) throws {
        var authenticator = SoftwareAuthenticator(attestationFormat: format)
        let registration = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin,
                                                            algorithm: algorithm)
        let credential = try verifyRegistration(registration)
        #expect(credential.publicKey.algorithm == algorithm)
        #expect(credential.attestation == (format == .none ? .none : .selfAttestation))
        #expect(credential.id == authenticator.credentials.last?.id)
        #expect(credential.signCount == 0)
        #expect(credential.aaguid == [UInt8](repeating: 0, count: 16))
        #expect(credential.flags.contains([.userPresent, .userVerified]))
        #expect(!credential.isBackupEligible && !credential.isBackedUp)
        #expect(credential.transports == ["internal", "hybrid"])

        // The relying party stores the COSE bytes and reads them back.
        let stored = try COSEKey(bytes: credential.publicKey.bytes)
        var storedCount = credential.signCount
        for expected in UInt32(1)...3 {
            let challenge = try SecureRandom.bytes(count: 32)
            let assertion = try authenticator.getAssertion(options: Fixture.requestOptions(challenge: challenge),
                                                           origin: Fixture.origin)
            let response = try AssertionResponse(json: assertion)
            #expect(response.credentialId == credential.id)
            #expect(response.userHandle == Fixture.userId)
            let verified = try Fixture.relyingParty.verifyAssertion(response, challenge: challenge,
                                                                    credentialPublicKey: stored, storedSignCount: storedCount)
            #expect(verified.signCount == expected)
            #expect(verified.signCountStatus == .advanced)
            #expect(verified.userHandle == Fixture.userId)
            #expect(verified.credentialId == credential.id)
            #expect(verified.isUserVerified)
            storedCount = verified.signCount
        }
    }

    @Test(arguments: COSEAlgorithm.allCases)
    func syncedPasskeyWithoutCounter(_ algorithm: COSEAlgorithm) throws {
        var enrolled = try Enrolled(algorithm: algorithm) { authenticator in
            authenticator.backupEligible = true
            authenticator.backedUp = true
            authenticator.countsSignatures = false
        }
        #expect(enrolled.credential.isBackupEligible && enrolled.credential.isBackedUp)
        let verified = try verifyAssertion(try enrolled.assert(), key: enrolled.credential.publicKey)
        #expect(verified.signCount == 0)
        #expect(verified.signCountStatus == .notSupported)
        #expect(verified.isBackedUp)
    }

    @Test func acceptsOptionsWrappedInPublicKey() throws {
        var authenticator = SoftwareAuthenticator()
        let creation: JSON = ["publicKey": Fixture.creationOptions()]
        let credential = try verifyRegistration(try authenticator.makeCredential(options: creation, origin: Fixture.origin))
        let request: JSON = ["publicKey": Fixture.requestOptions()]
        let assertion = try authenticator.getAssertion(options: request, origin: Fixture.origin)
        #expect(try verifyAssertion(assertion, key: credential.publicKey).signCountStatus == .advanced)
    }

    @Test func preferredUserVerificationAcceptsMissingUV() throws {
        let relaxed = RelyingParty(id: Fixture.rpId, name: "Example", userVerification: .preferred)
        var authenticator = SoftwareAuthenticator()
        authenticator.userVerified = false
        let registration = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin)
        let credential = try verifyRegistration(registration, relyingParty: relaxed)
        #expect(!credential.flags.contains(.userVerified))
        let assertion = try authenticator.getAssertion(options: Fixture.requestOptions(), origin: Fixture.origin)
        let verified = try verifyAssertion(assertion, key: credential.publicKey, relyingParty: relaxed)
        #expect(!verified.isUserVerified)
    }

    @Test func nativeAppOriginsMatchWhenListed() throws {
        let android = "android:apk-key-hash:NLqq6FmMm1YS2YcmSdmc2GG4wrdZ8xXcwjRBE4dR8kI"
        let relyingParty = RelyingParty(id: Fixture.rpId, name: "Example", allowedOrigins: [Fixture.origin, android])
        var authenticator = SoftwareAuthenticator()
        let registration = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: android)
        let credential = try verifyRegistration(registration, relyingParty: relyingParty)
        let assertion = try authenticator.getAssertion(options: Fixture.requestOptions(), origin: android)
        #expect(throws: Never.self) { try verifyAssertion(assertion, key: credential.publicKey, relyingParty: relyingParty) }
        #expect(throws: WebAuthnError.originNotAllowed) { try verifyAssertion(assertion, key: credential.publicKey) }
    }

    @Test func unknownFieldsAndNullsInTheResponseAreIgnored() throws {
        var enrolled = try Enrolled()
        let assertion = try enrolled.assert()
            .setting("authenticatorAttachment", .null)
            .setting("somethingNew", ["nested": true])
            .settingResponse("userHandle", .null)
        let verified = try verifyAssertion(assertion, key: enrolled.credential.publicKey)
        #expect(verified.userHandle == nil)
    }
}
