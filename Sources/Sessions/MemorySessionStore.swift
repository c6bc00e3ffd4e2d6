/// An in-memory `SessionStore`: an actor generic over the `Clock` that
/// measures TTLs and leases, with a `UnixClock` for absolute expiries.
/// Tests inject a manual clock (one object conforming to both) and advance
/// it instead of sleeping; a single-process gateway may use it with the
/// defaults. Expired entries are dropped when touched and swept now and
/// then, so memory follows the live sessions.
///
/// `setUnavailable(true)` simulates a store outage: every operation then
/// throws `.unavailable` until it is switched off again.
public actor MemorySessionStore<C: Clock>: SessionStore, SessionLockStore where C.Duration == Duration {
    struct Entry {
        var record: StoredRecord
        var expiresAt: C.Instant
    }

    struct Lock {
        var value: String
        var expiresAt: C.Instant
    }

    let clock: C
    let unixClock: any UnixClock
    var records: [String: Entry] = [:]
    var locks: [String: Lock] = [:]
    var indexes: [String: [String: C.Instant]] = [:]
    var unavailable = false
    private var writesSinceSweep = 0

    /// A store on `clock` (TTLs, leases) and `unixClock` (absolute expiries).
    public init(clock: C, unixClock: any UnixClock) {
        self.clock = clock
        self.unixClock = unixClock
    }

    /// Makes every operation fail with `.unavailable` (true) or work again
    /// (false), to test outage handling.
    public func setUnavailable(_ value: Bool) {
        unavailable = value
    }

    /// How many records are held, expired ones included until swept.
    public var recordCount: Int { records.count }

    /// `SessionStore.save`: see the protocol for the contract.
    public func save(_ key: String, record: StoredRecord, ttl: Duration) throws(SessionStoreError) {
        try checkAvailable()
        write(key, record: record, ttl: ttl)
    }

    /// `SessionStore.load`: see the protocol for the contract.
    public func load(_ key: String, touch: Duration?) throws(SessionStoreError) -> StoredRecord? {
        try checkAvailable()
        guard var entry = live(key) else { return nil }
        if let touch {
            let ttl = entry.record.timeToLive(touch, now: unixClock.unixMilliseconds())
            guard ttl > 0 else {
                records[key] = nil
                return nil
            }
            entry.expiresAt = clock.now.advanced(by: .milliseconds(ttl))
            records[key] = entry
        }
        return entry.record
    }

    /// `SessionStore.take`: see the protocol for the contract.
    public func take(_ key: String) throws(SessionStoreError) -> StoredRecord? {
        try checkAvailable()
        let entry = live(key)
        records[key] = nil
        return entry?.record
    }

    /// `SessionStore.delete`: see the protocol for the contract.
    public func delete(_ keys: [String]) throws(SessionStoreError) {
        try checkAvailable()
        for key in keys { records[key] = nil }
    }

    /// `SessionStore.compareAndSet`: see the protocol for the contract.
    public func compareAndSet(
        _ key: String, expectedVersion: UInt64, record: StoredRecord, ttl: Duration
    ) throws(SessionStoreError) -> Bool {
        try checkAvailable()
        guard let entry = live(key), entry.record.version == expectedVersion else { return false }
        var next = record
        next.version = expectedVersion &+ 1
        write(key, record: next, ttl: ttl)
        return true
    }

    /// `SessionStore.checkAvailability`: see the protocol for the contract.
    public func checkAvailability() throws(SessionStoreError) {
        try checkAvailable()
    }

    // MARK: - Internals shared with the lock and index extension

    func checkAvailable() throws(SessionStoreError) {
        if unavailable { throw .unavailable }
    }

    /// The entry under `key` if it has not expired; drops it otherwise.
    private func live(_ key: String) -> Entry? {
        guard let entry = records[key] else { return nil }
        if entry.expiresAt <= clock.now {
            records[key] = nil
            return nil
        }
        return entry
    }

    private func write(_ key: String, record: StoredRecord, ttl: Duration) {
        let milliseconds = record.timeToLive(ttl, now: unixClock.unixMilliseconds())
        if milliseconds > 0 {
            records[key] = Entry(record: record, expiresAt: clock.now.advanced(by: .milliseconds(milliseconds)))
        } else {
            records[key] = nil
        }
        sweepNowAndThen()
    }

    /// Every 1024 writes, drops every expired record, lock and index member.
    func sweepNowAndThen() {
        writesSinceSweep += 1
        guard writesSinceSweep >= 1024 else { return }
        writesSinceSweep = 0
        let now = clock.now
        records = records.filter { $0.value.expiresAt > now }
        locks = locks.filter { $0.value.expiresAt > now }
        indexes = indexes.compactMapValues { members in
            let alive = members.filter { $0.value > now }
            return alive.isEmpty ? nil : alive
        }
    }
}
