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
/// written anywhere. Bounded; when full, an arbitrary entry makes room.
final class SessionMemo: Sendable {
    struct Entry {
        let handle: RecordHandle
        var opened: (record: StoredRecord, content: SessionRecord)?
        /// Unix ms of the last idle renewal this process made; 0 for none.
        var touchedAt: UInt64 = 0
    }

    private let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int) { self.capacity = capacity }

    func entry(cookieValue: String) -> Entry? {
        guard capacity > 0 else { return nil }
        return entries.withLock { $0[cookieValue] }
    }

    /// Remembers `entry` for `cookieValue`, making room when full.
    func remember(_ entry: Entry, cookieValue: String) {
        guard capacity > 0 else { return }
        entries.withLock { table in
            if table[cookieValue] == nil, table.count >= capacity { table.remove(at: table.startIndex) }
            table[cookieValue] = entry
        }
    }

    /// Forgets every entry for the record stored under `storeKey`.
    func forget(storeKey: String) {
        entries.withLock { table in
            for (cookieValue, entry) in table where entry.handle.storeKey == storeKey { table[cookieValue] = nil }
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
