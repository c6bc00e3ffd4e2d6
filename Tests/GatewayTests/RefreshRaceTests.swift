import Core
import Foundation
import ModgudSimulator
import Testing
import TestSupport

/// The refresh race across gateway processes (the issue's proof): three
/// built `modgud-bff` processes share one redis-server and one Modgud
/// simulator; a browser signs in once, its access token expires, and then
/// 150 requests (50 on each process) want a fresh token at the same time.
/// Modgud must see exactly one redemption, every request must reach the
/// upstream with the same new token, and the token family must survive.
///
/// Runs in the serial pass (Tests/run): it waits for real expiry and
/// starts processes.
struct RefreshRaceTests {
    /// `modgudDelayMs`: 0 races the processes for the store lock as they
    /// come; 500 keeps Modgud's answer out long enough that the other
    /// processes wait on the lock (pub/sub and polling) rather than find
    /// the successor already stored.
    @Test(arguments: [0, 500])
    func threeProcessesRedeemTheExpiredRefreshTokenOnce(modgudDelayMs: Int) async throws {
        let lifetime = 2
        let deployment = try await RaceDeployment.start(gateways: 3, settings: ["BFF_REFRESH_SKEW_S": "1"]) { sim in
            sim.tokens.accessTokenLifetimeSeconds = lifetime
        }
        let simulator = deployment.simulator
        let modgudPort = simulator.port
        let ports = deployment.gateways.map(\.publicPort)

        let browser = Browser(port: ports[0], origin: "http://localhost:8080")
        #expect(try await browser.post("/bff/otp/request", ["email": "ada@example.com"]).status == 200)
        let code = try #require(simulator.mail(to: "ada@example.com").first?.code)
        let signedIn = try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": .string(code)])
        try #require(signedIn.status == 200)
        let signedInAt = ContinuousClock.now
        let cookie = try #require(browser.cookies["__Host-bff"])
        for port in ports.dropFirst() {
            let user = try await LoopbackCall.send(port: port, "GET", "/bff/user", headers: LoopbackCall.browserHeaders(cookie: cookie))
            #expect(user.status == 200, "one session on every instance")
        }
        // The refresh's tokens last an hour, so a request that comes late
        // finds them fresh instead of refreshing once more.
        simulator.updateConfig { $0.tokens.accessTokenLifetimeSeconds = 3600 }
        if modgudDelayMs > 0 {
            simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: modgudDelayMs))
        }
        // The gateway dated the token's expiry before it answered the sign-in.
        try await Task.sleep(until: signedInAt + .seconds(lifetime) + .milliseconds(500))
        let mark = simulator.lastRequestSeq
        deployment.upstream.reset()

        let responses = try await LoopbackCall.burst("/api/items", cookie: cookie, ports: ports, perPort: 50)
        let statuses = Dictionary(grouping: responses.map { $0?.status ?? 0 }, by: { $0 }).mapValues(\.count)
        #expect(statuses == [200: 150], "answers by status: \(statuses)")

        let calls = ModgudProbe.refreshCalls(simulator, since: mark)
        #expect(calls.count == 1, "refresh_token redemptions at Modgud: \(calls.count)")
        #expect(calls.first?["status"]?.intValue == 200)
        #expect(ModgudProbe.refreshCount(simulator, "redemptions") == 1)
        #expect(ModgudProbe.refreshCount(simulator, "replaysRejected") == 0, "double redemptions")
        #expect(ModgudProbe.refreshCount(simulator, "leewayReplays") == 0)
        #expect(ModgudProbe.refreshCount(simulator, "familyRevocations") == 0)
        #expect(try await ModgudProbe.revokedFamilies(port: modgudPort) == 0, "the family is not revoked")

        let seen = deployment.upstream.authorizations
        #expect(seen.count == 150)
        #expect(Set(seen).count == 1, "one token for every request: \(Set(seen).count) different")
        let token = try #require(seen.first?.split(separator: " ").last.map(String.init))
        let introspection = try await ModgudProbe.introspect(port: modgudPort, token)
        #expect(introspection["active"]?.boolValue == true)
        let issued = (introspection["exp"]?.intValue ?? 0) - (introspection["iat"]?.intValue ?? 0)
        #expect(issued == 3600, "the token the refresh issued, not the expired one")

        let metrics = try await deployment.metrics()
        #expect(metrics.map { metricValue($0, "bff_refresh_total", #"outcome="ok""#) }.reduce(0, +) == 1)
        let others = metrics.map { metricValue($0, "bff_refresh_total") - metricValue($0, "bff_refresh_total", #"outcome="ok""#) }
        #expect(others.reduce(0, +) == 0, "no other refresh outcome: \(metrics.map { Self.refreshLines($0) })")
        if modgudDelayMs > 0 {
            // Modgud answered late: every process had requests that used the one refresh.
            let hits = metrics.map { metricValue($0, "bff_refresh_successor_hits_total") }
            #expect(hits.allSatisfy { $0 >= 1 }, "successor hits per process: \(hits)")
        }
        #expect(deployment.gateways.allSatisfy { !$0.hasExited })
        await deployment.stop()
    }

    private static func refreshLines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix("bff_refresh_total") || $0.hasPrefix("bff_refresh_successor") }
    }
}
