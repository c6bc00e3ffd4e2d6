import Core
@testable import Redis
import System
import Testing

@Suite("Tracked cache (CLIENT TRACKING)")
struct TrackedCacheTests {
    /// A started cache on `redis` tracking keys under `t:`, current before return.
    static func startCache(_ redis: RedisFixture, publisher: RedisClient? = nil, capacity: Int = 64,
                           maxStaleness: Duration = .seconds(1)) async -> RedisTrackedCache {
        var configuration = redis.configuration
        configuration.reconnectBackoff = .milliseconds(20) ... .milliseconds(100)
        let cache = RedisTrackedCache(configuration: configuration, loop: redis.group.loops[0], publisher: publisher ?? redis.client,
                                      settings: .init(keyPrefix: b("t:"), capacity: capacity, maxStaleness: maxStaleness))
        cache.start()
        #expect(await eventually { cache.isCurrent })
        return cache
    }

    /// Fills the cache with the `GET` reply of `t:<key>`.
    static func fill(_ cache: RedisTrackedCache, _ client: RedisClient, _ key: String) async throws -> RedisValue {
        try await cache.fill(key) { () async throws(RedisError) in
            let reply = try await client.send([b("GET"), b("t:" + key)])
            return (reply, true)
        }
    }

    /// Sets `t:<key>` and waits until the cache has heard of it, so that the
    /// announcement cannot void a later fill (which is what it is for).
    static func write(_ cache: RedisTrackedCache, _ client: RedisClient, _ key: String, _ value: String,
                      ttl: Duration? = nil) async throws(RedisError) {
        let before = cache.statistics.invalidations
        try await client.set(b("t:" + key), b(value), ttl: ttl)
        #expect(await eventually { cache.statistics.invalidations > before })
    }

    @Test("a filled reply is served until any client changes the key; other prefixes do not matter")
    func servedUntilChanged() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let cache = await Self.startCache(redis)
            try await Self.write(cache, client, "a", "one")
            #expect(cache.cached("a") == nil)
            #expect(try await Self.fill(cache, client, "a") == .string(b("one")))
            #expect(cache.cached("a") == .string(b("one")))

            try await client.set(b("other:a"), b("x"))
            try await Self.write(cache, client, "ab", "x")
            // Announced: the first SET of t:a and the SET of t:ab, not other:a.
            #expect(await eventually { cache.statistics.invalidations == 2 })
            #expect(cache.cached("a") == .string(b("one")))

            let other = redis.makeClient { _ in }
            #expect(await other.waitUntilReady())
            try await other.set(b("t:a"), b("two"))
            #expect(await eventually { cache.cached("a") == nil })
            #expect(try await Self.fill(cache, client, "a") == .string(b("two")))
            #expect(cache.cached("a") == .string(b("two")))

            _ = try await other.expire(b("t:a"), after: .seconds(100))
            #expect(await eventually { cache.cached("a") == nil })
            await other.close()
            await cache.close()
            #expect(!cache.isCurrent)
        }
    }

    @Test("a key's expiry and deletion drop it; FLUSHALL drops everything")
    func expiryDeletionFlush() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let cache = await Self.startCache(redis)
            try await Self.write(cache, client, "short", "1", ttl: .milliseconds(150))
            try await Self.write(cache, client, "gone", "2")
            try await Self.write(cache, client, "kept", "3")
            for key in ["short", "gone", "kept"] { _ = try await Self.fill(cache, client, key) }
            #expect(cache.count == 3)
            try await client.delete([b("t:gone")])
            #expect(await eventually { cache.cached("gone") == nil })
            // The expiry is announced when Redis deletes the key (its active
            // expiry cycle runs 10 times a second).
            #expect(await eventually { cache.cached("short") == nil })
            #expect(cache.cached("kept") == .string(b("3")))

            let flushesBefore = cache.statistics.flushes
            _ = try await client.send([b("FLUSHALL")])
            #expect(await eventually { cache.statistics.flushes == flushesBefore + 1 })
            #expect(cache.count == 0)
            #expect(cache.isCurrent)
            await cache.close()
        }
    }

    @Test("a reply that crossed an invalidation of its key is returned but not cached")
    func crossedRead() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let cache = await Self.startCache(redis)
            try await Self.write(cache, client, "k", "old")
            let reply = try await cache.fill("k") { () async throws(RedisError) in
                let reply = try await client.send([b("GET"), b("t:k")])
                // Another writer changes the key before this read's reply is
                // handed to the cache, and the announcement arrives first.
                try await Self.write(cache, client, "k", "new")
                return (reply, true)
            }
            #expect(reply == .string(b("old")))
            #expect(cache.cached("k") == nil)
            #expect(cache.count == 0)

            // A local forget voids a read in flight the same way.
            let again = try await cache.fill("k") { () async throws(RedisError) in
                let reply = try await client.send([b("GET"), b("t:k")])
                cache.forget("k")
                return (reply, true)
            }
            #expect(again == .string(b("new")))
            #expect(cache.cached("k") == nil)

            // A reply the reader says not to keep is not kept.
            _ = try await cache.fill("k") { () async throws(RedisError) in (try await client.send([b("GET"), b("t:k")]), false) }
            #expect(cache.cached("k") == nil)
            #expect(try await Self.fill(cache, client, "k") == .string(b("new")))
            #expect(cache.cached("k") == .string(b("new")))
            await cache.close()
        }
    }

    @Test("losing the tracking connection forgets everything; nothing is served until tracking is back")
    func connectionLost() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let cache = await Self.startCache(redis)
            #expect(cache.statistics.flushes == 0, "setting up tracking forgets nothing")
            try await Self.write(cache, client, "k", "v")
            _ = try await Self.fill(cache, client, "k")
            #expect(cache.cached("k") != nil)

            // The tracking connection is the only one in pub/sub mode.
            #expect(try await client.send([b("CLIENT"), b("KILL"), b("TYPE"), b("pubsub")]) == .integer(1))
            #expect(await eventually { cache.cached("k") == nil })
            // A write while the connection is down would have gone unannounced:
            // what is read now must not survive into the next connection.
            try await client.set(b("t:k"), b("w"))
            #expect(await eventually { cache.isCurrent })
            #expect(cache.count == 0)
            #expect(try await Self.fill(cache, client, "k") == .string(b("w")))
            #expect(cache.cached("k") == .string(b("w")))
            #expect(cache.statistics.flushes == 1, "one lost connection, one flush; the new set-up adds none")
            await cache.close()
        }
    }

    @Test("while tracking is not confirmed, reads fill nothing")
    func notTrackingFillsNothing() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let cache = RedisTrackedCache(configuration: redis.configuration, loop: redis.group.loops[0], publisher: client,
                                          settings: .init(keyPrefix: b("t:")))
            try await client.set(b("t:k"), b("v"))
            #expect(try await Self.fill(cache, client, "k") == .string(b("v")))
            #expect(cache.count == 0)
            await cache.close()
        }
    }

    @Test("without heartbeats coming back, entries are not served past the staleness bound")
    func staleness() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let publisher = redis.makeClient { _ in }
            #expect(await publisher.waitUntilReady())
            let cache = await Self.startCache(redis, publisher: publisher, maxStaleness: .milliseconds(300))
            try await Self.write(cache, client, "k", "v")
            _ = try await Self.fill(cache, client, "k")
            try await Task.sleep(for: .milliseconds(600))
            #expect(cache.cached("k") == .string(b("v")), "heartbeats every 75 ms keep it current")

            // Heartbeats no longer leave: as if the tracking connection stalled.
            await publisher.close()
            let stopped = ContinuousClock.now
            #expect(await eventually { !cache.isCurrent })
            #expect(ContinuousClock.now - stopped <= .milliseconds(600))
            #expect(cache.cached("k") == nil)
            #expect(cache.count == 1, "kept, but not served")
            await cache.close()
        }
    }

    @Test("at most `capacity` entries are kept")
    func capacity() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let cache = await Self.startCache(redis, capacity: 3)
            for index in 0..<10 {
                try await Self.write(cache, client, "\(index)", "\(index)")
                _ = try await Self.fill(cache, client, "\(index)")
                #expect(cache.count <= 3)
            }
            #expect(cache.cached("9") == .string(b("9")))
            await cache.close()

            let off = await Self.startCache(redis, capacity: 0)
            _ = try await Self.fill(off, client, "1")
            #expect(off.count == 0)
            await off.close()
        }
    }

    @Test("a server that refuses the tracking set-up is retried with a growing back-off, and nothing is served")
    func refusedSetUp() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            // A user that may do everything but CLIENT: as an ACL written for
            // the gateway before it tracked keys.
            _ = try await client.send([b("ACL"), b("SETUSER"), b("untracked"), b("on"), b(">pw"), b("~*"), b("&*"),
                                       b("+@all"), b("-client")])
            var configuration = redis.configuration
            configuration.username = "untracked"
            configuration.password = Secret("pw")
            configuration.reconnectBackoff = .milliseconds(10) ... .milliseconds(400)
            let before = try await Self.connectionsReceived(client)
            let cache = RedisTrackedCache(configuration: configuration, loop: redis.group.loops[0], publisher: client,
                                          settings: .init(keyPrefix: b("t:")))
            cache.start()
            try await Task.sleep(for: .seconds(1))
            let attempts = try await Self.connectionsReceived(client) - before
            // At the shortest delay it would be about 100 attempts a second;
            // doubling from 10 ms to 400 ms allows about 8.
            print("refused tracking set-up: \(attempts) connections in one second")
            #expect(attempts >= 2 && attempts <= 12, "\(attempts) connections in one second")
            // The status clears at each handshake, and says why while it waits.
            #expect(await eventually { cache.lastFailureReason?.contains("CLIENT ID was not accepted") == true },
                    "\(cache.lastFailureReason ?? "-")")
            #expect(!cache.isCurrent)
            try await client.set(b("t:k"), b("v"))
            _ = try await Self.fill(cache, client, "k")
            #expect(cache.count == 0)
            await cache.close()
        }
    }

    static func connectionsReceived(_ client: RedisClient) async throws -> Int {
        let info = try await client.send([b("INFO"), b("stats")]).text ?? ""
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_connections_received:") }
        return Int(line?.split(separator: ":").last ?? "") ?? 0
    }
}
