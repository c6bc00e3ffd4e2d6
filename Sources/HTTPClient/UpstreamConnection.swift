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
/// watchdog) is `machine`; this class performs what the machine answers
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
    /// The connection's state, changed only through its events.
    /// `@exclusivity(unchecked)`: the machine's methods are value code that
    /// calls nothing outside it (no closure, no reference), so no access to
    /// `machine` can begin while another is under way; the run-time check,
    /// one per event and per read, could never fire (see EventLoop).
    @exclusivity(unchecked) var machine = UpstreamConnectionMachine()
    var fd: Int32 = -1
    var registration: Registration?
    var interest: EpollEvents = []
    /// When it last went back to the pool (loop time).
    var idleSince: UInt64 = 0
    /// `EventLoop.passes` when it went idle (see `UpstreamPool.takeIdle`).
    var idlePass: UInt64 = 0

    // `exchange`, `outbound`, `pending`, `response`, `decoder` are
    // `@exclusivity(unchecked)`: loop-confined, and replaced only while
    // the old value is held elsewhere (the exchange, by the code detaching
    // it) or holds bytes alone, so no deinit runs inside the access; the
    // run-time check, a dozen per request, could never fire (see EventLoop).
    @exclusivity(unchecked) var exchange: UpstreamExchange?
    // Sending.
    @exclusivity(unchecked) var outbound: [UInt8] = []
    var outboundOffset = 0
    // Receiving.
    @exclusivity(unchecked) var pending: [UInt8] = []
    @exclusivity(unchecked) var response: UpstreamResponseHead.Frame?
    var remaining = 0
    @exclusivity(unchecked) var decoder = ChunkedDecoder()
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
        pool.loop.schedule(after: connectTimeout) { pool.running[id]?.connectTimerFired() }
        let host = exchange.target.host
        if let literal = host.lowercased() == "localhost" ? IPAddress.v4(0x7F00_0001) : IPAddress(host) {
            return connect(to: literal, port: exchange.target.port)
        }
        let port = exchange.target.port
        NameResolver.resolve(host) { result in
            pool.loop.execute { pool.running[id]?.resolved(result, port: port) }
        }
    }

    private func resolved(_ result: Result<IPAddress, NameResolutionError>, port: UInt16) {
        guard machine.stage == .resolving else { return }
        switch result {
        case .success(let address): connect(to: address, port: port)
        case .failure: fail(.connectFailed)
        }
    }

    private func connect(to address: IPAddress, port: UInt16) {
        do {
            let (fd, inProgress) = try Socket.connect(to: SocketAddress(ip: address, port: port))
            self.fd = fd
            machine.connecting(inProgress: inProgress)
            interest = inProgress ? [.writable] : [.readable, .readHangup]
            registration = try pool.loop.register(fd, for: interest, handler: self)
        } catch {
            return fail(.connectFailed)
        }
        if machine.stage == .exchanging { sendMore() }
    }

    private func connectTimerFired() {
        guard machine.isOpening else { return }
        fail(.timedOut(requestSent: false))
    }

    private func connected() {
        guard Socket.pendingError(fd) == 0 else { return fail(.connectFailed) }
        machine.connected()
        sendMore()
    }

    // MARK: Exchanges

    /// Sends `exchange` on this (open, idle) connection.
    func begin(_ exchange: UpstreamExchange) {
        attach(exchange)
        sendMore()
    }

    private func attach(_ exchange: UpstreamExchange) {
        self.exchange = exchange
        pool.running[exchange.id] = self
        pool.stats.activeTransfers.add(1, ordering: .relaxed)
        let deadline = pool.loop.now &+ exchange.idleTimeout
        if machine.attach(hasUpload: exchange.upload != nil, deadline: deadline) { armWatchdog(after: exchange.idleTimeout) }
        outbound = exchange.head
        outboundOffset = 0
        response = nil
        decoder = ChunkedDecoder()
        receivedBytes = 0
    }

    // MARK: Events

    func handleEvents(_ events: EpollEvents) {
        switch machine.stage {
        case .connecting:
            connected()
        case .idle:
            // An idle connection has nothing to read: the server closed
            // it, or broke the protocol. Either way it is done.
            close()
        case .exchanging:
            if machine.isReceivePaused {
                // Not reading, and epoll cannot mask these: reported on every
                // pass, they would spin the loop until the reader catches up.
                if !events.isDisjoint(with: [.hangup, .error]) { stopWatching() }
            } else if !events.isDisjoint(with: [.readable, .hangup, .error, .readHangup]) {
                readAvailable()
            }
            if events.contains(.writable), machine.stage != .closed { sendMore() }
        case .resolving, .closed:
            break
        }
    }

    // MARK: Sending

    /// Writes what is queued, then the body as its source provides it,
    /// until the socket or the source has to be waited for.
    private func sendMore() {
        guard let exchange, machine.mayWrite else { return }
        while true {
            if outboundOffset < outbound.count {
                let result = outbound.withUnsafeBytes { all in
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
                    machine.sendFailed()
                    outbound = []
                    outboundOffset = 0
                    return updateInterest()
                }
            }
            // Without an upload, `outbound` still shares the exchange's head:
            // let go of it rather than copy it to keep its capacity.
            if exchange.upload == nil { outbound = [] } else { outbound.removeAll(keepingCapacity: true) }
            outboundOffset = 0
            if machine.queueEmptied() { return updateInterest() } // the whole request has left
            guard let upload = exchange.upload, machine.mayReadUpload else { return updateInterest() }
            switch upload.read(into: pool.uploadBuffer) {
            case .bytes(let count):
                let piece = UnsafeRawBufferPointer(rebasing: pool.uploadBuffer[..<count])
                if exchange.chunked {
                    outbound.append(contentsOf: String(count, radix: 16).utf8)
                    outbound.append(contentsOf: "\r\n".utf8)
                    outbound.append(contentsOf: piece)
                    outbound.append(contentsOf: "\r\n".utf8)
                } else {
                    outbound.append(contentsOf: piece)
                }
            case .pause:
                machine.uploadPaused()
                return updateInterest()
            case .end:
                if exchange.chunked { outbound.append(contentsOf: "0\r\n\r\n".utf8) }
                machine.uploadEnded()
            case .failed:
                return fail(.requestBodyFailed)
            }
        }
    }

    /// The body's source has a piece again.
    func uploadReadable() {
        if machine.uploadReadable() { sendMore() }
    }

    // MARK: The end

    /// The response has been read whole.
    /// A server that answered before the whole request was sent (an early
    /// 413, say) leaves the connection unusable; so do bytes past the end,
    /// and a socket that failed or hung up while reading was paused.
    func complete(extraBytes: Bool) {
        guard let exchange, let response else { return }
        let reusable = machine.completed(keepAlive: response.keepAlive, extraBytes: extraBytes, watched: registration != nil)
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
        guard let exchange else { return }
        detach()
        pool.stats.failures.add(1, ordering: .relaxed)
        exchange.fail(error)
    }

    /// Lets go of the exchange: it is no longer running here.
    func detach() {
        guard let exchange else { return }
        self.exchange = nil
        pool.running[exchange.id] = nil
        pool.stats.activeTransfers.subtract(1, ordering: .relaxed)
        exchange.stopUpload()
        pending = []
        machine.detach()
    }

    /// The timer holds the connection until its deadline (a weak
    /// reference would put every retain of it on the slow path).
    private func armWatchdog(after delay: UInt64) {
        let generation = machine.watchdogArmed(deadline: pool.loop.now &+ delay)
        pool.loop.schedule(after: .nanoseconds(Int64(delay))) { [self] in watchdogFired(generation) }
    }

    /// The exchange's idle timeout: nothing moved for `idleTimeout` while
    /// neither side of ours held it paused. Idle in the pool, the
    /// connection needs no timer until its next exchange.
    private func watchdogFired(_ generation: UInt64) {
        // Idle (no exchange), the machine has nothing to watch.
        let now = pool.loop.now
        var progress = exchange?.lastProgress ?? now
        switch machine.watchdogFired(generation, now: now, lastProgress: &progress, idleTimeout: exchange?.idleTimeout ?? 0) {
        case .nothing:
            return
        case .timedOut:
            fail(.timedOut(requestSent: machine.requestMayHaveArrived))
        case .rearm(let delay):
            exchange?.lastProgress = progress
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
        guard machine.stage == .exchanging || machine.stage == .idle, let registration else { return }
        let wanted = machine.interest(outboundPending: outboundOffset < outbound.count)
        guard wanted != interest else { return }
        interest = wanted
        pool.loop.modify(registration, fd: fd, for: wanted)
    }

    /// Closes the socket (out of epoll first) and leaves the pool's counts.
    func close() {
        guard machine.close() else { return }
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
