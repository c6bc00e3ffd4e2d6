import Core
import Crypto
import Sessions
import Testing

/// The manager over every store: the session's life from sign-in to logout.
@Suite("SessionManager")
struct SessionManagerTests {
    static let kinds = StoreKind.allCases

    static func manager(_ harness: any StoreHarness) -> SessionManager {
        SessionManager(store: harness.store, clock: harness.unixClock)
    }

    @Test(arguments: kinds)
    func createsLoadsUpdatesAndEnds(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let data = Fixtures.data()
            let (created, setCookie) = try await manager.create(data, replacing: nil)
            #expect(created.version == 1)
            let header = "theme=dark; " + Fixtures.cookieHeader(setCookie) + "; lang=en"
            var session = try #require(try await manager.load(cookieHeader: header))
            #expect(session.data == data)
            #expect(session.authenticatedAt == created.authenticatedAt)
            #expect(session.absoluteExpiresAt == created.absoluteExpiresAt)

            var refreshed = data
            refreshed.tokens.accessToken = Secret(Fixtures.token())
            refreshed.tokens.resources = [:]
            #expect(try await manager.update(&session, data: refreshed))
            #expect(session.version == 2)
            let reloaded = try #require(try await manager.load(cookieHeader: header))
            #expect(reloaded.data == refreshed && reloaded.version == 2)

            let expiring = try await manager.end(reloaded)
            #expect(expiring == "__Host-bff=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict")
            #expect(try await manager.load(cookieHeader: header) == nil)
            #expect(try await harness.store.indexMembers(SessionManager.userIndexForTests(data.subject)).isEmpty)
        }
    }

    @Test(arguments: kinds)
    func anUpdateLosesToAnEarlierWriter(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
            let header = Fixtures.cookieHeader(setCookie)
            var first = try #require(try await manager.load(cookieHeader: header))
            var second = first
            var winner = first.data
            winner.tokens.accessToken = Secret("winner")
            var loser = first.data
            loser.tokens.accessToken = Secret("loser")
            #expect(try await manager.update(&first, data: winner))
            #expect(try await !manager.update(&second, data: loser))
            #expect(second.version == 1)
            let current = try #require(try await manager.reload(second).value)
            #expect(current.data.tokens.accessToken == Secret("winner") && current.version == 2)
        }
    }

    @Test(arguments: kinds)
    func signInAlwaysIssuesAFreshIDAndEndsTheEarlierSession(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (first, firstCookie) = try await manager.create(Fixtures.data(subject: "alice"), replacing: nil)
            let firstHeader = Fixtures.cookieHeader(firstCookie)
            let (second, secondCookie) = try await manager.create(Fixtures.data(subject: "bob"), replacing: firstHeader)
            #expect(Fixtures.cookieValue(firstCookie) != Fixtures.cookieValue(secondCookie))
            #expect(first.lockName != second.lockName)
            guard case .notFound = try await manager.lookup(cookieHeader: firstHeader) else {
                Issue.record("the earlier session survived sign-in")
                return
            }
            #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(secondCookie)) != nil)
            #expect(try await harness.store.indexMembers(SessionManager.userIndexForTests("alice")).isEmpty)
            #expect(try await harness.store.indexMembers(SessionManager.userIndexForTests("bob")) == [second.lockName])
            // A cookie naming nothing (a planted or stale id) is simply replaced.
            let stale = "__Host-bff=" + String(repeating: "A", count: 43)
            #expect(try await manager.create(Fixtures.data(subject: "bob"), replacing: stale).session.version == 1)
        }
    }

    @Test(arguments: kinds)
    func endAllEndsEverySessionOfOneUser(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            var aliceHeaders: [String] = []
            for _ in 0..<3 {
                aliceHeaders.append(Fixtures.cookieHeader(try await manager.create(Fixtures.data(subject: "alice"),
                                                                                  replacing: nil).setCookie))
            }
            let bob = Fixtures.cookieHeader(try await manager.create(Fixtures.data(subject: "bob"), replacing: nil).setCookie)
            #expect(try await manager.endAll(subject: "alice").count == 3)
            for header in aliceHeaders { #expect(try await manager.load(cookieHeader: header) == nil) }
            #expect(try await manager.load(cookieHeader: bob) != nil)
            #expect(try await manager.endAll(subject: "alice").isEmpty)
        }
    }

    @Test(arguments: kinds)
    func aRecordTamperedInTheStoreIsRefused(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let store = harness.store
            let (a, aCookie) = try await manager.create(Fixtures.data(subject: "alice"), replacing: nil)
            let (b, bCookie) = try await manager.create(Fixtures.data(subject: "bob"), replacing: nil)
            let original = try #require(try await store.load(a.lockName, touch: nil))
            let other = try #require(try await store.load(b.lockName, touch: nil))
            let header = Fixtures.cookieHeader(aCookie)

            var flipped = original
            flipped.bytes[flipped.bytes.count / 2] ^= 0x01
            var truncated = original
            truncated.bytes.removeLast(17)
            var renumbered = original
            renumbered.version = 7
            var extended = original
            extended.absoluteExpiry += 3_600_000
            for (name, forged) in [("flipped", flipped), ("truncated", truncated), ("version", renumbered),
                                   ("expiry", extended), ("swapped", other)] {
                try await store.save(a.lockName, record: forged, ttl: .seconds(60))
                guard case .tampered = try await manager.lookup(cookieHeader: header) else {
                    Issue.record("\(name) record was not refused")
                    continue
                }
            }
            // Back in place, it opens again; bob's cookie never opens alice's record.
            try await store.save(a.lockName, record: original, ttl: .seconds(60))
            #expect(try await manager.load(cookieHeader: header)?.data.subject == "alice")
            try await store.save(b.lockName, record: original, ttl: .seconds(60))
            guard case .tampered = try await manager.lookup(cookieHeader: Fixtures.cookieHeader(bCookie)) else {
                Issue.record("a record moved under another session's key was not refused")
                return
            }
        }
    }

    @Test(arguments: kinds)
    func cookiesThatNameNoSessionAreSortedOut(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let cases: [(String?, String)] = [
                (nil, "noCookie"), ("", "noCookie"), ("other=1", "noCookie"), ("__Host-bff-flow=x", "noCookie"),
                ("__Host-bff=", "malformedCookie"), ("__Host-bff=short", "malformedCookie"),
                ("__Host-bff=" + String(repeating: "A", count: 44), "malformedCookie"),
                ("__Host-bff=" + String(repeating: "A", count: 42) + "B", "malformedCookie"),  // non-canonical
                ("__Host-bff=" + String(repeating: "A", count: 42) + "=", "malformedCookie"),
                ("__Host-bff=" + String(repeating: "A", count: 43), "notFound"),
            ]
            for (header, expected) in cases {
                let outcome = try await manager.lookup(cookieHeader: header)
                #expect("\(outcome)".hasPrefix(expected), "\(expected)")
            }
        }
    }

    @Test(arguments: kinds)
    func aStoreOutageIsAnErrorNotAMissingSession(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
            try await harness.stop()
            await #expect(throws: SessionError.store(.unavailable)) {
                try await manager.load(cookieHeader: Fixtures.cookieHeader(setCookie))
            }
            await #expect(throws: SessionError.store(.unavailable)) {
                try await manager.create(Fixtures.data(), replacing: nil)
            }
            try await harness.restart()
            _ = try await manager.create(Fixtures.data(), replacing: nil)
        }
    }
}

extension SessionManager {
    /// The user index name, recomputed the documented way.
    static func userIndexForTests(_ subject: String) -> String {
        var input = Array("modgud-bff/user-index/v1".utf8)
        input.append(0)
        input.append(contentsOf: subject.utf8)
        return Base64URL.encode(SHA256.hash(input))
    }
}
