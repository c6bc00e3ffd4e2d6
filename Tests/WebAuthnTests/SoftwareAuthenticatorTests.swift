import Core
import Crypto
import Testing
import WebAuthn

@Suite("Software authenticator")
struct SoftwareAuthenticatorTests {
    static func decoded(_ json: JSON, _ field: String) -> [UInt8] {
        Base64URL.decode(json["response"]?[field]?.stringValue ?? "") ?? []
    }

    @Test func clientDataIsSerializedLikeABrowser() throws {
        var authenticator = SoftwareAuthenticator()
        let registration = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin)
        #expect(String(decoding: Self.decoded(registration, "clientDataJSON"), as: UTF8.self) == """
            {"type":"webauthn.create","challenge":"AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw",\
            "origin":"https://login.example.com","crossOrigin":false}
            """)
        let assertion = try authenticator.getAssertion(options: Fixture.requestOptions(), origin: Fixture.origin)
        #expect(String(decoding: Self.decoded(assertion, "clientDataJSON"), as: UTF8.self) == """
            {"type":"webauthn.get","challenge":"AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw",\
            "origin":"https://login.example.com","crossOrigin":false}
            """)
    }

    @Test func registrationJSONHasTheBrowserShape() throws {
        var authenticator = SoftwareAuthenticator()
        let json = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin)
        #expect(json["id"] == json["rawId"])
        #expect(json["type"] == "public-key")
        #expect(json["authenticatorAttachment"] == "platform")
        #expect(json["clientExtensionResults"] == .object(JSONObject()))
        #expect(json["response"]?["publicKeyAlgorithm"] == -7)
        let credential = try #require(authenticator.credentials.first)
        guard case .p256(let key) = credential.publicKey.publicKey else { Issue.record("not P-256"); return }
        #expect(Self.decoded(json, "publicKey") == hex("3059301306072a8648ce3d020106082a8648ce3d030107034200 04") + key.x + key.y)
        let attestationObject = try CBOR.decode(Self.decoded(json, "attestationObject"))
        #expect(attestationObject.mapValue?.map(\.key) == [.text("fmt"), .text("attStmt"), .text("authData")])
        #expect(attestationObject[text: "authData"]?.bytesValue == Self.decoded(json, "authenticatorData"))
        #expect(credential.description == "SoftwareCredential(ES256, <redacted>)")
        #expect(credential.rpId == Fixture.rpId && credential.userHandle == Fixture.userId && credential.userName == "ada@example.com")
    }

    @Test func edDSAPublicKeyInfo() throws {
        var authenticator = SoftwareAuthenticator()
        let json = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin, algorithm: .edDSA)
        #expect(json["response"]?["publicKeyAlgorithm"] == -8)
        #expect(Self.decoded(json, "publicKey").prefix(12) == hex("302a300506032b6570032100")[...])
    }

    @Test func excludedCredentialIsRefused() throws {
        var authenticator = SoftwareAuthenticator()
        _ = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin)
        let id = authenticator.credentials[0].id
        #expect(throws: WebAuthnError.credentialExcluded) {
            try authenticator.makeCredential(options: Fixture.creationOptions(exclude: [[9], id]), origin: Fixture.origin)
        }
        #expect(authenticator.credentials.count == 1)
    }

    @Test func reRegisteringTheSameUserReplacesTheCredential() throws {
        var authenticator = SoftwareAuthenticator()
        _ = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin)
        let first = authenticator.credentials[0].id
        _ = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin, algorithm: .edDSA)
        #expect(authenticator.credentials.count == 1)
        #expect(authenticator.credentials[0].id != first)
        #expect(authenticator.credentials[0].algorithm == .edDSA)
    }

    @Test func algorithmMustBeOffered() throws {
        var authenticator = SoftwareAuthenticator()
        var options = Fixture.creationOptions()
        options = options.setting("pubKeyCredParams", [["type": "public-key", "alg": -257]])
        #expect(throws: WebAuthnError.noSupportedAlgorithm) { try authenticator.makeCredential(options: options, origin: Fixture.origin) }
        let onlyEd = options.setting("pubKeyCredParams", [["type": "public-key", "alg": -8]])
        #expect(throws: WebAuthnError.noSupportedAlgorithm) { try authenticator.makeCredential(options: onlyEd, origin: Fixture.origin) }
        #expect(throws: Never.self) { try authenticator.makeCredential(options: onlyEd, origin: Fixture.origin, algorithm: .edDSA) }
    }

    @Test func picksTheCredential() throws {
        var authenticator = SoftwareAuthenticator()
        #expect(throws: WebAuthnError.noCredential) { try authenticator.getAssertion(options: Fixture.requestOptions(), origin: Fixture.origin) }
        for user in [[UInt8(1)], [2], [3]] {
            let options = PublicKeyCredentialCreationOptions(relyingParty: Fixture.relyingParty, userId: user, userName: "u",
                                                             userDisplayName: "U", challenge: Fixture.challenge).json
            _ = try authenticator.makeCredential(options: options, origin: Fixture.origin)
        }
        let ids = authenticator.credentials.map(\.id)
        func handle(_ json: JSON) -> [UInt8]? { Base64URL.decode(json["response"]?["userHandle"]?.stringValue ?? "") }
        // Discoverable: the newest. Allow list: the newest listed. Explicit: that one.
        #expect(handle(try authenticator.getAssertion(options: Fixture.requestOptions(), origin: Fixture.origin)) == [3])
        #expect(handle(try authenticator.getAssertion(options: Fixture.requestOptions(allow: [ids[0], ids[1]]), origin: Fixture.origin)) == [2])
        #expect(handle(try authenticator.getAssertion(options: Fixture.requestOptions(), origin: Fixture.origin, credentialId: ids[0])) == [1])
        #expect(throws: WebAuthnError.noCredential) {
            try authenticator.getAssertion(options: Fixture.requestOptions(allow: [[7, 7]]), origin: Fixture.origin)
        }
        let otherRP = PublicKeyCredentialRequestOptions(rpId: "other.example", challenge: [1]).json
        #expect(throws: WebAuthnError.noCredential) { try authenticator.getAssertion(options: otherRP, origin: "https://other.example") }
        #expect(authenticator.credentials.map(\.signCount) == [1, 1, 1])
    }

    @Test func rpIdDefaultsToTheOriginsHost() throws {
        var authenticator = SoftwareAuthenticator()
        let options = Fixture.creationOptions().setting("rp", ["name": "Example"])
        _ = try authenticator.makeCredential(options: options, origin: "https://login.example.com:8443")
        #expect(authenticator.credentials[0].rpId == "login.example.com")
        let request = Fixture.requestOptions().setting("rpId", nil)
        #expect(throws: Never.self) { try authenticator.getAssertion(options: request, origin: "https://login.example.com/x") }
        #expect(throws: WebAuthnError.invalidOptions(field: "rpId")) {
            try authenticator.getAssertion(options: request, origin: "android:apk-key-hash:abc")
        }
    }

    @Test(arguments: [
        ("challenge", JSON.null, "challenge"), ("challenge", "", "challenge"), ("challenge", "a=", "challenge"),
        ("user", "x", "user"), ("pubKeyCredParams", "x", "pubKeyCredParams"), ("excludeCredentials", [["type": "public-key"]], "excludeCredentials"),
    ] as [(String, JSON, String)])
    func invalidCreationOptions(_ key: String, _ value: JSON, _ field: String) {
        var authenticator = SoftwareAuthenticator()
        #expect(throws: WebAuthnError.invalidOptions(field: field)) {
            try authenticator.makeCredential(options: Fixture.creationOptions().setting(key, value), origin: Fixture.origin)
        }
    }

    @Test func userIdMustBeOneTo64Bytes() {
        var authenticator = SoftwareAuthenticator()
        for id in [[UInt8](), [UInt8](repeating: 1, count: 65)] {
            let options = PublicKeyCredentialCreationOptions(relyingParty: Fixture.relyingParty, userId: id, userName: "u",
                                                             userDisplayName: "U", challenge: [1]).json
            #expect(throws: WebAuthnError.invalidOptions(field: "user.id")) {
                try authenticator.makeCredential(options: options, origin: Fixture.origin)
            }
        }
    }
}
