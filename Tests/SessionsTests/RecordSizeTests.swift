import Core
import Sessions
import Testing

/// What a realistic session costs in the store.
@Suite("Session record size")
struct RecordSizeTests {
    @Test func aRealisticRecordFitsInTwoKilobytes() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.clock)
        let data = Fixtures.data()
        let (session, _) = try await manager.create(data, replacing: nil)
        let stored = try #require(try await harness.store.load(session.lockName, touch: nil))
        let tokens = data.tokens
        let content = data.subject.utf8.count + data.claims.count + (data.sid?.utf8.count ?? 0)
            + tokens.accessToken.revealed.utf8.count + (tokens.refreshToken?.revealed.utf8.count ?? 0)
            + (tokens.idToken?.revealed.utf8.count ?? 0) + tokens.scope.utf8.count
            + tokens.resources.reduce(0) { $0 + $1.key.utf8.count + $1.value.accessToken.revealed.utf8.count }
        print("session record: \(stored.bytes.count) sealed bytes for \(content) bytes of content "
              + "(id token \(tokens.idToken?.revealed.utf8.count ?? 0), claims \(data.claims.count))")
        #expect(stored.bytes.count <= 2048)
        #expect(stored.bytes.count - content <= 128)  // framing + nonce + tag
    }

    @Test func anOversizeRecordIsRefused() async throws {
        let harness = MemoryHarness()
        let manager = SessionManager(store: harness.store, clock: harness.clock)
        var data = Fixtures.data()
        data.claims = [UInt8](repeating: 0x20, count: 20_000)
        await #expect(throws: SessionError.self) { try await manager.create(data, replacing: nil) }
    }
}
