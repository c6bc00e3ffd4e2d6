import Core
import HTTP
@testable import ModgudSimulator
import Testing
import TestSupport

@Suite("Device-code grant (RFC 8628 §3.4–3.5): every answer at /connect/token")
struct DeviceGrantTests {
    @Test func pendingUntilDecidedAndEveryPollIsRecorded() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            sim.simulator.freezeClock()
            let (deviceCode, _) = try await sim.startedDevice()
            let first = try await sim.pollDevice(deviceCode)
            #expect(first.status == 400 && first.error == "authorization_pending")
            #expect(first.header("Cache-Control") == "no-store")
            try await sim.advanceClock(1)
            #expect(try await sim.pollDevice(deviceCode).error == "authorization_pending", "a poll one interval later")
            #expect(try await sim.deviceGrantCalls() == 2)
            let missing = try await sim.postForm("/connect/token", [("grant_type", GrantType.deviceCode)],
                                                 headers: SimHarness.gateway())
            #expect(missing.error == "invalid_request")
            let machine = try await sim.pollDevice(deviceCode, headers: [SimHarness.basic("bff-m2m", "bff-m2m-secret")])
            #expect(machine.error == "unauthorized_client")
        }
    }

    @Test func pollingTooSoonIsSlowDownAndRaisesTheInterval() async throws {
        try await withSimulator { sim async throws in
            sim.simulator.freezeClock()
            let (deviceCode, _) = try await sim.startedDevice()
            #expect(try await sim.pollDevice(deviceCode).error == "authorization_pending")
            #expect(try await sim.pollDevice(deviceCode).error == "slow_down", "at once, inside the 5 s interval")
            try await sim.advanceClock(6)
            #expect(try await sim.pollDevice(deviceCode).error == "slow_down", "6 s is enough for 5 s, not for the raised 10 s")
            let interval = sim.simulator.core.state.identity.withLock { $0.deviceAuthorizations.byDeviceCode[deviceCode]?.interval }
            #expect(interval == 15, "raised by 5 s at each slow_down")
            try await sim.advanceClock(14)
            #expect(try await sim.pollDevice(deviceCode).error == "slow_down")
            try await sim.advanceClock(20)
            #expect(try await sim.pollDevice(deviceCode).error == "authorization_pending")
        }
    }

    @Test func aDeniedCodeAnswersAccessDenied() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            sim.simulator.freezeClock()
            let (deviceCode, userCode) = try await sim.startedDevice()
            #expect(try await sim.decideDevice(userCode, action: "deny").status == 200)
            #expect(try await sim.pollDevice(deviceCode).error == "access_denied")
            try await sim.advanceClock(1)
            #expect(try await sim.pollDevice(deviceCode).error == "access_denied")
            #expect(try await sim.decideDevice(userCode, action: "approve").status == 404, "a decided code stays decided")
        }
    }

    @Test func anExpiredCodeAnswersExpiredToken() async throws {
        try await withSimulator({ config in
            config.realm.deviceCodeLifetimeSeconds = 3
            config.realm.deviceCodeIntervalSeconds = 1
        }) { sim async throws in
            sim.simulator.freezeClock()
            let started = try await sim.startDevice()
            #expect(try started.json()["expires_in"] == 3)
            let deviceCode = try #require(started.field("device_code")), userCode = try #require(started.field("user_code"))
            try await sim.advanceClock(3)
            #expect(try await sim.pollDevice(deviceCode).error == "expired_token")
            #expect(try await sim.decideDevice(userCode, action: "approve").status == 404, "nobody approves an expired code")
            #expect(try await sim.pollDevice(deviceCode).error == "expired_token")
        }
    }

    @Test func anApprovedCodeGetsTokensLikeTheCodeFlowOnce() async throws {
        try await withSimulator(deviceTestConfig) { sim async throws in
            let api = "https://api.example.com"
            let (deviceCode, userCode) = try await sim.startedDevice(resources: [api])
            #expect(try await sim.decideDevice(userCode, action: "approve").status == 200)
            let tokens = try await sim.pollDevice(deviceCode)
            #expect(tokens.status == 200)
            #expect(tokens.header("Cache-Control") == "no-store")
            let access = try #require(tokens.field("access_token"))
            let refresh = try #require(tokens.field("refresh_token"))
            let claimsToken = try #require(tokens.field("id_token"))
            let claims = try #require(sim.simulator.core.state.signingKey.verify(claimsToken))
            let ada = try #require(try await sim.get("/dev/users?email=ada@example.com").json()["id"]?.stringValue)
            #expect(claims["sub"]?.stringValue == ada)
            #expect(claims["aud"] == "bff")
            #expect(claims["iss"]?.stringValue == sim.issuer)
            #expect(claims["email"] == "ada@example.com")
            let sid = try #require(claims["sid"]?.stringValue)
            #expect(!sid.isEmpty)
            let introspection = try await sim.postForm("/connect/introspect", [("token", access)],
                                                       headers: [SimHarness.basic("bff", "bff-secret")])
            #expect(try introspection.json()["aud"] == [.string(api)])
            #expect(try introspection.json()["sub"]?.stringValue == ada)

            let again = try await sim.pollDevice(deviceCode)
            #expect(again.status == 400 && again.error == "invalid_grant", "a device code is redeemed once")
            let renewed = try await sim.refresh(refresh)
            #expect(renewed.status == 200)
            let renewedClaimsToken = try #require(renewed.field("id_token"))
            let renewedClaims = try #require(sim.simulator.core.state.signingKey.verify(renewedClaimsToken))
            #expect(renewedClaims["sid"]?.stringValue == sid, "the refresh keeps the device's sign-in")
        }
    }

    @Test func aCodeBelongsToTheClientThatStartedIt() async throws {
        try await withSimulator({ config in
            deviceTestConfig(&config)
            config.clients.append(ClientRegistration(id: "tv", secret: "tv-secret", grants: [GrantType.deviceCode]))
        }) { sim async throws in
            sim.simulator.freezeClock()
            let tv = [SimHarness.basic("tv", "tv-secret")]
            let (deviceCode, userCode) = try await sim.startedDevice()
            #expect(try await sim.decideDevice(userCode, action: "approve").status == 200)
            let stolen = try await sim.pollDevice(deviceCode, headers: tv)
            #expect(stolen.status == 400 && stolen.error == "invalid_grant")
            #expect(try await sim.pollDevice(deviceCode).status == 200, "another client's attempt spends nothing")

            let own = try await sim.startDevice(scope: "openid", headers: tv)
            let tvCode = try #require(own.field("device_code"))
            #expect(try await sim.pollDevice(tvCode).error == "invalid_grant")
            #expect(try await sim.pollDevice(tvCode, headers: tv).error == "authorization_pending")
        }
    }

    @Test func theStateMachineWithoutSockets() {
        var store = DeviceAuthorizations()
        let (code, record) = store.start(clientId: "bff", scopes: ["openid"], resources: [], lifetime: 30, interval: 5, now: 100)
        #expect(store.live(userCode: record.userCode.lowercased(), now: 100) != nil)
        #expect(store.live(userCode: record.userCode, now: 130) == nil, "expired at its lifetime")
        guard case .unknown = store.poll(deviceCode: code, clientId: "other", now: 100) else { Issue.record("other client"); return }
        guard case .pending = store.poll(deviceCode: code, clientId: "bff", now: 100) else { Issue.record("first poll"); return }
        guard case .slowDown(let raised) = store.poll(deviceCode: code, clientId: "bff", now: 104) else {
            Issue.record("early poll"); return
        }
        #expect(raised == 10)
        guard case .pending = store.poll(deviceCode: code, clientId: "bff", now: 114) else { Issue.record("after 10 s"); return }
        let approval = DeviceApproval(userId: "u1", proof: SignInProof(authTime: 110, amr: ["pwd"], multi: false), sid: "s1")
        let wrongCode = store.decide(userCode: record.userCode == "BCDF-GHJK" ? "CDFG-HJKL" : "BCDF-GHJK", .denied, now: 115)
        let approved = store.decide(userCode: record.userCode.replacingAll("-", " "), .approved(approval), now: 115)
        let twice = store.decide(userCode: record.userCode, .denied, now: 115)
        #expect(!wrongCode && approved)
        #expect(!twice, "decided once")
        guard case .approved(_, let granted) = store.poll(deviceCode: code, clientId: "bff", now: 116) else {
            Issue.record("approved"); return
        }
        #expect(granted.sid == "s1")
        guard case .redeemed = store.poll(deviceCode: code, clientId: "bff", now: 117) else { Issue.record("redeemed"); return }
        store.sweep(now: 131)
        #expect(store.byDeviceCode.isEmpty)
    }
}
