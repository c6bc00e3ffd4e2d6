/// A loop's one-shot timers: a binary min-heap on the deadline. Used only
/// on the owning loop's thread.
struct TimerHeap {
    struct Entry {
        let deadline: UInt64
        let id: UInt64
        let action: () -> Void
    }

    private var heap: [Entry] = []
    private var cancelled: Set<UInt64> = []

    /// The earliest live deadline; drops cancelled timers from the top.
    mutating func nextDeadline() -> UInt64? {
        while let first = heap.first, cancelled.contains(first.id) {
            cancelled.remove(first.id)
            _ = popFirst()
        }
        return heap.first?.deadline
    }

    mutating func insert(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func cancel(_ id: UInt64) {
        if heap.contains(where: { $0.id == id }) { cancelled.insert(id) }
    }

    /// Removes and returns every timer due at `now`, earliest first.
    mutating func popDue(now: UInt64) -> [Entry] {
        var due: [Entry] = []
        while let first = heap.first, first.deadline <= now {
            let entry = popFirst()
            if cancelled.remove(entry.id) == nil { due.append(entry) }
        }
        return due
    }

    private mutating func popFirst() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
