import Core
import Crypto
import HTTP
@testable import ModgudSimulator
import Testing
import TestSupport

@Suite("Pushed authorization requests (RFC 9126)")
struct PushedAuthorizationTests {
    typealias Page = SignInPageClient

    func push(_ sim: SimHarness, _ parameters: [(String, String)],
              headers: [(String, String)] = [SimHarness.basic("bff", "bff-secret")]) async throws -> RawResponse {
        try await sim.postForm("/connect/par", parameters, headers: headers)
    }

    func requestURI(_ response: RawResponse) throws -> String {
        #expect(response.status == 201)
        #expect(try response.json()["expires_in"] == 60)
        let uri = try #require(response.field("request_uri"))
        #expect(uri.hasPrefix("urn:ietf:params:oauth:request_uri:"))
        return uri
    }

    @Test func thePushedParametersDriveTheAuthorizeRequest() async throws {
        try await withSimulator { sim async throws in
            let discovery = try await sim.get("/.well-known/openid-configuration").json()
            #expect(discovery["pushed_authorization_request_endpoint"]?.stringValue == sim.issuer + "/connect/par")
            let verifier = try PKCE.makeVerifier()
            let uri = try requestURI(try await push(sim, Page.parameters(verifier: verifier)))
            var browser = Page(sim)
            let page = try await browser.authorize([("client_id", "bff"), ("request_uri", uri)])
            #expect(page.status == 200)
            #expect(!page.bodyText.contains("code_challenge"), "the page carries the request_uri, not the pushed parameters")
            let done = try await browser.submit(page, [("email", "ada@example.com"), ("password", "simulator")])
            let query = Page.query(done)
            #expect(query.first("state") == "s1")
            let tokens = try await browser.exchange(code: try #require(query.first("code")), verifier: verifier)
            #expect(tokens.status == 200)
            let reuse = try await browser.authorize([("client_id", "bff"), ("request_uri", uri)])
            #expect(reuse.status == 400, "single use")
        }
    }

    @Test func anExpiredOrForeignRequestURIIsRefused() async throws {
        try await withSimulator({ config in
            config.clients.append(ClientRegistration(id: "other", secret: "other-secret", grants: [GrantType.authorizationCode],
                                                     redirectUris: [Page.redirect]))
        }) { sim async throws in
            let parameters = Page.parameters(verifier: try PKCE.makeVerifier())
            let foreign = try requestURI(try await push(sim, parameters))
            #expect(try await sim.get("/connect/authorize?" + FormURLEncoded.serialize([
                ("client_id", "other"), ("request_uri", foreign)])).status == 400)
            #expect(try await sim.get("/connect/authorize?" + FormURLEncoded.serialize([
                ("client_id", "bff"), ("request_uri", "urn:ietf:params:oauth:request_uri:made-up")])).status == 400)
            let expiring = try requestURI(try await push(sim, parameters))
            try await sim.advanceClock(61)
            #expect(try await sim.get("/connect/authorize?" + FormURLEncoded.serialize([
                ("client_id", "bff"), ("request_uri", expiring)])).status == 400)
        }
    }

    @Test func pushingNeedsAnAuthenticatedClientAndAValidRequest() async throws {
        try await withSimulator { sim async throws in
            let parameters = Page.parameters(verifier: try PKCE.makeVerifier())
            let publicClient = try await push(sim, parameters.map { $0.0 == "client_id" ? ("client_id", "native") : $0 }, headers: [])
            #expect(publicClient.status == 401 && publicClient.error == "invalid_client")
            let wrongSecret = try await push(sim, parameters, headers: [SimHarness.basic("bff", "nope")])
            #expect(wrongSecret.error == "invalid_client")
            let viaPost = try await push(sim, parameters + [("client_secret", "bff-secret")], headers: [])
            #expect(viaPost.status == 201)
            let badRedirect = try await push(sim, parameters.map { $0.0 == "redirect_uri" ? ("redirect_uri", "https://evil.example/cb") : $0 })
            #expect(badRedirect.status == 400 && badRedirect.error == "invalid_request")
            let noPKCE = try await push(sim, parameters.filter { $0.0 != "code_challenge_method" })
            #expect(noPKCE.status == 400 && noPKCE.error == "invalid_request")
            let otherClient = try await push(sim, parameters.map { $0.0 == "client_id" ? ("client_id", "native") : $0 })
            #expect(otherClient.error == "invalid_client", "client_id must name the authenticated client")
        }
    }

    @Test func theRealmSwitchTurnsParOff() async throws {
        try await withSimulator { sim async throws in
            let uri = try requestURI(try await push(sim, Page.parameters(verifier: try PKCE.makeVerifier())))
            try await sim.config(["par": false])
            let discovery = try await sim.get("/.well-known/openid-configuration").json()
            #expect(discovery["pushed_authorization_request_endpoint"] == nil)
            #expect(try await push(sim, Page.parameters(verifier: try PKCE.makeVerifier())).status == 404)
            #expect(try await sim.get("/connect/authorize?" + FormURLEncoded.serialize([
                ("client_id", "bff"), ("request_uri", uri)])).status == 400)
            #expect(try await sim.get("/dev/config").json()["realm"]?["par"] == false)
        }
    }
}
