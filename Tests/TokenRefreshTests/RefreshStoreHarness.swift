import Redis
import Sessions
import SessionsRedis
import System
import Testing
import TestSupport
import TokenRefresh
import TokenRefreshRedis

/// The backends the refresh store's conformance suite runs against.
enum RefreshStoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, redis
    var testDescription: String { rawValue }
}

/// One refresh store under test: its time, a second instance on the same
/// backend (another gateway process), and shutdown.
protocol RefreshStoreHarness: Sendable {
    var store: any RefreshStore { get }
    /// Another instance's store on the same backend.
    func another() -> any RefreshStore
    /// Lets `duration` pass on the store's clock (memory: moves the test
    /// clock; Redis: sleeps, since the server keeps real time).
    func advance(by duration: Duration) async throws
    /// Waits until `count` listeners receive outcome messages.
    func waitForListeners(_ count: Int) async throws
    /// How much to stretch short leases and holds (Redis keeps real time).
    var timeScale: Int64 { get }
    func shutdown() async
}

extension RefreshStoreHarness {
    /// `milliseconds`, stretched by the harness's time scale.
    func ms(_ milliseconds: Int64) -> Duration { .milliseconds(milliseconds * timeScale) }
}

struct MemoryRefreshHarness: RefreshStoreHarness {
    let clock = TestClock()
    let memory: MemoryRefreshStore<TestClock>
    var timeScale: Int64 { 1 }

    init() { memory = MemoryRefreshStore(clock: clock) }

    var store: any RefreshStore { memory }
    /// Instances of one process share the memory.
    func another() -> any RefreshStore { memory }
    func advance(by duration: Duration) async throws { clock.advance(by: duration) }
    func waitForListeners(_ count: Int) async throws {}
    func shutdown() async { memory.close() }
}

/// A real `redis-server` on loopback, one event loop, a client, and a
/// store per instance (each with its own subscription connection).
final class RedisRefreshHarness: RefreshStoreHarness {
    let server: RedisServer
    let group: EventLoopGroup
    let configuration: RedisConfiguration
    let client: RedisClient
    let store: any RefreshStore
    var timeScale: Int64 { 5 }

    private init(server: RedisServer, group: EventLoopGroup, configuration: RedisConfiguration, client: RedisClient) {
        (self.server, self.group, self.configuration, self.client) = (server, group, configuration, client)
        store = RedisRefreshStore(records: RedisSessionStore(client: client), client: client,
                                  subscriber: RedisSubscriber(configuration: configuration, loop: group.loops[0]))
    }

    static func start() async throws -> RedisRefreshHarness {
        let server = try await RedisServer.start()
        let group = try EventLoopGroup(loops: 1, name: "refresh-store-test")
        let configuration = RedisConfiguration(host: "127.0.0.1", port: Int(server.port), commandTimeout: .seconds(5))
        let client = RedisClient(configuration: configuration, loops: group.loops)
        client.start()
        guard await client.waitUntilReady(timeout: .seconds(5)) else {
            await client.close()
            group.shutdown()
            await server.kill()
            throw SessionStoreError.unavailable
        }
        return RedisRefreshHarness(server: server, group: group, configuration: configuration, client: client)
    }

    func another() -> any RefreshStore {
        RedisRefreshStore(records: RedisSessionStore(client: client), client: client,
                          subscriber: RedisSubscriber(configuration: configuration, loop: group.loops[0]))
    }

    func advance(by duration: Duration) async throws { try await Task.sleep(for: duration) }

    func waitForListeners(_ count: Int) async throws {
        for _ in 0..<500 {
            let reply = try? await client.send([Array("PUBSUB".utf8), Array("NUMSUB".utf8), RedisRefreshStore.channel])
            if let subscribed = reply?.array?.last?.integer, subscribed >= count { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the subscriptions never started")
    }

    func shutdown() async {
        await store.close()
        await client.close()
        group.shutdown()
        await server.kill()
    }
}

/// Runs `body` with a fresh harness of `kind`, always shutting it down.
func withRefreshStore<T>(_ kind: RefreshStoreKind, _ body: (any RefreshStoreHarness) async throws -> T) async throws -> T {
    let harness: any RefreshStoreHarness = switch kind {
    case .memory: MemoryRefreshHarness()
    case .redis: try await RedisRefreshHarness.start()
    }
    return try await withShutdown(harness, shutdown: { await $0.shutdown() }, body)
}
