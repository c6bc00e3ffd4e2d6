import Core
import HTTPClient
import Modgud
import Observability
import Sessions
import Synchronization
import System
import Testing
@testable import TokenRefresh

/// The refresher's waits run on the injected clock: a request that finds
/// the session's lock held waits (polling the record) until the wait limit
/// or until the holder's lease runs out, measured on a test clock that the
/// test moves, with no wall-clock margin. Modgud is unreachable here, so a
/// request that does take the lock ends as `unavailable`.
@Suite("Token refresher on a test clock")
struct RefresherClockTests {
    @Test func aWaiterGivesUpAtTheWaitLimitWhileTheLockStaysHeld() async throws {
        let fixture = try await RefresherFixture.start(waitLimit: .seconds(20))
        let held = try await fixture.store.acquireLock("refresh:" + fixture.session.lockName, lease: .seconds(600))
        #expect(held != nil)
        let outcome = try await fixture.accessTokenMovingTime()
        guard case .failure(.identityServerUnavailable) = outcome else {
            Issue.record("expected the wait to end unavailable, got \(outcome)")
            return await fixture.shutdown()
        }
        #expect(fixture.clock.now.offset >= .seconds(20), "waited the whole limit on the test clock")
        #expect(fixture.clock.now.offset < .seconds(21))
        #expect(fixture.outcomes(#"outcome="wait_exceeded""#) == 1)
        #expect(fixture.outcomes(#"outcome="unavailable""#) == 0, "Modgud was never asked")
        await fixture.shutdown()
    }

    @Test func aWaiterTakesTheLockOnceADeadHoldersLeaseRunsOut() async throws {
        let fixture = try await RefresherFixture.start(waitLimit: .seconds(20))
        let held = try await fixture.store.acquireLock("refresh:" + fixture.session.lockName, lease: .seconds(3))
        #expect(held != nil)
        let outcome = try await fixture.accessTokenMovingTime()
        guard case .failure(.identityServerUnavailable) = outcome else {
            Issue.record("expected Modgud unreachable, got \(outcome)")
            return await fixture.shutdown()
        }
        #expect(fixture.clock.now.offset >= .seconds(3), "not before the lease ran out")
        #expect(fixture.clock.now.offset < .seconds(20), "long before the wait limit")
        #expect(fixture.outcomes(#"outcome="unavailable""#) == 1, "it asked Modgud itself")
        #expect(fixture.outcomes(#"outcome="wait_exceeded""#) == 0)
        let reread = try #require(try await fixture.sessions.reload(fixture.session).value)
        #expect(reread.data.tokens.refreshOutcomeUnknownSince == nil, "nothing redeemed: the mark is taken out")
        await fixture.shutdown()
    }
}

/// A refresher on a test clock, with a session whose access token has
/// expired, the memory stores, and a Modgud that cannot be reached.
struct RefresherFixture {
    let clock: TestClock
    let group: EventLoopGroup
    let http: HTTPClient
    let sessions: SessionManager
    let store: MemoryRefreshStore<TestClock>
    let metrics: MetricsRegistry
    let refresher: TokenRefresher
    let session: Session

    static func start(waitLimit: Duration) async throws -> RefresherFixture {
        let clock = TestClock()
        let group = try EventLoopGroup(loops: 1)
        let http = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .milliseconds(500)), loops: group.loops)
        let modgud = ModgudClient(configuration: ModgudConfiguration(baseURL: "http://127.0.0.1:9", clientID: "bff",
                                                                     clientSecret: Secret("bff-secret")), http: http)
        let sessions = SessionManager(store: MemorySessionStore(clock: clock, unixClock: SystemUnixClock()))
        let store = MemoryRefreshStore(clock: clock)
        let metrics = MetricsRegistry()
        let time = RefreshClock(clock)
        let refresher = TokenRefresher(modgud: modgud, sessions: sessions, store: store,
                                       signals: RefreshSignals(clock: time, logger: Logger(sink: .capturing(LogCapture()))),
                                       settings: .init(lease: .seconds(15), pollInterval: .milliseconds(50), waitLimit: waitLimit),
                                       clock: time, metrics: metrics)
        let tokens = SessionTokens(accessToken: Secret("old-access"), accessTokenExpiresAt: sessions.now - 1,
                                   refreshToken: Secret("refresh-1"))
        let session = try await sessions.create(SessionData(subject: "ada", claims: [], tokens: tokens), replacing: String?.none).session
        return RefresherFixture(clock: clock, group: group, http: http, sessions: sessions, store: store, metrics: metrics,
                                refresher: refresher, session: session)
    }

    /// Asks for the session's token while moving the test clock on by the
    /// poll interval whenever the refresher sleeps on it.
    func accessTokenMovingTime() async throws -> Result<Secret, RefreshFailure> {
        let mover = Task { [clock] in
            while !Task.isCancelled {
                if clock.sleeperCount > 0 { clock.advance(by: .milliseconds(50)) }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { mover.cancel() }
        var copy = session
        do throws(RefreshFailure) {
            let logger = Logger(sink: .capturing(LogCapture()))
            return .success(try await refresher.accessToken(for: &copy, audience: nil, client: .v4(0x7F00_0001), logger: logger))
        } catch {
            return .failure(error)
        }
    }

    func shutdown() async {
        await http.shutdown()
        group.shutdown()
    }

    /// `bff_refresh_total` for the label `outcome`.
    func outcomes(_ label: String) -> Double {
        var total = 0.0
        for line in metrics.render().split(separator: "\n") where line.hasPrefix("bff_refresh_total{") && line.contains(label) {
            total += line.split(separator: " ").last.flatMap { Double($0) } ?? 0
        }
        return total
    }
}
