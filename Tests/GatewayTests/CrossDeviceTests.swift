import Core
import Crypto
import HTTP
import TestSupport
import Testing
@testable import Gateway

/// Cross-device sign-in with a match code against the simulator's device
/// authorization grant, over real sockets: start, context, polls,
/// approval for the starting browser only, denial, expiry, the switch.
@Suite("Cross-device sign-in", .serialized)
struct CrossDeviceTests {
    @Test func startAnswersTheMatchCodeAndBindsTheRequestToTheBrowser() async throws {
        let deployment = try await CrossDeviceDeployment.start(gateway: { $0.resource = "https://api.example.com" })
        let browser = deployment.browser()
        let start = try await deployment.start(browser)
        #expect(start.status == 201)
        #expect(start.header("Cache-Control") == "no-store")
        let body = try #require(start.json)
        let id = try #require(body["requestId"]?.stringValue)
        #expect(id.utf8.count == 43 && Base64URL.decode(id)?.count == 32, "256 random bits, base64url")
        let device = try #require(deployment.front.calls(to: "/connect/device").last)
        let issued = try #require(device.answerJSON)
        #expect(body["matchCode"]?.stringValue == issued["user_code"]?.stringValue)
        #expect(body["verificationUri"]?.stringValue == deployment.front.baseURL + "/connect/verify")
        #expect(body["expiresIn"]?.intValue == 600 && body["interval"]?.intValue == 1)
        #expect(Set(body.objectValue?.map(\.0) ?? []) == ["requestId", "matchCode", "verificationUri", "expiresIn", "interval"])
        #expect(!start.bodyText.contains("verification_uri_complete") && !start.bodyText.contains("user_code="),
                "the approval link is never handed out")
        #expect(!start.bodyText.contains(try #require(issued["device_code"]?.stringValue)))
        let cookie = try #require(start.setCookie(named: "__Host-bff-xd"))
        for flag in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/", "Max-Age=660"] { // the code's 600 s and the one-minute grace
            #expect(cookie.contains(flag), "\(flag)")
        }
        #expect(!cookie.contains("Domain"))
        // Modgud was asked as the client, with the browser's address, the scopes and the audience.
        #expect(device.headers["Authorization"] == AccountDeployment.clientBasic)
        #expect(device.headers["Modgud-Forwarded-For"] == "127.0.0.1")
        #expect(device.values("scope") == ["openid profile email offline_access"])
        #expect(device.values("resource") == ["https://api.example.com"])
        let recorded = try #require(deployment.harness.modgudRequests().last { $0["path"]?.stringValue == "/connect/device" })
        #expect(recorded["clientAuth"]?.stringValue == "basic" && recorded["forwardedFor"]?.stringValue == "127.0.0.1")
        #expect(recorded["browserHeaders"]?.arrayValue?.isEmpty == true, "no browser header reaches Modgud")
        #expect(deployment.metric("bff_cross_device_signins_total", #"outcome="started""#) == 1)
        #expect(deployment.metric("bff_modgud_calls_total", #"endpoint="device_authorization",outcome="ok""#) == 1)
        await deployment.stop()
    }

    @Test func theContextShowsWhatTheGatewaySawAndNoSecret() async throws {
        let deployment = try await CrossDeviceDeployment.start()
        let (id, code) = try await deployment.started(deployment.browser())
        // Read from another device: the request id alone, no cookie.
        let approver = deployment.browser()
        let answer = try await deployment.context(approver, id)
        #expect(answer.status == 200)
        let context = try #require(answer.json)
        #expect(Set(context.objectValue?.map(\.0) ?? []) == ["startedSecondsAgo", "device", "address", "expiresIn"])
        #expect(context["device"]?.stringValue == "Chrome on macOS")
        #expect(context["address"]?.stringValue == "127.0.0.1")
        #expect((0...2).contains(context["startedSecondsAgo"]?.intValue ?? -1))
        #expect((598...600).contains(context["expiresIn"]?.intValue ?? -1))
        let deviceCode = try #require(deployment.front.calls(to: "/connect/device").last?.answerJSON?["device_code"]?.stringValue)
        #expect(!answer.bodyText.contains(deviceCode) && !answer.bodyText.contains(code))
        #expect(approver.cookies.isEmpty, "nothing is set for the reader")
        for unknown in [try SecureRandom.token(byteCount: 32), "short", "..%2F.."] {
            let refused = try await deployment.context(approver, unknown)
            #expect(refused.status == 403 && refused.json?["error"]?.stringValue == "access_denied", "\(unknown)")
        }
        await deployment.stop()
    }

    @Test func approvalSignsInThePollingBrowserAndNoOtherOne() async throws {
        let deployment = try await CrossDeviceDeployment.start()
        let screen = deployment.browser()
        let (id, code) = try await deployment.started(screen)
        let pending = try await deployment.poll(screen, id)
        #expect(pending.status == 202)
        #expect(pending.json?["status"]?.stringValue == "pending" && pending.json?["interval"]?.intValue == 1)

        #expect(try await deployment.decide(code, action: "approve") == 200)
        // A browser without the cookie, and one with a cookie of its own: refused, nothing asked of Modgud.
        let stranger = deployment.browser()
        let other = deployment.browser()
        _ = try await deployment.started(other)
        let calls = deployment.front.deviceTokenCalls.count
        for browser in [stranger, other] {
            let refused = try await deployment.poll(browser, id)
            #expect(refused.status == 403 && refused.json?["error"]?.stringValue == "access_denied")
            #expect(refused.setCookie(named: "__Host-bff") == nil)
        }
        #expect(deployment.front.deviceTokenCalls.count == calls, "Modgud was not asked for them")

        let xdCookie = try #require(screen.cookies["__Host-bff-xd"])
        let approved = try await deployment.pollWhilePending(screen, id)
        #expect(approved.status == 200)
        #expect(approved.json?["user"]?["email"]?.stringValue == CrossDeviceDeployment.email)
        #expect(approved.setCookie(named: "__Host-bff")?.contains("SameSite=Strict") == true)
        #expect(approved.setCookie(named: "__Host-bff-xd")?.contains("Max-Age=0") == true, "the xd cookie is expired")
        let listed = try #require(try await screen.get("/bff/sessions").json?["sessions"]?.arrayValue?.first)
        #expect(listed["method"]?.stringValue == "cross-device")
        #expect(listed["device"]?.stringValue == "Unknown browser", "the polling request's own User-Agent")
        let token = try #require(deployment.front.deviceTokenCalls.last)
        #expect(token.headers["Authorization"] == AccountDeployment.clientBasic)
        #expect(token.headers["Modgud-Forwarded-For"] == "127.0.0.1")
        #expect(token.values("resource").isEmpty, "the audiences were asked for at the start")

        for browser in [stranger, other] { #expect(try await browser.get("/bff/user").status == 401) }
        // The request is over: its records are gone.
        screen.setCookie("__Host-bff-xd", xdCookie)
        #expect(try await deployment.poll(screen, id).status == 403)
        #expect(try await deployment.context(stranger, id).status == 403)
        #expect(deployment.metric("bff_cross_device_signins_total", #"outcome="approved""#) == 1)
        #expect(deployment.metric("bff_cross_device_modgud_polls_total", #"answer="approved""#) == 1)
        let audit = try AuditTrailTests.events(deployment.harness).compactMap { $0["event"]?.stringValue }
        #expect(audit == ["audit.signin.succeeded", "audit.crossdevice.approved"], "each once")
        #expect(deployment.metric("bff_modgud_calls_total", #"endpoint="device_token",outcome="ok""#) == 1, "the approving poll")
        await deployment.stop()
    }

    @Test func denialSignsNothingAndEndsTheRequest() async throws {
        let deployment = try await CrossDeviceDeployment.start()
        let screen = deployment.browser()
        let (id, code) = try await deployment.started(screen)
        #expect(try await deployment.decide(code, action: "deny") == 200)
        let denied = try await deployment.pollWhilePending(screen, id)
        #expect(denied.status == 403 && denied.json?["error"]?.stringValue == "access_denied")
        #expect(denied.setCookie(named: "__Host-bff") == nil)
        let calls = deployment.front.deviceTokenCalls.count
        #expect(try await deployment.poll(screen, id).status == 403)
        #expect(deployment.front.deviceTokenCalls.count == calls, "an ended request asks Modgud nothing")
        #expect(try await deployment.context(screen, id).status == 403)
        #expect(try await screen.get("/bff/user").status == 401)
        #expect(deployment.metric("bff_cross_device_signins_total", #"outcome="denied""#) == 1)
        #expect(try AuditTrailTests.events(deployment.harness).compactMap { $0["event"]?.stringValue } == ["audit.crossdevice.denied"])
        await deployment.stop()
    }

    @Test func offTheRoutesAre404AndCapabilitiesSaySo() async throws {
        let off = try await CrossDeviceDeployment.start(enabled: false)
        let browser = off.browser()
        #expect(try await browser.post("/bff/cross-device/start").status == 404)
        #expect(try await browser.post("/bff/cross-device/poll", ["requestId": "x"]).status == 404)
        #expect(try await browser.get("/bff/cross-device/\(try SecureRandom.token(byteCount: 32))/context").status == 404)
        #expect(try await browser.get("/bff/capabilities").json?["features"]?["crossDevice"]?.boolValue == false)
        #expect(off.front.calls(to: "/connect/device").isEmpty)
        await off.stop()
        let on = try await CrossDeviceDeployment.start()
        #expect(try await on.browser().get("/bff/capabilities").json?["features"]?["crossDevice"]?.boolValue == true)
        await on.stop()
    }

    @Test func aMalformedPollIs400AndNeedsTheCSRFHeader() async throws {
        let deployment = try await CrossDeviceDeployment.start()
        let browser = deployment.browser()
        #expect(try await browser.post("/bff/cross-device/poll", ["requestId": 7]).status == 400)
        #expect(try await browser.post("/bff/cross-device/poll", ["other": "x"]).status == 400)
        let noCSRF = try await browser.send("POST", "/bff/cross-device/start", body: nil, csrf: false)
        #expect(noCSRF.status == 403 && noCSRF.json?["error"]?.stringValue == "csrf_failed")
        #expect(deployment.front.calls(to: "/connect/device").isEmpty)
        await deployment.stop()
    }
}
