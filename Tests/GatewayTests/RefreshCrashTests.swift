import Core
import Foundation
import ModgudSimulator
import Testing
import TestSupport

/// A gateway process killed while its refresh is at Modgud: Modgud rotates
/// the token, nobody ever sees the successor. The record was marked "a
/// refresh was sent" before the call, so the other instance must not send
/// the spent token again (a replay would revoke the family everywhere): it
/// ends this one session instead, and revokes its family.
///
/// Runs in the serial pass (Tests/run): it kills a process and waits for a
/// lease to run out.
struct RefreshCrashTests {
    @Test func aRefresherKilledMidCallLeavesNoReplayBehind() async throws {
        let lifetime = 2
        // Lease = Modgud timeout + 5 s: short, so the test waits little.
        let deployment = try await RaceDeployment.start(gateways: 2, settings: [
            "BFF_REFRESH_SKEW_S": "1", "BFF_MODGUD_TIMEOUT_MS": "1000",
        ]) { sim in
            sim.tokens.accessTokenLifetimeSeconds = lifetime
        }
        let simulator = deployment.simulator
        let (killed, survivor) = (deployment.gateways[0], deployment.gateways[1])

        let browser = Browser(port: killed.publicPort, origin: "http://localhost:8080")
        #expect(try await browser.post("/bff/otp/request", ["email": "ada@example.com"]).status == 200)
        let code = try #require(simulator.mail(to: "ada@example.com").first?.code)
        try #require(try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": .string(code)]).status == 200)
        let signedInAt = ContinuousClock.now
        let cookie = try #require(browser.cookies["__Host-bff"])
        try await Task.sleep(until: signedInAt + .seconds(lifetime) + .milliseconds(500))

        // Modgud holds the refresh 3 s, then redeems it: by then its sender is dead.
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 3000))
        let headers = LoopbackCall.browserHeaders(cookie: cookie)
        let doomed = Task { try? await LoopbackCall.send(port: killed.publicPort, "GET", "/api/items", headers: headers, timeout: 10) }
        try #require(try await simulator.faultsStruck() == 1, "the refresh reached Modgud")
        kill(killed.pid, SIGKILL)
        _ = await doomed.value
        // Modgud redeems it 3 s after it arrived (a fixed sleep raced that
        // by the few milliseconds the kill took).
        let redeemedBy = ContinuousClock.now + .seconds(8)
        while ModgudProbe.refreshCount(simulator, "redemptions") == 0, ContinuousClock.now < redeemedBy {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(ModgudProbe.refreshCount(simulator, "redemptions") == 1)

        // The survivor waits out the dead holder's lease, finds the mark,
        // and ends the session rather than replay the spent token.
        let answer = try await LoopbackCall.send(port: survivor.publicPort, "GET", "/api/items", headers: headers, timeout: 30)
        #expect(answer.status == 401)
        #expect(answer.json?["error"]?.stringValue == "session_expired")
        #expect(ModgudProbe.refreshCount(simulator, "redemptions") == 1, "no second redemption")
        #expect(ModgudProbe.refreshCount(simulator, "replaysRejected") == 0)
        // Its family is revoked through /connect/revoke (in the background),
        // never through a replay; no other family is touched.
        let revokedBy = ContinuousClock.now + .seconds(10)
        while try await ModgudProbe.revokedFamilies(port: simulator.port) != 1, ContinuousClock.now < revokedBy {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await ModgudProbe.revokedFamilies(port: simulator.port) == 1, "this session's family alone")
        #expect(survivor.log.contains("refresh.replay_avoided"))
        await deployment.stop()
    }
}
