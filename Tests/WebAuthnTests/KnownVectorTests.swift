import Core
import Testing
import WebAuthn

@Suite("Known-good vectors (made with Python cryptography and cbor2)")
struct KnownVectorTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let registration: String
        let assertion: String
        let credentialId: String
        let coseKey: String
        let registrationChallenge: String
        let assertionChallenge: String
        let algorithm: COSEAlgorithm
        let attestation: AttestationKind
        let flags: AuthenticatorFlags
        var testDescription: String { name }
    }

    static let vectors = [
        Vector(name: "ES256, packed self-attestation, extensions",
               registration: KnownVectors.es256Registration, assertion: KnownVectors.es256Assertion,
               credentialId: "1940c3b75770548ed1dfb15d8583322667d5d368",
               coseKey: "a50102032620012158205317ffc11565fbd4e17424cdafc3d501f44d88c702302340bddad4089f919a2e"
                   + "2258206e877cb9a3d2844ee13dfd4d664717e65f86a2de7c30f7184bda86fa23088b0e",
               registrationChallenge: "cca6e5f0be4b8a102e1ab3867a46d129a827c209e50b9671a03161d4eb25474e",
               assertionChallenge: "cb1f1c876cf9495e0452790cb73218cf4182012f2f55ddba8d2f435bcf1347c6",
               algorithm: .es256, attestation: .selfAttestation,
               flags: [.userPresent, .userVerified, .attestedCredentialData, .extensionData]),
        Vector(name: "EdDSA, none, backed up",
               registration: KnownVectors.edDSARegistration, assertion: KnownVectors.edDSAAssertion,
               credentialId: "bcde918d692629711ee182fbfceef4a507cc2ca6",
               coseKey: "a40101032720062158206b7938f93468b307988460555aee5b82a1c896ea625eedf85b0de4fa1b541d52",
               registrationChallenge: "6da035488b59f242df5d601000b47a54f1d5615d257cce9ee06a338f2e8effec",
               assertionChallenge: "c232f0b423f78656f79df1e568cef72869f80cfcfda6b69d98b79ca678c54f1a",
               algorithm: .edDSA, attestation: .none,
               flags: [.userPresent, .userVerified, .backupEligible, .backedUp, .attestedCredentialData]),
    ]

    @Test(arguments: vectors)
    func verifies(_ vector: Vector) throws {
        let registration = try RegistrationResponse(json: JSON.parse(vector.registration))
        #expect(registration.transports == ["internal"])
        #expect(registration.authenticatorAttachment == "platform")
        let credential = try Fixture.relyingParty.verifyRegistration(registration, challenge: hex(vector.registrationChallenge))
        #expect(credential.id == hex(vector.credentialId))
        #expect(credential.publicKey.bytes == hex(vector.coseKey))
        #expect(credential.publicKey.algorithm == vector.algorithm)
        #expect(credential.aaguid == Array(0..<16))
        #expect(credential.attestation == vector.attestation)
        #expect(credential.flags == vector.flags)
        #expect(credential.signCount == 0)

        let stored = try COSEKey(bytes: hex(vector.coseKey))
        let assertion = try AssertionResponse(json: JSON.parse(vector.assertion))
        let verified = try Fixture.relyingParty.verifyAssertion(assertion, challenge: hex(vector.assertionChallenge),
                                                                credentialPublicKey: stored, storedSignCount: 3)
        #expect(verified.signCount == 7)
        #expect(verified.signCountStatus == .advanced)
        #expect(verified.userHandle == Array("user-\(vector.algorithm == .es256 ? "es256" : "edDSA")".utf8))
        #expect(verified.credentialId == hex(vector.credentialId))
    }

    @Test(arguments: vectors)
    func refusesWhenAnythingDiffers(_ vector: Vector) throws {
        let stored = try COSEKey(bytes: hex(vector.coseKey))
        let json = try JSON.parse(vector.assertion)
        let challenge = hex(vector.assertionChallenge)
        #expect(throws: WebAuthnError.challengeMismatch) {
            try verifyAssertion(json, key: stored, challenge: hex(vector.registrationChallenge))
        }
        let elsewhere = RelyingParty(id: Fixture.rpId, name: "x", allowedOrigins: ["https://login.example.org"])
        #expect(throws: WebAuthnError.originNotAllowed) { try verifyAssertion(json, key: stored, relyingParty: elsewhere, challenge: challenge) }
        let otherRP = RelyingParty(id: "example.com", name: "x", allowedOrigins: [Fixture.origin])
        #expect(throws: WebAuthnError.rpIdMismatch) { try verifyAssertion(json, key: stored, relyingParty: otherRP, challenge: challenge) }
        let tampered = json.changingResponse("signature") { $0[8] ^= 0x01 }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyAssertion(tampered, key: stored, challenge: challenge) }
        #expect(try verifyAssertion(json, key: stored, storedSignCount: 7, challenge: challenge).signCountStatus == .possibleClone)
        let registration = try JSON.parse(vector.registration)
        #expect(throws: WebAuthnError.wrongCeremonyType) {
            try verifyAssertion(json.settingResponse("clientDataJSON", registration["response"]?["clientDataJSON"]),
                                key: stored, challenge: hex(vector.registrationChallenge))
        }
    }
}
