@testable import Redis
import System
import Testing
import TestSupport

/// The tracked cache on a cluster: one tracking connection per master,
/// entries served only while every one is current.
@Suite("Cluster: the tracked cache", .serialized)
struct ClusterTrackedCacheTests {
    @Test("writes on every master invalidate; a killed master stops serving until its replica is tracked")
    func tracksEveryMaster() async throws {
        try await withCluster { cluster, client, loops in
            let cache = RedisTrackedCache(configuration: clusterConfiguration(seed: cluster.nodePorts[0]), loop: loops.loops[0],
                                          publisher: client, settings: .init(keyPrefix: b("bff:s:"), maxStaleness: .milliseconds(500)))
            cache.start()
            #expect(await eventually(timeout: .seconds(10)) { cache.isCurrent }, "\(cache.lastFailureReason ?? "-")")

            let names = (0..<60).map { "key-\($0)" }
            func fill(_ name: String) async throws -> RedisValue {
                try await cache.fill(name) { () async throws(RedisError) in
                    (try await client.send([b("GET"), b("bff:s:" + name)]), true)
                }
            }
            for name in names { try await client.set(b("bff:s:" + name), b("v1")) }
            for name in names { _ = try await fill(name) }
            #expect(names.allSatisfy { cache.cached($0) == .string(b("v1")) })
            // Every master holds some of the keys, and a write on any invalidates.
            let masters = Set(names.compactMap { client.router?.node(for: ClusterSlot.of(b("bff:s:" + $0))) })
            #expect(masters.count == 3)
            for name in names { try await client.set(b("bff:s:" + name), b("v2")) }
            #expect(await eventually { names.allSatisfy { cache.cached($0) == nil } }, "a write on some master was not announced")
            // Every replica holds v2 before a master dies.
            for port in await cluster.masters() {
                let acknowledged = await blocking { RedisControl.call(port: port, ["WAIT", "1", "2000"]) }
                #expect(acknowledged == .integer(1), "the replica of \(port) did not acknowledge")
            }

            let victim = try #require(await cluster.masters().first)
            await cluster.killNode(port: victim)
            #expect(await eventually(timeout: .seconds(3)) { !cache.isCurrent }, "still serving with a master gone")
            #expect(await eventually(timeout: .seconds(20)) { cache.isCurrent }, "never current again: \(cache.lastFailureReason ?? "-")")
            for name in names {
                while (try? await fill(name)) == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(names.allSatisfy { cache.cached($0) == .string(b("v2")) })
            for name in names { try await client.set(b("bff:s:" + name), b("v3")) }
            #expect(await eventually { names.allSatisfy { cache.cached($0) == nil } }, "the promoted master's writes were not announced")

            await cache.close()
        }
    }
}
