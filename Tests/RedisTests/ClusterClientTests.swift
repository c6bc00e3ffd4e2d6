import Core
@testable import Redis
import System
import Testing
import TestSupport

/// `BFF_REDIS_MODE=cluster` at the client: six real nodes, three masters
/// with a replica each (TestSupport's `RedisClusterGroup`).
@Suite("Cluster: slots, redirects and a failover", .serialized)
struct ClusterClientTests {
    static let set = RedisScript("return redis.call('SET', KEYS[1], ARGV[1])")

    @Test("commands, scripts and multi-key DEL reach every master's slots from one seed; pub/sub crosses nodes")
    func routesBySlot() async throws {
        try await withCluster { cluster, client, loops in
            let keys = (0..<300).map { b("bff:s:key-\($0)") }
            for key in keys { try await client.set(key, key) }
            for key in keys { #expect(try await client.get(key) == key) }
            for key in keys.prefix(30) { _ = try await client.eval(Self.set, keys: [key], arguments: [b("scripted")]) }
            #expect(try await client.get(keys[0]) == b("scripted"))
            let masters = await cluster.masters()
            #expect(masters.count == 3)
            for port in masters {
                let size = RedisControl.call(port: port, ["DBSIZE"])
                #expect(size != nil && size != .integer(0), "master \(port) holds none of the keys")
            }
            #expect(try await client.delete(Array(keys.prefix(10))) == 10)

            let subscriber = RedisSubscriber(configuration: clusterConfiguration(seed: cluster.nodePorts[5]), loop: loops.loops[0])
            subscriber.start()
            #expect(await subscriber.waitUntilReady(timeout: .seconds(5)))
            let stream = await subscriber.subscribe(b("bff:refreshed"))
            _ = try await client.publish(b("bff:refreshed"), b("news"))
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == b("news"))
            await subscriber.close()
        }
    }

    @Test("a slot migrating then moved: every read on the way succeeds (ASK, then MOVED), and the map follows")
    func slotMigration() async throws {
        try await withCluster { cluster, client, _ in
            let keys = (0..<20).map { b("{tag}:\($0)") }
            let slot = ClusterSlot.of(keys[0])
            for key in keys { try await client.set(key, key) }
            let source = try #require(await owner(of: slot, in: cluster))
            let target = try #require(await cluster.masters().first { $0 != source })
            let sourceID = try #require(RedisControl.call(port: source, ["CLUSTER", "MYID"])?.string)
            let targetID = try #require(RedisControl.call(port: target, ["CLUSTER", "MYID"])?.string)
            #expect(RedisControl.call(port: target, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])?.isError == false)
            #expect(RedisControl.call(port: source, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])?.isError == false)
            // Half the keys move: those are answered with ASK by the source.
            let moved = RedisControl.call(port: source, ["MIGRATE", "127.0.0.1", String(target), "", "0", "5000", "KEYS"]
                                            + keys.prefix(10).map { String(decoding: $0, as: UTF8.self) })
            #expect(moved?.isError == false, "MIGRATE: \(String(describing: moved))")
            for key in keys { #expect(try await client.get(key) == key) }
            _ = try await client.eval(Self.set, keys: [keys[0]], arguments: [b("while-migrating")])
            #expect(try await client.get(keys[0]) == b("while-migrating"))
            // The rest move and the slot is handed over: MOVED.
            _ = RedisControl.call(port: source, ["MIGRATE", "127.0.0.1", String(target), "", "0", "5000", "KEYS"]
                                    + keys.dropFirst(10).map { String(decoding: $0, as: UTF8.self) })
            for port in await cluster.masters() {
                _ = RedisControl.call(port: port, ["CLUSTER", "SETSLOT", String(slot), "NODE", targetID])
            }
            for key in keys.dropFirst() { #expect(try await client.get(key) == key) }
            #expect(client.router?.node(for: slot) == RedisAddress(host: "127.0.0.1", port: Int(target)))
        }
    }

    @Test("a master killed: its slots fail at once with .unavailable, then serve again from the promoted replica")
    func failover() async throws {
        try await withCluster { cluster, client, _ in
            let keys = (0..<60).map { b("bff:s:f-\($0)") }
            for key in keys {
                let (_, acknowledged) = try await client.eval(Self.set, keys: [key], arguments: [key], thenWaitFor: 1, timeout: .seconds(1))
                #expect(acknowledged == 1)
            }
            let victim = try #require(await cluster.masters().first)
            let key = try #require(await firstKey(keys, servedBy: victim, cluster: cluster))
            let clock = ContinuousClock()
            await cluster.killNode(port: victim)
            let killed = clock.now
            var failures: [String] = []
            var served: Duration?
            while clock.now - killed < .seconds(20) {
                do {
                    _ = try await client.get(key)
                    served = clock.now - killed
                    break
                } catch let error as RedisError {
                    failures.append(error.description)
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            print("cluster failover: served again after \(served.map { "\($0)" } ?? "never"); failures on the way: \(Set(failures))")
            #expect(served != nil)
            let allowed = Set([RedisError.unavailable, .connectionLost, .timedOut].map(\.description))
            #expect(Set(failures).isSubset(of: allowed), "\(Set(failures))")
            for key in keys { #expect(try await client.get(key) == key, "a key acknowledged by its replica was lost") }
        }
    }

    // MARK: Helpers

    private func owner(of slot: Int, in cluster: RedisClusterGroup) async -> UInt16? {
        for port in await cluster.masters() {
            if let keys = RedisControl.call(port: port, ["CLUSTER", "COUNTKEYSINSLOT", String(slot)]), keys != .integer(0) { return port }
        }
        return nil
    }

    private func firstKey(_ keys: [[UInt8]], servedBy port: UInt16, cluster: RedisClusterGroup) async -> [UInt8]? {
        keys.first { key in
            RedisControl.call(port: port, ["CLUSTER", "COUNTKEYSINSLOT", String(ClusterSlot.of(key))]).map { $0 != .integer(0) } ?? false
        }
    }
}
