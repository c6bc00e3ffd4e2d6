import CHiredis
import System

/// What a context reports to the connection that owns it, on the loop thread.
protocol HiredisContextDelegate: AnyObject {
    /// A reply (or failure) to an `AUTH`, `SELECT` or `PING` sent while connecting.
    func context(_ context: HiredisContext, handshake step: HandshakeStep, didReply result: Result<RedisValue, RedisError>)
    /// A pub/sub message or (un)subscribe confirmation.
    func context(_ context: HiredisContext, didReceivePush value: RedisValue)
    /// hiredis is freeing the context (server closed, I/O error, failed
    /// connect, or `close`). Called once; no hiredis call may be made here.
    func contextDidClose(_ context: HiredisContext, error: String?)
}

/// One hiredis async context on one event loop: the adapter between
/// hiredis's `ev.addRead/delRead/addWrite/delWrite/cleanup` hooks and the
/// loop's epoll set, and the queue of commands awaiting replies.
///
/// Ownership:
/// - hiredis owns the socket and closes it in `redisFree`. The `cleanup`
///   hook, which hiredis calls just before that, takes the descriptor out of
///   epoll, so a closed (and maybe reused) descriptor is never registered.
/// - `ac->data` and `ac->ev.data` hold one `Unmanaged` retain of this
///   object, taken when the hooks are attached. It is released exactly once:
///   after the context is gone (`ac == nil`) and the outermost call into
///   hiredis has returned, since hiredis still reads those pointers between
///   `cleanup` and its own return (pending callbacks, a second `cleanup`).
/// - Replies are matched to `pending` in order; `privdata` is never used, so
///   no per-command retain exists to balance.
final class HiredisContext: EventLoopHandler {
    let loop: EventLoop
    private(set) var ac: UnsafeMutablePointer<redisAsyncContext>?
    private let fd: Int32
    private var registration: Registration?
    private var registered: EpollEvents = []
    private var wantRead = false
    /// Whether epoll watches for writability: while connecting, or after a
    /// write that did not drain hiredis's buffer.
    private var pollWrite = false
    private var inWrite = false
    private var flushScheduled = false
    private var heldByHiredis = false
    private var hiredisDepth = 0
    private var pending = FIFO<PendingCommand>()
    weak var delegate: (any HiredisContextDelegate)?
    /// Marked when this object is deallocated (for the leak tests).
    let lifetime = ContextLifetime()

    private init(ac: UnsafeMutablePointer<redisAsyncContext>, loop: EventLoop) {
        self.ac = ac
        self.loop = loop
        fd = ac.pointee.c.fd
    }

    /// Starts a non-blocking connect to `address`, an IP literal (hiredis
    /// then calls `getaddrinfo` on a numeric host, which never does a lookup).
    static func connect(address: String, port: Int, loop: EventLoop) -> Result<HiredisContext, RedisConnectionFailure> {
        loop.assertInLoop()
        guard let ac = redisAsyncConnect(address, Int32(clamping: port)) else { return .failure(.connect("out of memory")) }
        if ac.pointee.err != 0 {
            let text = ac.pointee.errstr.map { String(cString: $0) } ?? "connect failed"
            redisAsyncFree(ac)
            return .failure(.connect(text))
        }
        // hiredis opens its socket without close-on-exec.
        Socket.setCloseOnExec(ac.pointee.c.fd)
        let context = HiredisContext(ac: ac, loop: loop)
        do {
            context.registration = try loop.register(context.fd, for: [], handler: context)
        } catch {
            context.ac = nil
            redisAsyncFree(ac)
            return .failure(.connect(error.description))
        }
        _ = chiredis_enable_keepalive(ac)
        let opaque = Unmanaged.passRetained(context).toOpaque()
        context.heldByHiredis = true
        ac.pointee.data = opaque
        ac.pointee.ev.data = opaque
        ac.pointee.ev.addRead = hiredisAddRead
        ac.pointee.ev.delRead = hiredisDelRead
        ac.pointee.ev.addWrite = hiredisAddWrite
        ac.pointee.ev.delWrite = hiredisDelWrite
        ac.pointee.ev.cleanup = hiredisCleanup
        return .success(context)
    }

    /// Whether hiredis has not freed the context yet.
    var isOpen: Bool { ac != nil }
    /// The deadline of the oldest unanswered command.
    var oldestDeadline: UInt64? { pending.first?.deadline }
    var pendingCount: Int { pending.count }

    // MARK: Commands

    /// Appends an encoded command to hiredis's output buffer; the write
    /// happens once per loop round, so commands issued together leave in
    /// one write. False when the context is closing.
    func issue(_ command: [UInt8], waiter: Waiter, deadline: UInt64) -> Bool {
        guard let ac, format(command, on: ac, callback: hiredisReplyCallback) else { return false }
        pending.append(PendingCommand(waiter: waiter, deadline: deadline))
        return true
    }

    /// Sends `SUBSCRIBE`/`UNSUBSCRIBE`: hiredis routes their replies and the
    /// messages to the push callback, so nothing is queued here.
    func issueSubscription(_ command: [UInt8]) -> Bool {
        guard let ac else { return false }
        return format(command, on: ac, callback: hiredisPushCallback)
    }

    private func format(_ command: [UInt8], on ac: UnsafeMutablePointer<redisAsyncContext>,
                        callback: @escaping @convention(c) (UnsafeMutablePointer<redisAsyncContext>?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void) -> Bool {
        // `command` ends with a NUL that hiredis's parser needs but that is
        // not sent (see RESPCommand).
        precondition(command.last == 0, "commands come from RESPCommand.encode")
        let status = command.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { redisAsyncFormattedCommand(ac, callback, nil, $0.baseAddress, $0.count - 1) }
        }
        return status == REDIS_OK
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

    /// Frees the hiredis context now (deferred by hiredis itself when called
    /// from one of its reply callbacks). Unanswered commands fail with
    /// ``RedisError/connectionLost`` unless failed before.
    func close() {
        guard let ac else { return }
        callingHiredis { redisAsyncFree(ac) }
    }

    // MARK: Replies

    func didReceiveReply(_ reply: UnsafeMutablePointer<redisReply>?) {
        guard let command = pending.popFirst() else { return }
        complete(command.waiter, with: reply.map { .success(RedisValue(reply: $0)) } ?? .failure(.connectionLost))
    }

    func didReceivePush(_ reply: UnsafeMutablePointer<redisReply>?) {
        guard let reply else { return }
        delegate?.context(self, didReceivePush: RedisValue(reply: reply))
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
            delegate?.context(self, handshake: step, didReply: result)
        case .callback(let body):
            body(result)
        }
    }

    // MARK: Event loop side

    func handleEvents(_ events: EpollEvents) {
        callingHiredis {
            guard let ac else { return }
            let failed = !events.isDisjoint(with: [.error, .hangup])
            if events.contains(.writable) || (failed && chiredis_is_connected(ac) == 0) {
                inWrite = true
                redisAsyncHandleWrite(ac)
                inWrite = false
            }
            guard let ac = self.ac else { return }
            if events.contains(.readable) || failed {
                redisAsyncHandleRead(ac)
            }
        }
    }

    /// Writes what hiredis has buffered (scheduled by `hookAddWrite`).
    private func flush() {
        flushScheduled = false
        callingHiredis {
            guard let ac, !pollWrite else { return }
            inWrite = true
            redisAsyncHandleWrite(ac)
            inWrite = false
        }
    }

    /// Every call into hiredis that may free the context goes through here,
    /// so the `Unmanaged` retain is released only after hiredis returned.
    private func callingHiredis(_ body: () -> Void) {
        hiredisDepth += 1
        body()
        hiredisDepth -= 1
        if hiredisDepth == 0 { releaseIfClosed() }
    }

    private func releaseIfClosed() {
        guard ac == nil, heldByHiredis else { return }
        heldByHiredis = false
        Unmanaged.passUnretained(self).release()
    }

    private func updateInterest() {
        guard let registration else { return }
        var events: EpollEvents = []
        if wantRead { events.insert(.readable) }
        if pollWrite { events.insert(.writable) }
        guard events != registered else { return }
        registered = events
        loop.modify(registration, fd: fd, for: events)
    }

    // MARK: hiredis hooks (see HiredisCallbacks.swift)

    func hookAddRead() {
        wantRead = true
        updateInterest()
    }

    func hookDelRead() {
        wantRead = false
        updateInterest()
    }

    /// While connecting, or from inside a write that did not finish, wait
    /// for writability; otherwise write later in this loop round, which
    /// batches the commands issued meanwhile and saves two `epoll_ctl` calls
    /// per command.
    func hookAddWrite() {
        guard let ac else { return }
        if inWrite || chiredis_is_connected(ac) == 0 {
            pollWrite = true
            updateInterest()
        } else if !pollWrite && !flushScheduled {
            flushScheduled = true
            LoopBound(self, loop: loop).later { $0.flush() }
        }
    }

    func hookDelWrite() {
        pollWrite = false
        updateInterest()
    }

    /// hiredis is about to free the context and close the socket (hiredis
    /// 0.14 may call this twice; the second call finds `ac` nil).
    func hookCleanup() {
        guard let ac else { return }
        let error = ac.pointee.err != 0 ? ac.pointee.errstr.map { String(cString: $0) } : nil
        if let registration {
            loop.deregister(registration, fd: fd)
            self.registration = nil
        }
        self.ac = nil
        // The owner first (so `isReady` is already false when a caller sees
        // the failure), then the callers.
        delegate?.contextDidClose(self, error: error)
        failPending(first: .connectionLost, rest: .connectionLost)
        if hiredisDepth == 0 {
            // Not reached: every call into hiredis goes through callingHiredis.
            // Should it happen, release after hiredis has returned.
            LoopBound(self, loop: loop).later { $0.releaseIfClosed() }
        }
    }

    deinit {
        assert(ac == nil, "a hiredis context was dropped without being freed")
        lifetime.end()
    }
}
