import Core
@testable import Redis
import System
import Testing
import TestSupport

/// `BFF_REDIS_MODE=sentinel` at the client: a real master, replica and
/// three sentinels (TestSupport's `RedisSentinelGroup`).
@Suite("Sentinel: finding and following the master", .serialized)
struct SentinelClientTests {
    @Test("the client finds the master through the sentinels, and after the master is killed serves again from the new one")
    func followsAFailover() async throws {
        let group = try await RedisSentinelGroup.start()
        let loops = try EventLoopGroup(loops: 2, name: "sentinel-test")
        let monitor = SentinelMonitor(settings: SentinelSettings(sentinels: group.sentinelPorts.map { RedisAddress(host: "127.0.0.1", port: Int($0)) },
                                                                 masterName: group.masterName),
                                      loop: loops.loops[0])
        let configuration = RedisConfiguration(sentinel: monitor, commandTimeout: .seconds(2),
                                               reconnectBackoff: .milliseconds(20) ... .milliseconds(200))
        let client = RedisClient(configuration: configuration, loops: loops.loops)
        let subscriber = RedisSubscriber(configuration: configuration, loop: loops.loops[1])
        monitor.start()
        client.start()
        subscriber.start()
        defer { loops.shutdown() }

        #expect(await client.waitUntilReady(timeout: .seconds(5)), "\(client.lastFailureReason ?? "-")")
        let stream = await subscriber.subscribe(b("after-failover"))
        // Written and acknowledged by the replica, so the failover keeps it.
        let script = RedisScript("return redis.call('SET', KEYS[1], ARGV[1])")
        let (_, acknowledged) = try await client.eval(script, keys: [b("k")], arguments: [b("before")], thenWaitFor: 1,
                                                      timeout: .seconds(1))
        #expect(acknowledged == 1)

        let clock = ContinuousClock()
        let old = await group.killMaster()
        let killed = clock.now
        let promoted = await group.waitForFailover(from: old, timeout: 20)
        let failover = clock.now - killed
        try #require(promoted != nil, "the sentinels did not fail over")
        var served: Duration?
        while clock.now - killed < failover + .seconds(5) {
            if (try? await client.set(b("k2"), b("after"))) != nil {
                served = clock.now - killed
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        print("sentinel failover: \(failover) until the sentinels named the new master; client served again after \(served.map { "\($0)" } ?? "never")")
        let servedAt = try #require(served, "the client never served after the failover")
        #expect(servedAt <= failover + .seconds(2))
        #expect(try await client.get(b("k")) == b("before"))
        #expect(try await client.send([b("ROLE")]).array?.first?.text == "master")

        // The subscriber moved too: a message published now reaches it.
        var iterator = stream.makeAsyncIterator()
        let delivered = await eventually(timeout: .seconds(5)) {
            (try? await client.publish(b("after-failover"), b("hello"))) ?? 0 > 0
        }
        #expect(delivered)
        #expect(await iterator.next() == b("hello"))

        await subscriber.close()
        await client.close()
        await monitor.close()
        await group.stop()
    }

    @Test("a master name no sentinel knows, or no sentinel at all, is a failure that says so")
    func unknownMaster() async throws {
        let group = try await RedisSentinelGroup.start(replicas: 0, sentinels: 1)
        let loops = try EventLoopGroup(loops: 1, name: "sentinel-test")
        defer { loops.shutdown() }
        let unknown = SentinelMonitor(settings: SentinelSettings(sentinels: [RedisAddress(host: "127.0.0.1", port: Int(group.sentinelPorts[0]))],
                                                                 masterName: "nobody"), loop: loops.loops[0])
        let nowhere = SentinelMonitor(settings: SentinelSettings(sentinels: [RedisAddress(host: "127.0.0.1", port: 1)],
                                                                 masterName: "mymaster"), loop: loops.loops[0])
        for (monitor, expected) in [(unknown, "does not know the master nobody"), (nowhere, "127.0.0.1:1")] {
            let client = RedisClient(configuration: RedisConfiguration(sentinel: monitor), loops: loops.loops)
            client.start()
            #expect(await eventually { client.connections[0].lastFailure != nil })
            guard case .sentinel(let text)? = client.connections[0].lastFailure else {
                Issue.record("\(client.lastFailureReason ?? "no failure")")
                await client.close()
                continue
            }
            #expect(text.contains(expected), "\(text)")
            #expect(!client.isReady)
            await client.close()
        }
        await group.stop()
    }
}
