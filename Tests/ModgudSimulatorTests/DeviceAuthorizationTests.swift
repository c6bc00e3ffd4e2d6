import Core
import Crypto
import HTTP
@testable import ModgudSimulator
import Testing
import TestSupport

@Suite("Device authorization endpoint (RFC 8628): answer, client authentication, forwarder, rate limit")
struct DeviceAuthorizationTests {
    static let letters = Set("BCDFGHJKLMNPQRSTVWXZ")

    @Test func theAnswerCarriesEveryFieldAndDiscoveryNamesTheEndpoint() async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.startDevice()
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-store")
            let body = try response.json()
            let deviceCode = try #require(body["device_code"]?.stringValue)
            #expect(deviceCode.count == 43 && Base64URL.decode(deviceCode)?.count == 32, "256 random bits, base64url")
            let userCode = try #require(body["user_code"]?.stringValue)
            let parts = userCode.split(separator: "-", omittingEmptySubsequences: false)
            #expect(parts.count == 2 && parts.allSatisfy { $0.count == 4 && $0.allSatisfy(Self.letters.contains) }, "\(userCode)")
            #expect(body["verification_uri"]?.stringValue == sim.issuer + "/connect/verify")
            #expect(body["verification_uri_complete"]?.stringValue == sim.issuer + "/connect/verify?user_code=" + userCode)
            #expect(body["expires_in"] == 600)
            #expect(body["interval"] == 5)
            let discovery = try await sim.get("/.well-known/openid-configuration").json()
            #expect(discovery["device_authorization_endpoint"]?.stringValue == sim.issuer + "/connect/device")
            #expect(discovery["grant_types_supported"]?.arrayValue?.contains(.string(GrantType.deviceCode)) == true)
            let record = try #require(try await sim.get("/dev/requests?path=/connect/device").json()["requests"]?[0])
            #expect(record["clientId"] == "bff")
            #expect(record["clientAuth"] == "basic")
            #expect(record["forwardedFor"] == "203.0.113.7")
            #expect(record["status"] == 200)
        }
    }

    @Test func theClientMustAuthenticateAndHoldTheGrant() async throws {
        try await withSimulator { sim async throws in
            let none = try await sim.startDevice(headers: [])
            #expect(none.status == 401 && none.error == "invalid_client")
            let wrong = try await sim.startDevice(headers: [SimHarness.basic("bff", "wrong"), ("Modgud-Forwarded-For", "203.0.113.7")])
            #expect(wrong.status == 401 && wrong.error == "invalid_client")
            #expect(wrong.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            let idOnly = try await sim.postForm("/connect/device", [("client_id", "bff"), ("scope", "openid")])
            #expect(idOnly.status == 401 && idOnly.error == "invalid_client", "a confidential client must prove its secret")
            let machine = try await sim.startDevice(headers: [SimHarness.basic("bff-m2m", "bff-m2m-secret")])
            #expect(machine.status == 400 && machine.error == "unauthorized_client")
            let publicClient = try await sim.postForm("/connect/device", [("client_id", "native"), ("scope", "openid")])
            #expect(publicClient.status == 400 && publicClient.error == "unauthorized_client")
            let badResource = try await sim.startDevice(resources: ["not-a-uri"])
            #expect(badResource.status == 400 && badResource.error == "invalid_target")
            let started = sim.simulator.core.state.identity.withLock { $0.deviceAuthorizations.byDeviceCode.count }
            #expect(started == 0, "no refusal starts an authorization")
        }
    }

    @Test func theForwardedAddressIsHonouredAndRefusedAsAtTheTokenEndpoint() async throws {
        try await withSimulator({ config in
            config.rateLimits.policies[RateLimitPolicyName.oauthToken] = RateLimitPolicy([
                .source: RateLimitRule(limit: 1, windowSeconds: 600, burst: 1),
            ])
        }) { sim async throws in
            let missing = try await sim.startDevice(headers: [SimHarness.basic("bff", "bff-secret")])
            #expect(missing.status == 400 && missing.field("title") == "Auth.ForwardedAddressRequired")
            let malformed = try await sim.startDevice(headers: SimHarness.gateway("198.51.100.4:443"))
            #expect(malformed.status == 400 && malformed.field("title") == "Auth.ForwardedAddressRequired")
            let untrusted = try await sim.startDevice(headers: [SimHarness.basic("bff-m2m", "bff-m2m-secret"),
                                                                ("Modgud-Forwarded-For", "198.51.100.4")])
            #expect(untrusted.status == 400 && untrusted.field("title") == "Auth.ForwarderNotTrusted")
            // The honoured address is the source the limit counts: one call per address.
            #expect(try await sim.startDevice(headers: SimHarness.gateway("198.51.100.1")).status == 200)
            #expect(try await sim.startDevice(headers: SimHarness.gateway("198.51.100.1")).status == 429)
            #expect(try await sim.startDevice(headers: SimHarness.gateway("198.51.100.2")).status == 200)
        }
    }

    @Test func theOauthTokenLimitAnswers429WithRetryAfter() async throws {
        try await withSimulator({ config in
            config.rateLimits.policies[RateLimitPolicyName.oauthToken] = RateLimitPolicy([
                .client: RateLimitRule(limit: 1, windowSeconds: 600, burst: 2),
            ])
        }) { sim async throws in
            let (deviceCode, _) = try await sim.startedDevice()
            #expect(try await sim.pollDevice(deviceCode).error == "authorization_pending")
            let refused = try await sim.startDevice()
            #expect(refused.status == 429)
            let retry = try #require(refused.header("Retry-After").flatMap(Int.init))
            #expect(retry >= 1)
            #expect(refused.bodyText == #"{"error":"rate_limited","policy":"oauth-token","dimension":"client","retryAfterSeconds":\#(retry)}"#)
            let poll = try await sim.pollDevice(deviceCode)
            #expect(poll.status == 429, "device polls and starts share the token endpoint's limit")
            let record = try #require(try await sim.get("/dev/requests?path=/connect/device").json()["requests"]?.arrayValue?.last)
            #expect(record["rateLimited"] == "oauth-token/client")
        }
    }

    @Test func userCodesAreTypedWithoutCaseDashesOrSpaces() {
        #expect(DeviceUserCode.normalize("wdjb-mjht") == "WDJBMJHT")
        #expect(DeviceUserCode.normalize(" WDJB MJHT ") == "WDJBMJHT")
        #expect(DeviceUserCode.normalize("wdjbmjht") == "WDJBMJHT")
        #expect(DeviceUserCode.normalize("WDJB-MJH") == nil, "too short")
        #expect(DeviceUserCode.normalize("WDJB-MJHTX") == nil, "too long")
        #expect(DeviceUserCode.normalize("AEIO-UWDJ") == nil, "vowels are not in the alphabet")
        #expect(DeviceUserCode.normalize("WDJB_MJHT") == nil)
        for _ in 0..<200 {
            let code = DeviceUserCode.make()
            #expect(code.count == 9 && Array(code)[4] == "-")
            #expect(DeviceUserCode.normalize(code)?.count == 8, "\(code)")
        }
    }
}
