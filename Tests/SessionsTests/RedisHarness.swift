import Core
import Redis
import Sessions
import SessionsRedis
import System
import TestSupport

/// A real `redis-server` on loopback (TestSupport's `RedisServer`), one
/// event loop, a `RedisClient` and the store on it. Time is real: the
/// harness sleeps to let TTLs run out.
struct RedisHarness: StoreHarness {
    var timeScale: Int64 { 5 }
    let server: RedisServer
    let group: EventLoopGroup
    let client: RedisClient
    let redisStore: RedisSessionStore

    static func start(keyPrefix: String = "bff:") async throws -> RedisHarness {
        let server = try await RedisServer.start()
        let group = try EventLoopGroup(loops: 1, name: "sessions-test")
        // A command timeout well above the production default (500 ms): the
        // parallel test pass can stall a task for longer, and a timed-out
        // command drops the connection, so the next one finds it
        // unavailable (seen once, in a flow test). No test here is about
        // command timeouts (RedisTests has those).
        let configuration = RedisConfiguration(host: "127.0.0.1", port: Int(server.port), commandTimeout: .seconds(5),
                                               reconnectBackoff: .milliseconds(10) ... .milliseconds(100))
        let client = RedisClient(configuration: configuration, loops: group.loops)
        client.start()
        guard await client.waitUntilReady(timeout: .seconds(5)) else {
            await client.close()
            group.shutdown()
            await server.kill()
            throw SessionStoreError.unavailable
        }
        return RedisHarness(server: server, group: group, client: client,
                            redisStore: RedisSessionStore(client: client, keyPrefix: keyPrefix))
    }

    var store: any SessionStore & SessionLockStore { redisStore }
    var unixClock: any UnixClock { SystemUnixClock() }

    func advance(by duration: Duration) async throws { try await Task.sleep(for: duration) }

    func stop() async throws {
        // SIGKILL, not `server.stop()`: servers spawned from the test
        // process inherit a signal mask with SIGTERM blocked, so SIGTERM
        // would never end them (reported to the Redis engineer).
        await server.kill()
        // Wait until the client has seen the connection close.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(5))
        while client.isReady, clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }

    func restart() async throws {
        try await server.restart()
        guard await client.waitUntilReady(timeout: .seconds(5)) else { throw SessionStoreError.unavailable }
    }

    func shutdown() async {
        await client.close()
        group.shutdown()
        await server.kill()
    }

    /// Sends a raw command (for dumps, tampering and TTL checks).
    func command(_ arguments: String...) async throws -> RedisValue {
        try await client.send(arguments.map { Array($0.utf8) })
    }
}
