import Core
import Crypto
import Sessions
import Testing

/// The sessions of a user over every store: cards, the list, ending one by
/// its handle, ending all of a user's or of a `sid`'s.
@Suite("Session directory")
struct SessionDirectoryTests {
    static let kinds = StoreKind.allCases

    static func manager(_ harness: any StoreHarness, secret: String? = "client-secret",
                        idle: Duration = .seconds(30 * 60)) -> SessionManager {
        SessionManager(store: harness.store, configuration: SessionConfiguration(
            idleTimeout: idle, directorySecret: secret.map { Secret($0) }), clock: harness.unixClock)
    }

    static func data(_ subject: String, sid: String? = nil, method: SignInMethod = .passkey) -> SessionData {
        var data = Fixtures.data(subject: subject)
        data.sid = sid ?? Fixtures.token()
        data.method = method
        return data
    }

    @Test(arguments: kinds)
    func theListShowsTheUsersSessionsWithTheCurrentOneFirst(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (first, _) = try await manager.create(Self.data("ada", method: .otp), replacing: nil,
                                                      device: "Firefox on Linux", address: "192.0.2.1")
            let (second, _) = try await manager.create(Self.data("ada", method: .code), replacing: nil,
                                                       device: "Safari on iOS", address: "2001:db8::1")
            _ = try await manager.create(Self.data("bob"), replacing: nil, device: "Edge on Windows", address: "192.0.2.9")
            let cards = try await manager.sessions(of: second)
            #expect(cards.count == 2)
            #expect(cards.map(\.current) == [true, false])
            #expect(cards[0].device == "Safari on iOS" && cards[0].address == "2001:db8::1" && cards[0].method == .code)
            #expect(cards[1].device == "Firefox on Linux" && cards[1].address == "192.0.2.1" && cards[1].method == .otp)
            #expect(cards[0].createdAt == second.authenticatedAt && cards[0].lastSeenAt == second.authenticatedAt)
            #expect(Set(cards.map(\.handle)).count == 2)
            for card in cards {
                #expect(Base64URL.decode(card.handle)?.count == 16)
                #expect(card.handle != second.lockName && card.handle != first.lockName)
            }
            #expect(try await manager.sessions(of: first).map(\.current) == [true, false])
        }
    }

    @Test(arguments: kinds)
    func aHandleEndsThatSessionOfTheSameUserOnly(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (mine, _) = try await manager.create(Self.data("ada"), replacing: nil)
            let (other, otherCookie) = try await manager.create(Self.data("ada"), replacing: nil)
            let (bobs, bobsCookie) = try await manager.create(Self.data("bob"), replacing: nil)
            let bobsHandle = try #require(try await manager.sessions(of: bobs).first?.handle)
            #expect(try await manager.end(handle: bobsHandle, of: mine) == nil)
            #expect(try await manager.end(handle: "AAAAAAAAAAAAAAAAAAAAAA", of: mine) == nil)
            #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(bobsCookie)) != nil)

            let handle = try #require(try await manager.sessions(of: mine).first { !$0.current }?.handle)
            let ended = try #require(try await manager.end(handle: handle, of: mine))
            #expect(ended.lockName == other.lockName)
            #expect(ended.data.tokens.refreshToken == other.data.tokens.refreshToken)
            #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(otherCookie)) == nil)
            #expect(try await manager.sessions(of: mine).count == 1)
            #expect(try await manager.end(handle: handle, of: mine) == nil)
            #expect(try await harness.store.indexMembers(SessionManager.userIndexForTests("ada")) == [mine.lockName])
            #expect(try await harness.store.indexMembers(SessionManager.sidIndexForTests(other.data.sid!)).isEmpty)
            #expect(try await harness.store.load("card:" + other.lockName, touch: nil) == nil)
        }
    }

    @Test(arguments: kinds)
    func endAllOfASubjectEndsRecordsCardsAndIndexEntries(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            var cookies: [Secret] = []
            var created: [Session] = []
            for _ in 0..<3 {
                let (session, cookie) = try await manager.create(Self.data("ada"), replacing: nil)
                created.append(session)
                cookies.append(cookie)
            }
            let (bob, bobCookie) = try await manager.create(Self.data("bob"), replacing: nil)
            let ended = try await manager.endAll(subject: "ada")
            #expect(Set(ended.map(\.lockName)) == Set(created.map(\.lockName)))
            #expect(Set(ended.compactMap(\.data.tokens.refreshToken)) == Set(created.compactMap(\.data.tokens.refreshToken)))
            for cookie in cookies { #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(cookie)) == nil) }
            for session in created {
                #expect(try await harness.store.load("card:" + session.lockName, touch: nil) == nil)
                #expect(try await harness.store.indexMembers(SessionManager.sidIndexForTests(session.data.sid!)).isEmpty)
            }
            #expect(try await harness.store.indexMembers(SessionManager.userIndexForTests("ada")).isEmpty)
            #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(bobCookie)) != nil)
            #expect(try await manager.sessions(of: bob).count == 1)
            #expect(try await manager.endAll(subject: "ada").isEmpty)
        }
    }

    @Test(arguments: kinds)
    func endAllOfASidEndsTheSessionsSignedInUnderIt(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (a, aCookie) = try await manager.create(Self.data("ada", sid: "sid-1"), replacing: nil)
            let (b, bCookie) = try await manager.create(Self.data("ada", sid: "sid-1"), replacing: nil)
            let (c, cCookie) = try await manager.create(Self.data("ada", sid: "sid-2"), replacing: nil)
            let ended = try await manager.endAll(sid: "sid-1")
            #expect(Set(ended.map(\.lockName)) == [a.lockName, b.lockName])
            #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(aCookie)) == nil)
            #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(bCookie)) == nil)
            #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(cCookie)) != nil)
            #expect(try await harness.store.indexMembers(SessionManager.userIndexForTests("ada")) == [c.lockName])
            #expect(try await harness.store.indexMembers(SessionManager.sidIndexForTests("sid-1")).isEmpty)
            #expect(try await manager.sessions(of: c).map(\.current) == [true])
            #expect(try await manager.endAll(sid: "sid-1").isEmpty)
        }
    }

    @Test(arguments: kinds)
    func endAndTakeRemoveTheCardAndBothIndexEntries(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (first, _) = try await manager.create(Self.data("ada", sid: "s"), replacing: nil)
            let (second, _) = try await manager.create(Self.data("ada", sid: "s"), replacing: nil)
            _ = try await manager.end(first)
            #expect(try await manager.take(second) != nil)
            for session in [first, second] {
                #expect(try await harness.store.load("card:" + session.lockName, touch: nil) == nil)
            }
            #expect(try await harness.store.indexMembers(SessionManager.userIndexForTests("ada")).isEmpty)
            #expect(try await harness.store.indexMembers(SessionManager.sidIndexForTests("s")).isEmpty)
        }
    }

    @Test(arguments: kinds)
    func signingInOverASessionRemovesItsCard(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (old, oldCookie) = try await manager.create(Self.data("ada", sid: "s"), replacing: nil)
            let (new, _) = try await manager.create(Self.data("ada"), replacing: Fixtures.cookieHeader(oldCookie))
            #expect(try await harness.store.load("card:" + old.lockName, touch: nil) == nil)
            #expect(try await harness.store.indexMembers(SessionManager.sidIndexForTests("s")).isEmpty)
            #expect(try await manager.sessions(of: new).count == 1)
        }
    }

    @Test(arguments: kinds)
    func lastSeenMovesOnlyWithTheIdleRenewal(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            // Idle 60 s (stretched for Redis's real time): the touch
            // interval is a hundredth of it.
            let idle = Duration.seconds(60 * harness.timeScale)
            let interval = idle / 100
            let manager = Self.manager(harness, idle: idle)
            let (session, cookie) = try await manager.create(Self.data("ada"), replacing: nil)
            let header = Fixtures.cookieHeader(cookie)
            try await harness.advance(by: interval + harness.ms(100))
            let renewedAt = ContinuousClock.now
            _ = try #require(try await manager.load(cookieHeader: header))   // the first lookup renews
            let first = try await Self.lastSeen(manager, session) { $0 > session.authenticatedAt }
            _ = try #require(try await manager.load(cookieHeader: header))
            try await Task.sleep(for: .milliseconds(200))
            // Within the interval, the lookup renewed nothing. (A machine
            // so loaded that the interval has passed cannot tell.)
            if ContinuousClock.now - renewedAt < interval {
                #expect(try await manager.sessions(of: session).first?.lastSeenAt == first)
            }
            try await harness.advance(by: interval + harness.ms(100))
            _ = try #require(try await manager.load(cookieHeader: header))
            _ = try await Self.lastSeen(manager, session) { $0 > first }
        }
    }

    /// The card's `lastSeenAt` once `done` accepts it (the renewal runs
    /// beside the lookup); fails after ten seconds.
    static func lastSeen(_ manager: SessionManager, _ session: Session, until done: (UInt64) -> Bool) async throws -> UInt64 {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let seen = try #require(try await manager.sessions(of: session).first?.lastSeenAt)
            if done(seen) { return seen }
            guard ContinuousClock.now < deadline else {
                Issue.record("lastSeenAt stayed at \(seen)")
                return seen
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test(arguments: kinds)
    func aSessionCutShortCutsItsCardAtTheNextRenewal(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness, idle: .seconds(60))
            let (created, cookie) = try await manager.create(Self.data("ada"), replacing: nil)
            let header = Fixtures.cookieHeader(cookie)
            var session = try #require(try await manager.load(cookieHeader: header))
            // The first lookup's renewal first (it runs beside the lookup).
            let cardKey = "card:" + created.lockName
            let renewed = ContinuousClock.now + .seconds(2)
            while try await harness.store.load(cardKey, touch: nil)?.version != 2, ContinuousClock.now < renewed {
                try await Task.sleep(for: .milliseconds(5))
            }
            var data = session.data
            data.tokens.refreshTokenExpiresAt = harness.unixClock.unixMilliseconds() + 600_000
            #expect(try await manager.update(&session, data: data))
            #expect(session.absoluteExpiresAt < created.absoluteExpiresAt)
            try await harness.advance(by: .milliseconds(700))
            _ = try #require(try await manager.load(cookieHeader: header))
            let deadline = ContinuousClock.now + .seconds(2)
            var card = try #require(try await harness.store.load("card:" + created.lockName, touch: nil))
            while card.absoluteExpiry != session.absoluteExpiresAt, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
                card = try #require(try await harness.store.load("card:" + created.lockName, touch: nil))
            }
            #expect(card.absoluteExpiry == session.absoluteExpiresAt)
            #expect(try await manager.sessions(of: session).count == 1)
        }
    }

    @Test(arguments: kinds)
    func cardsOpenOnlyUnderTheSameDirectorySecret(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let first = Self.manager(harness, secret: "one")
            let twin = Self.manager(harness, secret: "one")
            let rotated = Self.manager(harness, secret: "two")
            let (session, cookie) = try await first.create(Self.data("ada"), replacing: nil)
            #expect(try await twin.sessions(of: session).count == 1)
            #expect(try await rotated.sessions(of: session).isEmpty)
            let handle = try #require(try await first.sessions(of: session).first?.handle)
            #expect(try await rotated.end(handle: handle, of: session) == nil)
            // Left out of the list, still ended by endAll (nothing to revoke with).
            #expect(try await rotated.endAll(subject: "ada").isEmpty)
            #expect(try await first.load(cookieHeader: Fixtures.cookieHeader(cookie)) == nil)
            #expect(try await harness.store.load("card:" + session.lockName, touch: nil) == nil)
        }
    }

    @Test(arguments: kinds)
    func aCardMovedToAnotherSessionsKeyDoesNotOpen(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = Self.manager(harness)
            let (a, _) = try await manager.create(Self.data("ada"), replacing: nil)
            let (b, _) = try await manager.create(Self.data("ada"), replacing: nil)
            let cardA = try #require(try await harness.store.load("card:" + a.lockName, touch: nil))
            try await harness.store.save("card:" + b.lockName, record: cardA, ttl: .seconds(60))
            #expect(try await manager.sessions(of: a).map(\.current) == [true])
        }
    }

    @Test func aDeviceOrAddressIsCutToItsLimit() async throws {
        try await withHarness(.memory) { harness in
            let manager = Self.manager(harness)
            let (session, _) = try await manager.create(Self.data("ada"), replacing: nil,
                                                        device: String(repeating: "é", count: 100), address: "192.0.2.1")
            let card = try #require(try await manager.sessions(of: session).first)
            #expect(card.device.utf8.count == 128 && card.device.allSatisfy { $0 == "é" })
        }
    }
}

extension SessionManager {
    static func sidIndexForTests(_ sid: String) -> String {
        var input = Array("modgud-bff/sid-index/v1".utf8)
        input.append(0)
        input.append(contentsOf: sid.utf8)
        return Base64URL.encode(SHA256.hash(input))
    }
}
