import Core
import Testing
import WebAuthn

@Suite("Options JSON")
struct OptionsTests {
    @Test func creationOptions() {
        let options = PublicKeyCredentialCreationOptions(
            relyingParty: RelyingParty(id: "login.example.com", name: "Example"), userId: [0xFB, 0xFF, 0x01],
            userName: "ada@example.com", userDisplayName: "Ada \"L\"", challenge: [0, 1, 2, 3, 0xFE, 0xFF],
            excludeCredentials: [[0xAA], [0xBB, 0xCC]], timeoutMilliseconds: 60_000)
        #expect(options.json.serializedString == """
            {"rp":{"id":"login.example.com","name":"Example"},\
            "user":{"id":"-_8B","name":"ada@example.com","displayName":"Ada \\"L\\""},\
            "challenge":"AAECA_7_",\
            "pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-8}],\
            "timeout":60000,\
            "excludeCredentials":[{"type":"public-key","id":"qg"},{"type":"public-key","id":"u8w"}],\
            "authenticatorSelection":{"residentKey":"required","requireResidentKey":true,"userVerification":"required"},\
            "attestation":"none"}
            """)
    }

    @Test func creationOptionsFollowTheUVRequirement() {
        let options = PublicKeyCredentialCreationOptions(
            relyingParty: RelyingParty(id: "a.example", name: "A", userVerification: .preferred),
            userId: [1], userName: "a", userDisplayName: "a", challenge: [1])
        #expect(options.json["authenticatorSelection"]?["userVerification"] == "preferred")
        #expect(options.json["excludeCredentials"] == [])
        #expect(options.json["timeout"] == 300_000)
    }

    @Test func requestOptions() {
        let options = PublicKeyCredentialRequestOptions(rpId: "login.example.com", challenge: Array(0..<16))
        #expect(options.json.serializedString == """
            {"challenge":"AAECAwQFBgcICQoLDA0ODw","timeout":300000,"rpId":"login.example.com",\
            "allowCredentials":[],"userVerification":"required"}
            """)
        let forRP = PublicKeyCredentialRequestOptions(
            relyingParty: RelyingParty(id: "b.example", name: "B", userVerification: .discouraged),
            challenge: [9], allowCredentials: [[1, 2]], timeoutMilliseconds: 1000)
        #expect(forRP.json.serializedString == """
            {"challenge":"CQ","timeout":1000,"rpId":"b.example",\
            "allowCredentials":[{"type":"public-key","id":"AQI"}],"userVerification":"discouraged"}
            """)
    }

    @Test func relyingPartyDefaults() {
        let rp = RelyingParty(id: "login.example.com", name: "Example")
        #expect(rp.allowedOrigins == ["https://login.example.com"])
        #expect(rp.userVerification == .required)
        #expect(rp.attestationPolicy == .noneOrSelf)
    }
}
