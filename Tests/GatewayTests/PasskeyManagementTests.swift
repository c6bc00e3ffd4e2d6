import Testing
import Core
import HTTP
import ModgudSimulator
import Sessions
import TestSupport
import WebAuthn
@testable import Gateway

/// Passkey management (`/bff/passkeys`) against the simulator behind a
/// recording tap and a real Redis: enrolment, listing, removal, the
/// step-up Modgud asks for, and a token Modgud no longer honours.
@Suite("Passkey management")
struct PasskeyManagementTests {
    static let origin = AccountDeployment.origin

    @Test func passkeyEnrolmentListSignInAndDeletion() async throws {
        let deployment = try await AccountDeployment.start()
        let email = "ada@example.com"
        let browser = try await deployment.signedInBrowser(email: email)
        let accessToken = try #require(try await deployment.session(of: browser)).data.tokens.accessToken.revealed
        let mark = deployment.tap.mark

        let empty = try await browser.get("/bff/passkeys")
        #expect(empty.status == 200)
        #expect(empty.json == .array([]))

        let begun = try await browser.post("/bff/passkeys/enroll/begin")
        #expect(begun.status == 200)
        let options = try #require(begun.json?["options"])
        #expect(begun.json?.objectValue?.map(\.0) == ["options"])
        #expect(options["challenge"]?.stringValue?.isEmpty == false)
        #expect(options["rp"]?["id"]?.stringValue == "localhost")
        let beginCall = try #require(deployment.tap.calls(since: mark).last { $0.path == "/connect/passkey/enroll/begin" })
        let ceremony = try #require(beginCall.responseJSON?["ceremonyId"]?.stringValue)
        #expect(!begun.bodyText.contains("ceremonyId") && !begun.bodyText.contains(ceremony), "the ceremony stays in the gateway")
        let flowCookie = try #require(begun.setCookie(named: "__Host-bff-flow"))
        #expect(flowCookie.contains("HttpOnly") && flowCookie.contains("Secure"))
        #expect(!flowCookie.contains(ceremony))

        // Stray requests for other flows are refused and leave the ceremony as it was.
        let strayMark = deployment.tap.mark
        let stray = try await browser.post("/bff/mfa", ["totpCode": "123456"])
        #expect(stray.status == 400)
        #expect(stray.json?["error"]?.stringValue == "invalid_request")
        let strayPasskey = try await browser.post("/bff/passkey/redeem", ["assertion": ["id": "x"]])
        #expect(strayPasskey.status == 400)
        #expect(deployment.tap.calls(since: strayMark).isEmpty, "nothing reached Modgud")

        var authenticator = SoftwareAuthenticator()
        let attestation = try authenticator.makeCredential(options: options, origin: Self.origin)
        // Modgud turns the enrolment away unused (throttled): the ceremony
        // stays, and the retry the 429 invites completes it.
        deployment.simulator.injectFault(path: "/connect/passkey/enroll", count: 1, .status(429))
        let throttled = try await browser.post("/bff/passkeys/enroll", ["attestation": attestation])
        #expect(throttled.status == 429)
        #expect(throttled.setCookie(named: "__Host-bff-flow") == nil, "the flow cookie stays")
        let enrolled = try await browser.post("/bff/passkeys/enroll", ["attestation": attestation])
        #expect(enrolled.status == 200, "the ceremony survived the stray requests and the 429")
        #expect(enrolled.json?["Message"]?.stringValue == "Passkey enrolled successfully.")
        #expect(browser.cookies["__Host-bff-flow"] == nil, "the flow cookie is expired")
        let enrolCall = try #require(deployment.tap.calls(since: mark).last { $0.path == "/connect/passkey/enroll" })
        #expect(enrolCall.json?["ceremonyId"]?.stringValue == ceremony, "the kept ceremony id went to Modgud")
        #expect(enrolCall.json?["attestation"] == attestation)
        #expect(deployment.stat("passkeys", "enrolled") == 1)

        let listed = try await browser.get("/bff/passkeys")
        #expect(listed.status == 200)
        let passkeys = try #require(listed.json?.arrayValue)
        #expect(passkeys.count == 1)
        let id = try #require(passkeys.first?["Id"]?.stringValue)
        #expect(passkeys.first?["DisplayName"]?.stringValue?.isEmpty == false)

        // The new passkey signs the user in, in another browser.
        let other = deployment.harness.browser(origin: Self.origin)
        let challenge = try await other.post("/bff/passkey/begin")
        #expect(challenge.status == 200)
        let assertion = try authenticator.getAssertion(options: try #require(challenge.json?["options"]), origin: Self.origin)
        let signedIn = try await other.post("/bff/passkey/redeem", ["assertion": assertion])
        #expect(signedIn.status == 200)
        #expect(signedIn.json?["user"]?["email"]?.stringValue == email)
        #expect(other.cookies["__Host-bff"] != nil)

        let deleteMark = deployment.tap.mark
        let deleted = try await browser.send("DELETE", "/bff/passkeys/\(id)", body: nil)
        #expect(deleted.status == 204)
        let audit = try AuditTrailTests.events(deployment.harness)
        let sub = try #require(try await deployment.session(of: browser)).data.subject
        for event in ["audit.passkey.enrolled", "audit.passkey.removed"] {
            #expect(AuditTrailTests.named(event, audit).map { $0["sub"]?.stringValue } == [sub], "\(event) once, with the user")
        }
        #expect(AuditTrailTests.named("audit.signin.succeeded", audit).last?["method"]?.stringValue == "passkey")
        #expect(deleted.body.isEmpty)
        #expect(deployment.tap.calls(since: deleteMark).map { "\($0.method) \($0.path)" } == ["DELETE /connect/passkey/\(id)"])
        let again = try await browser.send("DELETE", "/bff/passkeys/\(id)", body: nil)
        #expect(again.status == 404, "Modgud's 404 relayed")
        #expect(deployment.tap.calls(since: deleteMark).last?.status == 404)
        let madeUp = try await browser.send("DELETE", "/bff/passkeys/00000000-0000-0000-0000-000000000000", body: nil)
        #expect(madeUp.status == 404)
        let beforeDots = deployment.tap.mark
        for dots in ["..", "."] {
            let refused = try await browser.send("DELETE", "/bff/passkeys/\(dots)", body: nil)
            #expect(refused.status == 400, "an id of \(dots) would name another path at Modgud")
        }
        #expect(deployment.tap.calls(since: beforeDots).isEmpty, "no call to Modgud for a dot id")
        #expect(try await browser.get("/bff/passkeys").json == .array([]))
        #expect(deployment.stat("passkeys", "deleted") == 1)

        // Every passkey-management call carried the session's access token
        // as Bearer, and neither client authentication nor a forwarded address.
        let bearerCalls = deployment.tap.calls(since: mark).filter { $0.path.hasPrefix("/connect/passkey") && $0.path != "/connect/passkey/begin" }
        #expect(Set(bearerCalls.map { "\($0.method) \($0.path)" }).isSuperset(of: [
            "GET /connect/passkey", "POST /connect/passkey/enroll/begin", "POST /connect/passkey/enroll", "DELETE /connect/passkey/\(id)",
        ]))
        for call in bearerCalls {
            #expect(call.headers["Authorization"] == "Bearer " + accessToken, "\(call.method) \(call.path)")
            #expect(call.headers.values("Authorization").count == 1, "no Basic beside the Bearer")
            #expect(!call.headers.contains("Modgud-Forwarded-For"), "\(call.method) \(call.path)")
            for name in ["Cookie", "Origin", "X-CSRF", "Referer"] { #expect(!call.headers.contains(name)) }
        }
        let records = deployment.harness.modgudRequests().filter {
            ($0["path"]?.stringValue ?? "").hasPrefix("/connect/passkey") && $0["path"]?.stringValue != "/connect/passkey/begin"
        }
        #expect(records.count == bearerCalls.count)
        // The injected 429 answered before the simulator read the credentials.
        for record in records where record["status"]?.intValue != 429 {
            #expect(record["clientAuth"]?.stringValue == "bearer")
            #expect(record["forwardedFor"]?.isNull == true)
        }
        for endpoint in ["passkey_list", "passkey_enroll_begin", "passkey_enroll", "passkey_begin", "passkey_redeem"] {
            #expect(ModgudCallMetricsTests.calls(deployment.harness, endpoint, "ok") >= 1, "\(endpoint) counted")
        }
        #expect(ModgudCallMetricsTests.calls(deployment.harness, "passkey_delete", "ok") == 1)
        #expect(ModgudCallMetricsTests.calls(deployment.harness, "passkey_delete", "refused") == 2, "Modgud's two 404s")
        await deployment.stop()
    }

    @Test func enrolmentWithoutABeginIsRefusedWithoutCallingModgud() async throws {
        let deployment = try await AccountDeployment.start()
        let browser = try await deployment.signedInBrowser()
        var authenticator = SoftwareAuthenticator()
        let options = try await Self.enrolmentOptionsFromModgud(deployment, browser)
        let attestation = try authenticator.makeCredential(options: options, origin: Self.origin)

        let mark = deployment.tap.mark
        let refused = try await browser.post("/bff/passkeys/enroll", ["attestation": attestation])
        #expect(refused.status == 400)
        #expect(refused.json?["error"]?.stringValue == "invalid_request")
        #expect(deployment.tap.calls(since: mark).isEmpty)

        // A sign-in ceremony's flow cookie does not finish an enrolment either.
        #expect(try await browser.post("/bff/passkey/begin").status == 200)
        let mixed = try await browser.post("/bff/passkeys/enroll", ["attestation": attestation])
        #expect(mixed.status == 400)
        #expect(mixed.json?["error"]?.stringValue == "invalid_request")
        #expect(!deployment.tap.calls(since: mark).contains { $0.path == "/connect/passkey/enroll" })
        #expect(deployment.stat("passkeys", "enrolled") == 0)
        await deployment.stop()
    }

    @Test func anotherSessionCannotFinishSomeoneElsesEnrolment() async throws {
        let deployment = try await AccountDeployment.start()
        let ada = try await deployment.signedInBrowser(email: "ada@example.com")
        let mallory = try await deployment.signedInBrowser(email: "mallory@example.com")
        let begun = try await ada.post("/bff/passkeys/enroll/begin")
        #expect(begun.status == 200)
        var authenticator = SoftwareAuthenticator()
        let attestation = try authenticator.makeCredential(options: try #require(begun.json?["options"]), origin: Self.origin)

        // Mallory holds Ada's flow cookie and a valid attestation for Ada's ceremony.
        mallory.setCookie("__Host-bff-flow", try #require(ada.cookies["__Host-bff-flow"]))
        let mark = deployment.tap.mark
        let refused = try await mallory.post("/bff/passkeys/enroll", ["attestation": attestation])
        #expect(refused.status == 400)
        #expect(refused.json?["error"]?.stringValue == "invalid_request")
        #expect(deployment.tap.calls(since: mark).isEmpty, "nothing reached Modgud")
        #expect(deployment.stat("passkeys", "enrolled") == 0)

        // Ada can still enrol by starting over.
        let restarted = try await ada.post("/bff/passkeys/enroll/begin")
        var fresh = SoftwareAuthenticator()
        let own = try fresh.makeCredential(options: try #require(restarted.json?["options"]), origin: Self.origin)
        #expect(try await ada.post("/bff/passkeys/enroll", ["attestation": own]).status == 200)
        #expect(try await ada.get("/bff/passkeys").json?.arrayValue?.count == 1)
        #expect(try await mallory.get("/bff/passkeys").json == .array([]))
        await deployment.stop()
    }

    enum Endpoint: String, CaseIterable, Sendable {
        case list = "GET /bff/passkeys"
        case begin = "POST /bff/passkeys/enroll/begin"
        case enroll = "POST /bff/passkeys/enroll"
        case delete = "DELETE /bff/passkeys/some-id"

        func send(_ browser: Browser) async throws -> RawResponse {
            let parts = rawValue.split(separator: " ").map(String.init)
            let body: JSON? = self == .enroll ? ["attestation": ["id": "x", "type": "public-key"]] : nil
            return try await browser.send(parts[0], parts[1], body: body)
        }
    }

    @Test(arguments: Endpoint.allCases)
    func passkeyEndpointsNeedASession(_ endpoint: Endpoint) async throws {
        let deployment = try await AccountDeployment.start()
        let anonymous = deployment.harness.browser(origin: Self.origin)
        let loggedOut = try await deployment.signedInBrowser()
        let staleCookie = try #require(loggedOut.cookies["__Host-bff"])
        #expect(try await loggedOut.post("/bff/logout").status == 204)
        let stale = deployment.harness.browser(origin: Self.origin)
        stale.setCookie("__Host-bff", staleCookie)

        let mark = deployment.tap.mark
        for browser in [anonymous, stale] {
            let response = try await endpoint.send(browser)
            #expect(response.status == 401, "\(endpoint.rawValue)")
            #expect(response.json?["error"]?.stringValue == "unauthenticated", "\(endpoint.rawValue): \(response.bodyText)")
        }
        #expect(deployment.tap.calls(since: mark).isEmpty, "no call to Modgud without a session")
        await deployment.stop()
    }

    @Test func anAccessTokenModgudNoLongerHonoursEndsTheSession() async throws {
        let deployment = try await AccountDeployment.start()
        let browser = try await deployment.signedInBrowser()
        let session = try #require(try await deployment.session(of: browser))
        // Revoked at Modgud behind the gateway's back (an administrator, a
        // sign-out elsewhere): the gateway still thinks the token is good.
        let form = FormURLEncoded.serialize([("token", session.data.tokens.accessToken.revealed),
                                             ("token_type_hint", "access_token")])
        let revoked = await deployment.simulator.respond(PasskeyEnrolment.request(.post, "/connect/revoke",
            body: Array(form.utf8), headers: [("Authorization", AccountDeployment.clientBasic),
                                              ("Content-Type", "application/x-www-form-urlencoded")]))
        #expect(revoked.status == .ok)

        let listed = try await browser.get("/bff/passkeys")
        #expect(listed.status == 401)
        #expect(listed.json?["error"]?.stringValue == "session_expired")
        #expect(listed.setCookie(named: "__Host-bff")?.contains("Max-Age=0") == true)
        #expect(try await deployment.recordExists(session) == false)
        #expect(try await browser.get("/bff/user").status == 401)
        let ended = try AuditSessionTests.ended(deployment.harness)
        #expect(ended.map { $0["reason"]?.stringValue } == ["token_rejected"], "audited once")
        #expect(ended.first?["sub"]?.stringValue == session.data.subject)
        // The refresh token the ended session held is revoked with its family (in the background).
        let revokedFamilies = { ModgudProbe.refreshCount(deployment.simulator, "familyRevocations") }
        try await RefreshFixture.waitUntil { revokedFamilies() == 1 }
        #expect(revokedFamilies() == 1, "the ended session's family is revoked")
        await deployment.stop()
    }

    @Test func passkeyChangesAfterTheRecentSignInWindowAskForAStepUp() async throws {
        // max_age well inside the access token's lifetime, so moving the
        // simulator's clock past it trips only the recent-sign-in rule.
        let deployment = try await AccountDeployment.start(simulator: { config in
            config.realm.recentSignInRequired = true
            config.realm.recentSignInMaxAgeSeconds = 60
            config.tokens.accessTokenLifetimeSeconds = 3600
        })
        let browser = try await deployment.signedInBrowser()
        let begun = try await browser.post("/bff/passkeys/enroll/begin")
        #expect(begun.status == 200, "fresh sign-in: no step-up")
        var authenticator = SoftwareAuthenticator()
        let attestation = try authenticator.makeCredential(options: try #require(begun.json?["options"]), origin: Self.origin)

        deployment.simulator.advanceClock(by: 300)
        let mark = deployment.tap.mark
        let refusals = [
            ("enroll/begin", try await browser.post("/bff/passkeys/enroll/begin")),
            ("enroll", try await browser.post("/bff/passkeys/enroll", ["attestation": attestation])),
            ("delete", try await browser.send("DELETE", "/bff/passkeys/any-id", body: nil)),
        ]
        let calls = deployment.tap.calls(since: mark)
        #expect(calls.map(\.path) == ["/connect/passkey/enroll/begin", "/connect/passkey/enroll", "/connect/passkey/any-id"])
        for ((name, response), call) in zip(refusals, calls) {
            #expect(call.status == 401, "\(name): Modgud refused")
            let challenge = try #require(call.responseHeaders["WWW-Authenticate"])
            #expect(challenge.contains(#"error="insufficient_user_authentication""#) && challenge.contains(#"max_age="60""#))
            #expect(response.status == 401, "\(name)")
            #expect(response.header("WWW-Authenticate") == challenge, "\(name): relayed as Modgud sent it")
            #expect(response.json?["error"]?.stringValue == "insufficient_user_authentication", "\(name)")
            #expect(response.json?["max_age"]?.intValue == 60, "\(name)")
            #expect(response.json?["error_description"]?.stringValue?.isEmpty == false, "\(name)")
        }
        #expect(deployment.stat("passkeys", "stepUpRequired") == 3)
        let stepUps = AuditTrailTests.named("audit.stepup.asked", try AuditTrailTests.events(deployment.harness))
        #expect(stepUps.map { $0["endpoint"]?.stringValue } == ["passkey_enroll_begin", "passkey_enroll", "passkey_delete"])

        // Listing needs no recent sign-in, and the session lives on.
        #expect(try await browser.get("/bff/passkeys").status == 200)
        #expect(try await browser.get("/bff/user").status == 200)
        #expect(deployment.stat("passkeys", "enrolled") == 0)
        await deployment.stop()
    }

    /// Creation options straight from Modgud for the browser's session
    /// (without leaving a flow record in the gateway).
    static func enrolmentOptionsFromModgud(_ deployment: AccountDeployment, _ browser: Browser) async throws -> JSON {
        let token = try #require(try await deployment.session(of: browser)).data.tokens.accessToken.revealed
        let response = await deployment.simulator.respond(PasskeyEnrolment.request(.post, "/connect/passkey/enroll/begin",
                                                                                   headers: [("Authorization", "Bearer " + token)]))
        return try #require(try PasskeyEnrolment.json(response)["options"])
    }
}
