import Core
import HTTPCodec
import System

/// One of the client's own HTTP/1.1 connections to a plain-HTTP upstream,
/// on one event loop: it carries one exchange at a time, and between
/// exchanges waits in its pool, still watched, so a server's close is
/// noticed at once. The socket stays registered for reading the whole
/// time (no epoll change per request); writability is asked for only while
/// a write is blocked, and reading stops only while the body's reader is
/// behind.
///
/// Its state (stage, the request's and the answer's progress, the
/// watchdog) is `state.machine`; this class performs what the machine answers
/// on the socket, the buffers and the exchange.
///
/// Loop-confined: every method runs on the pool's loop thread. Reading
/// and delivering the answer is in UpstreamConnection+Receiving.swift.
final class UpstreamConnection: EventLoopHandler {
    let pool: UpstreamPool
    let endpoint: String
    /// Where this connection waits between exchanges: its endpoint's list,
    /// held here so that going back to the pool hashes nothing.
    let idleList: IdleList
    /// The machine, the exchange and the bytes in flight (see `State`).
    ///
    /// `@exclusivity(unchecked)`: loop-confined, and no access to it is
    /// held across a call that could reach it again: the machine's methods
    /// and the decoder's are value code that calls nothing outside them (no
    /// closure, no reference); the buffers are changed by appends, by
    /// `write(2)` from them and by being replaced (`pending` is taken out
    /// before what it holds is processed); and the exchange is replaced
    /// only while the code detaching it holds it, so no deinit runs inside
    /// an access. The run-time check, a dozen per request, could never
    /// fire (see EventLoop).
    @exclusivity(unchecked) var state = State()
    var fd: Int32 = -1
    var registration: Registration?
    var interest: EpollEvents = []
    /// When it last went back to the pool (loop time).
    var idleSince: UInt64 = 0
    /// `EventLoop.passes` when it went idle (see `UpstreamPool.takeIdle`).
    var idlePass: UInt64 = 0

    // Sending: `state.outbound[outboundOffset...]` is not sent yet.
    var outboundOffset = 0
    // Receiving.
    var remaining = 0
    var receivedBytes = 0

    init(pool: UpstreamPool, endpoint: String, idleList: IdleList) {
        self.pool = pool
        self.endpoint = endpoint
        self.idleList = idleList
    }

    // MARK: Opening

    /// Resolves the host, connects, then sends `exchange`.
    func open(for exchange: UpstreamExchange, connectTimeout: Duration) {
        attach(exchange)
        let (pool, id) = (pool, exchange.id)
        pool.loop.schedule(after: connectTimeout) { pool.state.running[id]?.connectTimerFired() }
        let host = exchange.target.host
        if let literal = host.lowercased() == "localhost" ? IPAddress.v4(0x7F00_0001) : IPAddress(host) {
            return connect(to: literal, port: exchange.target.port)
        }
        let port = exchange.target.port
        let bound = LoopBound(pool, loop: pool.loop)
        NameResolver.resolve(host) { result in
            bound.later { $0.state.running[id]?.resolved(result, port: port) }
        }
    }

    private func resolved(_ result: Result<IPAddress, NameResolutionError>, port: UInt16) {
        guard state.machine.stage == .resolving else { return }
        switch result {
        case .success(let address): connect(to: address, port: port)
        case .failure: fail(.connectFailed)
        }
    }

    private func connect(to address: IPAddress, port: UInt16) {
        do {
            let (fd, inProgress) = try Socket.connect(to: SocketAddress(ip: address, port: port))
            self.fd = fd
            state.machine.connecting(inProgress: inProgress)
            interest = inProgress ? [.writable] : [.readable, .readHangup]
            registration = try pool.loop.register(fd, for: interest, handler: self)
        } catch {
            return fail(.connectFailed)
        }
        if state.machine.stage == .exchanging { sendMore() }
    }

    private func connectTimerFired() {
        guard state.machine.isOpening else { return }
        fail(.timedOut(requestSent: false))
    }

    private func connected() {
        guard Socket.pendingError(fd) == 0 else { return fail(.connectFailed) }
        state.machine.connected()
        sendMore()
    }

    // MARK: Exchanges

    /// Sends `exchange` on this (open, idle) connection.
    func begin(_ exchange: UpstreamExchange) {
        attach(exchange)
        sendMore()
    }

    private func attach(_ exchange: UpstreamExchange) {
        self.state.exchange = exchange
        pool.state.running[exchange.id] = self
        pool.stats.activeTransfers.add(1, ordering: .relaxed)
        let deadline = pool.loop.now &+ exchange.idleTimeout
        if state.machine.attach(hasUpload: exchange.upload != nil, deadline: deadline) { armWatchdog(after: exchange.idleTimeout) }
        state.outbound = exchange.head
        outboundOffset = 0
        state.response = nil
        state.decoder = ChunkedDecoder()
        receivedBytes = 0
    }

    // MARK: Events

    func handleEvents(_ events: EpollEvents) {
        switch state.machine.stage {
        case .connecting:
            connected()
        case .idle:
            // An idle connection has nothing to read: the server closed
            // it, or broke the protocol. Either way it is done.
            close()
        case .exchanging:
            if state.machine.isReceivePaused {
                // Not reading, and epoll cannot mask these: reported on every
                // pass, they would spin the loop until the reader catches up.
                if !events.isDisjoint(with: [.hangup, .error]) { stopWatching() }
            } else if !events.isDisjoint(with: [.readable, .hangup, .error, .readHangup]) {
                readAvailable()
            }
            if events.contains(.writable), state.machine.stage != .closed { sendMore() }
        case .resolving, .closed:
            break
        }
    }

    // MARK: Sending

    /// Writes what is queued, then the body as its source provides it,
    /// until the socket or the source has to be waited for.
    private func sendMore() {
        guard let exchange = state.exchange, state.machine.mayWrite else { return }
        while true {
            if outboundOffset < state.outbound.count {
                let result = state.outbound.withUnsafeBytes { all in
                    Socket.write(fd, from: UnsafeRawBufferPointer(rebasing: all[outboundOffset...]))
                }
                switch result {
                case .done(let count):
                    outboundOffset += count
                    exchange.lastProgress = pool.loop.now
                    continue
                case .wouldBlock:
                    return updateInterest()
                case .closed, .failed:
                    // The reply (or the close) is read next; a server may
                    // answer early and stop reading the body.
                    state.machine.sendFailed()
                    state.outbound = []
                    outboundOffset = 0
                    return updateInterest()
                }
            }
            // Without an upload, `outbound` still shares the exchange's head:
            // let go of it rather than copy it to keep its capacity.
            if exchange.upload == nil { state.outbound = [] } else { state.outbound.removeAll(keepingCapacity: true) }
            outboundOffset = 0
            if state.machine.queueEmptied() { return updateInterest() } // the whole request has left
            guard let upload = exchange.upload, state.machine.mayReadUpload else { return updateInterest() }
            switch upload.read(into: pool.uploadBuffer) {
            case .bytes(let count):
                let piece = UnsafeRawBufferPointer(rebasing: pool.uploadBuffer[..<count])
                if exchange.chunked {
                    state.outbound.append(contentsOf: String(count, radix: 16).utf8)
                    state.outbound.append(contentsOf: "\r\n".utf8)
                    state.outbound.append(contentsOf: piece)
                    state.outbound.append(contentsOf: "\r\n".utf8)
                } else {
                    state.outbound.append(contentsOf: piece)
                }
            case .pause:
                state.machine.uploadPaused()
                return updateInterest()
            case .end:
                if exchange.chunked { state.outbound.append(contentsOf: "0\r\n\r\n".utf8) }
                state.machine.uploadEnded()
            case .failed:
                return fail(.requestBodyFailed)
            }
        }
    }

    /// The body's source has a piece again.
    func uploadReadable() {
        if state.machine.uploadReadable() { sendMore() }
    }

    // MARK: The end

    /// The response has been read whole.
    /// A server that answered before the whole request was sent (an early
    /// 413, say) leaves the connection unusable; so do bytes past the end,
    /// and a socket that failed or hung up while reading was paused.
    func complete(extraBytes: Bool) {
        guard let exchange = state.exchange, let response = state.response else { return }
        let reusable = state.machine.completed(keepAlive: response.keepAlive, extraBytes: extraBytes, watched: registration != nil)
        detach()
        exchange.channel?.finish(.success(()))
        if reusable {
            pool.release(self)
        } else {
            close()
        }
    }

    /// Ends the exchange with `error` and closes the connection, whose
    /// state is no longer known.
    func fail(_ error: HTTPClientError) {
        abort(error)
        close()
    }

    /// Reports `error` to whoever waits for the exchange, and lets it go.
    private func abort(_ error: HTTPClientError) {
        guard let exchange = state.exchange else { return }
        detach()
        pool.stats.failures.add(1, ordering: .relaxed)
        exchange.fail(error)
    }

    /// Lets go of the exchange: it is no longer running here.
    func detach() {
        guard let exchange = state.exchange else { return }
        self.state.exchange = nil
        pool.state.running[exchange.id] = nil
        pool.stats.activeTransfers.subtract(1, ordering: .relaxed)
        exchange.stopUpload()
        state.pending = []
        state.machine.detach()
    }

    /// The timer holds the connection until its deadline (a weak
    /// reference would put every retain of it on the slow path).
    private func armWatchdog(after delay: UInt64) {
        let generation = state.machine.watchdogArmed(deadline: pool.loop.now &+ delay)
        pool.loop.schedule(after: .nanoseconds(Int64(delay))) { [self] in watchdogFired(generation) }
    }

    /// The exchange's idle timeout: nothing moved for `idleTimeout` while
    /// neither side of ours held it paused. Idle in the pool, the
    /// connection needs no timer until its next exchange.
    private func watchdogFired(_ generation: UInt64) {
        // Idle (no exchange), the machine has nothing to watch.
        let now = pool.loop.now
        var progress = state.exchange?.lastProgress ?? now
        switch state.machine.watchdogFired(generation, now: now, lastProgress: &progress, idleTimeout: state.exchange?.idleTimeout ?? 0) {
        case .nothing:
            return
        case .timedOut:
            fail(.timedOut(requestSent: state.machine.requestMayHaveArrived))
        case .rearm(let delay):
            state.exchange?.lastProgress = progress
            armWatchdog(after: delay)
        }
    }

    /// Whether nothing waits to be read, checked before the connection
    /// carries another request. Bytes no request asked for (left past a
    /// response that filled the last read, or sent after it) would be
    /// read as the next request's answer: another user's request, on the
    /// API proxy. epoll would report them only on the loop's next pass,
    /// after that request went out, so the socket is asked directly.
    /// An end of stream (the server closed it while idle) counts too.
    var isQuiet: Bool { Socket.isQuiet(fd) }

    /// Whether the loop has watched this idle connection for reads since
    /// before its last wait for events: to queued work (where requests
    /// start), whatever the server sent or did before that wait has been
    /// handled (a close or stray bytes close the connection).
    var watchedSinceTheLastWait: Bool {
        registration != nil && interest.contains(.readable) && idlePass < pool.loop.passes
    }

    /// The socket failed (a reset) or is shut both ways while reading is
    /// paused: out of epoll, which would report that on every pass. What
    /// the kernel still holds (a whole response, perhaps) is read once the
    /// reader catches up (`resumeReceive`), to the reset or the end.
    private func stopWatching() {
        guard let registration else { return }
        pool.loop.deregister(registration, fd: fd)
        self.registration = nil
    }

    func updateInterest() {
        guard state.machine.stage == .exchanging || state.machine.stage == .idle, let registration else { return }
        let wanted = state.machine.interest(outboundPending: outboundOffset < state.outbound.count)
        guard wanted != interest else { return }
        interest = wanted
        pool.loop.modify(registration, fd: fd, for: wanted)
    }

    /// Closes the socket (out of epoll first) and leaves the pool's counts.
    func close() {
        guard state.machine.close() else { return }
        let wasOpen = fd >= 0
        if let registration { pool.loop.deregister(registration, fd: fd) }
        registration = nil
        if wasOpen { Socket.close(fd) }
        fd = -1
        // Closed under a running exchange (shutdown, cancellation): it ends cancelled.
        abort(.cancelled)
        pool.closed(self)
    }
}
