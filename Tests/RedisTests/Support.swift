import Core
import Foundation
@testable import Redis
import Synchronization
import System
import TestSupport
import Testing

/// Bytes of a string, for keys and values.
func b(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A real redis-server, a loop group and a started client on it.
struct RedisFixture {
    let server: RedisServer
    let group: EventLoopGroup
    let client: RedisClient
    let configuration: RedisConfiguration

    static func start(password: String? = nil, loops: Int = 2, ready: Bool = true, arguments: [String] = [],
                      configure: (inout RedisConfiguration) -> Void = { _ in }) async throws -> RedisFixture {
        let server = try await RedisServer.start(password: password, arguments: arguments)
        let group = try EventLoopGroup(loops: loops, name: "redis-test")
        var configuration = RedisConfiguration(host: "127.0.0.1", port: Int(server.port), password: password.map(Secret.init))
        configure(&configuration)
        let client = RedisClient(configuration: configuration, loops: group.loops)
        client.start()
        if ready {
            guard await client.waitUntilReady(timeout: .seconds(5)) else {
                let reason = client.lastFailureReason ?? "-"
                await client.close()
                group.shutdown()
                await server.kill()
                throw FixtureError.notReady(reason)
            }
        }
        return RedisFixture(server: server, group: group, client: client, configuration: configuration)
    }

    /// Another client on the same server and loops.
    func makeClient(_ configure: (inout RedisConfiguration) -> Void) -> RedisClient {
        var configuration = self.configuration
        configure(&configuration)
        let client = RedisClient(configuration: configuration, loops: group.loops)
        client.start()
        return client
    }

    func stop() async {
        await client.close()
        group.shutdown()
        await server.kill()
    }
}

enum FixtureError: Error {
    case notReady(String)
}

/// Polls `condition` every 5 ms until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(5), _ condition: @Sendable () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// Collects a stream's elements on a task, for assertions that poll.
final class Collector: Sendable {
    private let items = Mutex<[[UInt8]]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: AsyncStream<[UInt8]>) {
        let handle = Task { [weak self] in
            for await item in stream { self?.append(item) }
        }
        task.withLock { $0 = handle }
    }

    private func append(_ item: [UInt8]) { items.withLock { $0.append(item) } }

    var all: [[UInt8]] { items.withLock { $0 } }

    func cancel() { task.withLock { $0?.cancel() } }
}

/// The error a throwing call threw, or nil.
func redisError<T>(_ body: () async throws -> T) async -> RedisError? {
    do {
        _ = try await body()
        return nil
    } catch let error as RedisError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// Runs `body` with a fresh server, loops and ready client; stops them after,
/// also when `body` throws.
func withRedis(password: String? = nil, loops: Int = 2, ready: Bool = true,
               configure: (inout RedisConfiguration) -> Void = { _ in },
               _ body: (RedisFixture) async throws -> Void) async throws {
    let redis = try await RedisFixture.start(password: password, loops: loops, ready: ready, configure: configure)
    do {
        try await body(redis)
    } catch {
        await redis.stop()
        throw error
    }
    await redis.stop()
}

/// A client's settings for a test cluster, seeded with the node on
/// `port`: commands get 2 s (a loaded test run), reconnects back off from
/// 20 ms.
func clusterConfiguration(seed port: UInt16) -> RedisConfiguration {
    var configuration = RedisConfiguration(commandTimeout: .seconds(2), reconnectBackoff: .milliseconds(20) ... .milliseconds(200))
    configuration.cluster = [RedisAddress(host: "127.0.0.1", port: Int(port))]
    return configuration
}

/// Runs `body` with a fresh three-master cluster, two loops and a ready
/// client of it; stops them after, also when `body` throws.
func withCluster(_ body: (RedisClusterGroup, RedisClient, EventLoopGroup) async throws -> Void) async throws {
    let cluster = try await RedisClusterGroup.start()
    let loops = try EventLoopGroup(loops: 2, name: "cluster-test")
    let client = RedisClient(configuration: clusterConfiguration(seed: cluster.nodePorts[0]), loops: loops.loops)
    client.start()
    do {
        #expect(await client.waitUntilReady(timeout: .seconds(10)), "\(client.lastFailureReason ?? "-")")
        try await body(cluster, client, loops)
    } catch {
        await client.close()
        loops.shutdown()
        await cluster.stop()
        throw error
    }
    await client.close()
    loops.shutdown()
    await cluster.stop()
}
