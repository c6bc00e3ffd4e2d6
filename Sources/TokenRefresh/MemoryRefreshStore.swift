import Sessions
import Synchronization

/// The in-memory `RefreshStore`: locks (`MemorySessionStore`'s), failure
/// records and outcome messages within one process (tests, single-process
/// runs). Leases and
/// holds are measured on the injected clock, so a test moves time instead
/// of sleeping through it; an outage can be simulated (`setUnavailable`).
public final class MemoryRefreshStore<C: Clock>: RefreshStore where C.Duration == Duration {
    private struct State {
        var failures: [String: (record: StoredRecord, expiresAt: C.Instant)] = [:]
        var listeners: [UInt64: AsyncStream<[UInt8]>.Continuation] = [:]
        var nextListener: UInt64 = 0
        var unavailable = false
    }

    private let clock: C
    /// The leased locks: the in-memory session store's, on the same clock.
    private let locks: MemorySessionStore<C>
    private let state = Mutex(State())

    /// A store measuring leases and holds on `clock`.
    public init(clock: C) {
        self.clock = clock
        locks = MemorySessionStore(clock: clock, unixClock: SystemUnixClock())
    }

    /// Simulates an outage: every operation fails with `.unavailable` until
    /// called again with false.
    public func setUnavailable(_ unavailable: Bool) async {
        state.withLock { $0.unavailable = unavailable }
        await locks.setUnavailable(unavailable)
    }

    /// `SessionLockStore.acquireLock`: the lock store's.
    public func acquireLock(_ name: String, lease: Duration) async throws(SessionStoreError) -> LockToken? {
        try await locks.acquireLock(name, lease: lease)
    }

    /// `SessionLockStore.renewLock`: the lock store's.
    public func renewLock(_ token: LockToken, lease: Duration) async throws(SessionStoreError) -> Bool {
        try await locks.renewLock(token, lease: lease)
    }

    /// `SessionLockStore.releaseLock`: the lock store's.
    @discardableResult
    public func releaseLock(_ token: LockToken) async throws(SessionStoreError) -> Bool {
        try await locks.releaseLock(token)
    }

    /// `RefreshStore.rememberFailure`: see the protocol for the contract.
    public func rememberFailure(_ name: String, record: StoredRecord, hold: Duration) throws(SessionStoreError) {
        let now = clock.now
        try available { state in
            state.failures = state.failures.filter { $0.value.expiresAt > now }
            state.failures[name] = (record, now.advanced(by: hold))
        }
    }

    /// `RefreshStore.recentFailure`: see the protocol for the contract.
    public func recentFailure(_ name: String) throws(SessionStoreError) -> StoredRecord? {
        let now = clock.now
        return try available { state in
            guard let kept = state.failures[name], kept.expiresAt > now else { return nil }
            return kept.record
        }
    }

    /// `RefreshStore.publish`: hands `message` to every listener of this store.
    public func publish(_ message: [UInt8], about lockName: String) throws(SessionStoreError) {
        let listeners = try available { state in Array(state.listeners.values) }
        for listener in listeners { listener.yield(message) }
    }

    /// `RefreshStore.outcomeMessages`: see the protocol for the contract.
    public func outcomeMessages() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(4096))
        let id = state.withLock { state in
            state.nextListener += 1
            state.listeners[state.nextListener] = continuation
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// `RefreshStore.close`: ends every listener's stream.
    public func close() {
        let listeners = state.withLock { state in
            defer { state.listeners = [:] }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }

    private func available<T>(_ body: (inout State) -> T) throws(SessionStoreError) -> T {
        let result: T? = state.withLock { state in state.unavailable ? nil : body(&state) }
        guard let result else { throw .unavailable }
        return result
    }
}

extension MemoryRefreshStore where C == ContinuousClock {
    /// A store on the system's monotonic clock.
    public convenience init() {
        self.init(clock: ContinuousClock())
    }
}
