import Synchronization

/// What this process remembers of the sessions it served lately, so a
/// request for a session it just served does no cryptography and, most of
/// the time, no write:
///
/// - the handle derived from a cookie value (HKDF is deterministic, so the
///   remembered handle is the one a new derivation would give);
/// - the last sealed record it opened, with what it decoded to: a record
///   read again byte for byte (same bytes, version and expiry) under the
///   same key opens to the same content, so it is not opened again, while
///   any other record (a refresh wrote a successor, a tampered one) is;
/// - when it last renewed the record's idle timeout.
///
/// The store stays the truth: every lookup still reads the record, so an
/// ended or rotated session is seen at once. Memory only: nothing here is
/// written anywhere. Bounded: when full, an arbitrary entry makes room, and
/// entries unused for an idle timeout are dropped, so decrypted tokens of a
/// session nobody uses do not stay in memory.
final class SessionMemo: Sendable {
    /// A record and what it opened to; a class, so that copying an entry
    /// (every lookup does) retains one reference instead of every field.
    /// The sessions served from it share its content box.
    final class Opened: Sendable {
        let record: StoredRecord
        let content: Session.Content
        let authenticatedAt: UInt64
        let absoluteExpiresAt: UInt64

        init(record: StoredRecord, content: SessionRecord) {
            self.record = record
            self.content = Session.Content(content.data)
            authenticatedAt = content.authenticatedAt
            absoluteExpiresAt = content.absoluteExpiresAt
        }
    }

    struct Entry {
        let handle: RecordHandle
        var opened: Opened?
        /// Unix ms of the last idle renewal this process made; 0 for none.
        var touchedAt: UInt64 = 0
        /// Unix ms of the last lookup that used it.
        var usedAt: UInt64 = 0
    }

    /// A cookie value as a table key, its bytes held inline: a lookup
    /// makes no `String` and hashes two words instead of every byte. The
    /// gateway issues 43-character values; a value over 48 bytes has no
    /// key (and is never one of ours). Hashing the first 16 bytes is safe
    /// from flooding: only values that named a live session are stored,
    /// and those are random; a value someone makes up is only looked up.
    struct Key: Hashable {
        private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        private let count: Int

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count <= 48 else { return nil }
            count = bytes.count
            if let base = bytes.baseAddress {
                withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
            }
        }

        init?(_ value: String) {
            guard let key = value.withContiguousUTF8({ Key($0) }) else { return nil }
            self = key
        }

        static func == (a: Key, b: Key) -> Bool {
            a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
                && a.words.3 == b.words.3 && a.words.4 == b.words.4 && a.words.5 == b.words.5
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
        }
    }

    private struct Table {
        var entries: [Key: Entry] = [:]
        /// Remembers since the last sweep for unused entries.
        var sinceSweep = 0
    }

    private let capacity: Int
    private let maxUnusedMilliseconds: UInt64
    private let table = Mutex(Table())

    init(capacity: Int, maxUnused: Duration) {
        self.capacity = capacity
        maxUnusedMilliseconds = UInt64(max(0, maxUnused.wholeMilliseconds))
    }

    /// The entry for the cookie value `key`, marked used at `now` (so a lookup that
    /// changes nothing need not `remember` it again); every `capacity`
    /// calls, first drops the entries unused for too long.
    func entry(_ key: Key, now: UInt64) -> Entry? {
        guard capacity > 0 else { return nil }
        return table.withLock { table in
            table.sinceSweep += 1
            if table.sinceSweep >= capacity {
                table.sinceSweep = 0
                table.entries = table.entries.filter { now &- $0.value.usedAt < maxUnusedMilliseconds }
            }
            // One hash of the key for the read and the mark.
            guard let index = table.entries.index(forKey: key) else { return nil }
            table.entries.values[index].usedAt = now
            return table.entries.values[index]
        }
    }

    /// Remembers `entry` (used at `now`) for the cookie value `key`, making
    /// room when full.
    func remember(_ entry: Entry, key: Key, now: UInt64) {
        guard capacity > 0 else { return }
        var entry = entry
        entry.usedAt = now
        table.withLock { table in
            // The count first: the key is hashed again only when full.
            if table.entries.count >= capacity, table.entries[key] == nil {
                table.entries.remove(at: table.entries.startIndex)
            }
            table.entries[key] = entry
        }
    }

    func forget(_ key: Key) {
        _ = table.withLock { $0.entries.removeValue(forKey: key) }
    }

    /// Forgets every entry for the record stored under `storeKey`.
    func forget(storeKey: String) {
        table.withLock { table in
            for (key, entry) in table.entries where entry.handle.storeKey == storeKey {
                table.entries[key] = nil
            }
        }
    }

    var count: Int { table.withLock { $0.entries.count } }
}
