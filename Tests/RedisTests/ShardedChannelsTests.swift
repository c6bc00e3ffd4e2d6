@testable import Redis
import System
import Testing
import TestSupport

/// Sharded pub/sub on a cluster: the channels of a ``ShardedChannels`` set,
/// each subscribed where its slot lives.
@Suite("Cluster: sharded channels", .serialized)
struct ShardedChannelsTests {
    @Test("one channel per 256 slots, each hashing into its own range; a key's channel is its range's")
    func channelsFollowSlots() {
        let set = ShardedChannels(prefix: "bff:refreshed")
        #expect(set.channels.count == 64 && Set(set.channels).count == 64)
        for (index, channel) in set.channels.enumerated() {
            #expect(set.slots[index] / 256 == index)
            #expect(ClusterSlot.of(channel) == set.slots[index])
            #expect(channel.starts(with: Array("bff:refreshed{".utf8)))
        }
        for key in ["bff:l:abc", "bff:l:xyz", "foo"].map({ Array($0.utf8) }) {
            #expect(ClusterSlot.of(set.channel(about: key)) / 256 == ClusterSlot.of(key) / 256)
        }
    }

    @Test("messages on every channel reach the one stream; a killed master's channels come back on its successor")
    func messagesAcrossMasters() async throws {
        try await withCluster { cluster, client, loops in
            let channels = ShardedChannels(prefix: "test:signals")
            let subscriber = ShardedSubscriber(client: client, configuration: clusterConfiguration(seed: cluster.nodePorts[0]),
                                               loop: loops.loops[0], channels: channels)
            let stream = await subscriber.messages(bufferingNewest: 1024)
            var iterator = stream.makeAsyncIterator()

            // Each channel is subscribed on the master of its slot: one receiver each.
            for channel in channels.channels { #expect(try await client.spublish(channel, channel) == 1) }
            var received = Set<[UInt8]>()
            for _ in channels.channels { if let message = await iterator.next() { received.insert(message) } }
            #expect(received == Set(channels.channels))

            let victim = try #require(await cluster.masters().first)
            let moved = channels.channels.filter { client.router?.node(for: ClusterSlot.of($0))?.port == Int(victim) }
            #expect(!moved.isEmpty)
            await cluster.killNode(port: victim)
            // Once the replica serves the slots and the channel moved to it, it is heard again.
            for channel in moved {
                let back = await eventually(timeout: .seconds(20)) { (try? await client.spublish(channel, channel)) == 1 }
                #expect(back, "a channel of the killed master never came back")
            }
            var heard = Set<[UInt8]>()
            while heard.count < moved.count, let message = await iterator.next() { heard.insert(message) }
            #expect(heard == Set(moved))

            await subscriber.close()
        }
    }
}
