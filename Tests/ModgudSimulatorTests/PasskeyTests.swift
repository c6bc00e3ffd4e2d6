import Core
import HTTP
import TestSupport
import Crypto
@testable import ModgudSimulator
import Testing
import WebAuthn

@Suite("Passkeys: enrolment, sign-in, management, recent sign-in")
struct PasskeyTests {
    static let origin = "http://localhost:8080"

    /// Signs in with a code, enrolls a passkey of `algorithm` in `authenticator`; the access token.
    func enroll(_ sim: SimHarness, _ authenticator: inout SoftwareAuthenticator, email: String = "ada@example.com",
                algorithm: COSEAlgorithm = .es256) async throws -> String {
        let access = try #require(try await sim.signIn(email)["access_token"]?.stringValue)
        let begin = try await sim.request("POST", "/connect/passkey/enroll/begin", headers: [SimHarness.bearer(access)])
        #expect(begin.status == 200)
        let started = try begin.json()
        let ceremonyId = try #require(started["ceremonyId"]?.stringValue)
        let options = try #require(started["options"])
        #expect(options["rp"]?["id"] == "localhost")
        #expect(options["authenticatorSelection"]?["userVerification"] == "required")
        let attestation = try authenticator.makeCredential(options: options, origin: Self.origin, algorithm: algorithm)
        let enrolled = try await sim.postJSON("/connect/passkey/enroll", ["ceremonyId": .string(ceremonyId), "attestation": attestation],
                                              headers: [SimHarness.bearer(access)])
        #expect(enrolled.status == 200)
        #expect(enrolled.bodyText == #"{"Message":"Passkey enrolled successfully."}"#)
        return access
    }

    /// Begins a passkey sign-in as the gateway: (ceremony id, options).
    func begin(_ sim: SimHarness) async throws -> (String, JSON) {
        let response = try await sim.postForm("/connect/passkey/begin", [("client_id", "bff")], headers: SimHarness.gateway())
        #expect(response.status == 200)
        let body = try response.json()
        return (try #require(body["ceremonyId"]?.stringValue), try #require(body["options"]))
    }

    func redeem(_ sim: SimHarness, ceremony: String, assertion: JSON) async throws -> RawResponse {
        try await sim.postForm("/connect/token", [("grant_type", GrantType.passkey), ("ceremony_id", ceremony),
                                                  ("assertion", assertion.serializedString), ("scope", "openid offline_access")],
                               headers: SimHarness.gateway())
    }

    @Test(arguments: [COSEAlgorithm.es256, .edDSA])
    func enrollThenSignIn(algorithm: COSEAlgorithm) async throws {
        try await withSimulator { sim async throws in
            var authenticator = SoftwareAuthenticator()
            _ = try await enroll(sim, &authenticator, algorithm: algorithm)
            let (ceremony, options) = try await begin(sim)
            #expect(options["rpId"] == "localhost")
            #expect(options["userVerification"] == "required")
            #expect(options["allowCredentials"] == [])
            let assertion = try authenticator.getAssertion(options: options, origin: Self.origin)
            let response = try await redeem(sim, ceremony: ceremony, assertion: assertion)
            #expect(response.status == 200)
            let tokens = try response.json()
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let claims = try #require(sim.simulator.core.state.signingKey.verify(idToken))
            #expect(claims["sub"] == "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f")
            #expect(claims["acr"] == "urn:modgud:acr:multi")
            #expect(claims["amr"] == ["hwk", "user"])
            #expect(claims["sid"]?.stringValue?.isEmpty == false, "the passkey grant's id_token carries sid")
            // The ceremony is single use.
            let replay = try await redeem(sim, ceremony: ceremony, assertion: assertion)
            #expect(replay.field("error_description") == "Invalid or expired passkey ceremony.")
            let mail = try await sim.latestMail("ada@example.com")
            #expect(mail["kind"] == "account-change")
        }
    }

    @Test func tamperedAndForeignAssertionsAreRefused() async throws {
        try await withSimulator { sim async throws in
            var authenticator = SoftwareAuthenticator()
            _ = try await enroll(sim, &authenticator)
            let (ceremony, options) = try await begin(sim)
            var assertion = try authenticator.getAssertion(options: options, origin: Self.origin)
            guard case .object(var object) = assertion, case .object(var inner) = object["response"]!,
                  var signature = Base64URL.decode(try #require(inner["signature"]?.stringValue))
            else { Issue.record("unexpected assertion shape"); return }
            signature[signature.count / 2] ^= 0x01
            inner["signature"] = .string(Base64URL.encode(signature))
            object["response"] = .object(inner)
            assertion = .object(object)
            let tampered = try await redeem(sim, ceremony: ceremony, assertion: assertion)
            #expect(tampered.bodyText == #"{"error":"invalid_grant","error_description":"Passkey verification failed."}"#)

            let (second, secondOptions) = try await begin(sim)
            let foreign = try authenticator.getAssertion(options: secondOptions, origin: "https://evil.example")
            #expect(try await redeem(sim, ceremony: second, assertion: foreign).error == "invalid_grant")

            // An assertion for another ceremony's challenge.
            let (third, _) = try await begin(sim)
            let (_, fourthOptions) = try await begin(sim)
            let mismatched = try authenticator.getAssertion(options: fourthOptions, origin: Self.origin)
            #expect(try await redeem(sim, ceremony: third, assertion: mismatched).error == "invalid_grant")
            #expect(try await sim.stats()["passkeys"]?["assertionsRefused"] == 3)
        }
    }

    @Test func ceremoniesBelongToTheirClientAndExpire() async throws {
        try await withSimulator { sim async throws in
            var authenticator = SoftwareAuthenticator()
            _ = try await enroll(sim, &authenticator)
            let (ceremony, options) = try await begin(sim)
            let assertion = try authenticator.getAssertion(options: options, origin: Self.origin)
            let otherClient = try await sim.postForm("/connect/token", [
                ("grant_type", GrantType.passkey), ("client_id", "native"), ("ceremony_id", ceremony),
                ("assertion", assertion.serializedString),
            ])
            #expect(otherClient.error == "invalid_grant")
            let (late, lateOptions) = try await begin(sim)
            let lateAssertion = try authenticator.getAssertion(options: lateOptions, origin: Self.origin)
            try await sim.advanceClock(301)
            #expect(try await redeem(sim, ceremony: late, assertion: lateAssertion).error == "invalid_grant")
        }
    }

    @Test func listAndDelete() async throws {
        try await withSimulator { sim async throws in
            var authenticator = SoftwareAuthenticator()
            let access = try await enroll(sim, &authenticator)
            let list = try await sim.get("/connect/passkey", headers: [SimHarness.bearer(access)])
            #expect(list.status == 200)
            let entry = try #require(try list.json()[0])
            #expect(entry["DisplayName"] == "Passkey")
            #expect(entry["CreatedAt"]?.stringValue?.hasSuffix("Z") == true)
            #expect(entry["LastUsedAt"] == nil)
            let id = try #require(entry["Id"]?.stringValue)

            let (ceremony, options) = try await begin(sim)
            _ = try await redeem(sim, ceremony: ceremony, assertion: try authenticator.getAssertion(options: options, origin: Self.origin))
            #expect(try await sim.get("/connect/passkey", headers: [SimHarness.bearer(access)]).json()[0]?["LastUsedAt"] != nil)

            let grace = try #require(try await sim.signIn("grace@example.com", extra: [
                ("totp_code", try await sim.totp("grace@example.com")),
            ])["access_token"]?.stringValue)
            #expect(try await sim.delete("/connect/passkey/\(id)", headers: [SimHarness.bearer(grace)]).status == 404,
                    "another user's passkey is not found, never forbidden")
            #expect(try await sim.delete("/connect/passkey/\(id)").status == 401)
            #expect(try await sim.get("/connect/passkey").status == 401)
            #expect(try await sim.delete("/connect/passkey/\(id)", headers: [SimHarness.bearer(access)]).status == 204)
            #expect(try await sim.delete("/connect/passkey/\(id)", headers: [SimHarness.bearer(access)]).status == 404)
            #expect(try await sim.get("/connect/passkey", headers: [SimHarness.bearer(access)]).bodyText == "[]")
            let (after, afterOptions) = try await begin(sim)
            let assertion = try authenticator.getAssertion(options: afterOptions, origin: Self.origin)
            #expect(try await redeem(sim, ceremony: after, assertion: assertion).error == "invalid_grant")
        }
    }

    @Test func recentSignInIsRequiredWhenSwitchedOn() async throws {
        try await withSimulator({ config in
            config.realm.recentSignInRequired = true
            config.tokens.accessTokenLifetimeSeconds = 3600
        }) { sim async throws in
            var authenticator = SoftwareAuthenticator()
            let access = try await enroll(sim, &authenticator)
            let id = try #require(try await sim.get("/connect/passkey", headers: [SimHarness.bearer(access)]).json()[0]?["Id"]?.stringValue)
            try await sim.advanceClock(901)
            for response in [
                try await sim.request("POST", "/connect/passkey/enroll/begin", headers: [SimHarness.bearer(access)]),
                try await sim.postJSON("/connect/passkey/enroll", ["ceremonyId": "x", "attestation": [:]],
                                       headers: [SimHarness.bearer(access)]),
                try await sim.delete("/connect/passkey/\(id)", headers: [SimHarness.bearer(access)]),
            ] {
                #expect(response.status == 401)
                #expect(response.header("WWW-Authenticate") == #"Bearer error="insufficient_user_authentication", error_description="A more recent sign-in is required to change this account's passkeys.", max_age="900""#)
                #expect(response.bodyText == #"{"error":"insufficient_user_authentication","error_description":"A more recent sign-in is required to change this account's passkeys.","max_age":900}"#)
            }
            // Listing is not a change.
            #expect(try await sim.get("/connect/passkey", headers: [SimHarness.bearer(access)]).status == 200)
        }
    }

    @Test func recentSignInIsOffByDefault() async throws {
        try await withSimulator({ $0.tokens.accessTokenLifetimeSeconds = 3600 }) { sim async throws in
            var authenticator = SoftwareAuthenticator()
            let access = try await enroll(sim, &authenticator)
            try await sim.advanceClock(901)
            #expect(try await sim.request("POST", "/connect/passkey/enroll/begin", headers: [SimHarness.bearer(access)]).status == 200)
        }
    }

    @Test func unavailableAndDisabled() async throws {
        try await withSimulator({ $0.clients[0].rpId = nil }) { sim async throws in
            let response = try await sim.postForm("/connect/passkey/begin", [("client_id", "bff")], headers: SimHarness.gateway())
            #expect(response.status == 503)
            #expect(response.field("title") == "Passkey.Unavailable")
        }
        try await withSimulator { sim async throws in
            let access = try #require(try await sim.signIn("ada@example.com")["access_token"]?.stringValue)
            try await sim.config(["nativeGrants": false])
            let begin = try await sim.postForm("/connect/passkey/begin", [("client_id", "bff")], headers: SimHarness.gateway())
            #expect(begin.field("title") == "NativeGrants.Disabled")
            for response in [
                try await sim.request("POST", "/connect/passkey/enroll/begin", headers: [SimHarness.bearer(access)]),
                try await sim.get("/connect/passkey", headers: [SimHarness.bearer(access)]),
                try await sim.delete("/connect/passkey/x", headers: [SimHarness.bearer(access)]),
            ] {
                #expect(response.status == 400)
                #expect(response.field("title") == "NativeGrants.Disabled")
            }
        }
    }

    @Test func badEnrolmentsAnswerWithAMessage() async throws {
        try await withSimulator { sim async throws in
            let access = try #require(try await sim.signIn("ada@example.com")["access_token"]?.stringValue)
            let started = try await sim.request("POST", "/connect/passkey/enroll/begin", headers: [SimHarness.bearer(access)]).json()
            var authenticator = SoftwareAuthenticator()
            let attestation = try authenticator.makeCredential(options: started["options"]!, origin: "https://evil.example")
            let refused = try await sim.postJSON("/connect/passkey/enroll", ["ceremonyId": started["ceremonyId"]!, "attestation": attestation],
                                                 headers: [SimHarness.bearer(access)])
            #expect(refused.status == 400)
            #expect(refused.field("Message")?.isEmpty == false)
            let unknown = try await sim.postJSON("/connect/passkey/enroll", ["ceremonyId": "nope", "attestation": attestation],
                                                 headers: [SimHarness.bearer(access)])
            #expect(unknown.status == 400)
            #expect(try await sim.postJSON("/connect/passkey/enroll", ["ceremonyId": "nope"]).status == 401)
        }
    }
}
