import Core
#if canImport(Glibc)
import Glibc
#endif
import Crypto
import HTTPCodec
@testable import Gateway
@testable import ModgudSimulator
import Sessions
import TestSupport

/// Helpers of the session-list and back-channel suites.
enum SessionsSupport {
    static let chromeOnMacOS = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
        + "Chrome/131.0.0.0 Safari/537.36"
    static let firefoxOnLinux = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"

    /// Ada signs in with an e-mailed code from a browser sending `userAgent`.
    @discardableResult
    static func signIn(_ harness: GatewayHarness, _ browser: Browser, userAgent: String) async throws -> RawResponse {
        let email = SignInFlowTests.email
        let requested = try await browser.post("/bff/otp/request", ["email": .string(email)], headers: [("User-Agent", userAgent)])
        // Newest first.
        guard requested.status == 200, let code = harness.simulator.mail(to: email).first?.code else { throw SupportError.noCode }
        return try await browser.post("/bff/otp/redeem", ["email": .string(email), "code": .string(code)],
                                      headers: [("User-Agent", userAgent)])
    }

    /// The session `browser`'s cookie names, read through the gateway's manager.
    static func session(_ harness: GatewayHarness, _ browser: Browser) async throws -> Session? {
        guard let cookie = browser.cookies["__Host-bff"] else { return nil }
        return try await harness.service.sessions.load(cookieHeader: "__Host-bff=" + cookie)
    }

    /// A browser holding a session created straight through the manager
    /// (for a subject or `sid` no sign-in of the simulator gives).
    static func planted(_ harness: GatewayHarness, subject: String, sid: String?) async throws -> Browser {
        let data = SessionData(subject: subject, claims: Array(#"{"sub":"\#(subject)"}"#.utf8), sid: sid, method: .code,
                               tokens: SessionTokens(accessToken: Secret("at-" + subject), accessTokenExpiresAt: nil,
                                                     refreshToken: nil, idToken: nil, scope: "openid"))
        let (_, setCookie) = try await harness.service.sessions.create(data, replacing: nil, device: "Safari on iOS",
                                                                        address: "192.0.2.7")
        let browser = harness.browser()
        let text = setCookie.revealed
        let value = text[text.index(after: text.firstIndex(of: "=")!)..<text.firstIndex(of: ";")!]
        browser.setCookie("__Host-bff", String(value))
        return browser
    }

    /// Logout-token claims as Modgud sends them to this client, with `changes`.
    static func logoutClaims(_ harness: GatewayHarness, _ changes: [(String, JSON?)] = []) -> JSON {
        var claims: JSONObject = [
            "iss": .string(harness.simulator.issuer), "aud": "bff", "iat": .int(Int64(time(nil))),
            "jti": .string(try! SecureRandom.token(byteCount: 16)),
            "events": ["http://schemas.openid.net/event/backchannel-logout": .object([:])],
        ]
        for (key, value) in changes { claims[key] = value }
        return .object(claims)
    }

    /// The simulator's signing key: its JWKS is what the gateway fetches.
    static var simulatorKey: SigningKey { SigningKey(GatewayHarness.signingKey) }

    /// A logout token signed by the simulator's key.
    static func logoutToken(_ claims: JSON, key: SigningKey = simulatorKey, header: JSON? = nil) -> String {
        let header = header ?? ["alg": "RS256", "kid": .string(key.kid), "typ": "logout+jwt"]
        let input = Base64URL.encode(header.serialized) + "." + Base64URL.encode(claims.serialized)
        return input + "." + Base64URL.encode(try! key.key.rs256Signature(for: Array(input.utf8)))
    }

    /// Modgud's call: a form with `logout_token`, no cookie, no CSRF header.
    static func backchannel(_ harness: GatewayHarness, token: String, port: UInt16? = nil,
                            contentType: String = "application/x-www-form-urlencoded", body: [UInt8]? = nil) async throws -> RawResponse {
        let bytes = body ?? Array(FormURLEncoded.serialize([("logout_token", token)]).utf8)
        let lines = ["POST /bff/backchannel-logout HTTP/1.1", "Host: localhost", "Connection: close",
                     "Content-Type: \(contentType)", "Content-Length: \(bytes.count)"]
        let client = try RawClient(port: port ?? harness.port, timeout: 15)
        await client.send(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + bytes)
        guard let response = await client.readResponses(1).first else { throw SupportError.noResponse }
        return response
    }

    enum SupportError: Error { case noCode, noResponse }
}
