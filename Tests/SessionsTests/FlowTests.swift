import Core
import Sessions
import Testing

/// Pre-sign-in flow records: bound to their cookie, single use, short-lived.
@Suite("Flow state")
struct FlowTests {
    static let kinds = StoreKind.allCases

    @Test(arguments: kinds)
    func flowStateIsTakenOnceAndOnlyWithItsCookie(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = SessionManager(store: harness.store, clock: harness.unixClock)
            let state = FlowState(grant: "urn:cocoar:passkey", ceremonyID: Secret("ceremony-1"),
                                  mfaToken: Secret("mfa-token-1"), values: ["nonce": Secret("n-1")])
            let setCookie = try await manager.beginFlow(state, replacing: nil)
            #expect(setCookie.revealed.hasPrefix("__Host-bff-flow="))
            #expect(setCookie.revealed.hasSuffix("; Path=/; Max-Age=600; HttpOnly; Secure; SameSite=Strict"))
            let header = "__Host-bff=whatever; " + Fixtures.cookieHeader(setCookie)

            // Another browser's flow cookie, or this value as a session cookie, finds nothing.
            let other = try await manager.beginFlow(FlowState(grant: "urn:cocoar:otp"), replacing: nil)
            let asSession = "__Host-bff=" + Fixtures.cookieValue(setCookie)
            #expect(try await manager.load(cookieHeader: asSession) == nil)
            let otherTaken = try #require(try await manager.takeFlow(cookieHeader: Fixtures.cookieHeader(other)).value)
            #expect(otherTaken.grant == "urn:cocoar:otp" && otherTaken.ceremonyID == nil)

            let taken = try #require(try await manager.takeFlow(cookieHeader: header).value)
            #expect(taken.grant == state.grant && taken.ceremonyID == state.ceremonyID)
            #expect(taken.mfaToken == state.mfaToken && taken.values == state.values)
            #expect(taken.expiresAt == harness.unixClock.unixMilliseconds() + 600_000 || kind == .redis)
            guard case .notFound = try await manager.takeFlow(cookieHeader: header) else {
                Issue.record("flow state was usable twice")
                return
            }
            #expect(manager.expiringFlowCookie() == "__Host-bff-flow=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict")
        }
    }

    @Test(arguments: kinds)
    func concurrentTakesHaveOneWinner(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = SessionManager(store: harness.store, clock: harness.unixClock)
            let header = Fixtures.cookieHeader(try await manager.beginFlow(FlowState(grant: "g"), replacing: nil))
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<10 { group.addTask { try await manager.takeFlow(cookieHeader: header).value != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: kinds)
    func aNewFlowReplacesTheBrowsersEarlierOne(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = SessionManager(store: harness.store, clock: harness.unixClock)
            let first = Fixtures.cookieHeader(try await manager.beginFlow(FlowState(grant: "a"), replacing: nil))
            let second = Fixtures.cookieHeader(try await manager.beginFlow(FlowState(grant: "b"), replacing: first))
            #expect(try await manager.takeFlow(cookieHeader: first).value == nil)
            #expect(try await manager.takeFlow(cookieHeader: second).value?.grant == "b")
        }
    }

    @Test func flowStateExpiresAfterTenMinutes() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.clock)
        let first = Fixtures.cookieHeader(try await manager.beginFlow(FlowState(grant: "a"), replacing: nil))
        let second = Fixtures.cookieHeader(try await manager.beginFlow(FlowState(grant: "a"), replacing: nil))
        harness.clock.advance(by: .seconds(9 * 60))
        #expect(try await manager.takeFlow(cookieHeader: first).value != nil)
        harness.clock.advance(by: .seconds(60))
        #expect(try await manager.takeFlow(cookieHeader: second).value == nil)
    }
}
