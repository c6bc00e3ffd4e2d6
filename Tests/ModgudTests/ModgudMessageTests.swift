import Testing
import Core
import Crypto
import HTTP
@testable import Modgud

@Suite("Modgud requests and answers")
struct ModgudMessageTests {
    @Test func basicAuthenticationURLEncodesBeforeBase64() throws {
        let header = ClientAuthentication.basic(id: "bff client", secret: Secret("p@ss:w/rd+=%"))
        #expect(header.description == "<redacted>")
        let value = header.revealed
        #expect(value.hasPrefix("Basic "))
        let decoded = String(decoding: try #require(Base64.decode(value.dropFirst(6))), as: UTF8.self)
        #expect(decoded == "bff%20client:p%40ss%3Aw%2Frd%2B%3D%25", "a space is %20: Modgud keeps + literal")
    }

    @Test func grantsBuildTheDocumentedForms() {
        let otp = TokenGrant.otp(email: "a@example.com", code: Secret("123456"), totpCode: nil)
            .formFields(scope: "openid offline_access", resources: ["api://orders"])
        #expect(otp.map(\.0) == ["grant_type", "username", "otp_code", "scope", "resource"])
        #expect(otp.first?.1 == "urn:cocoar:otp")

        let mfa = TokenGrant.mfa(grantType: TokenGrant.magicType, mfaToken: Secret("m"), totpCode: Secret("000000"))
            .formFields(scope: "openid", resources: [])
        #expect(mfa.map(\.0) == ["grant_type", "mfa_token", "totp_code"], "no username, code or scope on the second step")
        #expect(mfa.first?.1 == "urn:cocoar:magic")

        let refresh = TokenGrant.refresh(refreshToken: Secret("r")).formFields(scope: "openid", resources: [])
        #expect(refresh.map(\.0) == ["grant_type", "refresh_token"])

        let passkey = TokenGrant.passkey(ceremonyID: Secret("c"), assertion: "{}").formFields(scope: "openid", resources: [])
        #expect(passkey.map(\.0) == ["grant_type", "ceremony_id", "assertion", "scope"])
    }

    /// The magic-link grant takes what Modgud's guide lists for it and no
    /// `resource`, however many audiences the gateway is configured with;
    /// a refresh carries the one it is given.
    @Test func theMagicLinkGrantSendsOnlyItsDocumentedFields() {
        let magic = TokenGrant.magic(userID: "u-1", token: Secret("t"), totpCode: Secret("000000"))
            .formFields(scope: "openid offline_access", resources: ["api://orders", "api://billing"])
        #expect(magic.map(\.0) == ["grant_type", "user_id", "magic_token", "scope", "totp_code"])
        let withoutFactor = TokenGrant.magic(userID: "u-1", token: Secret("t"), totpCode: nil)
            .formFields(scope: "openid", resources: ["api://orders"])
        #expect(withoutFactor.map(\.0) == ["grant_type", "user_id", "magic_token", "scope"])
        let refresh = TokenGrant.refresh(refreshToken: Secret("r")).formFields(scope: nil, resources: ["api://orders"])
        #expect(refresh.filter { $0.0 == "resource" }.map(\.1) == ["api://orders"])
    }

    @Test func rateLimitIsReadCaseInsensitively() {
        let camel = ModgudReply(status: .tooManyRequests, headers: ["Retry-After": "17"],
                                body: Array(#"{"error":"rate_limited","policy":"native-otp","dimension":"target","retryAfterSeconds":17}"#.utf8))
        #expect(camel.rateLimit == RateLimitInfo(policy: "native-otp", dimension: "target", retryAfterSeconds: 17))
        let pascal = ModgudReply(status: .tooManyRequests,
                                 body: Array(#"{"Error":"rate_limited","Policy":"oauth-token","Dimension":"source","RetryAfterSeconds":3}"#.utf8))
        #expect(pascal.rateLimit == RateLimitInfo(policy: "oauth-token", dimension: "source", retryAfterSeconds: 3))
        let garbage = ModgudReply(status: .tooManyRequests, body: Array("not json".utf8))
        #expect(garbage.rateLimit?.policy == "unknown")
        #expect(ModgudReply(status: .ok).rateLimit == nil)
    }

    @Test func problemsAndOAuthErrorsAreTold() {
        let problem = ModgudReply(status: .badRequest, headers: ["Content-Type": "application/problem+json"],
                                  body: Array(#"{"type":"about:blank","title":"NativeGrants.Disabled","status":400}"#.utf8))
        #expect(problem.problemTitle == "NativeGrants.Disabled")
        let oauth = ModgudReply(status: .badRequest, body: Array(#"{"error":"invalid_grant","error_description":"x"}"#.utf8))
        #expect(oauth.oauthError == "invalid_grant")
        #expect(oauth.problemTitle == nil)
    }

    @Test func tokenResponsesNeedABearerAccessToken() throws {
        let json = try JSON.parse(#"{"access_token":"at","token_type":"Bearer","expires_in":900,"refresh_token":"rt","scope":"openid"}"#)
        let tokens = try #require(TokenSet(json: json))
        #expect(tokens.accessToken.revealed == "at")
        #expect(tokens.refreshToken?.revealed == "rt")
        #expect(tokens.expiresIn == 900)
        #expect(TokenSet(json: try JSON.parse(#"{"access_token":"at","token_type":"mac"}"#)) == nil)
        #expect(TokenSet(json: try JSON.parse(#"{"token_type":"Bearer"}"#)) == nil)
        let absurd = try JSON.parse(#"{"access_token":"at","token_type":"Bearer","expires_in":100000000000000000}"#)
        #expect(TokenSet(json: absurd)?.expiresIn == TokenSet.maximumLifetimeSeconds, "cut to a year: no overflow later")
        let negative = try JSON.parse(#"{"access_token":"at","token_type":"Bearer","expires_in":-5}"#)
        #expect(TokenSet(json: negative)?.expiresIn == 0)
    }

    @Test func discoveryOverridesOnlyTheOIDCEndpoints() throws {
        let discovery = try JSON.parse(#"{"issuer":"https://id.example.com","token_endpoint":"https://id.example.com/t","jwks_uri":"javascript:alert(1)"}"#)
        let endpoints = ModgudEndpoints(base: "https://id.example.com", discovery: discovery)
        #expect(endpoints.token == "https://id.example.com/t")
        #expect(endpoints.jwks == "https://id.example.com/.well-known/jwks", "a non-http URL is ignored")
        #expect(endpoints.otpRequest == "https://id.example.com/api/account/native/otp/request")
        #expect(endpoints.ignored.isEmpty)
    }

    /// The client secret and refresh tokens go to the token endpoint: a
    /// document naming plain `http`, another host or another port for an
    /// endpoint called with a secret is not followed there.
    @Test func secretBearingEndpointsStayOnTheBaseOrigin() throws {
        let discovery = try JSON.parse(#"""
        {"issuer":"https://id.example.com","token_endpoint":"http://id.example.com/connect/token",
         "userinfo_endpoint":"https://evil.example.net/connect/userinfo",
         "revocation_endpoint":"https://id.example.com:8443/connect/revoke",
         "introspection_endpoint":"https://ID.Example.com/connect/introspect2",
         "authorization_endpoint":"https://login.example.com/connect/authorize"}
        """#)
        let endpoints = ModgudEndpoints(base: "https://id.example.com", discovery: discovery)
        #expect(endpoints.token == "https://id.example.com/connect/token")
        #expect(endpoints.userinfo == "https://id.example.com/connect/userinfo")
        #expect(endpoints.revocation == "https://id.example.com/connect/revoke")
        #expect(endpoints.introspection == "https://ID.Example.com/connect/introspect2", "the same host in another case")
        #expect(endpoints.authorization == "https://login.example.com/connect/authorize", "a browser's redirect, no secret")
        #expect(endpoints.ignored == ["token_endpoint", "userinfo_endpoint", "revocation_endpoint"])
    }

    @Test func endSessionParAndBackchannelFlagsComeFromDiscovery() throws {
        let plain = ModgudEndpoints(base: "https://id.example.com")
        #expect(plain.endSession == "https://id.example.com/connect/logout")
        #expect(plain.pushedAuthorization == nil && !plain.backchannelLogoutSupported)

        let discovery = try JSON.parse(#"""
        {"issuer":"https://id.example.com","end_session_endpoint":"https://login.example.com/connect/endsession",
         "pushed_authorization_request_endpoint":"https://id.example.com/connect/par",
         "backchannel_logout_supported":true,"backchannel_logout_session_supported":true}
        """#)
        let endpoints = ModgudEndpoints(base: "https://id.example.com", discovery: discovery)
        #expect(endpoints.endSession == "https://login.example.com/connect/endsession", "a browser's redirect, no secret")
        #expect(endpoints.pushedAuthorization == "https://id.example.com/connect/par")
        #expect(endpoints.backchannelLogoutSupported && endpoints.backchannelLogoutSessionSupported)

        let elsewhere = try JSON.parse(#"{"pushed_authorization_request_endpoint":"https://evil.example.net/par"}"#)
        let refused = ModgudEndpoints(base: "https://id.example.com", discovery: elsewhere)
        #expect(refused.pushedAuthorization == nil, "PAR carries the client secret: only on the base origin")
        #expect(refused.ignored == ["pushed_authorization_request_endpoint"])
    }
}
