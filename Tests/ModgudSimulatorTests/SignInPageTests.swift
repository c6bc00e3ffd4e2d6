import Core
import Crypto
import HTTP
@testable import ModgudSimulator
import Testing
import TestSupport

@Suite("The sign-in page: password, TOTP, the browser's sign-in, prompt and max_age")
struct SignInPageTests {
    typealias Page = SignInPageClient

    func code(_ response: RawResponse) throws -> String {
        #expect(response.status == 302)
        return try #require(Page.query(response).first("code"))
    }

    @Test func theRightPasswordSignsInAndTheIdTokenCarriesTheSignIn() async throws {
        try await withSimulator { sim async throws in
            var browser = Page(sim)
            let verifier = try PKCE.makeVerifier()
            let page = try await browser.authorize(Page.parameters(verifier: verifier))
            #expect(page.status == 200)
            for piece in [#"<label for="email">"#, #"<label for="password">"#, #"autocomplete="username""#,
                          #"autocomplete="current-password""#, #"method="post" action="/connect/authorize""#] {
                #expect(page.bodyText.contains(piece), "the form has \(piece)")
            }
            #expect(page.bodyText.components(separatedBy: "<button").count == 2, "one submit button")
            let done = try await browser.submit(page, [("email", "ada@example.com"), ("password", "simulator")])
            let cookie = try #require(done.header("Set-Cookie"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
            let tokens = try await browser.exchange(code: try code(done), verifier: verifier)
            let idToken = try #require(tokens.field("id_token"))
            let claims = try #require(sim.simulator.core.state.signingKey.verify(idToken))
            #expect(claims["nonce"] == "n1")
            #expect(claims["amr"] == ["pwd"])
            #expect(claims["sid"]?.stringValue?.isEmpty == false)
            #expect(claims["auth_time"]?.doubleValue != nil)
        }
    }

    @Test func aWrongPasswordAndAnUnknownAddressGetTheSameNotice() async throws {
        try await withSimulator { sim async throws in
            var browser = Page(sim)
            let parameters = Page.parameters(verifier: try PKCE.makeVerifier())
            let wrong = try await browser.signIn("ada@example.com", password: "nope", parameters)
            let unknown = try await browser.signIn("nobody@example.com", password: "simulator", parameters)
            #expect(wrong.status == 200 && unknown.status == 200)
            #expect(wrong.header("Set-Cookie") == nil)
            let notice = "The e-mail address or the password is not correct."
            #expect(wrong.bodyText.contains(notice) && unknown.bodyText.contains(notice))
            #expect(wrong.bodyText.contains(#"autocomplete="current-password""#), "the form again")
            // The form carries the request on: the right password now completes it.
            let right = try await browser.submit(wrong, [("email", "ada@example.com"), ("password", "simulator")])
            #expect(Page.query(right).first("state") == "s1")
        }
    }

    @Test func loginHintOnlyPrefillsTheEmail() async throws {
        try await withSimulator { sim async throws in
            let browser = Page(sim)
            let page = try await browser.authorize(Page.parameters(verifier: try PKCE.makeVerifier(),
                                                                   extra: [("login_hint", "ada\"<b>@example.com")]))
            #expect(page.status == 200, "a hint never signs anyone in")
            #expect(page.bodyText.contains(#"value="ada&quot;&lt;b&gt;@example.com""#), "pre-filled, escaped")
            #expect(!page.bodyText.contains("<b>"))
        }
    }

    @Test func theHiddenFieldsAreEscapedAndCarryTheRequestThrough() async throws {
        try await withSimulator { sim async throws in
            var browser = Page(sim)
            let state = #"a"><script>x</script>&'b"#
            let parameters = Page.parameters(verifier: try PKCE.makeVerifier()).map { $0.0 == "state" ? ("state", state) : $0 }
            let page = try await browser.authorize(parameters)
            #expect(!page.bodyText.contains("<script>"))
            #expect(page.bodyText.contains(#"value="a&quot;&gt;&lt;script&gt;x&lt;/script&gt;&amp;&#39;b""#))
            let done = try await browser.submit(page, [("email", "ada@example.com"), ("password", "simulator")])
            #expect(Page.query(done).first("state") == state)
        }
    }

    @Test func promptNoneNeedsTheBrowsersSignIn() async throws {
        try await withSimulator { sim async throws in
            var browser = Page(sim)
            let silent = Page.parameters(verifier: try PKCE.makeVerifier(), extra: [("prompt", "none")])
            #expect(Page.query(try await browser.authorize(silent)).first("error") == "login_required")
            _ = try code(try await browser.signIn("ada@example.com", Page.parameters(verifier: try PKCE.makeVerifier())))
            #expect(browser.cookie != nil)
            _ = try code(try await browser.authorize(silent))
            let plain = try await browser.authorize(Page.parameters(verifier: try PKCE.makeVerifier()))
            #expect(plain.status == 302, "no form while the browser is signed in")
            let forced = try await browser.authorize(Page.parameters(verifier: try PKCE.makeVerifier(), extra: [("prompt", "login")]))
            #expect(forced.status == 200, "prompt=login shows the form again")
            _ = try code(try await browser.submit(forced, [("email", "ada@example.com"), ("password", "simulator")]))
        }
    }

    @Test func maxAgeAsksAgainWhenTheSignInIsOlder() async throws {
        try await withSimulator { sim async throws in
            var browser = Page(sim)
            _ = try code(try await browser.signIn("ada@example.com", Page.parameters(verifier: try PKCE.makeVerifier())))
            let zero = try await browser.authorize(Page.parameters(verifier: try PKCE.makeVerifier(), extra: [("max_age", "0")]))
            #expect(zero.status == 200, "max_age=0 always asks")
            let verifier = try PKCE.makeVerifier()
            let afterForm = try await browser.submit(zero, [("email", "ada@example.com"), ("password", "simulator")])
            _ = try code(afterForm)
            let recent = Page.parameters(verifier: verifier, extra: [("max_age", "60")])
            #expect(try await browser.authorize(recent).status == 302)
            try await sim.advanceClock(120)
            #expect(try await browser.authorize(recent).status == 200, "older than max_age")
            let silentOld = Page.parameters(verifier: verifier, extra: [("max_age", "60"), ("prompt", "none")])
            #expect(Page.query(try await browser.authorize(silentOld)).first("error") == "login_required")
        }
    }

    @Test func aUserWithTotpGivesTheCodeAfterThePassword() async throws {
        try await withSimulator { sim async throws in
            var browser = Page(sim)
            let verifier = try PKCE.makeVerifier()
            let ask = try await browser.signIn("grace@example.com", Page.parameters(verifier: verifier))
            #expect(ask.status == 200)
            #expect(ask.bodyText.contains(#"name="totp_code""#))
            #expect(!ask.bodyText.contains("simulator"), "the password is not carried on")
            let wrong = try await browser.submit(ask, [("totp_code", "000000")])
            #expect(wrong.status == 200 && wrong.bodyText.contains("The code is not correct."))
            let done = try await browser.submit(wrong, [("totp_code", try await sim.totp("grace@example.com"))])
            let tokens = try await browser.exchange(code: try code(done), verifier: verifier)
            let idToken = try #require(tokens.field("id_token"))
            let claims = try #require(sim.simulator.core.state.signingKey.verify(idToken))
            #expect(claims["amr"] == ["pwd", "mfa"])
            #expect(claims["acr"] == "urn:modgud:acr:multi")
        }
    }

    @Test func passwordsComeFromTheConfigAndTheDevEndpoint() async throws {
        try await withSimulator({ $0.realm.defaultPassword = nil }) { sim async throws in
            var browser = Page(sim)
            let parameters = Page.parameters(verifier: try PKCE.makeVerifier())
            #expect(try await browser.signIn("ada@example.com", password: "", parameters).status == 200,
                    "no default password: nobody signs in")
            let set = try await sim.postJSON("/dev/users", ["email": "ada@example.com", "password": "correct horse"])
            #expect(set.status == 200)
            #expect(set.bodyText.contains(#""password":true"#) && !set.bodyText.contains("correct horse"))
            _ = try code(try await browser.signIn("ada@example.com", password: "correct horse", parameters))
        }
    }

    @Test func aDisabledUserCannotSignIn() async throws {
        try await withSimulator { sim async throws in
            var browser = Page(sim)
            _ = try code(try await browser.signIn("ada@example.com", Page.parameters(verifier: try PKCE.makeVerifier())))
            #expect(try await sim.postJSON("/dev/users/disable", ["email": "ada@example.com"]).status == 200)
            let silent = Page.parameters(verifier: try PKCE.makeVerifier(), extra: [("prompt", "none")])
            #expect(Page.query(try await browser.authorize(silent)).first("error") == "login_required")
            let again = try await browser.signIn("ada@example.com", Page.parameters(verifier: try PKCE.makeVerifier()))
            #expect(again.status == 200 && again.bodyText.contains("not correct"))
            let code = try await sim.requestCode("ada@example.com")
            let native = try await sim.postForm("/connect/token", [("grant_type", GrantType.otp), ("username", "ada@example.com"),
                                                                  ("otp_code", code), ("scope", "openid")],
                                                headers: SimHarness.gateway())
            #expect(native.error == "invalid_grant")
        }
    }
}
