import Core
import Testing
@testable import Modgud

/// The device authorization grant's parts of the client (RFC 8628): the
/// endpoint from discovery, the answer read, the device-code grant's form.
@Suite("Device authorization")
struct DeviceAuthorizationTests {
    @Test func theEndpointComesFromDiscoveryOnlyOnTheBaseOrigin() throws {
        #expect(ModgudEndpoints(base: "https://id.example.com").deviceAuthorization == "https://id.example.com/connect/device")
        let own = try JSON.parse(#"{"device_authorization_endpoint":"https://id.example.com/connect/device2"}"#)
        #expect(ModgudEndpoints(base: "https://id.example.com", discovery: own).deviceAuthorization
            == "https://id.example.com/connect/device2")
        let elsewhere = try JSON.parse(#"{"device_authorization_endpoint":"http://id.example.com/connect/device"}"#)
        let refused = ModgudEndpoints(base: "https://id.example.com", discovery: elsewhere)
        #expect(refused.deviceAuthorization == "https://id.example.com/connect/device", "it carries the client secret")
        #expect(refused.ignored == ["device_authorization_endpoint"])
    }

    @Test func anAnswerIsReadWithoutTheCompleteURI() throws {
        let json = try JSON.parse(#"""
        {"device_code":"dc-1","user_code":"WDJB-MJHT","verification_uri":"https://id.example.com/connect/verify",
         "verification_uri_complete":"https://id.example.com/connect/verify?user_code=WDJB-MJHT","expires_in":600,"interval":5}
        """#)
        let answer = try #require(DeviceAuthorization(json: json))
        #expect(answer.deviceCode.revealed == "dc-1" && answer.userCode == "WDJB-MJHT")
        #expect(answer.verificationURI == "https://id.example.com/connect/verify")
        #expect(answer.expiresIn == 600 && answer.interval == 5)
        #expect(!String(reflecting: answer).contains("dc-1"), "the device code prints redacted")
    }

    @Test func theIntervalDefaultsToFiveAndLimitsHold() throws {
        let bare = try JSON.parse(#"{"device_code":"d","user_code":"U","verification_uri":"https://x.example/v","expires_in":99999}"#)
        let answer = try #require(DeviceAuthorization(json: bare))
        #expect(answer.interval == 5 && answer.expiresIn == DeviceAuthorization.maximumLifetimeSeconds)
    }

    @Test(arguments: [
        #"{"user_code":"U","verification_uri":"https://x.example/v","expires_in":600}"#,
        #"{"device_code":"d","verification_uri":"https://x.example/v","expires_in":600}"#,
        #"{"device_code":"d","user_code":"U","verification_uri":"javascript:alert(1)","expires_in":600}"#,
        #"{"device_code":"d","user_code":"U\n","verification_uri":"https://x.example/v","expires_in":600}"#,
        #"{"device_code":"d","user_code":"U","verification_uri":"https://x.example/v","expires_in":0}"#,
        #"{"device_code":"d","user_code":"U","verification_uri":"https://x.example/v"}"#,
    ])
    func anUnusableAnswerIsRefused(_ text: String) throws {
        #expect(DeviceAuthorization(json: try JSON.parse(text)) == nil)
    }

    @Test func theDeviceCodeGrantCarriesTheCodeAlone() {
        let grant = TokenGrant.deviceCode(Secret("dc-1"))
        let fields = grant.formFields(scope: "openid", resources: ["api://orders"])
        #expect(fields.map(\.0) == ["grant_type", "device_code"])
        #expect(fields.first?.1 == "urn:ietf:params:oauth:grant-type:device_code" && fields.last?.1 == "dc-1")
        #expect(grant.asksForAudiences, "the audiences were asked for at the device authorization")
    }
}
