import Core
import Crypto
import Testing
import WebAuthn

@Suite("Registration refusals")
struct RegistrationRefusalTests {
    /// A fresh registration from a software authenticator configured by `configure`.
    static func registration(origin: String = Fixture.origin, format: SoftwareAuthenticator.AttestationFormat = .none,
                             configure: (inout SoftwareAuthenticator) -> Void = { _ in }) throws -> JSON {
        var authenticator = SoftwareAuthenticator(attestationFormat: format)
        configure(&authenticator)
        return try authenticator.makeCredential(options: Fixture.creationOptions(), origin: origin)
    }

    /// A registration over hand-made client data, for what no browser sends.
    static func registration(clientData: [UInt8], rpId: String = Fixture.rpId,
                             format: SoftwareAuthenticator.AttestationFormat = .none) throws -> JSON {
        var authenticator = SoftwareAuthenticator(attestationFormat: format)
        return try authenticator.makeCredential(rpId: rpId, userHandle: Fixture.userId, userName: "ada",
                                                clientDataJSON: clientData)
    }

    @Test func wrongCeremonyType() throws {
        let json = try Self.registration(clientData: Fixture.clientData(type: CollectedClientData.getType))
        #expect(throws: WebAuthnError.wrongCeremonyType) { try verifyRegistration(json) }
        let made = try Self.registration(clientData: Fixture.clientData(type: "webauthn.create "))
        #expect(throws: WebAuthnError.wrongCeremonyType) { try verifyRegistration(made) }
    }

    @Test func wrongChallenge() throws {
        let json = try Self.registration()
        #expect(throws: WebAuthnError.challengeMismatch) { try verifyRegistration(json, challenge: Fixture.otherChallenge) }
        #expect(throws: WebAuthnError.challengeMismatch) { try verifyRegistration(json, challenge: Array(Fixture.challenge.dropLast())) }
        #expect(throws: WebAuthnError.challengeMismatch) { try verifyRegistration(json, challenge: []) }
    }

    @Test func shortExpectedChallengeNeverMatches() throws {
        let short = Array(Fixture.challenge.prefix(15))
        var authenticator = SoftwareAuthenticator()
        let json = try authenticator.makeCredential(options: Fixture.creationOptions(challenge: short), origin: Fixture.origin)
        #expect(throws: WebAuthnError.challengeMismatch) { try verifyRegistration(json, challenge: short) }
        let empty = try Self.registration(clientData: Array(#"{"type":"webauthn.create","challenge":"","origin":"https://login.example.com"}"#.utf8))
        #expect(throws: WebAuthnError.challengeMismatch) { try verifyRegistration(empty, challenge: []) }
    }

    @Test(arguments: [
        #"{"type":"webauthn.create","challenge":"AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw=","origin":"https://login.example.com"}"#,
        #"{"type":"webauthn.create","challenge":"not base64url!","origin":"https://login.example.com"}"#,
        #"{"type":"webauthn.create","challenge":"","origin":"https://login.example.com"}"#,
    ])
    func challengeThatDoesNotDecode(_ clientData: String) throws {
        let json = try Self.registration(clientData: Array(clientData.utf8))
        #expect(throws: WebAuthnError.challengeMismatch) { try verifyRegistration(json) }
    }

    static let lookAlikeOrigins = [
        "https://login.example.com.evil.test", "https://login.example.co", "https://evil-login.example.com",
        "https://login.example.com:443", "https://login.example.com/", "https://LOGIN.example.com",
        "http://login.example.com", "https://l\u{043E}gin.example.com", "https://xn--lgin-8cd.example.com",
        "https://login.example.com\u{200B}", " https://login.example.com", "https://example.com", "null", "",
    ]

    @Test(arguments: lookAlikeOrigins)
    func originNotAllowed(_ origin: String) throws {
        let json = try Self.registration(origin: origin)
        #expect(throws: WebAuthnError.originNotAllowed) { try verifyRegistration(json) }
    }

    @Test func originMatchesBytesNotCanonicalEquivalence() throws {
        // Swift's == calls these equal; the relying party must not.
        let relyingParty = RelyingParty(id: "caf\u{E9}.example", name: "Caf\u{E9}", allowedOrigins: ["https://caf\u{E9}.example"])
        var authenticator = SoftwareAuthenticator()
        let options = PublicKeyCredentialCreationOptions(relyingParty: relyingParty, userId: [1], userName: "a",
                                                         userDisplayName: "A", challenge: Fixture.challenge).json
        let decomposed = try authenticator.makeCredential(options: options, origin: "https://cafe\u{301}.example")
        #expect(throws: WebAuthnError.originNotAllowed) { try verifyRegistration(decomposed, relyingParty: relyingParty) }
        let composed = try authenticator.makeCredential(options: options, origin: "https://caf\u{E9}.example")
        #expect(throws: Never.self) { try verifyRegistration(composed, relyingParty: relyingParty) }
    }

    @Test func crossOrigin() throws {
        let json = try Self.registration(clientData: Fixture.clientData(type: CollectedClientData.createType, crossOrigin: true))
        #expect(throws: WebAuthnError.crossOriginNotAllowed) { try verifyRegistration(json) }
    }

    @Test(arguments: ["example.com", "evil.test", "login.example.com.", "LOGIN.example.com", ""])
    func wrongRPID(_ rpId: String) throws {
        let json = try Self.registration(clientData: Fixture.clientData(type: CollectedClientData.createType), rpId: rpId)
        #expect(throws: WebAuthnError.rpIdMismatch) { try verifyRegistration(json) }
    }

    @Test func userPresenceAndVerification() throws {
        let absent = try Self.registration { $0.userPresent = false }
        #expect(throws: WebAuthnError.userNotPresent) { try verifyRegistration(absent) }
        let unverified = try Self.registration { $0.userVerified = false }
        #expect(throws: WebAuthnError.userNotVerified) { try verifyRegistration(unverified) }
    }

    @Test func backedUpWithoutEligibility() throws {
        let json = try Self.registration { $0.backedUp = true }
        #expect(throws: WebAuthnError.invalidBackupFlags) { try verifyRegistration(json) }
    }

    @Test func tamperedWithUnderPackedSelfAttestation() throws {
        let json = try Self.registration(format: .packedSelf)
        #expect(throws: Never.self) { try verifyRegistration(json) }
        let clientData = json.changingResponse("clientDataJSON") { $0.append(UInt8(ascii: " ")) }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyRegistration(clientData) }
        let signature = json.changingAttestationObject { entries in
            guard case .map(var statement) = entries.first(where: { $0.key == .text("attStmt") })!.value,
                  case .bytes(var sig) = statement[1].value else { preconditionFailure() }
            sig[sig.count - 1] ^= 0x01
            statement[1].value = .bytes(sig)
            replace("attStmt", with: .map(statement), in: &entries)
        }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyRegistration(signature) }
        let authData = json.changingAttestationObject { entries in
            guard case .bytes(var data) = entries.first(where: { $0.key == .text("authData") })!.value else { preconditionFailure() }
            data[36] ^= 0x01  // the sign count
            replace("authData", with: .bytes(data), in: &entries)
        }
        #expect(throws: WebAuthnError.invalidSignature) { try verifyRegistration(authData) }
    }

    @Test func packedAlgorithmMustMatchTheKey() throws {
        let json = try Self.registration(format: .packedSelf).changingAttestationObject { entries in
            guard case .map(var statement) = entries.first(where: { $0.key == .text("attStmt") })!.value else { preconditionFailure() }
            statement[0].value = .int(COSEAlgorithm.edDSA.rawValue)
            replace("attStmt", with: .map(statement), in: &entries)
        }
        #expect(throws: WebAuthnError.invalidAttestationStatement(reason: "alg differs from the credential key")) {
            try verifyRegistration(json)
        }
    }

    @Test func packedWithoutSignature() throws {
        let json = try Self.registration().changingAttestationObject { entries in
            replace("fmt", with: .text("packed"), in: &entries)
            replace("attStmt", with: .map([(.text("alg"), .int(-7))]), in: &entries)
        }
        #expect(throws: WebAuthnError.invalidAttestationStatement(reason: "missing sig")) { try verifyRegistration(json) }
    }

    @Test func noneMustHaveAnEmptyStatement() throws {
        let json = try Self.registration().changingAttestationObject { entries in
            replace("attStmt", with: .map([(.text("alg"), .int(-7))]), in: &entries)
        }
        #expect(throws: WebAuthnError.invalidAttestationStatement(reason: "none with a statement")) { try verifyRegistration(json) }
    }

    @Test(arguments: ["fido-u2f", "tpm", "android-key", "android-safetynet", "apple", "NONE", "packed-x5c"])
    func otherFormatsDependOnThePolicy(_ format: String) throws {
        let json = try Self.registration(format: .packedSelf).changingAttestationObject { entries in
            if format == "packed-x5c" {
                replace("attStmt", with: .map([(.text("alg"), .int(-7)), (.text("sig"), .bytes([0x30])),
                                               (.text("x5c"), .array([.bytes([0x30, 0x00])]))]), in: &entries)
            } else {
                replace("fmt", with: .text(format), in: &entries)
            }
        }
        #expect(throws: WebAuthnError.unsupportedAttestationFormat) { try verifyRegistration(json) }
        let lenient = RelyingParty(id: Fixture.rpId, name: "Example", attestationPolicy: .acceptUnverified)
        #expect(try verifyRegistration(json, relyingParty: lenient).attestation == .unverified)
    }

    @Test func unknownCredentialKeyType() throws {
        let rsa = CBOR.map([(.int(1), .int(3)), (.int(3), .int(-257)),
                            (.int(-1), .bytes([UInt8](repeating: 0xC5, count: 256))), (.int(-2), .bytes([1, 0, 1]))])
        let id: [UInt8] = Array(0..<16)
        let authData = SHA256.hash(Fixture.rpId.utf8) + [0x45, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
            + [0, UInt8(id.count)] + id + rsa.encoded
        let json = try Self.registration().changingAttestationObject { entries in
            replace("authData", with: .bytes(authData), in: &entries)
        }.setting("id", .string(Base64URL.encode(id))).setting("rawId", .string(Base64URL.encode(id)))
        #expect(throws: WebAuthnError.unsupportedKey) { try verifyRegistration(json) }
    }

    @Test func attestationObjectShape() throws {
        let json = try Self.registration()
        let truncated = json.changingResponse("attestationObject") { $0.removeLast() }
        #expect(throws: WebAuthnError.self) { try verifyRegistration(truncated) }
        do { _ = try verifyRegistration(truncated) } catch {
            guard case .malformedCBOR(let cbor) = error else { Issue.record("\(error)"); return }
            #expect(cbor.reason == .unexpectedEnd)
        }
        var length = 0
        let trailing = json.changingResponse("attestationObject") { length = $0.count; $0.append(0) }
        #expect(throws: WebAuthnError.malformedCBOR(CBORError(.trailingBytes, at: length))) { try verifyRegistration(trailing) }
        let noAuthData = json.changingAttestationObject { $0.removeAll { $0.key == .text("authData") } }
        #expect(throws: WebAuthnError.malformedAttestationObject(reason: "missing authData")) { try verifyRegistration(noAuthData) }
        let notMap = json.changingResponse("attestationObject") { $0 = CBOR.array([]).encoded }
        #expect(throws: WebAuthnError.malformedAttestationObject(reason: "not a map")) { try verifyRegistration(notMap) }
    }

    @Test func registrationWithoutAttestedCredentialData() throws {
        let json = try Self.registration().changingAttestationObject { entries in
            let bare = AuthenticatorData(rpId: Fixture.rpId, flags: [.userPresent, .userVerified], signCount: 0)
            replace("authData", with: .bytes(bare.bytes), in: &entries)
        }
        #expect(throws: WebAuthnError.attestedCredentialDataMismatch) { try verifyRegistration(json) }
    }

    @Test func credentialIdentity() throws {
        let json = try Self.registration()
        let other = JSON.string(Base64URL.encode([1, 2, 3, 4]))
        #expect(throws: WebAuthnError.credentialIdMismatch) { try verifyRegistration(json.setting("id", other).setting("rawId", other)) }
        #expect(throws: WebAuthnError.credentialIdMismatch) { try verifyRegistration(json.setting("id", other)) }
        #expect(throws: WebAuthnError.wrongCredentialType) { try verifyRegistration(json.setting("type", "password")) }
    }

    @Test(arguments: [
        ("rawId", "rawId"), ("id", "id"), ("type", "type"), ("response", "response"),
    ])
    func missingTopLevelField(_ key: String, _ field: String) throws {
        let json = try Self.registration().setting(key, nil)
        #expect(throws: WebAuthnError.malformedResponse(field: field)) { try verifyRegistration(json) }
    }

    @Test func malformedResponseFields() throws {
        let json = try Self.registration()
        let missing = json.settingResponse("attestationObject", nil)
        #expect(throws: WebAuthnError.malformedResponse(field: "response.attestationObject")) { try verifyRegistration(missing) }
        let padded = json.settingResponse("clientDataJSON", "e30=")
        #expect(throws: WebAuthnError.malformedResponse(field: "response.clientDataJSON")) { try verifyRegistration(padded) }
        let transports = json.settingResponse("transports", [1])
        #expect(throws: WebAuthnError.malformedResponse(field: "response.transports")) { try verifyRegistration(transports) }
        #expect(throws: WebAuthnError.malformedResponse(field: "credential")) { try verifyRegistration(["x", "y"]) }
    }

    @Test(arguments: [
        (#"{"type":"webauthn.create","type":"webauthn.create","challenge":"AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw","origin":"https://login.example.com"}"#,
         "duplicate key in object at byte 26"),
        (#"{"challenge":"AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw","origin":"https://login.example.com"}"#, "missing type"),
        (#"{"type":"webauthn.create","challenge":"AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw"}"#, "missing origin"),
        (#"{"type":"webauthn.create","origin":"https://login.example.com"}"#, "missing challenge"),
        (#"{"type":"webauthn.create","challenge":"AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw","origin":"https://login.example.com","crossOrigin":"false"}"#,
         "crossOrigin is not a boolean"),
        (#"["webauthn.create"]"#, "not an object"),
        ("?", "expected a value at byte 0"),
    ])
    func malformedClientData(_ clientData: String, _ reason: String) throws {
        let json = try Self.registration(clientData: Array(clientData.utf8))
        #expect(throws: WebAuthnError.malformedClientData(reason: reason)) { try verifyRegistration(json) }
    }

    @Test func fixtureChallengeIsWhatTheTablesSpell() {
        #expect(Base64URL.encode(Fixture.challenge) == "AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw")
    }
}
