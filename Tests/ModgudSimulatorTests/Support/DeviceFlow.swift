import Core
import HTTP
@testable import ModgudSimulator
import TestSupport

/// The device authorization grant over real sockets: the device's calls
/// (as `bff`, Basic and a forwarded address, unless told otherwise) and
/// the dev API's approval.
extension SimHarness {
    /// `POST /connect/device`.
    func startDevice(scope: String = "openid profile email offline_access", resources: [String] = [],
                     headers: [(String, String)] = SimHarness.gateway()) async throws -> RawResponse {
        try await postForm("/connect/device", [("scope", scope)] + resources.map { ("resource", $0) }, headers: headers)
    }

    /// Starts one and returns its device code and user code.
    func startedDevice(scope: String = "openid profile email offline_access",
                       resources: [String] = []) async throws -> (deviceCode: String, userCode: String) {
        let response = try await startDevice(scope: scope, resources: resources)
        guard response.status == 200, let device = response.field("device_code"), let user = response.field("user_code")
        else { throw HarnessError.status(response.status, response.bodyText) }
        return (device, user)
    }

    /// One poll of `/connect/token` with the device code.
    func pollDevice(_ deviceCode: String, headers: [(String, String)] = SimHarness.gateway()) async throws -> RawResponse {
        try await postForm("/connect/token", [("grant_type", GrantType.deviceCode), ("device_code", deviceCode)],
                           headers: headers)
    }

    /// `POST /dev/device`.
    func decideDevice(_ userCode: String, email: String = "ada@example.com", action: String) async throws -> RawResponse {
        try await postJSON("/dev/device", ["userCode": .string(userCode), "email": .string(email), "action": .string(action)])
    }

    /// How many `/connect/token` calls with the device-code grant the request recorder holds.
    func deviceGrantCalls() async throws -> Int {
        let records = try await get("/dev/requests?path=/connect/token").json()["requests"]?.arrayValue ?? []
        return records.filter { $0["grantType"]?.stringValue == GrantType.deviceCode }.count
    }
}

/// A test's configuration: one-second polling, the clock frozen by the test.
func deviceTestConfig(_ config: inout SimulatorConfig) {
    config.realm.deviceCodeIntervalSeconds = 1
}
