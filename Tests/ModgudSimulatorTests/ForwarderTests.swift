import Core
import HTTP
import TestSupport
import Crypto
@testable import ModgudSimulator
import Testing

@Suite("Trusted forwarder (Modgud-Forwarded-For)")
struct ForwarderTests {
    static let otpRequest = "/api/account/native/otp/request"

    @Test func basicWithCapabilityAndHeaderIsAccepted() async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.postJSON(Self.otpRequest, ["Email": "ada@example.com"],
                                                  headers: SimHarness.gateway("198.51.100.4"))
            #expect(response.status == 200)
            let record = try #require(try await sim.get("/dev/requests?path=\(Self.otpRequest)").json()["requests"]?[0])
            #expect(record["clientId"] == "bff")
            #expect(record["clientAuth"] == "basic")
            #expect(record["forwardedFor"] == "198.51.100.4")
        }
    }

    @Test func problemsOnTheAccountEndpoints() async throws {
        try await withSimulator { sim async throws in
            let cases: [([(String, String)], String)] = [
                ([("Modgud-Forwarded-For", "198.51.100.4")], "Auth.ForwarderNotTrusted"),
                ([SimHarness.basic("bff-m2m", "bff-m2m-secret"), ("Modgud-Forwarded-For", "198.51.100.4")], "Auth.ForwarderNotTrusted"),
                ([SimHarness.basic("bff", "wrong"), ("Modgud-Forwarded-For", "198.51.100.4")], "Auth.ForwarderNotTrusted"),
                ([SimHarness.basic("bff", "bff-secret")], "Auth.ForwardedAddressRequired"),
                ([SimHarness.basic("bff", "bff-secret"), ("Modgud-Forwarded-For", "198.51.100.4:443")], "Auth.ForwardedAddressRequired"),
                ([SimHarness.basic("bff", "bff-secret"), ("Modgud-Forwarded-For", "198.51.100.4, 10.0.0.1")], "Auth.ForwardedAddressRequired"),
                ([SimHarness.basic("bff", "bff-secret"), ("Modgud-Forwarded-For", "[2001:db8::1]")], "Auth.ForwardedAddressRequired"),
                ([SimHarness.basic("bff", "bff-secret"), ("Modgud-Forwarded-For", "browser.example")], "Auth.ForwardedAddressRequired"),
                ([SimHarness.basic("bff", "bff-secret"), ("Modgud-Forwarded-For", "198.51.100.4"),
                  ("Modgud-Forwarded-For", "198.51.100.5")], "Auth.ForwardedAddressRequired"),
            ]
            for (headers, title) in cases {
                let response = try await sim.postJSON(Self.otpRequest, ["Email": "ada@example.com"], headers: headers)
                #expect(response.status == 400, "\(headers)")
                #expect(response.header("Content-Type")?.hasPrefix("application/problem+json") == true)
                let problem = try response.json()
                #expect(problem["title"]?.stringValue == title, "\(headers)")
                #expect(problem["status"] == 400)
                #expect(problem["detail"]?.stringValue?.isEmpty == false)
            }
            #expect(try await sim.get("/dev/mailbox?email=ada@example.com").json().arrayValue?.isEmpty == true)
        }
    }

    @Test func clientSecretPostDoesNotCountForTheForwarder() async throws {
        try await withSimulator { sim async throws in
            let code = try await sim.requestCode("ada@example.com")
            let response = try await sim.postForm("/connect/token", [
                ("grant_type", GrantType.otp), ("client_id", "bff"), ("client_secret", "bff-secret"),
                ("username", "ada@example.com"), ("otp_code", code), ("scope", "openid"),
            ], headers: [("Modgud-Forwarded-For", "198.51.100.4")])
            #expect(response.status == 400)
            #expect(response.field("title") == "Auth.ForwarderNotTrusted")
            // Without the header, client_secret_post authenticates and redeems.
            let plain = try await sim.postForm("/connect/token", [
                ("grant_type", GrantType.otp), ("client_id", "bff"), ("client_secret", "bff-secret"),
                ("username", "ada@example.com"), ("otp_code", code), ("scope", "openid"),
            ])
            #expect(plain.status == 200)
            let record = try #require(try await sim.get("/dev/requests?path=/connect/token").json()["requests"]?.arrayValue?.last)
            #expect(record["clientAuth"] == "post")
        }
    }

    @Test func tokenEndpointNeedsTheHeaderFromAnEntitledClient() async throws {
        try await withSimulator { sim async throws in
            let missing = try await sim.postForm("/connect/token", [("grant_type", "refresh_token"), ("refresh_token", "x")],
                                                 headers: [SimHarness.basic("bff", "bff-secret")])
            #expect(missing.status == 400)
            #expect(missing.field("title") == "Auth.ForwardedAddressRequired")
            let malformed = try await sim.postForm("/connect/token", [("grant_type", "refresh_token"), ("refresh_token", "x")],
                                                   headers: SimHarness.gateway("not-an-address"))
            #expect(malformed.field("title") == "Auth.ForwardedAddressRequired")
        }
    }

    @Test func bearerCallsWithTheHeaderAreNotTrusted() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            let access = try #require(tokens["access_token"]?.stringValue)
            let response = try await sim.request("POST", "/connect/passkey/enroll/begin",
                                                 headers: [SimHarness.bearer(access), ("Modgud-Forwarded-For", "198.51.100.4")])
            #expect(response.status == 400)
            #expect(response.field("title") == "Auth.ForwarderNotTrusted")
        }
    }

    @Test func forwardedAddressesAreKeyedLikeModgud() {
        #expect(CallerContext.sourceKey(IPAddress("198.51.100.4")!) == "198.51.100.4")
        #expect(CallerContext.sourceKey(IPAddress("::ffff:198.51.100.4")!) == "198.51.100.4")
        #expect(CallerContext.sourceKey(IPAddress("2001:db8:1:2:aaaa::1")!) == "2001:db8:1:2::/64")
        #expect(CallerContext.sourceKey(IPAddress("2001:db8:1:2:ffff::9")!) == "2001:db8:1:2::/64")
    }

    @Test func basicCredentialsAreUrlDecodedBeforeBase64() {
        let header = "Basic " + Base64.encode(Array("my%20client:s%3Ae%2Bcret".utf8))
        let decoded = CallerContext.basicCredentials(header)
        #expect(decoded?.0 == "my client")
        #expect(decoded?.1 == "s:e+cret")
        #expect(CallerContext.basicCredentials("Basic !!!") == nil)
        #expect(CallerContext.basicCredentials("Basic " + Base64.encode(Array("nocolon".utf8))) == nil)
    }
}
