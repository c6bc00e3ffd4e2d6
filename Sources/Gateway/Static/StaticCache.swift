import Synchronization

/// The small static files kept in memory, by the place asked for, each
/// served on the loop until its revalidation is due. Bounded: past
/// `maxEntries` or `maxBytes` a new file is served but not kept.
final class StaticCache: Sendable {
    static let maxEntries = 4096
    static let maxBytes = 64 << 20

    private struct Contents {
        var entries: [StaticPath: StaticEntry] = [:]
        var bytes = 0
    }

    private let contents = Mutex(Contents())

    /// The entry for `place` when it was checked less than `interval`
    /// nanoseconds before `now`.
    func fresh(_ place: StaticPath, now: UInt64, interval: UInt64) -> StaticEntry? {
        contents.withLock { contents in
            guard let entry = contents.entries[place], now &- entry.checked < interval else { return nil }
            return entry
        }
    }

    /// The entry for `place`, fresh or not.
    func entry(_ place: StaticPath) -> StaticEntry? {
        contents.withLock { $0.entries[place] }
    }

    /// Keeps `entry` for `place` when it is in memory and fits, replacing
    /// any earlier one; nil (the file is gone) forgets the place.
    func store(_ place: StaticPath, _ entry: StaticEntry?) {
        contents.withLock { contents in
            let previous = contents.entries.removeValue(forKey: place)
            contents.bytes -= previous?.memoryBytes ?? 0
            guard let entry, entry.isInMemory, contents.entries.count < Self.maxEntries,
                  contents.bytes + entry.memoryBytes <= Self.maxBytes else { return }
            contents.entries[place] = entry
            contents.bytes += entry.memoryBytes
        }
    }
}
