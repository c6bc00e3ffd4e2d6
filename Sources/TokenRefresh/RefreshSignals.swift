import Core
import Crypto
import Observability
import Sessions
import Synchronization

/// Wakes the requests waiting for a session's refresh when it is done, on
/// this instance and on every other one: the refresher publishes the
/// outcome through the `RefreshStore` (Redis: one channel, which every
/// instance keeps one subscription to), and each instance hands it to its
/// waiters for that session. Messages can be lost (Redis pub/sub while
/// reconnecting), so a waiter never waits on a signal alone: it also polls
/// the session record (`TokenRefresher`), and the signal only cuts the
/// wait short.
///
/// A message is `<lock name> <tag> <outcome>`, authenticated under the
/// session's own key (`RefreshSignal+Authentication.swift`); lock names
/// are derived from the cookie one way and safe to send. A message for a
/// session nobody waits for here is dropped unread; one for a session a
/// request waits for is checked with that session's key, and one that
/// does not parse or whose tag is wrong is refused (counted in
/// `bff_refresh_outcomes_refused_total`, logged without its content): its
/// waiters go on polling, as for a message that never came.
public final class RefreshSignals: Sendable {
    private let store: (any RefreshStore)?
    private let clock: RefreshClock
    private let waiters = Mutex<[String: [UInt64: Waiter]]>([:])
    private let nextID = Atomic<UInt64>(1)
    private let listener = Mutex<Task<Void, Never>?>(nil)
    private let refused: Counter
    private let logger: Logger

    /// Signals within this process only (tests, single-instance runs).
    public init(clock: RefreshClock = .continuous, metrics: MetricsRegistry = MetricsRegistry(),
                logger: Logger = Logger(sink: .standardOutput)) {
        store = nil
        self.clock = clock
        (refused, self.logger) = (Self.refusedCounter(metrics), logger)
    }

    /// Signals across instances through `store`'s outcome messages.
    public init(store: any RefreshStore, clock: RefreshClock = .continuous, metrics: MetricsRegistry = MetricsRegistry(),
                logger: Logger = Logger(sink: .standardOutput)) {
        self.store = store
        self.clock = clock
        (refused, self.logger) = (Self.refusedCounter(metrics), logger)
    }

    private static func refusedCounter(_ metrics: MetricsRegistry) -> Counter {
        metrics.counter("bff_refresh_outcomes_refused_total",
                        help: "Refresh outcomes read from Redis and refused: malformed, or not authenticated by the session's key.",
                        labels: ["source"])
    }

    /// Listens to the store's outcome messages in the background.
    public func start() {
        guard let store else { return }
        let task = Task.detached { [weak self] in
            let messages = await store.outcomeMessages()
            // Closed while subscribing: `close` may have run before the
            // subscription opened, so close it again rather than listen.
            if Task.isCancelled { return await store.close() }
            for await message in messages {
                guard let self else { return }
                self.deliver(message)
            }
        }
        listener.withLock { $0 = task }
    }

    /// Stops listening and closes the store's subscription.
    public func close() async {
        listener.withLock { $0 }?.cancel()
        await store?.close()
    }

    /// Tells every waiter for `lockName`, here and elsewhere, that the
    /// refresh ended with `outcome`, tagged with the session's `key`. Best
    /// effort: a lost message only makes waiters find out by polling.
    func publish(_ lockName: String, _ outcome: RefreshSignal, key: MACKey) async {
        let message = outcome.message(lockName: lockName, key: key)
        if let store, (try? await store.publish(message, about: lockName)) != nil { return }
        deliver(message)   // no store (or it failed): at least this instance's waiters
    }

    /// Registers interest in `lockName` before its state is checked, so
    /// a signal sent in between is not missed; only signals tagged with
    /// `key` (the session's) reach it. Call `cancel` when done.
    func waiter(for lockName: String, key: MACKey) -> Waiter {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let waiter = Waiter(key: key, clock: clock) { [weak self] in
            self?.waiters.withLock { table in
                table[lockName]?[id] = nil
                if table[lockName]?.isEmpty == true { table[lockName] = nil }
            }
        }
        waiters.withLock { $0[lockName, default: [:]][id] = waiter }
        return waiter
    }

    /// How many requests of this instance wait for `lockName`'s outcome now.
    public func waiterCount(for lockName: String) -> Int {
        waiters.withLock { $0[lockName]?.count ?? 0 }
    }

    private func deliver(_ message: [UInt8]) {
        guard let (lockName, rest) = RefreshSignal.lockName(of: message) else { return refuse("message", size: message.count) }
        let targets = waiters.withLock { $0[lockName].map { Array($0.values) } ?? [] }
        // Every waiter for one lock name serves the same session (the name
        // is derived from its cookie), so they share one key.
        guard let key = targets.first?.key else { return }
        guard let signal = RefreshSignal(messageRest: rest, lockName: lockName, key: key) else {
            return refuse("message", size: message.count)
        }
        for waiter in targets { waiter.fire(signal) }
    }

    /// Counts and logs an outcome read from Redis and refused (`source`:
    /// `message` or `record`); its content is never logged.
    func refuse(_ source: StaticString, size: Int) {
        refused.increment(["\(source)"])
        logger.warning("refresh.outcome_refused", ["source": .string("\(source)"), "bytes": .int(size)])
    }

    /// One request's wait for a refresh signal.
    final class Waiter: Sendable {
        private enum State {
            case idle
            case waiting(CheckedContinuation<RefreshSignal?, Never>)
            case fired(RefreshSignal)
            /// The timer ran out before `next` started to wait.
            case timedOut
        }

        private let state = Mutex<State>(.idle)
        private let onCancel: @Sendable () -> Void
        /// The session's key, which every signal for it must be tagged with.
        let key: MACKey
        private let clock: RefreshClock

        init(key: MACKey, clock: RefreshClock, onCancel: @escaping @Sendable () -> Void) {
            self.key = key
            self.clock = clock
            self.onCancel = onCancel
        }

        /// The next signal, or nil after `timeout`.
        func next(timeout: Duration) async -> RefreshSignal? {
            let timer = Task { [weak self, clock] in
                guard (try? await clock.sleep(for: timeout)) != nil else { return }   // cancelled: no wake-up
                self?.timeOut()
            }
            defer { timer.cancel() }
            return await withCheckedContinuation { continuation in
                let ready: RefreshSignal?? = state.withLock { state in
                    switch state {
                    case .fired(let signal):
                        state = .idle
                        return .some(signal)
                    case .timedOut:
                        state = .idle
                        return .some(nil)
                    case .idle, .waiting:
                        state = .waiting(continuation)
                        return .none
                    }
                }
                if case .some(let signal) = ready { continuation.resume(returning: signal) }
            }
        }

        func fire(_ signal: RefreshSignal) {
            let continuation: CheckedContinuation<RefreshSignal?, Never>? = state.withLock { state in
                if case .waiting(let continuation) = state {
                    state = .idle
                    return continuation
                }
                state = .fired(signal)
                return nil
            }
            continuation?.resume(returning: signal)
        }

        /// The timer's end: wakes `next`, or, when it has not started to
        /// wait yet (a stalled thread), makes it return at once.
        func timeOut() {
            let continuation: CheckedContinuation<RefreshSignal?, Never>? = state.withLock { state in
                switch state {
                case .waiting(let continuation):
                    state = .idle
                    return continuation
                case .idle:
                    state = .timedOut
                    return nil
                case .fired, .timedOut:
                    return nil
                }
            }
            continuation?.resume(returning: nil)
        }

        func cancel() { onCancel() }
    }
}
