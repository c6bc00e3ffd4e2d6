import Core
@testable import Sessions
import Testing

/// What a manager remembers of the sessions it served (SessionMemo): the
/// store stays the truth, the idle renewal is spaced out, memory is bounded.
@Suite("Remembered sessions")
struct SessionMemoTests {
    let harness = MemoryHarness()
    func manager(remembering capacity: Int = 1024) -> SessionManager {
        SessionManager(store: harness.store, configuration: SessionConfiguration(rememberedSessions: capacity),
                       clock: harness.clock)
    }

    @Test func theIdleTimeoutIsRenewedOncePerTouchInterval() async throws {
        let manager = manager()
        #expect(manager.configuration.touchInterval == .seconds(18)) // 30 min / 100
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let header = Fixtures.cookieHeader(setCookie)
        harness.clock.advance(by: .seconds(29 * 60))
        #expect(try await manager.load(cookieHeader: header) != nil) // renews: idle until 59 min
        harness.clock.advance(by: .seconds(10))
        #expect(try await manager.load(cookieHeader: header) != nil) // within 18 s: no renewal
        harness.clock.advance(by: .seconds(30 * 60 - 9))             // 30 min 1 s after the last renewal
        guard case .notFound = try await manager.lookup(cookieHeader: header) else {
            Issue.record("a lookup inside the touch interval renewed the idle timeout")
            return
        }
    }

    @Test func aSessionEndedOrRewrittenElsewhereIsSeenAtOnce() async throws {
        let here = manager(), elsewhere = manager()
        let (_, setCookie) = try await here.create(Fixtures.data(), replacing: nil)
        let header = Fixtures.cookieHeader(setCookie)
        #expect(try await here.load(cookieHeader: header) != nil)

        // Another instance writes a successor (a refresh): read, not remembered.
        var there = try #require(try await elsewhere.load(cookieHeader: header))
        var next = there.data
        next.tokens.accessToken = Secret("successor-access-token")
        #expect(try await elsewhere.update(&there, data: next))
        let seen = try #require(try await here.load(cookieHeader: header))
        #expect(seen.data.tokens.accessToken.revealed == "successor-access-token")
        #expect(seen.version == there.version)

        // Another instance ends it.
        _ = try await elsewhere.end(there)
        #expect(try await here.load(cookieHeader: header) == nil)
    }

    @Test func aTamperedRecordIsRefusedThoughTheLastOneWasRemembered() async throws {
        let manager = manager()
        let (session, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let header = Fixtures.cookieHeader(setCookie)
        #expect(try await manager.load(cookieHeader: header) != nil)
        let stored = try #require(try await harness.store.load(session.lockName, touch: nil))
        var flipped = stored
        flipped.bytes[flipped.bytes.count / 2] ^= 0x01
        flipped.version = stored.version + 1
        #expect(try await harness.store.compareAndSet(session.lockName, expectedVersion: stored.version,
                                                      record: flipped, ttl: .seconds(60)))
        guard case .tampered = try await manager.lookup(cookieHeader: header) else {
            Issue.record("a flipped record was taken for the remembered one")
            return
        }
    }

    @Test func memoryIsBoundedAndCanBeTurnedOff() async throws {
        for capacity in [0, 3] {
            let manager = manager(remembering: capacity)
            var headers: [String] = []
            for _ in 0..<8 {
                let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
                headers.append(Fixtures.cookieHeader(setCookie))
            }
            for header in headers + headers { #expect(try await manager.load(cookieHeader: header) != nil) }
            #expect(manager.memo.count == capacity)
        }
    }

    @Test func sessionsUnusedForAnIdleTimeoutAreDropped() async throws {
        let manager = manager(remembering: 3)
        for _ in 0..<2 {
            let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
            #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(setCookie)) != nil)
        }
        #expect(manager.memo.count == 2)
        harness.clock.advance(by: .seconds(30 * 60 + 1))
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(setCookie)) != nil) // the third lookup sweeps
        #expect(manager.memo.count == 1)
    }

    @Test func aLookupThatChangesNothingStillCountsAsUse() async throws {
        let manager = manager(remembering: 3)
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let header = Fixtures.cookieHeader(setCookie)
        #expect(try await manager.load(cookieHeader: header) != nil) // remembered (and renewed)
        harness.clock.advance(by: .seconds(17))
        #expect(try await manager.load(cookieHeader: header) != nil) // inside the touch interval: nothing to write back
        // Unused for 30 min 5 s counted from the first lookup, 29 min 48 s
        // from the second: the sweep (third lookup) keeps it.
        harness.clock.advance(by: .seconds(30 * 60 - 12))
        let (_, other) = try await manager.create(Fixtures.data(), replacing: nil)
        #expect(try await manager.load(cookieHeader: Fixtures.cookieHeader(other)) != nil)
        #expect(manager.memo.count == 2)
    }

    /// Sessions served from one memo entry share its content until one is
    /// changed: the change stays in that value.
    @Test func aChangedSessionLeavesTheOthersAndTheMemoAlone() async throws {
        let manager = manager()
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let header = Fixtures.cookieHeader(setCookie)
        let first = try #require(try await manager.load(cookieHeader: header))
        let second = try #require(try await manager.load(cookieHeader: header)) // from the memo
        let original = first.data.tokens.accessToken.revealed
        var changed = second
        changed.data.tokens.accessToken = Secret("changed-in-place")    // through `_modify`
        var replaced = first
        replaced.data = Fixtures.data(subject: "someone-else")           // through `set`
        #expect(changed.data.tokens.accessToken.revealed == "changed-in-place")
        #expect(replaced.data.subject == "someone-else")
        #expect(first.data.tokens.accessToken.revealed == original)
        #expect(second.data.tokens.accessToken.revealed == original)
        #expect(first.data.subject == second.data.subject)
        let third = try #require(try await manager.load(cookieHeader: header))
        #expect(third.data.tokens.accessToken.revealed == original)
        #expect(third.data.subject == first.data.subject)
    }

    @Test func loggingOutForgetsTheSession() async throws {
        let manager = manager()
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let header = Fixtures.cookieHeader(setCookie)
        let session = try #require(try await manager.load(cookieHeader: header))
        #expect(manager.memo.count == 1)
        _ = try await manager.end(session)
        #expect(manager.memo.count == 0)
        #expect(try await manager.load(cookieHeader: header) == nil)
    }

    /// The memo's key holds a cookie value's bytes inline: equal for the
    /// same bytes however they came, different for any other value (even
    /// one that shares the 16 bytes it hashes), none past 48 bytes.
    @Test func theCookieKeyIsTheValuesBytes() {
        let value = String(repeating: "A", count: 16) + "bcdefghijklmnopqrstuvwxyz0"  // 42 characters
        let key = try! #require(SessionMemo.Key(value))
        #expect(Array(value.utf8).withUnsafeBufferPointer { SessionMemo.Key($0) } == key)
        #expect(SessionMemo.Key(String(repeating: "A", count: 16) + "bcdefghijklmnopqrstuvwxyz1") != key, "the last byte counts")
        #expect(SessionMemo.Key(value + "\u{0}") != key, "so does the length")
        #expect(SessionMemo.Key(String(value.dropLast())) != key)
        #expect(SessionMemo.Key(String(repeating: "x", count: 48)) != nil)
        #expect(SessionMemo.Key(String(repeating: "x", count: 49)) == nil)
        #expect(SessionMemo.Key("") == SessionMemo.Key(""))
        var seen: Set<SessionMemo.Key> = [key]
        seen.insert(SessionMemo.Key(value)!)
        #expect(seen.count == 1)
    }
}
