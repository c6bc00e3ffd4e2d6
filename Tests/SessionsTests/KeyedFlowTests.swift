import Core
import Sessions
import Testing

/// Authorization-code flow records: several per flow cookie, each found
/// only with the cookie AND its key, single use, short-lived.
@Suite("Keyed flow state")
struct KeyedFlowTests {
    static let kinds = StoreKind.allCases

    @Test(arguments: kinds)
    func aRecordIsTakenOnceAndOnlyWithItsCookieAndKey(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = SessionManager(store: harness.store, clock: harness.unixClock)
            let state = FlowState(grant: "authorization_code", values: ["nonce": Secret("n-1"), "verifier": Secret("v-1")])
            let setCookie = try await manager.beginKeyedFlow(state, key: "state-1", cookieHeader: nil)
            #expect(setCookie.revealed.hasPrefix("__Host-bff-flow="))
            #expect(setCookie.revealed.hasSuffix("; Path=/; Max-Age=600; HttpOnly; Secure; SameSite=Lax"))
            let header = Fixtures.cookieHeader(setCookie)
            // A second sign-in of the same browser reuses the cookie under another key.
            let again = try await manager.beginKeyedFlow(FlowState(grant: "authorization_code"), key: "state-2",
                                                         cookieHeader: header)
            #expect(Fixtures.cookieValue(again) == Fixtures.cookieValue(setCookie))
            // Another browser's cookie with the right key, or this cookie with
            // a wrong key, finds nothing and takes nothing.
            let stranger = Fixtures.cookieHeader(try await manager.beginKeyedFlow(FlowState(grant: "authorization_code"),
                                                                                  key: "state-3", cookieHeader: nil))
            #expect(try await manager.takeKeyedFlow(cookieHeader: stranger, key: "state-1").value == nil)
            #expect(try await manager.takeKeyedFlow(cookieHeader: header, key: "state-9").value == nil)
            guard case .noCookie = try await manager.takeKeyedFlow(cookieHeader: nil, key: "state-1") else {
                Issue.record("no cookie should be .noCookie")
                return
            }

            let taken = try #require(try await manager.takeKeyedFlow(cookieHeader: header, key: "state-1").value)
            #expect(taken.values == state.values)
            #expect(try await manager.takeKeyedFlow(cookieHeader: header, key: "state-1").value == nil, "single use")
            #expect(try await manager.takeKeyedFlow(cookieHeader: header, key: "state-2").value?.grant == "authorization_code")
            // The one-per-cookie flow of the same cookie is another record.
            #expect(try await manager.takeFlow(cookieHeader: header).value == nil)
        }
    }

    /// On the memory store, whose clock the test moves (Redis's own TTL
    /// would need the wall clock).
    @Test func aFlowPastItsLifetimeIsExpired() async throws {
        try await withHarness(.memory) { harness in
            var configuration = SessionConfiguration()
            configuration.flowLifetime = .seconds(1)
            let manager = SessionManager(store: harness.store, configuration: configuration, clock: harness.unixClock)
            let header = Fixtures.cookieHeader(try await manager.beginKeyedFlow(FlowState(grant: "authorization_code"),
                                                                                key: "s", cookieHeader: nil))
            try await harness.advance(by: .seconds(2))
            #expect(try await manager.takeKeyedFlow(cookieHeader: header, key: "s").value == nil)
        }
    }
}
