import Core
import Crypto
import System

/// What a wire reports to the connection that owns it, on the loop thread.
protocol RedisWireDelegate: AnyObject {
    /// A reply (or failure) to a command sent while connecting (`AUTH`,
    /// `SELECT`, `PING`, `ROLE`).
    func wire(_ wire: RedisWire, handshake step: HandshakeStep, didReply result: Result<RedisValue, RedisError>)
    /// A pub/sub message or (un)subscribe confirmation.
    func wire(_ wire: RedisWire, didReceivePush value: RedisValue)
    /// The wire closed: the connect or the TLS handshake failed, the server
    /// ended the stream, an I/O or protocol error (`error` says which), or
    /// ``RedisWire/close()`` (`error` nil). Called once, before the
    /// unanswered commands fail.
    func wireDidClose(_ wire: RedisWire, error: RedisConnectionFailure?)
    /// A command was refused with `READONLY`: the server is a replica.
    func wireSawReadOnly(_ wire: RedisWire)
}

extension RedisWireDelegate {
    func wireSawReadOnly(_ wire: RedisWire) {}
}

/// One connection to a Redis server on one event loop: the project's own
/// non-blocking socket, plain or TLS, carrying RESP. Commands are encoded by
/// ``RESPCommand`` into one output buffer that leaves in one write per loop
/// round; replies are parsed by hiredis's reader (``ReplyReader``) and
/// matched to the commands in order.
///
/// ```
/// connecting ─writable, connected─→ [TLS handshake] ─→ open ─→ closed
///      any failure, or close() ────────────────────────────────↗
/// ```
/// Commands may be issued from the start: they wait in the buffer until
/// the wire is open. The socket belongs to the wire: it leaves the loop's
/// epoll set and is closed exactly once, when the wire closes.
final class RedisWire: EventLoopHandler {
    private enum Stage {
        case connecting(tls: TLSClientStream?)
        case handshaking(TLSClientStream)
        case open(TLSClientStream?)
        case closed
    }

    let loop: EventLoop
    private let fd: Int32
    private var registration: Registration?
    private var registered: EpollEvents = []
    private var stage: Stage
    private var output: [UInt8] = []
    private var outputStart = 0
    /// Whether epoll watches for writability: while connecting, during a
    /// handshake step that waits for it, or after a write that did not drain.
    private var pollWrite = true
    private var flushScheduled = false
    private let reader = ReplyReader()
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
    private var pending = FIFO<PendingCommand>()
    /// Set once a (S)SUBSCRIBE went out: from then on, replies shaped like
    /// pub/sub messages go to the delegate, not to a waiting command.
    private var subscribed = false
    weak var delegate: (any RedisWireDelegate)?
    /// Marked when this object is deallocated (for the leak tests).
    let lifetime = ContextLifetime()

    private init(fd: Int32, loop: EventLoop, tls: TLSClientStream?) {
        self.fd = fd
        self.loop = loop
        stage = .connecting(tls: tls)
    }

    /// Starts a non-blocking connect to `address`; with `security`, a TLS
    /// handshake follows, the certificate checked for `security.serverName`
    /// or else `host` (the name the address came from).
    static func connect(to address: IPAddress, port: Int, host: String, security: WireSecurity?,
                        loop: EventLoop) -> Result<RedisWire, RedisConnectionFailure> {
        loop.assertInLoop()
        guard let port = UInt16(exactly: port) else { return .failure(.connect("bad port")) }
        let fd: Int32
        do {
            fd = try Socket.connect(to: SocketAddress(ip: address, port: port)).fd
        } catch {
            return .failure(.connect(error.description))
        }
        Socket.setKeepAlive(fd)
        var stream: TLSClientStream?
        if let security {
            do {
                stream = try security.configuration.stream(fd: fd, serverName: security.serverName ?? host)
            } catch {
                Socket.close(fd)
                return .failure(.tls(error.description))
            }
        }
        let wire = RedisWire(fd: fd, loop: loop, tls: stream)
        do {
            // Writability reports the connect's outcome, also for a connect
            // that finished at once: one path for both.
            wire.registration = try loop.register(fd, for: .writable, handler: wire)
            wire.registered = .writable
        } catch {
            wire.stage = .closed
            Socket.close(fd)
            return .failure(.connect(error.description))
        }
        return .success(wire)
    }

    /// Whether the wire has not closed.
    var isOpen: Bool {
        if case .closed = stage { return false }
        return true
    }

    /// The deadline of the oldest unanswered command.
    var oldestDeadline: UInt64? { pending.first?.deadline }
    var pendingCount: Int { pending.count }

    // MARK: Commands

    /// Appends an encoded command to the output; it leaves with the others
    /// of this loop round. False when the wire has closed.
    func issue(_ command: [UInt8], waiter: Waiter, deadline: UInt64) -> Bool {
        guard append(command) else { return false }
        pending.append(PendingCommand(waiter: waiter, deadline: deadline))
        return true
    }

    /// Sends `SUBSCRIBE`/`UNSUBSCRIBE` (or the sharded forms): their
    /// confirmations and the messages go to the delegate.
    func issueSubscription(_ command: [UInt8]) -> Bool {
        guard append(command) else { return false }
        subscribed = true
        return true
    }

    private func append(_ command: [UInt8]) -> Bool {
        guard isOpen else { return false }
        output.append(contentsOf: command)
        if case .open = stage, !pollWrite, !flushScheduled {
            flushScheduled = true
            LoopBound(self, loop: loop).later { $0.flushScheduledWrite() }
        }
        return true
    }

    /// Fails every unanswered command: the oldest with `first`, the rest
    /// with `rest`.
    func failPending(first: RedisError, rest: RedisError) {
        var error = first
        for command in pending.removeAll() {
            complete(command.waiter, with: .failure(error))
            error = rest
        }
    }

    /// Closes the socket now; unanswered commands fail with
    /// ``RedisError/connectionLost``. Idempotent.
    func close() {
        end(error: nil)
    }

    deinit {
        assert(!isOpen, "a Redis wire was dropped without being closed")
        readBuffer.deallocate()
        lifetime.end()
    }
}

extension RedisWire {
    // MARK: Event loop side

    func handleEvents(_ events: EpollEvents) {
        let failed = !events.isDisjoint(with: [.error, .hangup])
        switch stage {
        case .connecting(let tls):
            guard events.contains(.writable) || failed else { return }
            let code = Socket.pendingError(fd)
            guard code == 0 else { return end(error: .connect(SystemError("connect", errno: code).description)) }
            if let tls {
                stage = .handshaking(tls)
                advanceHandshake(tls)
            } else {
                becomeOpen(nil)
            }
        case .handshaking(let tls):
            advanceHandshake(tls)
        case .open(let tls):
            if events.contains(.readable) || failed { readAvailable(tls) }
            if isOpen, events.contains(.writable) || (tls != nil && outputStart < output.count) { flush(tls) }
        case .closed:
            return
        }
    }

    private func advanceHandshake(_ tls: TLSClientStream) {
        switch tls.handshake() {
        case .done: becomeOpen(tls)
        case .wantRead: setInterest(read: true, write: false)
        case .wantWrite: setInterest(read: false, write: true)
        case .closed: end(error: .tls("the server closed the connection during the handshake"))
        case .failed(let reason): end(error: .tls(reason))
        }
    }

    private func becomeOpen(_ tls: TLSClientStream?) {
        stage = .open(tls)
        setInterest(read: true, write: false)
        flush(tls)
    }

    private func flushScheduledWrite() {
        flushScheduled = false
        guard case .open(let tls) = stage, !pollWrite else { return }
        flush(tls)
    }

    /// Writes the output until it is drained or the socket is full.
    private func flush(_ tls: TLSClientStream?) {
        while outputStart < output.count {
            let result = output.withUnsafeBytes { bytes in
                WireIO.write(fd, tls, from: UnsafeRawBufferPointer(rebasing: bytes[outputStart...]))
            }
            switch result {
            case .done(let n): outputStart += n
            case .wait: return setInterest(read: true, write: true)
            case .closed: return end(error: .connectionLost("server closed the connection"))
            case .failed(let reason): return end(error: .connectionLost(reason))
            }
        }
        // Drained: keep a modest buffer for the next round, not a large one.
        if output.capacity > 64 * 1024 { output = [] } else { output.removeAll(keepingCapacity: true) }
        outputStart = 0
        setInterest(read: true, write: false)
    }

    /// Reads what the socket (and TLS) holds, then hands every whole reply on.
    private func readAvailable(_ tls: TLSClientStream?) {
        while isOpen {
            switch WireIO.read(fd, tls, into: readBuffer) {
            case .done(let n):
                guard reader.feed(UnsafeRawBufferPointer(rebasing: readBuffer[..<n])) else { return end(error: .connectionLost("protocol error")) }
                deliverReplies()
                if n < readBuffer.count, tls?.hasBufferedInput != true { return }
            case .wait: return
            case .closed: return end(error: .connectionLost("server closed the connection"))
            case .failed(let reason): return end(error: .connectionLost(reason))
            }
        }
    }

    private func deliverReplies() {
        while isOpen {
            switch reader.next() {
            case .reply(let value): deliver(value)
            case .needMore: return
            case .broken: return end(error: .connectionLost("protocol error"))
            }
        }
    }

    private func deliver(_ value: RedisValue) {
        if subscribed, value.isPush {
            delegate?.wire(self, didReceivePush: value)
        } else if let command = pending.popFirst() {
            complete(command.waiter, with: .success(value))
            if case .error(let text) = value, text.hasPrefix("READONLY") { delegate?.wireSawReadOnly(self) }
        }
    }

    private func complete(_ waiter: Waiter, with result: Result<RedisValue, RedisError>) {
        switch waiter {
        case .single(let command, let continuation):
            if case .success(.error(let text)) = result {
                continuation.resume(returning: .failure(.server("\(commandName(command)): \(text)")))
            } else {
                continuation.resume(returning: result)
            }
        case .batch(let collector, let index):
            collector.deliver(result, at: index)
        case .handshake(let step):
            delegate?.wire(self, handshake: step, didReply: result)
        case .callback(let body):
            body(result)
        }
    }

    private func setInterest(read: Bool, write: Bool) {
        pollWrite = write
        guard let registration else { return }
        var events: EpollEvents = []
        if read { events.insert(.readable) }
        if write { events.insert(.writable) }
        guard events != registered else { return }
        registered = events
        loop.modify(registration, fd: fd, for: events)
    }

    /// Closes the socket and tells the delegate, then the waiting commands.
    private func end(error: RedisConnectionFailure?) {
        guard isOpen else { return }
        stage = .closed
        if let registration {
            loop.deregister(registration, fd: fd)
            self.registration = nil
        }
        Socket.close(fd)
        output = []
        delegate?.wireDidClose(self, error: error)
        failPending(first: .connectionLost, rest: .connectionLost)
    }
}

/// One read or write on the socket, or through TLS over it.
enum WireIO {
    case done(Int)
    /// Nothing more for now; epoll says when to go on. (A TLS read that
    /// needs a write, or the reverse, only happens around renegotiation,
    /// which Redis servers do not start; the wire polls for reading
    /// whenever it is open, and writes whenever output is waiting.)
    case wait
    case closed
    /// Why the stream broke, for the log (no data in it).
    case failed(String)

    static func read(_ fd: Int32, _ tls: TLSClientStream?, into buffer: UnsafeMutableRawBufferPointer) -> WireIO {
        if let tls { return WireIO(tls.read(into: buffer)) }
        return WireIO(Socket.read(fd, into: buffer), call: "read")
    }

    static func write(_ fd: Int32, _ tls: TLSClientStream?, from buffer: UnsafeRawBufferPointer) -> WireIO {
        if let tls { return WireIO(tls.write(from: buffer)) }
        return WireIO(Socket.write(fd, from: buffer), call: "write")
    }

    private init(_ result: IOResult, call: String) {
        switch result {
        case .done(let n): self = .done(n)
        case .wouldBlock: self = .wait
        case .closed: self = .closed
        case .failed(let errno): self = .failed(SystemError(call, errno: errno).description)
        }
    }

    private init(_ result: TLSResult) {
        switch result {
        case .done(let n): self = .done(n)
        case .wantRead, .wantWrite: self = .wait
        case .closed: self = .closed
        case .failed(let reason): self = .failed("TLS: \(reason)")
        }
    }
}
