import Routing
import Synchronization

/// The small static files kept in memory, by the place asked for, each
/// served on the loop until its revalidation is due. Bounded: past
/// `maxEntries` or `maxBytes` a new file is served but not kept.
final class StaticCache: Sendable {
    static let maxEntries = 4096
    static let maxBytes = 64 << 20

    /// A kept file and the handler that answers it on the loop, made once
    /// when kept: a closure made per request would be an allocation each.
    struct Kept: Sendable {
        let entry: StaticEntry
        let answer: ImmediateHandler
    }

    private struct Contents {
        var entries: [StaticPath: Kept] = [:]
        var bytes = 0
    }

    private let contents = Mutex(Contents())

    /// The entry for `place` when it was checked less than `interval`
    /// nanoseconds before `now`.
    func fresh(_ place: StaticPath, now: UInt64, interval: UInt64) -> Kept? {
        contents.withLock { contents in
            guard let kept = contents.entries[place], now &- kept.entry.checked < interval else { return nil }
            return kept
        }
    }

    /// The entry for `place`, fresh or not.
    func entry(_ place: StaticPath) -> StaticEntry? {
        contents.withLock { $0.entries[place]?.entry }
    }

    /// Keeps `entry` for `place` when it is in memory and fits, replacing
    /// any earlier one; nil (the file is gone) forgets the place.
    /// `reads` goes into the handler (a kept file never needs it, but
    /// the answer is made by one function for every entry).
    func store(_ place: StaticPath, _ entry: StaticEntry?, reads: StaticReads) {
        let kept = entry.map { entry in
            Kept(entry: entry, answer: { request, _ in entry.response(for: StaticConditions(request.headers), reads: reads) })
        }
        contents.withLock { contents in
            let previous = contents.entries.removeValue(forKey: place)
            contents.bytes -= previous?.entry.memoryBytes ?? 0
            guard let kept, kept.entry.isInMemory, contents.entries.count < Self.maxEntries,
                  contents.bytes + kept.entry.memoryBytes <= Self.maxBytes else { return }
            contents.entries[place] = kept
            contents.bytes += kept.entry.memoryBytes
        }
    }
}
