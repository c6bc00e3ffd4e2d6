/// Which node serves each of the 16384 slots, read from `CLUSTER SLOTS`:
/// an array of `[first, last, [host, port, id, …] (the master), replicas…]`.
struct SlotMap: Sendable {
    /// The masters, in the order first seen.
    private(set) var nodes: [RedisAddress] = []
    /// Slot → index in `nodes`; -1 for a slot no node serves.
    private(set) var owner = [Int16](repeating: -1, count: ClusterSlot.count)

    init() {}

    /// The map from a `CLUSTER SLOTS` reply given by `asked` (an empty host
    /// in the reply means that node's own host); nil for a reply of another shape.
    init?(clusterSlots reply: RedisValue, asked: RedisAddress) {
        guard case .array(let ranges) = reply else { return nil }
        for range in ranges {
            guard case .array(let fields) = range, fields.count >= 3, let first = fields[0].integer, let last = fields[1].integer,
                  0 <= first, first <= last, last < ClusterSlot.count,
                  case .array(let master) = fields[2], master.count >= 2, let port = master[1].integer,
                  (1...65535).contains(port)
            else { return nil }
            var host = master[0].text ?? ""
            if host.isEmpty || host == "?" { host = asked.host }
            assign(first...last, to: RedisAddress(host: host, port: port))
        }
    }

    /// The node serving `slot`, if any.
    func node(for slot: Int) -> RedisAddress? {
        let index = Int(owner[slot])
        return index >= 0 ? nodes[index] : nil
    }

    /// The nodes that serve at least one slot.
    var servingNodes: [RedisAddress] {
        let serving = Set(owner)
        return nodes.indices.filter { serving.contains(Int16($0)) }.map { nodes[$0] }
    }

    /// Whether every slot has a node.
    var isComplete: Bool { !owner.contains(-1) }

    /// Records that `slots` are served by `address` (after `MOVED`, for one slot).
    mutating func assign(_ slots: ClosedRange<Int>, to address: RedisAddress) {
        let index: Int
        if let known = nodes.firstIndex(of: address) {
            index = known
        } else {
            index = nodes.count
            nodes.append(address)
        }
        for slot in slots { owner[slot] = Int16(index) }
    }
}
