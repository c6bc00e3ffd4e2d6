import Core
import Synchronization

/// The last requests, in a ring of fixed capacity, each with a sequence
/// number so a test can ask for everything after a mark.
final class RequestRecorder: Sendable {
    private struct Ring {
        var capacity: Int
        var entries: [RequestRecord] = []
        var start = 0
        var nextSeq = 1
    }

    private let ring: Mutex<Ring>

    init(capacity: Int) {
        ring = Mutex(Ring(capacity: max(1, capacity)))
    }

    func append(_ record: RequestRecord) {
        ring.withLock { ring in
            var record = record
            record.seq = ring.nextSeq
            ring.nextSeq += 1
            if ring.entries.count < ring.capacity {
                ring.entries.append(record)
            } else {
                ring.entries[ring.start] = record
                ring.start = (ring.start + 1) % ring.capacity
            }
        }
    }

    /// Records with `seq > since`, oldest first, at most `limit` (the newest ones).
    func records(since: Int, limit: Int, path: String?) -> (total: Int, records: [RequestRecord]) {
        ring.withLock { ring in
            let ordered = ring.entries[ring.start...] + ring.entries[..<ring.start]
            let matching = ordered.filter { $0.seq > since && (path == nil || $0.path == path) }
            return (ring.nextSeq - 1, Array(matching.suffix(max(0, limit))))
        }
    }

    func reset(capacity: Int) {
        ring.withLock { $0 = Ring(capacity: max(1, capacity)) }
    }
}

/// Named counters in groups (`endpoints`, `grants`, `refresh`, …), for
/// `GET /dev/stats`.
final class SimulatorStats: Sendable {
    private let groups = Mutex<[String: [String: Int]]>([:])

    func count(_ group: String, _ key: String, by amount: Int = 1) {
        groups.withLock { $0[group, default: [:]][key, default: 0] += amount }
    }

    func value(_ group: String, _ key: String) -> Int {
        groups.withLock { $0[group]?[key] ?? 0 }
    }

    func reset() { groups.withLock { $0.removeAll() } }

    /// Every group as an object of counters, keys sorted.
    var json: JSONObject {
        let snapshot = groups.withLock { $0 }
        var object = JSONObject()
        for group in snapshot.keys.sorted() {
            var counters = JSONObject()
            for key in snapshot[group]!.keys.sorted() { counters[key] = .int(Int64(snapshot[group]![key]!)) }
            object[group] = .object(counters)
        }
        return object
    }
}
