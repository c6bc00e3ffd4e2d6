import Core
import Sessions
import Testing

/// The cookie as the browser sees it, and the `Cookie` header as we read it.
@Suite("Session cookie")
struct CookieTests {
    let harness = MemoryHarness()
    var manager: SessionManager { SessionManager(store: harness.store, clock: harness.clock) }

    @Test func theSessionCookieHasExactlyTheRequiredAttributes() async throws {
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let text = setCookie.revealed
        let value = Fixtures.cookieValue(setCookie)
        #expect(text == "__Host-bff=\(value); Path=/; Max-Age=43200; HttpOnly; Secure; SameSite=Strict")
        #expect(value.count == 43)
        #expect(value.utf8.allSatisfy { $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0)
            || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        #expect(!text.contains("Domain"))
        #expect(manager.expiringCookie() == "__Host-bff=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict")
    }

    @Test func aBrowserSessionCookieHasNoMaxAge() async throws {
        let configuration = SessionConfiguration(cookieName: "__Host-app", cookieLifetime: .browserSession)
        let manager = SessionManager(store: harness.store, configuration: configuration, clock: harness.clock)
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let value = Fixtures.cookieValue(setCookie)
        #expect(setCookie.revealed == "__Host-app=\(value); Path=/; HttpOnly; Secure; SameSite=Strict")
        #expect(try await manager.load(cookieHeader: "__Host-app=\(value)") != nil)
        #expect(try await manager.load(cookieHeader: "__Host-bff=\(value)") == nil)
    }

    @Test func theSetCookieValueNeverPrints() async throws {
        let (session, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        #expect("\(setCookie)" == "<redacted>")
        var dumped = ""
        dump(session, to: &dumped)
        for text in ["\(session)", String(reflecting: session), dumped, "\(session.data)"] {
            #expect(!text.contains(Fixtures.cookieValue(setCookie)))
            #expect(!text.contains(session.data.tokens.accessToken.revealed))
            #expect(!text.contains(session.data.subject))
            #expect(!text.contains("Lovelace"))
        }
    }

    @Test func theCookieHeaderIsReadTolerantlyAndANameSentTwiceNamesNothing() async throws {
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let value = Fixtures.cookieValue(setCookie)
        let other = String(repeating: "A", count: 43)
        let found = [
            "__Host-bff=\(value)",
            "  __Host-bff = \(value)  ",
            "a=1;__Host-bff=\(value);b=2",
            "a=1;\t__Host-bff=\(value)\t; b",
            "a=1;; ;__Host-bff=\"\(value)\"",
            "noequals; __Host-bff=\(value); other=\(other)",
            "__Host-bff-flow=\(other); __Host-bff=\(value)",
        ]
        for header in found {
            #expect(try await manager.load(cookieHeader: header) != nil, "\(header.count)")
            #expect(header.withContiguousUTF8 { manager.cookieValue(inHeader: $0) } == value, "\(header.count)")
        }
        let notFound = [
            "__Host-bff=\(other); __Host-bff=\(value)",  // sent twice: neither is used
            "noequals; __Host-bff=\(value); __Host-bff=\(other)",
            "__host-bff=\(value)",  // names are case-sensitive
            "x__Host-bff=\(value)",
            "__Host-bff=\(value)x",
            "__Host-bff=\(value.dropLast())",
        ]
        for header in notFound {
            #expect(try await manager.load(cookieHeader: header) == nil, "\(header.count)")
            #expect(header.withContiguousUTF8 { manager.cookieValue(inHeader: $0) } != value, "\(header.count)")
        }
    }

    @Test func theConfigurationReportsEveryProblemAtOnce() {
        #expect(SessionConfiguration().problems().isEmpty)
        let bad = SessionConfiguration(cookieName: "bad name", flowCookieName: "bad name", idleTimeout: .seconds(100_000),
                                       absoluteTimeout: .seconds(60), flowLifetime: .zero, maxRecordBytes: 10)
        #expect(bad.problems().count == 6)
    }
}
