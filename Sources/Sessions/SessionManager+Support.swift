import Core
#if canImport(Glibc)
import Glibc
#endif
import Crypto

// Shared steps of the manager: opening records, sealing, error mapping,
// and the index names.
extension SessionManager {
    /// base64url(SHA-256(`label` ‖ 0 ‖ `value`)): a store key name that
    /// stands for `value` without showing it in a store dump.
    public static func hashedName(label: String, _ value: String) -> String {
        var input = Array(label.utf8)
        input.append(0)
        input.append(contentsOf: value.utf8)
        return Base64URL.encode(SHA256.hash(input))
    }

    /// The user index of `subject`, so a store dump shows no subject in clear.
    static func userIndex(subject: String) -> String {
        hashedName(label: "modgud-bff/user-index/v1", subject)
    }

    /// The sid index of `sid`; members are the store keys of the sessions
    /// signed in under that identity server session.
    static func sidIndex(sid: String) -> String {
        hashedName(label: "modgud-bff/sid-index/v1", sid)
    }

    /// Removes the session stored under `storeKey` from its user's index and,
    /// with a `sid`, from the sid index.
    func removeFromIndexes(storeKey: String, subject: String?, sid: String?) async throws(SessionError) {
        try await call { () async throws(SessionStoreError) in
            if let subject { try await store.removeFromIndex(Self.userIndex(subject: subject), member: storeKey) }
            if let sid { try await store.removeFromIndex(Self.sidIndex(sid: sid), member: storeKey) }
        }
    }

    /// Ends the session an earlier cookie value names, if it parses: takes
    /// its record (read and removed in one step) and removes its index
    /// entry; returns the session the record held, when it opens, so that
    /// its tokens can be revoked.
    func endEarlier(cookieValue: Substring.UTF8View) async throws(SessionError) -> Session? {
        guard let old = try derive({ () throws(CryptoError) in try RecordScheme.session.handle(cookieValue: cookieValue) })
        else { return nil }
        memo.forget(storeKey: old.storeKey)
        let taken = try await call { () async throws(SessionStoreError) in try await store.take(old.storeKey) }
        guard let taken, case .found(let earlier) = open(taken, handle: old) else { return nil }
        try await call { () async throws(SessionStoreError) in
            try await store.delete([SessionDirectory.cardKey(storeKey: old.storeKey)])
        }
        try await removeFromIndexes(storeKey: old.storeKey, subject: earlier.data.subject, sid: earlier.data.sid)
        return earlier
    }

    /// Opens and decodes a session record; checks the absolute expiry.
    func open(_ record: StoredRecord, handle: RecordHandle) -> SessionLookup<Session> {
        var entry = SessionMemo.Entry(handle: handle)
        return open(record, entry: &entry)
    }

    /// Opens `record` with the entry's handle, or takes the content the
    /// entry remembers when the record is the very one it opened last; a
    /// record that opens is remembered in `entry`.
    func open(_ record: StoredRecord, entry: inout SessionMemo.Entry) -> SessionLookup<Session> {
        let opened: SessionMemo.Opened
        if let remembered = entry.opened, remembered.record.version == record.version,
           remembered.record.absoluteExpiry == record.absoluteExpiry, Self.sameBytes(remembered.record.bytes, record.bytes) {
            opened = remembered
        } else {
            guard let plaintext = RecordScheme.session.open(record, handle: entry.handle),
                  let decoded = SessionRecord(decoding: plaintext),
                  decoded.absoluteExpiresAt == record.absoluteExpiry
            else { return .tampered }
            opened = SessionMemo.Opened(record: record, content: decoded)
            entry.opened = opened
        }
        guard opened.absoluteExpiresAt > clock.unixMilliseconds() else { return .expired }
        return .found(Session(content: opened.content, authenticatedAt: opened.authenticatedAt,
                              absoluteExpiresAt: opened.absoluteExpiresAt, version: record.version, handle: entry.handle))
    }

    /// Byte equality through memcmp (`==` on arrays compares element by
    /// element); the same buffer (a record the store's cache returned
    /// again) is equal without reading it.
    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in x.baseAddress == y.baseAddress || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }

    /// Seals `plaintext` into a store record, refusing oversize content.
    func sealed(_ plaintext: [UInt8], scheme: RecordScheme, handle: RecordHandle, version: UInt64,
                absoluteExpiry: UInt64) throws(SessionError) -> StoredRecord
    {
        guard plaintext.count <= configuration.maxRecordBytes else { throw .recordTooLarge(size: plaintext.count) }
        let bytes = try derive { () throws(CryptoError) in
            try scheme.seal(plaintext, handle: handle, version: version, absoluteExpiry: absoluteExpiry)
        }
        return StoredRecord(bytes: bytes, version: version, absoluteExpiry: absoluteExpiry)
    }

    /// Runs store operations, wrapping their errors.
    func call<T>(_ body: () async throws(SessionStoreError) -> T) async throws(SessionError) -> T {
        do throws(SessionStoreError) { return try await body() } catch { throw .store(error) }
    }

    /// Runs a cryptographic step, wrapping its errors.
    func derive<T>(_ body: () throws(CryptoError) -> T) throws(SessionError) -> T {
        do throws(CryptoError) { return try body() } catch { throw .crypto(error) }
    }
}
