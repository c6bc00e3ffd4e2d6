import Core
@testable import Redis
import System
import Testing

@Suite("Publish and subscribe")
struct PubSubTests {
    @Test("messages reach every stream of a channel, binary-safe; ending a stream unsubscribes")
    func delivery() async throws {
        try await withRedis(password: "pubsub-pw") { (redis: RedisFixture) async throws in
            let client = redis.client
            let subscriber = RedisSubscriber(configuration: redis.configuration, loop: redis.group.loops[1])
            subscriber.start()
            #expect(await subscriber.waitUntilReady())
            let news = Collector(await subscriber.subscribe(b("news")))
            let news2 = Collector(await subscriber.subscribe(b("news")))
            let other = Collector(await subscriber.subscribe([0, 1, 2]))

            #expect(try await client.publish(b("news"), b("hello")) == 1)
            #expect(try await client.publish([0, 1, 2], [0xFF, 0, 13, 10]) == 1)
            #expect(try await client.publish(b("nobody"), b("lost")) == 0)
            #expect(await eventually { news.all == [b("hello")] && news2.all == [b("hello")] && other.all == [[0xFF, 0, 13, 10]] })

            other.cancel()
            #expect(await eventually { (try? await client.publish([0, 1, 2], b("x"))) == 0 })
            #expect(try await client.publish(b("news"), b("second")) == 1)
            #expect(await eventually { news.all.last == b("second") })

            await subscriber.close()
            #expect(!subscriber.isReady)
        }
    }

    @Test("after a server restart the subscriber reconnects and subscribes again")
    func resubscribe() async throws {
        try await withRedis(configure: { $0.reconnectBackoff = .milliseconds(20) ... .milliseconds(200) }) { (redis: RedisFixture) async throws in
            let client = redis.client
            var configuration = redis.configuration
            configuration.reconnectBackoff = .milliseconds(20) ... .milliseconds(200)
            let subscriber = RedisSubscriber(configuration: configuration, loop: redis.group.loops[0])
            subscriber.start()
            #expect(await subscriber.waitUntilReady())
            let events = Collector(await subscriber.subscribe(b("events")))
            #expect(try await client.publish(b("events"), b("one")) == 1)
            #expect(await eventually { events.all == [b("one")] })
            let oldContext = await subscriber.contextProbe()

            try await redis.server.restart()
            #expect(await redis.client.waitUntilReady(timeout: .seconds(5)))
            #expect(await eventually { (try? await client.publish(b("events"), b("two"))) == 1 })
            #expect(await eventually { events.all.contains(b("two")) })
            #expect(events.all.first == b("one"))
            #expect(oldContext.isReleased)

            await subscriber.close()
            #expect(await subscriber.contextProbe().existed == false)
        }
    }

    @Test("subscribing while disconnected takes effect on connect")
    func subscribeBeforeConnect() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let subscriber = RedisSubscriber(configuration: redis.configuration, loop: redis.group.loops[0])
            let early = Collector(await subscriber.subscribe(b("early")))
            subscriber.start()
            #expect(await eventually { (try? await client.publish(b("early"), b("hi"))) == 1 })
            #expect(await eventually { early.all.first == b("hi") })
            await subscriber.close()
        }
    }
}
