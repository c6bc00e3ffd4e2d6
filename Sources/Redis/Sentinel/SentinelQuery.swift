import Core
import System

/// Asks the sentinels, one after the other, where the master named
/// `masterName` is (`SENTINEL get-master-addr-by-name`), on one loop.
/// Each sentinel gets `timeout` for connect, `AUTH` and the answer; the
/// first address answered wins. Confined to `loop`.
final class SentinelQuery: RedisWireDelegate {
    typealias Completion = (Result<RedisAddress, RedisConnectionFailure>) -> Void

    private let monitor: SentinelSettings
    private let loop: EventLoop
    private var remaining: [RedisAddress]
    private var completion: Completion?
    private var wire: RedisWire?
    /// The sentinel being asked.
    private var current: RedisAddress?
    private var timer: UInt64?
    private var lastProblem = "no sentinel configured"
    /// Counts the sentinels asked, so a late name lookup for one given up
    /// on is ignored.
    private var attempt = 0

    private init(monitor: SentinelSettings, loop: EventLoop, completion: @escaping Completion) {
        self.monitor = monitor
        self.loop = loop
        remaining = monitor.sentinels
        self.completion = completion
    }

    /// Starts the query; `completion` runs once, on `loop`.
    static func run(_ settings: SentinelSettings, on loop: EventLoop, completion: @escaping Completion) {
        SentinelQuery(monitor: settings, loop: loop, completion: completion).next()
    }

    private func next() {
        guard completion != nil else { return }
        guard !remaining.isEmpty else { return finish(.failure(.sentinel(lastProblem))) }
        let sentinel = remaining.removeFirst()
        attempt += 1
        let attempt = attempt
        current = sentinel
        let deadline = MonotonicClock.now() &+ monitor.timeout.nanoseconds
        timer = loop.schedule(after: monitor.timeout) { [self] in
            timer = nil
            lastProblem = "\(sentinel) did not answer in time"
            drop()
        }
        let confined = LoopBound(self, loop: loop)
        NameResolver.resolve(sentinel.host) { result in
            confined.withValue { $0.ask(sentinel, at: result, deadline: deadline, attempt: attempt) }
        }
    }

    private func ask(_ sentinel: RedisAddress, at resolved: Result<IPAddress, NameResolutionError>, deadline: UInt64, attempt: Int) {
        guard completion != nil, attempt == self.attempt else { return }
        guard case .success(let address) = resolved else {
            lastProblem = "\(sentinel.host) could not be resolved"
            return drop()
        }
        switch RedisWire.connect(to: address, port: sentinel.port, host: sentinel.host, security: monitor.security, loop: loop) {
        case .failure(let failure):
            lastProblem = "\(sentinel): \(failure)"
            drop()
        case .success(let wire):
            self.wire = wire
            wire.delegate = self
            if let password = monitor.password {
                var auth = [Array("AUTH".utf8)]
                if let username = monitor.username { auth.append(Array(username.utf8)) }
                auth.append(Array(password.revealed.utf8))
                _ = wire.issue(RESPCommand.encode(auth), waiter: .callback { [self] in authenticated($0, sentinel) }, deadline: deadline)
            }
            let question = RESPCommand.encode([Array("SENTINEL".utf8), Array("get-master-addr-by-name".utf8), Array(monitor.masterName.utf8)])
            _ = wire.issue(question, waiter: .callback { [self] in answered($0, sentinel) }, deadline: deadline)
        }
    }

    private func authenticated(_ result: Result<RedisValue, RedisError>, _ sentinel: RedisAddress) {
        if case .success(.error(let text)) = result {
            lastProblem = "\(sentinel) refused AUTH: \(text)"
            drop()
        }
    }

    private func answered(_ result: Result<RedisValue, RedisError>, _ sentinel: RedisAddress) {
        guard case .success(let reply) = result else { return }
        if case .array(let parts) = reply, parts.count == 2, let host = parts[0].text,
           let port = parts[1].text.flatMap({ Int($0) }), (1...65535).contains(port)
        {
            return finish(.success(RedisAddress(host: host, port: port)))
        }
        lastProblem = reply.isNull ? "\(sentinel) does not know the master \(monitor.masterName)" : "\(sentinel) gave no address"
        drop()
    }

    /// Gives up on the current sentinel and asks the next.
    private func drop() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        let wire = self.wire
        self.wire = nil
        wire?.close()
        next()
    }

    private func finish(_ result: Result<RedisAddress, RedisConnectionFailure>) {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        let wire = self.wire
        self.wire = nil
        wire?.close()
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    // MARK: RedisWireDelegate

    func wire(_ wire: RedisWire, handshake step: HandshakeStep, didReply result: Result<RedisValue, RedisError>) {}

    func wire(_ wire: RedisWire, didReceivePush value: RedisValue) {}

    func wireDidClose(_ wire: RedisWire, error: RedisConnectionFailure?) {
        guard wire === self.wire else { return }
        self.wire = nil
        if let error { lastProblem = "\(current.map(\.description) ?? "a sentinel"): \(error)" }
        loop.schedule(after: .zero) { [self] in drop() }
    }
}
