import Core
import Crypto
import Observability
import Redis
import Synchronization

/// Wakes the requests waiting for a session's refresh when it is done, on
/// this instance and on every other one: the refresher publishes the
/// outcome on one Redis channel, which every instance keeps one
/// subscription to, and each instance hands it to its waiters for that
/// session. Messages can be lost (Redis pub/sub while reconnecting), so a
/// waiter never waits on a signal alone: it also polls the session record
/// (`RefreshCoordinator`), and the signal only cuts the wait short.
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
    /// The one channel every instance listens on.
    static let channel = Array("bff:refreshed".utf8)

    private let redis: RedisClient?
    private let subscriber: RedisSubscriber?
    private let waiters = Mutex<[String: [UInt64: Waiter]]>([:])
    private let nextID = Atomic<UInt64>(1)
    private let listener = Mutex<Task<Void, Never>?>(nil)
    private let refused: Counter
    private let logger: Logger

    /// Signals within this process only (tests, single-instance runs).
    public init(metrics: MetricsRegistry = MetricsRegistry(), logger: Logger = Logger(sink: .standardOutput)) {
        redis = nil
        subscriber = nil
        (refused, self.logger) = (Self.refusedCounter(metrics), logger)
    }

    /// Signals across instances through `redis`; `subscriber` is a
    /// dedicated connection for the subscription.
    public init(redis: RedisClient, subscriber: RedisSubscriber, metrics: MetricsRegistry = MetricsRegistry(),
                logger: Logger = Logger(sink: .standardOutput)) {
        self.redis = redis
        self.subscriber = subscriber
        (refused, self.logger) = (Self.refusedCounter(metrics), logger)
    }

    private static func refusedCounter(_ metrics: MetricsRegistry) -> Counter {
        metrics.counter("bff_refresh_outcomes_refused_total",
                        help: "Refresh outcomes read from Redis and refused: malformed, or not authenticated by the session's key.",
                        labels: ["source"])
    }

    /// Connects and subscribes in the background.
    public func start() {
        guard let subscriber else { return }
        subscriber.start()
        let task = Task.detached { [weak self] in
            let messages = await subscriber.subscribe(Self.channel, bufferingNewest: 4096)
            for await message in messages {
                guard let self else { return }
                self.deliver(message)
            }
        }
        listener.withLock { $0 = task }
    }

    /// Stops listening and closes the subscription.
    public func close() async {
        listener.withLock { $0 }?.cancel()
        await subscriber?.close()
    }

    /// Tells every waiter for `lockName`, here and elsewhere, that the
    /// refresh ended with `outcome`, tagged with the session's `key`. Best
    /// effort: a lost message only makes waiters find out by polling.
    func publish(_ lockName: String, _ outcome: RefreshSignal, key: MACKey) async {
        let message = outcome.message(lockName: lockName, key: key)
        if let redis, (try? await redis.publish(Self.channel, message)) != nil { return }
        deliver(message)   // no Redis (or it failed): at least this instance's waiters
    }

    /// Registers interest in `lockName` before its state is checked, so
    /// a signal sent in between is not missed; only signals tagged with
    /// `key` (the session's) reach it. Call `cancel` when done.
    func waiter(for lockName: String, key: MACKey) -> Waiter {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let waiter = Waiter(key: key) { [weak self] in
            self?.waiters.withLock { table in
                table[lockName]?[id] = nil
                if table[lockName]?.isEmpty == true { table[lockName] = nil }
            }
        }
        waiters.withLock { $0[lockName, default: [:]][id] = waiter }
        return waiter
    }

    /// How many requests of this instance wait for `lockName`'s outcome now.
    func waiterCount(for lockName: String) -> Int {
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

        init(key: MACKey, onCancel: @escaping @Sendable () -> Void) {
            self.key = key
            self.onCancel = onCancel
        }

        /// The next signal, or nil after `timeout`.
        func next(timeout: Duration) async -> RefreshSignal? {
            let timer = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }   // cancelled: no wake-up
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
