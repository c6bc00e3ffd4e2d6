import Core
import Crypto
import HTTP
import Sessions
import TestSupport
import Testing
@testable import Gateway

/// Sign-in through Modgud's own pages (`/bff/login` → authorize →
/// `/bff/callback`) against the simulator over real sockets, with and
/// without pushed authorization requests.
@Suite("Code flow", .serialized)
struct CodeFlowTests {
    @Test func signInWithoutPARStartsASessionAndReturnsToThePath() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        let login = try await deployment.login(browser, "returnUrl=%2Fapp%2Fpage%3Fx%3D1&loginHint=ada%40example.com")
        #expect(login.status == 302)
        let location = try #require(login.header("Location"))
        #expect(location.hasPrefix(deployment.front.baseURL + "/connect/authorize?"))
        let query = CodeFlowDeployment.query(location)
        #expect(query.first("response_type") == "code" && query.first("client_id") == "bff")
        #expect(query.first("redirect_uri") == "http://localhost:8080/bff/callback")
        #expect(query.first("code_challenge_method") == "S256")
        #expect(query.first("login_hint") == "ada@example.com")
        let state = try #require(query.first("state"))
        let nonce = try #require(query.first("nonce"))
        #expect(Base64URL.decode(state)?.count == 32 && Base64URL.decode(nonce)?.count == 32, "256 random bits each")
        #expect(query.first("code_verifier") == nil, "the verifier never leaves the gateway")
        let flowCookie = try #require(login.setCookie(named: "__Host-bff-flow"))
        #expect(flowCookie.contains("HttpOnly") && flowCookie.contains("Secure") && flowCookie.contains("SameSite=Lax")
            && flowCookie.contains("Path=/"))
        #expect(login.header("Cache-Control") == "no-store")

        let back = try await deployment.authorize(location)
        let callback = try await deployment.callback(browser, back)
        #expect(callback.status == 302)
        #expect(callback.header("Location") == "/app/page?x=1")
        let cookie = try #require(callback.setCookie(named: "__Host-bff"))
        #expect(cookie.contains("SameSite=Strict"))
        let user = try await browser.get("/bff/user")
        #expect(user.status == 200)
        #expect(user.json?["user"]?["email"]?.stringValue == "ada@example.com")
        let session = try #require(try await deployment.session(of: browser))
        #expect(session.data.method == .code)
        #expect(session.data.sid?.isEmpty == false, "the id_token's sid is kept")
        #expect(session.data.tokens.idToken != nil)
        // The code was redeemed once, with Basic, the browser's address and the verifier.
        let token = try #require(deployment.harness.modgudRequests().first { $0["path"]?.stringValue == "/connect/token" })
        #expect(token["clientAuth"]?.stringValue == "basic")
        #expect(token["forwardedFor"]?.stringValue == "127.0.0.1")
        let metrics = deployment.harness.service.metrics.render()
        #expect(metrics.contains("bff_code_flow_signins_total 1"))
        let audit = try AuditTrailTests.events(deployment.harness)
        #expect(audit.map { [$0["event"]?.stringValue, $0["method"]?.stringValue] } == [["audit.signin.succeeded", "code"]])
        #expect(audit.first?["sub"]?.stringValue == session.data.subject)
        await deployment.stop()
    }

    @Test func signInWithPARSendsOnlyTheRequestURIThroughTheBrowser() async throws {
        let deployment = try await CodeFlowDeployment.start(par: true)
        let browser = deployment.browser()
        let login = try await deployment.login(browser, "returnUrl=/done&loginHint=ada%40example.com&prompt=consent&maxAge=300")
        #expect(login.status == 302)
        let location = try #require(login.header("Location"))
        let query = CodeFlowDeployment.query(location)
        #expect(Set(query.map(\.name)) == ["client_id", "request_uri"], "nothing else in the URL")
        let push = try #require(deployment.front.pushes.first)
        #expect(push.headers["Authorization"] == AccountDeployment.clientBasic)
        #expect(push.headers["Modgud-Forwarded-For"] == "127.0.0.1")
        #expect(push.value("prompt") == "consent" && push.value("max_age") == "300")
        #expect(push.value("code_challenge_method") == "S256" && push.value("state") != nil && push.value("nonce") != nil)
        let callback = try await deployment.callback(browser, deployment.authorize(location))
        #expect(callback.status == 302 && callback.header("Location") == "/done")
        #expect(try await browser.get("/bff/user").status == 200)
        for endpoint in ["par", "code_redeem", "userinfo"] {
            #expect(ModgudCallMetricsTests.calls(deployment.harness, endpoint, "ok") == 1, "\(endpoint) counted once")
        }
        #expect(ModgudCallMetricsTests.calls(deployment.harness, "jwks", "ok") >= 1, "the id_token's keys")
        await deployment.stop()
    }

    @Test func modgudThrottlingThePushIsRelayedAndItsFailureIsTheErrorPath() async throws {
        let deployment = try await CodeFlowDeployment.start(par: true)
        deployment.front.failPushes(with: 429)
        let throttled = try await deployment.login(deployment.browser(), "loginHint=ada%40example.com")
        #expect(throttled.status == 429)
        #expect(throttled.header("Retry-After") == "7")
        #expect(throttled.json?["error"]?.stringValue == "slow_down")
        deployment.front.failPushes(with: 500)
        let failed = try await deployment.login(deployment.browser(), "loginHint=ada%40example.com")
        #expect(failed.status == 302)
        #expect(failed.header("Location") == "/signin-error?error=server_error")
        await deployment.stop()
    }

    @Test func severalTabsSignInAtOnce() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        let first = try await deployment.login(browser, "returnUrl=/one&loginHint=ada%40example.com")
        let second = try await deployment.login(browser, "returnUrl=/two&loginHint=ada%40example.com")
        let firstLocation = try #require(first.header("Location")), secondLocation = try #require(second.header("Location"))
        #expect(CodeFlowDeployment.query(firstLocation).first("state") != CodeFlowDeployment.query(secondLocation).first("state"))
        #expect(first.setCookie(named: "__Host-bff-flow")?.split(separator: ";").first
            == second.setCookie(named: "__Host-bff-flow")?.split(separator: ";").first, "one flow cookie, reused")
        // Finished in the other order: each tab lands where it started.
        let secondBack = try await deployment.callback(browser, deployment.authorize(secondLocation))
        #expect(secondBack.status == 302 && secondBack.header("Location") == "/two")
        let firstBack = try await deployment.callback(browser, deployment.authorize(firstLocation))
        #expect(firstBack.status == 302 && firstBack.header("Location") == "/one")
        #expect(try await browser.get("/bff/user").status == 200)
        await deployment.stop()
    }

    @Test func stepUpReplacesTheSession() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        #expect(try await deployment.signIn(browser).status == 302)
        let earlier = try #require(browser.cookies["__Host-bff"])
        let login = try await deployment.login(browser, "prompt=login&maxAge=0&loginHint=ada%40example.com&returnUrl=/settings")
        let stepUp = try #require(login.header("Location"))
        let query = CodeFlowDeployment.query(stepUp)
        #expect(query.first("prompt") == "login" && query.first("max_age") == "0")
        let back = try await deployment.callback(browser, deployment.authorize(stepUp))
        #expect(back.header("Location") == "/settings")
        let later = try #require(browser.cookies["__Host-bff"])
        #expect(later != earlier)
        let stale = deployment.browser()
        stale.setCookie("__Host-bff", earlier)
        #expect(try await stale.get("/bff/user").status == 401, "the earlier session ended")
        #expect(try await browser.get("/bff/user").status == 200)
        await deployment.stop()
    }

    @Test func continueMFAStartsTheAuthorizeRequestForThePendingUser() async throws {
        let deployment = try await CodeFlowDeployment.start(par: true)
        let browser = deployment.browser()
        let grace = "grace@example.com"
        let prompted = try await SignInFlowTests.signInWithCode(deployment.harness, browser, email: grace)
        #expect(prompted.status == 400 && prompted.json?["error"]?.stringValue == "mfa_required")
        let login = try await deployment.login(browser, "continue=mfa&returnUrl=/after-mfa")
        #expect(login.status == 302)
        let location = try #require(login.header("Location"))
        #expect(!location.contains("mfa_token"))
        let push = try #require(deployment.front.pushes.last)
        #expect(push.value("prompt") == "login")
        #expect(push.value("login_hint") == grace)
        #expect(push.value("mfa_token")?.isEmpty == false, "the mfa_token travels only in the pushed request")
        let totp = try #require(deployment.simulator.totpCode(for: grace))
        let back = try await deployment.callback(browser, deployment.authorize(location, email: grace, totp: totp))
        #expect(back.status == 302 && back.header("Location") == "/after-mfa")
        #expect(try await browser.get("/bff/user").json?["user"]?["email"]?.stringValue == grace)
        // The pending second factor was taken: a second try has none.
        let again = try await deployment.login(browser, "continue=mfa")
        #expect(again.header("Location") == "/signin-error?error=login_required")
        await deployment.stop()
    }

    @Test func aFailedContinueMFALeavesTheSecondFactorWaiting() async throws {
        let deployment = try await CodeFlowDeployment.start(par: true)
        let browser = deployment.browser()
        let grace = "grace@example.com"
        _ = try await SignInFlowTests.signInWithCode(deployment.harness, browser, email: grace)
        deployment.front.failPushes(with: 500)
        let failed = try await deployment.login(browser, "continue=mfa")
        #expect(failed.header("Location") == "/signin-error?error=server_error")
        // The second factor can still be given here.
        let totp = try #require(deployment.simulator.totpCode(for: grace))
        let done = try await browser.post("/bff/mfa", ["totpCode": .string(totp)])
        #expect(done.status == 200)
        await deployment.stop()
    }

    @Test func continueMFAWithoutPARNamesTheUserButNeverTheToken() async throws {
        let deployment = try await CodeFlowDeployment.start()
        let browser = deployment.browser()
        _ = try await SignInFlowTests.signInWithCode(deployment.harness, browser, email: "grace@example.com")
        let login = try await deployment.login(browser, "continue=mfa")
        let location = try #require(login.header("Location"))
        let query = CodeFlowDeployment.query(location)
        #expect(query.first("login_hint") == "grace@example.com" && query.first("prompt") == "login")
        #expect(query.first("mfa_token") == nil)
        await deployment.stop()
    }

    @Test func badLoginParametersGoToTheErrorPath() async throws {
        let deployment = try await CodeFlowDeployment.start()
        for query in ["maxAge=-1", "maxAge=soon", "loginHint=" + String(repeating: "a", count: 400), "loginHint=a%0Ab"] {
            let refused = try await deployment.login(deployment.browser(), query)
            #expect(refused.status == 302 && refused.header("Location") == "/signin-error?error=invalid_request", "\(query)")
            #expect(refused.setCookie(named: "__Host-bff-flow") == nil)
        }
        // An unknown prompt is left out; an unsafe returnUrl becomes `/`.
        let login = try await deployment.login(deployment.browser(), "prompt=evil&returnUrl=%2F%2Fevil.example&loginHint=ada%40example.com")
        let location = try #require(login.header("Location"))
        #expect(CodeFlowDeployment.query(location).first("prompt") == nil)
        await deployment.stop()
    }

    @Test func anUnsafeReturnURLLandsAtTheRoot() async throws {
        let deployment = try await CodeFlowDeployment.start()
        for returnURL in ["%2F%2Fevil.example", "https%3A%2F%2Fevil.example", "%2F%5Cevil", "%2F%252F%252Fevil"] {
            let browser = deployment.browser()
            let back = try await deployment.signIn(browser, query: "returnUrl=" + returnURL)
            #expect(back.status == 302 && back.header("Location") == "/", "\(returnURL)")
        }
        await deployment.stop()
    }

    @Test func codeFlowOffAnswers404() async throws {
        let deployment = try await CodeFlowDeployment.start(gateway: { $0.codeFlow = false })
        #expect(try await deployment.login(deployment.browser(), "loginHint=ada%40example.com").status == 404)
        #expect(try await deployment.callback(deployment.browser(), "/bff/callback?code=x&state=y").status == 404)
        let capabilities = try await deployment.browser().get("/bff/capabilities")
        #expect(capabilities.json?["signIn"]?["codeFlow"]?.boolValue == false)
        await deployment.stop()
    }
}
