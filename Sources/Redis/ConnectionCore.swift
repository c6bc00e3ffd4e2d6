import Core
import System

/// Told about a core's connection: the subscriber uses it to subscribe
/// again after every reconnect.
protocol ConnectionCoreObserver: AnyObject {
    func coreDidBecomeReady(_ context: RedisWire)
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
final class ConnectionCore: RedisWireDelegate {
    enum Phase {
        case idle
        case resolving
        case connecting(RedisWire)
        case ready(RedisWire)
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
    /// The address of the current (or last) wire, as an IP literal.
    var target: RedisAddress?
    /// The Sentinel monitor's registration of this core, while started.
    var masterObserver: UInt64?
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
    var readyContext: RedisWire? {
        if case .ready(let context) = phase { return context }
        return nil
    }

    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    var currentContext: RedisWire? {
        switch phase {
        case .connecting(let context), .ready(let context): context
        default: nil
        }
    }

    func start() {
        guard case .idle = phase else { return }
        if let monitor = configuration.sentinel {
            let confined = LoopBound(self, loop: loop)
            masterObserver = monitor.observe { address in confined.withValue { $0.masterMoved(to: address) } }
        }
        connect()
    }

    // MARK: Connecting

    /// Connects to the configured host; with Sentinel, to the master the
    /// sentinels name; with Cluster, to the seeds in turn, one per attempt.
    private func connect() {
        if let seeds = configuration.cluster, !seeds.isEmpty {
            let seed = seeds[failedAttempts % seeds.count]
            return resolveAndOpen(seed.host, port: seed.port)
        }
        guard let monitor = configuration.sentinel else { return resolveAndOpen(configuration.host, port: configuration.port) }
        phase = .resolving
        monitor.lookUp(on: loop) { [self] result in
            guard case .resolving = phase else { return }
            switch result {
            case .success(let master): resolveAndOpen(master.host, port: master.port)
            case .failure(let failure): attemptFailed(failure)
            }
        }
    }

    private func resolveAndOpen(_ host: String, port: Int) {
        if host.lowercased() == "localhost" {
            open(.v4(0x7F00_0001), port: port, host: host)
        } else if let address = IPAddress(host) {
            open(address, port: port, host: host)
        } else {
            phase = .resolving
            let confined = LoopBound(self, loop: loop)
            NameResolver.resolve(host) { result in
                confined.withValue { $0.didResolve(result.mapError { .resolve($0.description) }, port: port, host: host) }
            }
        }
    }

    private func didResolve(_ result: Result<IPAddress, RedisConnectionFailure>, port: Int, host: String) {
        guard case .resolving = phase else { return }
        switch result {
        case .success(let address): open(address, port: port, host: host)
        case .failure(let failure): attemptFailed(failure)
        }
    }

    private func open(_ address: IPAddress, port: Int, host: String) {
        let context: RedisWire
        target = RedisAddress(host: address.description, port: port)
        switch RedisWire.connect(to: address, port: port, host: host, security: configuration.security, loop: loop) {
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
        if configuration.sentinel != nil { steps.append((.role, [Array("ROLE".utf8)])) }
        if steps.isEmpty { steps.append((.ping, [Array("PING".utf8)])) }
        return steps
    }

    func wire(_ context: RedisWire, handshake step: HandshakeStep, didReply result: Result<RedisValue, RedisError>) {
        guard case .connecting(let current) = phase, current === context else { return }
        switch result {
        case .failure:
            // A timeout or a lost connection: the timer or contextDidClose handles it.
            return
        case .success(.error(let text)):
            switch step {
            case .auth: dropReason = .authentication(text)
            case .select: dropReason = .selectDatabase(text)
            case .ping, .role: dropReason = .handshake(text)
            }
            context.close()
        case .success(let reply) where step == .role && reply.array?.first?.text != "master":
            dropReason = .notMaster(reply.array?.first?.text ?? "unknown")
            context.close()
        case .success:
            handshakeRemaining -= 1
            if handshakeRemaining == 0 { becomeReady(context) }
        }
    }

    private func becomeReady(_ context: RedisWire) {
        phase = .ready(context)
        // `failedAttempts` is reset when a ready connection drops, not here:
        // a connection its observer refuses right after the handshake keeps
        // counting towards the back-off.
        status.becameReady()
        resumeReadyWaiters(true)
        observer?.coreDidBecomeReady(context)
    }

    // MARK: Losing the connection

    func wireDidClose(_ context: RedisWire, error: RedisConnectionFailure?) {
        let wasReady: Bool
        switch phase {
        case .connecting(let current) where current === context: wasReady = false
        case .ready(let current) where current === context: wasReady = true
        default: return
        }
        cancelTimeoutTimer()
        let reason = dropReason ?? Self.reason(error, wasReady: wasReady)
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

    /// What a closed wire means for the status: a connection lost before it
    /// was ready counts as a failed connect.
    private static func reason(_ error: RedisConnectionFailure?, wasReady: Bool) -> RedisConnectionFailure {
        switch error {
        case .connectionLost(let text) where !wasReady: .connect(text)
        case .some(let error): error
        case nil: wasReady ? .connectionLost("closed") : .connect("closed during the handshake")
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
    func refuse(_ context: RedisWire, because reason: RedisConnectionFailure) {
        guard readyContext === context else { return }
        dropReason = reason
        refusedByObserver = true
        context.close()
    }

    /// Drops a connection to a server that is no longer the master.
    func dropForMasterChange(_ context: RedisWire, _ why: String) {
        dropReason = .connectionLost(why)
        context.close()
    }

    /// Ends a back-off wait early.
    func reconnectNow() {
        guard case .waiting = phase else { return }
        connect()
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
        if let masterObserver { configuration.sentinel?.stopObserving(masterObserver) }
        masterObserver = nil
        status.notReady(because: nil)
        cancelTimeoutTimer()
        switch previous {
        case .connecting(let context), .ready(let context): context.close()
        case .waiting(let timer): loop.cancelTimer(timer)
        default: break
        }
        resumeReadyWaiters(false)
    }

    func wireSawReadOnly(_ context: RedisWire) {
        sawReadOnly(on: context)
    }

    func wire(_ context: RedisWire, didReceivePush value: RedisValue) {
        guard case .ready(let current) = phase, current === context else { return }
        observer?.core(didReceivePush: value)
    }
}
