import Crypto

// Leased locks and the expiring set index of the in-memory store.
extension MemorySessionStore {
    /// `SessionStore.acquireLock`: see the protocol for the contract.
    public func acquireLock(_ name: String, lease: Duration) throws(SessionStoreError) -> LockToken? {
        try checkAvailable()
        let now = clock.now
        if let held = locks[name], held.expiresAt > now { return nil }
        let token = try LockToken.random(name: name)
        locks[name] = Lock(value: token.value, expiresAt: now.advanced(by: lease))
        sweepNowAndThen()
        return token
    }

    /// `SessionStore.renewLock`: see the protocol for the contract.
    public func renewLock(_ token: LockToken, lease: Duration) throws(SessionStoreError) -> Bool {
        try checkAvailable()
        let now = clock.now
        guard var held = locks[token.name], held.expiresAt > now,
              constantTimeEquals(held.value.utf8, token.value.utf8)
        else { return false }
        held.expiresAt = now.advanced(by: lease)
        locks[token.name] = held
        return true
    }

    /// `SessionStore.releaseLock`: see the protocol for the contract.
    @discardableResult
    public func releaseLock(_ token: LockToken) throws(SessionStoreError) -> Bool {
        try checkAvailable()
        guard let held = locks[token.name], held.expiresAt > clock.now,
              constantTimeEquals(held.value.utf8, token.value.utf8)
        else { return false }
        locks[token.name] = nil
        return true
    }

    /// `SessionStore.addToIndex`: see the protocol for the contract.
    public func addToIndex(_ index: String, member: String, ttl: Duration) throws(SessionStoreError) {
        try checkAvailable()
        indexes[index, default: [:]][member] = clock.now.advanced(by: ttl)
        sweepNowAndThen()
    }

    /// `SessionStore.indexMembers`: see the protocol for the contract.
    public func indexMembers(_ index: String) throws(SessionStoreError) -> [String] {
        try checkAvailable()
        let now = clock.now
        guard let members = indexes[index] else { return [] }
        let alive = members.filter { $0.value > now }
        indexes[index] = alive.isEmpty ? nil : alive
        return Array(alive.keys)
    }

    /// `SessionStore.removeFromIndex`: see the protocol for the contract.
    public func removeFromIndex(_ index: String, member: String) throws(SessionStoreError) {
        try checkAvailable()
        indexes[index]?[member] = nil
        if indexes[index]?.isEmpty == true { indexes[index] = nil }
    }
}

extension MemorySessionStore where C == ContinuousClock {
    /// A store on the system's clocks, for a single-process gateway.
    public init() {
        self.init(clock: ContinuousClock(), unixClock: SystemUnixClock())
    }
}
