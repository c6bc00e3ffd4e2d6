import Core
import Crypto
import Sessions
import Synchronization
import Testing

/// Cross-device sign-in records: the secret one found only with the
/// browser's cookie AND the request id, the public context by the id
/// alone, both sealed; polls paced by one compare-and-set.
@Suite("Cross-device records")
struct CrossDeviceRecordTests {
    static let kinds = StoreKind.allCases

    static func request(_ now: UInt64, lifetime: UInt64 = 600, interval: Int = 5) -> CrossDeviceRequest {
        CrossDeviceRequest(deviceCode: Secret("device-code-\(now)"), intervalSeconds: interval, nextPollAt: now,
                           expiresAt: now + lifetime * 1000)
    }

    static func context(_ now: UInt64, lifetime: UInt64 = 600) -> CrossDeviceContext {
        CrossDeviceContext(startedAt: now, expiresAt: now + lifetime * 1000, device: "Chrome on macOS", address: "203.0.113.7")
    }

    @Test(arguments: kinds)
    func theSecretRecordNeedsTheCookieAndTheIDTheContextTheIDAlone(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = SessionManager(store: harness.store, clock: harness.unixClock)
            let now = manager.now
            let id = try SessionManager.newCrossDeviceRequestID()
            #expect(id.utf8.count == 43 && Base64URL.decode(id)?.count == 32, "256 random bits, base64url")
            let setCookie = try await manager.beginCrossDevice(Self.request(now), context: Self.context(now), requestID: id,
                                                               cookieHeader: nil)
            #expect(setCookie.revealed.hasPrefix("__Host-bff-xd="))
            // The code's 600 s and the one-minute grace: as long as the records.
            #expect(setCookie.revealed.hasSuffix("; Path=/; Max-Age=660; HttpOnly; Secure; SameSite=Strict"))
            let header = Fixtures.cookieHeader(setCookie)
            let found = try #require(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value)
            #expect(found.request == Self.request(now) && found.version == 1)
            #expect(!"\(found)".contains("device-code"), "the device code never prints")

            // A second sign-in of the same browser reuses the cookie under another id.
            let second = try SessionManager.newCrossDeviceRequestID()
            let again = try await manager.beginCrossDevice(Self.request(now + 1), context: Self.context(now), requestID: second,
                                                           cookieHeader: header)
            #expect(Fixtures.cookieValue(again) == Fixtures.cookieValue(setCookie))
            #expect(try await manager.crossDeviceRecord(requestID: second, cookieHeader: header).value?.request
                == Self.request(now + 1))

            // Another browser's cookie, no cookie, a wrong or malformed id: nothing.
            let stranger = Fixtures.cookieHeader(try await manager.beginCrossDevice(
                Self.request(now), context: Self.context(now), requestID: try SessionManager.newCrossDeviceRequestID(),
                cookieHeader: nil))
            #expect(try await manager.crossDeviceRecord(requestID: id, cookieHeader: stranger).value == nil)
            #expect(try await manager.crossDeviceRecord(requestID: try SessionManager.newCrossDeviceRequestID(),
                                                        cookieHeader: header).value == nil)
            guard case .noCookie = try await manager.crossDeviceRecord(requestID: id, cookieHeader: nil),
                  case .noCookie = try await manager.crossDeviceRecord(requestID: id, cookieHeader: header + "; " + header),
                  case .malformedCookie = try await manager.crossDeviceRecord(requestID: "short", cookieHeader: header),
                  case .malformedCookie = try await manager.crossDeviceContext(requestID: "short")
            else {
                Issue.record("a missing or doubled cookie, or a malformed id, finds nothing")
                return
            }
            #expect(try await manager.crossDeviceContext(requestID: id).value == Self.context(now))

            try await manager.endCrossDevice(found)
            #expect(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value == nil)
            #expect(try await manager.crossDeviceContext(requestID: id).value == nil)
            #expect(try await manager.crossDeviceRecord(requestID: second, cookieHeader: header).value != nil,
                    "the browser's other sign-in stays")
        }
    }

    @Test func recordsAreSealedNothingInClearInTheStore() async throws {
        let harness = MemoryHarness()
        let saving = SavingStore(harness.store)
        let manager = SessionManager(store: saving, clock: harness.unixClock)
        let now = manager.now
        let id = try SessionManager.newCrossDeviceRequestID()
        let cookie = try await manager.beginCrossDevice(Self.request(now), context: Self.context(now), requestID: id,
                                                        cookieHeader: nil)
        let saved = saving.saved
        #expect(saved.count == 2)
        for needle in ["device-code-\(now)", "Chrome on macOS", "203.0.113.7", id, Fixtures.cookieValue(cookie)] {
            #expect(!saved.contains { $0.bytes.contains(bytes: Array(needle.utf8)) || $0.key.contains(needle) })
        }
    }

    @Test(arguments: kinds)
    func ofManyConcurrentPollsOneClaimsTheCallPerInterval(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = SessionManager(store: harness.store, clock: harness.unixClock)
            let now = manager.now
            let id = try SessionManager.newCrossDeviceRequestID()
            let header = Fixtures.cookieHeader(try await manager.beginCrossDevice(
                Self.request(now, interval: 30), context: Self.context(now), requestID: id, cookieHeader: nil))
            let claims = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        guard var record = try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value
                        else { return false }
                        return try await manager.claimCrossDevicePoll(&record)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(claims == 1)
            var record = try #require(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value)
            #expect(record.version == 2)
            #expect(record.request.nextPollAt >= now + 30_000, "the next call waits a whole interval")
            #expect(try await manager.claimCrossDevicePoll(&record) == false, "not before the interval")
        }
    }

    @Test func aClaimAfterTheIntervalWinsAndAStaleOneLoses() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.unixClock)
        let now = manager.now
        let id = try SessionManager.newCrossDeviceRequestID()
        let header = Fixtures.cookieHeader(try await manager.beginCrossDevice(
            Self.request(now, interval: 5), context: Self.context(now), requestID: id, cookieHeader: nil))
        var first = try #require(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value)
        var stale = first
        #expect(try await manager.claimCrossDevicePoll(&first))
        let margin = UInt64(SessionManager.crossDevicePollMargin.wholeMilliseconds)
        #expect(first.request.nextPollAt == now + 5000 + margin)
        try await harness.advance(by: .seconds(5))
        var early = try #require(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value)
        #expect(try await manager.claimCrossDevicePoll(&early) == false, "not before the interval and its margin")
        try await harness.advance(by: SessionManager.crossDevicePollMargin)
        #expect(try await manager.claimCrossDevicePoll(&stale) == false, "read before the first claim: it lost")
        var fresh = try #require(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value)
        #expect(try await manager.claimCrossDevicePoll(&fresh))
        #expect(fresh.request.nextPollAt == now + 10_000 + 2 * margin)
    }

    @Test(arguments: kinds)
    func slowDownRaisesTheIntervalByFiveSecondsEachTime(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let manager = SessionManager(store: harness.store, clock: harness.unixClock)
            let now = manager.now
            let id = try SessionManager.newCrossDeviceRequestID()
            let header = Fixtures.cookieHeader(try await manager.beginCrossDevice(
                Self.request(now, interval: 2), context: Self.context(now), requestID: id, cookieHeader: nil))
            var one = try #require(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value)
            #expect(try await manager.claimCrossDevicePoll(&one))
            let claimedNext = one.request.nextPollAt
            var other = one
            #expect(try await manager.slowCrossDevicePolls(&one))
            #expect(one.request.intervalSeconds == 7 && one.request.nextPollAt == claimedNext + 5000)
            // A second slow_down read before the first write: read again, raised again.
            #expect(try await manager.slowCrossDevicePolls(&other))
            let stored = try #require(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value)
            #expect(stored.request.intervalSeconds == 12 && stored.request.nextPollAt == claimedNext + 10_000)
        }
    }

    /// On the memory store, whose clock the test moves.
    @Test func pastTheExpiryBothAreExpiredThenGoneAfterTheGrace() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.unixClock)
        let now = manager.now
        let id = try SessionManager.newCrossDeviceRequestID()
        let header = Fixtures.cookieHeader(try await manager.beginCrossDevice(
            Self.request(now, lifetime: 10), context: Self.context(now, lifetime: 10), requestID: id, cookieHeader: nil))
        try await harness.advance(by: .seconds(10))
        var record = try #require(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value)
        #expect(record.isExpired(at: manager.now))
        #expect(try await manager.claimCrossDevicePoll(&record) == false, "an expired code is never polled")
        guard case .expired = try await manager.crossDeviceContext(requestID: id) else {
            Issue.record("the context of an expired sign-in is .expired")
            return
        }
        try await harness.advance(by: SessionManager.crossDeviceGrace)
        #expect(try await manager.crossDeviceRecord(requestID: id, cookieHeader: header).value == nil)
        guard case .notFound = try await manager.crossDeviceContext(requestID: id) else {
            Issue.record("after the grace the context is gone")
            return
        }
    }
}

/// A store that keeps a copy of every record saved (for a scan of what
/// reaches the backend), forwarding everything to `base`.
private final class SavingStore: SessionStore {
    struct Saved { var key: String; var bytes: [UInt8] }
    let base: any SessionStore
    private let log = Mutex<[Saved]>([])

    init(_ base: any SessionStore) { self.base = base }

    var saved: [Saved] { log.withLock { $0 } }

    func save(_ key: String, record: StoredRecord, ttl: Duration) async throws(SessionStoreError) {
        log.withLock { $0.append(Saved(key: key, bytes: record.bytes)) }
        try await base.save(key, record: record, ttl: ttl)
    }
    func load(_ key: String, touch: Duration?) async throws(SessionStoreError) -> StoredRecord? {
        try await base.load(key, touch: touch)
    }
    func take(_ key: String) async throws(SessionStoreError) -> StoredRecord? { try await base.take(key) }
    func delete(_ keys: [String]) async throws(SessionStoreError) { try await base.delete(keys) }
    func compareAndSet(_ key: String, expectedVersion: UInt64, record: StoredRecord, ttl: Duration)
        async throws(SessionStoreError) -> Bool {
        log.withLock { $0.append(Saved(key: key, bytes: record.bytes)) }
        return try await base.compareAndSet(key, expectedVersion: expectedVersion, record: record, ttl: ttl)
    }
    func addToIndex(_ index: String, member: String, ttl: Duration) async throws(SessionStoreError) {
        try await base.addToIndex(index, member: member, ttl: ttl)
    }
    func indexMembers(_ index: String) async throws(SessionStoreError) -> [String] { try await base.indexMembers(index) }
    func removeFromIndex(_ index: String, member: String) async throws(SessionStoreError) {
        try await base.removeFromIndex(index, member: member)
    }
    func checkAvailability() async throws(SessionStoreError) { try await base.checkAvailability() }
}
