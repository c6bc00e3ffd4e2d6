import Core
import Crypto
import Testing
@testable import Sessions

/// The app hand-off's records: a request taken once, a code stored only as
/// its SHA-256 and redeemed once, and the revocation notes the sweep takes.
@Suite("App hand-off records")
struct AppLoginRecordTests {
    static func session(_ manager: SessionManager) async throws -> Session {
        let (session, _) = try await manager.create(Fixtures.data(), replacing: nil)
        return try #require(try await manager.take(session))
    }

    @Test func aRequestIsReadManyTimesAndTakenOnce() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.unixClock)
        let challenge = PKCE.s256Challenge(for: try PKCE.makeVerifier())
        let (id, expiresAt) = try await manager.beginAppLogin(challenge: challenge, app: "MowDeck", lifetime: .seconds(600))
        #expect(expiresAt == harness.unixClock.unixMilliseconds() + 600_000)
        let keys = await harness.memory.records.keys
        #expect(!keys.contains { $0.contains(id.revealed) }, "the store holds no request id")
        #expect(try await manager.appLoginRequest(id: id.revealed)?.challenge == challenge)
        #expect(try await manager.appLoginRequest(id: id.revealed)?.app == "MowDeck")
        #expect(try await manager.takeAppLoginRequest(id: id.revealed) == AppLoginRequest(challenge: challenge, app: "MowDeck",
                                                                                       expiresAt: expiresAt))
        #expect(try await manager.takeAppLoginRequest(id: id.revealed) == nil)
        #expect(try await manager.appLoginRequest(id: id.revealed) == nil)

        let expiring = try await manager.beginAppLogin(challenge: challenge, app: "MowDeck", lifetime: .seconds(600)).requestID
        try await harness.advance(by: .seconds(601))
        #expect(try await manager.takeAppLoginRequest(id: expiring.revealed) == nil)
        #expect(try await manager.takeAppLoginRequest(id: "not an id") == nil)
    }

    @Test func aCodeIsStoredOnlyAsItsDigestAndRedeemedOnce() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.unixClock)
        let moved = try await Self.session(manager)
        let code = try await manager.issueAppLoginCode(moving: moved, challenge: "c", lifetime: .seconds(60), grace: .seconds(5))
        #expect(code.revealed.count == 43)
        let keys = await harness.memory.records.keys
        #expect(keys.contains("app-code:" + Base64URL.encode(SHA256.hash(code.revealed.utf8))))
        #expect(!keys.contains { $0.contains(code.revealed) })
        let handover = try #require(try await manager.redeemAppLoginCode(code.revealed))
        #expect(handover.challenge == "c")
        #expect(handover.data == moved.data)
        #expect(handover.authenticatedAt == moved.authenticatedAt)
        #expect(try await manager.redeemAppLoginCode(code.revealed) == nil, "taken on the first attempt")
        try await harness.advance(by: .seconds(120))
        #expect(try await manager.dueAppLoginRevocations().isEmpty, "a redeemed code's note is gone")
    }

    @Test func theSweepTakesTheNoteOfAnExpiredCodeOnce() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, configuration: SessionConfiguration(directorySecret: Secret("s")),
                                     clock: harness.unixClock)
        let other = SessionManager(store: harness.store, configuration: SessionConfiguration(directorySecret: Secret("s")),
                                   clock: harness.unixClock)
        let moved = try await Self.session(manager)
        let code = try await manager.issueAppLoginCode(moving: moved, challenge: "c", lifetime: .seconds(60), grace: .seconds(5))
        try await harness.advance(by: .seconds(62))
        #expect(try await manager.dueAppLoginRevocations().isEmpty, "not before the grace has passed")
        #expect(try await manager.redeemAppLoginCode(code.revealed) == nil, "expired")
        try await harness.advance(by: .seconds(4))
        let due = try await other.dueAppLoginRevocations()
        #expect(due.map(\.token) == [moved.data.tokens.refreshToken!], "another instance with the same secret opens it")
        #expect(due.map(\.hint) == ["refresh_token"])
        #expect(try await manager.dueAppLoginRevocations().isEmpty, "taken once")
    }
}
