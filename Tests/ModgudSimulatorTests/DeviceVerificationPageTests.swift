import Core
import HTTP
@testable import ModgudSimulator
import Testing
import TestSupport

@Suite("Device verification page: sign-in detour, wrong code, approve, deny, anti-forgery")
struct DeviceVerificationPageTests {
    @Test func aVisitorWithoutSignInGoesToTheSignInPageAndComesBack() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            let (_, userCode) = try await sim.startedDevice()
            var browser = DeviceBrowser(sim)
            let detour = try await browser.get("/connect/verify?user_code=" + userCode)
            #expect(detour.status == 302)
            let location = try #require(detour.header("Location"))
            #expect(location == "/connect/signin?return_to=%2Fconnect%2Fverify%3Fuser_code%3D" + userCode)
            let form = try await browser.get(location)
            #expect(form.status == 200)
            #expect(form.bodyText.contains(#"<form method="post" action="/connect/signin">"#))
            #expect(form.bodyText.contains(#"autocomplete="current-password""#))
            let back = try await browser.post("/connect/signin", SignInPageClient.hiddenFields(form.bodyText)
                                                                 + [("email", "ada@example.com"), ("password", "simulator")])
            #expect(back.status == 302)
            #expect(back.header("Location") == "/connect/verify?user_code=" + userCode)
            let cookie = try #require(back.header("Set-Cookie"))
            #expect(cookie.hasPrefix("sim_session=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
            let page = try await browser.get(try #require(back.header("Location")))
            #expect(page.status == 200)
            for piece in [#"<label for="user_code">"#, #"id="user_code" name="user_code""#, #"autocomplete="off""#,
                          #"autocapitalize="characters""#, #"value="\#(userCode)""#, #"<form method="post" action="/connect/verify">"#,
                          #"name="action" value="approve""#, #"name="action" value="deny""#] {
                #expect(page.bodyText.contains(piece), "the page has \(piece)")
            }
            #expect(!page.bodyText.contains("one-time-code") && !page.bodyText.contains("<script"))
            #expect(SignInPageClient.hiddenFields(page.bodyText).first { $0.0 == "sim_csrf" }?.1.count == 43)
            let signedIn = try await browser.get("/connect/signin?return_to=%2Fconnect%2Fverify")
            #expect(signedIn.status == 302 && signedIn.header("Location") == "/connect/verify", "no form while signed in")
        }
    }

    @Test func aUserWithTotpGivesTheCodeOnTheWay() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            var browser = DeviceBrowser(sim)
            let form = try await browser.get("/connect/signin?return_to=%2Fconnect%2Fverify")
            let ask = try await browser.post("/connect/signin", SignInPageClient.hiddenFields(form.bodyText)
                                                                + [("email", "grace@example.com"), ("password", "simulator")])
            #expect(ask.status == 200 && ask.bodyText.contains(#"name="totp_code""#))
            #expect(ask.bodyText.contains(#"action="/connect/signin""#))
            let done = try await browser.post("/connect/signin", SignInPageClient.hiddenFields(ask.bodyText)
                                                                 + [("totp_code", try await sim.totp("grace@example.com"))])
            #expect(done.status == 302 && done.header("Location") == "/connect/verify")
            #expect(browser.cookie != nil)
        }
    }

    @Test func theSignInPageReturnsOnlyToThisServer() async throws {
        try await withSimulator { sim async throws in
            for target in ["//evil.example/x", "https://evil.example/", "/\\evil.example", "connect/verify", "/a\r\nSet-Cookie: x", "/a b"] {
                let response = try await sim.get("/connect/signin?return_to=" + FormURLEncoded.encode(target))
                #expect(response.status == 400, "\(target)")
            }
            #expect(try await sim.get("/connect/signin").status == 400)
        }
    }

    @Test func aWrongOrExpiredCodeShowsThePageAgainAndApprovesNothing() async throws {
        try await withSimulator({ config in
            config.realm.deviceCodeLifetimeSeconds = 60
            config.realm.deviceCodeIntervalSeconds = 1
        }) { sim async throws in
            sim.simulator.freezeClock()
            let (deviceCode, userCode) = try await sim.startedDevice()
            var browser = DeviceBrowser(sim)
            let page = try await browser.signedInPage()
            let other = userCode == "BCDF-GHJK" ? "CDFG-HJKL" : "BCDF-GHJK"
            for typed in [other, "nonsense", ""] {
                let wrong = try await browser.verify(page, userCode: typed, action: "approve")
                #expect(wrong.status == 200 && wrong.bodyText.contains("That code is not valid or has expired."), "\(typed)")
                #expect(wrong.bodyText.contains(#"name="user_code""#), "the form again")
            }
            try await sim.advanceClock(1)
            #expect(try await sim.pollDevice(deviceCode).error == "authorization_pending")
            try await sim.advanceClock(60)
            let late = try await browser.verify(page, userCode: userCode, action: "approve")
            #expect(late.bodyText.contains("That code is not valid or has expired."))
            #expect(try await sim.pollDevice(deviceCode).error == "expired_token")
        }
    }

    @Test func approvingSignsTheDeviceInWithItsOwnSid() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            let (deviceCode, userCode) = try await sim.startedDevice()
            var browser = DeviceBrowser(sim)
            let page = try await browser.signedInPage(query: "?user_code=" + userCode)
            let typed = userCode.lowercased().replacingAll("-", " ")
            let done = try await browser.verify(page, userCode: typed, action: "approve")
            #expect(done.status == 200 && done.bodyText.contains("Device approved"))
            let tokens = try await sim.pollDevice(deviceCode)
            #expect(tokens.status == 200)
            let claimsToken = try #require(tokens.field("id_token"))
            let claims = try #require(sim.simulator.core.state.signingKey.verify(claimsToken))
            let ada = try #require(try await sim.get("/dev/users?email=ada@example.com").json()["id"]?.stringValue)
            #expect(claims["sub"]?.stringValue == ada)
            #expect(claims["amr"] == ["pwd"], "the approver's sign-in")
            let browserSid = sim.simulator.core.state.identity.withLock { $0.browserSessions[browser.cookie ?? ""]?.sid }
            let sid = try #require(claims["sid"]?.stringValue)
            #expect(browserSid != nil && sid != browserSid, "the device's sign-in is a session of its own")
            let again = try await browser.verify(page, userCode: userCode, action: "approve")
            #expect(again.bodyText.contains("That code is not valid or has expired."), "a code is decided once")
        }
    }

    @Test func denyingSignsNothingIn() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            let (deviceCode, userCode) = try await sim.startedDevice()
            var browser = DeviceBrowser(sim)
            let page = try await browser.signedInPage()
            let done = try await browser.verify(page, userCode: userCode, action: "deny")
            #expect(done.status == 200 && done.bodyText.contains("Request denied"))
            #expect(try await sim.pollDevice(deviceCode).error == "access_denied")
        }
    }

    @Test func theAntiForgeryFieldIsRequired() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            sim.simulator.freezeClock()
            let (deviceCode, userCode) = try await sim.startedDevice()
            var browser = DeviceBrowser(sim)
            let page = try await browser.signedInPage()
            let missing = try await browser.verify(page, userCode: userCode, action: "approve", withoutHidden: true)
            #expect(missing.status == 403 && missing.bodyText.contains("The form could not be verified."))
            let forged = try await browser.post("/connect/verify", [("sim_csrf", "forged"), ("user_code", userCode),
                                                                    ("action", "approve")])
            #expect(forged.status == 403)
            #expect(try await sim.postJSON("/dev/users", ["email": "lin@example.com", "password": "simulator"]).status == 201)
            var other = DeviceBrowser(sim)
            let otherPage = try await other.signedInPage("lin@example.com")
            let borrowed = try await browser.verify(otherPage, userCode: userCode, action: "approve")
            #expect(borrowed.status == 403, "the value is bound to the browser's own session")
            let noAction = try await browser.verify(page, userCode: userCode, action: "maybe")
            #expect(noAction.status == 400)
            let anonymous = try await sim.postForm("/connect/verify", SignInPageClient.hiddenFields(page.bodyText)
                                                                      + [("user_code", userCode), ("action", "approve")])
            #expect(anonymous.status == 302 && anonymous.header("Location") == "/connect/signin?return_to=%2Fconnect%2Fverify",
                    "no session: to the sign-in page, the typed code not in the URL")
            #expect(try await sim.pollDevice(deviceCode).error == "authorization_pending", "nothing was approved")
        }
    }

    @Test func theDevEndpointApprovesOrDeniesWithoutAPage() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            let (deviceCode, userCode) = try await sim.startedDevice()
            let bad = try await sim.postJSON("/dev/device", ["userCode": .string(userCode), "email": "ada@example.com",
                                                             "action": "maybe"])
            #expect(bad.status == 400 && bad.error == "invalid_request")
            #expect(try await sim.decideDevice(userCode, email: "nobody@example.com", action: "approve").error == "no_such_user")
            let unknown = try await sim.decideDevice("BBBB-BBBB" == userCode ? "CCCC-CCCC" : "BBBB-BBBB", action: "approve")
            #expect(unknown.status == 404 && unknown.error == "no_such_code")
            let approved = try await sim.decideDevice(userCode.lowercased(), email: "grace@example.com", action: "approve")
            #expect(approved.status == 200 && approved.field("status") == "approved")
            let tokens = try await sim.pollDevice(deviceCode)
            let claimsToken = try #require(tokens.field("id_token"))
            let claims = try #require(sim.simulator.core.state.signingKey.verify(claimsToken))
            #expect(claims["email"] == "grace@example.com")
            #expect(claims["sid"]?.stringValue?.isEmpty == false)
        }
        try await withSimulator({ $0.devEndpoints = false }) { sim async throws in
            #expect(try await sim.decideDevice("BCDF-GHJK", action: "approve").status == 404)
        }
    }
}
