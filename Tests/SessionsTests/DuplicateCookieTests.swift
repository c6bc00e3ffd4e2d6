import Core
import Sessions
import Testing

/// A `Cookie` header that names the session or the flow cookie twice
/// names neither (Docs/sessions.md, "The cookie"): in either order, the
/// session is not found, a sign-in ends no earlier session through it, and
/// no flow is taken.
@Suite("Duplicated cookies")
struct DuplicateCookieTests {
    /// Both orders of a cookie's real value and another one.
    static func doubled(_ name: String, _ value: String) -> [String] {
        ["\(name)=\(value); theme=dark; \(name)=AAAA", " \(name)=AAAA;\(name)=\"\(value)\""]
    }

    @Test func aSessionCookieSentTwiceNamesNoSessionAndReplacesNone() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.clock)
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let value = Fixtures.cookieValue(setCookie)
        #expect(try await manager.load(cookieHeader: "theme=dark; __Host-bff=\(value)") != nil)
        #expect(try await manager.load(cookieHeader: "__Host-bffx=1; __Host-bff=\(value); x__Host-bff=2") != nil,
                "names that only contain the cookie's name are other cookies")

        for header in Self.doubled("__Host-bff", value) {
            guard case .noCookie = try await manager.lookup(cookieHeader: header) else {
                Issue.record("a doubled session cookie named a session: \(header.count) bytes")
                continue
            }
            #expect(manager.namesSeveralSessionCookies(header))
            // A sign-in from that browser starts a session, and the one it named lives on.
            _ = try await manager.create(Fixtures.data(), replacing: header)
            #expect(try await manager.load(cookieHeader: "__Host-bff=\(value)") != nil, "not ended through a doubled cookie")
        }
        #expect(!manager.namesSeveralSessionCookies("__Host-bff=\(value); __Host-bff-flow=x"))
    }

    @Test func aFlowCookieSentTwiceTakesNoFlow() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.clock)
        let value = Fixtures.cookieValue(try await manager.beginFlow(FlowState(grant: "g"), replacing: nil))
        for header in Self.doubled("__Host-bff-flow", value) {
            guard case .noCookie = try await manager.takeFlow(cookieHeader: header) else {
                Issue.record("a doubled flow cookie took a flow")
                continue
            }
            // Nor does a new flow from that browser delete the one it named.
            _ = try await manager.beginFlow(FlowState(grant: "h"), replacing: header)
        }
        #expect(try await manager.takeFlow(cookieHeader: "__Host-bff-flow=\(value)").value?.grant == "g")
    }
}
