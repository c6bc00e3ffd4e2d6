import Core
import HTTPClient
import Modgud
import Observability
import Routing
import Sessions
import Synchronization
import System
import Testing
import TokenRefresh
@testable import Gateway

/// The record is marked "a refresh was sent" before the refresh token goes
/// to Modgud. When the store fails that write with its reply lost (Redis
/// stalled past the command timeout, then applied it), nothing was sent:
/// the mark must not stay, or the next attempt takes a good token for
/// possibly spent and ends the session. Here the store applies the write
/// and then reports a timeout; Modgud is unreachable, so a token that did
/// go out would show as `upstream_unavailable`, never as an ended session.
@Suite("Refresh marks")
struct RefreshMarkTests {
    @Test func aMarkWhoseWriteReportedATimeoutIsTakenOutAgain() async throws {
        let store = ReplyLosingStore(MemorySessionStore(clock: ContinuousClock(), unixClock: SystemUnixClock()))
        let sessions = SessionManager(store: store)
        let group = try EventLoopGroup(loops: 1)
        let http = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .milliseconds(500)), loops: group.loops)
        let metrics = MetricsRegistry()
        let modgud = ModgudClient(configuration: ModgudConfiguration(baseURL: "http://127.0.0.1:9", clientID: "bff",
                                                                     clientSecret: Secret("bff-secret")), http: http)
        let coordinator = RefreshCoordinator(modgud: modgud, sessions: sessions, store: MemoryRefreshStore(), signals: RefreshSignals(),
                                             settings: .init(), relay: ModgudRelay(metrics: metrics), metrics: metrics)
        let logs = LogCapture()
        let context = RequestContext(requestID: "test", logger: Logger(sink: .capturing(logs)), peer: SocketAddress?.none,
                                     routePattern: "/api/", parameters: [:], routeOptions: RouteOptions(),
                                     endpoint: RequestContext.notFound)
        // An access token past its expiry: every use asks for a refresh.
        let tokens = SessionTokens(accessToken: Secret("old-access"), accessTokenExpiresAt: sessions.now - 1,
                                   refreshToken: Secret("refresh-1"))
        var session = try await sessions.create(SessionData(subject: "ada", claims: [], tokens: tokens), replacing: String?.none).session

        store.loseNextWriteReply()
        await #expect(throws: GatewayError.storeUnavailable) {
            try await coordinator.accessToken(for: &session, audience: nil, client: IPAddress.v4(0x7F00_0001), context: context)
        }
        let reread = try #require(try await sessions.reload(session).value)
        #expect(reread.version == 3, "the mark landed, then was taken out")
        #expect(reread.data.tokens.refreshOutcomeUnknownSince == nil)

        // Nothing was sent: the next attempt sends the token (and finds
        // Modgud unreachable) instead of ending the session.
        session = reread
        await #expect(throws: GatewayError.tokenUnavailable) {
            try await coordinator.accessToken(for: &session, audience: nil, client: IPAddress.v4(0x7F00_0001), context: context)
        }
        #expect(try await sessions.reload(reread).value != nil, "the session stays")
        #expect(!logs.lines.contains { $0.contains("refresh.replay_avoided") })
        await http.shutdown()
        group.shutdown()
    }
}

/// A store that, when told, applies the next compare-and-set and then
/// reports a timeout, as a Redis that stalled past the command timeout
/// would; everything else passes through.
private final class ReplyLosingStore: SessionStore {
    private let inner: MemorySessionStore<ContinuousClock>
    private let loseNext = Atomic<Bool>(false)

    init(_ inner: MemorySessionStore<ContinuousClock>) { self.inner = inner }

    func loseNextWriteReply() { loseNext.store(true, ordering: .releasing) }

    func compareAndSet(_ key: String, expectedVersion: UInt64, record: StoredRecord,
                       ttl: Duration) async throws(SessionStoreError) -> Bool {
        let written = try await inner.compareAndSet(key, expectedVersion: expectedVersion, record: record, ttl: ttl)
        if loseNext.exchange(false, ordering: .acquiringAndReleasing) { throw .timedOut }
        return written
    }

    func save(_ key: String, record: StoredRecord, ttl: Duration) async throws(SessionStoreError) {
        try await inner.save(key, record: record, ttl: ttl)
    }

    func load(_ key: String, touch: Duration?) async throws(SessionStoreError) -> StoredRecord? {
        try await inner.load(key, touch: touch)
    }

    func take(_ key: String) async throws(SessionStoreError) -> StoredRecord? { try await inner.take(key) }
    func delete(_ keys: [String]) async throws(SessionStoreError) { try await inner.delete(keys) }

    func addToIndex(_ index: String, member: String, ttl: Duration) async throws(SessionStoreError) {
        try await inner.addToIndex(index, member: member, ttl: ttl)
    }

    func indexMembers(_ index: String) async throws(SessionStoreError) -> [String] { try await inner.indexMembers(index) }

    func removeFromIndex(_ index: String, member: String) async throws(SessionStoreError) {
        try await inner.removeFromIndex(index, member: member)
    }

    func checkAvailability() async throws(SessionStoreError) { try await inner.checkAvailability() }
}
