/// An event loop's handlers by registration id, found by index rather than
/// by hashing: an id is a slot's index (low 32 bits) and the slot's
/// generation (high 32 bits). A freed slot is used again with the next
/// generation, so an event still carrying an old id (one registration
/// removed earlier in the same batch, its slot taken by a new one) finds a
/// generation that no longer matches and is dropped. Generations start at
/// 1, so no id is 0, which the loop keeps for its wake-up descriptor.
///
/// An index, not a dictionary keyed by the id: two hashes per proxied
/// request saved (Docs/performance.md, "Event loops").
struct HandlerTable {
    private struct Slot {
        var generation: UInt32
        var handler: (any EventLoopHandler)?
    }

    private var slots: [Slot] = []
    private var free: [UInt32] = []

    /// How many handlers are registered.
    private(set) var count = 0

    /// Keeps `handler` and returns its id.
    mutating func insert(_ handler: any EventLoopHandler) -> UInt64 {
        count += 1
        if let index = free.popLast() {
            slots[Int(index)].handler = handler
            return Self.id(index: index, generation: slots[Int(index)].generation)
        }
        let index = UInt32(slots.count)
        slots.append(Slot(generation: 1, handler: handler))
        return Self.id(index: index, generation: 1)
    }

    /// The handler registered under `id`, unless it has been removed.
    func handler(_ id: UInt64) -> (any EventLoopHandler)? {
        let index = Int(truncatingIfNeeded: id & 0xFFFF_FFFF)
        guard index < slots.count, slots[index].generation == UInt32(truncatingIfNeeded: id >> 32) else { return nil }
        return slots[index].handler
    }

    /// Drops the handler registered under `id`; an unknown or removed id
    /// changes nothing.
    mutating func remove(_ id: UInt64) {
        let index = Int(truncatingIfNeeded: id & 0xFFFF_FFFF)
        guard index < slots.count, slots[index].generation == UInt32(truncatingIfNeeded: id >> 32),
              slots[index].handler != nil else { return }
        slots[index].handler = nil
        let next = slots[index].generation &+ 1
        slots[index].generation = next == 0 ? 1 : next
        free.append(UInt32(index))
        count -= 1
    }

    private static func id(index: UInt32, generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(index)
    }
}
