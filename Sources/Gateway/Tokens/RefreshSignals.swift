import Core
import HTTP
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
/// A message is `<lock name> <outcome word> [<rest>]`; lock names are
/// derived from the cookie one way and safe to send.
public final class RefreshSignals: Sendable {
    /// The one channel every instance listens on.
    static let channel = Array("bff:refreshed".utf8)

    private let redis: RedisClient?
    private let subscriber: RedisSubscriber?
    private let waiters = Mutex<[String: [UInt64: Waiter]]>([:])
    private let nextID = Atomic<UInt64>(1)
    private let listener = Mutex<Task<Void, Never>?>(nil)

    /// Signals within this process only (tests, single-instance runs).
    public init() {
        redis = nil
        subscriber = nil
    }

    /// Signals across instances through `redis`; `subscriber` is a
    /// dedicated connection for the subscription.
    public init(redis: RedisClient, subscriber: RedisSubscriber) {
        self.redis = redis
        self.subscriber = subscriber
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
    /// refresh ended with `outcome`. Best effort: a lost message only makes
    /// waiters find out by polling.
    func publish(_ lockName: String, _ outcome: RefreshSignal) async {
        let message = Array((lockName + " " + outcome.encoded).utf8)
        if let redis, (try? await redis.publish(Self.channel, message)) != nil { return }
        deliver(message)   // no Redis (or it failed): at least this instance's waiters
    }

    /// Registers interest in `lockName` before its state is checked, so
    /// a signal sent in between is not missed. Call `cancel` when done.
    func waiter(for lockName: String) -> Waiter {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let waiter = Waiter { [weak self] in
            self?.waiters.withLock { table in
                table[lockName]?[id] = nil
                if table[lockName]?.isEmpty == true { table[lockName] = nil }
            }
        }
        waiters.withLock { $0[lockName, default: [:]][id] = waiter }
        return waiter
    }

    private func deliver(_ message: [UInt8]) {
        let text = String(decoding: message, as: UTF8.self)
        guard let space = text.firstIndex(of: " ") else { return }
        let lockName = String(text[..<space])
        guard let signal = RefreshSignal(encoded: text[text.index(after: space)...]) else { return }
        let targets = waiters.withLock { $0[lockName].map { Array($0.values) } ?? [] }
        for waiter in targets { waiter.fire(signal) }
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

        init(onCancel: @escaping @Sendable () -> Void) {
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

/// How a refresh ended, as its waiters learn it.
enum RefreshSignal: Sendable, Equatable {
    /// New tokens are in the session record.
    case refreshed
    /// The session ended (Modgud refused the refresh token).
    case ended
    /// Modgud answered 429: waiters answer with the same 429 (its
    /// Retry-After, RateLimit-* and Content-Type fields and its body)
    /// rather than ask again.
    case rateLimited(headers: HTTPHeaders, body: [UInt8])
    /// Modgud could not be asked or did not answer; the session stays.
    case unavailable

    /// One line of text: `refreshed`, `ended`, `unavailable`, or
    /// `rate_limited {"headers":[[name,value],…],"body":"…"}`.
    var encoded: String {
        switch self {
        case .refreshed: "refreshed"
        case .ended: "ended"
        case .rateLimited(let headers, let body):
            "rate_limited " + JSON.object([
                "headers": .array(headers.map { .array([.string($0.name), .string($0.value)]) }),
                "body": .string(String(decoding: body, as: UTF8.self)),
            ]).serializedString
        case .unavailable: "unavailable"
        }
    }

    init?(encoded text: Substring) {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        switch parts.first {
        case "refreshed": self = .refreshed
        case "ended": self = .ended
        case "unavailable": self = .unavailable
        case "rate_limited":
            guard parts.count == 2, let json = try? JSON.parse(String(parts[1])),
                  let fields = json["headers"]?.arrayValue, let body = json["body"]?.stringValue else { return nil }
            var headers = HTTPHeaders()
            for field in fields {
                guard let pair = field.arrayValue, pair.count == 2, let name = pair[0].stringValue,
                      let value = pair[1].stringValue else { return nil }
                headers.add(name, value)
            }
            self = .rateLimited(headers: headers, body: Array(body.utf8))
        default: return nil
        }
    }
}
