import Core
import System
import HTTPCodec

/// One accepted TCP connection: reads and parses requests, hands each to
/// a worker task on this loop (see `RequestWorkers`), and writes the
/// responses in order. Its state (stage, the request's progress, why
/// reading pauses, deadlines) is `state.machine`; this class performs what
/// the machine answers on the socket, the buffers and the request's body.
/// Owns its descriptor; touched only on its loop's thread.
final class HTTPConnection: EventLoopHandler {
    let fd: Int32
    let peer: SocketAddress?
    /// Strong: the owner drops the connection when it closes, which ends
    /// the cycle, and a strong reference costs less to retain than `unowned`.
    let owner: ServerLoopState
    var loop: EventLoop { owner.loop }
    var registration: Registration?
    var interest: EpollEvents = [.readable, .readHangup]
    /// The machine, the parser, the buffers and the response's progress
    /// (see `State`).
    ///
    /// `@exclusivity(unchecked)`: loop-confined, and no access to it is
    /// held across a call that could reach this connection again: the
    /// machine's and the parser's methods are value code that calls nothing
    /// outside them (no closure, no reference), parsing reads `input`
    /// inside one call on `state` (`State.parse`), the buffers are changed
    /// by appends, compaction and `write(2)` from them, and the response's
    /// waiters are taken out before they are resumed (a resumption only
    /// queues the waiting task). So the run-time exclusivity check, a
    /// dozen per request, could never fire (see EventLoop).
    @exclusivity(unchecked) var state: State
    var closed: Bool { state.machine.stage == .closed }

    /// `state.input[inputStart...]` is not parsed yet.
    var inputStart = 0
    /// `state.output[outputStart...]` is not sent yet.
    var outputStart = 0

    /// The body of the request in flight, while it is read.
    var bodyStream: RequestBodyStream?
    /// A worker is sending this connection's response (its body too): a
    /// request pipelined behind it goes to that worker next. Set by the
    /// worker only; an answer given at once has no worker to come back.
    var answering = false
    /// How many requests this connection has started: an answer promised
    /// `later` names its request by this number.
    private(set) var requestNumber: UInt64 = 0
    /// `process` is running: a response answered at once completes inside
    /// it, and its loop moves on to the next pipelined request rather than
    /// a nested call (which a pipelined burst would nest once per request).
    private var processing = false

    /// The peer address this connection counts against the server's
    /// per-address cap; nil when it is not counted.
    var countedAddress: IPAddress?
    /// The address this connection was refused for (over the cap), while
    /// its refusal lingers; nil otherwise.
    var refusedAddress: IPAddress?

    init(fd: Int32, peer: SocketAddress?, owner: ServerLoopState) {
        self.fd = fd
        self.peer = peer
        self.owner = owner
        state = State(machine: HTTPConnectionMachine(spans: owner.spans),
                      parser: HTTPRequestParser(limits: owner.configuration.parserLimits))
    }

    func start() throws(SystemError) {
        registration = try loop.register(fd, for: interest, handler: self)
        state.machine.started(now: loop.now)
    }

    func handleEvents(_ events: EpollEvents) {
        if events.contains(.writable) { flush() }
        guard !closed else { return }
        if interest.contains(.readable) {
            if !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]) { readAvailable() }
        } else if !events.isDisjoint(with: [.hangup, .error]) {
            // Not reading, and epoll cannot mask these: the peer is gone
            // both ways (or the socket failed), so nothing more can be sent.
            close()
        }
    }

    // MARK: Reading

    private func readAvailable() {
        var discarded = 0
        while !closed, interest.contains(.readable) {
            let result = owner.readBuffer.withUnsafeMutableBytes { Socket.read(fd, into: $0) }
            switch result {
            case .done(let count):
                if state.machine.stage == .lingering {
                    // Discarding: a bounded amount per wake-up, so a peer
                    // that keeps sending cannot hold the loop.
                    discarded += count
                    if discarded >= 16 * owner.readBuffer.count { return }
                    continue
                }
                state.input.append(contentsOf: owner.readBuffer[0..<count])
                state.machine.bytesArrived(now: loop.now)
                if count < owner.readBuffer.count { process(); return }
                process()
            case .wouldBlock:
                return
            case .closed, .failed:
                peerFinishedSending()
                return
            }
        }
    }

    /// End of stream from the peer: answer what was fully received, drop
    /// what was not.
    private func peerFinishedSending() {
        if state.machine.peerFinished() { close() } else { updateReading() }
    }

    /// Parses as far as the current state allows: the head of the next
    /// request, or the body of the current one.
    func process() {
        guard !processing else { return }
        processing = true
        defer { processing = false }
        // A response that ends the connection (an answer given at once can
        // complete in here) ends the parsing too: nothing after it is run.
        while state.machine.mayParse(hasInput: inputStart < state.input.count) {
            let parsed = state.parse(from: inputStart)
            // Consumed, not copied: the head moves into the request.
            let base = inputStart
            let event: HTTPParserEvent
            switch consume parsed {
            case .success(let step):
                inputStart += step.consumed
                event = step.event
            case .failure(let error):
                refuse(error)
                return
            }
            switch consume event {
            case .needMore:
                compactInput()
                return
            case .head(let head):
                startRequest(head)
            case .body(let range):
                receiveBody(Array(state.input[(base + range.lowerBound)..<(base + range.upperBound)]))
            case .end:
                let resume = state.machine.bodyEnded()
                bodyStream?.finish()
                bodyStream = nil
                // The body is all here; the next request may follow.
                if resume { updateReading() }
            }
        }
        compactInput()
        // Pipelined bytes pile up behind a slow response: stop reading.
        if state.machine.pipelined(pendingBytes: state.input.count - inputStart, limit: owner.configuration.parserLimits.maxHeaderBytes) {
            updateReading()
        }
    }

    private func compactInput() {
        if inputStart == state.input.count {
            state.input.removeAll(keepingCapacity: state.input.capacity <= 64 * 1024)
            inputStart = 0
        } else if inputStart > 32 * 1024 {
            state.input.removeSubrange(0..<inputStart)
            inputStart = 0
        }
    }

    private func receiveBody(_ bytes: [UInt8]) {
        state.machine.bodyArrived(bytes.count, now: loop.now)
        guard let bodyStream, !bytes.isEmpty else { return }
        if !bodyStream.push(bytes), state.machine.bodyReaderBehind(now: loop.now) { updateReading() }
    }

    private func startRequest(_ head: consuming HTTPRequestHead) {
        requestNumber &+= 1
        state.machine.headParsed(keepAlive: head.keepAlive, isHead: head.method == .head, isHTTP10: head.version == .http1_0,
                           expectsContinue: head.expectsContinue, draining: owner.draining, now: loop.now)
        state.response = ResponseProgress()
        owner.stats.requests.add(1, ordering: .relaxed)

        let body: HTTPRequestBody
        switch head.framing {
        case .none:
            let request = HTTPRequest(head: consume head, body: .empty, peer: peer)
            if let immediate = owner.immediate {
                switch immediate(request, HTTPLaterAnswer(connection: self, request: requestNumber)) {
                case .now(let answer):
                    // Nothing comes between the head and its `.end`.
                    state.machine.answeredWithoutBody(later: false)
                    owner.stats.answeredWithoutTask.add(1, ordering: .relaxed)
                    answerAtOnce(answer)
                    return
                case .later:
                    state.machine.answeredWithoutBody(later: true)
                    owner.stats.answeredWithoutTask.add(1, ordering: .relaxed)
                    return
                case .declined:
                    break
                }
            }
            owner.workers.submit(request, from: self)
            return
        case .contentLength(let length):
            state.machine.bodyAnnounced(now: loop.now)
            bodyStream = RequestBodyStream { [bound = LoopBound(self, loop: loop)] in bound.withValue { $0.bodyDemanded() } }
            body = HTTPRequestBody(stream: bodyStream, declaredLength: length)
        case .chunked:
            state.machine.bodyAnnounced(now: loop.now)
            bodyStream = RequestBodyStream { [bound = LoopBound(self, loop: loop)] in bound.withValue { $0.bodyDemanded() } }
            body = HTTPRequestBody(stream: bodyStream, declaredLength: nil)
        }
        owner.workers.submit(HTTPRequest(head: consume head, body: body, peer: peer), from: self)
    }

    /// Sends an answer promised `later` for request `number`; dropped
    /// unless that request is the one in flight and still waits for it
    /// (not when the connection has closed, or it was answered).
    func answerLater(_ response: HTTPResponse, request number: UInt64) {
        loop.assertInLoop()
        guard number == requestNumber, state.machine.takePromise() else { return }
        answerAtOnce(response)
    }

    /// Sends what the immediate responder answered. A streamed body still
    /// needs a task to produce it: it gets one of its own.
    private func answerAtOnce(_ response: HTTPResponse) {
        guard let producer = send(response) else { return }
        let connection = LoopBound(self, loop: loop)
        Task(executorPreference: loop) { await connection.valueInLoop.stream(producer) }
    }

    /// The handler wants body bytes: send `100 Continue` if the client
    /// waits for it, and resume reading if back-pressure had paused it.
    func bodyDemanded() {
        let demand = state.machine.bodyDemanded(now: loop.now)
        if demand.sendContinue {
            state.output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            flush()
        }
        if demand.resumeReading, !closed {
            updateReading()
            readAvailable()
        }
    }

    /// Reads, or stops reading, as the pause reasons say. Hang-up interest
    /// goes with it: a level-triggered EPOLLRDHUP that nothing reads would
    /// wake the loop again and again.
    func updateReading() {
        setInterest(state.machine.wantsToRead ? interest.union([.readable, .readHangup]) : interest.subtracting([.readable, .readHangup]))
    }

    func setInterest(_ events: EpollEvents) {
        guard events != interest, let registration, !closed else { return }
        interest = events
        loop.modify(registration, fd: fd, for: events)
    }

    // MARK: Closing

    /// Closes the descriptor after taking it out of epoll; fails any reader
    /// or writer still waiting on this connection. A response still being
    /// written (a stream that failed, a write timeout, a forced shutdown)
    /// ends with a reset, so that the client can never take a cut body for
    /// a whole one (a body framed by the close would otherwise just end).
    func close() {
        switch state.machine.close() {
        case .alreadyClosed: return
        case .reset: Socket.resetOnClose(fd)
        case .close: break
        }
        if let registration { loop.deregister(registration, fd: fd) }
        registration = nil
        Socket.close(fd)
        bodyStream?.fail(.connectionClosed)
        bodyStream = nil
        state.response.failWaiters()
        owner.connectionClosed(self)
    }

    /// Sends what is queued, then half-closes and discards input for a
    /// moment before closing, so a client still sending does not get a
    /// reset that destroys the response in flight.
    func closeAfterFlush() {
        // Output still queued: flush() comes back here.
        switch state.machine.finish(outputPending: outputStart < state.output.count, inputPending: inputStart < state.input.count, now: loop.now) {
        case .wait:
            break
        case .close:
            close()
        case .linger:
            Socket.shutdownWrite(fd)
            setInterest([.readable, .readHangup])
        }
    }

    /// Shutdown began: close now if idle, else after this response.
    func drain() {
        if state.machine.drain() { close() }
    }
}
