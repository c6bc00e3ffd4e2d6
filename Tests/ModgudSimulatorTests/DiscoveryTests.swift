import Core
import HTTP
import TestSupport
import Crypto
@testable import ModgudSimulator
import Testing

@Suite("Discovery, JWKS, app-info, CSRF gate")
struct DiscoveryTests {
    @Test func discoveryAdvertisesTheEndpointsAndGrants() async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.get("/.well-known/openid-configuration")
            #expect(response.status == 200)
            let document = try response.json()
            #expect(document["issuer"]?.stringValue == sim.issuer)
            #expect(!sim.issuer.hasSuffix("/"))
            for key in ["token_endpoint", "userinfo_endpoint", "revocation_endpoint", "introspection_endpoint",
                        "jwks_uri", "authorization_endpoint"] {
                #expect(document[key]?.stringValue?.hasPrefix(sim.issuer + "/") == true, "\(key)")
            }
            let grants = document["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for grant in ["urn:cocoar:otp", "urn:cocoar:magic", "urn:cocoar:passkey", "refresh_token",
                          "client_credentials", "authorization_code"] {
                #expect(grants.contains(grant), "\(grant)")
            }
        }
    }

    @Test func nativeGrantsLeaveDiscoveryWhenTheRealmSwitchIsOff() async throws {
        try await withSimulator({ $0.realm.nativeGrants = false }) { sim async throws in
            let grants = try await sim.get("/.well-known/openid-configuration").json()["grant_types_supported"]?.arrayValue ?? []
            #expect(!grants.contains("urn:cocoar:otp"))
            #expect(grants.contains("refresh_token"))
        }
    }

    @Test func idTokensVerifyWithThePublishedKey() async throws {
        try await withSimulator { sim async throws in
            let key = try #require(try await sim.get("/.well-known/jwks").json()["keys"]?[0])
            #expect(key["kty"] == "RSA")
            #expect(key["alg"] == "RS256")
            let n = try #require(key["n"]?.stringValue), e = try #require(key["e"]?.stringValue)
            let publicKey = try RSAPublicKey(modulus: try #require(Base64URL.decode(n)), exponent: try #require(Base64URL.decode(e)))
            let tokens = try await sim.signIn("ada@example.com")
            let parts = try #require(tokens["id_token"]?.stringValue).split(separator: ".")
            #expect(parts.count == 3)
            let signature = try #require(Base64URL.decode(parts[2]))
            #expect(publicKey.isValidRS256Signature(signature, for: Array("\(parts[0]).\(parts[1])".utf8)))
            let header = try JSON.parse(try #require(Base64URL.decode(parts[0])))
            #expect(header["kid"] == key["kid"])
            let claims = try JSON.parse(try #require(Base64URL.decode(parts[1])))
            #expect(claims["iss"]?.stringValue == sim.issuer)
            #expect(claims["aud"] == "bff")
            #expect(claims["sub"] == "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f")
            #expect(claims["given_name"] == "Ada")
            #expect(claims["email"] == "ada@example.com")
            #expect(claims["acr"] == "urn:modgud:acr:single")
            for claim in ["exp", "iat", "auth_time"] { #expect(claims[claim]?.intValue != nil, "\(claim)") }
            #expect(claims["sid"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func appInfoIsPascalCaseFromTheConfiguration() async throws {
        try await withSimulator({ config in
            config.realm.registrationFields.firstname = .required
            config.realm.legal.termsUrl = "https://example.com/terms"
            config.realm.branding.logoUrl = nil
        }) { sim async throws in
            let info = try await sim.get("/api/app-info").json()
            #expect(info["RegistrationFields"]?["Firstname"] == "Required")
            #expect(info["RegistrationFields"]?["Lastname"] == "Optional")
            #expect(info["RegistrationFields"]?["Email"] == "Required")
            #expect(info["SignIn"]?["EmailCode"] == true)
            #expect(info["SignIn"]?["Passkey"] == true)
            #expect(info["SignIn"]?["MinimumLevel"] == "single")
            #expect(info["Legal"]?["TermsUrl"] == "https://example.com/terms")
            #expect(info["Branding"]?["ProductName"] == "Modgud Simulator")
            #expect(info["Branding"]?["LogoUrl"] == nil, "nulls are omitted")
            #expect(info["MagicLinkSelfService"] == true)
        }
    }

    @Test(arguments: [
        ("Sec-Fetch-Site", "cross-site"),
        ("Origin", "https://evil.example"),
        ("Referer", "https://evil.example/page"),
        ("Origin", "null"),
    ])
    func csrfGateRefusesCrossSiteCallsToApi(header: String, value: String) async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.postJSON("/api/account/native/otp/request", ["Email": "ada@example.com"],
                                                   headers: [(header, value)])
            #expect(response.status == 403)
            #expect(response.error == "csrf_blocked")
            #expect(try await sim.get("/dev/mailbox?email=ada@example.com").json().arrayValue?.isEmpty == true)
        }
    }

    @Test func csrfGateLetsSameOriginAndServerCallsThrough() async throws {
        try await withSimulator { sim async throws in
            let sameOrigin = try await sim.postJSON("/api/account/native/otp/request", ["Email": "ada@example.com"],
                                                    headers: [("Origin", "http://127.0.0.1:\(sim.port)"),
                                                              ("Sec-Fetch-Site", "same-origin")])
            #expect(sameOrigin.status == 200)
            let server = try await sim.postJSON("/api/account/native/otp/request", ["Email": "ada@example.com"])
            #expect(server.status == 200)
        }
    }

    @Test func unknownPathsAndMethods() async throws {
        try await withSimulator { sim async throws in
            #expect(try await sim.get("/nope").status == 404)
            let wrongMethod = try await sim.get("/connect/token")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "POST")
            #expect(try await sim.get("/healthz").status == 200)
        }
    }

    @Test func noCookiesAreEverSet() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            #expect(tokens["access_token"] != nil)
            let records = try await sim.get("/dev/requests").json()["requests"]?.arrayValue ?? []
            #expect(records.count >= 3)
            let token = try await sim.postForm("/connect/token", [("grant_type", "refresh_token"),
                                                                  ("refresh_token", tokens["refresh_token"]!.stringValue!)],
                                               headers: SimHarness.gateway())
            #expect(token.header("Set-Cookie") == nil)
            #expect(token.header("Cache-Control") == "no-store")
        }
    }
}
