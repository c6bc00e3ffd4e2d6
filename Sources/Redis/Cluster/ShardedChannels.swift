/// Sharded pub/sub channels (Redis 7 `SPUBLISH`/`SSUBSCRIBE`) that follow
/// the slots of the keys they are about: one channel per range of 256
/// slots, named `<prefix>{<tag>}` with a tag that hashes into that range.
/// A message about a key goes on its range's channel, so it is published
/// on the node that serves the key (where ranges and the cluster's slot
/// ranges line up), and no message crosses the cluster bus to every node.
public struct ShardedChannels: Sendable {
    /// Slots per channel.
    static let slotsPerChannel = 256
    /// The channels, by range.
    let channels: [[UInt8]]
    /// Each channel's own slot.
    let slots: [Int]

    /// The channels named `prefix{tag}`.
    public init(prefix: String) {
        let count = ClusterSlot.count / Self.slotsPerChannel
        var tags = [String?](repeating: nil, count: count)
        var slots = [Int](repeating: 0, count: count)
        var found = 0
        var candidate = 0
        while found < count {
            let tag = String(candidate, radix: 36)
            let slot = ClusterSlot.of(Array(tag.utf8))
            if tags[slot / Self.slotsPerChannel] == nil {
                tags[slot / Self.slotsPerChannel] = tag
                slots[slot / Self.slotsPerChannel] = slot
                found += 1
            }
            candidate += 1
        }
        channels = tags.map { Array("\(prefix){\($0!)}".utf8) }
        self.slots = slots
    }

    /// The channel for messages about `key`.
    public func channel(about key: [UInt8]) -> [UInt8] {
        channels[ClusterSlot.of(key) / Self.slotsPerChannel]
    }
}
