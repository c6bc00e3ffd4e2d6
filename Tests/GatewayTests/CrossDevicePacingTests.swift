import Core
import HTTP
import Modgud
import ModgudSimulator
import TestSupport
import Testing
@testable import Gateway

/// The pacing of the gateway's calls to Modgud's token endpoint, on the
/// wall clock (listed in the `timed` pass of Tests/run): however many
/// browsers' polls arrive at once, at one instance or two sharing a
/// store, Modgud is asked at most once per interval; `slow_down` raises
/// it by 5 s; an expired request answers 410.
@Suite("Cross-device sign-in: pacing", .serialized)
struct CrossDevicePacingTests {
    @Test func thirtyConcurrentPollsMakeOneCallPerInterval() async throws {
        let deployment = try await CrossDeviceDeployment.start(interval: 5)
        let screen = deployment.browser()
        let (id, code) = try await deployment.started(screen)
        let clock = ContinuousClock()
        let began = clock.now
        let statuses = try await Self.concurrentPolls(30) { _ in try await deployment.poll(screen, id).status }
        let elapsed = clock.now - began
        #expect(statuses.allSatisfy { $0 == 202 })
        let calls = deployment.front.deviceTokenCalls.count
        #expect(calls >= 1 && calls <= 1 + Int(elapsed / .seconds(5)), "\(calls) calls in \(elapsed)")
        #expect(deployment.metric("bff_cross_device_modgud_polls_total") == Double(calls), "the metric counts the calls made")

        #expect(try await deployment.decide(code, action: "approve") == 200)
        try await Task.sleep(until: began + .milliseconds(5300 * calls))
        let after = try await Self.concurrentPolls(30) { _ in try await deployment.poll(screen, id).status }
        #expect(after.filter { $0 == 200 }.count == 1, "one of them signs in")
        #expect(after.allSatisfy { [200, 202, 403].contains($0) }, "\(after)")
        #expect(deployment.front.deviceTokenCalls.count == calls + 1)
        #expect(try await screen.get("/bff/user").status == 200)
        await deployment.stop()
    }

    @Test func twoInstancesOnOneStoreShareThePacing() async throws {
        let deployment = try await RaceDeployment.start(gateways: 2, settings: ["BFF_CROSS_DEVICE": "true"]) { sim in
            sim.realm.deviceCodeIntervalSeconds = 5
        }
        let origin = CrossDeviceDeployment.origin
        let first = Browser(port: deployment.gateways[0].publicPort, origin: origin)
        let start = try await first.post("/bff/cross-device/start")
        let id = try #require(start.json?["requestId"]?.stringValue)
        let code = try #require(start.json?["matchCode"]?.stringValue)
        let second = Browser(port: deployment.gateways[1].publicPort, origin: origin)
        second.setCookie("__Host-bff-xd", try #require(first.cookies["__Host-bff-xd"]))
        func deviceCalls() -> Int {
            deployment.simulator.requests(since: 0).filter {
                $0["path"]?.stringValue == "/connect/token" && $0["grantType"]?.stringValue == TokenGrant.deviceCodeType
            }.count
        }
        let clock = ContinuousClock()
        let began = clock.now
        let statuses = try await Self.concurrentPolls(30) { index in
            try await (index % 2 == 0 ? first : second).post("/bff/cross-device/poll", ["requestId": .string(id)]).status
        }
        let elapsed = clock.now - began
        #expect(statuses.allSatisfy { $0 == 202 })
        let calls = deviceCalls()
        #expect(calls >= 1 && calls <= 1 + Int(elapsed / .seconds(5)), "\(calls) calls in \(elapsed)")
        let metrics = try await deployment.metrics()
        #expect(metrics.map { metricValue($0, "bff_cross_device_modgud_polls_total") }.reduce(0, +) == Double(calls))

        // Approved, the poll through the other instance signs in; the session serves at both.
        let decided = await deployment.simulator.respond(PasskeyEnrolment.request(
            .post, "/dev/device", body: JSON.object(["userCode": .string(code), "email": "ada@example.com", "action": "approve"]).serialized,
            headers: [("Content-Type", "application/json")]))
        #expect(decided.status == .ok)
        try await Task.sleep(until: began + .milliseconds(5300 * calls))
        let approved = try await second.post("/bff/cross-device/poll", ["requestId": .string(id)])
        #expect(approved.status == 200)
        first.setCookie("__Host-bff", try #require(second.cookies["__Host-bff"]))
        #expect(try await first.get("/bff/user").status == 200)
        #expect(deviceCalls() == calls + 1)
        await deployment.stop()
    }

    /// `count` polls at once; their statuses.
    static func concurrentPolls(_ count: Int, _ poll: @escaping @Sendable (Int) async throws -> Int) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count { group.addTask { try await poll(index) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func slowDownRaisesTheIntervalByFiveSeconds() async throws {
        // The simulator keeps 3 s while the gateway is told 1 s: its second poll comes early.
        let deployment = try await CrossDeviceDeployment.start(interval: 3)
        deployment.front.tellInterval(1)
        let screen = deployment.browser()
        let (id, _) = try await deployment.started(screen)
        #expect(try await deployment.poll(screen, id).json?["interval"]?.intValue == 1)
        try await Task.sleep(for: .milliseconds(1400))
        let slowed = try await deployment.poll(screen, id)
        #expect(slowed.status == 202)
        #expect(slowed.json?["status"]?.stringValue == "pending" && slowed.json?["interval"]?.intValue == 6)
        #expect(deployment.front.deviceTokenCalls.map { $0.answerJSON?["error"]?.stringValue }
            == ["authorization_pending", "slow_down"])
        try await Task.sleep(for: .milliseconds(1400))
        let later = try await deployment.poll(screen, id)
        #expect(later.status == 202 && later.json?["interval"]?.intValue == 6)
        #expect(deployment.front.deviceTokenCalls.count == 2, "no call before the raised interval")
        #expect(deployment.metric("bff_cross_device_modgud_polls_total", #"answer="slow_down""#) == 1)
        await deployment.stop()
    }

    @Test func anExpiredRequestAnswers410AndSignsNothing() async throws {
        let deployment = try await CrossDeviceDeployment.start(interval: 1, lifetime: 2)
        let screen = deployment.browser()
        let (id, code) = try await deployment.started(screen)
        #expect(try await deployment.poll(screen, id).status == 202)
        try await Task.sleep(for: .milliseconds(2300))
        #expect(try await deployment.decide(code, action: "approve") == 404, "too late to approve")
        let context = try await deployment.context(deployment.browser(), id)
        #expect(context.status == 410 && context.json?["error"]?.stringValue == "expired_token")
        #expect(try await deployment.poll(deployment.browser(), id).status == 403, "without its cookie: 403, expired or not")
        let expired = try await deployment.poll(screen, id)
        #expect(expired.status == 410 && expired.json?["error"]?.stringValue == "expired_token")
        #expect(expired.setCookie(named: "__Host-bff") == nil)
        #expect(try await deployment.poll(screen, id).status == 403, "ended: its records are gone")
        #expect(try await screen.get("/bff/user").status == 401)
        #expect(deployment.metric("bff_cross_device_signins_total", #"outcome="expired""#) == 1)
        await deployment.stop()
    }

}
