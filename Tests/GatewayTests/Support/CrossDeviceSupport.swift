import Configuration
import Core
import HTTP
import Modgud
import ModgudSimulator
import Synchronization
import TestSupport
@testable import Gateway

/// A recording use of the hop in front of the simulator for the
/// cross-device tests: it keeps every call (path, headers, form) with the
/// answer it got, and can tell the gateway a shorter `interval` than the
/// simulator keeps, so that the simulator answers the gateway's next poll
/// `slow_down`.
final class DeviceFront: SimulatorHopUse {
    struct Call: Sendable {
        var path: String
        var headers: HTTPHeaders
        var form: [(name: String, value: String)]
        var status: Int
        var answerHeaders: HTTPHeaders
        var answer: [UInt8]

        func values(_ name: String) -> [String] { form.filter { $0.name == name }.map(\.value) }
        var answerJSON: JSON? { try? JSON.parse(answer) }
    }

    private struct State {
        var calls: [Call] = []
        /// The `interval` `/connect/device` answers the gateway with instead.
        var interval: Int?
        /// A status `/connect/token` answers with instead of the simulator.
        var tokenFailure: Int?
    }

    let hop = SimulatorHop()
    private let state = Mutex(State())

    static let loopName = "device-front"

    init() {}

    var calls: [Call] { state.withLock { $0.calls } }

    func calls(to path: String) -> [Call] { calls.filter { $0.path == path } }

    /// Device-code polls that reached the simulator.
    var deviceTokenCalls: [Call] {
        calls(to: "/connect/token").filter { $0.values("grant_type") == [TokenGrant.deviceCodeType] }
    }

    func tellInterval(_ interval: Int?) { state.withLock { $0.interval = interval } }

    /// From now on `/connect/token` answers `status` (nil: the simulator again).
    func failTokens(with status: Int?) { state.withLock { $0.tokenFailure = status } }

    func respond(_ exchange: SimulatorHop.Exchange) async -> HTTPResponse {
        let path = exchange.path
        var response: HTTPResponse
        if path == "/connect/token", let failure = state.withLock({ $0.tokenFailure }) {
            response = HTTPResponse(status: HTTPStatus(failure), headers: ["Content-Type": "text/plain"], bytes: Array("down".utf8))
        } else {
            response = await exchange.forward()
        }
        guard case .bytes(var answer) = response.body else { return response }
        if path == "/connect/device", let interval = state.withLock({ $0.interval }), response.status == .ok,
           case .object(var object)? = try? JSON.parse(answer) {
            object["interval"] = .int(Int64(interval))
            answer = JSON.object(object).serialized
            response = HTTPResponse(status: response.status, headers: response.headers, bytes: answer)
        }
        let call = Call(path: path, headers: exchange.request.headers, form: exchange.form,
                        status: response.status.code, answerHeaders: response.headers, answer: answer)
        state.withLock { $0.calls.append(call) }
        return response
    }
}

/// The gateway with BFF_CROSS_DEVICE on (unless told otherwise), the
/// simulator behind `DeviceFront`, and the steps of a cross-device
/// sign-in as the starting browser and the approving person take them.
struct CrossDeviceDeployment {
    static let origin = "http://localhost:8080"
    static let email = "ada@example.com"
    static let chrome = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
        + "Chrome/131.0.0.0 Safari/537.36"

    let harness: GatewayHarness
    let front: DeviceFront

    /// `interval` and `lifetime`: the simulator's device-code settings (seconds).
    static func start(enabled: Bool = true, interval: Int = 1, lifetime: Int = 600,
                      gateway configure: (inout GatewayConfig) -> Void = { _ in },
                      simulator simulate: @Sendable (inout SimulatorConfig) -> Void = { _ in }) async throws -> CrossDeviceDeployment {
        let front = try await DeviceFront.start()
        let harness = try await front.harness(gateway: { config in
            config.crossDevice = enabled
            configure(&config)
        }, simulator: { config in
            config.realm.deviceCodeIntervalSeconds = interval
            config.realm.deviceCodeLifetimeSeconds = lifetime
            simulate(&config)
        })
        _ = await harness.service.modgud?.discover()
        return CrossDeviceDeployment(harness: harness, front: front)
    }

    func stop() async {
        await harness.stop()
        await front.stop()
    }

    func browser() -> Browser { harness.browser(origin: Self.origin) }

    /// `POST /bff/cross-device/start` from a Chrome on macOS.
    func start(_ browser: Browser) async throws -> RawResponse {
        try await browser.post("/bff/cross-device/start", headers: [("User-Agent", Self.chrome)])
    }

    /// `start`, checked: the request id and the match code.
    func started(_ browser: Browser) async throws -> (requestID: String, matchCode: String) {
        let answer = try await start(browser)
        guard answer.status == 201, let id = answer.json?["requestId"]?.stringValue,
              let code = answer.json?["matchCode"]?.stringValue else { throw Failure.step("start \(answer.status)") }
        return (id, code)
    }

    func poll(_ browser: Browser, _ requestID: String) async throws -> RawResponse {
        try await browser.post("/bff/cross-device/poll", ["requestId": .string(requestID)])
    }

    /// Polls every 100 ms while the answer is 202, at most `limit`.
    func pollWhilePending(_ browser: Browser, _ requestID: String, limit: Duration = .seconds(15)) async throws -> RawResponse {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while true {
            let answer = try await poll(browser, requestID)
            if answer.status != 202 || clock.now >= end { return answer }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func context(_ browser: Browser, _ requestID: String) async throws -> RawResponse {
        try await browser.get("/bff/cross-device/\(requestID)/context")
    }

    /// `POST /dev/device` at the simulator: the person approves or denies
    /// `userCode` as `email`, as its verification page would. The status.
    @discardableResult
    func decide(_ userCode: String, action: String, email: String = Self.email) async throws -> Int {
        let body = JSON.object(["userCode": .string(userCode), "email": .string(email), "action": .string(action)])
        let response = await harness.simulator.respond(PasskeyEnrolment.request(
            .post, "/dev/device", body: body.serialized, headers: [("Content-Type", "application/json")]))
        return response.status.code
    }

    /// A sample of the gateway's metrics, summed over `label` (see `metricValue`).
    func metric(_ name: String, _ label: String? = nil) -> Double {
        metricValue(harness.service.metrics.render(), name, label)
    }

    enum Failure: Error { case step(String) }
}
