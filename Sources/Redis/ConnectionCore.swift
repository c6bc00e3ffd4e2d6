import Core
import System

/// Told about a core's connection: the subscriber uses it to subscribe
/// again after every reconnect.
protocol ConnectionCoreObserver: AnyObject {
    func coreDidBecomeReady(_ context: HiredisContext)
    func coreDidLoseConnection()
    func core(didReceivePush value: RedisValue)
}

/// The loop-confined state machine behind a ``RedisConnection`` or
/// ``RedisSubscriber``: connect, handshake (`AUTH`, `SELECT`), command
/// timeouts and reconnecting with back-off. Only its loop's thread touches it.
///
/// ```
/// idle ─start→ resolving ─→ connecting ─handshake ok→ ready
///                 ↑            │ fails / times out      │ drops / times out
///                 └─ waiting (back-off timer) ←─────────┘
/// any ─close→ closed
/// ```
final class ConnectionCore: HiredisContextDelegate {
    enum Phase {
        case idle
        case resolving
        case connecting(HiredisContext)
        case ready(HiredisContext)
        case waiting(timer: UInt64)
        case closed
    }

    let configuration: RedisConfiguration
    let loop: EventLoop
    let status: ConnectionStatus
    weak var observer: (any ConnectionCoreObserver)?
    private(set) var phase: Phase = .idle
    /// Failed attempts since the last ready connection, for the back-off.
    private var failedAttempts = 0
    private var handshakeRemaining = 0
    /// Why the current context is being dropped, when we drop it.
    private var dropReason: RedisConnectionFailure?
    /// Set when the observer refused a ready connection (its own set-up
    /// failed): the drop counts as a failed attempt, so the back-off grows
    /// instead of reconnecting at the shortest delay forever.
    private var refusedByObserver = false
    var timeoutTimer: UInt64?
    var timeoutTimerDeadline: UInt64 = 0
    var readyWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    var nextWaiter: UInt64 = 1

    init(configuration: RedisConfiguration, loop: EventLoop, status: ConnectionStatus) {
        self.configuration = configuration
        self.loop = loop
        self.status = status
    }

    /// The context commands may be sent on, when ready.
    var readyContext: HiredisContext? {
        if case .ready(let context) = phase { return context }
        return nil
    }

    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    var currentContext: HiredisContext? {
        switch phase {
        case .connecting(let context), .ready(let context): context
        default: nil
        }
    }

    func start() {
        guard case .idle = phase else { return }
        connect()
    }

    // MARK: Connecting

    private func connect() {
        let host = configuration.host
        if host.lowercased() == "localhost" {
            open("127.0.0.1")
        } else if let address = IPAddress(host) {
            open(address.description)
        } else {
            phase = .resolving
            let confined = LoopBound(self, loop: loop)
            NameResolver.resolve(host) { result in
                confined.withValue { $0.didResolve(result.map(\.description).mapError { .resolve($0.description) }) }
            }
        }
    }

    private func didResolve(_ result: Result<String, RedisConnectionFailure>) {
        guard case .resolving = phase else { return }
        switch result {
        case .success(let address): open(address)
        case .failure(let failure): attemptFailed(failure)
        }
    }

    private func open(_ address: String) {
        let context: HiredisContext
        switch HiredisContext.connect(address: address, port: configuration.port, loop: loop) {
        case .failure(let failure):
            attemptFailed(failure)
            return
        case .success(let opened):
            context = opened
        }
        context.delegate = self
        phase = .connecting(context)
        let deadline = MonotonicClock.now() &+ configuration.connectTimeout.nanoseconds
        let steps = handshake()
        handshakeRemaining = steps.count
        for (step, arguments) in steps where !context.issue(RESPCommand.encode(arguments), waiter: .handshake(step), deadline: deadline) {
            context.close()
            return
        }
        armTimeoutTimer(for: deadline)
    }

    /// `AUTH` and `SELECT` as configured, or a `PING` when neither is needed,
    /// so that readiness always means the server answered.
    private func handshake() -> [(HandshakeStep, [[UInt8]])] {
        var steps: [(HandshakeStep, [[UInt8]])] = []
        if let password = configuration.password {
            var arguments: [[UInt8]] = [Array("AUTH".utf8)]
            if let username = configuration.username { arguments.append(Array(username.utf8)) }
            arguments.append(Array(password.revealed.utf8))
            steps.append((.auth, arguments))
        }
        if configuration.database != 0 {
            steps.append((.select, [Array("SELECT".utf8), Array(String(configuration.database).utf8)]))
        }
        if steps.isEmpty { steps.append((.ping, [Array("PING".utf8)])) }
        return steps
    }

    func context(_ context: HiredisContext, handshake step: HandshakeStep, didReply result: Result<RedisValue, RedisError>) {
        guard case .connecting(let current) = phase, current === context else { return }
        switch result {
        case .failure:
            // A timeout or a lost connection: the timer or contextDidClose handles it.
            return
        case .success(.error(let text)):
            switch step {
            case .auth: dropReason = .authentication(text)
            case .select: dropReason = .selectDatabase(text)
            case .ping: dropReason = .handshake(text)
            }
            context.close()
        case .success:
            handshakeRemaining -= 1
            if handshakeRemaining == 0 { becomeReady(context) }
        }
    }

    private func becomeReady(_ context: HiredisContext) {
        phase = .ready(context)
        // `failedAttempts` is reset when a ready connection drops, not here:
        // a connection its observer refuses right after the handshake keeps
        // counting towards the back-off.
        status.becameReady()
        resumeReadyWaiters(true)
        observer?.coreDidBecomeReady(context)
    }

    // MARK: Losing the connection

    func contextDidClose(_ context: HiredisContext, error: String?) {
        let wasReady: Bool
        switch phase {
        case .connecting(let current) where current === context: wasReady = false
        case .ready(let current) where current === context: wasReady = true
        default: return
        }
        cancelTimeoutTimer()
        let reason = dropReason ?? (wasReady ? .connectionLost(error ?? "closed") : .connect(error ?? "closed during the handshake"))
        dropReason = nil
        if wasReady, refusedByObserver {
            refusedByObserver = false
            observer?.coreDidLoseConnection()
            attemptFailed(reason)
        } else if wasReady {
            failedAttempts = 0
            status.notReady(because: reason)
            observer?.coreDidLoseConnection()
            attemptFailed(nil)
        } else {
            attemptFailed(reason)
        }
    }

    /// Records a failed attempt and waits before the next one.
    private func attemptFailed(_ failure: RedisConnectionFailure?) {
        if isClosed { return }
        if let failure { status.notReady(because: failure) }
        failedAttempts += 1
        let delay = Self.backoff(attempt: failedAttempts, range: configuration.reconnectBackoff)
        let timer = loop.schedule(after: delay) { self.reconnectTimerFired() }
        phase = .waiting(timer: timer)
    }

    private func reconnectTimerFired() {
        guard case .waiting = phase else { return }
        connect()
    }

    /// Exponential back-off with jitter: `lower × 2^(attempt−1)`, capped at
    /// `upper`, minus a random part of up to half of it.
    static func backoff(attempt: Int, range: ClosedRange<Duration>) -> Duration {
        let lower = Double(range.lowerBound.nanoseconds), upper = Double(range.upperBound.nanoseconds)
        let base = min(upper, lower * Double(1 << min(max(attempt - 1, 0), 30)))
        return .nanoseconds(Int64(base * Double.random(in: 0.5...1.0)))
    }

    /// Drops the ready connection because the observer's own set-up on it
    /// failed (`reason` says which step): reconnects with a growing back-off.
    func refuse(_ context: HiredisContext, because reason: RedisConnectionFailure) {
        guard readyContext === context else { return }
        dropReason = reason
        refusedByObserver = true
        context.close()
    }

    /// Drops the current context because a command timed out: the oldest
    /// command fails with `.timedOut`, the others with `.connectionLost`.
    func dropForTimeout() {
        guard let context = currentContext else { return }
        if case .connecting = phase { dropReason = .connectTimedOut } else { dropReason = .commandTimedOut }
        status.notReady(because: dropReason)
        context.failPending(first: .timedOut, rest: .connectionLost)
        context.close()
    }

    // MARK: Closing

    /// Frees the context (pending commands fail with `.connectionLost`),
    /// cancels timers and stops reconnecting. Idempotent.
    func close() {
        let previous = phase
        if case .closed = previous { return }
        phase = .closed
        status.notReady(because: nil)
        cancelTimeoutTimer()
        switch previous {
        case .connecting(let context), .ready(let context): context.close()
        case .waiting(let timer): loop.cancelTimer(timer)
        default: break
        }
        resumeReadyWaiters(false)
    }

    func context(_ context: HiredisContext, didReceivePush value: RedisValue) {
        guard case .ready(let current) = phase, current === context else { return }
        observer?.core(didReceivePush: value)
    }
}
