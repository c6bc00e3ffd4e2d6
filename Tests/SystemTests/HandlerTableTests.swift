import TestSupport
import Testing
@testable import System

/// The loop's handler table: ids find their handler until it is removed,
/// and an id of a removed handler never finds the one that took its slot.
@Suite("Handler table")
struct HandlerTableTests {
    final class Handler: EventLoopHandler {
        let name: Int
        init(_ name: Int) { self.name = name }
        func handleEvents(_ events: EpollEvents) {}
    }

    @Test func anIdFindsItsHandlerUntilRemoved() {
        var table = HandlerTable()
        let first = Handler(1), second = Handler(2)
        let a = table.insert(first)
        let b = table.insert(second)
        #expect(a != b && a != 0 && b != 0)
        #expect(table.handler(a) === first)
        #expect(table.handler(b) === second)
        table.remove(a)
        #expect(table.handler(a) == nil)
        #expect(table.handler(b) === second)
        #expect(table.count == 1)
    }

    @Test func aReusedSlotDoesNotAnswerItsOldId() {
        var table = HandlerTable()
        let old = table.insert(Handler(1))
        table.remove(old)
        let newer = Handler(2)
        let reused = table.insert(newer)
        #expect(reused != old)
        #expect(reused & 0xFFFF_FFFF == old & 0xFFFF_FFFF, "the freed slot is taken again")
        #expect(table.handler(old) == nil)
        #expect(table.handler(reused) === newer)
        // Removing by the stale id leaves the new registration alone.
        table.remove(old)
        #expect(table.handler(reused) === newer)
        #expect(table.count == 1)
    }

    @Test func unknownIdsFindNothing() {
        var table = HandlerTable()
        #expect(table.handler(0) == nil)
        #expect(table.handler(1 << 32 | 7) == nil)
        table.remove(1 << 32 | 7)
        #expect(table.count == 0)
    }

    /// Random inserts and removals against a dictionary of live ids.
    @Test(arguments: [UInt64(1), 2, 3])
    func matchesAModel(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = HandlerTable()
        var live: [UInt64: Handler] = [:]
        var dead: [UInt64] = []
        for step in 0..<5_000 {
            if live.isEmpty || random.next() % 3 != 0 {
                let handler = Handler(step)
                let id = table.insert(handler)
                #expect(live[id] == nil && !dead.contains(id), "seed \(seed) step \(step): id \(id) given twice")
                live[id] = handler
            } else {
                let id = live.keys.sorted()[Int(random.next() % UInt64(live.count))]
                table.remove(id)
                live[id] = nil
                dead.append(id)
            }
            if step % 97 == 0 {
                for (id, handler) in live { #expect(table.handler(id) === handler, "seed \(seed) step \(step)") }
                for id in dead.suffix(20) { #expect(table.handler(id) == nil, "seed \(seed) step \(step)") }
            }
        }
        #expect(table.count == live.count)
    }
}
