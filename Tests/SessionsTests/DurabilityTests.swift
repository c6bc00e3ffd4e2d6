import Redis
@testable import SessionsRedis
import Sessions
import Synchronization
import System
import Testing
import TestSupport

/// `BFF_REDIS_WAIT_REPLICAS` at the store: record writes are followed by
/// `WAIT` on the same connection; against a real master and replica.
@Suite("Session writes acknowledged by replicas (WAIT)", .serialized)
struct DurabilityTests {
    static let record = StoredRecord(bytes: Array("sealed".utf8), absoluteExpiry: UInt64(SystemUnixClock().unixMilliseconds()) + 3_600_000)

    @Test("with a replica in sync, a saved record is on the replica when save returns, and nothing falls short")
    func aSavedRecordIsOnTheReplica() async throws {
        let master = try await RedisServer.start(arguments: ["--repl-diskless-sync-delay", "0"])
        let replica = try await RedisServer.start(arguments: ["--replicaof", "127.0.0.1", String(master.port)])
        // A generous timeout: under a loaded test run a replica may take a
        // while to acknowledge; the test is about what save waits for.
        try await withClients(master: master, replica: replica, timeout: .seconds(3)) { store, shortfalls, replicaClient in
            #expect(await inSync(store))
            for index in 0..<20 {
                try await store.save("k\(index)", record: Self.record, ttl: .seconds(60))
                // Read on the replica at once: WAIT returned, so it has the write.
                let fields = try await replicaClient.send([b("HGET"), b("bff:s:k\(index)"), b("d")])
                #expect(fields.bytes == Self.record.bytes)
            }
            let version = Self.record.version
            let swapped = try await store.compareAndSet("k0", expectedVersion: version, record: Self.record, ttl: .seconds(60))
            #expect(swapped)
            #expect(try await replicaClient.send([b("HGET"), b("bff:s:k0"), b("v")]).text == String(version + 1))
            #expect(shortfalls.values.isEmpty)
        }
    }

    @Test("with the replica gone, the write stands on the master, waits about the timeout, and the shortfall is reported")
    func aMissingReplicaIsAShortfallNotAFailure() async throws {
        let master = try await RedisServer.start(arguments: ["--repl-diskless-sync-delay", "0"])
        let replica = try await RedisServer.start(arguments: ["--replicaof", "127.0.0.1", String(master.port)])
        try await withClients(master: master, replica: replica, timeout: .milliseconds(100)) { store, shortfalls, replicaClient in
            #expect(await inSync(store))
            await replica.kill()
            let clock = ContinuousClock()
            let started = clock.now
            try await store.save("k", record: Self.record, ttl: .seconds(60))
            let took = clock.now - started
            #expect(took >= .milliseconds(90), "WAIT returned before its timeout: \(took)")
            #expect(try await store.load("k", touch: nil)?.bytes == Self.record.bytes)
            #expect(shortfalls.values == [0])
            // For the pause after a shortfall, writes skip WAIT (reported as nil).
            let quick = clock.now
            try await store.save("k2", record: Self.record, ttl: .seconds(60))
            #expect(clock.now - quick < .milliseconds(90), "a write right after a shortfall waited again")
            #expect(shortfalls.values == [0, nil])
        }
    }

    private func withClients(master: RedisServer, replica: RedisServer, timeout: Duration,
                             _ body: (RedisSessionStore, Shortfalls, RedisClient) async throws -> Void) async throws {
        let group = try EventLoopGroup(loops: 1, name: "durability-test")
        let client = RedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: Int(master.port), commandTimeout: .seconds(5)),
                                 loops: group.loops)
        let replicaClient = RedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: Int(replica.port),
                                                                          commandTimeout: .seconds(5)),
                                        loops: group.loops)
        client.start()
        replicaClient.start()
        let shortfalls = Shortfalls()
        let store = RedisSessionStore(client: client, durability: .init(replicas: 1, timeout: timeout) { acknowledged in
            shortfalls.append(acknowledged)
        })
        #expect(await client.waitUntilReady(timeout: .seconds(5)))
        #expect(await replicaClient.waitUntilReady(timeout: .seconds(5)))
        do {
            try await body(store, shortfalls, replicaClient)
        } catch {
            await client.close()
            await replicaClient.close()
            group.shutdown()
            throw error
        }
        await client.close()
        await replicaClient.close()
        group.shutdown()
    }
}

/// Whether the master counts the replica as acknowledging (`WAIT 1`),
/// within 5 s: what the store's writes depend on.
private func inSync(_ store: RedisSessionStore) async -> Bool {
    for _ in 0..<50 where (try? await store.client.send([b("WAIT"), b("1"), b("100")]).integer) == 1 {
        return true
    }
    return false
}

final class Shortfalls: Sendable {
    private let list = Mutex<[Int?]>([])
    var values: [Int?] { list.withLock { $0 } }
    func append(_ value: Int?) { list.withLock { $0.append(value) } }
}

private func b(_ text: String) -> [UInt8] { Array(text.utf8) }
