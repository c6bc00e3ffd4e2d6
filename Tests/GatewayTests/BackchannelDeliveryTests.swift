import Testing
import Core
import HTTP
import HTTPClient
@testable import ModgudSimulator
import TestSupport
@testable import Gateway

/// Back-channel logout end to end: the simulator signs a user out (its dev
/// API, as an administrator would) and delivers the logout token to the
/// gateway's registered URI over real HTTP; the gateway ends the sessions.
@Suite("Back-channel delivery from the simulator", .serialized)
struct BackchannelDeliveryTests {
    /// The simulator's `bff` client pointed at this gateway's endpoint, and
    /// the HTTP client its deliveries go out on (the harness answers through
    /// `Simulator.respond`, without the listener that would attach one).
    static func register(_ harness: GatewayHarness, sessionRequired: Bool) throws {
        harness.simulator.core.state.backchannel.attach(try HTTPClient(
            configuration: HTTPClientConfiguration(connectTimeout: .seconds(2), timeout: .seconds(10)), loops: harness.group.loops))
        let uri = "http://127.0.0.1:\(harness.port)/bff/backchannel-logout"
        harness.simulator.updateConfig { config in
            for index in config.clients.indices where config.clients[index].id == "bff" {
                config.clients[index].backchannelLogoutUri = uri
                config.clients[index].backchannelLogoutSessionRequired = sessionRequired
            }
            config.backchannelRetrySeconds = [0.2, 0.5]
        }
    }

    /// `POST /dev/users/signout {"email"}` at the simulator.
    static func signOutAtModgud(_ harness: GatewayHarness, email: String) async throws -> JSON {
        let response = await harness.simulator.respond(PasskeyEnrolment.request(
            .post, "/dev/users/signout", body: JSON.object(["email": .string(email)]).serialized,
            headers: [("Content-Type", "application/json")]))
        return try PasskeyEnrolment.json(response)
    }

    /// Waits until `browser`'s session answers 401, at most `limit`; how long it took.
    static func timeUntilSignedOut(_ browser: Browser, limit: Duration = .seconds(2)) async throws -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < limit {
            if try await browser.get("/bff/user").status == 401 { return clock.now - start }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    @Test func aSignOutAtModgudEndsEverySessionOfTheUserHere() async throws {
        let harness = try await GatewayHarness.start()
        try Self.register(harness, sessionRequired: false)
        let laptop = harness.browser(), phone = harness.browser()
        try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS)
        try await SessionsSupport.signIn(harness, phone, userAgent: SessionsSupport.firefoxOnLinux)
        let stranger = try await SessionsSupport.planted(harness, subject: "someone-else", sid: nil)
        let ended = try await Self.signOutAtModgud(harness, email: SignInFlowTests.email)
        #expect((ended["sessionsEnded"]?.intValue ?? 0) >= 2)
        let laptopTime = try await Self.timeUntilSignedOut(laptop)
        #expect(laptopTime != nil, "the laptop's session ended through the back channel")
        #expect(try await Self.timeUntilSignedOut(phone) != nil)
        #expect(try await stranger.get("/bff/user").status == 200)
        print("back-channel delivery: the session ended \(laptopTime.map { "\($0)" } ?? "never") after the sign-out at Modgud")
        #expect(metricValue(harness.service.metrics.render(), "bff_backchannel_logouts_total", #"result="accepted""#) >= 1)
        await harness.simulator.core.state.backchannel.shutdown()
        await harness.stop()
    }
}
